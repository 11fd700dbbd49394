// SPDX-License-Identifier: Apache-2.0
// A plugin built against an older minor is never handed what that minor
// predates (Note [What an older plugin is handed] in runtime/abi_history.hpp):
// good_abi_1_4.so, compiled against the ABI 1.4 headers of tests/data/abi-1.4,
// beside today's cpu_tbb.so. With "fallback": true a cast from a dtype of ABI
// 1.5 or 1.7 runs on the CPU, without "fallback" it fails naming the plugin,
// its ABI and the dtype; what 1.4 knows still runs natively; kernel entries
// for what 1.4 predates are refused at load. The rule itself is checked on
// hand-made kernel arguments at the end.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "abi_history.hpp"
#include "stderr_capture.hpp"
#include "tessera/tessera.hpp"
#include "test_paths.hpp"

using tessera::Tensor;
using tessera::test::StderrCapture;

namespace {

const std::string kOldPlugin = std::string(test_paths::loader_plugin_dir) + "/good_abi_1_4.so";

std::string config_json(bool fallback, long long* calls, int bad_entry = 0) {
  return std::string(R"({"plugins": [
    {"name": "cpu_tbb", "library": ")") +
         test_paths::cpu_plugin + R"("},
    {"name": "vendor14", "library": ")" + kOldPlugin + R"(", "fallback": )" + (fallback ? "true" : "false") +
         R"(, "options": {"calls_counter": )" + std::to_string(reinterpret_cast<uintptr_t>(calls)) +
         R"(, "bad_entry": )" + std::to_string(bad_entry) + R"(}}],
    "default_device": "cpu"})";
}

struct Runtime {
  tsr_runtime* rt = nullptr;
  tsr_status created = TSR_OK;
  std::string message, log;
  Runtime(bool fallback, long long* calls, int bad_entry = 0) {
    const std::string json = config_json(fallback, calls, bad_entry);
    tsr_runtime_options opts = TSR_RUNTIME_OPTIONS_INIT;
    opts.config_json = json.c_str();
    opts.strict_plugins = 1;
    StderrCapture capture;
    created = tsr_runtime_create(&opts, &rt);
    if (created != TSR_OK) message = tsr_last_error_message();
    log = capture.text();
  }
  ~Runtime() { tsr_runtime_destroy(rt); }
  tsr_device old14() const {
    tsr_device d{};
    REQUIRE(tsr_device_parse(rt, "old14:0", &d) == TSR_OK);
    return d;
  }
  // A 1-D tensor of `values` on old14:0 (a complex element takes two of them).
  template <class T>
  Tensor on_old14(const std::vector<T>& values, tsr_dtype dtype) const {
    const int64_t shape[1] = {static_cast<int64_t>(values.size() * sizeof(T) / tsr_dtype_size(dtype))};
    tsr_tensor* t = nullptr;
    REQUIRE(tsr_from_host(rt, values.data(), 1, shape, dtype, old14(), &t) == TSR_OK);
    return Tensor(t);
  }
};

// Casts t to float32 through the C API; the status and the thread's message.
std::pair<tsr_status, std::string> try_float(const Tensor& t, Tensor* out) {
  tsr_tensor* r = nullptr;
  const tsr_status st = tsr_to_dtype(t.get(), TSR_FLOAT32, &r);
  if (st == TSR_OK) *out = Tensor(r);
  return {st, st == TSR_OK ? "" : tsr_last_error_message()};
}

}  // namespace

TEST_CASE("a 1.4 plugin loads as 1.4 and runs what 1.4 knows natively") {
  long long calls = 0;
  Runtime r(true, &calls);
  REQUIRE(r.created == TSR_OK);
  CHECK(r.log.find("good_abi_1_4") == std::string::npos);  // nothing to warn about at load
  const Tensor a = r.on_old14(std::vector<float>{1.5f, -2.0f, 3.25f}, TSR_FLOAT32);
  const Tensor b = r.on_old14(std::vector<int64_t>{1, 2, 3}, TSR_INT64);
  Tensor sum, bf;
  calls = 0;
  REQUIRE(try_float(b, &bf).first == TSR_OK);  // int64 is 1.4's: its COPY runs
  CHECK(calls == 1);
  tsr_tensor* s = nullptr;
  REQUIRE(tsr_binary(TSR_OP_ADD, a.get(), bf.get(), &s) == TSR_OK);
  sum = Tensor(s);
  CHECK(calls == 2);
  CHECK(sum.to_vector<float>() == std::vector<float>{2.5f, 0.0f, 6.25f});
}

