// SPDX-License-Identifier: Apache-2.0
#include "transfer.hpp"

#include <algorithm>

#include "context.hpp"

namespace tessera::cuda {

Staging::~Staging() {
  release(small_);
  release(large_);
}

void Staging::release(Pool& pool) noexcept {
  for (Slot& s : pool.slots) {
    if (s.done != nullptr) {
      (void)cudaEventSynchronize(s.done);
      (void)cudaEventDestroy(s.done);
    }
    if (s.host != nullptr) (void)cudaFreeHost(s.host);
  }
  pool.slots.clear();
}

bool Staging::ready(Pool& pool, int count, size_t slot_bytes) {
  if (pool.failed) return false;
  if (!pool.slots.empty()) return true;
  pool.slots.resize(static_cast<size_t>(count));
  void* block = nullptr;
  if (cudaHostAlloc(&block, slot_bytes * static_cast<size_t>(count), cudaHostAllocDefault) != cudaSuccess) {
    (void)cudaGetLastError();
    pool.slots.clear();
    pool.failed = true;
    return false;
  }
  // One pinned block; slot 0 owns it (freed through slots[0].host).
  for (int i = 0; i < count; ++i) {
    pool.slots[static_cast<size_t>(i)].host = i == 0 ? static_cast<char*>(block) : nullptr;
    TSR_CUDA_CHECK(cudaEventCreateWithFlags(&pool.slots[static_cast<size_t>(i)].done, cudaEventDisableTiming));
  }
  return true;
}

void Staging::to_device(void* dst, const void* src, size_t nbytes, cudaStream_t stream) {
  if (nbytes == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const bool small = nbytes <= kSmallSlot;
  Pool& pool = small ? small_ : large_;
  const size_t slot_bytes = small ? kSmallSlot : kLargeSlot;
  if (!ready(pool, small ? kSmallSlots : kLargeSlots, slot_bytes)) {
    TSR_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, stream));
    TSR_CUDA_CHECK(cudaStreamSynchronize(stream));  // the caller may reuse src when we return
    return;
  }
  char* const base = pool.slots[0].host;
  for (size_t done = 0; done < nbytes;) {
    const size_t n = std::min(slot_bytes, nbytes - done);
    const size_t i = pool.next;
    pool.next = (pool.next + 1) % pool.slots.size();
    Slot& slot = pool.slots[i];
    TSR_CUDA_CHECK(cudaEventSynchronize(slot.done));  // the slot's previous DMA has read it
    char* host = base + i * slot_bytes;
    copier_.copy(host, static_cast<const char*>(src) + done, n);
    TSR_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + done, host, n, cudaMemcpyHostToDevice, stream));
    TSR_CUDA_CHECK(cudaEventRecord(slot.done, stream));
    done += n;
  }
}

void Staging::to_host(void* dst, const void* src, size_t nbytes, cudaStream_t stream) {
  if (nbytes == 0) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const bool small = nbytes <= kSmallSlot;
  Pool& pool = small ? small_ : large_;
  const size_t slot_bytes = small ? kSmallSlot : kLargeSlot;
  if (!ready(pool, small ? kSmallSlots : kLargeSlots, slot_bytes)) {
    TSR_CUDA_CHECK(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, stream));
    TSR_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
  }
  char* const base = pool.slots[0].host;
  const size_t pieces = (nbytes + slot_bytes - 1) / slot_bytes;
  const size_t depth = std::min(pieces, pool.slots.size());
  std::vector<size_t> slot_of(pieces);
  // Piece p's DMA goes out once piece p - depth has been copied out of its slot.
  auto issue = [&](size_t p) {
    const size_t i = pool.next;
    pool.next = (pool.next + 1) % pool.slots.size();
    slot_of[p] = i;
    TSR_CUDA_CHECK(cudaEventSynchronize(pool.slots[i].done));  // an earlier H2D may still read it
    const size_t off = p * slot_bytes, n = std::min(slot_bytes, nbytes - off);
    TSR_CUDA_CHECK(cudaMemcpyAsync(base + i * slot_bytes, static_cast<const char*>(src) + off, n, cudaMemcpyDeviceToHost, stream));
    TSR_CUDA_CHECK(cudaEventRecord(pool.slots[i].done, stream));
  };
  for (size_t p = 0; p < depth; ++p) issue(p);
  for (size_t p = 0; p < pieces; ++p) {
    const size_t i = slot_of[p];
    TSR_CUDA_CHECK(cudaEventSynchronize(pool.slots[i].done));
    const size_t off = p * slot_bytes, n = std::min(slot_bytes, nbytes - off);
    copier_.copy(static_cast<char*>(dst) + off, base + i * slot_bytes, n);
    if (p + depth < pieces) issue(p + depth);
  }
}

}  // namespace tessera::cuda
