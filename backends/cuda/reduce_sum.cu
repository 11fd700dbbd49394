// SPDX-License-Identifier: Apache-2.0
// SUM and MEAN (reduce.cuh). Bandwidth: the input read once (sum f32 2^28:
// 1 GiB in ~0.26 ms at ~4.1 TB/s); the output and partials are negligible.
#include "reduce_impl.cuh"

namespace tessera::cuda {

void add_sum_kernels(KernelList& list) { add_kernels<ReduceKernel, TSR_OP_SUM, TSR_OP_MEAN>(list); }

}  // namespace tessera::cuda
