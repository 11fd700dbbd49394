// SPDX-License-Identifier: Apache-2.0
// `tessera conformance`: every (op, dtype) a plugin claims, on every layout,
// against the reference plugin (cpu_tbb) running the same descriptors on
// host memory.
//
// Each case builds its operands as views into storages: inputs start at an
// offset; the output sits between guard elements, and its storage is filled
// with sentinel bytes before the kernel runs. Afterwards every output
// element must match the reference within the dtype's tolerance, every byte
// of the output storage that is not an element of the view must still be a
// sentinel (no out-of-range or in-between writes), and the inputs must be
// unchanged.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "conformance_checks.hpp"
#include "tessera/element.h"

namespace tessera::tool {

namespace {

constexpr unsigned char kSentinel = 0xA5;
constexpr int64_t kGuard = 8;        // sentinel elements before and after an output
constexpr int64_t kInputOffset = 3;  // inputs start this far into their storage

enum class Layout { Contiguous, Transposed, Sliced, Expanded, Scalar, Empty, AllDims, Batched };

const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous: return "contiguous";
    case Layout::Transposed: return "transposed";
    case Layout::Sliced: return "step-sliced";
    case Layout::Expanded: return "expanded";
    case Layout::Scalar: return "0-d";
    case Layout::Empty: return "empty";
    case Layout::AllDims: return "all-dims";
    default: return "batched";
  }
}

// ---- values -----------------------------------------------------------------

// Deterministic values in [0, 1).
class Random {
 public:
  explicit Random(uint64_t seed) : s_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  double next() {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 7;
    s_ ^= s_ << 17;
    return static_cast<double>(s_ >> 11) / 9007199254740992.0;
  }
  int64_t between(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() * static_cast<double>(hi - lo + 1)); }

 private:
  uint64_t s_;
};

// What values an input takes, so that every op stays in its domain.
enum class Domain { General, Positive, Nonzero, Exponent, Small, Bool };

double draw(Random& r, int32_t dt, Domain d) {
  const bool floating = tsr_dtype_is_floating(dt) != 0;
  if (dt == TSR_BOOL || d == Domain::Bool) return static_cast<double>(r.between(0, 1));
  if (tsr_dtype_is_unsigned(dt)) {
    if (d == Domain::Exponent) return static_cast<double>(r.between(0, 2));
    return static_cast<double>(r.between(d == Domain::Nonzero || d == Domain::Positive ? 1 : 0, 15));
  }
  switch (d) {
    case Domain::Positive: return floating ? 0.1 + 3.9 * r.next() : static_cast<double>(r.between(1, 9));
    case Domain::Nonzero: return floating ? (0.5 + 1.5 * r.next()) * (r.next() < 0.5 ? -1 : 1) : static_cast<double>(r.between(1, 9));
    case Domain::Exponent: return floating ? 0.5 + 1.5 * r.next() : static_cast<double>(r.between(0, 3));
    case Domain::Small: return floating ? 0.5 * static_cast<double>(r.between(-2, 2)) : static_cast<double>(r.between(-2, 2));
    default: return floating ? 4.0 * r.next() - 2.0 : static_cast<double>(r.between(-9, 9));
  }
}

// ---- operands ---------------------------------------------------------------

struct Operand {
  tsr_tensor_desc desc{};
  std::vector<unsigned char> bytes;  // the whole storage, host side
  bool output = false;
};

int64_t numel(const tsr_tensor_desc& d) {
  int64_t n = 1;
  for (int32_t i = 0; i < d.ndim; ++i) n *= d.shape[i];
  return n;
}

// Calls f(storage element offset) for every element, row-major.
void for_each_offset(const tsr_tensor_desc& d, const std::function<void(int64_t)>& f) {
  if (numel(d) == 0) return;
  int64_t index[TSR_MAX_DIMS] = {};
  for (;;) {
    int64_t off = d.offset;
    for (int32_t i = 0; i < d.ndim; ++i) off += index[i] * d.strides[i];
    f(off);
    int32_t dim = d.ndim - 1;
    for (; dim >= 0; --dim) {
      if (++index[dim] < d.shape[dim]) break;
      index[dim] = 0;
    }
    if (dim < 0) return;
  }
}

// A view of `shape` laid out as `layout`; inputs get their values, outputs sentinels.
Operand make_operand(int32_t dtype, std::vector<int64_t> shape, Layout layout, bool output, Random& r, Domain domain) {
  Operand o;
  o.output = output;
  tsr_tensor_desc& d = o.desc;
  d.struct_size = TSR_TENSOR_DESC_STRUCT_SIZE;
  d.dtype = dtype;
  d.ndim = static_cast<int32_t>(shape.size());
  for (int32_t i = 0; i < d.ndim; ++i) d.shape[i] = shape[static_cast<size_t>(i)];
  // Row-major strides of `extent` (the storage's own shape).
  auto row_major = [&](std::vector<int64_t> extent) {
    int64_t step = 1;
    for (int32_t i = d.ndim - 1; i >= 0; --i) {
      d.strides[i] = step;
      step *= std::max<int64_t>(extent[static_cast<size_t>(i)], 1);
    }
  };
  std::vector<int64_t> extent = shape;
  const int32_t last = d.ndim - 1;
  if (layout == Layout::Transposed && d.ndim >= 2) {
    // The storage has the last two dims swapped; the view swaps them back.
    std::swap(extent[static_cast<size_t>(last)], extent[static_cast<size_t>(last - 1)]);
    row_major(extent);
    std::swap(d.strides[last], d.strides[last - 1]);
  } else if (layout == Layout::Sliced && d.ndim >= 1) {
    extent[static_cast<size_t>(last)] *= 2;
    row_major(extent);
    d.strides[last] = 2;
  } else if (layout == Layout::Expanded && !output && d.ndim >= 2) {
    row_major(extent);
    d.strides[0] = 0;
  } else {
    row_major(extent);
  }
  d.offset = output ? kGuard : kInputOffset + (layout == Layout::Sliced ? 1 : 0);
  int64_t reach = d.offset;
  for (int32_t i = 0; i < d.ndim; ++i) reach += std::max<int64_t>(d.shape[i] - 1, 0) * d.strides[i];
  const int64_t elements = reach + 1 + (output ? kGuard : 0);
  const size_t elem = tsr_dtype_size(dtype);
  o.bytes.assign(static_cast<size_t>(elements) * elem, kSentinel);
  if (!output)
    for (int64_t i = 0; i < elements; ++i) {
      unsigned char* p = o.bytes.data() + static_cast<size_t>(i) * elem;
      if (tsr_dtype_is_complex(dtype)) {  // both parts drawn from the real dtype's domain
        const int32_t part = tsr_dtype_real(dtype);
        tsr_element_from_double(part, p, draw(r, part, domain));
        tsr_element_from_double(part, p + elem / 2, draw(r, part, domain));
      } else {
        tsr_element_from_double(dtype, p, draw(r, dtype, domain));
      }
    }
  return o;
}

