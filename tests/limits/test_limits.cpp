// SPDX-License-Identifier: Apache-2.0
// The C API at its limits: sizes whose element count or byte size overflows
// 64 bits, dims of size 0, more dims than TSR_MAX_DIMS, negative strides,
// misaligned external memory and NULL arguments. Each is a status and a
// message naming what was wrong (the texts are PyTorch 1.13's where PyTorch
// has one), the out-parameter is left alone, and nothing crashes — the
// sanitizer builds run this too.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"

using tessera::test::cpu;
using tessera::test::runtime;

namespace {

constexpr int64_t k2_32 = int64_t{1} << 32;
constexpr int64_t k2_40 = int64_t{1} << 40;
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

tsr_runtime* rt() { return runtime().get(); }

// A tensor handle owned by the test.
struct Owned {
  tsr_tensor* t = nullptr;
  Owned() = default;
  explicit Owned(tsr_tensor* adopt) : t(adopt) {}
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { tsr_tensor_release(t); }
  operator tsr_tensor*() const { return t; }  // NOLINT: reads like the C API
};

tsr_scalar int_scalar(int64_t v) {
  tsr_scalar s{};
  s.kind = TSR_SCALAR_INT;
  s.i = v;
  s.f = static_cast<double>(v);
  return s;
}

tsr_scalar float_scalar(double v) {
  tsr_scalar s{};
  s.kind = TSR_SCALAR_FLOAT;
  s.f = v;
  return s;
}

// Checks the status and message of the calling thread's last failure.
void check_error(tsr_status got, tsr_status want, const std::string& needle) {
  INFO("message: " << tsr_last_error_message());
  CHECK(std::string(tsr_status_name(got)) == tsr_status_name(want));
  CHECK_THAT(std::string(tsr_last_error_message()), Catch::Contains(needle));
}

// Runs call(&out) and checks it fails as expected without touching `out`.
template <class F>
void expect_fail(F&& call, tsr_status want, const std::string& needle) {
  static int sentinel_cell;
  tsr_tensor* const sentinel = reinterpret_cast<tsr_tensor*>(&sentinel_cell);
  tsr_tensor* out = sentinel;
  tsr_status st = call(&out);
  check_error(st, want, needle);
  CHECK(out == sentinel);
  if (st == TSR_OK && out != sentinel) tsr_tensor_release(out);
}

// Runs call(&out), which must succeed; the caller owns the result.
template <class F>
tsr_tensor* expect_ok(F&& call) {
  tsr_tensor* out = nullptr;
  tsr_status st = call(&out);
  INFO("message: " << tsr_last_error_message());
  REQUIRE(st == TSR_OK);
  REQUIRE(out != nullptr);
  return out;
}

tsr_tensor* make_zeros(std::vector<int64_t> shape, tsr_dtype dtype = TSR_FLOAT32) {
  return expect_ok([&](tsr_tensor** o) {
    return tsr_zeros(rt(), static_cast<int32_t>(shape.size()), shape.data(), dtype, cpu(), o);
  });
}

tsr_tensor* make_ones(std::vector<int64_t> shape, tsr_dtype dtype = TSR_FLOAT32) {
  return expect_ok([&](tsr_tensor** o) {
    return tsr_ones(rt(), static_cast<int32_t>(shape.size()), shape.data(), dtype, cpu(), o);
  });
}

std::vector<int64_t> shape_of(tsr_tensor* t) {
  return std::vector<int64_t>(tsr_tensor_shape(t), tsr_tensor_shape(t) + tsr_tensor_ndim(t));
}

std::vector<int64_t> strides_of(tsr_tensor* t) {
  return std::vector<int64_t>(tsr_tensor_strides(t), tsr_tensor_strides(t) + tsr_tensor_ndim(t));
}

std::vector<double> read_f64(tsr_tensor* t) {
  Owned d(expect_ok([&](tsr_tensor** o) { return tsr_to_dtype(t, TSR_FLOAT64, o); }));
  std::vector<double> v(static_cast<size_t>(tsr_tensor_numel(d)));
  REQUIRE(tsr_read(d, v.data(), v.size() * sizeof(double)) == TSR_OK);
  return v;
}

// Every way to create a tensor from a shape, by name.
struct Creator {
  const char* name;
  tsr_status (*make)(int32_t ndim, const int64_t* shape, tsr_dtype dtype, tsr_tensor** out);
};

const std::vector<Creator>& creators() {
  static const unsigned char host_bytes[64] = {};
  static const std::vector<Creator> all = {
      {"empty", [](int32_t n, const int64_t* s, tsr_dtype d, tsr_tensor** o) { return tsr_empty(rt(), n, s, d, cpu(), o); }},
      {"zeros", [](int32_t n, const int64_t* s, tsr_dtype d, tsr_tensor** o) { return tsr_zeros(rt(), n, s, d, cpu(), o); }},
      {"ones", [](int32_t n, const int64_t* s, tsr_dtype d, tsr_tensor** o) { return tsr_ones(rt(), n, s, d, cpu(), o); }},
      {"full", [](int32_t n, const int64_t* s, tsr_dtype d, tsr_tensor** o) {
         return tsr_full(rt(), n, s, int_scalar(7), d, cpu(), o);
       }},
      {"rand", [](int32_t n, const int64_t* s, tsr_dtype d, tsr_tensor** o) { return tsr_rand(rt(), n, s, d, cpu(), o); }},
      {"randn", [](int32_t n, const int64_t* s, tsr_dtype d, tsr_tensor** o) { return tsr_randn(rt(), n, s, d, cpu(), o); }},
      {"from_host", [](int32_t n, const int64_t* s, tsr_dtype d, tsr_tensor** o) {
         return tsr_from_host(rt(), host_bytes, n, s, d, cpu(), o);
       }},
  };
  return all;
}

}  // namespace

