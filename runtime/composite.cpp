// SPDX-License-Identifier: Apache-2.0
// Note [Composites]
//   An op whose role is TSR_OP_ROLE_COMPOSITE (TSR_OP_TABLE, tessera/ops.h)
//   runs as a short sequence of primitive kernels on the same device when
//   the device's plugin has no kernel of its own for it (launch, in
//   dispatch.cpp, comes here; a native kernel always wins). Each
//   decomposition works on the descriptors launch was given, so every
//   caller (out=, in place, views) gets it alike, and follows the op's
//   contract in Note [Kernel contracts]. Temporaries are fresh tensors on
//   the device (the caching allocators make them cheap); constants are
//   0-d device tensors broadcast with stride 0. Writing into the output
//   and reading it back in the next step is allowed: an input that is
//   exactly the output is part of every kernel's contract. Nothing goes
//   through the host.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "composite.hpp"
#include "error.hpp"
#include "ops.hpp"

namespace tessera::rt {

namespace {

struct Composer {
  tsr_runtime& rt;
  tsr_device device;
  std::vector<TensorRef> keep;  // temporaries and constants, alive until the composite returns

  // A fresh tensor of desc's shape (row-major), in `dtype`.
  tsr_tensor_desc temporary(const tsr_tensor_desc& like, int32_t dtype) {
    keep.push_back(empty(rt, like.ndim, like.shape, dtype, device));
    tsr_tensor_desc d;
    fill_desc(*keep.back(), d);
    return d;
  }
  // `value` in `dtype`, read as like's shape (stride 0 everywhere).
  tsr_tensor_desc constant(const tsr_tensor_desc& like, int32_t dtype, tsr_scalar value) {
    keep.push_back(empty(rt, 0, nullptr, dtype, device));
    fill_wrapping(*keep.back(), value);
    tsr_tensor_desc d;
    fill_desc_broadcast(*keep.back(), like.ndim, like.shape, d);
    return d;
  }
  // d read as `shape` of the same ndim: its size-1 dims broadcast.
  static tsr_tensor_desc broadcast(const tsr_tensor_desc& d, const tsr_tensor_desc& like) {
    tsr_tensor_desc b = d;
    for (int32_t i = 0; i < d.ndim; ++i)
      if (d.shape[i] != like.shape[i]) b.shape[i] = like.shape[i], b.strides[i] = 0;
    return b;
  }
  void run(int32_t op, int32_t key, std::initializer_list<const tsr_tensor_desc*> in, const tsr_tensor_desc& out,
           const KernelParams& extra = {}) {
    launch(rt, device, op, key, in, out, extra);
  }
};

int64_t numel_of(const tsr_tensor_desc& d) {
  int64_t n = 1;
  for (int32_t i = 0; i < d.ndim; ++i) n *= d.shape[i];
  return n;
}

// Note [Variance as a composite]
//   The corrected two-pass algorithm, as the CPU's one-pass kernel computes
//   it per block (Note [One-pass variance] in backends/cpu_tbb/reduce.cpp):
//   mean = SUM(x) / n, d = x - mean, M2 = SUM(d^2) - SUM(d)^2 / n, then
//   M2 / max(0, n - correction) and, for STD, the root. The SUM(d) term
//   takes back the mean's rounding, so a constant input gives exactly 0
//   (the plain two-pass form gave, as STD, the root of that rounding: up to
//   0.017 on bfloat16 in cuda_emu.ops, and above 64 ulps of the 1e-3 floor on
//   float32). float16 and bfloat16 compute in float32 (PyTorch's opmath type):
//   in the dtype itself a count above 65504 is inf, and the variance NaN.
void variance(Composer& c, int32_t op, int32_t key, const tsr_tensor_desc& x_in, const tsr_tensor_desc& out,
              const KernelParams& extra) {
  const double correction = extra.scalars.empty() ? 1.0 : extra.scalars[0].f;
  const int64_t n = numel_of(out) > 0 ? numel_of(x_in) / numel_of(out) : 0;
  const KernelParams reduce_params{.params = extra.params};
  const bool half = key == TSR_FLOAT16 || key == TSR_BFLOAT16;
  const int32_t ct = half ? TSR_FLOAT32 : key;  // the compute dtype
  tsr_tensor_desc x = x_in;
  if (half) {
    x = c.temporary(x_in, ct);
    c.run(TSR_OP_COPY, ct, {&x_in}, x);
  }
  const tsr_tensor_desc count = c.constant(out, ct, make_scalar(static_cast<double>(n)));
  const tsr_tensor_desc mean = c.temporary(out, ct);
  c.run(TSR_OP_SUM, ct, {&x}, mean, reduce_params);
  c.run(TSR_OP_DIV, ct, {&mean, &count}, mean);
  const tsr_tensor_desc mean_b = Composer::broadcast(mean, x);
  const tsr_tensor_desc dev = c.temporary(x, ct);
  c.run(TSR_OP_SUB, ct, {&x, &mean_b}, dev);
  const tsr_tensor_desc s1 = c.temporary(out, ct);
  c.run(TSR_OP_SUM, ct, {&dev}, s1, reduce_params);
  c.run(TSR_OP_MUL, ct, {&dev, &dev}, dev);
  const tsr_tensor_desc m2 = half ? c.temporary(out, ct) : out;
  c.run(TSR_OP_SUM, ct, {&dev}, m2, reduce_params);
  c.run(TSR_OP_MUL, ct, {&s1, &s1}, s1);
  c.run(TSR_OP_DIV, ct, {&s1, &count}, s1);
  c.run(TSR_OP_SUB, ct, {&m2, &s1}, m2);
  const tsr_tensor_desc zero = c.constant(out, ct, make_scalar(0.0));
  c.run(TSR_OP_MAXIMUM, ct, {&m2, &zero}, m2);  // rounding below 0; NaN wins MAXIMUM and stays
  const tsr_tensor_desc dof =
      c.constant(out, ct, make_scalar(std::max(0.0, static_cast<double>(n) - correction)));
  c.run(TSR_OP_DIV, ct, {&m2, &dof}, m2);
  if (op == TSR_OP_STD) c.run(TSR_OP_SQRT, ct, {&m2}, m2);
  if (half) c.run(TSR_OP_COPY, key, {&m2}, out);
}

// The fused activations of ABI 1.10 (GELU, GELU_TANH, SILU), op for op as
// torch writes them; float16 and bfloat16 in float32, rounded once by the
// last COPY (Note [Half precision inside fused functions], ops.hpp). The
// input is read into temporaries before the output is written, so an
// output that is the input itself is fine.
void activation(Composer& c, int32_t op, int32_t key, const tsr_tensor_desc& x_in, const tsr_tensor_desc& out) {
  const bool half = key == TSR_FLOAT16 || key == TSR_BFLOAT16;
  const int32_t ct = half ? TSR_FLOAT32 : key;
  tsr_tensor_desc x = x_in;
  if (half) {
    x = c.temporary(out, ct);
    c.run(TSR_OP_COPY, ct, {&x_in}, x);
  }
  const tsr_tensor_desc result = half ? c.temporary(out, ct) : out;
  const tsr_tensor_desc one = c.constant(out, ct, make_scalar(1.0));
  const tsr_tensor_desc t = c.temporary(out, ct);
  if (op == TSR_OP_SILU) {  // x / (1 + exp(-x))
    c.run(TSR_OP_NEG, ct, {&x}, t);
    c.run(TSR_OP_EXP, ct, {&t}, t);
    c.run(TSR_OP_ADD, ct, {&t, &one}, t);
    c.run(TSR_OP_DIV, ct, {&x, &t}, result);
  } else {
    const tsr_tensor_desc u = c.temporary(out, ct), half_c = c.constant(out, ct, make_scalar(0.5));
    c.run(TSR_OP_MUL, ct, {&x, &half_c}, u);  // x / 2
    if (op == TSR_OP_GELU) {  // (x / 2) (1 + erf(x / sqrt 2))
      const int64_t erf[] = {TSR_MATH_ERF};
      const tsr_tensor_desc alpha = c.constant(out, ct, make_scalar(M_SQRT1_2));
      c.run(TSR_OP_MUL, ct, {&x, &alpha}, t);
      c.run(TSR_OP_MATH, ct, {&t}, t, {.params = erf});
    } else {  // (x / 2) (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
      const tsr_tensor_desc beta = c.constant(out, ct, make_scalar(M_SQRT2 * M_2_SQRTPI * 0.5)),
                            kappa = c.constant(out, ct, make_scalar(0.044715));
      c.run(TSR_OP_MUL, ct, {&x, &x}, t);
      c.run(TSR_OP_MUL, ct, {&t, &x}, t);
      c.run(TSR_OP_MUL, ct, {&t, &kappa}, t);
      c.run(TSR_OP_ADD, ct, {&x, &t}, t);
      c.run(TSR_OP_MUL, ct, {&t, &beta}, t);
      c.run(TSR_OP_TANH, ct, {&t}, t);
    }
    c.run(TSR_OP_ADD, ct, {&t, &one}, t);
    c.run(TSR_OP_MUL, ct, {&u, &t}, result);
  }
  if (half) c.run(TSR_OP_COPY, key, {&result}, out);
}

}  // namespace

void run_composite(tsr_runtime& rt, tsr_device device, int32_t op, int32_t key,
                   std::initializer_list<const tsr_tensor_desc*> inputs, const tsr_tensor_desc& out,
                   const KernelParams& extra) {
  Composer c{rt, device, {}};
  const tsr_tensor_desc* const* in = inputs.begin();
  switch (op) {
    case TSR_OP_GT: c.run(TSR_OP_LT, key, {in[1], in[0]}, out); return;
    case TSR_OP_GE: c.run(TSR_OP_LE, key, {in[1], in[0]}, out); return;
    case TSR_OP_RELU: {
      // maximum(0, a): NaN and -0 pass through (the second operand wins ties).
      const tsr_tensor_desc zero = c.constant(out, key, make_scalar_int(0));
      c.run(TSR_OP_MAXIMUM, key, {&zero, in[0]}, out);
      return;
    }
    case TSR_OP_SIGMOID: {
      // 1 / (1 + exp(-a)): exp overflows to inf for very negative a, giving 0.
      const tsr_tensor_desc one = c.constant(out, key, make_scalar(1.0));
      c.run(TSR_OP_NEG, key, {in[0]}, out);
      c.run(TSR_OP_EXP, key, {&out}, out);
      c.run(TSR_OP_ADD, key, {&out, &one}, out);
      c.run(TSR_OP_DIV, key, {&one, &out}, out);
      return;
    }
    case TSR_OP_GELU: case TSR_OP_GELU_TANH: case TSR_OP_SILU: return activation(c, op, key, *in[0], out);
    case TSR_OP_MEAN: {
      c.run(TSR_OP_SUM, key, {in[0]}, out, {.params = extra.params});
      const int64_t n = numel_of(*in[0]) / numel_of(out);
      const tsr_tensor_desc count = c.constant(out, key, make_scalar(static_cast<double>(n)));
      c.run(TSR_OP_DIV, key, {&out, &count}, out);
      return;
    }
    case TSR_OP_ARGMIN: {
      // argmax of an order-reversing map: -a keeps NaN (which wins both);
      // ~a = -a - 1 reverses the integers, signed and unsigned, without overflow.
      const tsr_tensor_desc flipped = c.temporary(*in[0], key);
      if (tsr_dtype_is_floating(key)) {
        c.run(TSR_OP_NEG, key, {in[0]}, flipped);
      } else {
        const tsr_tensor_desc ones = c.constant(*in[0], key, make_scalar_int(-1));
        c.run(TSR_OP_BITWISE_XOR, key, {in[0], &ones}, flipped);
      }
      c.run(TSR_OP_ARGMAX, key, {&flipped}, out, {.params = extra.params});
      return;
    }
    case TSR_OP_LOGADDEXP: {
      // max(a, b) + log1p(exp(-|a - b|)); where a == b (equal infinities
      // included, whose difference is NaN), a + log(2).
      const tsr_tensor_desc m = c.temporary(out, key), d = c.temporary(out, key);
      const tsr_tensor_desc eq = c.temporary(out, TSR_BOOL);
      c.run(TSR_OP_MAXIMUM, key, {in[0], in[1]}, m);
      c.run(TSR_OP_SUB, key, {in[0], in[1]}, d);
      c.run(TSR_OP_ABS, key, {&d}, d);
      c.run(TSR_OP_NEG, key, {&d}, d);
      c.run(TSR_OP_EXP, key, {&d}, d);
      const int64_t log1p[1] = {TSR_MATH_LOG1P};
      c.run(TSR_OP_MATH, key, {&d}, d, {.params = log1p});
      c.run(TSR_OP_ADD, key, {&m, &d}, d);
      c.run(TSR_OP_EQ, key, {in[0], in[1]}, eq);
      const tsr_tensor_desc ln2 = c.constant(out, key, make_scalar(0.69314718055994530942));
      c.run(TSR_OP_ADD, key, {in[0], &ln2}, m);
      c.run(TSR_OP_WHERE, key, {&eq, &m, &d}, out);
      return;
    }
    case TSR_OP_VAR:
    case TSR_OP_STD: variance(c, op, key, *in[0], out, extra); return;
    case TSR_OP_CLAMP:
      // min(max(x, lo), hi): NaN anywhere wins both; two passes where a
      // native kernel makes one.
      c.run(TSR_OP_MAXIMUM, key, {in[0], in[1]}, out);
      c.run(TSR_OP_MINIMUM, key, {&out, in[2]}, out);
      return;
    default:
      fail(TSR_ERR_INTERNAL, op_label(op) + " is marked composite in TSR_OP_TABLE but the runtime has no "
                                            "decomposition for it (runtime/composite.cpp)");
  }
}

}  // namespace tessera::rt
