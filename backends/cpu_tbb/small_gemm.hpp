// SPDX-License-Identifier: Apache-2.0
// Matrix products too small for OpenBLAS to pay off.
//
// Note [Small matrix products]
//   For a product like the lesson MLP's (200 x 16) @ (16 x 16), OpenBLAS
//   spends more on its set-up — scaling C by beta column by column, packing
//   both operands, checking its threads — than on the ~50k multiply-adds
//   (measured: ~25k instructions of overhead per call). small_gemm packs
//   only B (K x N, zero-padded to whole tiles) and keeps an 8-row x 1-tile
//   block of C in registers while it walks k, so eight independent rows hide
//   the FMA latency. Tiles are 8 floats / 4 doubles (one AVX2 register). The
//   loop is cloned for x86-64-v4, -v3 and the baseline
//   (small_gemm.cpp); it is compiled with FMA contraction, like OpenBLAS's own
//   kernels, so the last bit may differ between machines, never between runs
//   or thread counts. When C has very few columns (a matrix-vector product
//   like the MLP's last layer), each element is a dot product instead, with
//   rows of A and columns of B packed k-contiguous.
#pragma once

#include <cstdint>

namespace tessera::cpu_tbb {

// Whether small_gemm should take an M x K by K x N product.
inline bool small_gemm_fits(int64_t M, int64_t N, int64_t K) { return M * N * K <= (int64_t{1} << 16); }

// C = A * B; element (r, c) of X is at X[r * xrs + c * xcs] (any strides,
// no overlap between C and A or B). M, N, K >= 1.
void small_gemm(int64_t M, int64_t N, int64_t K, const float* A, int64_t ars, int64_t acs, const float* B, int64_t brs,
                int64_t bcs, float* C, int64_t crs, int64_t ccs);
void small_gemm(int64_t M, int64_t N, int64_t K, const double* A, int64_t ars, int64_t acs, const double* B,
                int64_t brs, int64_t bcs, double* C, int64_t crs, int64_t ccs);

}  // namespace tessera::cpu_tbb