// Note [Cast probes]
//   COPY's casts are checked from every dtype with values that tell a right
//   conversion from a near one: integers just past a float's precision, whose
//   correct rounding differs from rounding twice through a wider type (int64
//   2^60 + 2^36 + 1 is 2^60 + 2^37 in float32, but 2^60 through a double);
//   doubles just past float16's and bfloat16's half-ulp; float -> int values
//   that truncate, wrap, overflow or are NaN (Note [Kernel contracts] in
//   ops.h states each rule); and the integer ranges' edges. Every element of
//   the input's storage takes the next value of its dtype's list, and the
//   result must equal the reference bit for bit (NaN equal to NaN).
void write_cast_probes(std::vector<unsigned char>& bytes, int32_t dtype) {
  const size_t elem = tsr_dtype_size(dtype);
  const size_t n = bytes.size() / elem;
  const auto each = [&](const auto& values) {
    for (size_t i = 0; i < n; ++i) {
      const auto v = values[i % std::size(values)];
      std::memcpy(bytes.data() + i * elem, &v, elem);
    }
  };
  const auto each_double = [&](const std::vector<double>& values) {
    for (size_t i = 0; i < n; ++i) tsr_element_from_double(dtype, bytes.data() + i * elem, values[i % values.size()]);
  };
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  switch (dtype) {
    case TSR_INT64: {
      const int64_t big = (int64_t{1} << 60) + (int64_t{1} << 36) + 1;
      const int64_t v[] = {big, -big, (int64_t{1} << 53) + 1, (int64_t{1} << 24) + (1 << 16) + 1, (1 << 24) + 1,
                           2049, 65505, 70000, 300, -129, 128, 255, 256, -1, 0, 1,
                           std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min()};
      each(v);
      break;
    }
    case TSR_INT32: {
      const int32_t v[] = {(1 << 24) + (1 << 16) + 1, -((1 << 24) + (1 << 16) + 1), (1 << 24) + 1, 2049, 65505, 70000,
                           300, -129, 128, 255, 256, -1, 0, 1, std::numeric_limits<int32_t>::max(),
                           std::numeric_limits<int32_t>::min()};
      each(v);
      break;
    }
    case TSR_FLOAT64: {
      const double v[] = {1 + 0x1p-11 + 0x1p-40, -(1 + 0x1p-11 + 0x1p-40), 1 + 0x1p-8 + 0x1p-40, 1 + 0x1p-24 + 0x1p-50,
                          0.1, 2.5, -2.5, 3.5, 2.7, -2.7, 300.9, -129.5, 1e10, -1e10, 0x1p62, 0x1p63, -0.0,
                          65519.0, 65520.0, 1e-8, 1e-320, 1e300, inf, -inf, nan,
                          // float -> uint16/32/64 (Note [Casts]): wraps through int64, exact above 2^63, 2^64 and up
                          -1.5, 65535.9, 70000.5, 4294967296.0 + 5, 0x1p63 + 2048, 0x1p64 - 2048, 0x1p64, -0x1p63, -0x1p64};
      each(v);
      break;
    }
    case TSR_FLOAT32: {
      const float v[] = {1 + 0x1p-11f + 0x1p-20f, 16777216.0f, 0.1f, 2.5f, -2.5f, 3.5f, 2.7f, -2.7f, 300.9f, -129.5f,
                         1e10f, -1e10f, 65519.0f, 65520.0f, 1e-40f, -0.0f, -1.5f, 0x1p63f, 0x1p64f, 0x1.fffffep63f,
                         std::numeric_limits<float>::infinity(),
                         -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
      each(v);
      break;
    }
    case TSR_FLOAT16:
      each_double({0.5, 1.5, -2.5, 2.5, 3.5, 65504, -65504, 0x1p-24, 1000.5, 2049, inf, -inf, nan, -0.0});
      break;
    case TSR_BFLOAT16:
      each_double({0.5, 1.5, -2.5, 2.5, 3.5, 3e38, -3e38, 257, 1e-39, 70000, 1e10, inf, -inf, nan, -0.0});
      break;
    case TSR_INT16: each_double({2049, 2047, -2049, 32767, -32768, 300, -129, 255, 256, -1, 0, 1}); break;
    case TSR_INT8: each_double({127, -128, -1, 0, 1, 100, -100}); break;
    case TSR_UINT8: each_double({255, 0, 1, 128, 200, 127}); break;
    case TSR_UINT16: each_double({65535, 0, 1, 32768, 32767, 2049, 2047, 255, 256, 300}); break;
    case TSR_UINT32: {
      const uint32_t v[] = {(1u << 24) + (1u << 16) + 1, (1u << 24) + 1, 4294967295u, 2147483648u, 2147483647u,
                            65505, 70000, 65535, 300, 255, 256, 0, 1};
      each(v);
      break;
    }
    case TSR_UINT64: {  // from 2^63 on: one rounding from the unsigned value, and integer wrap-around
      const uint64_t big = (uint64_t{1} << 63) + (uint64_t{1} << 39) + 1;
      const uint64_t v[] = {big, ~uint64_t{0}, uint64_t{1} << 63, (uint64_t{1} << 60) + (uint64_t{1} << 36) + 1,
                            (uint64_t{1} << 53) + 1, 4294967295u, 4294967296u, 65535, 65536, 255, 256, 0, 1};
      each(v);
      break;
    }
    case TSR_BOOL: each_double({0, 1, 1, 0}); break;
    default: break;
  }
}

struct Case {
  std::string name;
  std::vector<Operand> inputs;
  Operand out;
  std::vector<Operand> more;  // LINALG's further outputs (tsr_kernel_args.more_outputs)
  std::vector<tsr_scalar> scalars;
  std::vector<int64_t> params;
  double tolerance_scale = 1;
  bool up_to_sign = false;  // compare absolute values (QR: columns of Q and rows of R may flip together)
  bool up_to_order_and_phase = false;  // EIG: align_eig first (the library's order and phases)
};

tsr_scalar scalar_float(double v) {
  tsr_scalar s{};
  s.kind = TSR_SCALAR_FLOAT;
  s.f = v;
  return s;
}

tsr_scalar scalar_int(int64_t v) {
  tsr_scalar s{};
  s.kind = TSR_SCALAR_INT;
  s.i = v;
  s.f = static_cast<double>(v);
  return s;
}

// ---- ops --------------------------------------------------------------------

// The layouts each kind of op is checked on (its kind: tsr_op_kind).
std::vector<Layout> layouts_of(int k, int32_t op) {
  switch (k) {
    case TSR_OP_KIND_FILL: return {Layout::Contiguous, Layout::Transposed, Layout::Sliced, Layout::Scalar, Layout::Empty};
    case TSR_OP_KIND_REDUCE:
      if (op == TSR_OP_SUM || op == TSR_OP_MEAN)
        return {Layout::Contiguous, Layout::Transposed, Layout::Sliced, Layout::Expanded, Layout::Scalar, Layout::Empty, Layout::AllDims};
      return {Layout::Contiguous, Layout::Transposed, Layout::Sliced, Layout::Expanded, Layout::Scalar, Layout::AllDims};
    case TSR_OP_KIND_MATMUL:
      return {Layout::Contiguous, Layout::Transposed, Layout::Sliced, Layout::Expanded, Layout::Empty, Layout::Batched};
    case TSR_OP_KIND_ARANGE:
    case TSR_OP_KIND_LINSPACE: return {Layout::Contiguous, Layout::Sliced, Layout::Empty};
    case TSR_OP_KIND_RANDOM: return {Layout::Contiguous, Layout::Transposed, Layout::Sliced};
    case TSR_OP_KIND_SCAN:
    case TSR_OP_KIND_SORT:
      return {Layout::Contiguous, Layout::Transposed, Layout::Sliced, Layout::Expanded, Layout::Empty};
    case TSR_OP_KIND_GATHER:
    case TSR_OP_KIND_SEARCH: return {Layout::Contiguous, Layout::Transposed, Layout::Sliced, Layout::Expanded};
    case TSR_OP_KIND_SCATTER:
    case TSR_OP_KIND_COMPACT: return {Layout::Contiguous, Layout::Transposed, Layout::Sliced};
    case TSR_OP_KIND_LINALG: return {Layout::Contiguous, Layout::Transposed, Layout::Batched};
    case TSR_OP_KIND_FFT:
      return {Layout::Contiguous, Layout::Transposed, Layout::Sliced, Layout::Expanded, Layout::Empty};
    default:
      return {Layout::Contiguous, Layout::Transposed, Layout::Sliced, Layout::Expanded, Layout::Scalar, Layout::Empty};
  }
}

Domain domain_of(int32_t op, int input) {
  switch (op) {
    case TSR_OP_LOG:
    case TSR_OP_SQRT: return Domain::Positive;
    case TSR_OP_DIV:
    case TSR_OP_FLOOR_DIVIDE:
    case TSR_OP_REMAINDER: return input == 1 ? Domain::Nonzero : Domain::General;
    case TSR_OP_SHIFT_LEFT:
    case TSR_OP_SHIFT_RIGHT: return input == 1 ? Domain::Exponent : Domain::General;
    case TSR_OP_POW: return input == 1 ? Domain::Exponent : Domain::Positive;
    default: return tsr_op_kind(op) == TSR_OP_KIND_COMPARE ? Domain::Small : Domain::General;
  }
}

int32_t output_dtype(int32_t op, int32_t key) {
  const int k = tsr_op_kind(op);
  if (k == TSR_OP_KIND_COMPARE) return TSR_BOOL;
  if (op == TSR_OP_ARGMAX || op == TSR_OP_ARGMIN || op == TSR_OP_ARGSORT || op == TSR_OP_NONZERO) return TSR_INT64;
  if (op == TSR_OP_SEARCHSORTED) return TSR_INT64;
  if ((op == TSR_OP_SUM || op == TSR_OP_PROD || op == TSR_OP_CUMSUM || op == TSR_OP_CUMPROD) &&
      !tsr_dtype_is_floating(key) &&
      !tsr_dtype_is_complex(key))  // Note [Kernel contracts]
    return key == TSR_UINT16 || key == TSR_UINT32 || key == TSR_UINT64 ? TSR_UINT64 : TSR_INT64;
  if (op == TSR_OP_RFFT) return tsr_dtype_complex(key);  // FFT kind (ABI 1.11): real in, complex out
  if (op == TSR_OP_IRFFT) return tsr_dtype_real(key);
  if (op == TSR_OP_ABS) return tsr_dtype_real(key);  // |z| of a complex number is real (Note [Complex dtypes])
  return key;
}

// The variants of one (op, key dtype): COPY's source dtypes (every dtype),
// MATH's functions, the directions of SORT and ARGSORT, SCATTER's store and
// add; one variant (0, or the key for COPY) for the other ops.
std::vector<int32_t> variants_of(int32_t op, int32_t key) {
  std::vector<int32_t> v;
  switch (tsr_op_kind(op)) {
    case TSR_OP_KIND_COPY:  // casts from every dtype (Note [Cast probes])
      v.push_back(key);
      for (int32_t from = 0; from < TSR_DTYPE_COUNT; ++from)
        if (from != key) v.push_back(from);
      return v;
    case TSR_OP_KIND_MATH:
      for (int32_t fn = 0; fn < TSR_MATH_FN_COUNT; ++fn) v.push_back(fn);
      return v;
    case TSR_OP_KIND_SORT:
    case TSR_OP_KIND_SEARCH:
    case TSR_OP_KIND_FFT: return {0, 1};
    case TSR_OP_KIND_SCATTER: return key == TSR_BOOL ? std::vector<int32_t>{0} : std::vector<int32_t>{0, 1};
    default: return {0};
  }
}

// int64 values in [lo, hi] written over an index operand's elements.
void write_indices(Operand& o, Random& r, int64_t lo, int64_t hi) {
  for (size_t i = 0; i < o.bytes.size() / sizeof(int64_t); ++i) {
    const int64_t v = r.between(static_cast<int>(lo), static_cast<int>(hi));
    std::memcpy(o.bytes.data() + i * sizeof(int64_t), &v, sizeof v);
  }
}

// Writes value(batch, i, j) over a matrix operand's elements ([.., m, n]).
void write_matrices(Operand& o, const std::function<double(int64_t, int64_t, int64_t)>& value) {
  const tsr_tensor_desc& d = o.desc;
  const int64_t m = d.shape[d.ndim - 2], n = d.shape[d.ndim - 1];
  const size_t elem = tsr_dtype_size(d.dtype);
  int64_t index = 0;
  for_each_offset(d, [&](int64_t off) {
    tsr_element_from_double(d.dtype, o.bytes.data() + static_cast<size_t>(off) * elem,
                            value(index / (m * n), index / n % m, index % n));
    ++index;
  });
}

// LINALG (Note [Kernel contracts]): inputs whose results are unique, so that
// the kernel under test must agree with the reference within tolerance:
// SPD matrices for CHOLESKY, diagonally dominant ones for SOLVE and INV
// (and random ones for LU, whose pivots then have no ties), symmetric ones
// for EIGH; SVD and EIGH give their values alone, and QR is compared up to
// the sign its columns may take. EIG takes G itself (real eigenvalues and
// conjugate pairs), with its vectors, compared up to order and phase
// (align_eig).
void build_linalg_case(Case& c, int32_t op, int32_t key, Layout layout, Random& r) {
  const std::vector<int64_t> batch = layout == Layout::Batched ? std::vector<int64_t>{3} : std::vector<int64_t>{};
  const Layout in_layout = layout == Layout::Batched ? Layout::Contiguous : layout;
  auto shape = [&](std::initializer_list<int64_t> dims) {
    std::vector<int64_t> s = batch;
    s.insert(s.end(), dims);
    return s;
  };
  auto output = [&](int32_t dtype, std::initializer_list<int64_t> dims) {
    return make_operand(dtype, shape(dims), Layout::Contiguous, true, r, Domain::General);
  };
  const int64_t n = 5, m = op == TSR_OP_LU || op == TSR_OP_QR || op == TSR_OP_SVD ? 6 : n, k = std::min(m, n);
  c.inputs.push_back(make_operand(key, shape({m, n}), in_layout, false, r, Domain::General));
  // Random entries in [-1, 1], one table per batch element, read by formula.
  const int64_t count = batch.empty() ? 1 : batch[0];
  std::vector<double> g(static_cast<size_t>(count * m * n));
  for (double& v : g) v = static_cast<double>(r.between(-1000, 1000)) / 1000.0;
  auto rnd = [&](int64_t b, int64_t i, int64_t j) { return g[static_cast<size_t>((b * m + i) * n + j)]; };
  switch (op) {
    case TSR_OP_CHOLESKY:  // G G^T + n I
      write_matrices(c.inputs[0], [&](int64_t b, int64_t i, int64_t j) {
        double s = i == j ? static_cast<double>(n) : 0.0;
        for (int64_t t = 0; t < n; ++t) s += rnd(b, i, t) * rnd(b, j, t);
        return s;
      });
      break;
    case TSR_OP_EIGH:  // G + G^T
      write_matrices(c.inputs[0], [&](int64_t b, int64_t i, int64_t j) { return rnd(b, i, j) + rnd(b, j, i); });
      break;
    case TSR_OP_SOLVE:
    case TSR_OP_INV:  // G + n I
      write_matrices(c.inputs[0], [&](int64_t b, int64_t i, int64_t j) { return rnd(b, i, j) + (i == j ? n : 0); });
      break;
    default:  // LU, QR, SVD: G itself
      write_matrices(c.inputs[0], rnd);
  }
  switch (op) {
    case TSR_OP_CHOLESKY:
      c.out = output(key, {n, n});
      c.more.push_back(output(TSR_INT32, {}));
      c.params = {0};
      break;
    case TSR_OP_LU:
      c.out = output(key, {m, n});
      c.more.push_back(output(TSR_INT32, {k}));
      c.more.push_back(output(TSR_INT32, {}));
      break;
    case TSR_OP_SOLVE:
      c.inputs.push_back(make_operand(key, shape({n, 3}), in_layout, false, r, Domain::General));
      c.out = output(key, {n, 3});
      c.more.push_back(output(TSR_INT32, {}));
      break;
    case TSR_OP_INV:
      c.out = output(key, {n, n});
      c.more.push_back(output(TSR_INT32, {}));
      break;
    case TSR_OP_QR:
      c.out = output(key, {m, k});
      c.more.push_back(output(key, {k, n}));
      c.params = {0};
      c.up_to_sign = true;
      break;
    case TSR_OP_SVD:  // the values are real (of a complex key, its parts' dtype)
      c.out = output(tsr_dtype_real(key), {k});
      c.more.push_back(output(TSR_INT32, {}));
      c.params = {0, 0};
      break;
    case TSR_OP_EIGH:
      c.out = output(tsr_dtype_real(key), {n});
      c.more.push_back(output(TSR_INT32, {}));
      c.params = {0};
      break;
    case TSR_OP_EIG:  // complex w and V whatever the key (complex64 for float32)
      c.out = output(tsr_dtype_complex(key), {n});
      c.more.push_back(output(tsr_dtype_complex(key), {n, n}));
      c.more.push_back(output(TSR_INT32, {}));
      c.params = {1};
      c.up_to_order_and_phase = true;
      break;
  }
  c.tolerance_scale = 100;  // factorisations round differently from library to library
}

// The cases of (op, key dtype) on one layout; `variant` as variants_of says.
Case build_case(int32_t op, int32_t key, Layout layout, int32_t variant, uint64_t seed) {
  const int32_t source = variant;
  Random r(seed);
  Case c;
  c.name = std::string(tsr_dtype_name(key)) + " " + layout_name(layout);
  const int k = tsr_op_kind(op);
  const int32_t out_dt = output_dtype(op, key);
  const bool floating = tsr_dtype_is_floating(key) != 0;
  auto shape_of = [&](std::vector<int64_t> s) {
    if (layout == Layout::Scalar) return std::vector<int64_t>{};
    if (layout == Layout::Empty) s[0] = 0;
    return s;
  };
  const Layout out_layout = layout == Layout::Expanded ? Layout::Contiguous : layout;
  switch (k) {
    case TSR_OP_KIND_FILL:
      c.out = make_operand(out_dt, shape_of({5, 7}), out_layout, true, r, Domain::General);
      c.scalars = {key == TSR_BOOL ? scalar_int(1) : floating ? scalar_float(2.5) : scalar_int(7)};
      break;
    case TSR_OP_KIND_COPY:
      if (source != key) c.name += std::string(" from ") + tsr_dtype_name(source);
      c.inputs.push_back(make_operand(source, shape_of({5, 7}), layout, false, r, Domain::General));
      write_cast_probes(c.inputs.back().bytes, source);  // Note [Cast probes]
      c.out = make_operand(out_dt, shape_of({5, 7}), out_layout, true, r, Domain::General);
      c.tolerance_scale = 0;  // a cast is exact
      break;
    case TSR_OP_KIND_BINARY:
    case TSR_OP_KIND_COMPARE:
    case TSR_OP_KIND_UNARY:
    case TSR_OP_KIND_WHERE:
    case TSR_OP_KIND_CLAMP: {
      const int n = tsr_op_arity(op);
      for (int i = 0; i < n; ++i) {
        const int32_t dt = k == TSR_OP_KIND_WHERE && i == 0 ? TSR_BOOL : key;
        c.inputs.push_back(make_operand(dt, shape_of({5, 7}), layout, false, r, domain_of(op, i)));
      }
      c.out = make_operand(out_dt, shape_of({5, 7}), out_layout, true, r, Domain::General);
      if (op == TSR_OP_POW || k == TSR_OP_KIND_UNARY) c.tolerance_scale = 4;
      break;
    }
    case TSR_OP_KIND_REDUCE: {
      std::vector<int64_t> in_shape = shape_of({5, 7}), out_shape = in_shape;
      if (layout == Layout::AllDims) out_shape = {1, 1};
      else if (layout == Layout::Empty) out_shape = {1, 7};  // reduce the empty dim: sum 0, mean NaN
      else if (!out_shape.empty()) out_shape[1] = 1;
      const Layout in_layout = layout == Layout::AllDims ? Layout::Contiguous : layout;
      c.inputs.push_back(make_operand(key, in_shape, in_layout, false, r, Domain::General));
      c.out = make_operand(out_dt, out_shape, layout == Layout::Sliced ? Layout::Sliced : Layout::Contiguous, true, r,
                           Domain::General);
      if (op == TSR_OP_ARGMAX || op == TSR_OP_ARGMIN)
        c.params = layout == Layout::AllDims || layout == Layout::Scalar ? std::vector<int64_t>{1, 0}
                                                                        : std::vector<int64_t>{0, 1};
      if (op == TSR_OP_VAR || op == TSR_OP_STD) c.scalars = {scalar_float(1)};
      if (op == TSR_OP_PROD) {  // keep products of 7 in range: values in [-2, 2]
        c.inputs.back() = make_operand(key, in_shape, in_layout, false, r, Domain::Small);
      }
      c.tolerance_scale = 10;
      break;
    }
    case TSR_OP_KIND_LINALG:
      build_linalg_case(c, op, key, layout, r);
      break;
    case TSR_OP_KIND_MATMUL: {
      std::vector<int64_t> a = {5, 6}, b = {6, 7}, o = {5, 7};
      if (layout == Layout::Empty) a[1] = b[0] = 0;  // k = 0: the output is all zeros
      if (layout == Layout::Batched || layout == Layout::Expanded) {
        a.insert(a.begin(), 3);
        b.insert(b.begin(), 3);
        o.insert(o.begin(), 3);
      }
      const Layout in_layout = layout == Layout::Empty || layout == Layout::Batched ? Layout::Contiguous : layout;
      c.inputs.push_back(make_operand(key, a, in_layout, false, r, Domain::General));
      c.inputs.push_back(make_operand(key, b, layout == Layout::Expanded ? Layout::Contiguous : in_layout, false, r,
                                      Domain::General));
      c.out = make_operand(out_dt, o, layout == Layout::Sliced ? Layout::Sliced : Layout::Contiguous, true, r,
                           Domain::General);
      c.params = {0};
      c.tolerance_scale = 10;
      break;
    }
    case TSR_OP_KIND_ARANGE:
      c.out = make_operand(out_dt, shape_of({37}), layout, true, r, Domain::General);
      c.scalars = floating ? std::vector<tsr_scalar>{scalar_float(1.5), scalar_float(0.25)}
                           : std::vector<tsr_scalar>{scalar_int(3), scalar_int(2)};
      break;
    case TSR_OP_KIND_LINSPACE:
      c.out = make_operand(out_dt, shape_of({37}), layout, true, r, Domain::General);
      c.scalars = floating ? std::vector<tsr_scalar>{scalar_float(-1), scalar_float(2)}
                           : std::vector<tsr_scalar>{scalar_float(-5), scalar_float(67)};
      break;
    case TSR_OP_KIND_MATH:
      c.name += std::string(" ") + tsr_math_fn_name(variant);
      c.inputs.push_back(make_operand(key, shape_of({5, 7}), layout, false, r, Domain::General));
      c.out = make_operand(out_dt, shape_of({5, 7}), out_layout, true, r, Domain::General);
      c.params = {variant};
      c.tolerance_scale = 4;
      break;
    case TSR_OP_KIND_SCAN: {
      const int64_t dim = layout == Layout::Transposed ? 0 : 1;
      c.name += " dim " + std::to_string(dim);
      c.inputs.push_back(make_operand(key, shape_of({5, 7}), layout, false, r, Domain::Small));
      c.out = make_operand(out_dt, shape_of({5, 7}), out_layout, true, r, Domain::General);
      c.params = {dim};
      c.tolerance_scale = 10;
      break;
    }
    case TSR_OP_KIND_GATHER: {
      // x (5, 7), index (5, 4) in [-7, 7) along dim 1; Expanded: index broadcast along dim 0.
      c.inputs.push_back(make_operand(key, {5, 7}, layout == Layout::Expanded ? Layout::Contiguous : layout, false, r,
                                      Domain::General));
      c.inputs.push_back(make_operand(TSR_INT64, {5, 4}, layout, false, r, Domain::General));
      write_indices(c.inputs.back(), r, -7, 6);
      c.out = make_operand(out_dt, {5, 4}, out_layout, true, r, Domain::General);
      c.params = {1};
      c.tolerance_scale = 0;
      break;
    }
    case TSR_OP_KIND_SCATTER: {
      // out (5, 7) read and written; index (5, 7): a permutation of 0..6 per
      // row (unique targets: the result does not depend on the order); src (5, 7).
      c.name += variant == 0 ? " store" : " add";
      c.inputs.push_back(make_operand(TSR_INT64, {5, 7}, Layout::Contiguous, false, r, Domain::General));
      for (int64_t row = 0; row < 5; ++row) {
        int64_t perm[7] = {0, 1, 2, 3, 4, 5, 6};
        for (int64_t i = 6; i > 0; --i) std::swap(perm[i], perm[r.between(0, static_cast<int>(i))]);
        for (int64_t col = 0; col < 7; ++col) {
          const int64_t v = perm[col] - (col % 2 == 0 ? 7 : 0);  // negative indices too
          std::memcpy(c.inputs.back().bytes.data() + static_cast<size_t>((kInputOffset + row * 7 + col)) * 8, &v, 8);
        }
      }
      c.inputs.push_back(make_operand(key, {5, 7}, layout, false, r, Domain::Small));
      c.out = make_operand(out_dt, {5, 7}, out_layout, true, r, Domain::General);
      const size_t elem = tsr_dtype_size(out_dt);  // out is read too: its elements get values
      for_each_offset(c.out.desc, [&](int64_t off) {
        tsr_element_from_double(out_dt, c.out.bytes.data() + static_cast<size_t>(off) * elem, draw(r, out_dt, Domain::Small));
      });
      c.params = {1, variant};
      c.tolerance_scale = 0;
      break;
    }
    case TSR_OP_KIND_SORT: {
      c.name += variant == 0 ? " ascending" : " descending";
      c.inputs.push_back(make_operand(key, shape_of({5, 7}), layout, false, r, Domain::Small));
      c.out = make_operand(out_dt, shape_of({5, 7}), out_layout, true, r, Domain::General);
      c.params = {1, variant, 1};  // stable: the reference's order among equals is the contract's
      c.tolerance_scale = 0;
      break;
    }
    case TSR_OP_KIND_SEARCH: {
      // sorted (5, 7), each row 0 0 1 1 2 2 3 (bool: 0 0 0 0 1 1 1), values
      // (5, 4) in Domain::Small: ties with the rows' elements on both sides.
      c.name += variant == 0 ? " left" : " right";
      c.inputs.push_back(make_operand(key, {5, 7}, layout, false, r, Domain::General));  // Expanded: one shared row
      int64_t at = 0;
      const size_t elem = tsr_dtype_size(key);
      for_each_offset(c.inputs.back().desc, [&](int64_t off) {
        const int64_t col = at++ % 7;
        tsr_element_from_double(key, c.inputs.back().bytes.data() + static_cast<size_t>(off) * elem,
                                key == TSR_BOOL ? (col >= 4 ? 1.0 : 0.0) : static_cast<double>(col / 2));
      });
      c.inputs.push_back(make_operand(key, {5, 4}, layout, false, r, Domain::Small));
      c.out = make_operand(out_dt, {5, 4}, out_layout, true, r, Domain::General);
      c.params = {variant};
      c.tolerance_scale = 0;
      break;
    }
    case TSR_OP_KIND_COMPACT: {
      c.inputs.push_back(make_operand(key, {5, 7}, layout, false, r, Domain::Bool));
      int64_t count = 0;
      const size_t elem = tsr_dtype_size(key);
      for_each_offset(c.inputs.back().desc, [&](int64_t off) {
        const unsigned char* p = c.inputs.back().bytes.data() + static_cast<size_t>(off) * elem;
        count += tsr_element_to_double(key, p) != 0 || tsr_element_imag(key, p) != 0;  // a complex value: either part
      });
      c.out = make_operand(out_dt, {count, 2}, Layout::Contiguous, true, r, Domain::General);
      c.tolerance_scale = 0;
      break;
    }
    case TSR_OP_KIND_FFT: {
      // Lines along dim 1 of (5, .) (transposed: dim 0 of (., 5)) of length
      // 12 (variant 0: even, the real transforms' half-length packing) or 7
      // (variant 1: odd and prime; FFT's inverse direction), scaled by 0.5.
      const int64_t n = variant == 0 ? 12 : 7, dim = layout == Layout::Transposed ? 0 : 1;
      c.name += " n " + std::to_string(n) + " dim " + std::to_string(dim) + (op == TSR_OP_FFT && variant == 1 ? " inverse" : "");
      const int64_t in_len = op == TSR_OP_IRFFT ? n / 2 + 1 : n, out_len = op == TSR_OP_RFFT ? n / 2 + 1 : n;
      std::vector<int64_t> in_shape = {5, 5}, out_shape = {5, 5};
      in_shape[static_cast<size_t>(dim)] = in_len;
      out_shape[static_cast<size_t>(dim)] = out_len;
      if (layout == Layout::Empty) in_shape[0] = out_shape[0] = 0;
      c.inputs.push_back(make_operand(key, in_shape, layout == Layout::Empty ? Layout::Contiguous : layout, false, r,
                                      Domain::General));
      c.out = make_operand(out_dt, out_shape, layout == Layout::Sliced ? Layout::Sliced : Layout::Contiguous, true, r,
                           Domain::General);
      c.scalars = {scalar_float(0.5)};
      c.params = {dim, op == TSR_OP_IRFFT ? 1 : op == TSR_OP_FFT ? variant : 0};
      c.tolerance_scale = 10;
      break;
    }
    case TSR_OP_KIND_RANDOM:
      c.out = make_operand(out_dt, layout == Layout::Transposed ? std::vector<int64_t>{25, 40} : std::vector<int64_t>{1000},
                           layout, true, r, Domain::General);
      c.scalars = op == TSR_OP_RAND_NORMAL ? std::vector<tsr_scalar>{scalar_float(0.5), scalar_float(2)}
                                           : std::vector<tsr_scalar>{scalar_float(-1), scalar_float(2)};
      c.params = {1234, 77};
      c.tolerance_scale = 10;
      break;
  }
  return c;
}

// torch.testing.assert_close's default tolerances per dtype.
void tolerances(int32_t dt, double& rtol, double& atol) {
  switch (tsr_dtype_real(dt)) {  // a complex dtype: its parts'
    case TSR_FLOAT16: rtol = 1e-3; atol = 1e-5; break;
    case TSR_BFLOAT16: rtol = 1.6e-2; atol = 1e-5; break;
    case TSR_FLOAT32: rtol = 1.3e-6; atol = 1e-5; break;
    case TSR_FLOAT64: rtol = 1e-7; atol = 1e-7; break;
    default: rtol = 0; atol = 0;
  }
}

// ---- running ----------------------------------------------------------------

// Device copies of a case's operands, freed at scope exit.
class DeviceOperands {
 public:
  DeviceOperands(const PluginHandle& p, int32_t device) : p_(p), device_(device) {}
  DeviceOperands(const DeviceOperands&) = delete;
  DeviceOperands& operator=(const DeviceOperands&) = delete;
  ~DeviceOperands() {
    for (size_t i = 0; i < ptrs_.size(); ++i) p_.device().deallocate(p_.ctx(), device_, ptrs_[i], sizes_[i]);
  }
  // Allocates and uploads; returns the device address.
  tsr_status upload(const Operand& o, void** out) {
    *out = nullptr;
    size_t n = o.bytes.size();
    tsr_status st = p_.device().allocate(p_.ctx(), device_, n, out);
    if (st != TSR_OK) return st;
    ptrs_.push_back(*out);
    sizes_.push_back(n);
    return p_.device().copy_host_to_device(p_.ctx(), device_, *out, o.bytes.data(), n, nullptr);
  }
  tsr_status download(void* ptr, std::vector<unsigned char>& to) {
    return p_.device().copy_device_to_host(p_.ctx(), device_, to.data(), ptr, to.size(), nullptr);
  }

 private:
  const PluginHandle& p_;
  int32_t device_;
  std::vector<void*> ptrs_;
  std::vector<size_t> sizes_;
};

tsr_kernel_fn find_kernel(const PluginHandle& p, int32_t op, int32_t dtype) {
  const tsr_kernel_table& t = p.kernels();
  for (size_t i = 0; i < t.count; ++i)
    if (t.entries[i].op == op && t.entries[i].dtype == dtype) return t.entries[i].fn;
  return nullptr;
}

tsr_kernel_args make_args(int32_t op, int32_t device, const Case& c, std::vector<tsr_tensor_desc>& in,
                          std::vector<const tsr_tensor_desc*>& in_ptrs, std::vector<tsr_tensor_desc>& outs,
                          std::vector<const tsr_tensor_desc*>& more_ptrs) {
  in_ptrs.clear();
  for (const tsr_tensor_desc& d : in) in_ptrs.push_back(&d);
  more_ptrs.clear();
  for (size_t i = 1; i < outs.size(); ++i) more_ptrs.push_back(&outs[i]);
  const tsr_tensor_desc* out = &outs[0];
  tsr_kernel_args a{};
  a.struct_size = TSR_KERNEL_ARGS_STRUCT_SIZE;
  a.op = op;
  a.device_index = device;
  a.inputs = in_ptrs.data();
  a.num_inputs = static_cast<int32_t>(in_ptrs.size());
  a.output = out;
  a.scalars = c.scalars.data();
  a.num_scalars = static_cast<int32_t>(c.scalars.size());
  a.params = c.params.data();
  a.num_params = static_cast<int32_t>(c.params.size());
  a.more_outputs = more_ptrs.empty() ? nullptr : more_ptrs.data();
  a.num_more_outputs = static_cast<int32_t>(more_ptrs.size());
  return a;
}

// The case's outputs: out, then the more outputs.
std::vector<const Operand*> outputs_of(const Case& c) {
  std::vector<const Operand*> o{&c.out};
  for (const Operand& m : c.more) o.push_back(&m);
  return o;
}

// Runs on the reference plugin (host memory); the outputs' bytes come back in `outs`.
std::string run_reference(const PluginHandle& ref, tsr_kernel_fn fn, int32_t op, const Case& c,
                          std::vector<std::vector<unsigned char>>& outs) {
  std::vector<Operand> inputs = c.inputs;  // writable copies
  std::vector<tsr_tensor_desc> in;
  for (Operand& o : inputs) {
    in.push_back(o.desc);
    in.back().data = o.bytes.data();
    in.back().device = tsr_device{TSR_DEVICE_CPU, 0};
  }
  const std::vector<const Operand*> operands = outputs_of(c);
  outs.clear();
  for (const Operand* o : operands) outs.push_back(o->bytes);
  std::vector<tsr_tensor_desc> od;
  for (size_t i = 0; i < operands.size(); ++i) {
    od.push_back(operands[i]->desc);
    od.back().data = outs[i].data();
    od.back().device = tsr_device{TSR_DEVICE_CPU, 0};
  }
  std::vector<const tsr_tensor_desc*> ptrs, more_ptrs;
  tsr_kernel_args a = make_args(op, 0, c, in, ptrs, od, more_ptrs);
  clear_plugin_error();
  tsr_status st = fn(ref.ctx(), &a);
  if (st != TSR_OK) return "the reference failed (status " + std::to_string(st) + "): " + plugin_error();
  return {};
}

// What run_under_test returns, then the plugin's message, for a kernel that
// answered TSR_ERR_UNSUPPORTED: allowed (Note [Kernel contracts]), a skip.
const std::string kDeclined = "declined (TSR_ERR_UNSUPPORTED; the CPU fallback runs it): ";

std::string run_under_test(const PluginHandle& p, tsr_kernel_fn fn, int32_t op, int32_t device, const Case& c,
                           std::vector<std::vector<unsigned char>>& outs) {
  DeviceOperands mem(p, device);
  std::vector<tsr_tensor_desc> in;
  std::vector<void*> in_ptr;
  // A named device type gets its number from the runtime; any dynamic one will do here.
  const int32_t type = p.api().device_type != TSR_DEVICE_UNDEFINED ? p.api().device_type : TSR_DEVICE_DYNAMIC_BASE;
  tsr_device dev{type, device};
  for (const Operand& o : c.inputs) {
    void* ptr = nullptr;
    if (tsr_status st = mem.upload(o, &ptr); st != TSR_OK) return "uploading an input: " + plugin_error();
    in.push_back(o.desc);
    in.back().data = ptr;
    in.back().device = dev;
    in_ptr.push_back(ptr);
  }
  const std::vector<const Operand*> operands = outputs_of(c);
  std::vector<tsr_tensor_desc> od;
  std::vector<void*> out_ptr;
  for (const Operand* o : operands) {
    void* ptr = nullptr;
    if (tsr_status st = mem.upload(*o, &ptr); st != TSR_OK) return "uploading an output: " + plugin_error();
    od.push_back(o->desc);
    od.back().data = ptr;
    od.back().device = dev;
    out_ptr.push_back(ptr);
  }
  std::vector<const tsr_tensor_desc*> ptrs, more_ptrs;
  tsr_kernel_args a = make_args(op, device, c, in, ptrs, od, more_ptrs);
  clear_plugin_error();
  tsr_status st = fn(p.ctx(), &a);
  if (st == TSR_ERR_UNSUPPORTED) return kDeclined + plugin_error();
  if (st != TSR_OK) return "the kernel returned status " + std::to_string(st) + ": " + plugin_error();
  if (p.device().synchronize(p.ctx(), device) != TSR_OK) return "synchronize failed: " + plugin_error();
  outs.clear();
  for (size_t i = 0; i < out_ptr.size(); ++i) {
    outs.push_back(operands[i]->bytes);
    if (mem.download(out_ptr[i], outs.back()) != TSR_OK) return "reading an output back: " + plugin_error();
  }
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    std::vector<unsigned char> now(c.inputs[i].bytes.size());
    if (mem.download(in_ptr[i], now) != TSR_OK) return "reading an input back: " + plugin_error();
    if (now != c.inputs[i].bytes) return "input " + std::to_string(i) + " changed";
  }
  return {};
}

