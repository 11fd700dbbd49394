// SPDX-License-Identifier: Apache-2.0
// tessera/tessera.hpp — a header-only C++20 RAII wrapper over the C API.
//
// It lives entirely in the caller's code: errors from the C API become
// tessera::Error exceptions here, on the caller's side of the boundary; no
// exception ever enters libtessera. Handles are reference counted: copying a
// Tensor shares the same view (like PyTorch's Python objects); views and ops
// return new Tensors.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tessera/tessera.h"

namespace tessera {

class Error : public std::runtime_error {
 public:
  Error(tsr_status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  tsr_status status() const noexcept { return status_; }

 private:
  tsr_status status_;
};

inline void check(tsr_status status) {
  if (status != TSR_OK) throw Error(status, tsr_last_error_message());
}

using Shape = std::vector<int64_t>;

// A Python-style number: the kind decides promotion (1 is an int, 1.0 a float).
struct Scalar {
  tsr_scalar value{};
  Scalar(double v) { value.kind = TSR_SCALAR_FLOAT, value.f = v; }                     // NOLINT
  Scalar(float v) : Scalar(static_cast<double>(v)) {}                                  // NOLINT
  Scalar(int v) { set_int(v); }        // NOLINT
  Scalar(long v) { set_int(v); }       // NOLINT
  Scalar(long long v) { set_int(v); }  // NOLINT
  Scalar(bool v) { value.kind = TSR_SCALAR_BOOL, value.i = v, value.f = v; }            // NOLINT

 private:
  void set_int(long long v) { value.kind = TSR_SCALAR_INT, value.i = static_cast<int64_t>(v), value.f = static_cast<double>(v); }
};

inline std::string take_string(char* s) {
  std::string out = s ? s : "";
  tsr_string_free(s);
  return out;
}

class Runtime {
 public:
  // Loads `config_path`, or $TESSERA_CONFIG / the default config when empty.
  explicit Runtime(const std::string& config_path = {}) {
    tsr_runtime_options opts = TSR_RUNTIME_OPTIONS_INIT;  // states this header's ABI version
    opts.config_path = config_path.empty() ? nullptr : config_path.c_str();
    check(tsr_runtime_create(&opts, &rt_));
  }
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;
  Runtime(Runtime&& o) noexcept : rt_(std::exchange(o.rt_, nullptr)) {}
  ~Runtime() { tsr_runtime_destroy(rt_); }

  tsr_runtime* get() const noexcept { return rt_; }
  tsr_device device(const std::string& text) const {
    tsr_device d;
    check(tsr_device_parse(rt_, text.c_str(), &d));
    return d;
  }
  tsr_device default_device() const {
    tsr_device d;
    check(tsr_runtime_default_device(rt_, &d, nullptr));
    return d;
  }
  std::string device_name(tsr_device d) const {
    char buf[64];
    tsr_device_format(rt_, d, buf, sizeof buf);
    return buf;
  }
  std::vector<tsr_device> devices() const {
    std::vector<tsr_device> out(static_cast<size_t>(tsr_runtime_device_count(rt_)));
    for (size_t i = 0; i < out.size(); ++i) check(tsr_runtime_device_at(rt_, static_cast<int32_t>(i), &out[i]));
    return out;
  }
  std::string describe(bool json = false) const {
    char* s = nullptr;
    check(tsr_runtime_describe(rt_, json ? 1 : 0, &s));
    return take_string(s);
  }
  void manual_seed(uint64_t seed) const { tsr_manual_seed(rt_, seed); }
  void set_print_precision(int precision) const { check(tsr_set_print_precision(rt_, precision)); }
  // TSR_MATMUL_PRECISION_HIGHEST, _HIGH (TF32 allowed) or _MEDIUM, as torch.set_float32_matmul_precision.
  void set_float32_matmul_precision(tsr_matmul_precision p) const { check(tsr_set_float32_matmul_precision(rt_, p)); }
  tsr_matmul_precision float32_matmul_precision() const {
    return static_cast<tsr_matmul_precision>(tsr_get_float32_matmul_precision(rt_));
  }

