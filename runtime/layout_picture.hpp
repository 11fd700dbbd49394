// SPDX-License-Identifier: Apache-2.0
// "The layout picture": a plain-text drawing of how a view reads its storage.
// A strip of storage cells numbered 0..n-1, the cells the view reads marked
// '#', and under each read cell the position(s), in the view's row-major
// order, at which the view reads it (several for expanded, stride-0 views).
//
//   shape (3, 2)  stride (4, 2)  offset 1  contiguous False
//   storage 12 cells; the view reads 6 of them, 6 reads in all
//   cell      0   1   2   3   4   5   6   7   8   9  10  11
//   view      .   #   .   #   .   #   .   #   .   #   .   #
//   order         0       1       2       3       4       5
//
// A cell read more than once lists its positions downwards ("0", "1", ...);
// past four, the last line says "+N" more. With cell_values a "value" row
// shows what each cell holds.
//
// Long strips wrap in rows of cells (at most 80 columns); a storage of more
// than max_cells cells shows only the cells around those read, with "...".
#pragma once

#include <cstdint>
#include <string>

namespace tessera::rt {

struct LayoutPictureInput {
  int32_t ndim;
  const int64_t* shape;
  const int64_t* strides;  // in elements
  int64_t offset;          // in elements
  int64_t storage_numel;   // cells in the storage
  const std::string* cell_values;  // optional: storage_numel printed values, or nullptr
};

std::string format_layout_picture(const LayoutPictureInput& in, int max_cells = 48);

}  // namespace tessera::rt
