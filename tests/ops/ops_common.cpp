// SPDX-License-Identifier: Apache-2.0
#include "ops_common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "tessera/half.h"
#include "test_paths.hpp"

namespace ops {

tessera::Runtime& runtime() {
  static tessera::Runtime rt(test_paths::config);
  return rt;
}

tsr_device cpu() {
  static const tsr_device d = runtime().device("cpu");
  return d;
}

std::string dtype_name(tsr_dtype d) { return tsr_dtype_name(d); }

tsr_dtype promote(tsr_dtype a, tsr_dtype b) {
  // torch.promote_types over the dtype enum order (printed by torch 1.13);
  // the last three columns and rows by np.promote_types (NumPy 1.24).
  static const int table[kRealDtypeCount][kRealDtypeCount] = {
      {0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1},         {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
      {0, 1, 2, 0, 2, 2, 2, 2, 2, 2, 0, 1, 1},         {0, 1, 0, 3, 3, 3, 3, 3, 3, 3, 0, 1, 1},
      {0, 1, 2, 3, 4, 6, 6, 7, 8, 4, 7, 8, 1},         {0, 1, 2, 3, 6, 5, 6, 7, 8, 5, 10, 11, 12},
      {0, 1, 2, 3, 6, 6, 6, 7, 8, 6, 7, 8, 1},         {0, 1, 2, 3, 7, 7, 7, 7, 8, 7, 7, 8, 1},
      {0, 1, 2, 3, 8, 8, 8, 8, 8, 8, 8, 8, 1},         {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
      {0, 1, 0, 0, 7, 10, 7, 7, 8, 10, 10, 11, 12},    {1, 1, 1, 1, 8, 11, 8, 8, 8, 11, 11, 11, 12},
      {1, 1, 1, 1, 1, 12, 1, 1, 1, 12, 12, 12, 12}};
  return static_cast<tsr_dtype>(table[a][b]);
}

bool can_cast(tsr_dtype from, tsr_dtype to) {
  if (is_float(from) && !is_float(to)) return false;
  return !(from != TSR_BOOL && to == TSR_BOOL);
}

double load(tsr_dtype dtype, const unsigned char* p) {
  auto get = [p]<class T>(T) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  };
  switch (dtype) {
    case TSR_FLOAT32: return get(float{});
    case TSR_FLOAT64: return get(double{});
    case TSR_FLOAT16: return tsr_float16_to_float(get(uint16_t{}));
    case TSR_BFLOAT16: return tsr_bfloat16_to_float(get(uint16_t{}));
    case TSR_INT8: return get(int8_t{});
    case TSR_UINT8: return get(uint8_t{});
    case TSR_INT16: return get(int16_t{});
    case TSR_INT32: return get(int32_t{});
    case TSR_INT64: return static_cast<double>(get(int64_t{}));
    case TSR_BOOL: return get(uint8_t{}) != 0 ? 1.0 : 0.0;
    case TSR_UINT16: return get(uint16_t{});
    case TSR_UINT32: return get(uint32_t{});
    case TSR_UINT64: return static_cast<double>(get(uint64_t{}));
    default: return std::nan("");
  }
}

namespace {
// Float -> integer as PyTorch does on x86-64: truncate to int64, then wrap.
int64_t to_int64(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}
// Float -> uint64 (Note [Casts]): exact on [0, 2^64), 0 above, negatives
// through int64 then wrapping, NaN and -2^63 or below 2^63.
uint64_t to_uint64(double v) {
  if (v >= 9223372036854775808.0) return v < 18446744073709551616.0 ? static_cast<uint64_t>(v) : 0;
  return static_cast<uint64_t>(to_int64(v));
}
}  // namespace

void store(tsr_dtype dtype, double v, unsigned char* p) {
  auto put = [p]<class T>(T x) { std::memcpy(p, &x, sizeof x); };
  switch (dtype) {
    case TSR_FLOAT32: put(static_cast<float>(v)); break;
    case TSR_FLOAT64: put(v); break;
    case TSR_FLOAT16: put(tsr_float_to_float16(static_cast<float>(v))); break;
    case TSR_BFLOAT16: put(tsr_float_to_bfloat16(static_cast<float>(v))); break;
    case TSR_INT8: put(static_cast<int8_t>(to_int64(v))); break;
    case TSR_UINT8: put(static_cast<uint8_t>(to_int64(v))); break;
    case TSR_INT16: put(static_cast<int16_t>(to_int64(v))); break;
    case TSR_INT32: put(static_cast<int32_t>(to_int64(v))); break;
    case TSR_INT64: put(to_int64(v)); break;
    case TSR_BOOL: put(static_cast<uint8_t>(v != 0.0)); break;  // NaN != 0: true
    case TSR_UINT16: put(static_cast<uint16_t>(to_int64(v))); break;
    case TSR_UINT32: put(static_cast<uint32_t>(to_int64(v))); break;
    case TSR_UINT64: put(to_uint64(v)); break;
    default: break;
  }
}

double cast(tsr_dtype dtype, double v) {
  unsigned char buf[8];
  store(dtype, v, buf);
  return load(dtype, buf);
}

int64_t numel(const Shape& s) {
  int64_t n = 1;
  for (int64_t d : s) n *= d;
  return n;
}

std::string shape_str(const Shape& s) { return tessera::tuple_string(s); }

std::vector<double> values(const Tensor& t) {
  size_t elem = tsr_dtype_size(t.dtype());
  size_t n = static_cast<size_t>(t.numel());
  std::vector<unsigned char> bytes(std::max<size_t>(1, n * elem));  // never a NULL buffer
  tessera::check(tsr_read(t.get(), bytes.data(), n * elem));
  std::vector<double> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = load(t.dtype(), bytes.data() + i * elem);
  return out;
}

Tensor from_values(const std::vector<double>& v, const Shape& shape, tsr_dtype dtype) {
  size_t elem = tsr_dtype_size(dtype);
  std::vector<unsigned char> bytes(std::max<size_t>(1, v.size() * elem));
  for (size_t i = 0; i < v.size(); ++i) store(dtype, v[i], bytes.data() + i * elem);
  tsr_tensor* out = nullptr;
  tessera::check(tsr_from_host(runtime().get(), bytes.data(), static_cast<int32_t>(shape.size()), shape.data(),
                               dtype, cpu(), &out));
  return Tensor(out);
}

tsr_scalar int_scalar(int64_t v) { return Scalar(static_cast<long long>(v)).value; }
tsr_scalar float_scalar(double v) { return Scalar(v).value; }
tsr_scalar bool_scalar(bool v) { return Scalar(v).value; }

std::vector<int64_t> storage_indices(const Tensor& t) {
  Shape shape = t.shape(), strides = t.stride();
  std::vector<int64_t> out(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < out.size(); ++i) {
    int64_t rest = static_cast<int64_t>(i), at = t.storage_offset();
    for (size_t d = shape.size(); d-- > 0;) {
      at += (rest % shape[d]) * strides[d];
      rest /= shape[d];
    }
    out[i] = at;
  }
  return out;
}

int64_t broadcast_source(const Shape& out, const Shape& in, int64_t i) {
  size_t lead = out.size() - in.size();
  int64_t index = 0, scale = 1;
  for (size_t d = out.size(); d-- > 0;) {
    int64_t coord = i % out[d];
    i /= out[d];
    if (d < lead) continue;
    int64_t size = in[d - lead];
    index += (size == 1 ? 0 : coord) * scale;
    scale *= size;
  }
  return index;
}

double sample(tsr_dtype dtype, Values kind, uint32_t seed, int64_t i) {
  uint32_t h = seed * 2654435761u ^ static_cast<uint32_t>(i) * 2246822519u;
  h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
  bool exponent = kind == Values::Exponent;
  if (is_float(dtype)) return exponent ? (static_cast<int>(h % 13) - 6) / 4.0 : (static_cast<int>(h % 49) - 24) / 8.0;
  int r = static_cast<int>(h % 1024);
  if (dtype == TSR_BOOL) return r % 2;
  if (exponent) return r % 4;
  return tsr_dtype_is_unsigned(dtype) ? r % 11 : r % 11 - 5;
}

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous: return "contiguous";
    case Layout::Transposed: return "transposed";
    case Layout::Sliced: return "sliced";
    case Layout::Expanded: return "expanded";
  }
  return "?";
}

