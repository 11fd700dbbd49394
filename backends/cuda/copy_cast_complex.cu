// SPDX-License-Identifier: Apache-2.0
// Casts into complex64 and complex128 (see cast.cuh): a real value becomes
// (value, 0), a complex one is rounded part by part.
#include "cast.cuh"

namespace tessera::cuda {

bool cast_copy_to_complex(const Exec& ex, const tsr_tensor_desc& out, const tsr_tensor_desc& in) {
  switch (out.dtype) {
    case TSR_COMPLEX64: return cast_to<TSR_COMPLEX64>(ex, out, in);
    case TSR_COMPLEX128: return cast_to<TSR_COMPLEX128>(ex, out, in);
    default: return false;
  }
}

}  // namespace tessera::cuda
