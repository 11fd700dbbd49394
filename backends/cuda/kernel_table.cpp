// The kernel table and the argument checks shared by all kernels.
#include "kernels.hpp"

namespace tessera::cuda {

namespace {

void check_desc(const tsr_kernel_args& a, int key, const tsr_tensor_desc* d, const char* what) {
  if (d == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + " is NULL");
  if (d->struct_size < TSR_TENSOR_DESC_STRUCT_SIZE) fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + ": descriptor too small");
  if (d->ndim < 0 || d->ndim > TSR_MAX_DIMS)
    fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + ": ndim " + std::to_string(d->ndim) + " out of range");
  if (tsr_dtype_size(d->dtype) == 0) fail(TSR_ERR_TYPE, where(a, key) + what + ": unknown dtype " + std::to_string(d->dtype));
  bool empty = false;
  for (int i = 0; i < d->ndim; ++i) {
    if (d->shape[i] < 0) fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + ": negative size");
    if (d->strides[i] < 0) fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + ": negative stride");
    empty = empty || d->shape[i] == 0;
  }
  if (d->offset < 0) fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + ": negative offset");
  if (!empty && d->data == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + ": NULL data");
  // Kernels dereference the pointers on the GPU: a host pointer would fault there.
  if (!empty && (d->device.type != TSR_DEVICE_CUDA || d->device.index != a.device_index))
    fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + " is not on cuda:" + std::to_string(a.device_index));
}

}  // namespace

void check_args(const tsr_kernel_args& a, int dtype, int num_inputs, int num_scalars, int num_params) {
  if (a.num_inputs != num_inputs || (num_inputs > 0 && a.inputs == nullptr))
    fail(TSR_ERR_INVALID_ARGUMENT, where(a, dtype) + "expects " + std::to_string(num_inputs) + " inputs, got " +
                                       std::to_string(a.num_inputs));
  if (a.num_scalars < num_scalars || (num_scalars > 0 && a.scalars == nullptr))
    fail(TSR_ERR_INVALID_ARGUMENT, where(a, dtype) + "expects " + std::to_string(num_scalars) + " scalars");
  if (a.num_params < num_params || (num_params > 0 && a.params == nullptr))
    fail(TSR_ERR_INVALID_ARGUMENT, where(a, dtype) + "expects " + std::to_string(num_params) + " params");
  check_desc(a, dtype, a.output, "output");
  for (int i = 0; i < num_inputs; ++i) check_desc(a, dtype, a.inputs[i], "input");
}

const tsr_kernel_table& kernel_table() {
  // Built once, on first use (thread-safe static init), read-only afterwards.
  static const KernelList entries = [] {
    KernelList list;
    add_copy_kernels(list);
    add_binary_kernels(list);
    add_compare_kernels(list);
    add_unary_kernels(list);
    add_reduce_kernels(list);
    add_matmul_kernels(list);
    add_factory_kernels(list);
    return list;
  }();
  static const tsr_kernel_table table{TSR_KERNEL_TABLE_STRUCT_SIZE, entries.size(), entries.data()};
  return table;
}

}  // namespace tessera::cuda