// Compares the two output storages: elements within tolerance, everything
// else still sentinel bytes in both. Returns "" or what differs.
std::string compare_output(const Case& c, const tsr_tensor_desc& d, const std::vector<unsigned char>& got,
                           const std::vector<unsigned char>& want) {
  const size_t elem = tsr_dtype_size(d.dtype);
  std::vector<bool> is_element(got.size() / elem, false);
  double rtol = 0, atol = 0;
  tolerances(d.dtype, rtol, atol);
  rtol *= c.tolerance_scale;
  atol *= c.tolerance_scale;
  std::string first;
  int64_t bad = 0, index = 0;
  for_each_offset(d, [&](int64_t off) {
    is_element[static_cast<size_t>(off)] = true;
    const unsigned char* gp = got.data() + static_cast<size_t>(off) * elem;
    const unsigned char* wp = want.data() + static_cast<size_t>(off) * elem;
    double g = tsr_element_to_double(d.dtype, gp);
    double w = tsr_element_to_double(d.dtype, wp);
    if (c.up_to_sign) g = std::fabs(g), w = std::fabs(w);
    auto near = [&](double x, double y) {
      return x == y || (std::isnan(x) && std::isnan(y)) || (std::isfinite(y) && std::fabs(x - y) <= atol + rtol * std::fabs(y));
    };
    bool ok = near(g, w) && near(tsr_element_imag(d.dtype, gp), tsr_element_imag(d.dtype, wp));
    if (d.dtype == TSR_INT64 || d.dtype == TSR_UINT64) ok = std::memcmp(got.data() + static_cast<size_t>(off) * elem,
                                              want.data() + static_cast<size_t>(off) * elem, elem) == 0;
    if (!ok && bad++ == 0) first = "element " + std::to_string(index) + ": got " + std::to_string(g) + ", expected " + std::to_string(w);
    ++index;
  });
  if (bad > 0) return std::to_string(bad) + " of " + std::to_string(index) + " elements differ; first " + first;
  for (size_t i = 0; i < got.size(); ++i) {
    if (is_element[i / elem]) continue;
    if (got[i] != kSentinel) return "wrote outside the output's elements (byte " + std::to_string(i) + " of the storage)";
    if (want[i] != kSentinel) return "the reference wrote outside the output's elements (byte " + std::to_string(i) + ")";
  }
  return {};
}

