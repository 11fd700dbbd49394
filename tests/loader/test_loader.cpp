// SPDX-License-Identifier: Apache-2.0
// The plugin loader (runtime/plugin_loader.cpp): every bad plugin of
// tests/data/plugins is refused with the message its .expected file names,
// the good ones load, negotiate, work through their tables and unload, and
// so does the real cpu_tbb.so.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "error.hpp"
#include "paths.hpp"
#include "plugin_loader.hpp"
#include "registry.hpp"
#include "tessera/tessera.h"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using namespace tessera::rt;

namespace {

const fs::path kTestPlugins = test_paths::loader_plugin_dir;               // built test plugins
const fs::path kExpectations = fs::path(test_paths::data_dir) / "plugins";  // their .expected files

Error error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no tessera::rt::Error was thrown");
  return Error(TSR_OK, "");
}

// Options that let a test plugin count its destroy calls into `counter`.
std::string counting_options(long long* counter, const std::string& more = "") {
  return "{\"destroy_counter\": " + std::to_string(reinterpret_cast<uintptr_t>(counter)) + more + "}";
}

PluginConfig plugin_config(const std::string& name, const std::string& library, const std::string& options = "{}") {
  PluginConfig c;
  c.name = name;
  c.library = library;
  c.options_json = options;
  c.pointer = "/plugins/0";
  return c;
}

struct Expectation {
  tsr_status status = TSR_OK;
  long long destroy_calls = -1;
  std::vector<std::string> messages;
};

tsr_status status_from_name(const std::string& name) {
  for (int s = 0; s <= TSR_ERR_INTERNAL; ++s) {
    static const char* const names[] = {"TSR_OK", "TSR_ERR_INVALID_ARGUMENT", "TSR_ERR_INDEX", "TSR_ERR_SHAPE",
                                        "TSR_ERR_TYPE", "TSR_ERR_UNSUPPORTED", "TSR_ERR_OUT_OF_MEMORY",
                                        "TSR_ERR_DEVICE", "TSR_ERR_VERSION", "TSR_ERR_LOAD", "TSR_ERR_CONFIG",
                                        "TSR_ERR_INTERNAL"};
    if (name == names[s]) return static_cast<tsr_status>(s);
  }
  FAIL("unknown status name " << name);
  return TSR_OK;
}

Expectation read_expectation(const fs::path& file) {
  std::ifstream in(file);
  Expectation e;
  for (std::string line; std::getline(in, line);) {
    const size_t colon = line.find(": ");
    REQUIRE(colon != std::string::npos);
    const std::string key = line.substr(0, colon), value = line.substr(colon + 2);
    if (key == "status") e.status = status_from_name(value);
    else if (key == "destroy_calls") e.destroy_calls = std::stoll(value);
    else if (key == "message") e.messages.push_back(value);
    else FAIL("unknown key " << key << " in " << file);
  }
  return e;
}

bool is_mapped(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (h != nullptr) dlclose(h);
  return h != nullptr;
}

