// SPDX-License-Identifier: Apache-2.0
#include "registry.hpp"

#include <cstring>

#include "error.hpp"
#include "plugin_call.hpp"

namespace tessera::rt {

Registry::Registry() { slot_of_type_.fill(-1); }

const DeviceType* Registry::device_type_by_name(const std::string& name) const noexcept {
  for (const DeviceType& t : types_)
    if (t.name == name) return &t;
  return nullptr;
}

const DeviceType& Registry::require_device(tsr_device device) const {
  const DeviceType* t = device_type(device.type);
  if (t == nullptr) {
    std::string known;
    for (const DeviceType& k : types()) known += (known.empty() ? "" : ", ") + k.name;
    const char* well_known = device.type == TSR_DEVICE_CPU ? " (cpu)" : device.type == TSR_DEVICE_CUDA ? " (cuda)" : "";
    fail(TSR_ERR_INVALID_ARGUMENT, "unknown device type " + std::to_string(device.type) + well_known +
                                       ": no loaded plugin drives it (loaded: " + (known.empty() ? "none" : known) + ")");
  }
  if (device.index < 0 || device.index >= t->device_count) {
    std::string msg = "device " + t->name + ":" + std::to_string(device.index) + " is not available (" +
                      std::to_string(t->device_count) + " " + t->name + " device(s)";
    if (t->device_count == 0 && !t->unavailable_reason.empty()) msg += ": " + t->unavailable_reason;
    fail(TSR_ERR_DEVICE, msg + ")");
  }
  return *t;
}

void Registry::add(const LoadedPlugin& plugin) {
  if (!plugin.has_devices()) return;  // only a communicator (runtime/comm.hpp)
  const tsr_plugin_api& api = plugin.api();
  std::string name = api.device_type_name ? api.device_type_name : "";
  if (name.empty() || name.find(':') != std::string::npos)
    fail(TSR_ERR_LOAD, "plugin \"" + plugin.config().name + "\" (" + plugin.path() +
                           "): device_type_name must be a non-empty name without ':'");

  // Which type number: the plugin's well-known one, the one already given to
  // this name, or a new dynamic one.
  int32_t type = api.device_type;
  if (const DeviceType* existing = device_type_by_name(name)) type = existing->type;
  if (type == TSR_DEVICE_UNDEFINED) type = next_dynamic_type_++;
  if (type < 0 || type >= kMaxTypeNumber)
    fail(TSR_ERR_LOAD, "plugin \"" + plugin.config().name + "\": device type number " + std::to_string(type) +
                           " is outside 1.." + std::to_string(kMaxTypeNumber - 1));

  DeviceType entry;
  entry.type = type;
  entry.name = name;
  entry.plugin = &plugin;
  entry.ctx = api.ctx;
  entry.iface = &plugin.device();
  PluginCall call(&plugin);
  entry.device_count = entry.iface->device_count(entry.ctx);
  if (entry.device_count < 0) entry.device_count = 0;
  if (entry.device_count == 0 && entry.iface->unavailable_reason) {
    const char* why = entry.iface->unavailable_reason(entry.ctx);
    entry.unavailable_reason = why ? why : "";
  }
  for (int32_t i = 0; i < entry.device_count; ++i) {
    tsr_device_properties props{};
    props.struct_size = sizeof props;
    if (entry.iface->get_properties(entry.ctx, i, &props) != TSR_OK)
      fail(TSR_ERR_LOAD, "plugin \"" + plugin.config().name + "\": get_properties failed for device " +
                             std::to_string(i) + ": " + plugin_message());
    props.name[sizeof props.name - 1] = '\0';
    entry.properties.push_back(props);
  }

  KernelTable table{};
  for (const tsr_kernel_entry& k : plugin.kernels())
    table[static_cast<size_t>(k.op)][static_cast<size_t>(k.dtype)] =
        KernelSlot{k.fn, api.ctx, &plugin, plugin.abi_minor()};

  int slot = slot_of_type_[static_cast<size_t>(type)];
  if (slot >= 0) {
    // Two plugins offer one device type: the higher priority wins.
    if (plugin.config().priority <= priorities_[static_cast<size_t>(slot)]) return;
    types_[static_cast<size_t>(slot)] = std::move(entry);
    priorities_[static_cast<size_t>(slot)] = plugin.config().priority;
    kernels_[static_cast<size_t>(slot)] = table;
    return;
  }
  if (static_cast<int>(types_.size()) >= kMaxDeviceTypes)
    fail(TSR_ERR_LOAD, "too many device types (at most " + std::to_string(kMaxDeviceTypes) + ")");
  slot_of_type_[static_cast<size_t>(type)] = static_cast<int8_t>(types_.size());
  types_.push_back(std::move(entry));
  priorities_.push_back(plugin.config().priority);
  kernels_.push_back(table);
}

std::string Registry::device_name(tsr_device device) const {
  const DeviceType* t = device_type(device.type);
  std::string type = t ? t->name : "device" + std::to_string(device.type);
  // PyTorch prints the CPU without an index.
  if (device.type == TSR_DEVICE_CPU && device.index == 0) return type;
  return type + ":" + std::to_string(device.index);
}

std::vector<tsr_device> Registry::devices() const {
  std::vector<tsr_device> out;
  for (const DeviceType& t : types_)
    for (int32_t i = 0; i < t.device_count; ++i) out.push_back(tsr_device{t.type, i});
  return out;
}

std::string Registry::devices_with_kernel(int32_t op, int32_t dtype) const {
  std::string out;
  for (const tsr_device& d : devices()) {
    if (kernel(d.type, op, dtype).fn == nullptr) continue;
    if (!out.empty()) out += ", ";
    out += device_name(d);
  }
  return out.empty() ? "none" : out;
}

}  // namespace tessera::rt
