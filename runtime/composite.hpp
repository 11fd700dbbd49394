// SPDX-License-Identifier: Apache-2.0
// The runtime's decompositions of the composite ops (Note [Composites] in
// composite.cpp; which ops are composites: TSR_OP_TABLE in tessera/ops.h).
#pragma once

#include <initializer_list>

#include "ops.hpp"

namespace tessera::rt {

// Runs composite op `op` (key dtype `key`) on `device` from primitive
// kernels, with launch's arguments.
void run_composite(tsr_runtime& rt, tsr_device device, int32_t op, int32_t key,
                   std::initializer_list<const tsr_tensor_desc*> inputs, const tsr_tensor_desc& out,
                   const KernelParams& extra);

}  // namespace tessera::rt
