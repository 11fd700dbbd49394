// SPDX-License-Identifier: Apache-2.0
// Copies between pageable host memory and a device, through pinned staging.
//
// The ABI lets the caller reuse its host buffer as soon as a copy returns, and
// the runtime's buffers are ordinary (pageable) memory, which the GPU cannot
// read asynchronously. So host -> device copies first memcpy into a pinned
// slot and queue the DMA from there: the call returns without waiting for the
// stream. Device -> host copies queue the DMA into pinned slots and copy out
// each slot as it lands, overlapping the host memcpy with the next DMA; they
// return when the data is in the caller's buffer (the host reads it next).
// Each slot has an event recorded after its DMA; a slot is reused only after
// its event completes.
//
// Two pools: 64 small slots of 64 KiB (many small copies can be in flight
// behind a long kernel without blocking the host) and 4 large slots of 16 MiB
// for pipelining big copies. Both are allocated on first use. Where pinned
// memory cannot be had, copies fall back to cudaMemcpyAsync plus a stream
// synchronisation.
//
// The memcpy into or out of a large slot is split across up to 8 threads
// (host_copy.hpp): one thread copies ~10 GB/s, which capped a pageable 1 GiB
// copy at ~8 GB/s on an H200 machine whose pinned DMA runs at 55 GB/s.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <mutex>
#include <vector>

#include "host_copy.hpp"

namespace tessera::cuda {

class Staging {
 public:
  Staging() = default;
  ~Staging();
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  // The caller has made the device current; `stream` is the device's stream.
  void to_device(void* dst, const void* src, size_t nbytes, cudaStream_t stream);
  void to_host(void* dst, const void* src, size_t nbytes, cudaStream_t stream);

  static constexpr size_t kSmallSlot = size_t{64} << 10;
  static constexpr int kSmallSlots = 64;
  static constexpr size_t kLargeSlot = size_t{16} << 20;
  static constexpr int kLargeSlots = 4;

 private:
  struct Slot {
    char* host = nullptr;     // pinned
    cudaEvent_t done = nullptr;  // recorded after the slot's last DMA
  };
  struct Pool {
    std::vector<Slot> slots;
    size_t next = 0;
    bool failed = false;  // pinned memory could not be had: use the fallback
  };
  // Slots of `pool`, allocating them on first use; false when unavailable.
  bool ready(Pool& pool, int count, size_t slot_bytes);
  static void release(Pool& pool) noexcept;

  std::mutex mutex_;
  Pool small_, large_;
  HostCopier copier_{HostCopier::default_threads()};  // its workers start with the first large copy
};

}  // namespace tessera::cuda