// EIG's results in the reference's order and phases (Note [Kernel
// contracts]: both are the library's): each of want's eigenvalues takes the
// nearest unused one of got, with its column of V, and that column is
// turned to the phase want's has at want's largest component. The
// eigenvalues of the case's G are distinct, so a right kernel's results then
// match elementwise; a wrong one's still differ.
void align_eig(const Case& c, std::vector<std::vector<unsigned char>>& got,
               const std::vector<std::vector<unsigned char>>& want) {
  using Z = std::complex<double>;
  const tsr_tensor_desc& wd = c.out.desc;
  const tsr_tensor_desc& vd = c.more[0].desc;
  const int64_t n = wd.shape[wd.ndim - 1];
  const size_t elem = tsr_dtype_size(wd.dtype);
  std::vector<int64_t> woff, voff;
  for_each_offset(wd, [&](int64_t off) { woff.push_back(off); });
  for_each_offset(vd, [&](int64_t off) { voff.push_back(off); });
  auto read = [&](const std::vector<unsigned char>& bytes, int64_t off) {
    const unsigned char* p = bytes.data() + static_cast<size_t>(off) * elem;
    return Z(tsr_element_to_double(wd.dtype, p), tsr_element_imag(wd.dtype, p));
  };
  auto write = [&](std::vector<unsigned char>& bytes, int64_t off, Z z) {
    unsigned char* p = bytes.data() + static_cast<size_t>(off) * elem;
    if (wd.dtype == TSR_COMPLEX64) {
      const float parts[2] = {static_cast<float>(z.real()), static_cast<float>(z.imag())};
      std::memcpy(p, parts, sizeof parts);
    } else {
      const double parts[2] = {z.real(), z.imag()};
      std::memcpy(p, parts, sizeof parts);
    }
  };
  for (size_t b = 0; n > 0 && (b + 1) * static_cast<size_t>(n) <= woff.size(); ++b) {
    const auto at = [&](int64_t j) { return woff[b * static_cast<size_t>(n) + static_cast<size_t>(j)]; };
    const auto vat = [&](int64_t r, int64_t j) { return voff[(b * static_cast<size_t>(n) + static_cast<size_t>(r)) * static_cast<size_t>(n) + static_cast<size_t>(j)]; };
    std::vector<Z> w(static_cast<size_t>(n)), v(static_cast<size_t>(n * n));
    for (int64_t j = 0; j < n; ++j) {
      w[static_cast<size_t>(j)] = read(got[0], at(j));
      for (int64_t r = 0; r < n; ++r) v[static_cast<size_t>(r * n + j)] = read(got[1], vat(r, j));
    }
    std::vector<bool> used(static_cast<size_t>(n), false);
    for (int64_t j = 0; j < n; ++j) {
      const Z x = read(want[0], at(j));
      int64_t k = -1;
      for (int64_t i = 0; i < n; ++i)
        if (!used[static_cast<size_t>(i)] && (k < 0 || std::abs(w[static_cast<size_t>(i)] - x) < std::abs(w[static_cast<size_t>(k)] - x))) k = i;
      used[static_cast<size_t>(k)] = true;
      write(got[0], at(j), w[static_cast<size_t>(k)]);
      int64_t top = 0;
      for (int64_t r = 1; r < n; ++r)
        if (std::abs(read(want[1], vat(r, j))) > std::abs(read(want[1], vat(top, j)))) top = r;
      const Z ref = read(want[1], vat(top, j)), mine = v[static_cast<size_t>(top * n + k)];
      const Z turn = std::abs(ref) > 0 && std::abs(mine) > 0 ? (ref / std::abs(ref)) / (mine / std::abs(mine)) : Z(1);
      for (int64_t r = 0; r < n; ++r) write(got[1], vat(r, j), v[static_cast<size_t>(r * n + k)] * turn);
    }
  }
}