TEST_CASE("element counts and byte sizes that overflow 64 bits are errors", "[limits]") {
  struct Case {
    std::vector<int64_t> shape;
    tsr_dtype dtype;
    const char* needle;
  };
  const std::vector<Case> cases = {
      // The element count overflows.
      {{k2_32, k2_32}, TSR_FLOAT32, "Storage size calculation overflowed with sizes=[4294967296, 4294967296]"},
      {{kMax64, 2}, TSR_FLOAT64, "Storage size calculation overflowed with sizes=[9223372036854775807, 2]"},
      // PyTorch counts an overflow anywhere in the product, even before a 0.
      {{k2_40, k2_40, 0}, TSR_FLOAT32,
       "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776, 0]"},
      // The element count fits, the byte size does not.
      {{int64_t{1} << 61}, TSR_FLOAT32, "Storage size calculation overflowed with sizes=[2305843009213693952]"},
      {{int64_t{1} << 60}, TSR_FLOAT64, "Storage size calculation overflowed with sizes=[1152921504606846976]"},
  };
  for (const Creator& c : creators()) {
    for (const Case& k : cases) {
      INFO(c.name << " " << k.needle);
      expect_fail([&](tsr_tensor** o) { return c.make(static_cast<int32_t>(k.shape.size()), k.shape.data(), k.dtype, o); },
                  TSR_ERR_INVALID_ARGUMENT, k.needle);
    }
  }

  SECTION("a byte size that fits int64 but no device can hold is out of memory, naming the bytes") {
    const int64_t huge = int64_t{1} << 62;
    expect_fail([&](tsr_tensor** o) { return tsr_empty(rt(), 1, &huge, TSR_UINT8, cpu(), o); }, TSR_ERR_OUT_OF_MEMORY,
                "allocating 4611686018427387904 bytes on cpu failed");
  }

  SECTION("views whose size would overflow") {
    Owned one(make_ones({1}));
    const int64_t big[2] = {k2_40, k2_40};
    expect_fail([&](tsr_tensor** o) { return tsr_expand(one, 2, big, o); }, TSR_ERR_INVALID_ARGUMENT,
                "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]");
    const int64_t zero_strides[2] = {0, 0};
    expect_fail([&](tsr_tensor** o) { return tsr_as_strided(one, 2, big, zero_strides, 0, o); },
                TSR_ERR_INVALID_ARGUMENT, "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]");
    const int64_t three[2] = {3, 3}, huge_strides[2] = {int64_t{1} << 62, int64_t{1} << 62};
    expect_fail([&](tsr_tensor** o) { return tsr_as_strided(one, 2, three, huge_strides, 0, o); },
                TSR_ERR_INVALID_ARGUMENT,
                "Storage size calculation overflowed with sizes=[3, 3] and strides=[4611686018427387904, "
                "4611686018427387904]");
    // An offset far past the storage, and one whose byte count overflows.
    const int64_t two = 2, unit = 1;
    expect_fail([&](tsr_tensor** o) { return tsr_as_strided(one, 1, &two, &unit, int64_t{1} << 60, o); },
                TSR_ERR_INVALID_ARGUMENT,
                "as_strided: sizes [2], strides [1], storage offset 1152921504606846976, and itemsize 4 requiring a "
                "storage size of 4611686018427387912 are out of bounds for storage of size 4");
    expect_fail([&](tsr_tensor** o) { return tsr_as_strided(one, 1, &two, &unit, kMax64 - 4, o); },
                TSR_ERR_INVALID_ARGUMENT,
                "as_strided: storage offset 9223372036854775803 with sizes [2], strides [1] and itemsize 4 overflows "
                "a 64-bit byte size");

    Owned empty(make_zeros({0}));
    const int64_t big0[3] = {k2_40, k2_40, 0};
    expect_fail([&](tsr_tensor** o) { return tsr_view(empty, 3, big0, o); }, TSR_ERR_SHAPE,
                "shape '[1099511627776, 1099511627776, 0]' is invalid for input of size 0");
    expect_fail([&](tsr_tensor** o) { return tsr_reshape(empty, 3, big0, o); }, TSR_ERR_SHAPE,
                "shape '[1099511627776, 1099511627776, 0]' is invalid for input of size 0");

    // A slice step whose stride overflows.
    Owned m(make_zeros({4, 5}));
    expect_fail([&](tsr_tensor** o) { return tsr_slice(m, 0, 0, 4, kMax64, o); }, TSR_ERR_INVALID_ARGUMENT,
                "slice step 9223372036854775807 overflows the stride");
  }

  SECTION("ranges with too many elements") {
    expect_fail([&](tsr_tensor** o) {
      return tsr_arange(rt(), int_scalar(0), int_scalar(kMax64), int_scalar(1), TSR_INT64, cpu(), o);
    }, TSR_ERR_INVALID_ARGUMENT, "Storage size calculation overflowed with sizes=[9223372036854775807]");
    expect_fail([&](tsr_tensor** o) {
      return tsr_arange(rt(), float_scalar(0), float_scalar(1e30), float_scalar(1), TSR_FLOAT32, cpu(), o);
    }, TSR_ERR_INVALID_ARGUMENT, "arange: too many elements");
    expect_fail([&](tsr_tensor** o) { return tsr_linspace(rt(), 0, 1, int64_t{1} << 62, TSR_FLOAT32, cpu(), o); },
                TSR_ERR_INVALID_ARGUMENT, "Storage size calculation overflowed with sizes=[4611686018427387904]");
  }
}