 private:
  tsr_runtime* rt_ = nullptr;
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(tsr_tensor* adopt) noexcept : t_(adopt) {}
  Tensor(const Tensor& o) noexcept : t_(o.t_) { tsr_tensor_retain(t_); }
  Tensor(Tensor&& o) noexcept : t_(std::exchange(o.t_, nullptr)) {}
  Tensor& operator=(Tensor o) noexcept {
    std::swap(t_, o.t_);
    return *this;
  }
  ~Tensor() { tsr_tensor_release(t_); }
  tsr_tensor* get() const noexcept { return t_; }
  explicit operator bool() const noexcept { return t_ != nullptr; }

  // ---- creation ----
  static Tensor empty(const Runtime& rt, const Shape& shape, tsr_dtype dtype, tsr_device device) {
    return make([&](tsr_tensor** o) { return tsr_empty(rt.get(), ndim(shape), shape.data(), dtype, device, o); });
  }
  static Tensor zeros(const Runtime& rt, const Shape& shape, tsr_dtype dtype, tsr_device device) {
    return make([&](tsr_tensor** o) { return tsr_zeros(rt.get(), ndim(shape), shape.data(), dtype, device, o); });
  }
  static Tensor ones(const Runtime& rt, const Shape& shape, tsr_dtype dtype, tsr_device device) {
    return make([&](tsr_tensor** o) { return tsr_ones(rt.get(), ndim(shape), shape.data(), dtype, device, o); });
  }
  static Tensor full(const Runtime& rt, const Shape& shape, Scalar value, tsr_dtype dtype, tsr_device device) {
    return make([&](tsr_tensor** o) { return tsr_full(rt.get(), ndim(shape), shape.data(), value.value, dtype, device, o); });
  }
  static Tensor arange(const Runtime& rt, Scalar start, Scalar end, Scalar step, tsr_dtype dtype, tsr_device device) {
    return make([&](tsr_tensor** o) { return tsr_arange(rt.get(), start.value, end.value, step.value, dtype, device, o); });
  }
  static Tensor arange(const Runtime& rt, Scalar end, tsr_device device) {
    return arange(rt, Scalar(0), end, Scalar(1), TSR_DTYPE_UNDEFINED, device);
  }
  static Tensor linspace(const Runtime& rt, double start, double end, int64_t steps, tsr_dtype dtype, tsr_device device) {
    return make([&](tsr_tensor** o) { return tsr_linspace(rt.get(), start, end, steps, dtype, device, o); });
  }
  static Tensor rand(const Runtime& rt, const Shape& shape, tsr_dtype dtype, tsr_device device) {
    return make([&](tsr_tensor** o) { return tsr_rand(rt.get(), ndim(shape), shape.data(), dtype, device, o); });
  }
  static Tensor randn(const Runtime& rt, const Shape& shape, tsr_dtype dtype, tsr_device device) {
    return make([&](tsr_tensor** o) { return tsr_randn(rt.get(), ndim(shape), shape.data(), dtype, device, o); });
  }
  template <class T>
  static Tensor from_host(const Runtime& rt, const std::vector<T>& data, const Shape& shape, tsr_dtype dtype,
                          tsr_device device) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    if (static_cast<int64_t>(data.size()) != n || tsr_dtype_size(dtype) != sizeof(T))
      throw Error(TSR_ERR_INVALID_ARGUMENT, "from_host: data size does not match shape and dtype");
    return make([&](tsr_tensor** o) { return tsr_from_host(rt.get(), data.data(), ndim(shape), shape.data(), dtype, device, o); });
  }

