// SPDX-License-Identifier: Apache-2.0
// The C API: runtime, devices, errors.
#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "api_support.hpp"
#include "plugin_call.hpp"
#include "runtime.hpp"

using namespace tessera::rt;

namespace tessera::rt {
char* copy_string(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out == nullptr) fail(TSR_ERR_OUT_OF_MEMORY, "out of host memory");
  std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}
}  // namespace tessera::rt

extern "C" {

const char* tsr_last_error_message(void) { return last_error_message(); }
tsr_status tsr_last_error_status(void) { return last_error_status(); }
uint32_t tsr_abi_version(void) { return TSR_ABI_VERSION; }
void tsr_clear_last_error(void) { clear_last_error(); }

size_t tsr_dtype_itemsize(int32_t dtype) { return tsr_dtype_size(dtype); }
const char* tsr_dtype_get_name(int32_t dtype) { return tsr_dtype_name(dtype); }
const char* tsr_op_get_name(int32_t op) { return tsr_op_name(op); }
int32_t tsr_op_count(void) { return TSR_OP_COUNT; }

size_t tsr_struct_size(int32_t kind) {
  switch (kind) {
    case TSR_STRUCT_RUNTIME_OPTIONS: return TSR_RUNTIME_OPTIONS_STRUCT_SIZE;
    case TSR_STRUCT_MEMORY_STATS: return TSR_MEMORY_STATS_STRUCT_SIZE;
    case TSR_STRUCT_FINFO: return TSR_FINFO_STRUCT_SIZE;
    case TSR_STRUCT_TENSOR_DESC: return TSR_TENSOR_DESC_STRUCT_SIZE;
    case TSR_STRUCT_SCALAR: return sizeof(tsr_scalar);
    case TSR_STRUCT_DEVICE: return sizeof(tsr_device);
    case TSR_STRUCT_REDUCE_OPTIONS: return TSR_REDUCE_OPTIONS_STRUCT_SIZE;
    case TSR_STRUCT_SORT_OPTIONS: return TSR_SORT_OPTIONS_STRUCT_SIZE;
    case TSR_STRUCT_AUTOGRAD_OPTIONS: return TSR_AUTOGRAD_OPTIONS_STRUCT_SIZE;
    case TSR_STRUCT_LOSS_OPTIONS: return TSR_LOSS_OPTIONS_STRUCT_SIZE;
    case TSR_STRUCT_OPTIMIZER_OPTIONS: return TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE;
    case TSR_STRUCT_SEARCHSORTED_OPTIONS: return TSR_SEARCHSORTED_OPTIONS_STRUCT_SIZE;
    case TSR_STRUCT_FFT_OPTIONS: return TSR_FFT_OPTIONS_STRUCT_SIZE;
    case TSR_STRUCT_DLPACK_OPTIONS: return TSR_DLPACK_OPTIONS_STRUCT_SIZE;
    default: return 0;
  }
}

const char* tsr_status_name(tsr_status status) {
  switch (status) {
    case TSR_OK: return "TSR_OK";
    case TSR_ERR_INVALID_ARGUMENT: return "TSR_ERR_INVALID_ARGUMENT";
    case TSR_ERR_INDEX: return "TSR_ERR_INDEX";
    case TSR_ERR_SHAPE: return "TSR_ERR_SHAPE";
    case TSR_ERR_TYPE: return "TSR_ERR_TYPE";
    case TSR_ERR_UNSUPPORTED: return "TSR_ERR_UNSUPPORTED";
    case TSR_ERR_OUT_OF_MEMORY: return "TSR_ERR_OUT_OF_MEMORY";
    case TSR_ERR_DEVICE: return "TSR_ERR_DEVICE";
    case TSR_ERR_VERSION: return "TSR_ERR_VERSION";
    case TSR_ERR_LOAD: return "TSR_ERR_LOAD";
    case TSR_ERR_CONFIG: return "TSR_ERR_CONFIG";
    case TSR_ERR_INTERNAL: return "TSR_ERR_INTERNAL";
    case TSR_ERR_TIMEOUT: return "TSR_ERR_TIMEOUT";
    case TSR_ERR_LINALG: return "TSR_ERR_LINALG";
  }
  return "TSR_ERR_UNKNOWN";
}

tsr_status tsr_runtime_create(const tsr_runtime_options* options, tsr_runtime** out) {
  return guard([&] {
    require_out(out);
    *out = create_runtime(options).release();
  });
}

tsr_status tsr_runtime_destroy(tsr_runtime* rt) {
  return guard([&] {
    if (rt == nullptr) return;
    int64_t tensors = rt->live_tensors.load(), storages = rt->live_storages.load();
    // Freeing plugins under live storages would leave dangling memory: keep
    // the runtime as it is, usable, and say so.
    if (tensors != 0 || storages != 0)
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_runtime_destroy: " + std::to_string(tensors) + " tensor(s) and " +
                                         std::to_string(storages) +
                                         " storage(s) still alive; nothing was freed: release them, then call "
                                         "tsr_runtime_destroy again");
    if (const int64_t comms = rt->live_comms.load(); comms != 0)
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_runtime_destroy: " + std::to_string(comms) +
                                         " communicator(s) still alive (tsr_comm, or a tsr_work holding one); "
                                         "nothing was freed: release them, then call tsr_runtime_destroy again");
    delete rt;
  });
}

tsr_status tsr_runtime_describe(tsr_runtime* rt, int32_t json, char** out) {
  return guard([&] {
    require_out(out);
    *out = copy_string(describe_runtime(require(rt, "runtime"), json != 0));
  });
}

void tsr_string_free(char* s) { std::free(s); }