TEST_CASE("dims of size 0 make empty tensors; what cannot work on them is a clear error", "[limits]") {
  Owned t(make_zeros({3, 0, 2}));
  CHECK(tsr_tensor_ndim(t) == 3);
  CHECK(tsr_tensor_numel(t) == 0);
  CHECK(shape_of(t) == std::vector<int64_t>{3, 0, 2});
  CHECK(strides_of(t) == std::vector<int64_t>{2, 2, 1});  // torch.zeros(3, 0, 2).stride()
  CHECK(tsr_tensor_is_contiguous(t) == 1);
  CHECK(tsr_read(t, nullptr, 0) == TSR_OK);  // nothing to read
  char* text = nullptr;
  REQUIRE(tsr_format(t, &text) == TSR_OK);
  CHECK(std::string(text) == "tensor([], size=(3, 0, 2))");
  tsr_string_free(text);

  SECTION("reductions: sum is 0 and mean is nan; max and argmax need a non-empty dim") {
    Owned s(expect_ok([&](tsr_tensor** o) { return tsr_reduce(TSR_OP_SUM, t, 0, nullptr, 0, o); }));
    CHECK(tsr_tensor_ndim(s) == 0);
    CHECK(read_f64(s) == std::vector<double>{0.0});
    Owned m(expect_ok([&](tsr_tensor** o) { return tsr_reduce(TSR_OP_MEAN, t, 0, nullptr, 0, o); }));
    CHECK(std::isnan(read_f64(m).at(0)));
    const int32_t dim1 = 1, dim0 = 0;
    Owned s1(expect_ok([&](tsr_tensor** o) { return tsr_reduce(TSR_OP_SUM, t, 1, &dim1, 0, o); }));
    CHECK(shape_of(s1) == std::vector<int64_t>{3, 2});
    CHECK(read_f64(s1) == std::vector<double>(6, 0.0));
    Owned m0(expect_ok([&](tsr_tensor** o) { return tsr_reduce(TSR_OP_MAX, t, 1, &dim0, 0, o); }));
    CHECK(shape_of(m0) == std::vector<int64_t>{0, 2});
    expect_fail([&](tsr_tensor** o) { return tsr_reduce(TSR_OP_MAX, t, 0, nullptr, 0, o); }, TSR_ERR_INDEX,
                "max(): Expected reduction dim to be specified for input.numel() == 0.");
    expect_fail([&](tsr_tensor** o) { return tsr_reduce(TSR_OP_ARGMAX, t, 1, &dim1, 0, o); }, TSR_ERR_INDEX,
                "argmax(): Expected reduction dim 1 to have non-zero size.");
    expect_fail([&](tsr_tensor** o) { return tsr_reduce(TSR_OP_MIN, t, 1, &dim1, 1, o); }, TSR_ERR_INDEX,
                "min(): Expected reduction dim 1 to have non-zero size.");
  }

  SECTION("views: -1 is ambiguous, an index into a size-0 dim is out of range") {
    const int64_t ambiguous[2] = {-1, 0}, flat = -1;
    expect_fail([&](tsr_tensor** o) { return tsr_reshape(t, 2, ambiguous, o); }, TSR_ERR_SHAPE,
                "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified dimension size -1 "
                "can be any value and is ambiguous");
    Owned v(expect_ok([&](tsr_tensor** o) { return tsr_view(t, 1, &flat, o); }));
    CHECK(shape_of(v) == std::vector<int64_t>{0});
    expect_fail([&](tsr_tensor** o) { return tsr_select(t, 1, 0, o); }, TSR_ERR_INDEX,
                "index 0 is out of bounds for dimension 1 with size 0");
    const int64_t grow[3] = {3, 5, 2};
    expect_fail([&](tsr_tensor** o) { return tsr_expand(t, 3, grow, o); }, TSR_ERR_SHAPE,
                "The expanded size of the tensor (5) must match the existing size (0) at non-singleton dimension 1");
    Owned sl(expect_ok([&](tsr_tensor** o) { return tsr_slice(t, 0, 1, TSR_SLICE_NONE, 1, o); }));
    CHECK(shape_of(sl) == std::vector<int64_t>{2, 0, 2});
    // The storage of an empty tensor holds nothing: any element is outside it.
    const int64_t one = 1, unit = 1;
    expect_fail([&](tsr_tensor** o) { return tsr_as_strided(t, 1, &one, &unit, 0, o); }, TSR_ERR_INVALID_ARGUMENT,
                "requiring a storage size of 4 are out of bounds for storage of size 0");
  }

  SECTION("item needs one element") {
    tsr_scalar s{};
    check_error(tsr_item(t, &s), TSR_ERR_INVALID_ARGUMENT, "a Tensor with 0 elements cannot be converted to Scalar");
  }

  SECTION("ops: broadcasting keeps 0, matmul over an empty inner dim is zeros") {
    Owned b(make_ones({3, 1, 2}));
    Owned sum(expect_ok([&](tsr_tensor** o) { return tsr_binary(TSR_OP_ADD, t, b, o); }));
    CHECK(shape_of(sum) == std::vector<int64_t>{3, 0, 2});
    Owned c(make_ones({3, 4, 2}));
    expect_fail([&](tsr_tensor** o) { return tsr_binary(TSR_OP_ADD, t, c, o); }, TSR_ERR_SHAPE,
                "The size of tensor a (0) must match the size of tensor b (4) at non-singleton dimension 1");
    Owned x(make_ones({3, 0})), y(make_ones({0, 4}));
    Owned p(expect_ok([&](tsr_tensor** o) { return tsr_matmul(x, y, o); }));
    CHECK(shape_of(p) == std::vector<int64_t>{3, 4});
    CHECK(read_f64(p) == std::vector<double>(12, 0.0));
  }
}

