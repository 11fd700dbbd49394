// SPDX-License-Identifier: Apache-2.0
#include "plugin_loader.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

#include "abi_history.hpp"
#include "error.hpp"
#include "paths.hpp"
#include "plugin_call.hpp"
#include "tessera/tessera.h"

namespace tessera::rt {
namespace {


// The smallest layouts this runtime accepts: those of ABI 1.0. Named by the
// last field 1.0 had, so they stay right when later minors append fields.
constexpr size_t kMinPluginApiSize = TSR_STRUCT_SIZE(tsr_plugin_api, destroy);
constexpr size_t kMinDeviceIfaceSize = TSR_STRUCT_SIZE(tsr_device_iface, empty_cache);
constexpr size_t kMinKernelTableSize = TSR_STRUCT_SIZE(tsr_kernel_table, entries);
constexpr size_t kMinCommIfaceSize = TSR_STRUCT_SIZE(tsr_comm_iface, request_free);

const char* level_name(int32_t level) {
  switch (level) {
    case TSR_LOG_DEBUG: return "debug";
    case TSR_LOG_INFO: return "info";
    case TSR_LOG_WARNING: return "warning";
    default: return level < TSR_LOG_DEBUG ? "debug" : "error";
  }
}

void host_log(int32_t level, const char* message) noexcept {
  static const int threshold = parse_log_level(std::getenv("TESSERA_LOG_LEVEL"), TSR_LOG_WARNING);
  if (level < threshold) return;
  try {
    // One write, so that lines from several threads do not interleave.
    std::string line = std::string("tessera: ") + level_name(level) + ": ";
    // Note [Calling into a plugin]: the plugin this thread is calling, if any.
    if (const auto* current = static_cast<const LoadedPlugin*>(call_state().plugin); current != nullptr)
      line += "plugin \"" + current->config().name + "\": ";
    line += (message ? message : "");
    line += "\n";
    std::fwrite(line.data(), 1, line.size(), stderr);
  } catch (...) {
    // Out of memory while logging: the line is lost, nothing else.
  }
}

std::string status_name(tsr_status s) {
  const std::string name = tsr_status_name(s);
  return name != "TSR_ERR_UNKNOWN" ? name : "status " + std::to_string(static_cast<int>(s));
}

std::string version_string(uint32_t v) {
  return std::to_string(TSR_VERSION_MAJOR(v)) + "." + std::to_string(TSR_VERSION_MINOR(v));
}

// Boost.DLL turns a failed dlopen into an error_code and clears dlerror(), so
// the loader's own reason ("invalid ELF header", "undefined symbol: x") would
// be lost. So the library is first opened here with dlopen, which reports
// that text; the handle is held until Boost.DLL has taken its own reference
// (the same handle, so the library initialises once), then closed.
class DlHandle {
 public:
  explicit DlHandle(void* h) : handle_(h) {}
  DlHandle(const DlHandle&) = delete;
  DlHandle& operator=(const DlHandle&) = delete;
  ~DlHandle() {
    if (handle_) dlclose(handle_);
  }
  void* get() const { return handle_; }
  // Keeps the library mapped for the rest of the process.
  void leak() { handle_ = nullptr; }