// Runs `kernel` FILL(value) on a float32 tensor of `shape`/`strides`/`offset`
// in memory from the plugin's allocator, and returns the whole buffer.
std::vector<float> fill_through_plugin(const LoadedPlugin& p, std::vector<int64_t> shape, std::vector<int64_t> strides,
                                       int64_t offset, size_t buffer_elems, float value) {
  const tsr_plugin_api& api = p.api();
  const tsr_device_iface& dev = p.device();
  tsr_kernel_fn fill = nullptr;
  for (const tsr_kernel_entry& k : p.kernels())
    if (k.op == TSR_OP_FILL && k.dtype == TSR_FLOAT32) fill = k.fn;
  REQUIRE(fill != nullptr);

  const size_t nbytes = buffer_elems * sizeof(float);
  void* data = nullptr;
  REQUIRE(dev.allocate(api.ctx, 0, nbytes, &data) == TSR_OK);
  CHECK(reinterpret_cast<uintptr_t>(data) % 64 == 0);
  std::vector<float> host(buffer_elems, -1.0f);
  REQUIRE(dev.copy_host_to_device(api.ctx, 0, data, host.data(), nbytes, nullptr) == TSR_OK);

  tsr_tensor_desc out{};
  out.struct_size = TSR_TENSOR_DESC_STRUCT_SIZE;
  out.data = data;
  out.offset = offset;
  out.ndim = static_cast<int32_t>(shape.size());
  out.dtype = TSR_FLOAT32;
  out.device = tsr_device{api.device_type, 0};
  std::copy(shape.begin(), shape.end(), out.shape);
  std::copy(strides.begin(), strides.end(), out.strides);
  tsr_scalar scalar{};
  scalar.kind = TSR_SCALAR_FLOAT;
  scalar.f = value;
  tsr_kernel_args args{};
  args.struct_size = TSR_KERNEL_ARGS_STRUCT_SIZE;
  args.op = TSR_OP_FILL;
  args.output = &out;
  args.scalars = &scalar;
  args.num_scalars = 1;
  CHECK(fill(api.ctx, &args) == TSR_OK);
  REQUIRE(dev.synchronize(api.ctx, 0) == TSR_OK);
  REQUIRE(dev.copy_device_to_host(api.ctx, 0, host.data(), data, nbytes, nullptr) == TSR_OK);
  dev.deallocate(api.ctx, 0, data, nbytes);
  return host;
}

}  // namespace

TEST_CASE("every bad plugin is refused with its expected message") {
  std::vector<fs::path> expectations;
  for (const auto& e : fs::directory_iterator(kExpectations))
    if (e.path().extension() == ".expected") expectations.push_back(e.path());
  std::sort(expectations.begin(), expectations.end());
  REQUIRE(expectations.size() >= 10);

  for (const auto& file : expectations) {
    const std::string stem = file.stem().string();
    const std::string path = (kTestPlugins / (stem + ".so")).string();
    INFO("plugin " << path);
    REQUIRE(fs::exists(path));
    const Expectation want = read_expectation(file);
    REQUIRE(!want.messages.empty());
    REQUIRE(want.destroy_calls >= 0);

    long long destroyed = 0;
    const PluginConfig cfg = plugin_config(stem, path, counting_options(&destroyed));
    const Error e = error_of([&] { load_plugin(cfg, "/", {}); });
    const std::string message = e.what();
    CHECK(e.status() == want.status);
    CHECK_THAT(message, Catch::StartsWith("plugin \"" + stem + "\" (" + path + "): "));
    for (const auto& m : want.messages) CHECK_THAT(message, Catch::Contains(m));
    CHECK(destroyed == want.destroy_calls);
  }
}

TEST_CASE("a plugin that is only a communicator loads without device or kernel tables") {
  long long destroyed = 0;
  {
    const std::string path = (kTestPlugins / "comm_only.so").string();
    auto plugin = load_plugin(plugin_config("single", path, counting_options(&destroyed)), "/", {});
    CHECK_FALSE(plugin->has_devices());
    REQUIRE(plugin->comm() != nullptr);
    CHECK(std::string(plugin->comm()->name) == "single");
    CHECK(plugin->comm()->struct_size == sizeof(tsr_comm_iface));
    CHECK(plugin->kernels().empty());
    tsr_comm_handle world = nullptr;
    REQUIRE(plugin->comm()->world(plugin->api().ctx, 1.0, &world) == TSR_OK);
    CHECK(plugin->comm()->size(plugin->api().ctx, world) == 1);
    // The registry gives it no device type.
    Registry registry;
    registry.add(*plugin);
    CHECK(registry.types().empty());
  }
  CHECK(destroyed == 1);
}

