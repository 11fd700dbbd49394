// SPDX-License-Identifier: Apache-2.0
// The tiled transpose/permute copy: out = in, same element size, where the
// output is unit-stride along plan dim `a` (dim 0) and the input is not, but
// the input is unit-stride along another dim `b`. A block moves one TILE x
// TILE tile through shared memory: it reads rows along b (coalesced in the
// input) and writes rows along a (coalesced in the output). The other dims
// are batch dims of the tile grid.
//
// Bandwidth: each element is read and written once with full 128-byte lines
// on both sides, so the copy runs at the device-to-device rate, where a copy
// that reads element by element along the output touches a new DRAM sector
// per element (PyTorch's generic copy: ~1.1 TB/s on an H200). Measured on an
// H200, 16384^2 float32 (GB/s counting 2 x 1 GiB): cudaMemcpy 4263, this
// kernel ~4075, the same kernel with 64-bit offsets and a bounds check per
// element 2644 (what it was before the fast path below).
//
// A tile that lies wholly inside the tensor, when every offset within it fits
// 32 bits (nearly always), takes the fast path: one 64-bit base pointer per
// tile, 32-bit offsets, no bounds checks, and all of a thread's loads issued
// before its first shared-memory store, so 16 loads per thread are in flight.
// Edge tiles check every element.
// 64 x 64 tiles for elements of up to 4 bytes (16 elements per thread),
// 32 x 32 for 8 bytes; one padding column so that the column reads of 4-byte
// elements hit 32 different banks.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "elementwise.cuh"

