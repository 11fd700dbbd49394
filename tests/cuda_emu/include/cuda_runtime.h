/* SPDX-License-Identifier: Apache-2.0 */
// The CUDA runtime API as the CUDA backend uses it, emulated on the host for
// cuda_emu.so (see tests/cuda_emu/README.md): the same plugin sources, built
// as C++ with TESSERA_CUDA_EMULATION, run their kernels (Note [Emulated
// kernels] in cuda_emu_kernels.h) over "device" memory that is ordinary host
// memory, so the backend's whole path (entry points, checks, plans, launches
// and their limits, the kernels with their barriers and shuffles, copies, the
// allocator, the cuBLAS argument mapping) runs through the runtime where no
// GPU is.
//
// Streams are asynchronous, as on a GPU (Note [Emulated streams] below):
// launches and copies queue on their stream and run only when something
// waits for them, so a missing synchronisation reads stale data here too.
// Device memory is counted against a capacity (TESSERA_CUDA_EMU_MEMORY bytes,
// 8 GiB by default) so that out-of-memory paths run too;
// TESSERA_CUDA_EMU_DEVICES says how many devices there are (1 by default, 0
// to emulate a machine without a GPU). Only what the backend calls is here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cuda_emu_kernels.h"

#define __host__
#define __device__
#define __forceinline__ inline

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorPeerAccessAlreadyEnabled = 704,
  cudaErrorLaunchFailure = 719,
};

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

// Note [Emulated streams]
// A stream is a queue of host functions (kernel grids, copies,
// GEMMs) run in order, and only when the host waits: cudaStreamSynchronize,
// cudaEventSynchronize on an event recorded on it, cudaStreamWaitEvent from
// another stream, a device-to-pageable-host copy (which CUDA completes before
// returning), and the calls CUDA makes synchronise the device (cudaFree,
// cudaFreeHost, cudaDeviceSynchronize, cudaStreamDestroy). A host-to-device
// copy from pageable memory takes its snapshot at once, as CUDA stages it;
// from pinned memory (cudaHostAlloc) it reads the host buffer when it runs,
// so reusing a pinned buffer before its copy is done corrupts the copy, as
// it would on a GPU. Running work later than a GPU might is always allowed
// by CUDA's rules, so code that is correct on a GPU is correct here.
// An entry is a step that says whether it has finished: a kernel or a copy
// always has; a stand-in for work that waits on others (a collective of
// include/nccl.h) may not have yet. A wait runs it until it has;
// cudaEventQuery stops at it and answers cudaErrorNotReady.
struct CUstream_st {
  int device;
  std::mutex queue_mutex;                    // guards pending
  std::deque<std::function<bool()>> pending;
  std::mutex run_mutex;                      // one thread runs the queue at a time, in order
};
struct CUevent_st {
  CUstream_st* stream;  // where it was last recorded; nullptr: never
};
typedef CUstream_st* cudaStream_t;
typedef CUevent_st* cudaEvent_t;

#define cudaStreamNonBlocking 0x01
#define cudaEventDisableTiming 0x02
#define cudaHostAllocDefault 0x00

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem;
  int multiProcessorCount;
  int major, minor;
};