TEST_CASE("a missing library names where it was looked for") {
  Error e = error_of([] { load_plugin(plugin_config("foo", "foo.so"), "/base", {"/a", "/b"}); });
  CHECK(e.status() == TSR_ERR_LOAD);
  CHECK(std::string(e.what()) == "plugin \"foo\" (library \"foo.so\"): file not found; looked in: /a, /b");

  e = error_of([] { load_plugin(plugin_config("foo", "sub/foo.so"), "/base", {"/a"}); });
  CHECK(e.status() == TSR_ERR_LOAD);
  CHECK(std::string(e.what()) == "plugin \"foo\" (library \"sub/foo.so\"): file not found: /base/sub/foo.so");
}

TEST_CASE("good_minimal loads, negotiates, works through its tables and unloads") {
  const std::string path = (kTestPlugins / "good_minimal.so").string();
  REQUIRE_FALSE(is_mapped(path));
  long long destroyed = 0;
  // A path relative to the config's directory, as a config would write it.
  const PluginConfig cfg = plugin_config("mini", kTestPlugins.filename().string() + "/good_minimal.so",
                                         counting_options(&destroyed, ", \"devices\": 2"));
  auto p = load_plugin(cfg, kTestPlugins.parent_path().string(), {"/nonexistent"});
  REQUIRE(p != nullptr);
  CHECK(is_mapped(path));
  CHECK(p->path() == path);
  CHECK(p->config().name == "mini");
  CHECK(p->abi_version() == TSR_ABI_VERSION);

  const tsr_plugin_api& api = p->api();
  CHECK(api.struct_size == sizeof(tsr_plugin_api));
  CHECK(api.device_type == TSR_DEVICE_UNDEFINED);
  CHECK(std::string(api.device_type_name) == "null");
  CHECK(std::string(api.plugin_name) == "good_minimal");
  CHECK(std::string(api.plugin_version) == "1.0.0");
  CHECK(api.device == &p->device());
  REQUIRE(api.kernels != nullptr);
  CHECK(api.kernels->count == p->kernels().size());

  // The options and the instance name reached the plugin.
  const tsr_device_iface& dev = p->device();
  CHECK(dev.device_count(api.ctx) == 2);
  tsr_device_properties props{};
  props.struct_size = sizeof props;
  REQUIRE(dev.get_properties(api.ctx, 1, &props) == TSR_OK);
  CHECK(std::string(props.name) == "null device 1 of mini");
  CHECK(props.host_accessible == 1);
  // Optional slots the plugin left out read as NULL.
  CHECK(dev.stream_create == nullptr);
  CHECK(dev.empty_cache == nullptr);

  REQUIRE(p->kernels().size() == 1);
  CHECK(p->kernels()[0].op == TSR_OP_FILL);
  CHECK(p->kernels()[0].dtype == TSR_FLOAT32);
  // A (2, 3) view with strides (1, 2) at offset 1 covers elements 1..6 of 8.
  const auto buf = fill_through_plugin(*p, {2, 3}, {1, 2}, 1, 8, 2.5f);
  CHECK(buf == std::vector<float>{-1.0f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f, -1.0f});

  CHECK(destroyed == 0);
  p.reset();
  CHECK(destroyed == 1);
  // Built without -z nodelete, so unloading really unmaps it.
  CHECK_FALSE(is_mapped(path));
}

TEST_CASE("two instances of one library coexist") {
  long long destroyed = 0;
  const std::vector<std::string> dirs{kTestPlugins.string()};
  auto one = load_plugin(plugin_config("one", "good_minimal.so", counting_options(&destroyed, ", \"devices\": 1")),
                         "/", dirs);
  auto three = load_plugin(
      plugin_config("three", "good_minimal.so", counting_options(&destroyed, ", \"devices\": 3")), "/", dirs);
  CHECK(one->api().ctx != three->api().ctx);
  CHECK(one->device().device_count(one->api().ctx) == 1);
  CHECK(three->device().device_count(three->api().ctx) == 3);
  one.reset();
  CHECK(destroyed == 1);
  // The library stays loaded for the other instance.
  CHECK(three->device().device_count(three->api().ctx) == 3);
  three.reset();
  CHECK(destroyed == 2);
}

