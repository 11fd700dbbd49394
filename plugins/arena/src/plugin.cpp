// SPDX-License-Identifier: Apache-2.0
// The arena plugin's entry point and its memory and copy interface.
//
// Options (the config's "options" object):
//   "devices": how many arena devices (default 1, 1..8)
//   "bytes":   each arena's size in bytes (default 256 MiB)
// Unknown keys are refused, so a misspelt option is never silently ignored.
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "instance.hpp"

namespace arena {
namespace {

constexpr const char* kVersion = "1.0.0";

Instance& self(void* ctx) { return *static_cast<Instance*>(ctx); }

int32_t device_count(void* ctx) { return self(ctx).arenas.count(); }

tsr_status get_properties(void* ctx, int32_t device, tsr_device_properties* props) {
  Instance& inst = self(ctx);
  if (device < 0 || device >= inst.arenas.count() || props == nullptr)
    return inst.error(TSR_ERR_INVALID_ARGUMENT, "get_properties: no device " + std::to_string(device));
  tsr_device_properties p{};
  std::snprintf(p.name, sizeof p.name, "host-backed arena %d (not host-addressable)", device);
  p.total_memory = inst.arenas.arena(device).capacity();
  p.free_memory = inst.arenas.arena(device).free_bytes();
  p.host_accessible = 0;
  p.compute_units = 1;
  // Write only what the caller's struct holds (Note [Extensible structs]).
  size_t n = props->struct_size < sizeof p ? props->struct_size : sizeof p;
  p.struct_size = props->struct_size;
  std::memcpy(props, &p, n);
  return TSR_OK;
}

tsr_status allocate(void* ctx, int32_t device, size_t nbytes, void** out) {
  Instance& inst = self(ctx);
  if (device < 0 || device >= inst.arenas.count() || out == nullptr)
    return inst.error(TSR_ERR_INVALID_ARGUMENT, "allocate: no device " + std::to_string(device));
  size_t offset = 0;
  if (!inst.arenas.arena(device).allocate(nbytes == 0 ? 1 : nbytes, offset))
    return inst.error(TSR_ERR_OUT_OF_MEMORY, "out of memory on arena:" + std::to_string(device) + ": asked " +
                                                 std::to_string(nbytes) + " bytes, " +
                                                 std::to_string(inst.arenas.arena(device).free_bytes()) + " free");
  *out = inst.arenas.handle(device, offset);
  return TSR_OK;
}

void deallocate(void* ctx, int32_t device, void* ptr, size_t nbytes) {
  Instance& inst = self(ctx);
  std::byte* bytes = inst.arenas.resolve(device, ptr, nbytes);
  if (bytes == nullptr) return;  // not ours: nothing to give back
  inst.arenas.arena(device).deallocate(static_cast<size_t>(bytes - inst.arenas.arena(device).bytes()),
                                       nbytes == 0 ? 1 : nbytes);
}

tsr_status bad_range(Instance& inst, const char* what, int32_t device, size_t nbytes) {
  return inst.error(TSR_ERR_INVALID_ARGUMENT, std::string(what) + ": " + std::to_string(nbytes) +
                                                  " bytes are not inside arena:" + std::to_string(device));
}

tsr_status host_to_device(void* ctx, int32_t device, void* dst, const void* src, size_t nbytes, tsr_stream) {
  Instance& inst = self(ctx);
  if (nbytes == 0) return TSR_OK;
  std::byte* d = inst.arenas.resolve(device, dst, nbytes);
  if (d == nullptr) return bad_range(inst, "copy_host_to_device", device, nbytes);
  std::memcpy(d, src, nbytes);
  return TSR_OK;
}

tsr_status device_to_host(void* ctx, int32_t device, void* dst, const void* src, size_t nbytes, tsr_stream) {
  Instance& inst = self(ctx);
  if (nbytes == 0) return TSR_OK;
  const std::byte* s = inst.arenas.resolve(device, src, nbytes);
  if (s == nullptr) return bad_range(inst, "copy_device_to_host", device, nbytes);
  std::memcpy(dst, s, nbytes);
  return TSR_OK;
}

tsr_status device_to_device(void* ctx, int32_t dst_device, void* dst, int32_t src_device, const void* src,
                            size_t nbytes, tsr_stream) {
  Instance& inst = self(ctx);
  if (nbytes == 0) return TSR_OK;
  std::byte* d = inst.arenas.resolve(dst_device, dst, nbytes);
  const std::byte* s = inst.arenas.resolve(src_device, src, nbytes);
  if (d == nullptr) return bad_range(inst, "copy_device_to_device (destination)", dst_device, nbytes);
  if (s == nullptr) return bad_range(inst, "copy_device_to_device (source)", src_device, nbytes);
  std::memmove(d, s, nbytes);
  return TSR_OK;
}

tsr_status synchronize(void* ctx, int32_t device) {
  Instance& inst = self(ctx);
  if (device < 0 || device >= inst.arenas.count())
    return inst.error(TSR_ERR_INVALID_ARGUMENT, "synchronize: no device " + std::to_string(device));
  return TSR_OK;  // every op completes before it returns
}

// Since ABI 1.1. The whole arena is reserved up front; in use is what live
// allocations hold, rounded to 64 bytes.
tsr_status memory_stats(void* ctx, int32_t device, uint64_t* in_use, uint64_t* reserved) {
  Instance& inst = self(ctx);
  if (device < 0 || device >= inst.arenas.count())
    return inst.error(TSR_ERR_INVALID_ARGUMENT, "memory_stats: no device " + std::to_string(device));
  const Arena& a = inst.arenas.arena(device);
  *reserved = a.capacity();
  *in_use = a.capacity() - a.free_bytes();
  return TSR_OK;
}

void destroy(void* ctx) { delete static_cast<Instance*>(ctx); }

int64_t option_int(const nlohmann::json& options, const char* key, int64_t fallback, int64_t lo, int64_t hi) {
  if (!options.contains(key)) return fallback;
  const nlohmann::json& v = options.at(key);
  if (!v.is_number_integer() || v.get<int64_t>() < lo || v.get<int64_t>() > hi)
    throw std::invalid_argument(std::string("option \"") + key + "\" must be an integer in [" + std::to_string(lo) +
                                ", " + std::to_string(hi) + "], got " + v.dump());
  return v.get<int64_t>();
}

tsr_status init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  const tsr_host_api* host = args->host;
  auto refuse = [&](tsr_status st, const std::string& why) {
    if (host != nullptr && host->set_error != nullptr) host->set_error(st, ("arena: " + why).c_str());
    return st;
  };
  if (TSR_VERSION_MAJOR(args->abi_version) != TSR_ABI_VERSION_MAJOR)
    return refuse(TSR_ERR_VERSION, "built for ABI " + std::to_string(TSR_ABI_VERSION_MAJOR) + "." +
                                       std::to_string(TSR_ABI_VERSION_MINOR) + ", the runtime has ABI " +
                                       std::to_string(TSR_VERSION_MAJOR(args->abi_version)) + "." +
                                       std::to_string(TSR_VERSION_MINOR(args->abi_version)));
  nlohmann::json options = nlohmann::json::parse(args->options_json ? args->options_json : "{}");
  for (const auto& item : options.items())
    if (item.key() != "devices" && item.key() != "bytes")
      return refuse(TSR_ERR_CONFIG, "unknown option \"" + item.key() + "\" (known: devices, bytes)");
  const int devices = static_cast<int>(option_int(options, "devices", 1, 1, 8));
  const size_t bytes = static_cast<size_t>(option_int(options, "bytes", int64_t{256} << 20, 64, int64_t{1} << 36));

