// SPDX-License-Identifier: Apache-2.0
// The real and imaginary parts of a complex tensor as views of its storage
// (torch.real, torch.imag): a complex element is two adjacent reals, the real
// part first (tessera/dtype.h), so a part is the same shape read as the real
// dtype with every stride and the offset doubled, the imaginary part one
// real further on. Also view_dtype (ABI 1.11): the storage's elements read
// as another dtype of the same size, the same layout.
#include <string>

#include "derivatives.hpp"
#include "error.hpp"
#include "ops.hpp"

namespace tessera::rt {

TensorRef complex_part(const tsr_tensor& t, bool imag) {
  if (!tsr_dtype_is_complex(t.dtype)) {
    // The real part of a real tensor is the tensor (a view); it has no imaginary part.
    if (!imag) return autograd::view_of(t, [](const Layout& l) { return l; }, "AliasBackward0");
    fail(TSR_ERR_TYPE, std::string("imag is not defined for tensors of a real dtype (") + tsr_dtype_name(t.dtype) +
                           "); it is for complex64 and complex128");
  }
  Layout part = t.layout;
  for (int32_t d = 0; d < part.ndim; ++d) part.strides[static_cast<size_t>(d)] *= 2;
  part.offset = 2 * part.offset + (imag ? 1 : 0);
  TensorRef view = make_view(t, part);
  view->dtype = tsr_dtype_real(t.dtype);
  if (autograd::should_record({&t})) [[unlikely]]
    autograd::record_complex_part(t, imag, *view);
  return view;
}

TensorRef view_dtype(const tsr_tensor& t, int32_t dtype) {
  if (tsr_dtype_size(dtype) == 0) fail(TSR_ERR_TYPE, "view(dtype): unknown dtype " + std::to_string(dtype));
  if (dtype == t.dtype) return autograd::view_of(t, [](const Layout& l) { return l; }, "AliasBackward0");
  if (tsr_dtype_size(dtype) != tsr_dtype_size(t.dtype))
    fail(TSR_ERR_TYPE, std::string("view(dtype): the element sizes differ: ") + tsr_dtype_name(t.dtype) + " has " +
                           std::to_string(tsr_dtype_size(t.dtype)) + " bytes, " + tsr_dtype_name(dtype) + " " +
                           std::to_string(tsr_dtype_size(dtype)) + " (tessera reinterprets equal sizes only)");
  if (dtype == TSR_BOOL)
    fail(TSR_ERR_TYPE, std::string("view(dtype): a bool element must be 0 or 1, which ") + tsr_dtype_name(t.dtype) +
                           "'s bytes need not be: convert with to(bool) instead");
  TensorRef view = make_view(t, t.layout);
  view->dtype = dtype;
  // The bits of another type have no derivative (torch records none either
  // for an integer view); a floating one records NotImplementedBackward.
  if (autograd::should_record({&t}) && tsr_dtype_is_floating(dtype)) [[unlikely]]
    autograd::record_unsupported("view(dtype)", {&t}, *view);
  return view;
}

}  // namespace tessera::rt
