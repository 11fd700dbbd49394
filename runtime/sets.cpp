// SPDX-License-Identifier: Apache-2.0
// The Array API's set functions (unique_all, unique_counts, unique_inverse,
// unique_values) built from primitives on x's device: a stable argsort of
// the flattened x and the values through it (SORT alone when neither
// indices nor the inverse is asked), a flag where each run of equal values
// starts (NaN never equals NaN, so each NaN is its own value, as the
// standard asks; -0 equals +0), the starts compacted (NONZERO), and from
// those the values, first indices and counts; the inverse is the running
// count of starts scattered back through the permutation. The one number
// read back is the count of distinct values, which is the result's shape.
#include <string>

#include "error.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt {

void unique(const tsr_tensor& x, TensorRef* values, TensorRef* indices, TensorRef* inverse, TensorRef* counts) {
  const int64_t n = x.layout.numel();
  TensorRef flat = contiguous(TensorRef::share(const_cast<tsr_tensor*>(&x)));
  flat = make_view(*flat, view(flat->layout, 1, &n));
  // The values alone need only SORT; indices and the inverse need the
  // permutation (a stable ARGSORT) and the values taken through it.
  TensorRef perm, sorted;
  if (indices == nullptr && inverse == nullptr) {
    sort(*flat, 0, false, false, &sorted, nullptr);
  } else {
    sort(*flat, 0, false, true, nullptr, &perm);
    sorted = take(*flat, *perm, 0);
  }
  // first[i]: sorted[i] starts a run (i == 0, or it differs from sorted[i - 1]).
  TensorRef first = empty(*x.rt, 1, &n, TSR_BOOL, x.device);
  if (n > 0) {
    fill(*make_view(*first, slice(first->layout, 0, 0, 1, 1)), tsr_scalar_bool(1));
    if (n > 1)
      binary_out(TSR_OP_NE, *make_view(*sorted, slice(sorted->layout, 0, 1, n, 1)),
                 *make_view(*sorted, slice(sorted->layout, 0, 0, n - 1, 1)),
                 *make_view(*first, slice(first->layout, 0, 1, n, 1)));
  }
  TensorRef rows = nonzero(*first);  // (k, 1)
  const int64_t k = rows->layout.shape[0];
  TensorRef starts = make_view(*rows, view(rows->layout, 1, &k));
  if (values != nullptr) *values = take(*sorted, *starts, 0);
  if (indices != nullptr) *indices = take(*perm, *starts, 0);
  if (counts != nullptr) {
    // counts[j] = ends[j] - starts[j], ends = starts[1:] ++ [n].
    TensorRef ends = empty(*x.rt, 1, &k, TSR_INT64, x.device);
    if (k > 0) {
      copy_into(*make_view(*ends, slice(ends->layout, 0, 0, k - 1, 1)), *make_view(*starts, slice(starts->layout, 0, 1, k, 1)));
      fill(*make_view(*ends, slice(ends->layout, 0, k - 1, k, 1)), tsr_scalar_int(n));
    }
    *counts = binary(TSR_OP_SUB, *ends, *starts);
  }
  if (inverse != nullptr) {
    TensorRef group = binary_scalar(TSR_OP_SUB, *cumsum(*first, 0, TSR_DTYPE_UNDEFINED), tsr_scalar_int(1), false);
    TensorRef inv = empty(*x.rt, 1, &n, TSR_INT64, x.device);
    if (n > 0) scatter_(*inv, 0, *perm, *group, false);
    *inverse = make_view(*inv, view(inv->layout, x.layout.ndim, x.layout.shape.data()));
  }
}

}  // namespace tessera::rt