TEST_CASE("more dims than TSR_MAX_DIMS is an error; TSR_MAX_DIMS itself works", "[limits]") {
  const std::vector<int64_t> ones17(TSR_MAX_DIMS + 1, 1);
  const std::vector<int64_t> ones16(TSR_MAX_DIMS, 1);
  const std::string too_many = "tensors have at most 16 dims, got 17";
  for (const Creator& c : creators()) {
    INFO(c.name);
    expect_fail([&](tsr_tensor** o) { return c.make(TSR_MAX_DIMS + 1, ones17.data(), TSR_FLOAT32, o); },
                TSR_ERR_INVALID_ARGUMENT, too_many);
    expect_fail([&](tsr_tensor** o) { return c.make(-1, ones17.data(), TSR_FLOAT32, o); }, TSR_ERR_INVALID_ARGUMENT,
                "ndim must be non-negative, got -1");
    // ndim is checked before the shape is read: a huge ndim reads nothing.
    expect_fail([&](tsr_tensor** o) { return c.make(std::numeric_limits<int32_t>::max(), ones17.data(), TSR_FLOAT32, o); },
                TSR_ERR_INVALID_ARGUMENT, "tensors have at most 16 dims, got 2147483647");
    Owned ok(expect_ok([&](tsr_tensor** o) { return c.make(TSR_MAX_DIMS, ones16.data(), TSR_FLOAT32, o); }));
    CHECK(tsr_tensor_ndim(ok) == TSR_MAX_DIMS);
  }

  Owned t16(make_ones(ones16));
  expect_fail([&](tsr_tensor** o) { return tsr_unsqueeze(t16, 0, o); }, TSR_ERR_INVALID_ARGUMENT, too_many);
  expect_fail([&](tsr_tensor** o) { return tsr_view(t16, TSR_MAX_DIMS + 1, ones17.data(), o); },
              TSR_ERR_INVALID_ARGUMENT, too_many);
  expect_fail([&](tsr_tensor** o) { return tsr_reshape(t16, TSR_MAX_DIMS + 1, ones17.data(), o); },
              TSR_ERR_INVALID_ARGUMENT, too_many);
  expect_fail([&](tsr_tensor** o) { return tsr_expand(t16, TSR_MAX_DIMS + 1, ones17.data(), o); },
              TSR_ERR_INVALID_ARGUMENT, too_many);
  const std::vector<int64_t> strides17(TSR_MAX_DIMS + 1, 1);
  expect_fail([&](tsr_tensor** o) { return tsr_as_strided(t16, TSR_MAX_DIMS + 1, ones17.data(), strides17.data(), 0, o); },
              TSR_ERR_INVALID_ARGUMENT, too_many);
  std::vector<int32_t> perm17(TSR_MAX_DIMS + 1);
  for (size_t i = 0; i < perm17.size(); ++i) perm17[i] = static_cast<int32_t>(i);
  expect_fail([&](tsr_tensor** o) { return tsr_permute(t16, TSR_MAX_DIMS + 1, perm17.data(), o); },
              TSR_ERR_INVALID_ARGUMENT, "input.dim() = 16 is not equal to len(dims) = 17");
  // 17 reduction dims over 16 dims: one must repeat.
  perm17[TSR_MAX_DIMS] = 0;
  expect_fail([&](tsr_tensor** o) { return tsr_reduce(TSR_OP_SUM, t16, TSR_MAX_DIMS + 1, perm17.data(), 0, o); },
              TSR_ERR_INVALID_ARGUMENT, "dim 0 appears multiple times in the list of dims");
  // Two 16-d operands broadcast to 16 dims, the most there can be.
  Owned sum(expect_ok([&](tsr_tensor** o) { return tsr_binary(TSR_OP_ADD, t16, t16, o); }));
  CHECK(tsr_tensor_ndim(sum) == TSR_MAX_DIMS);

  int32_t out_ndim = -5;
  int64_t out_shape[TSR_MAX_DIMS] = {};
  check_error(tsr_broadcast_shapes(TSR_MAX_DIMS + 1, ones17.data(), 1, ones17.data(), &out_ndim, out_shape),
              TSR_ERR_INVALID_ARGUMENT, too_many);
  CHECK(out_ndim == -5);

  int calls = 0;
  auto count = [](void* ctx, void*) { ++*static_cast<int*>(ctx); };
  alignas(8) static float cell[1];
  expect_fail([&](tsr_tensor** o) {
    return tsr_from_external(rt(), cell, TSR_MAX_DIMS + 1, ones17.data(), nullptr, 0, TSR_FLOAT32, cpu(), count,
                             &calls, o);
  }, TSR_ERR_INVALID_ARGUMENT, too_many);
  CHECK(calls == 1);
}

