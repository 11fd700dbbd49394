// SPDX-License-Identifier: Apache-2.0
// The arena plugin through the public API: its memory is reached only
// through its copy functions, the ops it lacks run on the CPU when its
// config allows (Note [CPU fallback] in runtime/fallback.cpp) with the CPU's
// results, one warning per op, and a clear error when it does not.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "stderr_capture.hpp"
#include "tessera/tessera.hpp"
#include "test_paths.hpp"

using tessera::Error;
using tessera::Runtime;
using tessera::test::StderrCapture;
using tessera::Tensor;

namespace {

std::string config(bool fallback, const std::string& arena_options = R"({"devices": 2})") {
  return std::string(R"({"plugins": [{"name": "cpu_tbb", "library": ")") + test_paths::cpu_plugin +
         R"("}, {"name": "arena", "library": ")" + test_paths::arena_plugin + R"(", "fallback": )" +
         (fallback ? "true" : "false") + R"(, "options": )" + arena_options + "}]}";
}

// A runtime from config text (tessera.hpp's Runtime takes a file; write one).
Runtime make_runtime(const std::string& text) {
  char path[] = "/tmp/tessera_arena_XXXXXX.json";
  int fd = mkstemps(path, 5);
  REQUIRE(fd >= 0);
  REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fd);
  Runtime rt(path);
  std::remove(path);
  return rt;
}

Tensor cpu_copy(const Runtime& rt, const Tensor& t) { return t.to(rt.device("cpu")); }

// Exactly equal (same shape, dtype, values): results computed by the same
// CPU kernels on the same bytes.
void require_same(const Runtime& rt, const Tensor& actual_on_arena, const Tensor& expected_on_cpu, double tol = 0) {
  Tensor a = cpu_copy(rt, actual_on_arena);
  INFO(a.str() + "\nvs\n" + expected_on_cpu.str());
  REQUIRE(tsr_assert_close(a.get(), expected_on_cpu.get(), tol, tol, 1) == TSR_OK);
}

