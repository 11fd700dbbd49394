// SPDX-License-Identifier: Apache-2.0
// The kernel table and the argument checks shared by all kernels.
#include <cstdint>

#include "kernels.hpp"

namespace tessera::cuda {

// kernel_entry has already checked the device index against the devices
// found; descriptors must be on that device (kernels dereference them there).
void check_args(const tsr_kernel_args& a, int dtype, int num_inputs, int num_scalars, int num_params) {
  backend::check_kernel_args("cuda", a, dtype, num_inputs, num_scalars, num_params, INT32_MAX, TSR_DEVICE_CUDA);
}

const tsr_kernel_table& kernel_table() {
  // Built once, on first use (thread-safe static init), read-only afterwards.
  static const KernelList entries = [] {
    KernelList list;
    add_copy_kernels(list);
    add_binary_kernels(list);
    add_compare_kernels(list);
    add_unary_kernels(list);
    add_math_kernels(list);
    add_reduce_kernels(list);
    add_matmul_kernels(list);
    add_factory_kernels(list);
    add_gather_kernels(list);
    add_scan_kernels(list);
    add_search_kernels(list);
    add_compact_kernels(list);
    add_sort_kernels(list);
    add_linalg_kernels(list);
    add_fft_kernels(list);
    return list;
  }();
  static const tsr_kernel_table table{TSR_KERNEL_TABLE_STRUCT_SIZE, entries.size(), entries.data()};
  return table;
}

}  // namespace tessera::cuda
