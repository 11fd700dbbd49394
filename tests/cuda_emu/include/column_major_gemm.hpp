// SPDX-License-Identifier: Apache-2.0
// cuBLAS's GEMM contract, written once for the two places that stand in for
// cuBLAS on the host: the emulator's cublasGemmStridedBatchedEx
// (cublas_v2.h here) and the matmul-plan test (tests/cuda/test_cuda_host_matmul.cpp).
//
//   C (m x n, column-major, ldc) = op(A) (m x k) * op(B) (k x n), batch times,
//   op(X) = X or X^T as stored column-major with its leading dimension;
//   matrix t of each operand starts `stride` elements after matrix t - 1.
#pragma once

#include <algorithm>
#include <cstdint>

namespace tessera_cuda_emu {

struct GemmShape {
  bool trans_a, trans_b;
  int m, n, k;
  int lda, ldb, ldc;
  long long stride_a, stride_b, stride_c;
  int batch;
};

// What real cuBLAS refuses with CUBLAS_STATUS_INVALID_VALUE.
inline bool gemm_valid(const GemmShape& g) {
  return g.m >= 0 && g.n >= 0 && g.k >= 0 && g.batch >= 0 && g.lda >= std::max(1, g.trans_a ? g.k : g.m) &&
         g.ldb >= std::max(1, g.trans_b ? g.n : g.k) && g.ldc >= std::max(1, g.m);
}

// Calls c(index into C, sum over l of a(index into A) * b(index into B)),
// each product and the sum in Acc, in the order l = 0 .. k-1.
template <class Acc, class LoadA, class LoadB, class StoreC>
void column_major_gemm(const GemmShape& g, const LoadA& a, const LoadB& b, const StoreC& c) {
  for (int t = 0; t < g.batch; ++t) {
    for (int j = 0; j < g.n; ++j) {
      for (int i = 0; i < g.m; ++i) {
        Acc acc = 0;
        for (int l = 0; l < g.k; ++l) {
          const int64_t ia = t * g.stride_a + (g.trans_a ? l + int64_t{i} * g.lda : i + int64_t{l} * g.lda);
          const int64_t ib = t * g.stride_b + (g.trans_b ? j + int64_t{l} * g.ldb : l + int64_t{j} * g.ldb);
          acc += static_cast<Acc>(a(ia)) * static_cast<Acc>(b(ib));
        }
        c(t * g.stride_c + i + int64_t{j} * g.ldc, acc);
      }
    }
  }
}

}  // namespace tessera_cuda_emu
