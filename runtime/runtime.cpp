// SPDX-License-Identifier: Apache-2.0
#include "runtime.hpp"

#include <cctype>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "error.hpp"
#include "paths.hpp"

namespace tessera::rt {

namespace {
std::string version_text(uint32_t v) {
  return std::to_string(TSR_VERSION_MAJOR(v)) + "." + std::to_string(TSR_VERSION_MINOR(v));
}
}  // namespace

std::unique_ptr<tsr_runtime> create_runtime(const tsr_runtime_options* user) {
  // Read only the fields the caller's struct_size covers (Note [Extensible structs]).
  tsr_runtime_options opts{};
  if (user != nullptr) {
    if (user->struct_size < TSR_STRUCT_SIZE(tsr_runtime_options, config_path))
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_runtime_options.struct_size " + std::to_string(user->struct_size) +
                                         " is too small; set it to TSR_RUNTIME_OPTIONS_STRUCT_SIZE");
    std::memcpy(&opts, user, std::min(user->struct_size, sizeof opts));
    // A caller of another major lays out every struct and enum its own way:
    // refuse it before anything else (version.h). 0: not stated.
    if (opts.abi_version != 0 && TSR_VERSION_MAJOR(opts.abi_version) != TSR_ABI_VERSION_MAJOR)
      fail(TSR_ERR_VERSION, "tsr_runtime_create: the caller was compiled against Tessera ABI " +
                                version_text(opts.abi_version) + ", but this libtessera speaks ABI " +
                                version_text(TSR_ABI_VERSION) + "; rebuild against this version's headers");
  }
  auto rt = std::make_unique<tsr_runtime>();
  if (opts.config_json != nullptr) {
    std::string base = opts.config_base_dir ? opts.config_base_dir : std::filesystem::current_path().string();
    rt->config = parse_config_text(opts.config_json, "<inline config>", base);
  } else {
    rt->config = parse_config_file(opts.config_path ? std::string(opts.config_path) : default_config_path());
  }

  std::vector<std::string> dirs = plugin_search_dirs();
  for (const PluginConfig& pc : rt->config.plugins) {
    if (!pc.enabled) continue;
    try {
      auto plugin = load_plugin(pc, rt->config.base_dir, dirs);
      rt->registry.add(*plugin);
      rt->plugins.push_back(std::move(plugin));
    } catch (const Error& e) {
      if (opts.strict_plugins) throw;
      rt->failures.push_back(PluginFailure{pc.name, pc.library, e.what(), e.status()});
    }
  }

  try {
    rt->default_device = parse_device(*rt, rt->config.default_device);
    rt->registry.require_device(rt->default_device);
    rt->default_device_available = true;
  } catch (const Error& e) {
    rt->default_device_problem = e.what();
  }
  return rt;
}

tsr_device parse_device(const tsr_runtime& rt, const std::string& text_in) {
  std::string text = text_in;
  if (auto alias = rt.config.aliases.find(text); alias != rt.config.aliases.end()) text = alias->second;
  std::string type_name = text, index_text;
  if (size_t colon = text.find(':'); colon != std::string::npos) {
    type_name = text.substr(0, colon);
    index_text = text.substr(colon + 1);
    bool digits = !index_text.empty() && index_text.size() < 10;
    for (char c : index_text) digits = digits && std::isdigit(static_cast<unsigned char>(c));
    if (!digits) fail(TSR_ERR_INVALID_ARGUMENT, "invalid device string \"" + text_in + "\": expected TYPE or TYPE:INDEX");
  }
  const DeviceType* type = rt.registry.device_type_by_name(type_name);
  if (type == nullptr) {
    std::string known;
    for (const DeviceType& t : rt.registry.types()) known += (known.empty() ? "" : ", ") + t.name;
    fail(TSR_ERR_INVALID_ARGUMENT, "unknown device type \"" + type_name + "\" in \"" + text_in +
                                       "\" (loaded: " + (known.empty() ? "none" : known) + ")");
  }
  return tsr_device{type->type, index_text.empty() ? 0 : std::stoi(index_text)};
}