TEST_CASE("a 1.4 plugin's COPY never sees a uint64 or complex source; the fallback runs it") {
  long long calls = 0;
  Runtime r(true, &calls);
  REQUIRE(r.created == TSR_OK);
  const Tensor u = r.on_old14(std::vector<uint64_t>{1, uint64_t{1} << 40, ~uint64_t{0}}, TSR_UINT64);
  const Tensor c = r.on_old14(std::vector<float>{1.5f, 9.0f, -4.0f, 0.5f}, TSR_COMPLEX64);
  Tensor uf, cf;
  calls = 0;
  StderrCapture capture;
  const auto [ust, umsg] = try_float(u, &uf);
  const auto [cst, cmsg] = try_float(c, &cf);
  const std::string log = capture.text();
  REQUIRE(ust == TSR_OK);  // was: copy (float32) failed ...: copy from unknown dtype 12
  REQUIRE(cst == TSR_OK);
  CHECK(calls == 0);  // neither reached the plugin
  CHECK(uf.to_vector<float>() == std::vector<float>{1.0f, 1099511627776.0f, 18446744073709551616.0f});
  CHECK(cf.to_vector<float>() == std::vector<float>{1.5f, -4.0f});  // the real parts
  CHECK(tsr_tensor_device(uf.get()).type == r.old14().type);
  // One warning per (op, dtype): it says why the plugin's own kernel did not run.
  CHECK(log.find("copy (float32) on old14:0: plugin \"vendor14\" was built against ABI 1.4, which predates the "
                 "dtype uint64 (ABI 1.5) of input 0; running it on the CPU") != std::string::npos);
}

TEST_CASE("without the fallback, the error names the plugin, its ABI and what it predates") {
  long long calls = 0;
  Runtime r(false, &calls);
  REQUIRE(r.created == TSR_OK);
  const Tensor u = r.on_old14(std::vector<uint32_t>{7, 8}, TSR_UINT32);
  const Tensor c = r.on_old14(std::vector<double>{1.0, 2.0}, TSR_COMPLEX128);
  Tensor out;
  calls = 0;
  const auto [ust, umsg] = try_float(u, &out);
  CHECK(ust == TSR_ERR_UNSUPPORTED);
  CHECK(umsg ==
        "copy (float32) on old14:0: plugin \"vendor14\" was built against ABI 1.4, which predates the dtype uint32 "
        "(ABI 1.5) of input 0, and its config does not allow the CPU fallback (\"fallback\": false)");
  const auto [cst, cmsg] = try_float(c, &out);
  CHECK(cst == TSR_ERR_UNSUPPORTED);
  CHECK(cmsg.find("predates the dtype complex128 (ABI 1.7) of input 0") != std::string::npos);
  CHECK(calls == 0);
}

TEST_CASE("a 1.4 plugin's kernel entries for what 1.4 predates are refused at load") {
  long long calls = 0;
  Runtime op(true, &calls, 1);
  CHECK(op.created == TSR_ERR_LOAD);
  CHECK(op.message.find("good_abi_1_4.so") != std::string::npos);
  CHECK(op.message.find("kernel table entry 3 (op \"math\", dtype float64) names an op of ABI 1.5, which the "
                        "plugin's ABI 1.4 predates") != std::string::npos);
  Runtime dtype(true, &calls, 2);
  CHECK(dtype.created == TSR_ERR_LOAD);
  CHECK(dtype.message.find("kernel table entry 3 (op \"fill\", dtype uint64) names a dtype of ABI 1.5, which the "
                           "plugin's ABI 1.4 predates") != std::string::npos);
}

