// SPDX-License-Identifier: Apache-2.0
// Running an op on the CPU backend for a plugin that lacks it (Note [CPU
// fallback] in fallback.cpp).
#pragma once

#include <initializer_list>
#include <string>

#include "runtime.hpp"

namespace tessera::rt {

// Calls one kernel inside a PluginCall (Note [Calling into a plugin]); a
// C++ exception out of it becomes an error naming op, dtype, device and
// plugin. `where` words the device in messages ("on ", "in the CPU fallback
// for "). Defined in dispatch.cpp, beside launch.
tsr_status call_kernel(const tsr_runtime& rt, tsr_device device, int32_t op, int32_t key_dtype, const KernelSlot& k,
                       const tsr_kernel_args& args, const char* where);
[[noreturn]] void kernel_failed(const tsr_runtime& rt, tsr_device device, int32_t op, int32_t key_dtype,
                                const LoadedPlugin* plugin, tsr_status status, const std::string& why,
                                const char* where);

// TSR_ERR_TYPE when the op's contract does not define key dtype `dtype`
// (sort of complex numbers): no plugin could have a kernel for it. Called
// where no kernel was found and where an elementwise op refuses a complex
// dtype, so the common path pays nothing. Defined in dispatch.cpp.
void check_op_takes_dtype(int32_t op, int32_t dtype);

// Runs (op, key_dtype) with the CPU kernel on host copies of `inputs` and
// `output`, which live on `device` of `type`, and copies the output back.
// args_template supplies op, scalars and params. `why` words the reason in
// the warning when it is not a missing kernel (an older plugin's kernel that
// predates the call). Throws Error.
void launch_on_cpu(tsr_runtime& rt, const DeviceType& type, tsr_device device, int32_t op, int32_t key_dtype,
                   std::initializer_list<const tsr_tensor_desc*> inputs, const tsr_tensor_desc& output,
                   const tsr_kernel_args& args_template, const std::string& why = {});

}  // namespace tessera::rt
