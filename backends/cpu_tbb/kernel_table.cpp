// SPDX-License-Identifier: Apache-2.0
// The kernel table and the argument checks shared by all kernels.
#include "kernels.hpp"

namespace tessera::cpu_tbb {

// One device, "cpu:0". A descriptor's device field is not checked: the CPU
// reads whatever host memory a descriptor points at.
void check_args(const tsr_kernel_args& a, int dtype, int num_inputs, int num_scalars, int num_params) {
  backend::check_kernel_args("cpu_tbb", a, dtype, num_inputs, num_scalars, num_params, 1, 0);
}

const tsr_kernel_table& kernel_table() {
  // Built once, on first use (thread-safe static init), read-only afterwards.
  static const KernelList entries = [] {
    KernelList list;
    add_copy_kernels(list);
    add_binary_kernels(list);
    add_unary_kernels(list);
    add_math_kernels(list);
    add_reduce_kernels(list);
    add_matmul_kernels(list);
    add_scan_kernels(list);
    add_search_kernels(list);
    add_gather_kernels(list);
    add_sort_kernels(list);
    add_compact_kernels(list);
    add_factory_kernels(list);
    add_linalg_kernels(list);
    add_fft_kernels(list);
    return list;
  }();
  static const tsr_kernel_table table{TSR_KERNEL_TABLE_STRUCT_SIZE, entries.size(), entries.data()};
  return table;
}

}  // namespace tessera::cpu_tbb
