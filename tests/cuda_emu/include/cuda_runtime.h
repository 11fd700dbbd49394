// The CUDA runtime API as the CUDA backend uses it, emulated on the host for
// cuda_emu.so (see tests/cuda_emu/README.md): the same plugin sources, built
// as C++ with TESSERA_CUDA_EMULATION, run their kernels' per-thread code over
// "device" memory that is ordinary host memory, so the backend's whole path
// (entry points, checks, plans, launches, copies, the allocator, the cuBLAS
// argument mapping) runs through the runtime where no GPU is.
//
// Every call is synchronous, so streams and events only need to exist. Device
// memory is counted against a capacity (TESSERA_CUDA_EMU_MEMORY bytes, 8 GiB
// by default) so that out-of-memory paths run too; TESSERA_CUDA_EMU_DEVICES
// says how many devices there are (1 by default, 0 to emulate a machine
// without a GPU). Only what the backend calls is here.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#define __host__
#define __device__
#define __forceinline__ inline

enum cudaError_t {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInsufficientDriver = 35,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorPeerAccessAlreadyEnabled = 704,
};

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

struct CUstream_st {
  int device;
};
struct CUevent_st {
  int recorded;
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

inline int device_count() { return static_cast<int>(std::min<size_t>(env_size("TESSERA_CUDA_EMU_DEVICES", 1), 8)); }

inline thread_local int current_device = 0;
inline thread_local cudaError_t last_error = cudaSuccess;

inline cudaError_t fail(cudaError_t e) {
  last_error = e;
  return e;
}

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
  }
  return "cudaErrorUnknown";
}
inline const char* cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory (emulated device)";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected (TESSERA_CUDA_EMU_DEVICES=0)";
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
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

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
  auto& m = tessera_cuda_emu::memory();
  std::lock_guard<std::mutex> lock(m.mutex);
  auto it = m.blocks.find(ptr);
  if (it == m.blocks.end()) return tessera_cuda_emu::fail(cudaErrorInvalidValue);
  m.used[it->second.first] -= it->second.second;
  m.blocks.erase(it);
  std::free(ptr);
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
  *ptr = std::aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
  return *ptr != nullptr ? cudaSuccess : tessera_cuda_emu::fail(cudaErrorMemoryAllocation);
}
inline cudaError_t cudaFreeHost(void* ptr) {
  std::free(ptr);
  return cudaSuccess;
}

// Copies happen at once (the emulated stream has always caught up). memcpy,
// not memmove: overlapping copies are undefined in CUDA too, and ASan says so.
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind, cudaStream_t) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyPeerAsync(void* dst, int, const void* src, int, size_t bytes, cudaStream_t) {
  if (bytes > 0) std::memcpy(dst, src, bytes);
  return cudaSuccess;
}

inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned) {
  *stream = new CUstream_st{tessera_cuda_emu::current_device};
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t stream) {
  delete stream;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) { return cudaSuccess; }

inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned) {
  *event = new CUevent_st{0};
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t) {
  event->recorded = 1;
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventDestroy(cudaEvent_t event) {
  delete event;
  return cudaSuccess;
}

inline cudaError_t cudaDeviceCanAccessPeer(int* can, int, int) {
  *can = 1;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceEnablePeerAccess(int, unsigned) { return cudaSuccess; }

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
