// SPDX-License-Identifier: Apache-2.0
// The plugin's entry point, its options, its devices and their memory and
// copy interface.
//
// Devices: every CUDA device of compute capability 9.0 or newer (this build
// carries sm_90 code and compute_90 PTX, which older GPUs cannot run) is
// cuda:0..N-1 in CUDA's order. With no driver, no GPU or only older GPUs the
// plugin still loads, reports zero devices, and says why (unavailable_reason).
// A device's CUDA context, stream, allocator and staging buffers are made on
// first use.
#include <cusolverDn.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "allocator.hpp"
#include "kernels.hpp"
#include "options_reader.hpp"
#include "plugin_init.hpp"
#include "tessera/plugin.h"
#include "transfer.hpp"

namespace tessera::cuda {

namespace {

constexpr const char* kPluginVersion = "0.1.0";

// ---- options ------------------------------------------------------------------
// The options are a small JSON object: {"allow_tf32": bool, "memory_fraction":
// number in (0, 1]}; other keys are ignored (Note [Plugin options without a
// JSON library] in backends/common/options_reader.hpp).
Options read_options(const char* json) {
  Options o;
  backend::for_each_option("cuda", json, [&](const std::string& key, const std::string& value) {
    if (key == "allow_tf32") o.allow_tf32 = backend::option_bool("cuda", key, value);
    else if (key == "memory_fraction") o.memory_fraction = backend::option_fraction("cuda", key, value);
  });
  return o;
}

Context& ctx_of(void* ctx) { return *static_cast<Context*>(ctx); }

// ---- discovery -------------------------------------------------------------------

// Lists the usable devices, or says why there are none.
void discover(Context& c) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    std::string why = "cudaGetDeviceCount failed (" + cuda_error_text(e) + ")";
    if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice || e == cudaErrorInitializationError) {
      void* driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
      if (driver == nullptr) why = "no NVIDIA driver: libcuda.so.1 could not be loaded; " + why;
      else dlclose(driver);
    }
    c.unavailable_reason = why;
    return;
  }
  if (count == 0) {
    c.unavailable_reason = "the NVIDIA driver reports no CUDA device";
    return;
  }
  std::string too_old;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    cudaDeviceProp prop{};
    const cudaError_t pe = cudaGetDeviceProperties(&prop, ordinal);
    if (pe != cudaSuccess) {
      (void)cudaGetLastError();
      too_old += (too_old.empty() ? "" : "; ") + std::string("device ") + std::to_string(ordinal) + ": " + cuda_error_text(pe);
      continue;
    }
    if (prop.major < 9) {
      too_old += (too_old.empty() ? "" : "; ") + std::string(prop.name) + " (compute capability " + std::to_string(prop.major) +
                 "." + std::to_string(prop.minor) + ")";
      continue;
    }
    auto d = std::make_unique<Device>();
    d->index = static_cast<int>(c.devices.size());
    d->ordinal = ordinal;
    d->name = prop.name;
    d->total_memory = prop.totalGlobalMem;
    d->sm_count = prop.multiProcessorCount;
    d->cc_major = prop.major;
    d->cc_minor = prop.minor;
    c.devices.push_back(std::move(d));
  }
  if (c.devices.empty())
    c.unavailable_reason = std::to_string(count) + " CUDA device(s), none usable: this build needs compute capability 9.0 or newer (sm_90); found " + too_old;
  const size_t n = c.devices.size();
  c.peer_enabled.assign(n * n, 0);
}

// Creates what a device needs for work: its context (by making it current),
// stream, allocator and staging buffers.
void init_device(Context& c, Device& d) {
  DeviceGuard guard(d.ordinal);
  TSR_CUDA_CHECK(cudaFree(nullptr));  // creates the primary context now, so failures surface here
  cudaStream_t s = nullptr;
  TSR_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  d.stream = s;
  const size_t limit = static_cast<size_t>(static_cast<double>(d.total_memory) * c.options.memory_fraction);
  d.allocator = std::make_unique<CachingAllocator>("cuda:" + std::to_string(d.index), limit, c.options.memory_fraction);
  d.staging = std::make_unique<Staging>();
}

void check_index(const Context& c, int32_t device) {
  if (device < 0 || device >= static_cast<int32_t>(c.devices.size()))
    fail(TSR_ERR_INDEX, "cuda: no device cuda:" + std::to_string(device) + " (there are " + std::to_string(c.devices.size()) + ")");
}

// ---- device interface -----------------------------------------------------------

int32_t device_count(void* ctx) { return static_cast<int32_t>(ctx_of(ctx).devices.size()); }

const char* unavailable_reason(void* ctx) {
  const Context& c = ctx_of(ctx);
  return c.devices.empty() ? c.unavailable_reason.c_str() : nullptr;
}

