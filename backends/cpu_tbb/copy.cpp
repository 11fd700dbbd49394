// SPDX-License-Identifier: Apache-2.0
// COPY: out = inputs[0] converted to the output's dtype, between any two
// layouts (a 13 x 13 cast matrix, Note [Casts] in tessera/ops.h, in dtypes.hpp).
#include "elementwise.hpp"
#include "kernels.hpp"
#include "transpose.hpp"

namespace tessera::cpu_tbb {

namespace {

// Note [Transposing copies] (transpose.hpp): a same-dtype copy whose output is
// unit-stride along the plan's inner dim while the input is unit-stride along
// the next one. False when the copy is not of that shape.
bool transposing_copy(Context& ctx, const tsr_tensor_desc& out, const tsr_tensor_desc& in) {
  const int elsize = static_cast<int>(tsr_dtype_size(out.dtype));
  if (in.dtype != out.dtype || (elsize != 4 && elsize != 8)) return false;
  const auto p = make_plan(std::array<const tsr_tensor_desc*, 2>{&out, &in}, true);
  if (p.numel < kParallelThreshold || p.ndim < 2 || p.stride[0][0] != 1 || p.stride[1][1] != 1 || p.stride[0][1] <= 1 ||
      p.shape[0] < 8 || p.shape[1] < 8)
    return false;
  const int64_t outer = p.numel / (p.shape[0] * p.shape[1]);
  for (int64_t o = 0; o < outer; ++o) {
    int64_t off_out = 0, off_in = 0, rest = o;
    for (int d = 2; d < p.ndim; ++d) {
      const int64_t i = rest % p.shape[d];
      rest /= p.shape[d];
      off_out += i * p.stride[d][0];
      off_in += i * p.stride[d][1];
    }
    transpose_2d(ctx, p.base[1] + off_in * elsize, p.stride[0][1], p.base[0] + off_out * elsize, p.stride[1][0], p.shape[0],
                 p.shape[1], elsize);
  }
  return true;
}

template <int Op, int D> struct CopyKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 0);
    const tsr_tensor_desc& out = *a.output;
    const tsr_tensor_desc& in = *a.inputs[0];
    check_dtype(a, D, out, D, "output");
    check_same_shape(a, D, in, "input");
    using Out = storage_t<D>;
    if (transposing_copy(ctx, out, in)) return;
    bool done = false;
    for_each_dtype([&]<int S>(std::integral_constant<int, S>) {
      if (S != in.dtype) return;
      using In = storage_t<S>;
      pointwise<Out, In>(ctx, out, {&in}, [](In x) { return convert<Out>(x); });
      done = true;
    });
    if (!done) fail(TSR_ERR_TYPE, where(a, D) + "unknown input dtype " + std::to_string(in.dtype));
  }
};

}  // namespace

void add_copy_kernels(KernelList& list) { add_kernels<CopyKernel, TSR_OP_COPY>(list); }

}  // namespace tessera::cpu_tbb