namespace tessera_cuda_emu {

inline size_t env_size(const char* name, size_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? static_cast<size_t>(std::strtoull(v, nullptr, 10)) : fallback;
}

// The emulated devices' memory: host blocks, counted per device.
struct Memory {
  std::mutex mutex;
  std::unordered_map<void*, std::pair<int, size_t>> blocks;  // -> (device, bytes)
  size_t used[8] = {};
  size_t capacity = env_size("TESSERA_CUDA_EMU_MEMORY", size_t{8} << 30);
};
inline Memory& memory() {
  static Memory m;
  return m;
}

// Every stream alive (for the device-wide synchronisations) and the pinned host blocks.
struct Streams {
  std::mutex mutex;
  std::set<CUstream_st*> all;
  std::map<const char*, size_t> pinned;  // cudaHostAlloc'd block -> bytes
};
inline Streams& streams() {
  static Streams s;
  return s;
}

// The legacy default stream (a null cudaStream_t).
inline CUstream_st* stream_or_default(CUstream_st* s) {
  static CUstream_st* const legacy = [] {
    auto* d = new CUstream_st;  // lives as long as the process
    d->device = 0;
    std::lock_guard<std::mutex> lock(streams().mutex);
    streams().all.insert(d);
    return d;
  }();
  return s != nullptr ? s : legacy;
}

inline void drain(CUstream_st* s);

// A GPU's launch queue is bounded (about a thousand entries): a host that
// runs further ahead waits for room. Here it waits for the whole queue.
inline constexpr size_t kQueueDepth = 1024;

// Queues a step that may not finish at its first run (Note [Emulated streams]).
inline void enqueue_polled(CUstream_st* s, std::function<bool()> step) {
  s = stream_or_default(s);
  bool full = false;
  {
    std::lock_guard<std::mutex> lock(s->queue_mutex);
    s->pending.push_back(std::move(step));
    full = s->pending.size() >= kQueueDepth;
  }
  if (full) drain(s);
}

inline void enqueue(CUstream_st* s, std::function<void()> work) {
  enqueue_polled(s, [work = std::move(work)] {
    work();
    return true;
  });
}

inline bool run_queue(CUstream_st* s, bool block);

// A GPU runs every stream at once: a step that waits for a peer (a send
// waiting for its receive) must not wait for a query on its own stream.
// So every wait and query also runs what the other streams can run now,
// skipping a stream that another thread is running.
inline void progress_others(CUstream_st* except) {
  std::vector<CUstream_st*> all;
  {
    std::lock_guard<std::mutex> lock(streams().mutex);
    all.assign(streams().all.begin(), streams().all.end());
  }
  for (CUstream_st* s : all) {
    if (s == except) continue;
    std::unique_lock<std::mutex> run(s->run_mutex, std::try_to_lock);
    if (!run.owns_lock()) continue;
    for (;;) {
      std::function<bool()> step;
      {
        std::lock_guard<std::mutex> lock(s->queue_mutex);
        if (s->pending.empty()) break;
        step = std::move(s->pending.front());
        s->pending.pop_front();
      }
      if (!step()) {
        std::lock_guard<std::mutex> lock(s->queue_mutex);
        s->pending.push_front(std::move(step));
        break;
      }
    }
  }
}

// Runs what is queued on s, oldest first, until nothing is left (block) or
// a step has not finished yet (!block: false, the step stays first).
inline bool run_queue(CUstream_st* s, bool block) {
  s = stream_or_default(s);
  std::lock_guard<std::mutex> run(s->run_mutex);
  for (;;) {
    std::function<bool()> step;
    {
      std::lock_guard<std::mutex> lock(s->queue_mutex);
      if (s->pending.empty()) return true;
      step = std::move(s->pending.front());
      s->pending.pop_front();
    }
    while (!step()) {
      if (!block) {
        std::lock_guard<std::mutex> lock(s->queue_mutex);
        s->pending.push_front(std::move(step));
        return false;
      }
      progress_others(s);
      std::this_thread::yield();
    }
  }
}

inline void drain(CUstream_st* s) { run_queue(s, true); }

inline void drain_all() {
  std::vector<CUstream_st*> all;
  {
    std::lock_guard<std::mutex> lock(streams().mutex);
    all.assign(streams().all.begin(), streams().all.end());
  }
  for (CUstream_st* s : all) drain(s);
}

// Whether [p, p + bytes) lies in a cudaHostAlloc block.
inline bool pinned(const void* p, size_t bytes) {
  const char* c = static_cast<const char*>(p);
  std::lock_guard<std::mutex> lock(streams().mutex);
  auto it = streams().pinned.upper_bound(c);
  if (it == streams().pinned.begin()) return false;
  --it;
  return c >= it->first && c + bytes <= it->first + it->second;
}

inline int device_count() { return static_cast<int>(std::min<size_t>(env_size("TESSERA_CUDA_EMU_DEVICES", 1), 8)); }

inline thread_local int current_device = 0;
inline thread_local cudaError_t last_error = cudaSuccess;

inline cudaError_t fail(cudaError_t e) {
  last_error = e;
  return e;
}

// What a wait returns: a kernel that failed (Note [Emulated kernels]) fails
// every later wait, as a GPU's launch failure does.
inline cudaError_t waited() { return kernel_failed().load() ? fail(cudaErrorLaunchFailure) : cudaSuccess; }

}  // namespace tessera_cuda_emu

inline const char* cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorPeerAccessAlreadyEnabled: return "cudaErrorPeerAccessAlreadyEnabled";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
  }
  return "cudaErrorUnknown";
}
inline const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory (emulated device)";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected (TESSERA_CUDA_EMU_DEVICES=0)";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorLaunchFailure: return "unspecified launch failure (the emulator printed why)";
    default: return "emulated CUDA error";
  }
}
inline cudaError_t cudaGetLastError() {
  const cudaError_t e = tessera_cuda_emu::last_error;
  tessera_cuda_emu::last_error = cudaSuccess;
  return e;
}

