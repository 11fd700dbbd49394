// SPDX-License-Identifier: Apache-2.0
// Comparisons EQ, NE, LT, LE, GT, GE: out(bool) = a (cmp) b, through
// binary_impl.cuh's kernel. Bandwidth: two reads and a one-byte write per
// element (elementwise.cuh).
#include "binary_impl.cuh"

namespace tessera::cuda {

void add_compare_kernels(KernelList& list) {
  add_kernels<BinaryKernel, TSR_OP_EQ, TSR_OP_NE, TSR_OP_LT, TSR_OP_LE, TSR_OP_GT, TSR_OP_GE>(list);
}

}  // namespace tessera::cuda
