// SPDX-License-Identifier: Apache-2.0
// The device-agnostic half of every view: pure functions from a Layout (and
// arguments) to a new Layout, with PyTorch 1.13's rules and error messages.
// No storage, no device, no allocation beyond the returned record. Every
// error is fail(status, message) (error.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "layout.hpp"

namespace tessera::rt {

// "[3, 4]" / "[]", as ATen prints a size list in its messages.
std::string format_list(const int64_t* values, int32_t n);

// Throws TSR_ERR_INVALID_ARGUMENT unless 0 <= ndim <= TSR_MAX_DIMS.
[[noreturn]] void fail_ndim(int64_t ndim);
// Inline: every view and op checks it, most of them on the hot path.
inline void check_ndim(int64_t ndim) {
  if (ndim < 0 || ndim > TSR_MAX_DIMS) [[unlikely]]
    fail_ndim(ndim);
}

// Row-major layout (PyTorch's contiguous strides: a size-0 dim counts as 1),
// offset 0. Validates ndim, sizes >= 0 and that numel fits in int64.
Layout contiguous_layout(int32_t ndim, const int64_t* shape);

// numel of a new tensor; throws TSR_ERR_INVALID_ARGUMENT for a bad ndim, a
// negative size, or when numel * element_size overflows int64 (ATen's
// "Storage size calculation overflowed with sizes=[...]").
int64_t checked_numel(int32_t ndim, const int64_t* shape, size_t element_size);

// Whether l's shape is (ndim, shape) / b's shape; strides and offsets aside.
inline bool same_shape(const Layout& l, int32_t ndim, const int64_t* shape) {
  if (l.ndim != ndim) return false;
  for (int32_t i = 0; i < ndim; ++i)
    if (l.shape[static_cast<size_t>(i)] != shape[i]) return false;
  return true;
}
inline bool same_shape(const Layout& a, const Layout& b) { return same_shape(a, b.ndim, b.shape.data()); }

// PyTorch's flags: size-1 dims never matter; an empty tensor is contiguous.
bool is_contiguous(const Layout& l);
// True when l is contiguous (so when it is empty) or some permutation of its
// dims is; clone() keeps such strides.
bool is_non_overlapping_and_dense(const Layout& l);

// maybe_wrap_dim: dim in [-ndim, ndim) to [0, ndim); ndim 0 acts as 1.
// Throws TSR_ERR_INDEX "Dimension out of range (...)".
int32_t wrap_dim(int64_t dim, int32_t ndim);

// Resolves at most one -1 in shape[0..ndim) against numel, in place, and
// checks the product (ATen's infer_size).
void infer_size(int64_t numel, int32_t ndim, int64_t* shape);

// ATen's computeStride: strides that walk `shape` (no -1) over src's
// elements in src's row-major order, or nullopt when no such strides exist.
std::optional<Dims> view_strides(const Layout& src, int32_t ndim, const int64_t* shape);

// x.view(shape): one -1 allowed; same offset. TSR_ERR_SHAPE when no view exists.
Layout view(const Layout& src, int32_t ndim, const int64_t* shape);

Layout transpose(const Layout& l, int64_t d0, int64_t d1);
// PyTorch 1.13's x.T: all dims reversed.
Layout reverse_dims(const Layout& l);
Layout permute(const Layout& l, int32_t ndim, const int32_t* dims);

// x[start:stop:step] on dim, with Python's clamping; TSR_SLICE_NONE
// (tessera.h) is an absent bound; step must be > 0.
Layout slice(const Layout& l, int64_t dim, int64_t start, int64_t stop, int64_t step);
// x[..., index, ...] on dim (removes it); a negative index counts from the end.
Layout select(const Layout& l, int64_t dim, int64_t index);

// x.diagonal(offset, dim1, dim2): dims dim1 and dim2 removed, the diagonal
// `offset` (> 0 above the main one) of the matrices they held as the last
// dim (PyTorch 1.13's rules and messages).
Layout diagonal(const Layout& l, int64_t offset, int64_t dim1, int64_t dim2);

Layout unsqueeze(const Layout& l, int64_t dim);
// Removes dim when its size is 1, else returns l unchanged.
Layout squeeze_dim(const Layout& l, int64_t dim);
Layout squeeze_all(const Layout& l);

// x.expand(shape): -1 keeps a size; new leading dims; stride 0 where a
// size-1 dim grows.
Layout expand(const Layout& l, int32_t ndim, const int64_t* shape);

// x.flatten(start_dim, end_dim) when it is a view; nullopt when PyTorch
// would copy (the caller then copies to row-major and views that).
std::optional<Layout> flatten(const Layout& l, int64_t start_dim, int64_t end_dim);

// x.as_strided(shape, strides, offset) over a storage of storage_bytes
// bytes of elements of element_size bytes (src itself is not read). Sizes,
// strides and offset (in elements) must be >= 0 and every element inside
// the storage; the out-of-bounds message counts bytes, as PyTorch's. With
// element_size 1, storage_bytes is a count of elements.
Layout as_strided(const Layout& src, int32_t ndim, const int64_t* shape, const int64_t* strides, int64_t offset,
                  int64_t storage_bytes, size_t element_size = 1);

// Which of ndim dims a reduction over `dims` reduces (num_dims 0 or dims
// null: all), into reduced[TSR_MAX_DIMS]; a dim named twice fails. A 0-d
// tensor's dims 0 and -1 name nothing.
void reduced_dims(int32_t ndim, int32_t num_dims, const int32_t* dims, bool* reduced);

// NumPy broadcasting of two shapes; writes the result (room for
// TSR_MAX_DIMS) and returns its ndim. TSR_ERR_SHAPE when they do not broadcast.
int32_t broadcast_shapes(int32_t na, const int64_t* a, int32_t nb, const int64_t* b, int64_t* out);

// Reads l as `shape` by broadcasting (stride 0 on stretched dims). The error
// texts are those of an in-place op whose output has `shape`.
Layout broadcast_to(const Layout& l, int32_t ndim, const int64_t* shape);

// The layout clone() gives l's copy: l's strides when l is non-overlapping
// and dense, else dense strides in the order of l's strides (ATen's
// infer_dense_strides); offset 0.
Layout dense_like(const Layout& src);

// Elements a storage must hold for l: offset + sum((size - 1) * stride) + 1,
// or 0 for an empty l.
int64_t storage_extent(const Layout& l);

}  // namespace tessera::rt
