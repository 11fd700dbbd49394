// SPDX-License-Identifier: Apache-2.0
// Kernel scratch memory from the plugin's caching allocator (Note [Why the
// CPU plugin caches memory]): fresh pages cost ~15 us per 4 KiB on first
// touch, more than many kernels, so scratch is reused from call to call.
#pragma once

#include <string>

#include "context.hpp"

namespace tessera::cpu_tbb {

// Bytes from the plugin's caching allocator, for the life of one kernel call.
class Scratch {
 public:
  Scratch(Context& ctx, size_t nbytes) : memory_(ctx.memory.get()), nbytes_(nbytes) {
    if (nbytes_ == 0) return;
    data_ = memory_->allocate(nbytes_);
    if (data_ == nullptr) fail(TSR_ERR_OUT_OF_MEMORY, "cpu_tbb: no memory for " + std::to_string(nbytes_) + " bytes of scratch");
  }
  ~Scratch() {
    if (data_ != nullptr) memory_->deallocate(data_, nbytes_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  template <class T> T* as() const { return static_cast<T*>(data_); }

 private:
  HostAllocator* memory_;
  size_t nbytes_;
  void* data_ = nullptr;
};

}  // namespace tessera::cpu_tbb
