// SPDX-License-Identifier: Apache-2.0
// tessera/fft.h (ABI 1.11): tsr_fft, the n-dimensional discrete Fourier
// transforms of NumPy and torch.fft over the FFT kind's one-dimensional
// kernels (FFT, RFFT, IRFFT; Note [Kernel contracts] in tessera/ops.h).
//
// Note [Transforms one dim at a time]
//   An n-dimensional transform is separable: tsr_fft runs one kernel per
//   dim, each reading the previous result through its strides (the kernel
//   copies each line into a contiguous buffer: no transposes here). Before
//   each dim's kernel, the input is trimmed (a view) or padded with zeros
//   (a copy into a zeroed tensor) to that dim's length, as NumPy's n and s
//   do; the norm's factor is split over the dims (1/n_i, 1/sqrt(n_i) each),
//   so the product is the total's. R2C runs the real dim (the last of dims)
//   first and C2R last, so that every other dim is a complex transform.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "api_support.hpp"
#include "derivatives.hpp"
#include "ops.hpp"
#include "shape.hpp"

using namespace tessera::rt;

namespace {

const char* kind_name(int32_t kind) {
  switch (kind) {
    case TSR_FFT_C2C: return "fft";
    case TSR_FFT_R2C: return "rfft";
    default: return "irfft";
  }
}

// x trimmed or zero-padded to length n along dim.
TensorRef resized(const TensorRef& x, int32_t dim, int64_t n) {
  const int64_t size = x->layout.shape[static_cast<size_t>(dim)];
  if (size == n) return x;
  if (size > n) return make_based_view(*x, [&] { return slice(x->layout, dim, 0, n, 1); });
  std::vector<int64_t> shape(x->layout.shape.begin(), x->layout.shape.begin() + x->layout.ndim);
  shape[static_cast<size_t>(dim)] = n;
  TensorRef z = full(*x->rt, x->layout.ndim, shape.data(), tsr_scalar_float(0.0), x->dtype, x->device);
  if (size > 0) {
    TensorRef part = make_based_view(*z, [&] { return slice(z->layout, dim, 0, size, 1); });
    copy_into(*part, *x);
  }
  return z;
}

// The norm's factor of one dim of length n.
double scale_of(int32_t norm, bool inverse, int64_t n) {
  if (norm == TSR_FFT_NORM_ORTHO) return 1.0 / std::sqrt(static_cast<double>(n));
  const bool scaled = inverse ? norm == TSR_FFT_NORM_BACKWARD : norm == TSR_FFT_NORM_FORWARD;
  return scaled ? 1.0 / static_cast<double>(n) : 1.0;
}

// One kernel call: op along dim of x (already of the input length), into a
// new tensor of out_dtype with out_len on dim.
TensorRef transform(int32_t op, const TensorRef& x, int32_t dim, int64_t out_len, int32_t out_dtype, bool inverse,
                    double scale) {
  std::vector<int64_t> shape(x->layout.shape.begin(), x->layout.shape.begin() + x->layout.ndim);
  shape[static_cast<size_t>(dim)] = out_len;
  TensorRef out = make_result(*x, x->layout.ndim, shape.data(), out_dtype);
  if (out->layout.numel() == 0) return out;  // Note [Kernel contracts]: no kernel for an empty output
  tsr_tensor_desc din, dout;
  fill_desc(*x, din);
  fill_desc(*out, dout);
  const tsr_scalar scalars[1] = {make_scalar(scale)};
  const int64_t params[2] = {dim, inverse ? 1 : 0};
  launch(*x->rt, x->device, op, x->dtype, {&din}, dout, KernelParams{.scalars = scalars, .params = params});
  return out;
}

}  // namespace

