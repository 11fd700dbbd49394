// SPDX-License-Identifier: Apache-2.0
#include "shape.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "error.hpp"
#include "tessera/tessera.h"

namespace tessera::rt {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

std::string num(int64_t v) { return std::to_string(v); }

[[noreturn]] void fail_negative_size(int32_t ndim, const int64_t* shape, int64_t size) {
  fail(TSR_ERR_INVALID_ARGUMENT,
       "Trying to create tensor with negative dimension " + num(size) + ": " + format_list(shape, ndim));
}

void check_sizes(int32_t ndim, const int64_t* shape) {
  for (int32_t i = 0; i < ndim; ++i)
    if (shape[i] < 0) fail_negative_size(ndim, shape, shape[i]);
}

// Result of dropping dim `d` (select, squeeze).
Layout remove_dim(const Layout& l, int32_t d) {
  Layout r = l;
  for (int32_t i = d; i + 1 < l.ndim; ++i) {
    r.shape[i] = l.shape[i + 1];
    r.strides[i] = l.strides[i + 1];
  }
  r.ndim = l.ndim - 1;
  r.shape[r.ndim] = 0;
  r.strides[r.ndim] = 0;
  return r;
}

// ATen's infer_dense_strides: dense strides that keep the order of l's
// strides. An insertion sort, stable, in which a stride of 0 compares as
// "ambiguous" and so keeps its row-major place (TensorIterator's rule).
Dims infer_dense_strides(const Layout& l) {
  Dims out{};
  const int32_t n = l.ndim;
  if (n == 0) return out;
  if (n == 1) {
    out[0] = 1;
    return out;
  }
  // perm[0] is the fastest-moving dim; start from row-major order.
  std::array<int32_t, TSR_MAX_DIMS> perm{};
  for (int32_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
  auto should_swap = [&](int32_t d0, int32_t d1) {
    const int64_t s0 = l.strides[d0], s1 = l.strides[d1];
    if (s0 == 0 || s1 == 0) return 0;
    if (s0 < s1) return -1;
    if (s0 > s1) return 1;
    return l.shape[d0] > l.shape[d1] ? 1 : 0;  // equal strides: the smaller size first
  };
  for (int32_t i = 1; i < n; ++i) {
    int32_t dim1 = i;
    for (int32_t j = 1; j <= i; ++j) {
      const int32_t dim0 = i - j;
      const int c = should_swap(perm[dim0], perm[dim1]);
      if (c > 0) {
        std::swap(perm[dim0], perm[dim1]);
        dim1 = dim0;
      } else if (c < 0) {
        break;
      }
    }
  }
  int64_t stride = 1;
  for (int32_t i = 0; i < n; ++i) {
    const int32_t d = perm[i];
    out[d] = stride;
    if (l.shape[d] > 1) stride *= l.shape[d];  // a size-0 dim counts as 1
  }
  return out;
}

}  // namespace

std::string format_list(const int64_t* values, int32_t n) {
  std::string s = "[";
  for (int32_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    s += num(values[i]);
  }
  return s + "]";
}

void fail_ndim(int64_t ndim) {
  if (ndim < 0) fail(TSR_ERR_INVALID_ARGUMENT, "ndim must be non-negative, got " + num(ndim));
  fail(TSR_ERR_INVALID_ARGUMENT, "tensors have at most " + num(TSR_MAX_DIMS) + " dims, got " + num(ndim) +
                                     " (TSR_MAX_DIMS: a kernel's tsr_tensor_desc holds the shape and strides in "
                                     "arrays of that size, part of the plugin ABI)");
}

int64_t checked_numel(int32_t ndim, const int64_t* shape, size_t element_size) {
  check_ndim(ndim);
  check_sizes(ndim, shape);
  // ATen's computeStorageNbytesContiguous: an overflow anywhere in the
  // running product counts, even when a later size is 0.
  uint64_t product = 1;
  bool overflow = false;
  for (int32_t i = 0; i < ndim; ++i) overflow |= __builtin_mul_overflow(product, uint64_t(shape[i]), &product);
  uint64_t bytes = 0;
  overflow |= __builtin_mul_overflow(product, uint64_t(element_size), &bytes);
  overflow |= product > uint64_t(kInt64Max) || bytes > uint64_t(kInt64Max);
  if (overflow)
    fail(TSR_ERR_INVALID_ARGUMENT, "Storage size calculation overflowed with sizes=" + format_list(shape, ndim));
  return int64_t(product);
}

Layout contiguous_layout(int32_t ndim, const int64_t* shape) {
  checked_numel(ndim, shape, 1);
  Layout l;
  l.ndim = ndim;
  uint64_t stride = 1;  // wraps like ATen's when an empty tensor's sizes are huge
  for (int32_t i = ndim - 1; i >= 0; --i) {
    l.shape[i] = shape[i];
    l.strides[i] = int64_t(stride);
    stride *= uint64_t(std::max<int64_t>(shape[i], 1));
  }
  return l;
}

bool is_contiguous(const Layout& l) {
  if (l.numel() == 0) return true;
  int64_t expected = 1;
  for (int32_t d = l.ndim - 1; d >= 0; --d) {
    if (l.shape[d] == 1) continue;
    if (l.strides[d] != expected) return false;
    expected *= l.shape[d];
  }
  return true;
}

bool is_non_overlapping_and_dense(const Layout& l) {
  // TensorImpl's flag: contiguous (so every empty tensor) or a permutation
  // of contiguous (compute_non_overlapping_and_dense).
  if (is_contiguous(l)) return true;
  if (l.ndim == 1) return l.shape[0] < 2 || l.strides[0] == 1;
  std::array<int32_t, TSR_MAX_DIMS> perm{};
  std::iota(perm.begin(), perm.begin() + l.ndim, 0);
  // Sizes 0 and 1 go last; the rest by increasing stride.
  std::stable_sort(perm.begin(), perm.begin() + l.ndim, [&](int32_t a, int32_t b) {
    if (l.shape[a] < 2) return false;
    if (l.shape[b] < 2) return true;
    return l.strides[a] < l.strides[b];
  });
  int64_t required = 1;
  for (int32_t i = 0; i < l.ndim; ++i) {
    const int32_t d = perm[i];
    if (l.shape[d] < 2) return true;
    if (l.strides[d] != required) return false;
    required *= l.shape[d];
  }
  return true;
}

int32_t wrap_dim(int64_t dim, int32_t ndim) {
  const int64_t n = ndim <= 0 ? 1 : ndim;
  if (dim < -n || dim > n - 1)
    fail(TSR_ERR_INDEX, "Dimension out of range (expected to be in range of [" + num(-n) + ", " + num(n - 1) +
                            "], but got " + num(dim) + ")");
  return int32_t(dim < 0 ? dim + n : dim);
}

void infer_size(int64_t numel, int32_t ndim, int64_t* shape) {
  int64_t product = 1;
  bool overflow = false;
  int32_t infer = -1;
  for (int32_t d = 0; d < ndim; ++d) {
    if (shape[d] == -1) {
      if (infer >= 0) fail(TSR_ERR_SHAPE, "only one dimension can be inferred");
      infer = d;
    } else if (shape[d] >= 0) {
      overflow |= __builtin_mul_overflow(product, shape[d], &product);
    } else {
      fail(TSR_ERR_INVALID_ARGUMENT, "invalid shape dimension " + num(shape[d]));
    }
  }
  // An overflowing product exceeds any numel, so the shape is invalid.
  if (!overflow && (numel == product || (infer >= 0 && product > 0 && numel % product == 0))) {
    if (infer >= 0) {
      if (product == 0)
        fail(TSR_ERR_SHAPE, "cannot reshape tensor of 0 elements into shape " + format_list(shape, ndim) +
                                " because the unspecified dimension size -1 can be any value and is ambiguous");
      shape[infer] = numel / product;
    }
    return;
  }
  fail(TSR_ERR_SHAPE, "shape '" + format_list(shape, ndim) + "' is invalid for input of size " + num(numel));
}

std::optional<Dims> view_strides(const Layout& src, int32_t ndim, const int64_t* shape) {
  Dims out{};
  if (src.ndim == 0) {
    for (int32_t d = 0; d < ndim; ++d) out[d] = 1;
    return out;
  }
  const int64_t numel = src.numel();
  if (numel == 0) {
    // Strides are arbitrary here: keep src's for the same shape (NumPy),
    // else take those a fresh tensor of the new shape would have.
    if (ndim == src.ndim && std::equal(shape, shape + ndim, src.shape.begin())) return src.strides;
    for (int32_t d = ndim - 1; d >= 0; --d)
      out[d] = d == ndim - 1 ? 1 : std::max<int64_t>(shape[d + 1], 1) * out[d + 1];
    return out;
  }
  // Walk src's dims from the last, in chunks that are contiguous among
  // themselves (stride[d-1] == size[d] * stride[d], size-1 dims skipped);
  // each chunk must be covered exactly by a run of new dims, which then
  // step through it with the chunk's innermost stride.
  int32_t view_d = ndim - 1;
  int64_t chunk_base_stride = src.strides[src.ndim - 1];
  int64_t tensor_numel = 1;
  int64_t view_numel = 1;
  for (int32_t tensor_d = src.ndim - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= src.shape[tensor_d];
    if (tensor_d == 0 || (src.shape[tensor_d - 1] != 1 &&
                          src.strides[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = src.strides[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

Layout view(const Layout& src, int32_t ndim, const int64_t* shape) {
  check_ndim(ndim);
  int64_t sizes[TSR_MAX_DIMS];
  std::copy(shape, shape + ndim, sizes);
  infer_size(src.numel(), ndim, sizes);
  std::optional<Dims> strides = view_strides(src, ndim, sizes);
  if (!strides)
    fail(TSR_ERR_SHAPE,
         "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
         "two contiguous subspaces). Use .reshape(...) instead.");
  Layout r;
  r.ndim = ndim;
  std::copy(sizes, sizes + ndim, r.shape.begin());
  for (int32_t d = 0; d < ndim; ++d) r.strides[d] = (*strides)[d];
  r.offset = src.offset;
  return r;
}

Layout transpose(const Layout& l, int64_t d0, int64_t d1) {
  const int32_t a = wrap_dim(d0, l.ndim), b = wrap_dim(d1, l.ndim);
  Layout r = l;
  if (l.ndim == 0) return r;
  std::swap(r.shape[a], r.shape[b]);
  std::swap(r.strides[a], r.strides[b]);
  return r;
}

Layout reverse_dims(const Layout& l) {
  Layout r = l;
  std::reverse(r.shape.begin(), r.shape.begin() + l.ndim);
  std::reverse(r.strides.begin(), r.strides.begin() + l.ndim);
  return r;
}

Layout permute(const Layout& l, int32_t ndim, const int32_t* dims) {
  if (ndim != l.ndim)
    fail(TSR_ERR_INVALID_ARGUMENT,
         "permute(): number of dimensions in the tensor input does not match the length of the desired ordering "
         "of dimensions i.e. input.dim() = " +
             num(l.ndim) + " is not equal to len(dims) = " + num(ndim));
  Layout r = l;
  bool seen[TSR_MAX_DIMS] = {};
  for (int32_t i = 0; i < ndim; ++i) {
    const int32_t d = wrap_dim(dims[i], l.ndim);
    if (seen[d]) fail(TSR_ERR_INVALID_ARGUMENT, "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    r.shape[i] = l.shape[d];
    r.strides[i] = l.strides[d];
  }
  return r;
}

Layout slice(const Layout& l, int64_t dim, int64_t start, int64_t stop, int64_t step) {
  if (l.ndim == 0) fail(TSR_ERR_INDEX, "slice() cannot be applied to a 0-dim tensor.");
  const int32_t d = wrap_dim(dim, l.ndim);
  if (step <= 0) fail(TSR_ERR_INVALID_ARGUMENT, "slice step must be positive");
  const int64_t size = l.shape[d];
  // Python's rules: absent bounds are the ends, negative ones count from the
  // end, and everything is clamped into [0, size] with stop >= start.
  if (start == TSR_SLICE_NONE) start = 0;
  if (stop == TSR_SLICE_NONE) stop = kInt64Max;
  if (start < 0) start = start < -size ? 0 : start + size;
  if (stop < 0) stop = stop < -size ? 0 : stop + size;
  start = std::min(start, size);
  stop = std::clamp(stop, start, size);
  Layout r = l;
  const int64_t len = stop - start;
  r.shape[d] = len == 0 ? 0 : (len - 1) / step + 1;
  r.offset = l.offset + start * l.strides[d];  // start <= size: stays within the storage's extent
  if (__builtin_mul_overflow(l.strides[d], step, &r.strides[d]))
    fail(TSR_ERR_INVALID_ARGUMENT, "slice step " + num(step) + " overflows the stride");
  return r;
}

Layout select(const Layout& l, int64_t dim, int64_t index) {
  if (l.ndim == 0)
    fail(TSR_ERR_INDEX,
         "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert "
         "a 0-dim tensor to a number");
  const int32_t d = wrap_dim(dim, l.ndim);
  const int64_t size = l.shape[d];
  if (index < -size || index >= size)
    fail(TSR_ERR_INDEX, "index " + num(index) + " is out of bounds for dimension " + num(d) + " with size " +
                            num(size));
  if (index < 0) index += size;
  Layout r = remove_dim(l, d);
  r.offset = l.offset + index * l.strides[d];
  return r;
}

void reduced_dims(int32_t ndim, int32_t num_dims, const int32_t* dims, bool* reduced) {
  const bool all = num_dims == 0 || dims == nullptr;
  for (int32_t d = 0; d < TSR_MAX_DIMS; ++d) reduced[d] = all && d < ndim;
  for (int32_t i = 0; !all && i < num_dims; ++i) {
    const int32_t d = wrap_dim(dims[i], ndim);
    if (ndim == 0) continue;
    if (reduced[d]) fail(TSR_ERR_INVALID_ARGUMENT, "dim " + num(d) + " appears multiple times in the list of dims");
    reduced[d] = true;
  }
}

Layout diagonal(const Layout& l, int64_t offset, int64_t dim1, int64_t dim2) {
  const int32_t d1 = wrap_dim(dim1, l.ndim), d2 = wrap_dim(dim2, l.ndim);
  if (d1 == d2) fail(TSR_ERR_INVALID_ARGUMENT, "diagonal dimensions cannot be identical " + num(dim1) + ", " + num(dim2));
  int64_t size = 0, start = l.offset;
  if (offset >= 0) {
    size = std::max<int64_t>(std::min(l.shape[d1], l.shape[d2] - offset), 0);
    if (size > 0) start += offset * l.strides[d2];
  } else {
    size = std::max<int64_t>(std::min(l.shape[d1] + offset, l.shape[d2]), 0);
    if (size > 0) start -= offset * l.strides[d1];
  }
  Layout r;
  for (int32_t d = 0; d < l.ndim; ++d) {
    if (d == d1 || d == d2) continue;
    r.shape[r.ndim] = l.shape[d];
    r.strides[r.ndim++] = l.strides[d];
  }
  r.shape[r.ndim] = size;
  r.strides[r.ndim++] = l.strides[d1] + l.strides[d2];
  r.offset = start;
  return r;
}

Layout unsqueeze(const Layout& l, int64_t dim) {
  const int32_t d = wrap_dim(dim, l.ndim + 1);
  check_ndim(l.ndim + 1);
  Layout r = l;
  for (int32_t i = l.ndim; i > d; --i) {
    r.shape[i] = l.shape[i - 1];
    r.strides[i] = l.strides[i - 1];
  }
  // ATen: the stride that steps over the whole dim it precedes, 1 at the end.
  r.shape[d] = 1;
  r.strides[d] = d >= l.ndim ? 1 : l.shape[d] * l.strides[d];
  r.ndim = l.ndim + 1;
  return r;
}

Layout squeeze_dim(const Layout& l, int64_t dim) {
  const int32_t d = wrap_dim(dim, l.ndim);
  if (l.ndim == 0 || l.shape[d] != 1) return l;
  return remove_dim(l, d);
}

Layout squeeze_all(const Layout& l) {
  Layout r;
  r.offset = l.offset;
  for (int32_t i = 0; i < l.ndim; ++i) {
    if (l.shape[i] == 1) continue;
    r.shape[r.ndim] = l.shape[i];
    r.strides[r.ndim] = l.strides[i];
    ++r.ndim;
  }
  return r;
}

Layout expand(const Layout& l, int32_t ndim, const int64_t* shape) {
  check_ndim(ndim);
  if (ndim < l.ndim)
    fail(TSR_ERR_SHAPE, "expand(tensor of size " + format_list(l.shape.data(), l.ndim) + ", size=" +
                            format_list(shape, ndim) + "): the number of sizes provided (" + num(ndim) +
                            ") must be greater or equal to the number of dimensions in the tensor (" + num(l.ndim) +
                            ")");
  Layout r;
  r.ndim = ndim;
  r.offset = l.offset;
  // Right-aligned, as broadcasting lines shapes up.
  for (int32_t i = ndim - 1; i >= 0; --i) {
    const int32_t d = i - (ndim - l.ndim);  // l's dim, < 0 for a new leading one
    int64_t size = d >= 0 ? l.shape[d] : 1;
    // A new leading dim steps over everything after it; a 0-d input has
    // nothing to step over (ATen gives stride 0 throughout).
    int64_t stride = d >= 0 ? l.strides[d] : (l.ndim == 0 ? 0 : r.shape[i + 1] * r.strides[i + 1]);
    int64_t target = shape[i];
    if (target == -1) {
      if (d < 0)
        fail(TSR_ERR_SHAPE, "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension " +
                                num(i));
      target = size;
    }
    if (size != target) {
      if (size != 1)
        fail(TSR_ERR_SHAPE, "The expanded size of the tensor (" + num(target) + ") must match the existing size (" +
                                num(size) + ") at non-singleton dimension " + num(i) + ".  Target sizes: " +
                                format_list(shape, ndim) + ".  Tensor sizes: " + format_list(l.shape.data(), l.ndim));
      if (target < 0) fail_negative_size(ndim, shape, target);
      size = target;
      stride = 0;
    }
    r.shape[i] = size;
    r.strides[i] = stride;
  }
  checked_numel(r.ndim, r.shape.data(), 1);
  return r;
}

std::optional<Layout> flatten(const Layout& l, int64_t start_dim, int64_t end_dim) {
  const int32_t s = wrap_dim(start_dim, l.ndim), e = wrap_dim(end_dim, l.ndim);
  if (s > e) fail(TSR_ERR_INVALID_ARGUMENT, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (l.ndim == 0) {
    const int64_t one = 1;
    return view(l, 1, &one);
  }
  if (s == e) return l;
  int64_t shape[TSR_MAX_DIMS];
  int32_t n = 0;
  for (int32_t i = 0; i < s; ++i) shape[n++] = l.shape[i];
  int64_t merged = 1;
  for (int32_t i = s; i <= e; ++i) merged *= l.shape[i];
  shape[n++] = merged;
  for (int32_t i = e + 1; i < l.ndim; ++i) shape[n++] = l.shape[i];
  std::optional<Dims> strides = view_strides(l, n, shape);
  if (!strides) return std::nullopt;
  Layout r;
  r.ndim = n;
  r.offset = l.offset;
  std::copy(shape, shape + n, r.shape.begin());
  for (int32_t d = 0; d < n; ++d) r.strides[d] = (*strides)[d];
  return r;
}

Layout as_strided(const Layout& /*src*/, int32_t ndim, const int64_t* shape, const int64_t* strides, int64_t offset,
                  int64_t storage_bytes, size_t element_size) {
  check_ndim(ndim);
  for (int32_t i = 0; i < ndim; ++i)
    if (strides[i] < 0)
      fail(TSR_ERR_INVALID_ARGUMENT, "as_strided: Negative strides are not supported at the moment, got strides: " +
                                         format_list(strides, ndim));
  if (offset < 0) fail(TSR_ERR_INVALID_ARGUMENT, "Tensor: invalid storage offset " + num(offset));
  check_sizes(ndim, shape);
  checked_numel(ndim, shape, 1);
  // ATen's checkInBoundsForStorage, in units of element_size.
  const int64_t item = int64_t(element_size);
  bool overflow = false;
  int64_t extent = 1;
  bool empty = false;
  for (int32_t i = 0; i < ndim; ++i) {
    if (shape[i] == 0) empty = true;
    int64_t span = 0;
    overflow |= __builtin_mul_overflow(strides[i], shape[i] - 1, &span);
    overflow |= __builtin_add_overflow(extent, span, &extent);
  }
  if (empty) extent = 0;
  int64_t required = 0, available = 0, offset_bytes = 0;
  overflow |= __builtin_mul_overflow(extent, item, &required);
  if (overflow && !empty)
    fail(TSR_ERR_INVALID_ARGUMENT, "Storage size calculation overflowed with sizes=" + format_list(shape, ndim) +
                                       " and strides=" + format_list(strides, ndim));
  if (!empty) {
    // PyTorch wraps silently here; an offset past any storage is an error.
    if (__builtin_mul_overflow(offset, item, &offset_bytes) || __builtin_add_overflow(required, offset_bytes, &required))
      fail(TSR_ERR_INVALID_ARGUMENT, "as_strided: storage offset " + num(offset) + " with sizes " +
                                         format_list(shape, ndim) + ", strides " + format_list(strides, ndim) +
                                         " and itemsize " + num(item) + " overflows a 64-bit byte size");
    available = storage_bytes;
    if (required > available)
      fail(TSR_ERR_INVALID_ARGUMENT,
           "as_strided: sizes " + format_list(shape, ndim) + ", strides " + format_list(strides, ndim) +
               ", storage offset " + num(offset) + ", and itemsize " + num(item) + " requiring a storage size of " +
               num(required) + " are out of bounds for storage of size " + num(available));
  }
  Layout r;
  r.ndim = ndim;
  r.offset = offset;
  std::copy(shape, shape + ndim, r.shape.begin());
  std::copy(strides, strides + ndim, r.strides.begin());
  return r;
}

int32_t broadcast_shapes(int32_t na, const int64_t* a, int32_t nb, const int64_t* b, int64_t* out) {
  check_ndim(na);
  check_ndim(nb);
  const int32_t n = std::max(na, nb);
  for (int32_t i = n - 1; i >= 0; --i) {
    const int32_t da = i - (n - na), db = i - (n - nb);
    const int64_t sa = da >= 0 ? a[da] : 1, sb = db >= 0 ? b[db] : 1;
    if (sa != sb && sa != 1 && sb != 1)
      fail(TSR_ERR_SHAPE, "The size of tensor a (" + num(sa) + ") must match the size of tensor b (" + num(sb) +
                              ") at non-singleton dimension " + num(i));
    out[i] = sa == 1 ? sb : sa;
  }
  return n;
}

Layout broadcast_to(const Layout& l, int32_t ndim, const int64_t* shape) {
  check_ndim(ndim);
  check_sizes(ndim, shape);
  // As in an in-place op: the output is tensor a, the input tensor b, and
  // the input may not grow the output.
  int64_t joint[TSR_MAX_DIMS];
  const int32_t n = broadcast_shapes(ndim, shape, l.ndim, l.shape.data(), joint);
  if (n != ndim || !std::equal(shape, shape + ndim, joint))
    fail(TSR_ERR_SHAPE, "output with shape " + format_list(shape, ndim) + " doesn't match the broadcast shape " +
                            format_list(joint, n));
  return expand(l, ndim, shape);
}

Layout dense_like(const Layout& src) {
  Layout r = src;
  r.offset = 0;
  if (!is_non_overlapping_and_dense(src)) r.strides = infer_dense_strides(src);
  return r;
}

int64_t storage_extent(const Layout& l) {
  if (l.numel() == 0) return 0;
  int64_t extent = l.offset + 1;
  for (int32_t i = 0; i < l.ndim; ++i) {
    int64_t span = 0;
    if (__builtin_mul_overflow(l.shape[i] - 1, l.strides[i], &span) || __builtin_add_overflow(extent, span, &extent))
      fail(TSR_ERR_INVALID_ARGUMENT, "storage extent overflows int64");
  }
  return extent;
}

}  // namespace tessera::rt