TEST_CASE("negative strides and offsets are refused", "[limits]") {
  Owned t(make_zeros({4}));
  const int64_t two = 2, back = -1;
  expect_fail([&](tsr_tensor** o) { return tsr_as_strided(t, 1, &two, &back, 0, o); }, TSR_ERR_INVALID_ARGUMENT,
              "as_strided: Negative strides are not supported at the moment, got strides: [-1]");
  const int64_t shape2[2] = {2, 2}, mixed[2] = {2, -1};
  expect_fail([&](tsr_tensor** o) { return tsr_as_strided(t, 2, shape2, mixed, 0, o); }, TSR_ERR_INVALID_ARGUMENT,
              "got strides: [2, -1]");
  const int64_t unit = 1;
  expect_fail([&](tsr_tensor** o) { return tsr_as_strided(t, 1, &two, &unit, -1, o); }, TSR_ERR_INVALID_ARGUMENT,
              "Tensor: invalid storage offset -1");
  const int64_t negative_size = -2;
  expect_fail([&](tsr_tensor** o) { return tsr_as_strided(t, 1, &negative_size, &unit, 0, o); },
              TSR_ERR_INVALID_ARGUMENT, "Trying to create tensor with negative dimension -2: [-2]");
  // Non-negative but reaching past the storage (PyTorch counts in bytes).
  const int64_t three = 3;
  expect_fail([&](tsr_tensor** o) { return tsr_as_strided(t, 1, &three, &two, 0, o); }, TSR_ERR_INVALID_ARGUMENT,
              "as_strided: sizes [3], strides [2], storage offset 0, and itemsize 4 requiring a storage size of 20 "
              "are out of bounds for storage of size 16");
  // A reversed slice would need a negative stride: steps must be positive.
  expect_fail([&](tsr_tensor** o) { return tsr_slice(t, 0, TSR_SLICE_NONE, TSR_SLICE_NONE, -1, o); },
              TSR_ERR_INVALID_ARGUMENT, "slice step must be positive");
  expect_fail([&](tsr_tensor** o) { return tsr_slice(t, 0, TSR_SLICE_NONE, TSR_SLICE_NONE, 0, o); },
              TSR_ERR_INVALID_ARGUMENT, "slice step must be positive");
  // The same rules for external memory (whose deleter then runs at once).
  int calls = 0;
  auto count = [](void* ctx, void*) { ++*static_cast<int*>(ctx); };
  alignas(8) static float cells[4];
  expect_fail([&](tsr_tensor** o) {
    return tsr_from_external(rt(), cells, 1, &two, &back, 3, TSR_FLOAT32, cpu(), count, &calls, o);
  }, TSR_ERR_INVALID_ARGUMENT, "negative stride -1 at dim 0");
  CHECK(calls == 1);
}

