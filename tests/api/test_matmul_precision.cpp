// SPDX-License-Identifier: Apache-2.0
// The float32 matmul precision (ABI 1.3), as torch.set_float32_matmul_precision:
// per runtime, checked on the way in, and a request the CPU backend may ignore
// (as PyTorch's CPU matmul does). tests/python/test_cuda_emu_device.py checks
// that the CUDA backend honours it (TF32 rounding on the emulated device).
#include <catch2/catch.hpp>

#include <string>

#include "runtime_fixture.hpp"

using namespace tessera;
using tessera::test::cpu;
using tessera::test::runtime;

TEST_CASE("float32 matmul precision: set, get, refusals", "[matmul]") {
  const Runtime& rt = runtime();
  CHECK(rt.float32_matmul_precision() == TSR_MATMUL_PRECISION_HIGHEST);  // PyTorch's default
  rt.set_float32_matmul_precision(TSR_MATMUL_PRECISION_HIGH);
  CHECK(tsr_get_float32_matmul_precision(rt.get()) == TSR_MATMUL_PRECISION_HIGH);
  rt.set_float32_matmul_precision(TSR_MATMUL_PRECISION_MEDIUM);
  CHECK(rt.float32_matmul_precision() == TSR_MATMUL_PRECISION_MEDIUM);
  for (int32_t bad : {-1, 3}) {
    CHECK(tsr_set_float32_matmul_precision(rt.get(), bad) == TSR_ERR_INVALID_ARGUMENT);
    CHECK(std::string(tsr_last_error_message()).find("precision " + std::to_string(bad) + " is none of") != std::string::npos);
  }
  CHECK(rt.float32_matmul_precision() == TSR_MATMUL_PRECISION_MEDIUM);  // a refusal changes nothing
  CHECK(tsr_set_float32_matmul_precision(nullptr, TSR_MATMUL_PRECISION_HIGH) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(tsr_get_float32_matmul_precision(nullptr) == TSR_MATMUL_PRECISION_HIGHEST);

  // 1 + 2^-12 has more mantissa bits than TF32 keeps: the CPU computes in
  // float32 whatever the setting.
  const float x = 1.0f + 0x1p-12f;
  Tensor a = Tensor::full(rt, {1, 1}, static_cast<double>(x), TSR_FLOAT32, cpu());
  Tensor one = Tensor::ones(rt, {1, 1}, TSR_FLOAT32, cpu());
  for (tsr_matmul_precision p : {TSR_MATMUL_PRECISION_HIGHEST, TSR_MATMUL_PRECISION_HIGH}) {
    rt.set_float32_matmul_precision(p);
    CHECK(a.matmul(one).item_double() == static_cast<double>(x));
  }
  rt.set_float32_matmul_precision(TSR_MATMUL_PRECISION_HIGHEST);
}