  // ---- metadata ----
  int32_t dim() const { return tsr_tensor_ndim(t_); }
  Shape shape() const { return Shape(tsr_tensor_shape(t_), tsr_tensor_shape(t_) + dim()); }
  Shape stride() const { return Shape(tsr_tensor_strides(t_), tsr_tensor_strides(t_) + dim()); }
  int64_t size(int32_t d) const { return shape().at(static_cast<size_t>(d < 0 ? d + dim() : d)); }
  int64_t storage_offset() const { return tsr_tensor_storage_offset(t_); }
  tsr_dtype dtype() const { return tsr_tensor_dtype(t_); }
  tsr_device device() const { return tsr_tensor_device(t_); }
  int64_t numel() const { return tsr_tensor_numel(t_); }
  size_t element_size() const { return tsr_tensor_element_size(t_); }
  bool is_contiguous() const { return tsr_tensor_is_contiguous(t_) != 0; }
  const void* data_ptr() const { return tsr_tensor_storage_data(t_); }
  bool same_storage(const Tensor& o) const { return data_ptr() == o.data_ptr(); }

  // ---- views ----
  Tensor view(const Shape& s) const { return make([&](tsr_tensor** o) { return tsr_view(t_, ndim(s), s.data(), o); }); }
  Tensor reshape(const Shape& s) const { return make([&](tsr_tensor** o) { return tsr_reshape(t_, ndim(s), s.data(), o); }); }
  Tensor transpose(int32_t a, int32_t b) const { return make([&](tsr_tensor** o) { return tsr_transpose(t_, a, b, o); }); }
  Tensor T() const { return make([&](tsr_tensor** o) { return tsr_t(t_, o); }); }
  Tensor permute(const std::vector<int32_t>& dims) const {
    return make([&](tsr_tensor** o) { return tsr_permute(t_, static_cast<int32_t>(dims.size()), dims.data(), o); });
  }
  // x[start:stop:step] on `dim`; TSR_SLICE_NONE for an absent bound.
  Tensor slice(int32_t d, int64_t start, int64_t stop = TSR_SLICE_NONE, int64_t step = 1) const {
    return make([&](tsr_tensor** o) { return tsr_slice(t_, d, start, stop, step, o); });
  }
  Tensor select(int32_t d, int64_t index) const { return make([&](tsr_tensor** o) { return tsr_select(t_, d, index, o); }); }
  Tensor operator[](int64_t index) const { return select(0, index); }
  Tensor unsqueeze(int32_t d) const { return make([&](tsr_tensor** o) { return tsr_unsqueeze(t_, d, o); }); }
  Tensor squeeze(int32_t d) const { return make([&](tsr_tensor** o) { return tsr_squeeze(t_, d, o); }); }
  Tensor squeeze() const { return make([&](tsr_tensor** o) { return tsr_squeeze_all(t_, o); }); }
  Tensor expand(const Shape& s) const { return make([&](tsr_tensor** o) { return tsr_expand(t_, ndim(s), s.data(), o); }); }
  Tensor flatten(int32_t start = 0, int32_t end = -1) const {
    return make([&](tsr_tensor** o) { return tsr_flatten(t_, start, end, o); });
  }
  Tensor as_strided(const Shape& s, const Shape& strides, int64_t offset) const {
    return make([&](tsr_tensor** o) { return tsr_as_strided(t_, ndim(s), s.data(), strides.data(), offset, o); });
  }

  // ---- copies ----
  Tensor contiguous() const { return make([&](tsr_tensor** o) { return tsr_contiguous(t_, o); }); }
  Tensor clone() const { return make([&](tsr_tensor** o) { return tsr_clone(t_, o); }); }
  Tensor to(tsr_dtype d) const { return make([&](tsr_tensor** o) { return tsr_to_dtype(t_, d, o); }); }
  Tensor to(tsr_device d) const { return make([&](tsr_tensor** o) { return tsr_to_device(t_, d, o); }); }
  Tensor to_float() const { return to(TSR_FLOAT32); }
  Tensor to_double() const { return to(TSR_FLOAT64); }

