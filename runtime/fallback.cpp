// SPDX-License-Identifier: Apache-2.0
// Note [CPU fallback]
//   A plugin may implement only some ops. When its config entry says
//   "fallback": true, an op it lacks runs on the CPU backend instead: every
//   input, and the output, is copied to host memory through the plugin's
//   own copy functions (the runtime never touches device memory itself), the
//   CPU kernel runs on those copies with the same strides, and the output is
//   copied back. Each descriptor's copy covers its storage span, from its
//   lowest to its highest element, so views of any layout keep their
//   strides; the output's span is read first, so the elements between the
//   view's elements go back unchanged. The first fallback of each (op, dtype)
//   on each device type logs one warning naming both, the plugin and the
//   device (a plugin may have an op for some dtypes only). An op with several
//   results (LINALG's more_outputs) has each copied in and back the same way.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "abi_history.hpp"
#include "error.hpp"
#include "fallback.hpp"
#include "plugin_call.hpp"
#include "plugin_loader.hpp"

namespace tessera::rt {

namespace {

struct FreeDeleter {
  void operator()(void* p) const noexcept { std::free(p); }
};

// A descriptor's copy in host memory.
struct HostCopy {
  std::unique_ptr<void, FreeDeleter> memory;
  tsr_tensor_desc desc{};
  char* device_first = nullptr;  // the device address of the span's first byte
  size_t nbytes = 0;
};

// The lowest and highest element offsets a descriptor reaches (non-empty).
void element_span(const tsr_tensor_desc& d, int64_t& lo, int64_t& hi) {
  lo = hi = d.offset;
  for (int32_t i = 0; i < d.ndim; ++i) {
    int64_t reach = (d.shape[i] - 1) * d.strides[i];
    if (reach < 0) lo += reach; else hi += reach;
  }
}

bool is_empty(const tsr_tensor_desc& d) {
  for (int32_t i = 0; i < d.ndim; ++i)
    if (d.shape[i] == 0) return true;
  return false;
}

HostCopy to_host(const DeviceType& type, const tsr_tensor_desc& d, const char* what) {
  HostCopy c;
  c.desc = d;
  c.desc.device = tsr_device{TSR_DEVICE_CPU, 0};
  if (is_empty(d)) return c;  // no element is read or written
  int64_t lo = 0, hi = 0;
  element_span(d, lo, hi);
  size_t elem = tsr_dtype_size(d.dtype);
  c.nbytes = static_cast<size_t>(hi - lo + 1) * elem;
  // 64-byte aligned, as every plugin allocation is.
  c.memory.reset(std::aligned_alloc(64, (c.nbytes + 63) / 64 * 64));
  if (!c.memory) fail(TSR_ERR_OUT_OF_MEMORY, std::string("CPU fallback: no host memory for the ") + what);
  c.device_first = static_cast<char*>(d.data) + lo * static_cast<int64_t>(elem);
  tsr_status st;
  {
    PluginCall call(type.plugin);
    st = type.iface->copy_device_to_host(type.ctx, d.device.index, c.memory.get(), c.device_first, c.nbytes, nullptr);
  }
  if (st != TSR_OK)
    fail(st, std::string("CPU fallback: copying the ") + what + " to the host failed: " + plugin_message());
  c.desc.data = c.memory.get();
  c.desc.offset = d.offset - lo;
  return c;
}

}  // namespace

void launch_on_cpu(tsr_runtime& rt, const DeviceType& type, tsr_device device, int32_t op, int32_t key_dtype,
                   std::initializer_list<const tsr_tensor_desc*> inputs, const tsr_tensor_desc& output,
                   const tsr_kernel_args& args_template, const std::string& why) {
  const KernelSlot& cpu = rt.registry.kernel(TSR_DEVICE_CPU, op, key_dtype);
  if (cpu.fn == nullptr) check_op_takes_dtype(op, key_dtype);
  if (cpu.fn == nullptr)
    fail(TSR_ERR_UNSUPPORTED, std::string(tsr_op_name(op)) + ": not supported on device " +
                                  rt.registry.device_name(device) + " for dtype " + tsr_dtype_name(key_dtype) +
                                  ", and the CPU fallback has no kernel for it either; supported on: " +
                                  rt.registry.devices_with_kernel(op, key_dtype));
  // Note [What an older plugin is handed]: the CPU's plugin may be older too.
  if (cpu.minor < kPluginFacingMinor)
    if (const NewerThing newer = newer_than(cpu.minor, args_template))
      fail(TSR_ERR_UNSUPPORTED, std::string(tsr_op_name(op)) + " (" + tsr_dtype_name(key_dtype) + ") on " +
                                    rt.registry.device_name(device) + ": the CPU fallback's " +
                                    built_before(cpu.plugin->config().name, cpu.minor, newer) +
                                    (why.empty() ? "" : "; and " + why));
  if (rt.fallback_warnings.first(device.type, op, key_dtype)) {
    const std::string what = std::string(tsr_op_name(op)) + " (" + tsr_dtype_name(key_dtype) + ")";
    const std::string reason = why.empty() ? what + " has no kernel in plugin \"" + type.plugin->config().name +
                                                 "\" for " + rt.registry.device_name(device)
                                           : what + " on " + rt.registry.device_name(device) + ": " + why;
    host_api()->log(TSR_LOG_WARNING,
                    (reason + "; running it on the CPU with copies in and out (warned once per op and dtype)").c_str());
  }

  std::vector<HostCopy> in;
  in.reserve(inputs.size());
  std::vector<const tsr_tensor_desc*> in_descs;
  for (const tsr_tensor_desc* d : inputs) {
    in.push_back(to_host(type, *d, "input"));
    in_descs.push_back(&in.back().desc);
  }
  // The outputs: `output`, then LINALG's further results (more_outputs).
  std::vector<HostCopy> outs;
  outs.reserve(1 + static_cast<size_t>(args_template.num_more_outputs));
  outs.push_back(to_host(type, output, "output"));
  std::vector<const tsr_tensor_desc*> more_descs;
  for (int32_t i = 0; i < args_template.num_more_outputs; ++i) {
    outs.push_back(to_host(type, *args_template.more_outputs[i], "output"));
    more_descs.push_back(&outs.back().desc);
  }

  tsr_kernel_args args = args_template;
  args.struct_size = kernel_args_size(cpu.minor);
  args.device_index = 0;
  args.inputs = in_descs.data();
  args.output = &outs.front().desc;
  args.more_outputs = more_descs.empty() ? nullptr : more_descs.data();
  args.stream = nullptr;
  tsr_status st = call_kernel(rt, device, op, key_dtype, cpu, args, "in the CPU fallback for ");
  if (st != TSR_OK) kernel_failed(rt, device, op, key_dtype, cpu.plugin, st, plugin_message(), "in the CPU fallback for ");
  for (const HostCopy& out : outs) {
    if (out.nbytes == 0) continue;
    {
      PluginCall call(type.plugin);
      st = type.iface->copy_host_to_device(type.ctx, device.index, out.device_first, out.memory.get(), out.nbytes,
                                           nullptr);
    }
    if (st != TSR_OK)
      fail(st, "CPU fallback: copying the output back to " + rt.registry.device_name(device) +
                   " failed: " + plugin_message());
  }
}

}  // namespace tessera::rt
