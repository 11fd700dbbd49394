// SPDX-License-Identifier: Apache-2.0
// How the runtime reports a plugin's faults (issue 17's items 7, 14, 15):
// a kernel that fails without a message, one that throws, log lines named
// after their plugin, and fallback warnings that name the op's dtype. The
// plugin is tests/data/plugins/faulty_kernels.cpp ("vec"); stderr is read
// back through a temporary file.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "stderr_capture.hpp"
#include "tessera/tessera.hpp"
#include "test_paths.hpp"

using tessera::Tensor;
using tessera::test::StderrCapture;

namespace {

std::string message() { return tsr_last_error_message(); }

std::string config_json() {
  return std::string(R"({"plugins": [
    {"name": "cpu_tbb", "library": ")") + test_paths::cpu_plugin + R"("},
    {"name": "faulty", "library": ")" + test_paths::faulty_plugin + R"(", "fallback": true, "priority": 3}],
    "default_device": "cpu"})";
}

struct Fixture {
  tsr_runtime* rt = nullptr;
  std::string init_log;
  Fixture() {
    const std::string json = config_json();
    tsr_runtime_options opts = TSR_RUNTIME_OPTIONS_INIT;
    opts.config_json = json.c_str();
    opts.strict_plugins = 1;
    StderrCapture capture;
    REQUIRE(tsr_runtime_create(&opts, &rt) == TSR_OK);
    init_log = capture.text();
  }
  ~Fixture() { tsr_runtime_destroy(rt); }
  tsr_device device(const char* text) const {
    tsr_device d{};
    REQUIRE(tsr_device_parse(rt, text, &d) == TSR_OK);
    return d;
  }
  Tensor ones(tsr_device d, tsr_dtype dtype = TSR_FLOAT32) const {
    const int64_t shape[2] = {2, 3};
    tsr_tensor* t = nullptr;
    REQUIRE(tsr_ones(rt, 2, shape, dtype, d, &t) == TSR_OK);
    return Tensor(t);
  }
};

}  // namespace

TEST_CASE("a kernel that fails without a message is reported as such, never with an older error", "[faults]") {
  Fixture f;
  Tensor a = f.ones(f.device("vec"));
  // Leave an unrelated error in this thread's slot first.
  const int64_t bad[1] = {7};
  tsr_tensor* view = nullptr;
  REQUIRE(tsr_view(a.get(), 1, bad, &view) != TSR_OK);
  const std::string stale = message();
  REQUIRE_FALSE(stale.empty());

  tsr_tensor* c = nullptr;
  CHECK(tsr_binary(TSR_OP_ADD, a.get(), a.get(), &c) == TSR_ERR_DEVICE);
  const std::string first = message();
  CHECK(first == "add (float32) failed on vec:0 (plugin \"faulty\"): the plugin gave no message");
  // Two thousand failures later the message is the same, not nested.
  for (int i = 0; i < 2000; ++i) REQUIRE(tsr_binary(TSR_OP_ADD, a.get(), a.get(), &c) == TSR_ERR_DEVICE);
  CHECK(message() == first);
}

TEST_CASE("a kernel that throws is reported with its op, dtype, device and plugin", "[faults]") {
  Fixture f;
  Tensor a = f.ones(f.device("vec"));
  tsr_tensor* c = nullptr;
  CHECK(tsr_binary(TSR_OP_MUL, a.get(), a.get(), &c) == TSR_ERR_INTERNAL);
  CHECK(c == nullptr);
  const std::string m = message();
  CHECK_THAT(m, Catch::StartsWith("mul (float32) failed on vec:0 (plugin \"faulty\"): the kernel threw"));
  CHECK_THAT(m, Catch::Contains("vec: kernel threw"));
}

