// SPDX-License-Identifier: Apache-2.0
// The plugin's entry point, its options, and the CPU's memory interface.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "kernels.hpp"
#include "options_reader.hpp"
#include "plugin_init.hpp"
#include "tessera/plugin.h"

namespace tessera::cpu_tbb {

namespace {

constexpr const char* kPluginVersion = "0.1.0";

// ---- options ------------------------------------------------------------------
// The options are a small JSON object; "threads" and "cache_mb" are read
// (Note [Plugin options without a JSON library] in backends/common/options_reader.hpp).
struct Options {
  int threads = 0;        // 0: all cores
  int64_t cache_mb = -1;  // the allocator's cache limit; -1: the default
};

Options read_options(const char* json) {
  Options o;
  backend::for_each_option("cpu_tbb", json, [&](const std::string& key, const std::string& value) {
    if (key == "threads")
      o.threads = static_cast<int>(backend::option_count("cpu_tbb", key, value, 65536, "from 0 (all cores) to 65536"));
    if (key == "cache_mb")
      o.cache_mb = backend::option_count("cpu_tbb", key, value, int64_t{1} << 30, "of MiB from 0 (no cache) to 2^30");
  });
  return o;
}

// ---- device interface -----------------------------------------------------------
Context& ctx_of(void* ctx) { return *static_cast<Context*>(ctx); }

void check_device(int32_t device) {
  if (device != 0) fail(TSR_ERR_INDEX, "cpu_tbb: no cpu device " + std::to_string(device) + " (there is one: 0)");
}

int32_t device_count(void*) { return 1; }

uint64_t pages_to_bytes(long pages) {
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

tsr_status get_properties(void* ctx, int32_t device, tsr_device_properties* props) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    check_device(device);
    if (props == nullptr || props->struct_size < sizeof(size_t))
      fail(TSR_ERR_INVALID_ARGUMENT, "cpu_tbb: get_properties needs a properties struct");
    tsr_device_properties p{};
    p.struct_size = props->struct_size;
    std::snprintf(p.name, sizeof p.name, "%s", c.device_name.c_str());
    p.total_memory = pages_to_bytes(sysconf(_SC_PHYS_PAGES));
    p.free_memory = pages_to_bytes(sysconf(_SC_AVPHYS_PAGES));
    p.host_accessible = 1;
    p.compute_units = c.threads;
    std::memcpy(props, &p, std::min(props->struct_size, sizeof p));
  });
}

// Blocks come from the instance's caching allocator (allocator.hpp): 64-byte
// aligned, 2 MiB aligned and huge-page hinted from 4 MiB on.
tsr_status allocate(void* ctx, int32_t device, size_t nbytes, void** out) {
  Context& c = ctx_of(ctx);
  if (device == 0 && out != nullptr && nbytes <= (size_t{1} << 48)) {  // the hot path: no exception machinery
    if (void* p = c.memory->allocate(nbytes)) {
      *out = p;
      return TSR_OK;
    }
  }
  return guarded(c.host, [&] {
    check_device(device);
    if (out == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "cpu_tbb: allocate: NULL out");
    // Larger than any x86-64 address space: refuse before asking the system.
    if (nbytes > (size_t{1} << 48)) fail(TSR_ERR_OUT_OF_MEMORY, "cpu_tbb: cannot allocate " + std::to_string(nbytes) + " bytes");
    fail(TSR_ERR_OUT_OF_MEMORY, "cpu_tbb: out of memory allocating " + std::to_string(nbytes) + " bytes");
  });
}

void deallocate(void* ctx, int32_t, void* ptr, size_t nbytes) { ctx_of(ctx).memory->deallocate(ptr, nbytes); }

tsr_status empty_cache(void* ctx, int32_t device) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    check_device(device);
    c.memory->release_cache();
  });
}