namespace tessera::cuda {

inline constexpr int kTileThreadsX = 32, kTileThreadsY = 8;
template <size_t ES> inline constexpr int kTile = ES <= 4 ? 64 : 32;

struct TileParams {
  char* out;      // out base, bytes, offset included
  const char* in;
  int64_t n_a, n_b;          // sizes of the tiled dims
  int64_t out_b;             // out's stride along b (its stride along a is 1)
  int64_t in_a;              // in's stride along a (its stride along b is 1)
  int64_t tiles_a, tiles_b;  // tiles along each
  bool offsets32;            // every offset within one tile, on both sides, fits 32 bits
  int outer_ndim;
  int64_t outer_shape[TSR_MAX_DIMS];
  int64_t outer_out[TSR_MAX_DIMS], outer_in[TSR_MAX_DIMS];
  uint32_t batches;  // the grid is tiles_a x tiles_b x batches
};

// A block's place: tile (ta, tb) of batch `batch` (the grid's x, y, z), so
// no division is needed but for the batch dims.
struct TileOrigin {
  int64_t a0, b0;  // first element along a and b
  int64_t out_off, in_off;
};

template <int TILE> TSR_HD TileOrigin tile_origin(const TileParams& p, uint32_t ta, uint32_t tb, uint32_t batch) {
  TileOrigin o{static_cast<int64_t>(ta) * TILE, static_cast<int64_t>(tb) * TILE, 0, 0};
  uint32_t rest = batch;
  for (int d = 0; d < p.outer_ndim; ++d) {
    const uint32_t size = static_cast<uint32_t>(p.outer_shape[d]);
    const uint32_t q = rest / size;
    const int64_t idx = static_cast<int64_t>(rest - q * size);
    o.out_off += idx * p.outer_out[d];
    o.in_off += idx * p.outer_in[d];
    rest = q;
  }
  return o;
}

template <int TILE> TSR_HD bool tile_is_full(const TileParams& p, const TileOrigin& o) {
  return p.offsets32 && o.a0 + TILE <= p.n_a && o.b0 + TILE <= p.n_b;
}

// Phase 1 of a block for thread (tx, ty): input rows along b into the tile.
template <class T, int TILE> TSR_HD void tile_load(const TileParams& p, const TileOrigin& o, T* tile, int tx, int ty) {
  const T* in = reinterpret_cast<const T*>(p.in) + o.in_off;
  constexpr int R = TILE / kTileThreadsY, C = TILE / kTileThreadsX;
  if (tile_is_full<TILE>(p, o)) {
    const T* src = in + o.a0 * p.in_a + o.b0;
    const uint32_t in_a = static_cast<uint32_t>(p.in_a);
    T v[R][C];
TSR_UNROLL
    for (int i = 0; i < R; ++i)
TSR_UNROLL
      for (int j = 0; j < C; ++j) v[i][j] = src[static_cast<uint32_t>(ty + kTileThreadsY * i) * in_a + static_cast<uint32_t>(tx + kTileThreadsX * j)];
TSR_UNROLL
    for (int i = 0; i < R; ++i)
TSR_UNROLL
      for (int j = 0; j < C; ++j) tile[(ty + kTileThreadsY * i) * (TILE + 1) + tx + kTileThreadsX * j] = v[i][j];
    return;
  }
TSR_UNROLL
  for (int r = ty; r < TILE; r += kTileThreadsY) {
TSR_UNROLL
    for (int c = tx; c < TILE; c += kTileThreadsX) {
      const int64_t ia = o.a0 + r, ib = o.b0 + c;
      if (ia < p.n_a && ib < p.n_b) tile[r * (TILE + 1) + c] = in[ia * p.in_a + ib];
    }
  }
}

// Phase 2: tile columns into output rows along a.
template <class T, int TILE> TSR_HD void tile_store(const TileParams& p, const TileOrigin& o, const T* tile, int tx, int ty) {
  T* out = reinterpret_cast<T*>(p.out) + o.out_off;
  constexpr int R = TILE / kTileThreadsY, C = TILE / kTileThreadsX;
  if (tile_is_full<TILE>(p, o)) {
    T* dst = out + o.b0 * p.out_b + o.a0;
    const uint32_t out_b = static_cast<uint32_t>(p.out_b);
TSR_UNROLL
    for (int i = 0; i < R; ++i)
TSR_UNROLL
      for (int j = 0; j < C; ++j)
        dst[static_cast<uint32_t>(ty + kTileThreadsY * i) * out_b + static_cast<uint32_t>(tx + kTileThreadsX * j)] =
            tile[(tx + kTileThreadsX * j) * (TILE + 1) + ty + kTileThreadsY * i];
    return;
  }
TSR_UNROLL
  for (int r = ty; r < TILE; r += kTileThreadsY) {
TSR_UNROLL
    for (int c = tx; c < TILE; c += kTileThreadsX) {
      const int64_t ia = o.a0 + c, ib = o.b0 + r;
      if (ia < p.n_a && ib < p.n_b) out[ia + ib * p.out_b] = tile[c * (TILE + 1) + r];
    }
  }
}

// The tile parameters when the plan (operand 0 = out, 1 = in) is a transposing
// copy worth tiling; nullopt otherwise.
inline std::optional<TileParams> plan_tiled(const Plan<2>& plan, int tile) {
  constexpr int64_t kMinSide = 16;  // smaller sides leave most of a tile empty: the strided path is as good
  if (plan.ndim < 2 || plan.stride[0][0] != 1 || plan.stride[0][1] == 1 || plan.shape[0] < kMinSide) return std::nullopt;
  int b = -1;
  for (int d = 1; d < plan.ndim; ++d)
    if (plan.stride[d][1] == 1 && plan.shape[d] >= kMinSide) {
      b = d;
      break;
    }
  if (b < 0) return std::nullopt;
  TileParams p{};
  p.out = plan.base[0];
  p.in = plan.base[1];
  p.n_a = plan.shape[0];
  p.n_b = plan.shape[b];
  p.out_b = plan.stride[b][0];
  p.in_a = plan.stride[0][1];
  p.tiles_a = (p.n_a + tile - 1) / tile;
  p.tiles_b = (p.n_b + tile - 1) / tile;
  // Strides are positive here (a unit-stride dim exists on each side, and the
  // plan orders dims by stride), so the largest offset within a tile is
  // (tile - 1) x (stride + 1) on each side.
  constexpr int64_t kMax32 = int64_t{1} << 31;
  p.offsets32 = p.in_a > 0 && p.out_b > 0 && (tile - 1) * (p.in_a + 1) < kMax32 && (tile - 1) * (p.out_b + 1) < kMax32;
  p.outer_ndim = 0;
  uint64_t batches = 1;
  for (int d = 1; d < plan.ndim; ++d) {
    if (d == b) continue;
    p.outer_shape[p.outer_ndim] = plan.shape[d];
    p.outer_out[p.outer_ndim] = plan.stride[d][0];
    p.outer_in[p.outer_ndim] = plan.stride[d][1];
    ++p.outer_ndim;
    batches *= static_cast<uint64_t>(plan.shape[d]);
  }
  // The grid's limits: x < 2^31, y and z <= 65535.
  if (p.tiles_a >= (int64_t{1} << 31) || p.tiles_b > 65535 || batches > 65535) return std::nullopt;
  p.batches = static_cast<uint32_t>(batches);
  return p;
}

}  // namespace tessera::cuda
