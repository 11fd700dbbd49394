// SPDX-License-Identifier: Apache-2.0
// Note [Loops cloned per ISA level] in cloned_loops.hpp.
#include "cloned_loops.hpp"

#include "isa.hpp"
#include "tessera/ops.h"
#include "vector_math.hpp"

namespace tessera::cpu_tbb {

static_assert(TSR_OP_ADD == 2 && TSR_OP_DIV == 5 && TSR_OP_EXP == 17 && TSR_OP_RELU == 20 && TSR_OP_SIGMOID == 21,
              "cloned_loops.hpp names these ops by number");

namespace {

// The body every clone shares; f is inlined into each.
template <class F>
[[gnu::always_inline]] inline void rows2(float* o, const float* a, const float* b, int64_t n, int64_t rows, int64_t so,
                                         int64_t sa, int64_t sb, F f) {
  for (int64_t r = 0; r < rows; ++r) {
    float* orow = o + r * so;
    const float* arow = a + r * sa;
    const float* brow = b + r * sb;
    TSR_IVDEP
    for (int64_t i = 0; i < n; ++i) orow[i] = f(arow[i], brow[i]);
  }
}

template <class F>
[[gnu::always_inline]] inline void rows1(float* o, const float* a, int64_t n, int64_t rows, int64_t so, int64_t sa, F f) {
  for (int64_t r = 0; r < rows; ++r) {
    float* orow = o + r * so;
    const float* arow = a + r * sa;
    TSR_IVDEP
    for (int64_t i = 0; i < n; ++i) orow[i] = f(arow[i]);
  }
}

#define TSR_BINARY_LOOP(name, expr)                                                                              \
  TSR_CLONES_V4_V3 void name(float* o, const float* a, const float* b, int64_t n, int64_t rows, int64_t so,        \
                           int64_t sa, int64_t sb) {                                                             \
    rows2(o, a, b, n, rows, so, sa, sb, [](float x, float y) { return expr; });                                  \
  }
TSR_BINARY_LOOP(add_rows, x + y)
TSR_BINARY_LOOP(sub_rows, x - y)
TSR_BINARY_LOOP(mul_rows, x * y)
TSR_BINARY_LOOP(div_rows, x / y)
#undef TSR_BINARY_LOOP

#define TSR_UNARY_LOOP(name, expr)                                                                                      \
  TSR_CLONES_V4_V3 void name(float* o, const float* a, int64_t n, int64_t rows, int64_t so, int64_t sa) {                 \
    rows1(o, a, n, rows, so, sa, [](float x) { return expr; });                                                         \
  }
TSR_UNARY_LOOP(relu_rows, x < 0.0f ? 0.0f : x)  // NaN and -0.0 pass through, as the kernel's functor
TSR_UNARY_LOOP(exp_rows, exp_f32(x))
TSR_UNARY_LOOP(sigmoid_rows, sigmoid_f32(x))
#undef TSR_UNARY_LOOP

// 32 lanes: eight independent chains of 4-double adds (four of 8), enough
// to hide the add latency; fewer would leave the loop latency-bound.
constexpr int kSumLanes = 32;

TSR_CLONES_V4_V3 double sum_lanes(const float* p, int64_t n) {
  double acc = 0;
  int64_t i = 0;
  if (n >= 2 * kSumLanes) {
    double lane[kSumLanes] = {};
    for (; i + kSumLanes <= n; i += kSumLanes)
      for (int k = 0; k < kSumLanes; ++k) lane[k] += static_cast<double>(p[i + k]);
    for (int k = 0; k < kSumLanes; ++k) acc += lane[k];
  }
  for (; i < n; ++i) acc += static_cast<double>(p[i]);
  return acc;
}

}  // namespace

double sum_f32(const float* p, int64_t n) { return sum_lanes(p, n); }

void binary_rows_f32(int op, float* o, const float* a, const float* b, int64_t n, int64_t rows, int64_t so, int64_t sa,
                     int64_t sb) {
  switch (op) {
    case TSR_OP_ADD: return add_rows(o, a, b, n, rows, so, sa, sb);
    case TSR_OP_SUB: return sub_rows(o, a, b, n, rows, so, sa, sb);
    case TSR_OP_MUL: return mul_rows(o, a, b, n, rows, so, sa, sb);
    case TSR_OP_DIV: return div_rows(o, a, b, n, rows, so, sa, sb);
    default: return;  // unreachable: callers check has_binary_loop_f32, which lists exactly the cases above
  }
}

void unary_rows_f32(int op, float* o, const float* a, int64_t n, int64_t rows, int64_t so, int64_t sa) {
  switch (op) {
    case TSR_OP_RELU: return relu_rows(o, a, n, rows, so, sa);
    case TSR_OP_EXP: return exp_rows(o, a, n, rows, so, sa);
    case TSR_OP_SIGMOID: return sigmoid_rows(o, a, n, rows, so, sa);
    default: return;  // unreachable: callers check has_unary_loop_f32, which lists exactly the cases above
  }
}

}  // namespace tessera::cpu_tbb
