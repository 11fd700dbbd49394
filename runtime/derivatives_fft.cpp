// SPDX-License-Identifier: Apache-2.0
// The Fourier transforms' row of the derivative table (Note [The derivative
// table]): tsr_fft makes one node, named as PyTorch 1.13 names it
// (FftC2CBackward0; FftR2CBackward0 for rfft and for fft of a real input;
// FftC2RBackward0 for irfft).
//
// Note [The adjoint of a Fourier transform]
//   A transform is linear, out = F x, where F is the product of each dim's
//   steps: a trim or zero-pad to n_i, then the DFT of one direction scaled
//   by the norm's factor for that dim. Under PyTorch's convention (Note
//   [Complex tensors and autograd]) x's gradient is F^H g. The DFT matrix
//   is symmetric, so its conjugate transpose is the DFT of the other
//   direction with the same factor. That is tsr_fft with `inverse` flipped
//   and the norm swapped (backward <-> forward; ortho stays), which keeps
//   each dim's factor. The adjoint of a trim zero-pads, and the adjoint of a
//   zero-pad trims, back to the input's sizes.
//   - R2C keeps the first n/2 + 1 outputs of a complex transform of a real
//     input. Its adjoint zero-fills the rest, runs the complex adjoint, and
//     keeps the real part (the engine's cast to the real input's dtype).
//   - C2R reads n/2 + 1 inputs as half of a conjugate-symmetric spectrum.
//     Its adjoint is R2C of g in the other direction, with the bins whose
//     mirror images C2R also read (1 .. n - (n/2 + 1)) doubled, as in
//     PyTorch's fft_c2r_backward.
//   The adjoint runs through tsr_fft itself, so that under create_graph it
//   records its own node, and second derivatives need nothing more.
#include <utility>
#include <vector>

#include "derivatives.hpp"
#include "formula_ops.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt::autograd {

namespace {

using namespace formula;

int32_t swapped(int32_t norm) {
  return norm == TSR_FFT_NORM_BACKWARD ? TSR_FFT_NORM_FORWARD
         : norm == TSR_FFT_NORM_FORWARD ? TSR_FFT_NORM_BACKWARD
                                        : norm;
}

// g trimmed or zero-padded to `size` along dim (recorded).
TensorRef resized(const TensorRef& g, int32_t dim, int64_t size) {
  const int64_t n = g->layout.shape[static_cast<size_t>(dim)];
  if (n == size) return g;
  if (n > size) return narrow(g, dim, 0, size);
  std::vector<int64_t> shape(g->layout.shape.begin(), g->layout.shape.begin() + g->layout.ndim);
  shape[static_cast<size_t>(dim)] = size - n;
  const TensorRef zeros = zeros_of(*g, g->layout.ndim, shape.data());
  const tsr_tensor* parts[2] = {g.get(), zeros.get()};
  return concat(parts, dim);
}

struct FftBackward final : Node {
  tsr_fft_options o{};  // the forward's, its dims and lengths resolved (num_dims >= 1)
  bool real_input = false;
  const char* name() const override {
    if (o.kind == TSR_FFT_C2R) return "FftC2RBackward0";
    return o.kind == TSR_FFT_R2C || real_input ? "FftR2CBackward0" : "FftC2CBackward0";
  }
  bool handles_complex() const override { return true; }

  // The C2C adjoint over dims [first, first + count) of o, in direction `inverse`.
  TensorRef c2c(const TensorRef& g, int32_t first, int32_t count, bool inverse) const {
    if (count == 0) return g;
    tsr_fft_options a = o;
    a.kind = TSR_FFT_C2C;
    a.inverse = inverse ? 1 : 0;
    a.norm = swapped(o.norm);
    a.num_dims = count;
    for (int32_t i = 0; i < count; ++i) {
      a.dims[i] = o.dims[first + i];
      a.n[i] = o.n[first + i];
    }
    return fft(*g, a);
  }

  std::vector<TensorRef> apply(const TensorRef& g) override {
    const int32_t count = o.num_dims, last = count - 1;
    const int32_t last_dim = static_cast<int32_t>(o.dims[last]);
    const int64_t n_last = o.n[last];
    TensorRef x;
    if (o.kind == TSR_FFT_C2C) {
      x = c2c(g, 0, count, o.inverse == 0);
    } else if (o.kind == TSR_FFT_R2C) {
      x = c2c(g, 0, last, true);
      x = c2c(resized(x, last_dim, n_last), last, 1, true);
    } else {
      tsr_fft_options a = o;
      a.kind = TSR_FFT_R2C;
      a.norm = swapped(o.norm);
      a.num_dims = 1;
      a.dims[0] = last_dim;
      a.n[0] = n_last;
      x = fft(*g, a);
      // The bins whose mirror images C2R also read count twice.
      const int64_t doubled = n_last - (n_last / 2 + 1);
      if (doubled > 0) {
        std::vector<int64_t> shape(static_cast<size_t>(x->layout.ndim), 1);
        shape[static_cast<size_t>(last_dim)] = n_last / 2 + 1;
        TensorRef weights = full(*g->rt, x->layout.ndim, shape.data(), make_scalar(1.0), g->dtype, g->device);
        fill(*make_view(*weights, slice(weights->layout, last_dim, 1, 1 + doubled, 1)), make_scalar(2.0));
        x = mul(x, weights);
      }
      x = c2c(x, 0, last, false);
    }
    for (int32_t i = 0; i < count; ++i) {
      const int32_t d = static_cast<int32_t>(o.dims[i]);
      x = resized(x, d, inputs[0].shape[static_cast<size_t>(d)]);
    }
    return {x};
  }
};

}  // namespace

void record_fft(const tsr_tensor& x, const tsr_fft_options& o, tsr_tensor& out) {
  if (!differentiable("fft", {&x}, out)) return;
  auto n = std::make_shared<FftBackward>();
  n->o = o;
  n->real_input = !tsr_dtype_is_complex(x.dtype);
  record(std::move(n), {&x}, out);
}

}  // namespace tessera::rt::autograd
