// SPDX-License-Identifier: Apache-2.0
// The CUDA kernels' per-thread code, launched on the host thread by thread
// for cuda.host.* (test_cuda_host_*.cpp), which compile the backend's headers
// with the host compiler beside the real CUDA headers: so the index
// arithmetic of every launch plan runs here exactly as the kernels run it.
// (The emulator, tests/cuda_emu, runs the __global__ kernels themselves.)
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "elementwise.cuh"
#include "reduce.cuh"
#include "transpose.cuh"

namespace tessera::cuda {

// A planned pointwise launch, thread by thread.
template <class Out, class... In, class F> void pointwise_on_host(const PointwiseLaunch<1 + sizeof...(In)>& L, const F& f) {
  constexpr int V = kVec<Out, In...>;
  switch (L.kind) {
    case PathKind::kNone:
      return;
    case PathKind::kFlat:
      for (uint64_t t = 0; t < L.threads; ++t) flat_thread<V, kFlatUnroll, Out, In...>(L.flat, f, t, std::index_sequence_for<In...>{});
      return;
    case PathKind::kStrided32:
      for (uint64_t t = 0; t < L.threads; ++t)
        strided_thread<V, uint32_t, Out, In...>(L.s32, f, static_cast<uint32_t>(t), std::index_sequence_for<In...>{});
      return;
    case PathKind::kStrided64:
      for (uint64_t t = 0; t < L.threads; ++t) strided_thread<V, uint64_t, Out, In...>(L.s64, f, t, std::index_sequence_for<In...>{});
      return;
    case PathKind::kTiled:
      // Block by block: every thread's staging, then every thread's outputs,
      // as the barrier orders them on the GPU.
      if constexpr (sizeof...(In) > 0) {
        const TiledParams<1 + sizeof...(In)>& p = L.tiled;
        auto stage = std::make_unique<StageSet<std::index_sequence_for<In...>, In...>>();
        for (uint32_t z = 0; z < p.batches; ++z)
          for (int64_t y = 0; y < p.tiles_b; ++y)
            for (int64_t x = 0; x < p.tiles_a; ++x) {
              const auto o = tiled_origin(p, static_cast<uint32_t>(x), static_cast<uint32_t>(y), z);
              for (int ty = 0; ty < kPwTileRows; ++ty)
                for (int tx = 0; tx < kPwTile; ++tx) tiled_stage<In...>(p, o, *stage, tx, ty, std::index_sequence_for<In...>{});
              for (int ty = 0; ty < kPwTileRows; ++ty)
                for (int tx = 0; tx < kPwTile; ++tx) tiled_compute<Out, In...>(p, o, *stage, f, tx, ty, std::index_sequence_for<In...>{});
            }
      }
      return;
  }
}

// A tiled copy, block by block: every thread's loads, then every thread's
// stores, as the barrier orders them on the GPU.
template <class T, int TILE> void tiled_on_host(const TileParams& p) {
  std::vector<T> storage(TILE * (TILE + 1));
  T* tile = storage.data();
  for (uint32_t z = 0; z < p.batches; ++z)
    for (int64_t y = 0; y < p.tiles_b; ++y)
      for (int64_t x = 0; x < p.tiles_a; ++x) {
        const TileOrigin o = tile_origin<TILE>(p, static_cast<uint32_t>(x), static_cast<uint32_t>(y), z);
        for (int ty = 0; ty < kTileThreadsY; ++ty)
          for (int tx = 0; tx < kTileThreadsX; ++tx) tile_load<T, TILE>(p, o, tile, tx, ty);
        for (int ty = 0; ty < kTileThreadsY; ++ty)
          for (int tx = 0; tx < kTileThreadsX; ++tx) tile_store<T, TILE>(p, o, tile, tx, ty);
      }
}

// reduce.cuh's warp_fold on the host: lanes[0..31] -> the value lane 0 ends with.
template <class R> typename R::acc_t warp_fold_host(typename R::acc_t* lanes) {
  for (int mask = 16; mask >= 1; mask /= 2) {
    typename R::acc_t next[32];
    for (int l = 0; l < 32; ++l) {
      const int lo = (l & mask) == 0 ? l : l ^ mask, hi = lo ^ mask;
      next[l] = lanes[lo];
      R::merge(next[l], lanes[hi]);
    }
    for (int l = 0; l < 32; ++l) lanes[l] = next[l];
  }
  return lanes[0];
}

// The three reduction kernels' work, block by block in the kernels' order:
// the per-thread folds are the
// device's own functions; lanes combine by the warp butterfly, then warps
// 0..7 (one team per block) or each warp's lane 0 writes its team's result,
// then slices through finish. p.partial holds n_out * slices acc_t when
// slices > 1.
template <class R> void reduce_on_host(const ReduceParams& p) {
  using acc_t = typename R::acc_t;
  constexpr int V = 16 / static_cast<int>(sizeof(typename R::in_t));
  const acc_t* partial = static_cast<const acc_t*>(p.partial);
  if (p.team == 0) {
    for (uint64_t block = 0; block < p.blocks; ++block) {
      for (int x = 0; x < kColumnWidth; ++x) {
        int64_t s;
        const int64_t o = column_output(p, block, x, s);
        if (o < 0) continue;
        acc_t acc = column_thread<R>(p, o, s, 0);
        for (int l = 1; l < kColumnLanes; ++l) R::merge(acc, column_thread<R>(p, o, s, l));
        write_result<R>(p, o, s, acc);
      }
    }
  } else {
    // Block by block, as inner_kernel: each warp's butterfly, then (one team
    // per block) warps 0..7 by thread 0, or (a team per warp) each warp's
    // lane 0 writes its team's result.
    for (uint64_t block = 0; block < p.blocks; ++block) {
      acc_t warps[kReduceBlock / 32];
      for (int w = 0; w < kReduceBlock / 32; ++w) {
        acc_t lanes[32];
        for (int l = 0; l < 32; ++l) {
          const InnerPosition q = inner_position(p, block, w * 32 + l);
          lanes[l] = q.active ? inner_thread<R, V>(p, q.o, q.s, q.lane) : R::init();
        }
        warps[w] = warp_fold_host<R>(lanes);
      }
      if (p.team == kReduceBlock) {
        acc_t acc = warps[0];
        for (int w = 1; w < kReduceBlock / 32; ++w) R::merge(acc, warps[w]);
        const InnerPosition q = inner_position(p, block, 0);
        if (q.active) write_result<R>(p, q.o, q.s, acc);
      } else {
        for (int w = 0; w < kReduceBlock / 32; ++w) {
          const InnerPosition q = inner_position(p, block, w * 32);
          if (q.active && q.lane == 0) write_result<R>(p, q.o, q.s, warps[w]);
        }
      }
    }
  }
  if (p.slices > 1) {
    const int threads = finish_threads(p.slices);
    for (int64_t o = 0; o < p.n_out; ++o) {
      acc_t warps[kReduceBlock / 32];
      for (int w = 0; w < threads / 32; ++w) {
        acc_t lanes[32];
        for (int l = 0; l < 32; ++l) {
          lanes[l] = R::init();
          for (int64_t s = w * 32 + l; s < p.slices; s += threads) R::merge(lanes[l], partial[o * p.slices + s]);
        }
        warps[w] = warp_fold_host<R>(lanes);
      }
      acc_t acc = warps[0];
      for (int w = 1; w < threads / 32; ++w) R::merge(acc, warps[w]);
      write_output<R>(p, o, acc);
    }
  }
}

}  // namespace tessera::cuda
