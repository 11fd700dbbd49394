// Comparisons EQ, NE, LT, LE, GT, GE: out(bool) = a (cmp) b. Bandwidth: two
// reads and a one-byte write per element (elementwise.cuh).
#include "binary_ops.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"

namespace tessera::cuda {

namespace {

template <int Op, int D> struct CompareKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 2, 0, 0);
    const tsr_tensor_desc& out = *a.output;
    const tsr_tensor_desc& x = *a.inputs[0];
    const tsr_tensor_desc& y = *a.inputs[1];
    backend::check_binary_operands("cuda", a, D, TSR_BOOL);
    using S = storage_t<D>;
    pointwise<Bool, S, S>(ex, out, {&x, &y}, CompareFn<Op, S>{});
  }
};

}  // namespace

void add_compare_kernels(KernelList& list) {
  add_kernels<CompareKernel, TSR_OP_EQ, TSR_OP_NE, TSR_OP_LT, TSR_OP_LE, TSR_OP_GT, TSR_OP_GE>(list);
}

}  // namespace tessera::cuda
