// SPDX-License-Identifier: Apache-2.0
// Casts into the integral dtypes and bool (see cast.cuh).
#include "cast.cuh"

namespace tessera::cuda {

bool cast_copy_to_integral(const Exec& ex, const tsr_tensor_desc& out, const tsr_tensor_desc& in) {
  switch (out.dtype) {
    case TSR_INT8: return cast_to<TSR_INT8>(ex, out, in);
    case TSR_UINT8: return cast_to<TSR_UINT8>(ex, out, in);
    case TSR_INT16: return cast_to<TSR_INT16>(ex, out, in);
    case TSR_INT32: return cast_to<TSR_INT32>(ex, out, in);
    case TSR_INT64: return cast_to<TSR_INT64>(ex, out, in);
    case TSR_BOOL: return cast_to<TSR_BOOL>(ex, out, in);
    default: return false;
  }
}

}  // namespace tessera::cuda
