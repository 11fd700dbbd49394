// SPDX-License-Identifier: Apache-2.0
// Note [What an older plugin is handed] (abi_history.hpp).
#include "abi_history.hpp"

namespace tessera::rt {

namespace {
NewerThing found(NewerThing::Kind kind, const char* where, int32_t index, int64_t value, uint32_t minor) {
  NewerThing t;
  t.kind = kind;
  t.where = where;
  t.index = index;
  t.value = value;
  t.minor = minor;
  return t;
}
}  // namespace

NewerThing newer_than(uint32_t minor, const tsr_kernel_args& args) {
  if (op_minor(args.op) > minor) return found(NewerThing::kOp, "", -1, args.op, op_minor(args.op));
  for (int32_t i = 0; i < args.num_inputs; ++i) {
    const int32_t dt = args.inputs[i]->dtype;
    if (dtype_minor(dt) > minor) return found(NewerThing::kDtype, "input", i, dt, dtype_minor(dt));
  }
  if (dtype_minor(args.output->dtype) > minor)
    return found(NewerThing::kDtype, "the output", -1, args.output->dtype, dtype_minor(args.output->dtype));
  for (int32_t i = 0; i < args.num_more_outputs; ++i) {
    const int32_t dt = args.more_outputs[i]->dtype;
    if (dtype_minor(dt) > minor) return found(NewerThing::kDtype, "further output", i, dt, dtype_minor(dt));
  }
  if (args.op == TSR_OP_MATH && args.num_params > 0 && math_fn_minor(args.params[0]) > minor)
    return found(NewerThing::kMathFn, "params[0]", -1, args.params[0], math_fn_minor(args.params[0]));
  for (int32_t i = 0; i < args.num_scalars; ++i) {
    const int32_t kind = args.scalars[i].kind;
    if (scalar_kind_minor(kind) > minor)
      return found(NewerThing::kScalarKind, "scalar", i, kind, scalar_kind_minor(kind));
  }
  return {};
}

NewerThing newer_dtype(uint32_t minor, int32_t dtype) {
  return dtype_minor(dtype) > minor ? found(NewerThing::kDtype, "", -1, dtype, dtype_minor(dtype)) : NewerThing{};
}

std::string built_before(const std::string& plugin, uint32_t minor, const NewerThing& newer) {
  return "plugin \"" + plugin + "\" was built against ABI " + abi_string(minor) + ", which predates " + newer.describe();
}

std::string abi_string(uint32_t minor) { return std::to_string(TSR_ABI_VERSION_MAJOR) + "." + std::to_string(minor); }

std::string NewerThing::describe() const {
  const std::string since = " (ABI " + abi_string(minor) + ")";
  std::string of;
  if (where[0] != '\0') of = (kind == kMathFn ? " in " : " of ") + std::string(where);
  if (index >= 0) of += " " + std::to_string(index);
  switch (kind) {
    case kOp: return std::string("the op ") + tsr_op_name(static_cast<int>(value)) + since;
    case kDtype: return std::string("the dtype ") + tsr_dtype_name(static_cast<int32_t>(value)) + since + of;
    case kMathFn: return std::string("the MATH function ") + tsr_math_fn_name(static_cast<int>(value)) + since + of;
    case kScalarKind: return "a complex scalar" + since + of;
    case kNone: break;
  }
  return "nothing";
}

size_t kernel_args_size(uint32_t minor) {
  return minor >= 6 ? TSR_KERNEL_ARGS_STRUCT_SIZE : TSR_STRUCT_SIZE(tsr_kernel_args, stream);
}

}  // namespace tessera::rt
