// SPDX-License-Identifier: Apache-2.0
// MAX and MIN (reduce.cuh); the table entry for all reductions. Bandwidth:
// the input read once.
#include "reduce_impl.cuh"

namespace tessera::cuda {

void add_reduce_kernels(KernelList& list) {
  add_sum_kernels(list);
  add_kernels<ReduceKernel, TSR_OP_MAX, TSR_OP_MIN>(list);
  add_argmax_kernels(list);
  add_prod_argmin_kernels(list);
}

}  // namespace tessera::cuda