TEST_CASE("a plugin of a newer minor version loads; what this runtime does not know is ignored") {
  long long destroyed = 0;
  auto p = load_plugin(plugin_config("newer", "good_newer_minor.so", counting_options(&destroyed)), "/",
                       {kTestPlugins.string()});
  CHECK(p->abi_version() == TSR_MAKE_VERSION(1, 7));
  // Only (fill, float32): the entries with an unknown op or dtype are skipped.
  REQUIRE(p->kernels().size() == 1);
  CHECK(p->kernels()[0].op == TSR_OP_FILL);
  CHECK(p->kernels()[0].dtype == TSR_FLOAT32);
  CHECK(p->device().struct_size == sizeof(tsr_device_iface));
  CHECK(p->device().unavailable_reason == nullptr);
  CHECK(std::string(p->api().plugin_name).empty());  // NULL normalised to ""
  const auto buf = fill_through_plugin(*p, {3}, {1}, 0, 3, 7.0f);
  CHECK(buf == std::vector<float>{7.0f, 7.0f, 7.0f});
  p.reset();
  CHECK(destroyed == 1);
}

TEST_CASE("a plugin of an older minor version loads; the slots it predates read as absent") {
  long long counter = 0;
  auto p = load_plugin(plugin_config("older", "good_older_minor.so", counting_options(&counter)), "/",
                       {kTestPlugins.string()});
  CHECK(p->abi_version() == TSR_MAKE_VERSION(1, 0));
  // Its struct_size ends before memory_stats (ABI 1.1); the poisoned pointer past it is not copied.
  CHECK(p->device().memory_stats == nullptr);
  CHECK(p->device().empty_cache == nullptr);
  const auto buf = fill_through_plugin(*p, {2, 2}, {2, 1}, 1, 5, 3.5f);
  CHECK(buf == std::vector<float>{-1.0f, 3.5f, 3.5f, 3.5f, 3.5f});
  p.reset();
  CHECK(counter == 1);  // destroyed once; the poison (+1000) never ran

  // Through the public API: the 1.1 calls fall back.
  counter = 0;
  const std::string config = R"({"plugins": [{"name": "older", "library": ")" +
                             (kTestPlugins / "good_older_minor.so").string() + R"(", "options": )" +
                             counting_options(&counter) + "}]}";
  tsr_runtime_options ro{};
  ro.struct_size = TSR_RUNTIME_OPTIONS_STRUCT_SIZE;
  ro.config_json = config.c_str();
  ro.strict_plugins = 1;
  tsr_runtime* rt = nullptr;
  REQUIRE(tsr_runtime_create(&ro, &rt) == TSR_OK);
  tsr_device null0{};
  REQUIRE(tsr_device_parse(rt, "null:0", &null0) == TSR_OK);
  CHECK(tsr_empty_cache(rt, null0) == TSR_OK);  // optional slot absent: a no-op
  tsr_memory_stats stats{};
  stats.struct_size = TSR_MEMORY_STATS_STRUCT_SIZE;
  CHECK(tsr_get_memory_stats(rt, null0, &stats) == TSR_ERR_UNSUPPORTED);
  CHECK(std::string(tsr_last_error_message()) ==
        "memory statistics: plugin \"older\" (null:0) does not report memory use");
  int64_t shape[1] = {3};
  tsr_scalar v{};
  v.kind = TSR_SCALAR_FLOAT;
  v.f = 2.25;
  tsr_tensor* t = nullptr;
  REQUIRE(tsr_full(rt, 1, shape, v, TSR_FLOAT32, null0, &t) == TSR_OK);
  float back[3] = {};
  REQUIRE(tsr_read(t, back, sizeof back) == TSR_OK);
  CHECK((back[0] == 2.25f && back[1] == 2.25f && back[2] == 2.25f));
  tsr_tensor_release(t);
  tsr_runtime_destroy(rt);
  CHECK(counter == 1);
}

