// SPDX-License-Identifier: Apache-2.0
// Binary pointwise ops of ABI 1.5: ATAN2, FLOOR_DIVIDE, REMAINDER, the
// bitwise ops and shifts, and LOGADDEXP (a composite, native here), with
// the arithmetic of backends/common/binary_ops.hpp. Bandwidth: two reads
// and a write per element (elementwise.cuh); atan2 and logaddexp are
// compute-bound (~40 instructions per element).
#include "binary_impl.cuh"

namespace tessera::cuda {

void add_binary_abi15_kernels(KernelList& list) {
  add_kernels<BinaryKernel, TSR_OP_ATAN2, TSR_OP_FLOOR_DIVIDE, TSR_OP_REMAINDER, TSR_OP_BITWISE_AND, TSR_OP_BITWISE_OR,
              TSR_OP_BITWISE_XOR, TSR_OP_SHIFT_LEFT, TSR_OP_SHIFT_RIGHT, TSR_OP_LOGADDEXP>(list);
}

}  // namespace tessera::cuda
