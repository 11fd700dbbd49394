// SPDX-License-Identifier: Apache-2.0
// A copy that transposes: x.T.contiguous(), x.permute(...).contiguous().
//
// Note [Transposing copies]
//   Walking the output in order reads the input a column at a time (one cache
//   line per element), and the other way round writes that way; with a
//   power-of-two row stride (4096 floats: 16 KiB) every such line also lands
//   in the same L1 set. transpose_2d cuts the matrix into 64 x 64 tiles (16
//   KiB of floats, L1-sized) run in parallel. A tile is read in 8 x 8 blocks —
//   eight 32-byte row pieces, transposed in registers with shuffles — into a
//   contiguous buffer, and the buffer's rows go out as whole 256-byte runs:
//   each input and output line is fetched once and written once. The tile
//   loop is cloned for x86-64-v3 (one ymm register per block row) and the
//   baseline; 8-byte elements use 4 x 4 blocks of the same width. A pure
//   copy: results are exact on any machine.
#pragma once

#include <cstdint>

#include "context.hpp"

namespace tessera::cpu_tbb {

// out[c * os + r] = in[r * is + c] for r < rows, c < cols, elements of
// `elsize` bytes (4 or 8); strides in elements; in and out do not overlap.
void transpose_2d(Context& ctx, const void* in, int64_t is, void* out, int64_t os, int64_t rows, int64_t cols,
                  int elsize);

}  // namespace tessera::cpu_tbb
