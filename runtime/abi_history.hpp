// SPDX-License-Identifier: Apache-2.0
// What each minor version of this ABI major defines, so that a plugin built
// against an older minor is never handed anything it predates.
//
// Note [What an older plugin is handed]
//   tessera/version.h promises that, within a major, a newer runtime runs
//   older plugins. A plugin built against minor m knows the dtypes, ops,
//   MATH functions, scalar kinds, params meanings and struct fields of 1.0
//   to 1.m and nothing after; a uint64 source in a 1.4 plugin's float32
//   COPY is garbage to it ("copy from unknown dtype 12"). So:
//   - at load, an entry of its kernel table whose op or dtype is newer than
//     its minor is refused (plugin_loader.cpp): it cannot mean it;
//   - before each call of a kernel whose plugin is older than the runtime,
//     launch() (dispatch.cpp) asks newer_than() whether anything in the
//     call is newer than that plugin's minor: a dtype of an input, of the
//     output or of a further output (a cast's source included), the op, a
//     MATH function, a scalar's kind. Such a call runs on the CPU fallback
//     where the device's config allows it, and otherwise fails with
//     TSR_ERR_UNSUPPORTED naming the plugin, its ABI and the first newer
//     thing. The CPU fallback's own plugin is checked the same way;
//   - the call's tsr_kernel_args has the struct_size of the plugin's minor
//     (a 1.5 plugin's args end before more_outputs), and the one params
//     meaning that grew, MATMUL's precision (2 = MEDIUM since 1.3), reaches
//     a 1.0..1.2 plugin as 1, "TF32 allowed", which MEDIUM includes;
//   - a communicator of an older minor is never handed a tensor of a dtype
//     it predates (comm.cpp): there is no fallback for a collective, so the
//     call fails, naming it.
//   A plugin of the runtime's minor or a newer one pays one comparison per
//   call (KernelSlot::minor); the walk runs for older plugins only.
//   Adding a dtype, an op, a MATH function or a scalar kind: give it its
//   minor below; the static_asserts fail until then.
#pragma once

#include <cstdint>
#include <string>

#include "tessera/plugin.h"

namespace tessera::rt {

// The minor version (of TSR_ABI_VERSION_MAJOR) that added each value.
constexpr uint32_t dtype_minor(int32_t dtype) { return dtype >= TSR_COMPLEX64 ? 7 : dtype >= TSR_UINT16 ? 5 : 0; }
constexpr uint32_t op_minor(int32_t op) {
  return op >= TSR_OP_SEARCHSORTED ? 11 : op >= TSR_OP_GELU ? 10 : op >= TSR_OP_CHOLESKY ? 6 : op >= TSR_OP_MATH ? 5 : 0;
}
constexpr uint32_t math_fn_minor(int64_t fn) { return fn >= TSR_MATH_ERF ? 10 : fn >= TSR_MATH_CONJ ? 7 : 5; }
constexpr uint32_t scalar_kind_minor(int32_t kind) { return kind >= TSR_SCALAR_COMPLEX ? 7 : 0; }

// The newest minor that changed what a kernel or communicator is handed
// (1.8 and 1.9 added autograd and functions to the public API only; 1.10
// added TSR_MATH_ERF, 1.11 six ops; 1.12 complex autograd, runtime only):
// a plugin of this minor or a newer one is handed everything as it is.
constexpr uint32_t kPluginFacingMinor = 11;

static_assert(TSR_ABI_VERSION_MAJOR == 1 && TSR_ABI_VERSION_MINOR == 12,
              "a new minor version: record what it adds in abi_history.hpp (Note [What an older plugin is handed])");
static_assert(TSR_DTYPE_COUNT == 15 && TSR_OP_COUNT == 71 && TSR_MATH_FN_COUNT == 22 && TSR_SCALAR_COMPLEX == 3,
              "a new dtype, op, MATH function or scalar kind: give it its minor in abi_history.hpp");

// The first thing of a kernel call that minor `minor` predates; empty
// (minor == 0) when the plugin knows everything in it. No allocation: the
// message is built by describe() only when one is found.
struct NewerThing {
  enum Kind : uint8_t { kNone, kOp, kDtype, kMathFn, kScalarKind } kind = kNone;
  const char* where = "";  // "input 0", "the output", "further output 1", "scalar 0", "params[0]"
  int32_t index = -1;      // which input, further output or scalar; -1: none
  int64_t value = 0;       // the op, dtype, function or kind
  uint32_t minor = 0;      // the minor that added it
  explicit operator bool() const { return kind != kNone; }
  // "dtype uint64 (ABI 1.5) of input 0".
  std::string describe() const;
};
NewerThing newer_than(uint32_t minor, const tsr_kernel_args& args);
// The dtype alone (a communicator's tensor): "the dtype complex64 (ABI 1.7)".
NewerThing newer_dtype(uint32_t minor, int32_t dtype);
// `plugin "name" was built against ABI 1.4, which predates <newer>`: the
// one wording of every such error and warning.
std::string built_before(const std::string& plugin, uint32_t minor, const NewerThing& newer);

// The struct_size of tsr_kernel_args as minor `minor` lays it out.
size_t kernel_args_size(uint32_t minor);

// "1.4"
std::string abi_string(uint32_t minor);

}  // namespace tessera::rt
