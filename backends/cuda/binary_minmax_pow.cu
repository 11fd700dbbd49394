// SPDX-License-Identifier: Apache-2.0
// Binary pointwise ops MAXIMUM, MINIMUM (NaN-propagating) and POW.
// Bandwidth: two reads and a write per element (elementwise.cuh); float pow
// is compute-bound in powf (~20 instructions per element).
#include "binary_impl.cuh"

namespace tessera::cuda {

void add_binary_minmax_pow_kernels(KernelList& list) {
  add_kernels<BinaryKernel, TSR_OP_MAXIMUM, TSR_OP_MINIMUM, TSR_OP_POW>(list);
}

}  // namespace tessera::cuda