// Every output of the case (out, then LINALG's more outputs).
std::string compare(const Case& c, std::vector<std::vector<unsigned char>> got,
                    const std::vector<std::vector<unsigned char>>& want) {
  if (c.up_to_order_and_phase) align_eig(c, got, want);
  const std::vector<const Operand*> outs = outputs_of(c);
  for (size_t i = 0; i < outs.size(); ++i) {
    std::string problem = compare_output(c, outs[i]->desc, got[i], want[i]);
    if (!problem.empty()) return i == 0 ? problem : "more_outputs[" + std::to_string(i - 1) + "]: " + problem;
  }
  return {};
}

}  // namespace

void check_ops(const PluginHandle& p, const PluginHandle& ref, int32_t device, const std::string& only_op, Report& r) {
  const tsr_kernel_table& t = p.kernels();
  uint64_t seed = 1;
  for (int32_t op = 0; op < TSR_OP_COUNT; ++op) {
    const std::string group = tsr_op_name(op);
    if (!only_op.empty() && only_op != group) continue;
    for (int32_t key = 0; key < TSR_DTYPE_COUNT; ++key) {
      tsr_kernel_fn fn = nullptr;
      for (size_t i = 0; i < t.count; ++i)
        if (t.entries[i].op == op && t.entries[i].dtype == key) fn = t.entries[i].fn;
      if (fn == nullptr) continue;
      tsr_kernel_fn ref_fn = find_kernel(ref, op, key);
      if (ref_fn == nullptr) {
        r.skip(group, tsr_dtype_name(key), "the reference has no kernel for this dtype");
        continue;
      }
      for (int32_t variant : variants_of(op, key))
        for (Layout layout : layouts_of(tsr_op_kind(op), op)) {
          Case c = build_case(op, key, layout, variant, seed++);
          std::vector<std::vector<unsigned char>> want, got;
          std::string problem = run_reference(ref, ref_fn, op, c, want);
          if (!problem.empty()) {
            r.skip(group, c.name, problem);
            continue;
          }
          problem = run_under_test(p, fn, op, device, c, got);
          if (problem.rfind(kDeclined, 0) == 0) {  // the contract's way out: the CPU fallback runs it
            r.skip(group, c.name, problem);
            continue;
          }
          if (problem.empty()) problem = compare(c, got, want);
          problem.empty() ? r.pass(group, c.name) : r.fail(group, c.name, problem);
        }
    }
  }
}

}  // namespace tessera::tool