inline cudaError_t cudaGetDeviceCount(int* count) {
  *count = tessera_cuda_emu::device_count();
  return *count == 0 ? tessera_cuda_emu::fail(cudaErrorNoDevice) : cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (device < 0 || device >= tessera_cuda_emu::device_count()) return tessera_cuda_emu::fail(cudaErrorInvalidDevice);
  *prop = cudaDeviceProp{};
  std::snprintf(prop->name, sizeof prop->name, "Tessera CUDA emulator %d (host memory)", device);
  prop->totalGlobalMem = tessera_cuda_emu::memory().capacity;
  prop->multiProcessorCount = 4;
  prop->major = 9;
  prop->minor = 0;
  return cudaSuccess;
}
inline cudaError_t cudaGetDevice(int* device) {
  *device = tessera_cuda_emu::current_device;
  return cudaSuccess;
}
inline cudaError_t cudaSetDevice(int device) {
  if (device < 0 || device >= tessera_cuda_emu::device_count()) return tessera_cuda_emu::fail(cudaErrorInvalidDevice);
  tessera_cuda_emu::current_device = device;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() {
  tessera_cuda_emu::drain_all();
  return tessera_cuda_emu::waited();
}

inline cudaError_t cudaMalloc(void** ptr, size_t bytes) {
  auto& m = tessera_cuda_emu::memory();
  const int dev = tessera_cuda_emu::current_device;
  const size_t rounded = (std::max<size_t>(bytes, 1) + 255) / 256 * 256;  // cudaMalloc aligns to 256 bytes
  std::lock_guard<std::mutex> lock(m.mutex);
  if (rounded > m.capacity - m.used[dev]) return tessera_cuda_emu::fail(cudaErrorMemoryAllocation);
  void* p = std::aligned_alloc(256, rounded);
  if (p == nullptr) return tessera_cuda_emu::fail(cudaErrorMemoryAllocation);
  m.blocks[p] = {dev, rounded};
  m.used[dev] += rounded;
  *ptr = p;
  return cudaSuccess;
}
inline cudaError_t cudaFree(void* ptr) {
  if (ptr == nullptr) return cudaSuccess;  // "creates the context"
  tessera_cuda_emu::drain_all();  // cudaFree synchronises the device
  auto& m = tessera_cuda_emu::memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.blocks.find(ptr);
  if (it == m.blocks.end()) return tessera_cuda_emu::fail(cudaErrorInvalidValue);
  m.used[it->second.first] -= it->second.second;
  m.blocks.erase(it);
  std::free(ptr);
  return cudaSuccess;
}
enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};
struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void* devicePointer;
  void* hostPointer;
};
// Device memory of this emulator instance (each library built over it has
// its own); any other pointer is unregistered host memory, as CUDA 11+
// answers for pageable memory.
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attr, const void* ptr) {
  auto& m = tessera_cuda_emu::memory();
  *attr = cudaPointerAttributes{cudaMemoryTypeUnregistered, -1, nullptr, nullptr};
  std::lock_guard<std::mutex> lock(m.mutex);
  const char* p = static_cast<const char*>(ptr);
  for (const auto& [base, block] : m.blocks) {
    const char* b = static_cast<const char*>(base);
    if (p >= b && p < b + block.second) {
      *attr = cudaPointerAttributes{cudaMemoryTypeDevice, block.first, const_cast<void*>(ptr), nullptr};
      break;
    }
  }
  return cudaSuccess;
}
inline cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  auto& m = tessera_cuda_emu::memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  *total_bytes = m.capacity;
  *free_bytes = m.capacity - m.used[tessera_cuda_emu::current_device];
  return cudaSuccess;
}
inline cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned) {
  const size_t rounded = (std::max<size_t>(bytes, 1) + 4095) / 4096 * 4096;
  *ptr = std::aligned_alloc(4096, rounded);
  if (*ptr == nullptr) return tessera_cuda_emu::fail(cudaErrorMemoryAllocation);
  std::lock_guard<std::mutex> lock(tessera_cuda_emu::streams().mutex);
  tessera_cuda_emu::streams().pinned[static_cast<const char*>(*ptr)] = rounded;
  return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void* ptr) {
  if (ptr == nullptr) return cudaSuccess;
  tessera_cuda_emu::drain_all();  // cudaFreeHost synchronises the device
  {
    std::lock_guard<std::mutex> lock(tessera_cuda_emu::streams().mutex);
    if (tessera_cuda_emu::streams().pinned.erase(static_cast<const char*>(ptr)) == 0)
      return tessera_cuda_emu::fail(cudaErrorInvalidValue);
  }
  std::free(ptr);
  return cudaSuccess;
}

