// SPDX-License-Identifier: Apache-2.0
// The registry: which plugin owns each device type, and for every
// (device type, op, dtype) the kernel to call. Filled once while the runtime
// is created and read without locks afterwards: dispatch is three array
// indexes, no string work and no allocation (the guide's "hot paths" rule).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "plugin_loader.hpp"
#include "tessera/plugin.h"

namespace tessera::rt {

struct KernelSlot {
  tsr_kernel_fn fn = nullptr;
  void* ctx = nullptr;
  const LoadedPlugin* plugin = nullptr;  // whose kernel: errors and log lines name it
  // The plugin's ABI minor, at most the runtime's: below TSR_ABI_VERSION_MINOR,
  // launch checks each call first (Note [What an older plugin is handed]).
  uint32_t minor = TSR_ABI_VERSION_MINOR;
};

// One kind of device and the plugin that drives it.
struct DeviceType {
  int32_t type = TSR_DEVICE_UNDEFINED;
  std::string name;                 // "cpu", "cuda", "arena": the prefix of device strings
  const LoadedPlugin* plugin = nullptr;
  void* ctx = nullptr;              // plugin.api().ctx
  const tsr_device_iface* iface = nullptr;
  int32_t device_count = 0;
  std::string unavailable_reason;   // when device_count == 0
  std::vector<tsr_device_properties> properties;  // one per device
  bool host_accessible(int32_t index) const { return properties[static_cast<size_t>(index)].host_accessible != 0; }
};

class Registry {
 public:
  static constexpr int kMaxDeviceTypes = 16;
  static constexpr int kMaxTypeNumber = 128;

  Registry();

  // Adds a plugin's device type and kernels. When a type is already owned
  // by another plugin, the one with the higher priority keeps it (ties: the
  // first). Throws Error on a bad plugin description.
  void add(const LoadedPlugin& plugin);

  // nullptr when the device type is unknown.
  const DeviceType* device_type(int32_t type) const noexcept {
    if (type < 0 || type >= kMaxTypeNumber) return nullptr;
    int slot = slot_of_type_[static_cast<size_t>(type)];
    return slot < 0 ? nullptr : &types_[static_cast<size_t>(slot)];
  }
  const DeviceType* device_type_by_name(const std::string& name) const noexcept;
  // The device type, checked: throws naming the device when it is unknown or out of range.
  const DeviceType& require_device(tsr_device device) const;

  // The kernel for (op, device type, dtype); fn is nullptr when missing.
  const KernelSlot& kernel(int32_t device_type, int32_t op, int32_t dtype) const noexcept {
    static const KernelSlot none{};
    if (op < 0 || op >= TSR_OP_COUNT || dtype < 0 || dtype >= TSR_DTYPE_COUNT) return none;
    if (device_type < 0 || device_type >= kMaxTypeNumber) return none;
    int slot = slot_of_type_[static_cast<size_t>(device_type)];
    if (slot < 0) return none;
    return kernels_[static_cast<size_t>(slot)][static_cast<size_t>(op)][static_cast<size_t>(dtype)];
  }

  const std::vector<DeviceType>& types() const noexcept { return types_; }

  // "cpu", "cuda:0".
  std::string device_name(tsr_device device) const;
  // Every enabled, available device, in registration order.
  std::vector<tsr_device> devices() const;
  // Devices whose type has a kernel for (op, dtype), as text ("cpu, cuda:0").
  std::string devices_with_kernel(int32_t op, int32_t dtype) const;

 private:
  using KernelTable = std::array<std::array<KernelSlot, TSR_DTYPE_COUNT>, TSR_OP_COUNT>;
  std::vector<DeviceType> types_;
  std::vector<int> priorities_;
  std::array<int8_t, kMaxTypeNumber> slot_of_type_{};
  std::vector<KernelTable> kernels_;
  int32_t next_dynamic_type_ = TSR_DEVICE_DYNAMIC_BASE;
};

}  // namespace tessera::rt