TEST_CASE("misaligned external memory is refused, naming the dtype's alignment", "[limits]") {
  alignas(16) static unsigned char bytes[64];
  struct Case {
    tsr_dtype dtype;
    size_t misalign;
    const char* needle;  // empty: the wrap must succeed
  };
  const std::vector<Case> cases = {
      {TSR_FLOAT32, 1, "is not aligned to the 4-byte elements of float32"},
      {TSR_FLOAT32, 2, "is not aligned to the 4-byte elements of float32"},
      {TSR_FLOAT32, 3, "is not aligned to the 4-byte elements of float32"},
      {TSR_FLOAT64, 4, "is not aligned to the 8-byte elements of float64"},
      {TSR_INT64, 2, "is not aligned to the 8-byte elements of int64"},
      {TSR_INT16, 1, "is not aligned to the 2-byte elements of int16"},
      {TSR_FLOAT16, 1, "is not aligned to the 2-byte elements of float16"},
      {TSR_BFLOAT16, 3, "is not aligned to the 2-byte elements of bfloat16"},
      {TSR_INT32, 4, ""},
      {TSR_INT16, 2, ""},
      {TSR_UINT8, 1, ""},
      {TSR_BOOL, 3, ""},
  };
  const int64_t two = 2;
  for (const Case& c : cases) {
    INFO(tsr_dtype_name(c.dtype) << " at +" << c.misalign);
    int calls = 0;
    void* seen = nullptr;
    struct Ctx {
      int* calls;
      void** seen;
    } ctx{&calls, &seen};
    auto deleter = [](void* p, void* data) {
      auto* x = static_cast<Ctx*>(p);
      ++*x->calls;
      *x->seen = data;
    };
    void* data = bytes + c.misalign;
    if (*c.needle != '\0') {
      expect_fail([&](tsr_tensor** o) {
        return tsr_from_external(rt(), data, 1, &two, nullptr, 0, c.dtype, cpu(), deleter, &ctx, o);
      }, TSR_ERR_INVALID_ARGUMENT, c.needle);
    } else {
      Owned ok(expect_ok([&](tsr_tensor** o) {
        return tsr_from_external(rt(), data, 1, &two, nullptr, 0, c.dtype, cpu(), deleter, &ctx, o);
      }));
      CHECK(tsr_tensor_storage_data(ok) == data);
      CHECK(calls == 0);
    }
    if (*c.needle != '\0') CHECK(calls == 1);
    if (*c.needle != '\0') CHECK(seen == data);
  }
}