tsr_status get_properties(void* ctx, int32_t device, tsr_device_properties* props) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    if (props == nullptr || props->struct_size < sizeof(size_t))
      fail(TSR_ERR_INVALID_ARGUMENT, "cuda: get_properties needs a properties struct");
    Device& d = c.device(device);
    tsr_device_properties p{};
    p.struct_size = props->struct_size;
    std::snprintf(p.name, sizeof p.name, "%s", d.name.c_str());
    p.total_memory = d.total_memory;
    {
      DeviceGuard guard(d.ordinal);
      size_t free_bytes = 0, total_bytes = 0;
      TSR_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      p.free_memory = free_bytes;
    }
    p.host_accessible = 0;
    p.compute_units = d.sm_count;
    p.capability_major = d.cc_major;
    p.capability_minor = d.cc_minor;
    std::memcpy(props, &p, std::min(props->struct_size, sizeof p));
  });
}

tsr_status allocate(void* ctx, int32_t device, size_t nbytes, void** out) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    if (out == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "cuda: allocate: NULL out");
    Device& d = c.device(device);
    DeviceGuard guard(d.ordinal);
    *out = d.allocator->allocate(nbytes, d.stream);  // 512-byte aligned at least (cudaMalloc gives 256)
  });
}

void deallocate(void* ctx, int32_t device, void* ptr, size_t) {
  Context& c = ctx_of(ctx);
  if (device < 0 || device >= static_cast<int32_t>(c.devices.size()) || ptr == nullptr) return;
  Device& d = *c.devices[static_cast<size_t>(device)];
  if (d.allocator) d.allocator->deallocate(ptr);
}

cudaStream_t stream_of(Device& d, tsr_stream s) { return s != nullptr ? static_cast<cudaStream_t>(s) : d.stream; }

tsr_status copy_h2d(void* ctx, int32_t device, void* dst, const void* src, size_t nbytes, tsr_stream stream) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    Device& d = c.device(device);
    DeviceGuard guard(d.ordinal);
    d.staging->to_device(dst, src, nbytes, stream_of(d, stream));
  });
}

tsr_status copy_d2h(void* ctx, int32_t device, void* dst, const void* src, size_t nbytes, tsr_stream stream) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    Device& d = c.device(device);
    DeviceGuard guard(d.ordinal);
    d.staging->to_host(dst, src, nbytes, stream_of(d, stream));
  });
}

// Peer access between two devices, enabled once when the hardware allows it
// (cudaMemcpyPeerAsync works without it too, through the host).
void enable_peer(Context& c, Device& src, Device& dst) {
  std::lock_guard<std::mutex> lock(c.peer_mutex);
  int8_t& state = c.peer_enabled[static_cast<size_t>(src.index) * c.devices.size() + static_cast<size_t>(dst.index)];
  if (state != 0) return;
  int can = 0;
  TSR_CUDA_CHECK(cudaDeviceCanAccessPeer(&can, dst.ordinal, src.ordinal));
  state = -1;
  if (!can) return;
  DeviceGuard guard(dst.ordinal);
  const cudaError_t e = cudaDeviceEnablePeerAccess(src.ordinal, 0);
  if (e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled) state = 1;
  (void)cudaGetLastError();
}

tsr_status copy_d2d(void* ctx, int32_t dst_device, void* dst, int32_t src_device, const void* src, size_t nbytes, tsr_stream stream) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    Device& to = c.device(dst_device);
    Device& from = c.device(src_device);
    if (nbytes == 0) return;
    if (&to == &from) {
      DeviceGuard guard(to.ordinal);
      TSR_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToDevice, stream_of(to, stream)));
      return;
    }
    enable_peer(c, from, to);
    // The copy runs on the source's stream after the destination's queued
    // work (which may still use the block being overwritten); the
    // destination's stream then waits for the copy.
    cudaStream_t src_stream = from.stream;
    cudaStream_t dst_stream = stream_of(to, stream);
    cudaEvent_t dst_ready = nullptr, copied = nullptr;
    {
      DeviceGuard guard(to.ordinal);
      TSR_CUDA_CHECK(cudaEventCreateWithFlags(&dst_ready, cudaEventDisableTiming));
      TSR_CUDA_CHECK(cudaEventRecord(dst_ready, dst_stream));
    }
    {
      DeviceGuard guard(from.ordinal);
      TSR_CUDA_CHECK(cudaEventCreateWithFlags(&copied, cudaEventDisableTiming));
      TSR_CUDA_CHECK(cudaStreamWaitEvent(src_stream, dst_ready, 0));
      TSR_CUDA_CHECK(cudaMemcpyPeerAsync(dst, to.ordinal, src, from.ordinal, nbytes, src_stream));
      TSR_CUDA_CHECK(cudaEventRecord(copied, src_stream));
    }
    {
      DeviceGuard guard(to.ordinal);
      TSR_CUDA_CHECK(cudaStreamWaitEvent(dst_stream, copied, 0));
    }
    // Destroying an event with work pending on it is allowed: it is released once complete.
    (void)cudaEventDestroy(dst_ready);
    (void)cudaEventDestroy(copied);
  });
}

