// SPDX-License-Identifier: Apache-2.0
// uint16, uint32 and uint64 (ABI 1.5) where a double cannot tell right from
// wrong: uint64 values from 2^63 on and wrap-around, read back as integers
// and checked against uint64 arithmetic on the host and against values
// printed by NumPy 1.24 (the other suites run them with every op and layout
// through the float64 reference). Also the promotion that PyTorch lacks and
// NumPy gives, SUM's uint64 result, fill's range checks, item, printing
// and assert_close.
#include <cstring>
#include <limits>

#include "ops_common.hpp"

using namespace ops;

namespace {

constexpr uint64_t kTop = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kHalf = uint64_t{1} << 63;

// v as a 1-d tensor, or of `shape` ({} for 0-d: one value).
template <class T> Tensor host(const std::vector<T>& v, tsr_dtype d) {
  return Tensor::from_host(runtime(), v, {static_cast<int64_t>(v.size())}, d, cpu());
}
template <class T> Tensor host(const std::vector<T>& v, tsr_dtype d, const Shape& shape) {
  return Tensor::from_host(runtime(), v, shape, d, cpu());
}
Tensor u64(const std::vector<uint64_t>& v) { return host(v, TSR_UINT64); }
Tensor u64(const std::vector<uint64_t>& v, const Shape& shape) { return host(v, TSR_UINT64, shape); }

// Wrapping uint64 power by repeated squaring: the host reference.
uint64_t power(uint64_t base, uint64_t exponent) {
  uint64_t r = 1;
  for (; exponent != 0; exponent >>= 1, base *= base)
    if (exponent & 1) r *= base;
  return r;
}

}  // namespace

TEST_CASE("unsigned: uint64 arithmetic wraps modulo 2^64 above 2^63 too") {
  const std::vector<uint64_t> a{kTop, kHalf + 5, 3, kHalf, 0, 12345678901234567890ull};
  const std::vector<uint64_t> b{2, 3, kTop, kHalf, 1, 41};
  Tensor x = u64(a), y = u64(b);
  std::vector<uint64_t> add, sub, mul, pow, mx, mn, neg;
  std::vector<uint8_t> lt, ge;
  for (size_t i = 0; i < a.size(); ++i) {
    add.push_back(a[i] + b[i]), sub.push_back(a[i] - b[i]), mul.push_back(a[i] * b[i]);
    pow.push_back(power(a[i], b[i])), mx.push_back(std::max(a[i], b[i])), mn.push_back(std::min(a[i], b[i]));
    neg.push_back(0 - a[i]), lt.push_back(a[i] < b[i]), ge.push_back(a[i] >= b[i]);
  }
  CHECK((x + y).to_vector<uint64_t>() == add);
  CHECK((x - y).to_vector<uint64_t>() == sub);
  CHECK((x * y).to_vector<uint64_t>() == mul);
  CHECK(x.binary(TSR_OP_POW, y).to_vector<uint64_t>() == pow);
  CHECK(x.binary(TSR_OP_MAXIMUM, y).to_vector<uint64_t>() == mx);
  CHECK(x.binary(TSR_OP_MINIMUM, y).to_vector<uint64_t>() == mn);
  CHECK((-x).to_vector<uint64_t>() == neg);  // NumPy's negative of an unsigned
  Tensor neg_into_int64 = Tensor::zeros(runtime(), {static_cast<int64_t>(a.size())}, TSR_INT64, cpu());
  REQUIRE(tsr_unary_out(TSR_OP_NEG, x.get(), neg_into_int64.get()) == TSR_OK);  // uint64 result, then wrapped
  for (size_t i = 0; i < a.size(); ++i) CHECK(neg_into_int64.to_vector<int64_t>()[i] == static_cast<int64_t>(neg[i]));
  CHECK(x.unary(TSR_OP_ABS).to_vector<uint64_t>() == a);
  CHECK(x.unary(TSR_OP_RELU).to_vector<uint64_t>() == a);
  CHECK((x < y).to_vector<uint8_t>() == lt);  // unsigned order: 2^64 - 1 is the largest
  CHECK(x.binary(TSR_OP_GE, y).to_vector<uint8_t>() == ge);
  // Printed by NumPy 1.24: [2**64-1, 2**63+5, 3] ** [2, 3, 41].
  CHECK(u64({kTop, kHalf + 5, 3}).binary(TSR_OP_POW, u64({2, 3, 41})).to_vector<uint64_t>() ==
        std::vector<uint64_t>{1, 9223372036854775933ull, 18026252303461234787ull});
  // A Python int keeps uint64 and wraps into it: x + (-1) is x - 1.
  CHECK((x + Scalar(-1LL)).to_vector<uint64_t>()[4] == kTop);
  CHECK((x + Scalar(-1LL)).dtype() == TSR_UINT64);
}

