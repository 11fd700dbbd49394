// SPDX-License-Identifier: Apache-2.0
// ARGMAX (reduce.cuh): the first index of the largest value, NaN first.
// Bandwidth: the input read once.
#include "reduce_impl.cuh"

namespace tessera::cuda {

void add_argmax_kernels(KernelList& list) { add_kernels<ReduceKernel, TSR_OP_ARGMAX>(list); }

}  // namespace tessera::cuda
