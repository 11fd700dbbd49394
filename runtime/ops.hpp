// SPDX-License-Identifier: Apache-2.0
// The device-agnostic half of every op: checks, broadcasting, promotion,
// output allocation; then one kernel call through the registry (Note
// [Kernel contracts] in tessera/ops.h says what each kernel receives).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "tensor.hpp"

namespace tessera::rt {

// ---- dispatch (dispatch.cpp) ------------------------------------------------
struct KernelParams {
  std::span<const tsr_scalar> scalars{};
  std::span<const int64_t> params{};
};
// Calls the kernel for (op, device, key_dtype); throws a clear error when
// there is none or when it fails.
void launch(tsr_runtime& rt, tsr_device device, int32_t op, int32_t key_dtype,
            std::initializer_list<const tsr_tensor_desc*> inputs, const tsr_tensor_desc& output,
            const KernelParams& extra = {});
// Throws unless both tensors are on one device.
void check_same_device(const tsr_tensor& a, const tsr_tensor& b);
// Throws when a write to `t` would hit one element through two indexes.
void check_no_internal_overlap(const tsr_tensor& t);
// Whether a and b may reach a common element: one storage and overlapping
// spans (conservative, as NumPy's may_share_memory: interleaved views count).
bool may_share_memory(const tsr_tensor& a, const tsr_tensor& b);
// An op for messages: "exp (op 17)", or "op 99 (not an op of ABI 1.4)".
std::string op_label(int32_t op);
tsr_scalar make_scalar(double v);
tsr_scalar make_scalar_int(int64_t v);

// ---- creation (creation.cpp) ------------------------------------------------
TensorRef empty(tsr_runtime& rt, int32_t ndim, const int64_t* shape, int32_t dtype, tsr_device device);
// fill_ checks that the value fits the dtype, as PyTorch does; the scalar
// operand of arithmetic converts with wrap-around instead.
void fill(const tsr_tensor& t, tsr_scalar value);
void fill_wrapping(const tsr_tensor& t, tsr_scalar value);
TensorRef full(tsr_runtime& rt, int32_t ndim, const int64_t* shape, tsr_scalar value, int32_t dtype,
               tsr_device device);
TensorRef arange(tsr_runtime& rt, tsr_scalar start, tsr_scalar end, tsr_scalar step, int32_t dtype,
                 tsr_device device);
TensorRef linspace(tsr_runtime& rt, double start, double end, int64_t steps, int32_t dtype, tsr_device device);
TensorRef random(tsr_runtime& rt, int32_t op, int32_t ndim, const int64_t* shape, int32_t dtype,
                 tsr_device device);
TensorRef from_host(tsr_runtime& rt, const void* data, int32_t ndim, const int64_t* shape, int32_t dtype,
                    tsr_device device);
// The dtype a Python-style scalar gets on its own.
int32_t scalar_dtype(const tsr_scalar& s);

// ---- copies (copy.cpp) ------------------------------------------------------
// dst[...] = src: broadcasting, casting and crossing devices.
void copy_into(const tsr_tensor& dst, const tsr_tensor& src);
TensorRef contiguous(const TensorRef& t);
TensorRef clone(const tsr_tensor& t);
TensorRef to(const TensorRef& t, int32_t dtype, tsr_device device);
// Copies the elements in row-major order to host memory.
void read_to_host(const tsr_tensor& t, void* dst, size_t nbytes);
// The value of a one-element tensor, exact (api_host_access.cpp).
tsr_scalar read_item(const tsr_tensor& t);

// ---- elementwise (elementwise.cpp) -----------------------------------------
TensorRef binary(int32_t op, const tsr_tensor& a, const tsr_tensor& b);
TensorRef binary_scalar(int32_t op, const tsr_tensor& a, tsr_scalar b, bool reversed);
// out = a (op) b into an existing tensor; a and b broadcast to out's shape.
void binary_out(int32_t op, const tsr_tensor& a, const tsr_tensor& b, const tsr_tensor& out);
void binary_scalar_out(int32_t op, const tsr_tensor& a, tsr_scalar b, bool reversed, const tsr_tensor& out);
void binary_inplace(int32_t op, const tsr_tensor& a, const tsr_tensor& b);
void binary_scalar_inplace(int32_t op, const tsr_tensor& a, tsr_scalar b);
TensorRef unary(int32_t op, const tsr_tensor& a);
void unary_out(int32_t op, const tsr_tensor& a, const tsr_tensor& out);
void unary_inplace(int32_t op, const tsr_tensor& a);
TensorRef where(const tsr_tensor& cond, const tsr_tensor& a, const tsr_tensor& b);

// ---- reductions and matmul (reduce.cpp, matmul.cpp) -------------------------
TensorRef reduce(int32_t op, const tsr_tensor& t, int32_t num_dims, const int32_t* dims, bool keepdim);
TensorRef matmul(const tsr_tensor& a, const tsr_tensor& b);
// Into an existing tensor of the result's shape and dtype.
void matmul_out(const tsr_tensor& a, const tsr_tensor& b, const tsr_tensor& out);

}  // namespace tessera::rt