TEST_CASE("a communicator of ABI 1.5 is never handed a complex tensor") {
  const std::string json = std::string(R"({"plugins": [
    {"name": "cpu_tbb", "library": ")") + test_paths::cpu_plugin + R"("},
    {"name": "single15", "library": ")" + test_paths::loader_plugin_dir + R"(/comm_only.so", "options": {"abi_minor": 5}}],
    "communicators": {"cpu": "single15"}, "default_device": "cpu"})";
  tsr_runtime_options opts = TSR_RUNTIME_OPTIONS_INIT;
  opts.config_json = json.c_str();
  opts.strict_plugins = 1;
  tsr_runtime* rt = nullptr;
  REQUIRE(tsr_runtime_create(&opts, &rt) == TSR_OK);
  tsr_comm* world = nullptr;
  REQUIRE(tsr_comm_world(rt, "cpu", &world) == TSR_OK);
  const int64_t shape[1] = {2};
  tsr_tensor *f = nullptr, *z = nullptr;
  REQUIRE(tsr_ones(rt, 1, shape, TSR_FLOAT32, tsr_device{TSR_DEVICE_CPU, 0}, &f) == TSR_OK);
  REQUIRE(tsr_ones(rt, 1, shape, TSR_COMPLEX64, tsr_device{TSR_DEVICE_CPU, 0}, &z) == TSR_OK);
  CHECK(tsr_all_reduce(world, f, TSR_REDUCE_SUM, nullptr, nullptr) == TSR_OK);
  CHECK(tsr_all_reduce(world, z, TSR_REDUCE_SUM, nullptr, nullptr) == TSR_ERR_UNSUPPORTED);
  CHECK(std::string(tsr_last_error_message()) ==
        "all_reduce on rank 0 of 1: communicator plugin \"single15\" was built against ABI 1.5, which predates the "
        "dtype complex64 (ABI 1.7)");
  tsr_tensor_release(f);
  tsr_tensor_release(z);
  tsr_comm_release(world);
  tsr_runtime_destroy(rt);
}

TEST_CASE("newer_than finds each kind of newer thing a minor predates") {
  using tessera::rt::newer_than;
  tsr_tensor_desc f32{}, u16{}, c64{};
  f32.dtype = TSR_FLOAT32;
  u16.dtype = TSR_UINT16;
  c64.dtype = TSR_COMPLEX64;
  const tsr_tensor_desc* in[2] = {&f32, &u16};
  tsr_kernel_args args{};
  args.struct_size = TSR_KERNEL_ARGS_STRUCT_SIZE;
  args.op = TSR_OP_ADD;
  args.inputs = in;
  args.num_inputs = 2;
  args.output = &f32;
  CHECK(newer_than(5, args).kind == tessera::rt::NewerThing::kNone);
  CHECK(newer_than(4, args).describe() == "the dtype uint16 (ABI 1.5) of input 1");
  args.num_inputs = 1;
  args.output = &c64;
  CHECK(newer_than(6, args).describe() == "the dtype complex64 (ABI 1.7) of the output");
  CHECK(!newer_than(7, args));
  args.output = &f32;
  const tsr_tensor_desc* more[1] = {&c64};
  args.more_outputs = more;
  args.num_more_outputs = 1;
  CHECK(newer_than(6, args).describe() == "the dtype complex64 (ABI 1.7) of further output 0");
  args.num_more_outputs = 0;
  // An op of 1.6 to a 1.5 plugin, a MATH function of 1.7 to a 1.6 one.
  args.op = TSR_OP_QR;
  CHECK(newer_than(5, args).describe() == "the op qr (ABI 1.6)");
  args.op = TSR_OP_MATH;
  const int64_t conj[1] = {TSR_MATH_CONJ}, sin[1] = {TSR_MATH_SIN};
  args.params = conj;
  args.num_params = 1;
  CHECK(newer_than(6, args).describe() == "the MATH function conj (ABI 1.7) in params[0]");
  args.params = sin;
  CHECK(!newer_than(6, args));
  CHECK(newer_than(4, args).describe() == "the op math (ABI 1.5)");
  // A complex scalar (ABI 1.7) to a 1.6 plugin.
  args.op = TSR_OP_FILL;
  args.num_inputs = 0;
  const tsr_scalar z[2] = {tsr_scalar_float(1.0), tsr_scalar_complex(1.0, 2.0)};
  args.scalars = z;
  args.num_scalars = 2;
  CHECK(newer_than(6, args).describe() == "a complex scalar (ABI 1.7) of scalar 1");
  // The args a 1.5 plugin reads end before more_outputs (ABI 1.6).
  CHECK(tessera::rt::kernel_args_size(5) == TSR_STRUCT_SIZE(tsr_kernel_args, stream));
  CHECK(tessera::rt::kernel_args_size(7) == sizeof(tsr_kernel_args));
}
