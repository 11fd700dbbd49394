// SPDX-License-Identifier: Apache-2.0
// Helpers for the C boundary: argument checks and handing out references.
#pragma once

#include <string>

#include "error.hpp"
#include "tensor.hpp"

namespace tessera::rt {

template <class T>
T& require(T* p, const char* what) {
  if (p == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, std::string(what) + " is NULL");
  return *p;
}

inline void require_out(const void* out) {
  if (out == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "the output pointer is NULL");
}

// Stores a new reference in *out (the caller owns it).
inline void hand_out(TensorRef ref, tsr_tensor** out) { *out = ref.release(); }

// A borrowed handle as a reference-holding TensorRef.
inline TensorRef borrow(tsr_tensor* t, const char* what) { return TensorRef::share(&require(t, what)); }

char* copy_string(const std::string& s);

}  // namespace tessera::rt