namespace tessera::rt {

TensorRef fft(const tsr_tensor& input, const tsr_fft_options& o) {
  const char* fn = kind_name(o.kind);
  if (o.kind != TSR_FFT_C2C && o.kind != TSR_FFT_R2C && o.kind != TSR_FFT_C2R)
    fail(TSR_ERR_INVALID_ARGUMENT, "tsr_fft: options->kind " + std::to_string(o.kind) + " is not a tsr_fft_kind");
  if (o.norm != TSR_FFT_NORM_BACKWARD && o.norm != TSR_FFT_NORM_ORTHO && o.norm != TSR_FFT_NORM_FORWARD)
    fail(TSR_ERR_INVALID_ARGUMENT, "tsr_fft: options->norm " + std::to_string(o.norm) + " is not a tsr_fft_norm");
  if (o.num_dims < -1 || o.num_dims > TSR_MAX_DIMS)
    fail(TSR_ERR_INVALID_ARGUMENT, "tsr_fft: options->num_dims " + std::to_string(o.num_dims) + " is not in [-1, " +
                                       std::to_string(TSR_MAX_DIMS) + "]");
  const int32_t ndim = input.layout.ndim;
  const int32_t count = o.num_dims < 0 ? ndim : o.num_dims;
  std::vector<int32_t> dims;
  std::vector<int64_t> lens;
  for (int32_t i = 0; i < count; ++i) {
    const int64_t given = o.num_dims < 0 ? i : o.dims[i];
    if (ndim == 0)
      fail(TSR_ERR_INDEX, "Dimension specified as " + std::to_string(given) + " but tensor has no dimensions");
    const int32_t d = wrap_dim(given, ndim);
    for (int32_t seen : dims)
      if (seen == d) fail(TSR_ERR_INVALID_ARGUMENT, "FFT dims must be unique");
    dims.push_back(d);
  }
  for (int32_t i = 0; i < count; ++i) {
    const int64_t size = input.layout.shape[static_cast<size_t>(dims[static_cast<size_t>(i)])];
    const bool real_dim = o.kind == TSR_FFT_C2R && i == count - 1;
    const int64_t n =
        o.num_dims < 0 || o.n[i] == TSR_FFT_N_DEFAULT ? (real_dim ? 2 * (size - 1) : size) : o.n[i];
    if (n < 1) fail(TSR_ERR_INVALID_ARGUMENT, "Invalid number of data points (" + std::to_string(n) + ") specified");
    lens.push_back(n);
  }
  if (o.kind != TSR_FFT_C2C && count == 0)
    fail(TSR_ERR_INVALID_ARGUMENT, std::string(fn) + "n must transform at least one axis");

  // PyTorch 1.13's promotion: float64 keeps its precision, the rest is float32.
  const bool wide = input.dtype == TSR_FLOAT64 || input.dtype == TSR_COMPLEX128;
  const int32_t real = wide ? TSR_FLOAT64 : TSR_FLOAT32, complex = wide ? TSR_COMPLEX128 : TSR_COMPLEX64;
  if (o.kind == TSR_FFT_R2C && tsr_dtype_is_complex(input.dtype))
    fail(TSR_ERR_TYPE, std::string(fn) + " expects a real input tensor, but got " + tsr_dtype_name(input.dtype));

  TensorRef x = TensorRef::share(const_cast<tsr_tensor*>(&input));
  if (count == 0) {  // C2C of no dims: the input as complex, a cast or a clone (recorded as such)
    x = to(x, complex, input.device);
    return x.get() == &input ? clone(*x) : x;
  }
  // The kernels run without a record; the transform is one node (derivatives_fft.cpp).
  const bool records = autograd::should_record({&input});
  autograd::GradModeGuard off(false);
  x = to(x, o.kind == TSR_FFT_R2C ? real : complex, input.device);
  const size_t last = static_cast<size_t>(count - 1);
  if (o.kind == TSR_FFT_C2C) {
    const bool inverse = o.inverse != 0;
    for (size_t i = 0; i < dims.size(); ++i)
      x = transform(TSR_OP_FFT, resized(x, dims[i], lens[i]), dims[i], lens[i], complex, inverse,
                    scale_of(o.norm, inverse, lens[i]));
  } else if (o.kind == TSR_FFT_R2C) {
    x = transform(TSR_OP_RFFT, resized(x, dims[last], lens[last]), dims[last], lens[last] / 2 + 1, complex, false,
                  scale_of(o.norm, false, lens[last]));
    for (size_t i = 0; i < last; ++i)
      x = transform(TSR_OP_FFT, resized(x, dims[i], lens[i]), dims[i], lens[i], complex, false,
                    scale_of(o.norm, false, lens[i]));
  } else {
    for (size_t i = 0; i < last; ++i)
      x = transform(TSR_OP_FFT, resized(x, dims[i], lens[i]), dims[i], lens[i], complex, true,
                    scale_of(o.norm, true, lens[i]));
    x = transform(TSR_OP_IRFFT, resized(x, dims[last], lens[last] / 2 + 1), dims[last], lens[last], real, true,
                  scale_of(o.norm, true, lens[last]));
  }
  if (records) {
    tsr_fft_options resolved = o;  // the dims and lengths as run, for the formula
    resolved.num_dims = count;
    for (size_t i = 0; i < dims.size(); ++i) {
      resolved.dims[i] = dims[i];
      resolved.n[i] = lens[i];
    }
    autograd::record_fft(input, resolved, *x);
  }
  return x;
}

}  // namespace tessera::rt

tsr_status tsr_fft_options_init(tsr_fft_options* options) {
  return guard([&] {
    tsr_fft_options& o = require(options, "options");
    std::memset(&o, 0, sizeof o);
    o.struct_size = TSR_FFT_OPTIONS_STRUCT_SIZE;
    o.kind = TSR_FFT_C2C;
    o.norm = TSR_FFT_NORM_BACKWARD;
    o.num_dims = -1;
    for (int64_t& n : o.n) n = TSR_FFT_N_DEFAULT;
  });
}

tsr_status tsr_fft(tsr_tensor* x, const tsr_fft_options* options, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    *out = nullptr;
    tsr_fft_options o{};
    tsr_fft_options_init(&o);
    if (options != nullptr) {
      if (options->struct_size < TSR_FFT_OPTIONS_STRUCT_SIZE)
        fail(TSR_ERR_INVALID_ARGUMENT, "tsr_fft: options->struct_size " + std::to_string(options->struct_size) +
                                           " is smaller than any tsr_fft_options (set it to "
                                           "TSR_FFT_OPTIONS_STRUCT_SIZE)");
      std::memcpy(&o, options, sizeof o);
    }
    hand_out(fft(require(x, "x"), o), out);
  });
}