TEST_CASE("NULL arguments are errors, not crashes", "[limits]") {
  Owned t(make_ones({2, 3}));
  const int64_t shape[2] = {3, 2};
  expect_fail([&](tsr_tensor** o) { return tsr_empty(rt(), 2, nullptr, TSR_FLOAT32, cpu(), o); },
              TSR_ERR_INVALID_ARGUMENT, "shape is NULL");
  expect_fail([&](tsr_tensor** o) { return tsr_from_host(rt(), nullptr, 2, shape, TSR_FLOAT32, cpu(), o); },
              TSR_ERR_INVALID_ARGUMENT, "host data is NULL");
  expect_fail([&](tsr_tensor** o) { return tsr_view(t, 2, nullptr, o); }, TSR_ERR_INVALID_ARGUMENT, "shape is NULL");
  expect_fail([&](tsr_tensor** o) { return tsr_reshape(t, 2, nullptr, o); }, TSR_ERR_INVALID_ARGUMENT, "shape is NULL");
  expect_fail([&](tsr_tensor** o) { return tsr_expand(t, 2, nullptr, o); }, TSR_ERR_INVALID_ARGUMENT, "shape is NULL");
  const int64_t strides[2] = {1, 2};
  expect_fail([&](tsr_tensor** o) { return tsr_as_strided(t, 2, nullptr, strides, 0, o); }, TSR_ERR_INVALID_ARGUMENT,
              "shape is NULL");
  expect_fail([&](tsr_tensor** o) { return tsr_as_strided(t, 2, shape, nullptr, 0, o); }, TSR_ERR_INVALID_ARGUMENT,
              "strides is NULL");
  expect_fail([&](tsr_tensor** o) { return tsr_permute(t, 2, nullptr, o); }, TSR_ERR_INVALID_ARGUMENT, "dims is NULL");
  expect_fail([&](tsr_tensor** o) { return tsr_transpose(nullptr, 0, 1, o); }, TSR_ERR_INVALID_ARGUMENT,
              "tensor is NULL");
  expect_fail([&](tsr_tensor** o) { return tsr_binary(TSR_OP_ADD, t, nullptr, o); }, TSR_ERR_INVALID_ARGUMENT,
              "b is NULL");
  check_error(tsr_view(t, 2, shape, nullptr), TSR_ERR_INVALID_ARGUMENT, "the output pointer is NULL");
  check_error(tsr_read(t, nullptr, 24), TSR_ERR_INVALID_ARGUMENT, "destination is NULL");
  check_error(tsr_read(t, nullptr, 8), TSR_ERR_INVALID_ARGUMENT, "destination holds 8 bytes; the tensor needs 24");
  int32_t n = 0;
  int64_t out_shape[TSR_MAX_DIMS];
  check_error(tsr_broadcast_shapes(2, nullptr, 2, shape, &n, out_shape), TSR_ERR_INVALID_ARGUMENT, "shape is NULL");
  check_error(tsr_broadcast_shapes(2, shape, 2, nullptr, &n, out_shape), TSR_ERR_INVALID_ARGUMENT, "shape is NULL");
  // Zero dims need no shape.
  Owned one(make_ones({1, 1}));
  Owned scalar(expect_ok([&](tsr_tensor** o) { return tsr_view(one, 0, nullptr, o); }));
  CHECK(tsr_tensor_ndim(scalar) == 0);
}