// Copies queue on the stream (Note [Emulated streams]). memcpy, not memmove:
// overlapping copies are undefined in CUDA too, and ASan says so.
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t stream) {
  using namespace tessera_cuda_emu;
  if (bytes == 0) return cudaSuccess;
  if (kind == cudaMemcpyHostToDevice && !pinned(src, bytes)) {  // pageable: staged at once
    auto staged = std::make_shared<std::vector<char>>(static_cast<const char*>(src), static_cast<const char*>(src) + bytes);
    enqueue(stream, [dst, staged] { std::memcpy(dst, staged->data(), staged->size()); });
  } else if (kind == cudaMemcpyDeviceToHost && !pinned(dst, bytes)) {  // pageable: done when the call returns
    drain(stream);
    std::memcpy(dst, src, bytes);
    return waited();
  } else {
    enqueue(stream, [dst, src, bytes] { std::memcpy(dst, src, bytes); });
  }
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyPeerAsync(void* dst, int, const void* src, int, size_t bytes, cudaStream_t stream) {
  if (bytes > 0) tessera_cuda_emu::enqueue(stream, [dst, src, bytes] { std::memcpy(dst, src, bytes); });
  return cudaSuccess;
}

namespace tessera_cuda_emu {

// kernel<<<grid, block, 0, stream>>>(args...) (TSR_LAUNCH in
// backends/cuda/kernels.hpp): the configuration checked now, as a GPU does,
// the grid queued on the stream with copies of the arguments (Note
// [Emulated kernels]).
template <class... P> struct KernelLaunch {
  dim3 grid, block;
  cudaStream_t stream;
  const char* name;
  void (*kernel)(P...);
  template <class... A> void operator()(A&&... args) const {
    if (!valid_launch(grid, block)) {
      fail(cudaErrorInvalidConfiguration);
      return;
    }
    std::function<void()> call = [k = kernel, params = std::tuple<std::decay_t<P>...>(std::forward<A>(args)...)] {
      std::apply(k, params);
    };
    enqueue(stream, [n = name, g = grid, b = block, call = std::move(call)] { run_grid(n, g, b, call); });
  }
};
template <class... P> KernelLaunch<P...> launch(dim3 grid, dim3 block, cudaStream_t stream, const char* name, void (*kernel)(P...)) {
  return KernelLaunch<P...>{grid, block, stream, name, kernel};
}

}  // namespace tessera_cuda_emu

// TSR_EMU_LAUNCH(grid, block, stream, kernel<...>)(args...): the emulated
// kernel<<<grid, block, 0, stream>>>(args...).
#define TSR_EMU_LAUNCH(grid, block, stream, ...) ::tessera_cuda_emu::launch(grid, block, stream, #__VA_ARGS__, &__VA_ARGS__)

inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned) {
  *stream = new CUstream_st;
  (*stream)->device = tessera_cuda_emu::current_device;
  std::lock_guard<std::mutex> lock(tessera_cuda_emu::streams().mutex);
  tessera_cuda_emu::streams().all.insert(*stream);
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  if (stream == nullptr) return tessera_cuda_emu::fail(cudaErrorInvalidResourceHandle);
  tessera_cuda_emu::drain(stream);  // queued work still completes
  {
    std::lock_guard<std::mutex> lock(tessera_cuda_emu::streams().mutex);
    tessera_cuda_emu::streams().all.erase(stream);
  }
  delete stream;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
  tessera_cuda_emu::drain(stream);
  return tessera_cuda_emu::waited();
}
// Work queued on `stream` later waits for `event`: run what the event covers now.
inline cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned) {
  if (event->stream != nullptr && event->stream != stream) tessera_cuda_emu::drain(event->stream);
  return cudaSuccess;
}

inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned) {
  *event = new CUevent_st{nullptr};
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  event->stream = stream;
  return cudaSuccess;
}
// Waits for the work before the event: the whole queue of its stream (later
// work too, which a GPU may have finished as well).
inline cudaError_t cudaEventSynchronize(cudaEvent_t event) {
  if (event->stream != nullptr) tessera_cuda_emu::drain(event->stream);
  return tessera_cuda_emu::waited();
}
// Never waits: runs what the event's stream can run now (Note [Emulated
// streams]); cudaErrorNotReady while a step has not finished, which, as in
// CUDA, is not an error a later call reports.
inline cudaError_t cudaEventQuery(cudaEvent_t event) {
  tessera_cuda_emu::progress_others(event->stream);
  if (event->stream != nullptr && !tessera_cuda_emu::run_queue(event->stream, false)) return cudaErrorNotReady;
  return tessera_cuda_emu::waited();
}
inline cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}

inline cudaError_t cudaDeviceCanAccessPeer(int* can, int, int) {
  *can = 1;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceEnablePeerAccess(int, unsigned) { return cudaSuccess; }

