// SPDX-License-Identifier: Apache-2.0
// The registry seen through the public API, with two device types: cpu
// (cpu_tbb) and "null" (a test plugin that only has FILL for float32).
#include <catch2/catch.hpp>
#include <string>

#include "tessera/tessera.hpp"
#include "test_paths.hpp"

using namespace tessera;

namespace {
const Runtime& runtime() {
  static const Runtime rt(test_paths::mixed_config);
  return rt;
}
}  // namespace

TEST_CASE("devices, the default device and aliases come from the config", "[registry]") {
  const Runtime& rt = runtime();
  tsr_device null0 = rt.device("null:0");
  CHECK(rt.device_name(null0) == "null:0");
  CHECK(null0.type >= TSR_DEVICE_DYNAMIC_BASE);  // a named type gets a dynamic number
  tsr_device d;
  int32_t available = 0;
  REQUIRE(tsr_runtime_default_device(rt.get(), &d, &available) == TSR_OK);
  CHECK(available == 1);
  CHECK((d.type == null0.type && d.index == 0));
  tsr_device alias = rt.device("accel");
  CHECK((alias.type == null0.type && alias.index == 0));
  CHECK(rt.device("cpu").type == TSR_DEVICE_CPU);
  CHECK(rt.devices().size() == 2);
}

TEST_CASE("bad device strings name what was wrong", "[registry]") {
  const Runtime& rt = runtime();
  tsr_device d;
  CHECK(tsr_device_parse(rt.get(), "tpu:0", &d) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(tsr_last_error_message(), Catch::Contains("unknown device type \"tpu\"") && Catch::Contains("cpu, null"));
  CHECK(tsr_device_parse(rt.get(), "cpu:x", &d) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(tsr_last_error_message(), Catch::Contains("cpu:x"));
  tsr_tensor* t = nullptr;
  int64_t shape[1] = {2};
  tsr_device cpu3{TSR_DEVICE_CPU, 3};
  CHECK(tsr_zeros(rt.get(), 1, shape, TSR_FLOAT32, cpu3, &t) == TSR_ERR_DEVICE);
  CHECK(t == nullptr);
  CHECK_THAT(tsr_last_error_message(), Catch::Contains("device cpu:3 is not available"));
}

TEST_CASE("an op without a kernel names op, dtype, device and where it exists", "[registry]") {
  const Runtime& rt = runtime();
  tsr_device null0 = rt.device("null:0");
  // FILL float32 exists on null:0, so zeros works there.
  Tensor z = Tensor::zeros(rt, {3}, TSR_FLOAT32, null0);
  CHECK(z.to_vector<float>() == std::vector<float>{0, 0, 0});
  CHECK(tsr_runtime_has_kernel(rt.get(), null0, TSR_OP_FILL, TSR_FLOAT32) == 1);
  CHECK(tsr_runtime_has_kernel(rt.get(), null0, TSR_OP_ADD, TSR_FLOAT32) == 0);
  try {
    Tensor s = z + z;
    FAIL("add on null:0 should fail");
  } catch (const Error& e) {
    CHECK(e.status() == TSR_ERR_UNSUPPORTED);
    CHECK(std::string(e.what()) == "add: not supported on device null:0 for dtype float32; supported on: cpu");
  }
  try {
    Tensor::zeros(rt, {3}, TSR_INT64, null0);
    FAIL("fill int64 on null:0 should fail");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "fill: not supported on device null:0 for dtype int64; supported on: cpu");
  }
}

TEST_CASE("tensors move between devices through the plugins' copy functions", "[registry]") {
  const Runtime& rt = runtime();
  tsr_device null0 = rt.device("null:0"), cpu = rt.device("cpu");
  Tensor a = Tensor::arange(rt, 0.0, 6.0, 1.0, TSR_FLOAT32, cpu).view({2, 3});
  Tensor b = a.to(null0);
  CHECK(rt.device_name(b.device()) == "null:0");
  CHECK_FALSE(b.same_storage(a));
  CHECK(b.to_vector<float>() == std::vector<float>{0, 1, 2, 3, 4, 5});
  // A transposed source is made contiguous on its own device first.
  Tensor c = a.T().to(null0).to(cpu);
  CHECK(c.to_vector<float>() == std::vector<float>{0, 3, 1, 4, 2, 5});
  CHECK(b.str() == "tensor([[0., 1., 2.],\n        [3., 4., 5.]], device='null:0')");
}
