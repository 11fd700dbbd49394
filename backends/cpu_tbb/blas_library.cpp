// SPDX-License-Identifier: Apache-2.0
// Note [BLAS on first use] (blas_library.hpp).
#include "blas_library.hpp"

#include <dlfcn.h>

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

}  // namespace tessera::cpu_tbb