tsr_status tsr_runtime_default_device(tsr_runtime* rt, tsr_device* out, int32_t* available) {
  return guard([&] {
    require_out(out);
    *out = require(rt, "runtime").default_device;
    if (available) *available = rt->default_device_available ? 1 : 0;
  });
}

tsr_status tsr_device_parse(tsr_runtime* rt, const char* text, tsr_device* out) {
  return guard([&] {
    require_out(out);
    if (text == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "device text is NULL");
    *out = parse_device(require(rt, "runtime"), text);
  });
}

size_t tsr_device_format(tsr_runtime* rt, tsr_device device, char* buf, size_t buf_size) {
  std::string name;
  try {
    name = rt ? rt->registry.device_name(device) : "device" + std::to_string(device.type);
  } catch (...) {
    name = "?";
  }
  if (buf != nullptr && buf_size > 0) {
    size_t n = std::min(name.size(), buf_size - 1);
    std::memcpy(buf, name.data(), n);
    buf[n] = '\0';
  }
  return name.size();
}

int32_t tsr_runtime_device_count(tsr_runtime* rt) {
  return rt ? static_cast<int32_t>(rt->registry.devices().size()) : 0;
}

tsr_status tsr_runtime_device_at(tsr_runtime* rt, int32_t i, tsr_device* out) {
  return guard([&] {
    require_out(out);
    auto devices = require(rt, "runtime").registry.devices();
    if (i < 0 || i >= static_cast<int32_t>(devices.size()))
      fail(TSR_ERR_INDEX, "device index " + std::to_string(i) + " is out of range (" + std::to_string(devices.size()) +
                              " devices)");
    *out = devices[static_cast<size_t>(i)];
  });
}

int32_t tsr_runtime_has_kernel(tsr_runtime* rt, tsr_device device, tsr_op op, tsr_dtype dtype) {
  return rt && rt->registry.kernel(device.type, op, dtype).fn != nullptr ? 1 : 0;
}

int32_t tsr_device_is_host_accessible(tsr_runtime* rt, tsr_device device) {
  if (rt == nullptr) return 0;
  const DeviceType* type = rt->registry.device_type(device.type);
  if (type == nullptr || device.index < 0 || device.index >= type->device_count) return 0;
  return type->host_accessible(device.index) ? 1 : 0;
}

tsr_status tsr_synchronize(tsr_runtime* rt, tsr_device device) {
  return guard([&] {
    const DeviceType& type = require(rt, "runtime").registry.require_device(device);
    tsr_status st;
    {
      PluginCall call(type.plugin);
      st = type.iface->synchronize(type.ctx, device.index);
    }
    if (st != TSR_OK) fail(st, "synchronize failed on " + rt->registry.device_name(device) + ": " + plugin_message());
  });
}

tsr_status tsr_empty_cache(tsr_runtime* rt, tsr_device device) {
  return guard([&] {
    const DeviceType& type = require(rt, "runtime").registry.require_device(device);
    if (type.iface->empty_cache == nullptr) return;  // optional slot: nothing cached
    tsr_status st;
    {
      PluginCall call(type.plugin);
      st = type.iface->empty_cache(type.ctx, device.index);
    }
    if (st != TSR_OK) fail(st, "empty_cache failed on " + rt->registry.device_name(device) + ": " + plugin_message());
  });
}

tsr_status tsr_get_memory_stats(tsr_runtime* rt, tsr_device device, tsr_memory_stats* out) {
  return guard([&] {
    const DeviceType& type = require(rt, "runtime").registry.require_device(device);
    if (out == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "tsr_get_memory_stats: out is NULL");
    if (out->struct_size < TSR_STRUCT_SIZE(tsr_memory_stats, struct_size))
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_get_memory_stats: out->struct_size is not set");
    if (type.iface->memory_stats == nullptr)
      fail(TSR_ERR_UNSUPPORTED, "memory statistics: plugin \"" + type.plugin->config().name + "\" (" +
                                    rt->registry.device_name(device) + ") does not report memory use");
    tsr_memory_stats stats{};
    stats.struct_size = out->struct_size;
    tsr_status st;
    {
      PluginCall call(type.plugin);
      st = type.iface->memory_stats(type.ctx, device.index, &stats.in_use, &stats.reserved);
    }
    if (st != TSR_OK)
      fail(st, "memory statistics failed on " + rt->registry.device_name(device) + ": " + plugin_message());
    std::memcpy(out, &stats, std::min(out->struct_size, sizeof stats));  // Note [Extensible structs]
  });
}

void tsr_manual_seed(tsr_runtime* rt, uint64_t seed) {
  if (rt == nullptr) return;
  rt->seed.store(seed);
  rt->rng_counter.store(0);
}

tsr_status tsr_set_print_precision(tsr_runtime* rt, int32_t precision) {
  return guard([&] {
    if (precision < 0 || precision > 30) fail(TSR_ERR_INVALID_ARGUMENT, "precision must be in [0, 30]");
    require(rt, "runtime").print_precision.store(precision);
  });
}

tsr_status tsr_set_float32_matmul_precision(tsr_runtime* rt, int32_t precision) {
  return guard([&] {
    if (precision < TSR_MATMUL_PRECISION_HIGHEST || precision > TSR_MATMUL_PRECISION_MEDIUM)
      fail(TSR_ERR_INVALID_ARGUMENT, "float32 matmul precision " + std::to_string(precision) +
                                         " is none of TSR_MATMUL_PRECISION_HIGHEST (0), _HIGH (1) and _MEDIUM (2)");
    require(rt, "runtime").float32_matmul_precision.store(precision);
  });
}

int32_t tsr_get_float32_matmul_precision(tsr_runtime* rt) {
  return rt == nullptr ? TSR_MATMUL_PRECISION_HIGHEST : rt->float32_matmul_precision.load();
}

}  // extern "C"
