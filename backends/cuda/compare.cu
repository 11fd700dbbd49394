// SPDX-License-Identifier: Apache-2.0
// Comparisons EQ, NE, LT, LE, GT, GE: out(bool) = a (cmp) b, through
// binary_impl.cuh's kernel. Bandwidth: two reads and a one-byte write per
// element (elementwise.cuh).
#include "binary_impl.cuh"

namespace tessera::cuda {

void add_compare_kernels(KernelList& list) {
  add_kernels_of_kind<BinaryKernel, TSR_OP_KIND_COMPARE>(list);
}

}  // namespace tessera::cuda
