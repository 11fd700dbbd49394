// The kernel table and the argument checks shared by all kernels.
#include "kernels.hpp"

namespace tessera::cpu_tbb {

namespace {

// What check_args requires of a descriptor, without building any message.
bool desc_ok(const tsr_tensor_desc* d) {
  if (d == nullptr || d->struct_size < TSR_TENSOR_DESC_STRUCT_SIZE || d->ndim < 0 || d->ndim > TSR_MAX_DIMS ||
      tsr_dtype_size(d->dtype) == 0)
    return false;
  bool empty = false;
  for (int i = 0; i < d->ndim; ++i) {
    if (d->shape[i] < 0) return false;
    empty = empty || d->shape[i] == 0;
  }
  return empty || d->data != nullptr;
}

void check_desc(const tsr_kernel_args& a, int key, const tsr_tensor_desc* d, const char* what) {
  if (d == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + " is NULL");
  if (d->struct_size < TSR_TENSOR_DESC_STRUCT_SIZE) fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + ": descriptor too small");
  if (d->ndim < 0 || d->ndim > TSR_MAX_DIMS)
    fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + ": ndim " + std::to_string(d->ndim) + " out of range");
  if (tsr_dtype_size(d->dtype) == 0) fail(TSR_ERR_TYPE, where(a, key) + what + ": unknown dtype " + std::to_string(d->dtype));
  bool empty = false;
  for (int i = 0; i < d->ndim; ++i) {
    if (d->shape[i] < 0) fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + ": negative size");
    empty = empty || d->shape[i] == 0;
  }
  if (!empty && d->data == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, where(a, key) + what + ": NULL data");
}

// The checks again, this time naming what is wrong (runs on bad args only).
[[gnu::cold, gnu::noinline]] void explain_bad_args(const tsr_kernel_args& a, int dtype, int num_inputs, int num_scalars,
                                                   int num_params) {
  if (a.struct_size < TSR_STRUCT_SIZE(tsr_kernel_args, num_params))
    fail(TSR_ERR_INVALID_ARGUMENT, where(a, dtype) + "kernel args struct too small");
  if (a.device_index != 0) fail(TSR_ERR_INDEX, where(a, dtype) + "no device " + std::to_string(a.device_index));
  if (a.num_inputs != num_inputs || (num_inputs > 0 && a.inputs == nullptr))
    fail(TSR_ERR_INVALID_ARGUMENT, where(a, dtype) + "expects " + std::to_string(num_inputs) + " inputs, got " +
                                       std::to_string(a.num_inputs));
  if (a.num_scalars < num_scalars || (num_scalars > 0 && a.scalars == nullptr))
    fail(TSR_ERR_INVALID_ARGUMENT, where(a, dtype) + "expects " + std::to_string(num_scalars) + " scalars");
  if (a.num_params < num_params || (num_params > 0 && a.params == nullptr))
    fail(TSR_ERR_INVALID_ARGUMENT, where(a, dtype) + "expects " + std::to_string(num_params) + " params");
  check_desc(a, dtype, a.output, "output");
  for (int i = 0; i < num_inputs; ++i) check_desc(a, dtype, a.inputs[i], "input");
  fail(TSR_ERR_INTERNAL, where(a, dtype) + "bad arguments");  // unreachable: check_args found a problem
}

}  // namespace

// The common case (good arguments) costs a few compares; messages are built
// only when something is wrong.
void check_args(const tsr_kernel_args& a, int dtype, int num_inputs, int num_scalars, int num_params) {
  bool ok = a.struct_size >= TSR_STRUCT_SIZE(tsr_kernel_args, num_params) && a.device_index == 0 &&
            a.num_inputs == num_inputs && (num_inputs == 0 || a.inputs != nullptr) && a.num_scalars >= num_scalars &&
            (num_scalars == 0 || a.scalars != nullptr) && a.num_params >= num_params &&
            (num_params == 0 || a.params != nullptr) && desc_ok(a.output);
  for (int i = 0; ok && i < num_inputs; ++i) ok = desc_ok(a.inputs[i]);
  if (!ok) explain_bad_args(a, dtype, num_inputs, num_scalars, num_params);
}

const tsr_kernel_table& kernel_table() {
  // Built once, on first use (thread-safe static init), read-only afterwards.
  static const KernelList entries = [] {
    KernelList list;
    add_copy_kernels(list);
    add_binary_kernels(list);
    add_unary_kernels(list);
    add_reduce_kernels(list);
    add_matmul_kernels(list);
    add_factory_kernels(list);
    return list;
  }();
  static const tsr_kernel_table table{TSR_KERNEL_TABLE_STRUCT_SIZE, entries.size(), entries.data()};
  return table;
}

}  // namespace tessera::cpu_tbb
