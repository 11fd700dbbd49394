// SPDX-License-Identifier: Apache-2.0
// tsr_math's device-agnostic half: MATH's functions (enum tsr_math_fn) on
// any dtype, as the Array API defines them. Floating input runs the MATH
// kernel; integer input to floor, ceil, trunc and round is returned as a
// copy (already integral), sign of an integer is (a > 0) - (a < 0), and the
// other functions of an integer compute in the default float dtype, as exp.
// Complex input runs the MATH kernel, but for floor, ceil and trunc, which
// are not defined on it; conj of a real tensor is a copy.
#include <algorithm>
#include <string>

#include "derivatives.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "promotion.hpp"
#include "shape.hpp"

namespace tessera::rt {

namespace {

void check_fn(int32_t fn) {
  if (fn < 0 || fn >= TSR_MATH_FN_COUNT)
    fail(TSR_ERR_INVALID_ARGUMENT, "math function " + std::to_string(fn) + " is not a tsr_math_fn of ABI " +
                                       std::to_string(TSR_ABI_VERSION_MAJOR) + "." +
                                       std::to_string(TSR_ABI_VERSION_MINOR));
}

bool keeps_integers(int32_t fn) {
  return fn == TSR_MATH_FLOOR || fn == TSR_MATH_CEIL || fn == TSR_MATH_TRUNC || fn == TSR_MATH_ROUND;
}

// The dtype the function computes and returns in, for input dtype `dtype`.
int32_t math_dtype(int32_t fn, int32_t dtype) {
  if (tsr_dtype_is_complex(dtype)) {
    if (fn == TSR_MATH_FLOOR || fn == TSR_MATH_CEIL || fn == TSR_MATH_TRUNC || fn == TSR_MATH_ERF)
      fail(TSR_ERR_TYPE, std::string(tsr_math_fn_name(fn)) + " is not defined for complex dtypes (" +
                             tsr_dtype_name(dtype) + ")");
    return dtype;
  }
  if (dtype == TSR_BOOL)
    fail(TSR_ERR_TYPE, std::string(tsr_math_fn_name(fn)) + " is not defined for bool tensors");
  if (tsr_dtype_is_floating(dtype) || keeps_integers(fn) || fn == TSR_MATH_SIGN) return dtype;
  return TSR_FLOAT32;
}

// sign of an integer tensor: (a > 0) - (a < 0) in a's dtype.
TensorRef integer_sign(const tsr_tensor& a) {
  TensorRef pos = to(binary_scalar(TSR_OP_GT, a, tsr_scalar_int(0), false), a.dtype, a.device);
  TensorRef neg = to(binary_scalar(TSR_OP_LT, a, tsr_scalar_int(0), false), a.dtype, a.device);
  return binary(TSR_OP_SUB, *pos, *neg);
}

void launch_math(int32_t fn, const tsr_tensor& in, const tsr_tensor& out) {
  tsr_tensor_desc din, dout;
  fill_desc_broadcast(in, out.layout.ndim, out.layout.shape.data(), din);
  fill_desc(out, dout);
  const int64_t params[1] = {fn};
  launch(*in.rt, in.device, TSR_OP_MATH, in.dtype, {&din}, dout, {.params = params});
}

}  // namespace

TensorRef math(int32_t fn, const tsr_tensor& a) {
  check_fn(fn);
  // The conjugate of a real number is itself: a copy, as for any dtype.
  if (fn == TSR_MATH_CONJ && !tsr_dtype_is_complex(a.dtype)) return clone(a);
  const int32_t dtype = math_dtype(fn, a.dtype);
  if (!tsr_dtype_is_floating(a.dtype) && !tsr_dtype_is_complex(a.dtype)) {
    if (keeps_integers(fn)) return clone(a);
    if (fn == TSR_MATH_SIGN) return integer_sign(a);
  }
  TensorRef in = a.dtype == dtype ? TensorRef::share(const_cast<tsr_tensor*>(&a))
                                  : to(TensorRef::share(const_cast<tsr_tensor*>(&a)), dtype, a.device);
  TensorRef out = make_tensor(*a.rt, dense_like(in->layout), dtype, a.device);
  if (out->layout.numel() > 0) launch_math(fn, *in, *out);
  if (autograd::should_record({in.get()})) [[unlikely]]
    autograd::record_math(fn, *in, *out);
  return out;
}

void math_out(int32_t fn, const tsr_tensor& a, const tsr_tensor& out) {
  check_fn(fn);
  check_same_device(a, out);
  // Computed whole, then copied in: out may be a, or share memory with it.
  TensorRef result = math(fn, a);
  if (out.layout.ndim != result->layout.ndim ||
      !std::equal(out.layout.shape.begin(), out.layout.shape.begin() + out.layout.ndim, result->layout.shape.begin()))
    fail(TSR_ERR_SHAPE, std::string(tsr_math_fn_name(fn)) + ": out has shape " + shape_string(out.layout) +
                            " but the result's shape is " + shape_string(result->layout) + " (out= never resizes)");
  if (!can_cast(result->dtype, out.dtype))
    fail(TSR_ERR_TYPE, std::string("result type ") + tsr_dtype_name(result->dtype) +
                           " can't be cast to the desired output type " + tsr_dtype_name(out.dtype));
  copy_into(out, *result);
}

}  // namespace tessera::rt