 private:
  void* handle_;
};

}  // namespace

const LoadedPlugin* current_plugin() noexcept { return static_cast<const LoadedPlugin*>(call_state().plugin); }

std::string plugin_message() {
  const char* m = last_error_message();
  const CallState& s = call_state();
  if (s.generation == s.call_start || m == nullptr || m[0] == '\0')
    return "the plugin gave no message";
  return m;
}

int parse_log_level(const char* text, int fallback) {
  if (text == nullptr) return fallback;
  std::string s = text;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (s == "debug" || s == "0") return TSR_LOG_DEBUG;
  if (s == "info" || s == "1") return TSR_LOG_INFO;
  if (s == "warning" || s == "warn" || s == "2") return TSR_LOG_WARNING;
  if (s == "error" || s == "3") return TSR_LOG_ERROR;
  if (s == "off" || s == "none" || s == "4") return TSR_LOG_ERROR + 1;
  return fallback;
}

const tsr_host_api* host_api() {
  static const tsr_host_api table = {TSR_HOST_API_STRUCT_SIZE, TSR_ABI_VERSION, 0, &set_last_error, &host_log};
  return &table;
}

LoadedPlugin::~LoadedPlugin() {
  if (api_.destroy != nullptr) {
    PluginCall call(this);
    try {
      api_.destroy(api_.ctx);
    } catch (...) {
      // A destroy that throws breaks the ABI; a destructor can only log it.
      try {
        host_log(TSR_LOG_ERROR, ("plugin \"" + config_.name + "\": destroy threw a C++ exception").c_str());
      } catch (...) {
      }
    }
  }
  library_.unload();
}

std::unique_ptr<LoadedPlugin> load_plugin(const PluginConfig& cfg, const std::string& base_dir,
                                          const std::vector<std::string>& search_dirs) {
  std::string tried;
  const std::string path = resolve_library(cfg.library, base_dir, search_dirs, &tried);
  if (path.empty()) {
    const bool is_path = cfg.library.find('/') != std::string::npos;
    fail(TSR_ERR_LOAD, "plugin \"" + cfg.name + "\" (library \"" + cfg.library + "\"): file not found" +
                           (is_path ? ": " : "; looked in: ") + tried);
  }
  const std::string who = "plugin \"" + cfg.name + "\" (" + path + "): ";
  const auto load_error = [&](const std::string& why) { fail(TSR_ERR_LOAD, who + why); };

  dlerror();
  DlHandle probe(dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (probe.get() == nullptr) {
    const char* text = dlerror();
    std::string why = text ? text : "dlopen failed without a reason";
    // glibc starts with "<path>: ", which the message already names.
    if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);
    load_error("not a loadable shared library: " + why);
  }

  std::unique_ptr<LoadedPlugin> plugin(new LoadedPlugin);
  plugin->config_ = cfg;
  plugin->path_ = path;
  boost::dll::fs::error_code ec;
  plugin->library_.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
  if (ec) load_error("not a loadable shared library: " + ec.message());
  if (!plugin->library_.has(TSR_PLUGIN_ENTRY_SYMBOL))
    load_error("has no entry point \"" TSR_PLUGIN_ENTRY_SYMBOL "\"");
  auto& init = plugin->library_.get<tsr_status(const tsr_plugin_init_args*, const tsr_plugin_api**)>(
      TSR_PLUGIN_ENTRY_SYMBOL);

  tsr_plugin_init_args args{};
  args.struct_size = TSR_PLUGIN_INIT_ARGS_STRUCT_SIZE;
  args.abi_version = TSR_ABI_VERSION;
  args.host = host_api();
  args.options_json = cfg.options_json.c_str();
  args.instance_name = cfg.name.c_str();

  const tsr_plugin_api* raw = nullptr;
  tsr_status status = TSR_OK;
  std::string thrown;
  bool threw = false;
  // The entry point breaks the ABI if it throws, but a plugin is C++ built
  // with our compiler, so the exception can be caught and reported.
  try {
    PluginCall call(plugin.get());
    status = init(&args, &raw);
  } catch (const std::exception& e) {
    threw = true;
    thrown = e.what();
  } catch (...) {
    threw = true;
    thrown = "an exception not derived from std::exception";
  }
  if (threw) {
    // destroy is not called: init did not finish, so there is no ctx to give
    // it. The library is leaked deliberately: a half-run init may have left
    // threads, atexit handlers or TLS destructors pointing into its code, and
    // unmapping it would turn this clean error into a later crash.
    probe.leak();
    load_error("entry point threw a C++ exception: " + thrown);
  }
  if (status != TSR_OK) {
    fail(status == TSR_ERR_VERSION ? TSR_ERR_VERSION : TSR_ERR_LOAD,
         who + "entry point failed with " + status_name(status) + ": " + plugin_message());
  }
  if (raw == nullptr) load_error("entry point returned TSR_OK but no plugin api");

  // The major version first: a plugin of another major may lay out even the
  // rest of this struct differently, so nothing else of it is read, called
  // or destroyed.
  const size_t size = raw->struct_size;
  if (size >= TSR_STRUCT_SIZE(tsr_plugin_api, abi_version) &&
      TSR_VERSION_MAJOR(raw->abi_version) != TSR_ABI_VERSION_MAJOR)
    fail(TSR_ERR_VERSION, who + "ABI version mismatch: plugin speaks " + version_string(raw->abi_version) +
                              ", runtime speaks " + version_string(TSR_ABI_VERSION));
  if (size < kMinPluginApiSize)
    load_error("struct_size " + std::to_string(size) + " of tsr_plugin_api is smaller than the smallest known layout (" +
               std::to_string(kMinPluginApiSize) + " bytes)");

  // From here on the api is trusted enough that a failure below destroys it
  // (through ~LoadedPlugin) before the library is unloaded.
  tsr_plugin_api& api = plugin->api_;
  std::memcpy(&api, raw, std::min(size, sizeof api));
  api.struct_size = sizeof api;
  plugin->abi_version_ = raw->abi_version;
  // Names are optional to read: "" rather than NULL spares every reader a check.
  for (const char** name : {&api.device_type_name, &api.plugin_name, &api.plugin_version})
    if (*name == nullptr) *name = "";

  // Since ABI 1.5: a communicator (optional), checked first, because a
  // plugin that is only a communicator has no device or kernel table.
  // Copies a table the plugin owns into ours, refusing one smaller than the
  // smallest layout this runtime knows; checks the required slots.
  const auto copy_table = [&](const auto* src, auto& dst, size_t min_size, const char* type) {
    const size_t table_size = src->struct_size;
    if (table_size < min_size)
      load_error("struct_size " + std::to_string(table_size) + " of " + type +
                 " is smaller than the smallest known layout (" + std::to_string(min_size) + " bytes)");
    std::memcpy(&dst, src, std::min(table_size, sizeof dst));
    dst.struct_size = sizeof dst;
  };
  const auto require_slots = [&](std::initializer_list<std::pair<const char*, bool>> slots, const char* iface) {
    for (const auto& [slot, present] : slots)
      if (!present) load_error(std::string(iface) + " lacks required slot \"" + slot + "\"");
  };
  if (api.comm != nullptr) {
    tsr_comm_iface& comm = plugin->comm_;
    copy_table(api.comm, comm, kMinCommIfaceSize, "tsr_comm_iface");
    if (comm.name == nullptr) comm.name = "";
    require_slots({{"world", comm.world != nullptr},
                   {"rank", comm.rank != nullptr},
                   {"size", comm.size != nullptr},
                   {"split", comm.split != nullptr},
                   {"release", comm.release != nullptr},
                   {"start", comm.start != nullptr},
                   {"wait", comm.wait != nullptr},
                   {"test", comm.test != nullptr},
                   {"request_free", comm.request_free != nullptr}},
                  "communicator interface");
    api.comm = &plugin->comm_;
    if (api.device == nullptr) {
      // Only a communicator: nothing more to check.
      plugin->has_devices_ = false;
      plugin->kernel_table_ = {sizeof(tsr_kernel_table), 0, nullptr};
      api.kernels = &plugin->kernel_table_;
      api.device = &plugin->device_;
      return plugin;
    }
  }

  if (api.device == nullptr) load_error("has no device interface");
  tsr_device_iface& device = plugin->device_;
  copy_table(api.device, device, kMinDeviceIfaceSize, "tsr_device_iface");
  require_slots({{"device_count", device.device_count != nullptr},
                 {"get_properties", device.get_properties != nullptr},
                 {"allocate", device.allocate != nullptr},
                 {"deallocate", device.deallocate != nullptr},
                 {"copy_host_to_device", device.copy_host_to_device != nullptr},
                 {"copy_device_to_host", device.copy_device_to_host != nullptr},
                 {"copy_device_to_device", device.copy_device_to_device != nullptr},
                 {"synchronize", device.synchronize != nullptr}},
                "device interface");

  const tsr_kernel_table* table = api.kernels;
  if (table == nullptr) load_error("has no kernel table");
  if (table->struct_size < kMinKernelTableSize)
    load_error("struct_size " + std::to_string(table->struct_size) +
               " of tsr_kernel_table is smaller than the smallest known layout (" +
               std::to_string(kMinKernelTableSize) + " bytes)");
  if (table->count > 0 && table->entries == nullptr)
    load_error("kernel table has " + std::to_string(table->count) + " entries but no entries array");
  std::map<std::pair<int32_t, int32_t>, size_t> seen;  // (op, dtype) -> entry index
  for (size_t i = 0; i < table->count; ++i) {
    const tsr_kernel_entry& e = table->entries[i];
    // An op or dtype from a newer minor version: not ours to dispatch.
    if (e.op < 0 || e.op >= TSR_OP_COUNT || e.dtype < 0 || e.dtype >= TSR_DTYPE_COUNT) continue;
    const std::string what = "kernel table entry " + std::to_string(i) + " (op \"" + tsr_op_name(e.op) +
                             "\", dtype " + tsr_dtype_name(e.dtype) + ")";
    if (e.fn == nullptr) load_error(what + " has a NULL function");
    // Note [What an older plugin is handed]: what its minor predates it cannot mean.
    if (const uint32_t minor = plugin->abi_minor(); minor < TSR_ABI_VERSION_MINOR) {
      const bool op_newer = op_minor(e.op) > minor;
      if (op_newer || dtype_minor(e.dtype) > minor)
        load_error(what + " names " + (op_newer ? "an op" : "a dtype") + " of ABI " +
                   abi_string(op_newer ? op_minor(e.op) : dtype_minor(e.dtype)) +
                   ", which the plugin's ABI " + abi_string(minor) +
                   " predates (tsr_plugin_api.abi_version must be the version of the headers it was built with)");
    }
    auto [it, inserted] = seen.emplace(std::make_pair(e.op, e.dtype), i);
    if (!inserted) load_error(what + " repeats entry " + std::to_string(it->second));
    plugin->kernels_.push_back(e);
  }

  // Point the copy at the normalised tables, which live as long as it does.
  plugin->kernel_table_ = {sizeof(tsr_kernel_table), plugin->kernels_.size(), plugin->kernels_.data()};
  api.device = &plugin->device_;
  api.kernels = &plugin->kernel_table_;
  return plugin;
}

}  // namespace tessera::rt
