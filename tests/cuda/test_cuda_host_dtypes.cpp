// SPDX-License-Identifier: Apache-2.0
// cuda.host.dtypes: the dtype conversions (float16, bfloat16, every cast pair) against
// tessera/half.h and the CPU backend, bit for bit, and the 32-bit fast division.
// The CUDA backend's device code run on the CPU, no GPU needed (see
// test_cuda_host.hpp).
#include "test_cuda_host.hpp"

using namespace tessera_test_cuda_host;

// ---- dtypes --------------------------------------------------------------------------

TEST_CASE("float16 and bfloat16 conversions are tessera/half.h's, bit for bit") {
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint16_t b = static_cast<uint16_t>(h);
    const float ours = cu::float16_to_float(b), ref = tsr_float16_to_float(b);
    REQUIRE(std::memcmp(&ours, &ref, 4) == 0);
    const float ours_bf = cu::bfloat16_to_float(b), ref_bf = tsr_bfloat16_to_float(b);
    REQUIRE(std::memcmp(&ours_bf, &ref_bf, 4) == 0);
  }
  // Every 251st float bit pattern, and the neighbourhoods of the rounding edges.
  std::vector<uint32_t> patterns;
  for (uint64_t u = 0; u < (uint64_t{1} << 32); u += 251) patterns.push_back(static_cast<uint32_t>(u));
  for (uint32_t edge : {0x477FF000u, 0x38800000u, 0x33000000u, 0x7F800000u, 0x7F7FFFFFu, 0x00000001u, 0x3F800000u})
    for (int d = -300; d <= 300; ++d) {
      patterns.push_back(edge + static_cast<uint32_t>(d));
      patterns.push_back((edge + static_cast<uint32_t>(d)) | 0x80000000u);
    }
  for (uint32_t u : patterns) {
    const float f = cu::bits_float(u);
    REQUIRE(cu::float_to_float16(f) == tsr_float_to_float16(f));
    REQUIRE(cu::float_to_bfloat16(f) == tsr_float_to_bfloat16(f));
  }
}

namespace {
// A value of storage type S from a double, through the CPU backend.
template <class CpuS> CpuS cpu_value(double v) { return cpu::convert<CpuS>(v); }

template <int To, int From> void check_convert_pair(const std::vector<double>& values) {
  using CuTo = cu::storage_t<To>;
  using CuFrom = cu::storage_t<From>;
  using CpuTo = cpu::storage_t<To>;
  using CpuFrom = cpu::storage_t<From>;
  static_assert(sizeof(CuTo) == sizeof(CpuTo) && sizeof(CuFrom) == sizeof(CpuFrom));
  for (double v : values) {
    const CpuFrom src = cpu_value<CpuFrom>(v);
    CuFrom cu_src;
    std::memcpy(&cu_src, &src, sizeof src);
    const CpuTo ref = cpu::convert<CpuTo>(src);
    const CuTo got = cu::Convert<CuTo, CuFrom>{}(cu_src);
    INFO(tsr_dtype_name(From) << " -> " << tsr_dtype_name(To) << " of " << v);
    REQUIRE(std::memcmp(&got, &ref, sizeof got) == 0);
  }
}
}  // namespace

// Since both backends share element_types.hpp, this checks cast.cuh's
// Convert functor (the GPU's copy kernel body) against the CPU's conversion;
// the conversion itself is checked against PyTorch by tests/python.
TEST_CASE("every cast (out, in) pair converts as the CPU backend") {
  const std::vector<double> values = {0.0,   -0.0,  1.0,   -1.0,   0.5,   -0.5,   1.5,   2.5,    255.0,  255.5,   256.0,
                                      -129., 300.0, -300., 65504., 65520., 7e4,   1e10,  -1e10,  3e38,   1e300,   -1e300,
                                      1e-8,  1e-40, NAN,   INFINITY, -INFINITY, 2147483647.0, 2147483648.0, -2147483649.0,
                                      9.3e18, -9.3e18, 123456789.0, 0.1, 1.0 / 3.0};
  cu::for_each_real_dtype([&]<int To>(std::integral_constant<int, To>) {
    cu::for_each_real_dtype([&]<int From>(std::integral_constant<int, From>) { check_convert_pair<To, From>(values); });
  });
}

TEST_CASE("the 32-bit fast division is exact below 2^31") {
  std::mt19937_64 rng(7);
  std::vector<uint32_t> divisors = {1, 2, 3, 5, 7, 64, 100, 1000, 16384, 65535, 65537, 1u << 30, (1u << 31) - 1};
  for (int i = 0; i < 200; ++i) divisors.push_back(static_cast<uint32_t>(rng() % ((1u << 31) - 1)) + 1);
  for (uint32_t d : divisors) {
    const cu::Div32 div(d);
    std::vector<uint32_t> ns = {0, 1, d - 1, d, d + 1, (1u << 31) - 1, (1u << 31) - 2};
    for (int i = 0; i < 2000; ++i) ns.push_back(static_cast<uint32_t>(rng() % (1u << 31)));
    for (uint32_t n : ns) {
      if (n >= (1u << 31)) continue;
      uint32_t q, r;
      div.divmod(n, q, r);
      REQUIRE(q == n / d);
      REQUIRE(r == n % d);
    }
  }
}