TEST_CASE("unsigned: uint16 and uint32 wrap at their widths") {
  Tensor a = host<uint16_t>({65535, 0, 40000}, TSR_UINT16), b = host<uint16_t>({1, 1, 40000}, TSR_UINT16);
  CHECK((a + b).to_vector<uint16_t>() == std::vector<uint16_t>{0, 1, 14464});
  CHECK((b - a).to_vector<uint16_t>() == std::vector<uint16_t>{2, 1, 0});
  CHECK((a * b).to_vector<uint16_t>() == std::vector<uint16_t>{65535, 0, static_cast<uint16_t>(40000u * 40000u)});
  CHECK((-a).to_vector<uint16_t>() == std::vector<uint16_t>{1, 0, 25536});
  Tensor c = host<uint32_t>({4294967295u, 2147483648u, 7}, TSR_UINT32), d = host<uint32_t>({2, 2, 3}, TSR_UINT32);
  CHECK((c * d).to_vector<uint32_t>() == std::vector<uint32_t>{4294967294u, 0, 21});
  CHECK(c.binary(TSR_OP_POW, d).to_vector<uint32_t>() == std::vector<uint32_t>{1, 0, 343});
  CHECK((c < d).to_vector<uint8_t>() == std::vector<uint8_t>{0, 0, 0});
}

TEST_CASE("unsigned: casts from and to uint64 (values printed by NumPy 1.24)") {
  Tensor u = u64({kHalf + (uint64_t{1} << 39) + 1, kTop, (uint64_t{1} << 53) + 1, kHalf + 2049, (1u << 24) + 1});
  // One rounding from the unsigned value (never through a double first, nor through int64).
  CHECK(u.to(TSR_FLOAT32).to_vector<float>() ==
        std::vector<float>{9.223373136366404e+18f, 1.8446744073709552e+19f, 9007199254740992.0f, 9.223372036854776e+18f,
                           16777216.0f});
  CHECK(u.to(TSR_FLOAT64).to_vector<double>() ==
        std::vector<double>{9.22337258661059e+18, 1.8446744073709552e+19, 9007199254740992.0, 9.223372036854778e+18,
                            16777217.0});
  CHECK(u.to(TSR_INT64).to_vector<int64_t>() ==
        std::vector<int64_t>{-9223371487098961919LL, -1, 9007199254740993LL, -9223372036854773759LL, 16777217});
  CHECK(u.to(TSR_UINT32).to_vector<uint32_t>() == std::vector<uint32_t>{1, 4294967295u, 1, 2049, 16777217});
  CHECK(u.to(TSR_UINT16).to_vector<uint16_t>() == std::vector<uint16_t>{1, 65535, 1, 2049, 1});
  CHECK(u.to(TSR_INT8).to_vector<int8_t>() == std::vector<int8_t>{1, -1, 1, 1, 1});
  CHECK(u.to(TSR_BOOL).to_vector<uint8_t>() == std::vector<uint8_t>{1, 1, 1, 1, 1});
  // Integers into uint64 wrap; floats follow Note [Casts].
  CHECK(host<int8_t>({-128, -1, 5}, TSR_INT8).to(TSR_UINT64).to_vector<uint64_t>() ==
        std::vector<uint64_t>{kTop - 127, kTop, 5});
  CHECK(host<int8_t>({-128, -1, 5}, TSR_INT8).to(TSR_UINT32).to_vector<uint32_t>() ==
        std::vector<uint32_t>{4294967168u, 4294967295u, 5});
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  Tensor f = host<double>({-1.5, 2.9, 0x1p63 + 2048, 0x1p64 - 2048, 0x1p64, nan, inf, -inf, -0x1p63, 70000.5},
                          TSR_FLOAT64);
  CHECK(f.to(TSR_UINT64).to_vector<uint64_t>() == std::vector<uint64_t>{kTop, 2, kHalf + 2048, kTop - 2047, 0, kHalf,
                                                                        0, kHalf, kHalf, 70000});
  CHECK(f.to(TSR_UINT16).to_vector<uint16_t>() == std::vector<uint16_t>{65535, 2, 0, 0, 0, 0, 0, 0, 0, 4464});
  CHECK(f.to(TSR_UINT32).to_vector<uint32_t>() ==
        std::vector<uint32_t>{4294967295u, 2, 0, 0, 0, 0, 0, 0, 0, 70000});
  CHECK(host<float>({0x1p63f, 0x1.fffffep63f, -1.0f}, TSR_FLOAT32).to(TSR_UINT64).to_vector<uint64_t>() ==
        std::vector<uint64_t>{kHalf, 0xFFFFFF0000000000ull, kTop});
}