TEST_CASE("log lines name their plugin; fallback warnings name op, dtype, plugin and device", "[faults][log]") {
  Fixture f;
  CHECK_THAT(f.init_log, Catch::Contains("tessera: warning: plugin \"faulty\": init ran"));
  const tsr_device vec = f.device("vec");
  Tensor a = f.ones(vec);
  tsr_tensor* c = nullptr;
  std::string log;
  {
    StderrCapture capture;
    REQUIRE(tsr_binary(TSR_OP_SUB, a.get(), a.get(), &c) == TSR_OK);
    tsr_tensor_release(c);
    REQUIRE(tsr_unary(TSR_OP_NEG, a.get(), &c) == TSR_OK);  // no neg kernel: the cpu runs it
    tsr_tensor_release(c);
    REQUIRE(tsr_unary(TSR_OP_NEG, a.get(), &c) == TSR_OK);  // warned once only
    tsr_tensor_release(c);
    Tensor d = f.ones(vec, TSR_FLOAT64);
    REQUIRE(tsr_binary(TSR_OP_ADD, d.get(), d.get(), &c) == TSR_OK);  // add float64 is not native; float32 is
    tsr_tensor_release(c);
    log = capture.text();
  }
  CHECK_THAT(log, Catch::Contains("tessera: warning: plugin \"faulty\": sub ran"));
  CHECK_THAT(log, Catch::Contains("neg (float32) has no kernel in plugin \"faulty\" for vec:0; running it on the CPU"));
  CHECK(log.find("neg (float32)") == log.rfind("neg (float32)"));
  CHECK_THAT(log, Catch::Contains("add (float64) has no kernel in plugin \"faulty\" for vec:0"));
  CHECK(log.find("add (float32)") == std::string::npos);
  // The fallback's own lines are the runtime's, not the plugin's.
  CHECK(log.find("plugin \"faulty\": neg") == std::string::npos);

  CHECK(tsr_runtime_has_kernel(f.rt, vec, TSR_OP_ADD, TSR_FLOAT32) == 1);
  CHECK(tsr_runtime_has_kernel(f.rt, vec, TSR_OP_ADD, TSR_FLOAT64) == 0);
  CHECK(tsr_runtime_has_kernel(nullptr, vec, TSR_OP_ADD, TSR_FLOAT32) == 0);
}

TEST_CASE("info shows each plugin's priority and fallback; device memory is not host-accessible", "[faults][info]") {
  Fixture f;
  char* text = nullptr;
  REQUIRE(tsr_runtime_describe(f.rt, 0, &text) == TSR_OK);
  const std::string info = text;
  tsr_string_free(text);
  CHECK_THAT(info, Catch::Contains("priority 3, CPU fallback on"));
  CHECK_THAT(info, Catch::Contains("priority 0, CPU fallback off"));
  REQUIRE(tsr_runtime_describe(f.rt, 1, &text) == TSR_OK);
  const std::string json = text;
  tsr_string_free(text);
  CHECK_THAT(json, Catch::Contains("\"fallback\": true"));
  CHECK_THAT(json, Catch::Contains("\"priority\": 3"));

  const tsr_device vec = f.device("vec");
  CHECK(tsr_device_is_host_accessible(f.rt, vec) == 0);
  Tensor a = f.ones(vec);
  CHECK(tsr_tensor_is_host_accessible(a.get()) == 0);
  const int64_t at[2] = {1, 2};
  tsr_scalar v{};
  REQUIRE(tsr_tensor_set_item(a.get(), 2, at, tsr_scalar_float(2.5)) == TSR_OK);  // fill: a native kernel
  REQUIRE(tsr_tensor_get_item(a.get(), 2, at, &v) == TSR_OK);  // read through the copy slots
  CHECK(v.f == 2.5);
  float col[6] = {};
  const int64_t fortran[2] = {1, 2};
  REQUIRE(tsr_copy_to_host(a.get(), col, sizeof col, fortran) == TSR_OK);
  CHECK(col[1 + 2 * 2] == 2.5f);
  CHECK(col[0] == 1.0f);
}