  auto inst = std::make_unique<Instance>(devices, bytes);
  inst->host = host;
  inst->name = args->instance_name ? args->instance_name : "arena";
  tsr_device_iface& d = inst->iface;
  d.struct_size = TSR_DEVICE_IFACE_STRUCT_SIZE;
  d.device_count = &device_count;
  d.unavailable_reason = nullptr;  // optional: arenas always exist
  d.get_properties = &get_properties;
  d.allocate = &allocate;
  d.deallocate = &deallocate;
  d.copy_host_to_device = &host_to_device;
  d.copy_device_to_host = &device_to_host;
  d.copy_device_to_device = &device_to_device;
  d.synchronize = &synchronize;
  // stream_* and empty_cache stay NULL: optional slots, the runtime's fallbacks apply.
  // memory_stats exists since ABI 1.1: a runtime of 1.0 reads struct_size
  // bytes at most and never sees it.
  d.memory_stats = &memory_stats;
  tsr_plugin_api& a = inst->api;
  a.struct_size = TSR_PLUGIN_API_STRUCT_SIZE;
  a.abi_version = TSR_ABI_VERSION;
  a.device_type = TSR_DEVICE_UNDEFINED;  // a named type: the runtime numbers it
  a.device_type_name = "arena";
  a.plugin_name = "arena";
  a.plugin_version = kVersion;
  a.ctx = inst.get();
  a.device = &d;
  a.kernels = kernel_table();
  a.destroy = &destroy;
  *out = &inst.release()->api;
  return TSR_OK;
}
}  // namespace
}  // namespace arena

extern "C" TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  // Nothing may escape into the C caller (tessera/plugin.h).
  try {
    if (args == nullptr || out == nullptr) return TSR_ERR_INVALID_ARGUMENT;
    return arena::init(args, out);
  } catch (const std::exception& e) {
    if (args->host != nullptr && args->host->set_error != nullptr)
      args->host->set_error(TSR_ERR_CONFIG, (std::string("arena: bad options: ") + e.what()).c_str());
    return TSR_ERR_CONFIG;
  } catch (...) {
    return TSR_ERR_INTERNAL;
  }
}
