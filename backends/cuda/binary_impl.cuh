// SPDX-License-Identifier: Apache-2.0
// The kernel-table entry of the binary ops ADD..POW and the comparisons
// EQ..GE, whose output is bool (binary.cu, binary_minmax_pow.cu and
// compare.cu instantiate it; three files so that they compile in parallel).
#pragma once

#include "binary_ops.hpp"
#include "elementwise.cuh"
#include "kernels.hpp"

namespace tessera::cuda {

template <int Op, int D> struct BinaryKernel {
  static constexpr int key = D;
  static constexpr bool kCompare = tsr_op_kind(Op) == TSR_OP_KIND_COMPARE;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 2, 0, 0);
    const tsr_tensor_desc& out = *a.output;
    const tsr_tensor_desc& x = *a.inputs[0];
    const tsr_tensor_desc& y = *a.inputs[1];
    backend::check_binary_operands("cuda", a, D, kCompare ? TSR_BOOL : D);
    using S = storage_t<D>;
    if constexpr (kCompare) pointwise<Bool, S, S>(ex, out, {&x, &y}, CompareFn<Op, S>{});
    else pointwise<S, S, S>(ex, out, {&x, &y}, BinaryFn<Op, S>{});
  }
};

void add_binary_minmax_pow_kernels(KernelList& list);  // binary_minmax_pow.cu
void add_binary_abi15_kernels(KernelList& list);       // binary_bitwise_floor.cu

}  // namespace tessera::cuda