TEST_CASE("unsigned: sums are uint64, max/min/argmax order the unsigned values") {
  Tensor s16 = host<uint16_t>({65535, 65535, 65535}, TSR_UINT16).reduce(TSR_OP_SUM);
  CHECK(s16.dtype() == TSR_UINT64);
  CHECK(s16.to_vector<uint64_t>() == std::vector<uint64_t>{196605});  // NumPy's sum: no wrap at 16 bits
  CHECK(host<uint32_t>({4294967295u, 4294967295u}, TSR_UINT32).reduce(TSR_OP_SUM).to_vector<uint64_t>() ==
        std::vector<uint64_t>{8589934590ull});
  Tensor s64 = u64({kHalf, kHalf, 5}).reduce(TSR_OP_SUM);
  CHECK(s64.dtype() == TSR_UINT64);
  CHECK(s64.to_vector<uint64_t>() == std::vector<uint64_t>{5});  // wraps modulo 2^64
  CHECK(host<uint8_t>({255, 255}, TSR_UINT8).reduce(TSR_OP_SUM).dtype() == TSR_INT64);  // PyTorch's rule stays
  Tensor m = u64({1, kHalf + 1, 7, kTop, 5, kHalf}, {2, 3});
  CHECK(m.reduce(TSR_OP_MAX).to_vector<uint64_t>() == std::vector<uint64_t>{kTop});
  CHECK(m.reduce(TSR_OP_MIN).to_vector<uint64_t>() == std::vector<uint64_t>{1});
  CHECK(m.reduce(TSR_OP_ARGMAX).to_vector<int64_t>() == std::vector<int64_t>{3});
  CHECK(m.reduce(TSR_OP_MAX, {0}).to_vector<uint64_t>() == std::vector<uint64_t>{kTop, kHalf + 1, kHalf});
  CHECK(m.reduce(TSR_OP_ARGMAX, {1}).to_vector<int64_t>() == std::vector<int64_t>{1, 0});
  CHECK(m.reduce(TSR_OP_SUM, {1}).to_vector<uint64_t>() == std::vector<uint64_t>{kHalf + 9, kHalf + 4});
  CHECK(u64({}, {0}).reduce(TSR_OP_SUM).to_vector<uint64_t>() == std::vector<uint64_t>{0});
}

TEST_CASE("unsigned: matmul and where on uint64 (values printed by NumPy 1.24)") {
  Tensor a = u64({kHalf, 1, kTop, uint64_t{1} << 32}, {2, 2}), b = u64({2, 3, 5, uint64_t{1} << 32}, {2, 2});
  CHECK(a.matmul(b).to_vector<uint64_t>() ==
        std::vector<uint64_t>{5, 9223372041149743104ull, 21474836478ull, 18446744073709551613ull});
  Tensor c = host<uint32_t>({4294967295u, 2}, TSR_UINT32, {1, 2}), d = host<uint32_t>({3, 4}, TSR_UINT32, {2, 1});
  CHECK(c.matmul(d).to_vector<uint32_t>() == std::vector<uint32_t>{5});  // 3 (2^32 - 1) + 8 wraps to 5
  Tensor cond = host<uint8_t>({1, 0, 1}, TSR_BOOL);
  CHECK(tessera::where(cond, u64({kTop, 1, kHalf}), u64({2, 3, 4})).to_vector<uint64_t>() ==
        std::vector<uint64_t>{kTop, 3, kHalf});
}

TEST_CASE("unsigned: promotion with the other dtypes is NumPy's") {
  Tensor a = u64({kTop, kHalf, 5});
  Tensor sum = a + host<int64_t>({-1, 1, -7}, TSR_INT64);  // float64, as np.add
  CHECK(sum.dtype() == TSR_FLOAT64);
  CHECK(sum.to_vector<double>() == std::vector<double>{1.8446744073709552e+19, 9.223372036854776e+18, -2.0});
  Tensor prod = host<uint32_t>({4294967295u, 0, 9}, TSR_UINT32) * host<int32_t>({-1, -2147483647 - 1, 7}, TSR_INT32);
  CHECK(prod.dtype() == TSR_INT64);
  CHECK(prod.to_vector<int64_t>() == std::vector<int64_t>{-4294967295LL, 0, 63});
  Tensor diff = host<uint16_t>({65535, 1, 300}, TSR_UINT16) - host<int8_t>({-128, 127, -1}, TSR_INT8);
  CHECK(diff.dtype() == TSR_INT32);
  CHECK(diff.to_vector<int32_t>() == std::vector<int32_t>{65663, -126, 301});
  CHECK((host<uint8_t>({1}, TSR_UINT8) + host<uint16_t>({2}, TSR_UINT16)).dtype() == TSR_UINT16);
  CHECK((host<uint16_t>({1}, TSR_UINT16) + host<uint16_t>({0x3C00}, TSR_FLOAT16)).dtype() == TSR_FLOAT32);
  // A Python float gives float32 (the default dtype), not NumPy's float64.
  CHECK((a * Scalar(1.5)).dtype() == TSR_FLOAT32);
}

