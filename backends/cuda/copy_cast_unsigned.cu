// SPDX-License-Identifier: Apache-2.0
// Casts into uint16, uint32 and uint64 (see cast.cuh; Note [Casts] in
// tessera/ops.h).
#include "cast.cuh"

namespace tessera::cuda {

bool cast_copy_to_unsigned(const Exec& ex, const tsr_tensor_desc& out, const tsr_tensor_desc& in) {
  switch (out.dtype) {
    case TSR_UINT16: return cast_to<TSR_UINT16>(ex, out, in);
    case TSR_UINT32: return cast_to<TSR_UINT32>(ex, out, in);
    case TSR_UINT64: return cast_to<TSR_UINT64>(ex, out, in);
    default: return false;
  }
}

}  // namespace tessera::cuda