  // ---- ops ----
  Tensor binary(tsr_op op, const Tensor& b) const { return make([&](tsr_tensor** o) { return tsr_binary(op, t_, b.t_, o); }); }
  Tensor binary(tsr_op op, Scalar b, bool reversed = false) const {
    return make([&](tsr_tensor** o) { return tsr_binary_scalar(op, t_, b.value, reversed ? 1 : 0, o); });
  }
  Tensor unary(tsr_op op) const { return make([&](tsr_tensor** o) { return tsr_unary(op, t_, o); }); }
  Tensor reduce(tsr_op op, const std::vector<int32_t>& dims = {}, bool keepdim = false) const {
    return make([&](tsr_tensor** o) {
      return tsr_reduce(op, t_, static_cast<int32_t>(dims.size()), dims.empty() ? nullptr : dims.data(), keepdim ? 1 : 0, o);
    });
  }
  Tensor sum(const std::vector<int32_t>& dims = {}, bool keepdim = false) const { return reduce(TSR_OP_SUM, dims, keepdim); }
  Tensor mean(const std::vector<int32_t>& dims = {}, bool keepdim = false) const { return reduce(TSR_OP_MEAN, dims, keepdim); }
  Tensor max(const std::vector<int32_t>& dims = {}, bool keepdim = false) const { return reduce(TSR_OP_MAX, dims, keepdim); }
  Tensor min(const std::vector<int32_t>& dims = {}, bool keepdim = false) const { return reduce(TSR_OP_MIN, dims, keepdim); }
  Tensor argmax() const { return reduce(TSR_OP_ARGMAX); }
  Tensor argmax(int32_t d, bool keepdim = false) const { return reduce(TSR_OP_ARGMAX, {d}, keepdim); }
  Tensor matmul(const Tensor& b) const { return make([&](tsr_tensor** o) { return tsr_matmul(t_, b.t_, o); }); }
  Tensor relu() const { return unary(TSR_OP_RELU); }
  Tensor sigmoid() const { return unary(TSR_OP_SIGMOID); }
  Tensor tanh() const { return unary(TSR_OP_TANH); }
  Tensor exp() const { return unary(TSR_OP_EXP); }
  Tensor log() const { return unary(TSR_OP_LOG); }
  Tensor sqrt() const { return unary(TSR_OP_SQRT); }
  Tensor abs() const { return unary(TSR_OP_ABS); }
  Tensor operator-() const { return unary(TSR_OP_NEG); }
  Tensor maximum(const Tensor& b) const { return binary(TSR_OP_MAXIMUM, b); }
  Tensor minimum(const Tensor& b) const { return binary(TSR_OP_MINIMUM, b); }
  Tensor pow(const Tensor& b) const { return binary(TSR_OP_POW, b); }
  Tensor pow(Scalar b) const { return binary(TSR_OP_POW, b); }

  // In place; these write through views into the base.
  Tensor& add_(const Tensor& b) { check(tsr_binary_(TSR_OP_ADD, t_, b.t_)); return *this; }
  Tensor& add_(Scalar b) { check(tsr_binary_scalar_(TSR_OP_ADD, t_, b.value)); return *this; }
  Tensor& mul_(Scalar b) { check(tsr_binary_scalar_(TSR_OP_MUL, t_, b.value)); return *this; }
  Tensor& inplace(tsr_op op, const Tensor& b) { check(tsr_binary_(op, t_, b.t_)); return *this; }
  Tensor& inplace(tsr_op op, Scalar b) { check(tsr_binary_scalar_(op, t_, b.value)); return *this; }
  Tensor& fill_(Scalar v) { check(tsr_fill_(t_, v.value)); return *this; }
  // Into this existing tensor (out=): *this = a (op) b, *this = op(a).
  Tensor& assign(tsr_op op, const Tensor& a, const Tensor& b) { check(tsr_binary_out(op, a.t_, b.t_, t_)); return *this; }
  Tensor& assign(tsr_op op, const Tensor& a) { check(tsr_unary_out(op, a.t_, t_)); return *this; }
  Tensor& assign_matmul(const Tensor& a, const Tensor& b) { check(tsr_matmul_out(a.t_, b.t_, t_)); return *this; }
  Tensor& copy_(const Tensor& src) { check(tsr_copy_(t_, src.t_)); return *this; }

