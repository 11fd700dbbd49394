// SPDX-License-Identifier: Apache-2.0
// The plain matmul: one thread per output element, the K products summed in
// wrapping 64-bit integers for the integer dtypes (PyTorch's result modulo
// 2^bits), in float for float16/bfloat16 and in the dtype otherwise. It
// serves what cuBLAS does not: the integer dtypes, and floating matrices
// with a dim beyond cuBLAS's int. Rate is no concern here (integer matmul is
// rare: each thread reads its row of A and column of B through the caches);
// exact wrapping is. The per-element work is a __host__ __device__ function,
// so tests/cuda/test_cuda_host_matmul.cpp runs it on the CPU.
#pragma once

#include <cstdint>
#include <type_traits>

#include "dtypes.cuh"
#include "gemm_plan.hpp"
#include "tessera/tensor_desc.h"

namespace tessera::cuda {

template <class S>
using plain_acc_t = std::conditional_t<std::is_integral_v<S>, uint64_t, std::conditional_t<std::is_same_v<S, double>, double, float>>;

template <class S> TSR_HD plain_acc_t<S> to_plain_acc(S x) {
  if constexpr (std::is_integral_v<S>) return static_cast<uint64_t>(static_cast<int64_t>(x));
  else return static_cast<plain_acc_t<S>>(load(x));
}
template <class S> TSR_HD S from_plain_acc(plain_acc_t<S> v) {
  if constexpr (std::is_integral_v<S>) return static_cast<S>(static_cast<int64_t>(v));
  else return store<S>(v);
}

struct PlainParams {
  const char* a;
  const char* b;
  char* c;  // bases, offsets included
  int64_t M, N, K, batches;
  int nb;  // batch dims
  int64_t batch_shape[TSR_MAX_DIMS], sa[TSR_MAX_DIMS], sb[TSR_MAX_DIMS], sc[TSR_MAX_DIMS];
  Mat A, B, C;
};

// c = a @ b over same-ndim descriptors (batch dims broadcast), element type S.
template <class S> PlainParams plan_plain(const tsr_tensor_desc& a, const tsr_tensor_desc& b, const tsr_tensor_desc& c) {
  PlainParams p{};
  p.a = static_cast<const char*>(a.data) + a.offset * static_cast<int64_t>(sizeof(S));
  p.b = static_cast<const char*>(b.data) + b.offset * static_cast<int64_t>(sizeof(S));
  p.c = static_cast<char*>(c.data) + c.offset * static_cast<int64_t>(sizeof(S));
  p.A = matrix_of(a);
  p.B = matrix_of(b);
  p.C = matrix_of(c);
  p.M = p.C.rows;
  p.N = p.C.cols;
  p.K = p.A.cols;
  p.nb = c.ndim - 2;
  p.batches = 1;
  for (int d = 0; d < p.nb; ++d) {
    p.batch_shape[d] = c.shape[d];
    p.sa[d] = a.strides[d];
    p.sb[d] = b.strides[d];
    p.sc[d] = c.strides[d];
    p.batches *= c.shape[d];
  }
  return p;
}

// Output (m, n) of batch t.
template <class S> TSR_HD void plain_matmul_element(const PlainParams& p, int64_t t, int64_t m, int64_t n) {
  int64_t oa = 0, ob = 0, oc = 0;
  for (int d = p.nb - 1; d >= 0; --d) {
    const int64_t idx = t % p.batch_shape[d];
    t /= p.batch_shape[d];
    oa += idx * p.sa[d];
    ob += idx * p.sb[d];
    oc += idx * p.sc[d];
  }
  const S* a = reinterpret_cast<const S*>(p.a) + oa + m * p.A.rs;
  const S* b = reinterpret_cast<const S*>(p.b) + ob + n * p.B.cs;
  plain_acc_t<S> acc = 0;
  for (int64_t k = 0; k < p.K; ++k) acc += to_plain_acc(a[k * p.A.cs]) * to_plain_acc(b[k * p.B.rs]);
  reinterpret_cast<S*>(p.c)[oc + m * p.C.rs + n * p.C.cs] = from_plain_acc<S>(acc);
}

}  // namespace tessera::cuda