TEST_CASE("unsigned: fill checks the value fits; item and printing are exact") {
  Tensor t = Tensor::zeros(runtime(), {3}, TSR_UINT64, cpu());
  REQUIRE(tsr_fill_(t.get(), int_scalar(-1)) == TSR_OK);  // every int64 wraps: the way to write 2^64 - 1
  CHECK(t.to_vector<uint64_t>() == std::vector<uint64_t>(3, kTop));
  REQUIRE(tsr_fill_(t.get(), float_scalar(0x1p64 - 2048)) == TSR_OK);
  CHECK(t.to_vector<uint64_t>() == std::vector<uint64_t>(3, kTop - 2047));
  CHECK(tsr_fill_(t.get(), float_scalar(0x1p64)) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(tsr_last_error_message()), Catch::Contains("value cannot be converted to type uint64_t without overflow"));
  CHECK(tsr_fill_(t.get(), float_scalar(-1.0)) == TSR_ERR_INVALID_ARGUMENT);
  Tensor h = Tensor::zeros(runtime(), {2}, TSR_UINT16, cpu());
  CHECK(tsr_fill_(h.get(), int_scalar(65536)) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(tsr_last_error_message()), Catch::Contains("uint16_t without overflow"));
  REQUIRE(tsr_fill_(h.get(), int_scalar(-65535)) == TSR_OK);  // negatives wrap, as into uint8
  CHECK(h.to_vector<uint16_t>() == std::vector<uint16_t>{1, 1});
  Tensor w = Tensor::zeros(runtime(), {2}, TSR_UINT32, cpu());
  CHECK(tsr_fill_(w.get(), int_scalar(4294967296LL)) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(tsr_fill_(w.get(), float_scalar(4294967295.5)) == TSR_ERR_INVALID_ARGUMENT);

  tsr_scalar s = u64({kTop}, Shape{}).item();
  CHECK(s.kind == TSR_SCALAR_INT);
  CHECK(static_cast<uint64_t>(s.i) == kTop);  // the bits; f the value
  CHECK(s.f == 0x1p64);
  s = host<uint32_t>({4294967295u}, TSR_UINT32, {}).item();
  CHECK((s.kind == TSR_SCALAR_INT && s.i == 4294967295LL && s.f == 4294967295.0));
  CHECK(u64({0, kTop, kHalf}).str() ==
        "tensor([                   0, 18446744073709551615,  9223372036854775808],\n       dtype=tessera.uint64)");
  CHECK(host<uint16_t>({1, 65535}, TSR_UINT16).str() == "tensor([    1, 65535], dtype=tessera.uint16)");

  // assert_close compares uint64 exactly, differences above 2^63 included.
  Tensor x = u64({0, kTop, kHalf}), y = u64({0, kTop, kHalf}), z = u64({0, kTop - 1, kHalf});
  CHECK(tsr_assert_close(x.get(), y.get(), -1, -1, 0) == TSR_OK);
  CHECK(tsr_assert_close(x.get(), z.get(), -1, -1, 0) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(tsr_last_error_message()), Catch::Contains("Mismatched elements: 1 / 3"));
  CHECK(tsr_assert_close(u64({kTop}, Shape{}).get(), u64({0}, Shape{}).get(), -1, -1, 0) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(tsr_last_error_message()), Catch::Contains("Absolute difference: 18446744073709551615"));
  CHECK(tsr_assert_close(u64({5, kTop}).get(), u64({5, 0}).get(), -1, -1, 0) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(tsr_last_error_message()), Catch::Contains("Greatest absolute difference: 18446744073709551615 at index (1,)"));
  CHECK(tsr_assert_close(u64({kTop - 1}).get(), u64({kTop}).get(), 1e-20, 0, 0) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(tsr_assert_close(u64({kTop - 1}).get(), u64({kTop}).get(), 1e-6, 0, 0) == TSR_OK);  // 1 <= 1e-6 * 2^64
}

TEST_CASE("unsigned: arange and linspace") {
  Tensor r = Tensor::arange(runtime(), Scalar(5LL), Scalar(0LL), Scalar(-2LL), TSR_UINT64, cpu());
  CHECK(r.to_vector<uint64_t>() == std::vector<uint64_t>{5, 3, 1});
  CHECK(Tensor::arange(runtime(), Scalar(0LL), Scalar(7LL), Scalar(3LL), TSR_UINT16, cpu()).to_vector<uint16_t>() ==
        std::vector<uint16_t>{0, 3, 6});
  CHECK(Tensor::linspace(runtime(), 0, 10, 5, TSR_UINT32, cpu()).to_vector<uint32_t>() ==
        std::vector<uint32_t>{0, 2, 5, 7, 10});  // torch.linspace(0, 10, 5, dtype=int32)'s values
}