  // ---- reading ----
  tsr_scalar item() const {
    tsr_scalar s;
    check(tsr_item(t_, &s));
    return s;
  }
  double item_double() const {
    tsr_scalar s = item();
    return s.kind == TSR_SCALAR_FLOAT ? s.f : static_cast<double>(s.i);
  }
  int64_t item_int() const {
    tsr_scalar s = item();
    return s.kind == TSR_SCALAR_FLOAT ? static_cast<int64_t>(s.f) : s.i;
  }
  template <class T>
  std::vector<T> to_vector() const {
    if (sizeof(T) != element_size()) throw Error(TSR_ERR_TYPE, "to_vector: element size does not match the dtype");
    std::vector<T> out(static_cast<size_t>(numel()));
    check(tsr_read(t_, out.data(), out.size() * sizeof(T)));
    return out;
  }
  std::string str() const {
    char* s = nullptr;
    check(tsr_format(t_, &s));
    return take_string(s);
  }
  std::string layout_picture() const {
    char* s = nullptr;
    check(tsr_format_layout(t_, &s));
    return take_string(s);
  }

 private:
  static int32_t ndim(const Shape& s) { return static_cast<int32_t>(s.size()); }
  template <class F>
  static Tensor make(F&& call) {
    tsr_tensor* out = nullptr;
    check(call(&out));
    return Tensor(out);
  }
  tsr_tensor* t_ = nullptr;
};

inline Tensor operator+(const Tensor& a, const Tensor& b) { return a.binary(TSR_OP_ADD, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return a.binary(TSR_OP_SUB, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return a.binary(TSR_OP_MUL, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return a.binary(TSR_OP_DIV, b); }
inline Tensor operator+(const Tensor& a, Scalar b) { return a.binary(TSR_OP_ADD, b); }
inline Tensor operator-(const Tensor& a, Scalar b) { return a.binary(TSR_OP_SUB, b); }
inline Tensor operator*(const Tensor& a, Scalar b) { return a.binary(TSR_OP_MUL, b); }
inline Tensor operator/(const Tensor& a, Scalar b) { return a.binary(TSR_OP_DIV, b); }
inline Tensor operator+(Scalar a, const Tensor& b) { return b.binary(TSR_OP_ADD, a, true); }
inline Tensor operator-(Scalar a, const Tensor& b) { return b.binary(TSR_OP_SUB, a, true); }
inline Tensor operator*(Scalar a, const Tensor& b) { return b.binary(TSR_OP_MUL, a, true); }
inline Tensor operator/(Scalar a, const Tensor& b) { return b.binary(TSR_OP_DIV, a, true); }
inline Tensor operator==(const Tensor& a, const Tensor& b) { return a.binary(TSR_OP_EQ, b); }
inline Tensor operator!=(const Tensor& a, const Tensor& b) { return a.binary(TSR_OP_NE, b); }
inline Tensor operator<(const Tensor& a, const Tensor& b) { return a.binary(TSR_OP_LT, b); }
inline Tensor operator<=(const Tensor& a, const Tensor& b) { return a.binary(TSR_OP_LE, b); }
inline Tensor operator>(const Tensor& a, const Tensor& b) { return a.binary(TSR_OP_GT, b); }
inline Tensor operator>=(const Tensor& a, const Tensor& b) { return a.binary(TSR_OP_GE, b); }
inline Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) {
  tsr_tensor* out = nullptr;
  check(tsr_where(c.get(), a.get(), b.get(), &out));
  return Tensor(out);
}

// Throws tessera::Error with PyTorch's message when the tensors are not close.
inline void assert_close(const Tensor& actual, const Tensor& expected, double rtol = -1, double atol = -1) {
  check(tsr_assert_close(actual.get(), expected.get(), rtol, atol, 0));
}

inline Shape broadcast_shapes(const Shape& a, const Shape& b) {
  int64_t out[TSR_MAX_DIMS];
  int32_t n = 0;
  check(tsr_broadcast_shapes(static_cast<int32_t>(a.size()), a.data(), static_cast<int32_t>(b.size()), b.data(), &n, out));
  return Shape(out, out + n);
}

// "(3, 4)", as Python prints a tuple.
inline std::string tuple_string(const Shape& s) {
  std::string out = "(";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

}  // namespace tessera
