// SPDX-License-Identifier: Apache-2.0
#include <string>

#include "derivatives.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "promotion.hpp"
#include "shape.hpp"

namespace tessera::rt {

// Note [Kernel contracts]: uint64 for the unsigned dtypes NumPy sums so,
// int64 for the other integers and bool, else the input's.
int32_t sum_dtype(int32_t dtype) {
  if (tsr_dtype_is_floating(dtype) || tsr_dtype_is_complex(dtype)) return dtype;
  return dtype == TSR_UINT16 || dtype == TSR_UINT32 || dtype == TSR_UINT64 ? TSR_UINT64 : TSR_INT64;
}

namespace {
int32_t reduced_dtype(int32_t op, int32_t dtype) {
  if (tsr_op_kind(op) != TSR_OP_KIND_REDUCE) fail(TSR_ERR_INVALID_ARGUMENT, op_label(op) + " is not a reduction");
  switch (op) {
    case TSR_OP_SUM:
    case TSR_OP_PROD: return sum_dtype(dtype);
    case TSR_OP_MEAN:
      if (!tsr_dtype_is_floating(dtype) && !tsr_dtype_is_complex(dtype))
        fail(TSR_ERR_TYPE,
             std::string("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                         "complex dtype. Got: ") + tsr_dtype_name(dtype));
      return dtype;
    case TSR_OP_VAR:
    case TSR_OP_STD:
      if (!tsr_dtype_is_floating(dtype))
        fail(TSR_ERR_TYPE, std::string(tsr_op_name(op)) +
                               "(): only floating dtypes have a variance (as PyTorch's std and var); got " +
                               tsr_dtype_name(dtype));
      return dtype;
    case TSR_OP_ARGMAX:
    case TSR_OP_ARGMIN:
    case TSR_OP_MAX:
    case TSR_OP_MIN:
      if (tsr_dtype_is_complex(dtype))
        fail(TSR_ERR_TYPE, std::string(tsr_op_name(op)) + "(): not defined for complex dtypes (" +
                               tsr_dtype_name(dtype) + "): complex numbers have no order");
      return op == TSR_OP_MAX || op == TSR_OP_MIN ? dtype : TSR_INT64;
    default: fail(TSR_ERR_INTERNAL, op_label(op) + ": a reduction without a result dtype");
  }
}
}  // namespace

TensorRef reduce(int32_t op, const tsr_tensor& t, int32_t num_dims, const int32_t* dims, bool keepdim,
                 double correction) {
  int32_t out_dtype = reduced_dtype(op, t.dtype);
  const Layout& in = t.layout;
  bool all = num_dims == 0 || dims == nullptr;
  if (num_dims < 0) fail(TSR_ERR_INVALID_ARGUMENT, "num_dims must be >= 0");
  const bool arg = op == TSR_OP_ARGMAX || op == TSR_OP_ARGMIN;
  if (arg && num_dims > 1) fail(TSR_ERR_INVALID_ARGUMENT, std::string(tsr_op_name(op)) + " accepts at most one dim");
  if (!(correction >= 0)) fail(TSR_ERR_INVALID_ARGUMENT, "correction must be >= 0 (got " + std::to_string(correction) + ")");
  bool reduced[TSR_MAX_DIMS];
  reduced_dims(in.ndim, num_dims, dims, reduced);

  const char* name = tsr_op_name(op);
  if (op == TSR_OP_MAX || op == TSR_OP_MIN || arg) {
    if (all && in.numel() == 0)
      fail(TSR_ERR_INDEX, std::string(name) + "(): Expected reduction dim to be specified for input.numel() == 0. "
                                             "Specify the reduction dim with the 'dim' argument.");
    for (int32_t d = 0; d < in.ndim; ++d)
      if (reduced[d] && in.shape[static_cast<size_t>(d)] == 0)
        fail(TSR_ERR_INDEX, std::string(name) + "(): Expected reduction dim " + std::to_string(d) +
                                " to have non-zero size.");
  }

  if (arg && t.dtype == TSR_BOOL) fail(TSR_ERR_TYPE, std::string(name) + "(): not defined for bool tensors");

  // The kernel writes the keepdim form; other forms are views of it.
  int64_t keep_shape[TSR_MAX_DIMS];
  for (int32_t d = 0; d < in.ndim; ++d) keep_shape[d] = reduced[d] ? 1 : in.shape[static_cast<size_t>(d)];
  TensorRef out = empty(*t.rt, in.ndim, keep_shape, out_dtype, t.device);
  if (out->layout.numel() > 0) {
    int64_t params[2] = {all ? 1 : 0, 0};
    for (int32_t d = 0; d < in.ndim; ++d)
      if (reduced[d]) params[1] = d;
    tsr_tensor_desc din, dout;
    fill_desc(t, din);
    fill_desc(*out, dout);
    tsr_scalar scalars[1] = {make_scalar(correction)};
    const bool variance = op == TSR_OP_VAR || op == TSR_OP_STD;
    launch(*t.rt, t.device, op, t.dtype, {&din}, dout,
           {.scalars = std::span<const tsr_scalar>(scalars, variance ? 1 : 0), .params = params});
  }
  if (!keepdim) {  // keepdim: also argmax(keepdim=True) without a dim, all dims of size 1, as PyTorch
    int64_t shape[TSR_MAX_DIMS];
    int32_t ndim = 0;
    for (int32_t d = 0; d < in.ndim; ++d)
      if (!reduced[d]) shape[ndim++] = in.shape[static_cast<size_t>(d)];
    out = make_view(*out, view(out->layout, ndim, shape));
  }
  if (autograd::should_record({&t})) autograd::record_reduce(op, t, reduced, !all, correction, *out);
  return out;
}

}  // namespace tessera::rt