TEST_CASE("the host api stores errors per thread and logs one line") {
  const tsr_host_api* host = host_api();
  CHECK(host->struct_size == TSR_HOST_API_STRUCT_SIZE);
  CHECK(host->abi_version == TSR_ABI_VERSION);
  clear_last_error();
  host->set_error(TSR_ERR_DEVICE, "no such widget");
  CHECK(last_error_status() == TSR_ERR_DEVICE);
  CHECK(std::string(last_error_message()) == "no such widget");
  clear_last_error();

  CHECK(parse_log_level("DEBUG", TSR_LOG_WARNING) == TSR_LOG_DEBUG);
  CHECK(parse_log_level("info", TSR_LOG_WARNING) == TSR_LOG_INFO);
  CHECK(parse_log_level("warn", TSR_LOG_ERROR) == TSR_LOG_WARNING);
  CHECK(parse_log_level("3", TSR_LOG_WARNING) == TSR_LOG_ERROR);
  CHECK(parse_log_level("off", TSR_LOG_WARNING) > TSR_LOG_ERROR);
  CHECK(parse_log_level("loud", TSR_LOG_WARNING) == TSR_LOG_WARNING);
  CHECK(parse_log_level(nullptr, TSR_LOG_INFO) == TSR_LOG_INFO);

  // Capture stderr in a file for the two calls.
  const fs::path capture = fs::temp_directory_path() / ("tessera_test_log_" + std::to_string(::getpid()));
  std::fflush(stderr);
  const int saved = ::dup(2);
  const int fd = ::open(capture.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
  REQUIRE(fd >= 0);
  ::dup2(fd, 2);
  host->log(TSR_LOG_ERROR, "widget on fire");
  host->log(TSR_LOG_DEBUG, "widget warm");
  std::fflush(stderr);
  ::dup2(saved, 2);
  ::close(fd);
  ::close(saved);
  std::ifstream in(capture);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove(capture);

  const int threshold = parse_log_level(std::getenv("TESSERA_LOG_LEVEL"), TSR_LOG_WARNING);
  std::string expected;
  if (threshold <= TSR_LOG_ERROR) expected += "tessera: error: widget on fire\n";
  if (threshold <= TSR_LOG_DEBUG) expected += "tessera: debug: widget warm\n";
  CHECK(text.str() == expected);
}

TEST_CASE("the real cpu_tbb.so loads, negotiates and unloads") {
  const fs::path path = fs::path(test_paths::plugin_dir) / "cpu_tbb.so";
  INFO("expected the CPU plugin at " << path);
  REQUIRE(fs::exists(path));  // a failure, not a skip: the runtime is useless without it

  auto p = load_plugin(plugin_config("cpu", "cpu_tbb.so"), "/", plugin_search_dirs());
  CHECK(p->path() == path.lexically_normal().string());
  CHECK(TSR_VERSION_MAJOR(p->abi_version()) == TSR_ABI_VERSION_MAJOR);
  CHECK(p->api().device_type == TSR_DEVICE_CPU);
  CHECK(std::string(p->api().device_type_name) == "cpu");
  CHECK(p->device().device_count(p->api().ctx) >= 1);
  CHECK(!p->kernels().empty());
  // Its FILL on a strided view of its own memory.
  const auto buf = fill_through_plugin(*p, {2, 2}, {4, 1}, 1, 8, -3.0f);
  CHECK(buf == std::vector<float>{-1.0f, -3.0f, -3.0f, -1.0f, -1.0f, -3.0f, -3.0f, -1.0f});
  p.reset();  // destroy, then unload: must not crash or leak
}