Input make_input(const Shape& shape, tsr_dtype dtype, Layout layout, Values kind, uint32_t seed) {
  if (shape.empty()) layout = Layout::Contiguous;
  Shape base_shape = shape;
  if (layout == Layout::Transposed) std::reverse(base_shape.begin(), base_shape.end());
  if (layout == Layout::Sliced) base_shape.back() = 2 * shape.back() + 1;
  if (layout == Layout::Expanded) base_shape.front() = 1;
  std::vector<double> v(static_cast<size_t>(numel(base_shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = sample(dtype, kind, seed, static_cast<int64_t>(i));
  Input in{Tensor(), from_values(v, base_shape, dtype)};
  switch (layout) {
    case Layout::Contiguous: in.view = in.base; break;
    case Layout::Transposed: in.view = in.base.T(); break;
    case Layout::Sliced: in.view = in.base.slice(static_cast<int32_t>(shape.size()) - 1, 1, TSR_SLICE_NONE, 2); break;
    case Layout::Expanded: in.view = in.base.expand(shape); break;
  }
  return in;
}

Tolerance tolerance(tsr_dtype dtype) {
  switch (dtype) {
    case TSR_FLOAT32: return {1.3e-6, 1e-5};
    case TSR_FLOAT64: return {1e-7, 1e-7};
    case TSR_FLOAT16: return {1e-3, 1e-5};
    case TSR_BFLOAT16: return {1.6e-2, 1e-5};
    default: return {0, 0};
  }
}

namespace {
std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
}  // namespace

std::string mismatch(const Tensor& got, const Shape& shape, tsr_dtype dtype, const std::vector<double>& expected) {
  if (got.shape() != shape) return "shape " + shape_str(got.shape()) + ", expected " + shape_str(shape);
  if (got.dtype() != dtype)
    return std::string("dtype ") + tsr_dtype_name(got.dtype()) + ", expected " + tsr_dtype_name(dtype);
  if (expected.size() != static_cast<size_t>(numel(shape))) return "test bug: reference has the wrong size";
  std::vector<double> v = values(got);
  Tolerance tol = tolerance(dtype);
  for (size_t i = 0; i < v.size(); ++i) {
    // A uint64 reference from 2^63 on is a wrapped integer already, rounded to
    // double (2^64 - 2 reads as 2^64): casting it again would take it for a
    // float out of range.
    double e = dtype == TSR_UINT64 && expected[i] >= 0x1p63 ? expected[i] : cast(dtype, expected[i]), g = v[i];
    bool exact = std::isinf(e) || tol.rtol == 0;
    bool ok = std::isnan(e) ? std::isnan(g) : exact ? g == e : std::fabs(g - e) <= tol.atol + tol.rtol * std::fabs(e);
    if (!ok)
      return "element " + std::to_string(i) + " of " + shape_str(shape) + " " + tsr_dtype_name(dtype) + ": got " +
             num(g) + ", expected " + num(e);
  }
  return "";
}

void check_error(const Result& r, tsr_status status, const std::string& needle) {
  INFO("expected " << tsr_status_name(status) << " containing \"" << needle << "\"");
  if (status == TSR_OK)  // any failure will do
    CHECK(r.status != TSR_OK);
  else
    CHECK(tsr_status_name(r.status) == std::string(tsr_status_name(status)));
  CHECK_THAT(r.message, Catch::Contains(needle));
  CHECK(r.out_null);
}

}  // namespace ops
