// COPY: out = inputs[0] converted to the output's dtype, between any two
// layouts (a 10 x 10 cast matrix, PyTorch's conversion rules in dtypes.hpp).
#include "elementwise.hpp"
#include "kernels.hpp"

namespace tessera::cpu_tbb {

namespace {

template <int Op, int D> struct CopyKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 0);
    const tsr_tensor_desc& out = *a.output;
    const tsr_tensor_desc& in = *a.inputs[0];
    check_dtype(a, D, out, D, "output");
    check_same_shape(a, D, in, "input");
    using Out = storage_t<D>;
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