Tensor arange_f32(const Runtime& rt, int64_t n, tsr_device dev) {
  return Tensor::arange(rt, 0, n, 1, TSR_FLOAT32, dev).binary(TSR_OP_MUL, 0.37).binary(TSR_OP_SUB, 3.0);
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("arena memory is a handle space the host cannot address") {
  Runtime rt = make_runtime(config(true));
  tsr_device arena = rt.device("arena:0");
  Tensor x = Tensor::from_host<float>(rt, {1.5f, -2.0f, 3.25f}, {3}, TSR_FLOAT32, arena);
  // Non-canonical x86-64 addresses: dereferencing one would fault.
  REQUIRE((reinterpret_cast<uintptr_t>(x.data_ptr()) >> 48) == 0x5A5A);
  REQUIRE(x.to_vector<float>() == std::vector<float>{1.5f, -2.0f, 3.25f});
  REQUIRE(x.str() == "tensor([ 1.5000, -2.0000,  3.2500], device='arena:0')");
  // Between two arena devices, and back.
  Tensor y = x.to(rt.device("arena:1")).binary(TSR_OP_MUL, 2.0);
  REQUIRE(rt.device_name(y.device()) == "arena:1");
  REQUIRE(y.to_vector<float>() == std::vector<float>{3.0f, -4.0f, 6.5f});
}

TEST_CASE("ops the arena lacks fall back to the CPU with the CPU's results") {
  Runtime rt = make_runtime(config(true));
  tsr_device arena = rt.device("arena:0"), cpu = rt.device("cpu");
  Tensor a_cpu = arange_f32(rt, 24, cpu).view({4, 6});
  Tensor a = a_cpu.to(arena);
  Tensor b_cpu = arange_f32(rt, 6, cpu).binary(TSR_OP_ADD, 0.5);
  Tensor b = b_cpu.to(arena);
  // Transposed, step-sliced and broadcast inputs keep their strides.
  require_same(rt, a.T().exp(), a_cpu.T().exp());
  require_same(rt, a.slice(1, 1, TSR_SLICE_NONE, 2).tanh(), a_cpu.slice(1, 1, TSR_SLICE_NONE, 2).tanh());
  require_same(rt, a.binary(TSR_OP_DIV, b), a_cpu.binary(TSR_OP_DIV, b_cpu));
  require_same(rt, a.binary(TSR_OP_GT, b), a_cpu.binary(TSR_OP_GT, b_cpu));
  require_same(rt, a.matmul(a.T()), a_cpu.matmul(a_cpu.T()));
  require_same(rt, a.argmax(1), a_cpu.argmax(1));
  require_same(rt, a.mean({0}), a_cpu.mean({0}));
  // An op the arena implements runs there (its own sum: float64 accumulation).
  require_same(rt, a.sum({1}), a_cpu.sum({1}), 1e-6);
  Tensor cond = a.binary(TSR_OP_GT, 0.0);
  Tensor w = Tensor(nullptr);
  tsr_tensor* out = nullptr;
  REQUIRE(tsr_where(cond.get(), a.get(), b.get(), &out) == TSR_OK);
  w = Tensor(out);
  REQUIRE(tsr_where(cond.to(cpu).get(), a_cpu.get(), b_cpu.get(), &out) == TSR_OK);
  require_same(rt, w, Tensor(out));
  // Seeded random numbers are the CPU's.
  rt.manual_seed(7);
  Tensor r = Tensor::randn(rt, {100}, TSR_FLOAT32, arena);
  rt.manual_seed(7);
  require_same(rt, r, Tensor::randn(rt, {100}, TSR_FLOAT32, cpu));
}

TEST_CASE("an in-place fallback on a strided view writes only the view's elements") {
  Runtime rt = make_runtime(config(true));
  tsr_device arena = rt.device("arena:0"), cpu = rt.device("cpu");
  Tensor x_cpu = arange_f32(rt, 24, cpu).view({4, 6});
  Tensor x = x_cpu.to(arena);
  Tensor v = x.slice(1, 0, TSR_SLICE_NONE, 2);      // every other column
  REQUIRE(tsr_unary_(TSR_OP_EXP, v.get()) == TSR_OK);  // exp_ is not an arena kernel
  REQUIRE(tsr_unary_(TSR_OP_EXP, x_cpu.slice(1, 0, TSR_SLICE_NONE, 2).get()) == TSR_OK);
  require_same(rt, x, x_cpu);
}

TEST_CASE("out= forms run on the arena, natively or through the fallback") {
  Runtime rt = make_runtime(config(true));
  tsr_device arena = rt.device("arena:0"), cpu = rt.device("cpu");
  Tensor a_cpu = arange_f32(rt, 24, cpu).view({4, 6}), b_cpu = arange_f32(rt, 6, cpu).binary(TSR_OP_ADD, 0.5);
  Tensor a = a_cpu.to(arena), b = b_cpu.to(arena);
  // Outputs are transposed views of larger arena tensors: only their elements change.
  Tensor base = Tensor::zeros(rt, {6, 5}, TSR_FLOAT32, arena), base_cpu = Tensor::zeros(rt, {6, 5}, TSR_FLOAT32, cpu);
  Tensor out = base.slice(1, 1, TSR_SLICE_NONE).T(), out_cpu = base_cpu.slice(1, 1, TSR_SLICE_NONE).T();
  out.assign(TSR_OP_ADD, a, b);  // the arena's own add
  out_cpu.assign(TSR_OP_ADD, a_cpu, b_cpu);
  require_same(rt, base, base_cpu);
  out.assign(TSR_OP_DIV, a, b);  // div falls back
  out_cpu.assign(TSR_OP_DIV, a_cpu, b_cpu);
  require_same(rt, base, base_cpu);
  out.assign(TSR_OP_SIGMOID, a);  // sigmoid: a composite, built from the arena's primitives (and the fallback's)
  out_cpu.assign(TSR_OP_SIGMOID, a_cpu);
  require_same(rt, base, base_cpu, 1e-6);  // 1 / (1 + exp(-x)) against the CPU's own sigmoid: rounding apart
  // The result casts into a float64 output on the arena.
  Tensor d = Tensor::zeros(rt, {4, 6}, TSR_FLOAT64, arena), d_cpu = Tensor::zeros(rt, {4, 6}, TSR_FLOAT64, cpu);
  d.assign(TSR_OP_MUL, a, b);
  d_cpu.assign(TSR_OP_MUL, a_cpu, b_cpu);
  require_same(rt, d, d_cpu);
}

// Note [Composites]: GELU has the arena's own fused kernel, GELU_TANH and
// SILU have none and are composed from primitives. Without the CPU fallback,
// a composite the arena cannot build (tanh and exp are not its) fails,
// while gelu runs: the registry took the plugin's kernel, never the
// composite (which would need MATH's erf).
TEST_CASE("a plugin's fused kernel runs in place of the runtime's composite") {
  const std::vector<float> xs{-4.0f, -1.5f, -0.25f, 0.0f, 0.5f, 2.0f, 3.5f};
  for (bool fallback : {false, true}) {
    INFO("fallback " << fallback);
    Runtime rt = make_runtime(config(fallback));
    tsr_device arena = rt.device("arena:0"), cpu = rt.device("cpu");
    REQUIRE(tsr_runtime_has_kernel(rt.get(), arena, TSR_OP_GELU, TSR_FLOAT32) == 1);
    REQUIRE(tsr_runtime_has_kernel(rt.get(), arena, TSR_OP_GELU_TANH, TSR_FLOAT32) == 0);
    REQUIRE(tsr_runtime_has_kernel(rt.get(), arena, TSR_OP_SILU, TSR_FLOAT64) == 0);
    Tensor x_cpu = Tensor::from_host(rt, xs, {7}, TSR_FLOAT32, cpu), x = x_cpu.to(arena);
    tsr_tensor* out = nullptr;
    REQUIRE(tsr_gelu(x.get(), 0, &out) == TSR_OK);
    Tensor gelu(out), gelu_cpu = x_cpu.unary(TSR_OP_GELU);
    REQUIRE(gelu.device().type == arena.type);
    require_same(rt, gelu, gelu_cpu, 1e-6);  // the arena's erf loop against cpu_tbb's: rounding apart
    const Tensor x64 = x.to(TSR_FLOAT64), x64_cpu = x_cpu.to(TSR_FLOAT64);
    if (!fallback) {
      REQUIRE(tsr_gelu(x.get(), 1, &out) == TSR_ERR_UNSUPPORTED);
      REQUIRE(std::string(tsr_last_error_message()) ==
              "tanh: not supported on device arena:0 for dtype float32; supported on: cpu");
      REQUIRE(tsr_silu(x64.get(), &out) == TSR_ERR_UNSUPPORTED);
      REQUIRE(std::string(tsr_last_error_message()) ==
              "exp: not supported on device arena:0 for dtype float64; supported on: cpu");
    } else {  // composed from the arena's mul and add and the fallback's tanh and exp
      require_same(rt, x.unary(TSR_OP_GELU_TANH), x_cpu.unary(TSR_OP_GELU_TANH), 1e-6);
      require_same(rt, x64.unary(TSR_OP_SILU), x64_cpu.unary(TSR_OP_SILU), 1e-15);
    }
  }
}

TEST_CASE("each op that falls back warns once") {
  std::string log;
  {
    StderrCapture capture;
    Runtime rt = make_runtime(config(true));
    Tensor a = arange_f32(rt, 8, rt.device("arena:0"));
    for (int i = 0; i < 3; ++i) a.exp();
    a.tanh();
    a.add_(1.0);  // the arena's own kernel: no warning
    log = capture.text();
  }
  INFO(log);
  REQUIRE(count(log, "warning: exp (float32) has no kernel in plugin \"arena\" for arena:0; running it on "
                     "the CPU with copies in and out") == 1);
  REQUIRE(count(log, "warning: tanh (float32) has no kernel") == 1);
  REQUIRE(count(log, "warning: arange (float32) has no kernel") == 1);
  REQUIRE(count(log, "warning:") == 3);
}

TEST_CASE("without fallback a missing op says where it is supported") {
  Runtime rt = make_runtime(config(false));
  Tensor a = Tensor::zeros(rt, {3}, TSR_FLOAT32, rt.device("arena:0"));  // fill: an arena kernel
  tsr_tensor* out = nullptr;
  REQUIRE(tsr_unary(TSR_OP_EXP, a.get(), &out) == TSR_ERR_UNSUPPORTED);
  REQUIRE(out == nullptr);
  REQUIRE(std::string(tsr_last_error_message()) ==
          "exp: not supported on device arena:0 for dtype float32; supported on: cpu");
  // What the arena has still works.
  REQUIRE(a.binary(TSR_OP_ADD, 2.0).to_vector<float>() == std::vector<float>{2, 2, 2});
}

TEST_CASE("arena out of memory names the sizes and the runtime keeps working") {
  Runtime rt = make_runtime(config(true, R"({"bytes": 1048576})"));
  tsr_device arena = rt.device("arena:0");
  int64_t shape[1] = {1 << 20};  // 4 MiB of float32 in a 1 MiB arena
  tsr_tensor* out = nullptr;
  REQUIRE(tsr_empty(rt.get(), 1, shape, TSR_FLOAT32, arena, &out) == TSR_ERR_OUT_OF_MEMORY);
  REQUIRE(out == nullptr);
  std::string why = tsr_last_error_message();
  INFO(why);
  REQUIRE(why.find("out of memory on arena:0: asked 4194304 bytes, 1048576 free") != std::string::npos);
  Tensor small = Tensor::full(rt, {1000}, 2.5, TSR_FLOAT32, arena);
  REQUIRE(small.sum().item_double() == 2500.0);
}

TEST_CASE("bad arena options are refused with the plugin's reason") {
  tsr_runtime_options ro{};
  ro.struct_size = TSR_RUNTIME_OPTIONS_STRUCT_SIZE;
  std::string text = config(true, R"({"devicez": 2})");
  ro.config_json = text.c_str();
  ro.strict_plugins = 1;
  tsr_runtime* rt = nullptr;
  REQUIRE(tsr_runtime_create(&ro, &rt) != TSR_OK);
  REQUIRE(rt == nullptr);
  REQUIRE(std::string(tsr_last_error_message()).find("arena: unknown option \"devicez\" (known: devices, bytes)") !=
          std::string::npos);
}

TEST_CASE("memory statistics (ABI 1.1) follow the arena's allocations") {
  Runtime rt = make_runtime(config(true, R"({"bytes": 1048576})"));
  tsr_device arena = rt.device("arena:0");
  auto stats = [&] {
    tsr_memory_stats s{};
    s.struct_size = TSR_MEMORY_STATS_STRUCT_SIZE;
    REQUIRE(tsr_get_memory_stats(rt.get(), arena, &s) == TSR_OK);
    REQUIRE(s.reserved == 1048576);
    return s.in_use;
  };
  const uint64_t before = stats();
  {
    Tensor t = Tensor::zeros(rt, {1000}, TSR_FLOAT64, arena);  // 8000 bytes, 8000 rounded to 64
    REQUIRE(stats() == before + 8000);
  }
  REQUIRE(stats() == before);
  REQUIRE(tsr_empty_cache(rt.get(), arena) == TSR_OK);  // no cache: the optional slot's no-op
}
