// SPDX-License-Identifier: Apache-2.0
// PROD and ARGMIN (reduce.cuh), with the deterministic kernels of the other
// reductions. Bandwidth: the input read once.
#include "reduce_impl.cuh"

namespace tessera::cuda {

void add_prod_argmin_kernels(KernelList& list) { add_kernels<ReduceKernel, TSR_OP_PROD, TSR_OP_ARGMIN>(list); }

}  // namespace tessera::cuda
