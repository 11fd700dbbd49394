// SPDX-License-Identifier: Apache-2.0
// Note [Transposing copies] in transpose.hpp.
#include "transpose.hpp"

#include <algorithm>

#include "elementwise.hpp"
#include "isa.hpp"

namespace tessera::cpu_tbb {

namespace {

constexpr int64_t kTransposeTile = 64;

typedef float f32x8 __attribute__((vector_size(32)));
typedef double f64x4 __attribute__((vector_size(32)));

// An 8 x 8 block of floats: out row k = in column k.
[[gnu::always_inline]] inline void block8(const float* in, int64_t is, float* out, int64_t os) {
  f32x8 r[8];
  for (int k = 0; k < 8; ++k) __builtin_memcpy(&r[k], in + k * is, sizeof r[k]);
  f32x8 t[8], u[8];
  for (int k = 0; k < 4; ++k) {
    t[2 * k] = __builtin_shufflevector(r[2 * k], r[2 * k + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[2 * k + 1] = __builtin_shufflevector(r[2 * k], r[2 * k + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int k = 0; k < 2; ++k) {
    for (int h = 0; h < 2; ++h) {
      const f32x8 a = t[4 * k + h], b = t[4 * k + 2 + h];
      u[4 * k + 2 * h] = __builtin_shufflevector(a, b, 0, 1, 8, 9, 4, 5, 12, 13);
      u[4 * k + 2 * h + 1] = __builtin_shufflevector(a, b, 2, 3, 10, 11, 6, 7, 14, 15);
    }
  }
  for (int k = 0; k < 4; ++k) {
    const f32x8 lo = __builtin_shufflevector(u[k], u[4 + k], 0, 1, 2, 3, 8, 9, 10, 11);
    const f32x8 hi = __builtin_shufflevector(u[k], u[4 + k], 4, 5, 6, 7, 12, 13, 14, 15);
    __builtin_memcpy(out + k * os, &lo, sizeof lo);
    __builtin_memcpy(out + (4 + k) * os, &hi, sizeof hi);
  }
}

// A 4 x 4 block of doubles.
[[gnu::always_inline]] inline void block4(const double* in, int64_t is, double* out, int64_t os) {
  f64x4 r[4];
  for (int k = 0; k < 4; ++k) __builtin_memcpy(&r[k], in + k * is, sizeof r[k]);
  const f64x4 t0 = __builtin_shufflevector(r[0], r[1], 0, 4, 2, 6), t1 = __builtin_shufflevector(r[0], r[1], 1, 5, 3, 7);
  const f64x4 t2 = __builtin_shufflevector(r[2], r[3], 0, 4, 2, 6), t3 = __builtin_shufflevector(r[2], r[3], 1, 5, 3, 7);
  const f64x4 o0 = __builtin_shufflevector(t0, t2, 0, 1, 4, 5), o1 = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  const f64x4 o2 = __builtin_shufflevector(t0, t2, 2, 3, 6, 7), o3 = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
  __builtin_memcpy(out, &o0, sizeof o0);
  __builtin_memcpy(out + os, &o1, sizeof o1);
  __builtin_memcpy(out + 2 * os, &o2, sizeof o2);
  __builtin_memcpy(out + 3 * os, &o3, sizeof o3);
}

template <class T> [[gnu::always_inline]] inline void block(const T* in, int64_t is, T* out, int64_t os) {
  if constexpr (sizeof(T) == 4) block8(in, is, out, os);
  else block4(in, is, out, os);
}

// One tile of up to kTransposeTile x kTransposeTile: transposed into buf,
// then written out row by row. The next tile's input lines (`next`, `next_rows`
// rows of one tile width, or none) are prefetched first: its rows are
// strided too far apart for the hardware prefetcher to follow.
template <class T>
[[gnu::always_inline]] inline void tile(const T* in, int64_t is, T* out, int64_t os, int64_t rows, int64_t cols,
                                        const T* next, int64_t next_rows) {
  constexpr int64_t kLine = 64 / sizeof(T);  // elements per cache line
  for (int64_t r = 0; r < next_rows; ++r)
    for (int64_t l = 0; l < kTransposeTile; l += kLine) __builtin_prefetch(next + r * is + l);
  constexpr int64_t B = 32 / sizeof(T);  // block edge: 8 floats, 4 doubles
  constexpr int64_t T_ = kTransposeTile;
  alignas(64) T buf[T_ * T_];  // buf[c * T_ + r] = in(r, c)
  const int64_t rb = rows / B * B, cb = cols / B * B;
  for (int64_t r = 0; r < rb; r += B)
    for (int64_t c = 0; c < cb; c += B) block(in + r * is + c, is, buf + c * T_ + r, T_);
  for (int64_t r = 0; r < rows; ++r)  // ragged edges
    for (int64_t c = r < rb ? cb : 0; c < cols; ++c) buf[c * T_ + r] = in[r * is + c];
  if (rows == T_) {  // a constant size: inline vector stores, no memcpy call per row
    for (int64_t c = 0; c < cols; ++c) __builtin_memcpy(out + c * os, buf + c * T_, sizeof(T) * T_);
  } else {
    for (int64_t c = 0; c < cols; ++c)
      for (int64_t r = 0; r < rows; ++r) out[c * os + r] = buf[c * T_ + r];
  }
}

TSR_CLONES_V3 void tile4(const void* in, int64_t is, void* out, int64_t os, int64_t rows, int64_t cols, const void* next,
                         int64_t next_rows) {
  tile(static_cast<const float*>(in), is, static_cast<float*>(out), os, rows, cols, static_cast<const float*>(next),
       next_rows);
}
TSR_CLONES_V3 void tile8(const void* in, int64_t is, void* out, int64_t os, int64_t rows, int64_t cols, const void* next,
                         int64_t next_rows) {
  tile(static_cast<const double*>(in), is, static_cast<double*>(out), os, rows, cols, static_cast<const double*>(next),
       next_rows);
}

}  // namespace

void transpose_2d(Context& ctx, const void* in, int64_t is, void* out, int64_t os, int64_t rows, int64_t cols,
                  int elsize) {
  const int64_t tr = (rows + kTransposeTile - 1) / kTransposeTile, tc = (cols + kTransposeTile - 1) / kTransposeTile;
  auto body = [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t r0 = t / tc * kTransposeTile, c0 = t % tc * kTransposeTile;
      const int64_t nr = std::min(kTransposeTile, rows - r0), nc = std::min(kTransposeTile, cols - c0);
      const char* src = static_cast<const char*>(in) + (r0 * is + c0) * elsize;
      char* dst = static_cast<char*>(out) + (c0 * os + r0) * elsize;
      // The next tile along the same rows, when it is a whole one.
      const bool next = t + 1 < t1 && c0 + 2 * kTransposeTile <= cols;
      const char* after = src + kTransposeTile * elsize;
      if (elsize == 4) tile4(src, is, dst, os, nr, nc, after, next ? nr : 0);
      else tile8(src, is, dst, os, nr, nc, after, next ? nr : 0);
    }
  };
  if (rows * cols < kParallelThreshold || ctx.threads <= 1) {
    body(0, tr * tc);
    return;
  }
  const int64_t tiles_per_piece =
      std::max<int64_t>(1, piece_size(rows * cols, ctx.threads) / (kTransposeTile * kTransposeTile));
  ctx.parallel_for(tr * tc, tiles_per_piece, body);
}

}  // namespace tessera::cpu_tbb