std::string describe_runtime(const tsr_runtime& rt, bool as_json) {
  using nlohmann::json;
  json doc;
  doc["abi_version"] = version_text(TSR_ABI_VERSION);
  doc["config"] = rt.config.origin;
  doc["plugins"] = json::array();
  for (const auto& p : rt.plugins) {
    const tsr_plugin_api& api = p->api();
    json pj;
    pj["name"] = p->config().name;
    pj["library"] = p->config().library;
    pj["path"] = p->path();
    pj["version"] = api.plugin_version ? api.plugin_version : "";
    pj["abi_version"] = version_text(p->abi_version());
    pj["device_type"] = api.device_type_name ? api.device_type_name : "";
    pj["kernels"] = p->kernels().size();
    pj["priority"] = p->config().priority;
    pj["fallback"] = p->config().fallback;
    pj["devices"] = json::array();
    if (p->comm() != nullptr) pj["communicator"] = p->comm()->name;
    const DeviceType* type = rt.registry.device_type_by_name(pj["device_type"].get<std::string>());
    if (!p->has_devices()) {
      pj["communicator_only"] = true;
    } else if (type != nullptr && type->plugin == p.get()) {
      for (int32_t i = 0; i < type->device_count; ++i) {
        const tsr_device_properties& props = type->properties[static_cast<size_t>(i)];
        pj["devices"].push_back({{"device", rt.registry.device_name(tsr_device{type->type, i})},
                                 {"name", props.name},
                                 {"total_memory", props.total_memory},
                                 {"host_accessible", props.host_accessible != 0},
                                 {"compute_units", props.compute_units}});
      }
      if (type->device_count == 0) pj["unavailable_reason"] = type->unavailable_reason;
    } else {
      pj["shadowed"] = true;  // another plugin with a higher priority owns the type
    }
    std::vector<std::string> ops;
    for (int op = 0; op < TSR_OP_COUNT; ++op)
      for (int dt = 0; dt < TSR_DTYPE_COUNT; ++dt)
        if (type && rt.registry.kernel(type->type, op, dt).fn) {
          ops.emplace_back(tsr_op_name(op));
          break;
        }
    pj["ops"] = ops;
    // Coverage (Note [Primitives]): per op of the table, how this plugin's
    // device runs it: its own kernel (for some dtype), the runtime's
    // composite, the CPU fallback, or not at all.
    if (type != nullptr && type->plugin == p.get()) {
      json coverage = {{"native", json::array()}, {"composite", json::array()}, {"fallback", json::array()},
                       {"missing", json::array()}};
      for (int op = 0; op < TSR_OP_COUNT; ++op) {
        bool native = false;
        for (int dt = 0; dt < TSR_DTYPE_COUNT && !native; ++dt) native = rt.registry.kernel(type->type, op, dt).fn != nullptr;
        const char* how = native                                          ? "native"
                          : tsr_op_role(op) == TSR_OP_ROLE_COMPOSITE      ? "composite"
                          : p->config().fallback && type->type != TSR_DEVICE_CPU ? "fallback"
                                                                          : "missing";
        coverage[how].push_back(tsr_op_name(op));
      }
      pj["coverage"] = coverage;
    }
    doc["plugins"].push_back(pj);
  }
  doc["failed"] = json::array();
  for (const PluginFailure& f : rt.failures)
    doc["failed"].push_back({{"name", f.name}, {"library", f.library}, {"status", tsr_status_name(f.status)}, {"reason", f.reason}});
  doc["disabled"] = json::array();
  for (const PluginConfig& pc : rt.config.plugins)
    if (!pc.enabled) doc["disabled"].push_back(pc.name);
  doc["communicators"] = json::object();
  for (const auto& [type_name, plugin] : rt.config.communicators) doc["communicators"][type_name] = plugin;
  doc["comm_timeout_s"] = rt.config.comm_timeout_s;
  doc["default_device"] = rt.config.default_device;
  doc["default_device_available"] = rt.default_device_available;
  if (!rt.default_device_available) doc["default_device_problem"] = rt.default_device_problem;
  if (as_json) return doc.dump(2) + "\n";

  std::ostringstream out;
  out << "Tessera runtime, ABI " << doc["abi_version"].get<std::string>() << "\n";
  out << "config: " << rt.config.origin << "\n";
  out << "plugins loaded: " << rt.plugins.size() << "\n";
  for (const auto& pj : doc["plugins"]) {
    out << "  " << pj["name"].get<std::string>() << " " << pj["version"].get<std::string>() << " (ABI "
        << pj["abi_version"].get<std::string>() << ") " << pj["path"].get<std::string>() << "\n";
    if (pj.contains("communicator"))
      out << "    communicator \"" << pj["communicator"].get<std::string>() << "\" (collectives across processes)\n";
    if (pj.contains("communicator_only")) continue;
    out << "    device type \"" << pj["device_type"].get<std::string>() << "\", " << pj["kernels"].get<size_t>()
        << " kernels over " << pj["ops"].size() << " ops\n";
    out << "    priority " << pj["priority"].get<int64_t>() << ", CPU fallback "
        << (pj["fallback"].get<bool>() ? "on (ops it lacks run on the cpu, with copies)" : "off") << "\n";
    for (const auto& d : pj["devices"]) {
      out << "    " << d["device"].get<std::string>() << ": " << d["name"].get<std::string>();
      if (d["total_memory"].get<uint64_t>() > 0)
        out << ", " << (static_cast<double>(d["total_memory"].get<uint64_t>()) / (1ull << 30)) << " GiB";
      out << (d["host_accessible"].get<bool>() ? ", host-accessible memory" : ", device memory") << "\n";
    }
    if (pj.contains("coverage")) {
      const auto& c = pj["coverage"];
      out << "    coverage of the " << TSR_OP_COUNT << " ops: " << c["native"].size() << " native, " << c["composite"].size()
          << " composite, " << c["fallback"].size() << " through the CPU fallback, " << c["missing"].size()
          << " missing\n";
      for (const char* how : {"composite", "fallback", "missing"}) {
        if (c[how].empty()) continue;
        out << "      " << how << ":";
        for (const auto& name : c[how]) out << " " << name.get<std::string>();
        out << "\n";
      }
    }
    if (pj.contains("unavailable_reason"))
      out << "    no devices: " << pj["unavailable_reason"].get<std::string>() << "\n";
    if (pj.contains("shadowed")) out << "    (device type owned by a plugin with a higher priority)\n";
  }
  if (!rt.failures.empty()) {
    out << "plugins that failed to load: " << rt.failures.size() << "\n";
    for (const PluginFailure& f : rt.failures) out << "  " << f.name << ": " << f.reason << "\n";
  }
  for (const auto& d : doc["disabled"]) out << "disabled: " << d.get<std::string>() << "\n";
  for (const auto& [type_name, plugin] : rt.config.communicators)
    out << "communicator for " << type_name << ": " << plugin << " (timeout " << rt.config.comm_timeout_s << " s)\n";
  out << "default device: " << rt.config.default_device
      << (rt.default_device_available ? " (available)" : " (NOT available: " + rt.default_device_problem + ")")
      << "\n";
  return out.str();
}

}  // namespace tessera::rt
