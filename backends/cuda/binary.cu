// SPDX-License-Identifier: Apache-2.0
// Binary pointwise ops ADD, SUB, MUL, DIV (MAXIMUM, MINIMUM and POW: in
// binary_minmax_pow.cu): a, b and out of one dtype, broadcast inputs arriving
// with stride 0. Bandwidth: two reads and a write per element at the
// flat/strided rates of elementwise.cuh (add f32 2^28: 3 GiB moved, ~0.75 ms
// at ~4.1 TB/s).
#include "binary_impl.cuh"

namespace tessera::cuda {

void add_binary_kernels(KernelList& list) {
  add_kernels<BinaryKernel, TSR_OP_ADD, TSR_OP_SUB, TSR_OP_MUL, TSR_OP_DIV>(list);
  add_binary_minmax_pow_kernels(list);
  add_binary_abi15_kernels(list);
}

}  // namespace tessera::cuda
