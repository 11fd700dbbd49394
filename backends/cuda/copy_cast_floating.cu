// SPDX-License-Identifier: Apache-2.0
// Casts into the floating dtypes (see cast.cuh).
#include "cast.cuh"

namespace tessera::cuda {

bool cast_copy_to_floating(const Exec& ex, const tsr_tensor_desc& out, const tsr_tensor_desc& in) {
  switch (out.dtype) {
    case TSR_FLOAT32: return cast_to<TSR_FLOAT32>(ex, out, in);
    case TSR_FLOAT64: return cast_to<TSR_FLOAT64>(ex, out, in);
    case TSR_FLOAT16: return cast_to<TSR_FLOAT16>(ex, out, in);
    case TSR_BFLOAT16: return cast_to<TSR_BFLOAT16>(ex, out, in);
    default: return false;
  }
}

}  // namespace tessera::cuda