tsr_status memory_stats(void* ctx, int32_t device, uint64_t* in_use, uint64_t* reserved) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    check_device(device);
    if (in_use == nullptr || reserved == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "cpu_tbb: memory_stats: NULL out");
    const uint64_t used = c.memory->in_use_bytes();
    *in_use = used;
    *reserved = used + c.memory->cached_bytes();
  });
}

// memcpy, cut into fixed pieces copied in parallel for large blocks.
void copy_bytes(Context& c, void* dst, const void* src, size_t nbytes) {
  constexpr size_t kPiece = size_t{1} << 20;
  if (nbytes < 4 * kPiece || c.threads <= 1) {
    if (nbytes > 0) std::memcpy(dst, src, nbytes);
    return;
  }
  const size_t pieces = (nbytes + kPiece - 1) / kPiece;
  c.parallel([&] {
    tbb::parallel_for(size_t{0}, pieces, [&](size_t i) {
      const size_t begin = i * kPiece;
      std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin, std::min(kPiece, nbytes - begin));
    });
  });
}

tsr_status copy_h2d(void* ctx, int32_t device, void* dst, const void* src, size_t nbytes, tsr_stream) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    check_device(device);
    copy_bytes(c, dst, src, nbytes);
  });
}

tsr_status copy_d2d(void* ctx, int32_t dst_device, void* dst, int32_t src_device, const void* src, size_t nbytes, tsr_stream) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, [&] {
    check_device(dst_device);
    check_device(src_device);
    copy_bytes(c, dst, src, nbytes);
  });
}

tsr_status synchronize(void* ctx, int32_t device) {
  return guarded(ctx_of(ctx).host, [&] { check_device(device); });  // kernels finish before they return
}

const tsr_device_iface kDeviceIface = {
    TSR_DEVICE_IFACE_STRUCT_SIZE,
    device_count,
    nullptr,  // unavailable_reason: never unavailable
    get_properties,
    allocate,
    deallocate,
    copy_h2d,
    copy_h2d,  // device -> host is the same memcpy
    copy_d2d,
    synchronize,
    nullptr,  // no streams
    nullptr,
    nullptr,
    empty_cache,
    memory_stats,
};

// An eighth of physical memory; no cache under AddressSanitizer, so that a
// use after free still hits freed (poisoned) memory there.
size_t default_cache_limit() {
#if defined(__SANITIZE_ADDRESS__)
  return 0;
#else
  return static_cast<size_t>(pages_to_bytes(sysconf(_SC_PHYS_PAGES)) / 8);
#endif
}

void destroy(void* ctx) { delete static_cast<Context*>(ctx); }  // ~HostAllocator returns the cache

std::unique_ptr<Context> make_context(const tsr_plugin_init_args& args) {
  auto c = std::make_unique<Context>();
  c->host = args.host;
  const Options options = read_options(args.options_json);
  c->memory = std::make_unique<HostAllocator>(options.cache_mb >= 0 ? static_cast<size_t>(options.cache_mb) << 20
                                                                     : default_cache_limit());
  c->fft_plans = make_fft_plans();
  const int requested = options.threads;
  if (requested > 0) c->arena.initialize(requested);
  else c->arena.initialize();
  c->threads = c->arena.max_concurrency();
  c->device_name = "CPU (oneTBB, " + std::to_string(c->threads) + (c->threads == 1 ? " thread)" : " threads)");
  tsr_plugin_api& api = c->api;
  api.struct_size = TSR_PLUGIN_API_STRUCT_SIZE;
  api.abi_version = TSR_ABI_VERSION;
  api.device_type = TSR_DEVICE_CPU;
  api.device_type_name = "cpu";
  api.plugin_name = "cpu_tbb";
  api.plugin_version = kPluginVersion;
  api.ctx = c.get();
  api.device = &kDeviceIface;
  api.kernels = &kernel_table();
  api.destroy = destroy;
  return c;
}

}  // namespace

}  // namespace tessera::cpu_tbb

extern "C" TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  return tessera::backend::init_plugin("cpu_tbb", args, out, tessera::cpu_tbb::make_context);
}
