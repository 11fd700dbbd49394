// SPDX-License-Identifier: Apache-2.0
// Note [BLAS on first use] (blas_library.hpp).
#include "blas_library.hpp"

#include <dlfcn.h>

#include <mutex>

namespace tessera::cpu_tbb {

const BlasLibrary& blas_library() {
  static const BlasLibrary opened = [] {
    BlasLibrary b;
    dlerror();
    b.handle = dlopen(TESSERA_BLAS_SONAME, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (b.handle == nullptr) {
      const char* why = dlerror();
      b.problem = std::string("cannot open ") + TESSERA_BLAS_SONAME + ": " + (why ? why : "dlopen failed");
    }
    return b;
  }();
  return opened;
}

void* blas_symbol_address(const char* name) {
  const BlasLibrary& b = blas_library();
  return b.handle != nullptr ? dlsym(b.handle, name) : nullptr;
}

namespace {

// OpenBLAS's process-wide thread count and who holds it at one (Note
// [Serial BLAS]); a function-local static, as OpenBLAS's count is global.
struct BlasThreads {
  using set_t = void (*)(int);
  using get_t = int (*)();
  BlasThreads()
      : set(reinterpret_cast<set_t>(blas_symbol_address("openblas_set_num_threads"))),
        get(reinterpret_cast<get_t>(blas_symbol_address("openblas_get_num_threads"))) {
    if (get == nullptr) set = nullptr;
  }
  set_t set;
  get_t get;
  std::mutex lock;
  int holders = 0;
  int saved = 0;
};

BlasThreads& blas_threads() {
  static BlasThreads t;
  return t;
}

}  // namespace

SerialBlas::SerialBlas() {
  BlasThreads& t = blas_threads();
  if (t.set == nullptr) return;
  std::lock_guard<std::mutex> hold(t.lock);
  if (t.holders++ == 0) {
    t.saved = t.get();
    if (t.saved != 1) t.set(1);
  }
}

SerialBlas::~SerialBlas() {
  BlasThreads& t = blas_threads();
  if (t.set == nullptr) return;
  std::lock_guard<std::mutex> hold(t.lock);
  if (--t.holders == 0 && t.saved != 1) t.set(t.saved);
}

}  // namespace tessera::cpu_tbb