tsr_status synchronize(void* ctx, int32_t device) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    Device& d = c.device(device);
    DeviceGuard guard(d.ordinal);
    TSR_CUDA_CHECK(cudaDeviceSynchronize());  // the default stream and any stream made with stream_create
  });
}

tsr_status stream_create(void* ctx, int32_t device, tsr_stream* out) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    if (out == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "cuda: stream_create: NULL out");
    Device& d = c.device(device);
    DeviceGuard guard(d.ordinal);
    cudaStream_t s = nullptr;
    TSR_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    *out = s;
  });
}

tsr_status stream_destroy(void* ctx, int32_t device, tsr_stream stream) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    Device& d = c.device(device);
    if (stream == nullptr || stream == d.stream) fail(TSR_ERR_INVALID_ARGUMENT, "cuda: stream_destroy: not a created stream");
    DeviceGuard guard(d.ordinal);
    TSR_CUDA_CHECK(cudaStreamDestroy(static_cast<cudaStream_t>(stream)));
  });
}

tsr_status stream_synchronize(void* ctx, int32_t device, tsr_stream stream) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    Device& d = c.device(device);
    DeviceGuard guard(d.ordinal);
    TSR_CUDA_CHECK(cudaStreamSynchronize(stream_of(d, stream)));
  });
}

tsr_status empty_cache(void* ctx, int32_t device) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    Device& d = c.device(device);
    DeviceGuard guard(d.ordinal);
    d.allocator->empty_cache();
  });
}

tsr_status memory_stats(void* ctx, int32_t device, uint64_t* in_use, uint64_t* reserved) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    if (in_use == nullptr || reserved == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "cuda: memory_stats: NULL out");
    Device& d = c.device(device);
    const CachingAllocator::Stats s = d.allocator->stats();
    *in_use = s.in_use;
    *reserved = s.reserved;
  });
}

const tsr_device_iface kDeviceIface = {
    TSR_DEVICE_IFACE_STRUCT_SIZE,
    device_count,
    unavailable_reason,
    get_properties,
    allocate,
    deallocate,
    copy_h2d,
    copy_d2h,
    copy_d2d,
    synchronize,
    stream_create,
    stream_destroy,
    stream_synchronize,
    empty_cache,
    memory_stats,
};

void destroy(void* ctx) { delete static_cast<Context*>(ctx); }

std::unique_ptr<Context> make_context(const tsr_plugin_init_args& args) {
  auto c = std::make_unique<Context>();
  c->host = args.host;
  c->options = read_options(args.options_json);
  discover(*c);
  tsr_plugin_api& api = c->api;
  api.struct_size = TSR_PLUGIN_API_STRUCT_SIZE;
  api.abi_version = TSR_ABI_VERSION;
  api.device_type = TSR_DEVICE_CUDA;
  api.device_type_name = "cuda";
  api.plugin_name = "cuda";
  api.plugin_version = kPluginVersion;
  api.ctx = c.get();
  api.device = &kDeviceIface;
  api.kernels = &kernel_table();
  api.destroy = destroy;
  return c;
}

}  // namespace

Device::Device() = default;

// Work may still be queued: wait for it, then free in dependency order.
Device::~Device() {
  if (stream == nullptr) return;  // never initialised
  if (cudaSetDevice(ordinal) != cudaSuccess) {
    (void)fft_plans.release();  // the driver is gone (process exit): nothing can be freed, cuFFT's plans included
    return;
  }
  (void)cudaStreamSynchronize(stream);
  fft_plans.reset();  // waits for the device (the plans may have run on other streams), then cufftDestroy
  staging.reset();
  if (blas != nullptr) (void)cublasDestroy(blas);
  if (solver != nullptr) (void)cusolverDnDestroy(solver);
  if (blas_workspace != nullptr && allocator) allocator->deallocate(blas_workspace);
  allocator.reset();
  (void)cudaStreamDestroy(stream);
}

Device& Context::device(int32_t index) {
  check_index(*this, index);
  Device& d = *devices[static_cast<size_t>(index)];
  std::call_once(d.init_once, [&] { init_device(*this, d); });
  return d;
}

Context::~Context() { devices.clear(); }

}  // namespace tessera::cuda

extern "C" TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  return tessera::backend::init_plugin("cuda", args, out, tessera::cuda::make_context);
}
