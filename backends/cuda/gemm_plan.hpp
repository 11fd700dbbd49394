// SPDX-License-Identifier: Apache-2.0
// How one MATMUL maps onto cublasGemmStridedBatchedEx: which operand goes
// first, which are transposed, m/n/k, the leading dimensions, the batch
// strides and the batches looped on the host. Host code without CUDA types,
// so tests/cuda/test_cuda_host_matmul.cpp runs every plan through a reference of
// cuBLAS's column-major contract (argument checks included) where no GPU is.
//
// cuBLAS is column-major. A matrix whose elements are (row, col) at
// row * rs + col * cs is read in place when it is column-major (rs == 1,
// ld = cs) or row-major (cs == 1, ld = rs), a size-1 dim's stride not
// mattering; anything else (a step-sliced column, an expanded row) is packed
// row-major first. A column-major C is computed as C = op(A) op(B); a
// row-major C as its transpose, C^T = op(B^T) op(A^T), whose column-major
// operands are B and A read as stored.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <optional>
#include <vector>

#include "tessera/tensor_desc.h"

namespace tessera::cuda {

// One operand's matrix dims: element (r, c) of a batch at its base + r*rs + c*cs.
struct Mat {
  int64_t rows, cols, rs, cs;
};

inline Mat matrix_of(const tsr_tensor_desc& d) {
  const int n = d.ndim;
  return {d.shape[n - 2], d.shape[n - 1], d.strides[n - 2], d.strides[n - 1]};
}

// How BLAS reads a matrix in place: column- or row-major with leading
// dimension ld (in elements, at least the other dim, as BLAS requires).
struct BlasLayout {
  bool col_major;
  int64_t ld;
};

inline std::optional<BlasLayout> blas_layout(const Mat& m) {
  if (m.cols == 1 || m.cs == 1) {
    const int64_t ld = m.rows == 1 ? std::max<int64_t>(1, m.cols) : m.rs;
    if (ld >= std::max<int64_t>(1, m.cols) && ld <= INT_MAX) return BlasLayout{false, ld};
  }
  if (m.rows == 1 || m.rs == 1) {
    const int64_t ld = m.cols == 1 ? std::max<int64_t>(1, m.rows) : m.cs;
    if (ld >= std::max<int64_t>(1, m.rows) && ld <= INT_MAX) return BlasLayout{true, ld};
  }
  return std::nullopt;
}

// A row-major contiguous descriptor of d's shape over `data` (where an
// operand cuBLAS cannot read in place is packed).
inline tsr_tensor_desc contiguous_like(const tsr_tensor_desc& d, void* data) {
  tsr_tensor_desc c = d;
  c.data = data;
  c.offset = 0;
  int64_t stride = 1;
  for (int i = d.ndim - 1; i >= 0; --i) {
    c.strides[i] = stride;
    stride *= std::max<int64_t>(1, d.shape[i]);
  }
  return c;
}

// A batch dim after merging: its size and the three operands' strides (elements).
struct BatchDim {
  int64_t size, sa, sb, sc;
};

// Batch dims of (a, b, c), size-1 dims dropped and adjacent dims merged
// where all three step over the inner one exactly; innermost last.
inline std::vector<BatchDim> batch_dims(const tsr_tensor_desc& a, const tsr_tensor_desc& b, const tsr_tensor_desc& c) {
  std::vector<BatchDim> dims;
  for (int d = 0; d < c.ndim - 2; ++d) {
    if (c.shape[d] == 1) continue;
    const BatchDim next{c.shape[d], a.strides[d], b.strides[d], c.strides[d]};
    if (!dims.empty()) {
      BatchDim& last = dims.back();
      if (last.sa == next.sa * next.size && last.sb == next.sb * next.size && last.sc == next.sc * next.size) {
        last = BatchDim{last.size * next.size, next.sa, next.sb, next.sc};
        continue;
      }
    }
    dims.push_back(next);
  }
  return dims;
}

// The arguments of the cublasGemmStridedBatchedEx calls for c = a @ b, in
// cuBLAS's terms: C (m x n, column-major, ldc) = op(first) op(second).
struct GemmPlan {
  bool swapped = false;  // row-major C: first = b, second = a (C^T = B^T A^T)
  bool trans_first = false, trans_second = false;  // CUBLAS_OP_T, else CUBLAS_OP_N
  int m = 0, n = 0, k = 0;
  int ld_first = 1, ld_second = 1, ldc = 1;
  long long stride_first = 0, stride_second = 0, stride_c = 0;  // between a call's batch_count matrices
  int batch_count = 1;
  std::vector<BatchDim> outer;  // the batch dims looped on the host, innermost last
  int64_t outer_count = 1;      // calls

  // Element offsets of call t's (a, b, c) from their bases.
  void offsets(int64_t t, int64_t& oa, int64_t& ob, int64_t& oc) const {
    oa = ob = oc = 0;
    for (size_t i = outer.size(); i-- > 0;) {
      const int64_t idx = t % outer[i].size;
      t /= outer[i].size;
      oa += idx * outer[i].sa;
      ob += idx * outer[i].sb;
      oc += idx * outer[i].sc;
    }
  }
};

// The plan for (a, b, c) that each have a blas_layout (pack the others
// first), with M, N, K >= 1 and at most INT_MAX; nullopt when the innermost
// batch holds more than INT_MAX matrices.
inline std::optional<GemmPlan> plan_gemm(const tsr_tensor_desc& a, const tsr_tensor_desc& b, const tsr_tensor_desc& c) {
  const Mat A = matrix_of(a), B = matrix_of(b), C = matrix_of(c);
  const BlasLayout la = *blas_layout(A), lb = *blas_layout(B), lc = *blas_layout(C);
  GemmPlan p;
  p.swapped = !lc.col_major;
  // An operand is transposed for cuBLAS when its storage order differs from C's.
  const BlasLayout& first = p.swapped ? lb : la;
  const BlasLayout& second = p.swapped ? la : lb;
  p.trans_first = first.col_major != lc.col_major;
  p.trans_second = second.col_major != lc.col_major;
  p.m = static_cast<int>(p.swapped ? C.cols : C.rows);
  p.n = static_cast<int>(p.swapped ? C.rows : C.cols);
  p.k = static_cast<int>(A.cols);
  p.ld_first = static_cast<int>(first.ld);
  p.ld_second = static_cast<int>(second.ld);
  p.ldc = static_cast<int>(lc.ld);
  std::vector<BatchDim> dims = batch_dims(a, b, c);
  if (!dims.empty()) {
    const BatchDim inner = dims.back();
    dims.pop_back();
    if (inner.size > INT_MAX) return std::nullopt;
    p.batch_count = static_cast<int>(inner.size);
    p.stride_first = p.swapped ? inner.sb : inner.sa;
    p.stride_second = p.swapped ? inner.sa : inner.sb;
    p.stride_c = inner.sc;
  }
  p.outer = std::move(dims);
  for (const BatchDim& d : p.outer) p.outer_count *= d.size;
  return p;
}

}  // namespace tessera::cuda
