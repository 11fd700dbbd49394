// SPDX-License-Identifier: Apache-2.0
// float32 loops over unit-stride runs, compiled once per x86-64 level.
//
// Note [Loops cloned per ISA level]
//   The plugin is built for baseline x86-64 (SSE2), so it loads anywhere.
//   The loops below carry GCC's target_clones: an AVX-512 (x86-64-v4), an
//   AVX2 (x86-64-v3) and a baseline body, one picked by the loader for the
//   running CPU (an ifunc). They matter where the data sits in cache — an
//   MLP's 200 x 16 activations, exp-heavy sigmoid — and cost nothing where
//   memory is the limit. Each computes exactly what the element-wise functor
//   of its kernel computes (IEEE +, -, *, /, the same select for relu, the
//   same exp polynomial; no FMA contraction), so a result never depends on
//   the CPU or on which path ran.
//
//   Shape of every loop: `rows` runs of n elements; run r of operand X
//   starts at X + r * sx elements (sx = 0: the same run for every row, e.g. a
//   bias row broadcast down a matrix). Out never overlaps an input except as
//   the very same elements (in-place ops).
#pragma once

#include <cstdint>

#include "tessera/ops.h"

namespace tessera::cpu_tbb {

// Whether binary_rows_f32 / unary_rows_f32 have a loop for `op`.
constexpr bool has_binary_loop_f32(int op) {
  return op == TSR_OP_ADD || op == TSR_OP_SUB || op == TSR_OP_MUL || op == TSR_OP_DIV;
}
constexpr bool has_unary_loop_f32(int op) { return op == TSR_OP_EXP || op == TSR_OP_RELU || op == TSR_OP_SIGMOID; }

// o = a (op) b over the runs described above.
void binary_rows_f32(int op, float* o, const float* a, const float* b, int64_t n, int64_t rows, int64_t so, int64_t sa,
                     int64_t sb);
// o = f(a).
void unary_rows_f32(int op, float* o, const float* a, int64_t n, int64_t rows, int64_t so, int64_t sa);

// The sum of p[0..n) in double, in a fixed order: 32 lanes (lane k takes
// elements k, k + 32, ...) summed in order, then the lanes added to the
// result in order, then the tail — the same bits whatever the vector width.
// Long runs take reduce.cpp's AVX2/AVX-512 bodies of the same order (Note
// [float32 sums]); this one serves short runs and CPUs without them.
double sum_f32(const float* p, int64_t n);

}  // namespace tessera::cpu_tbb
