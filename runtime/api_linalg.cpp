// SPDX-License-Identifier: Apache-2.0
// The C API of linear algebra (ABI 1.6; eig and eigvals 1.11): tsr_linalg_* (runtime/linalg.cpp
// does the work). Every out pointer is set to NULL first, so a failed call
// leaves none dangling.
#include <cmath>
#include <string>

#include "api_support.hpp"
#include "ops.hpp"

using namespace tessera::rt;

namespace {
// Clears the out pointers a call may fill.
void clear(std::initializer_list<tsr_tensor**> outs) {
  for (tsr_tensor** o : outs)
    if (o != nullptr) *o = nullptr;
}
}  // namespace

tsr_status tsr_linalg_cholesky(tsr_tensor* a, int32_t upper, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(linalg_cholesky(require(a, "A"), upper != 0), out);
  });
}

tsr_status tsr_linalg_lu_factor(tsr_tensor* a, tsr_tensor** lu, tsr_tensor** pivots) {
  return guard([&] {
    require_out(lu);
    require_out(pivots);
    clear({lu, pivots});
    TensorRef l, p;
    linalg_lu_factor(require(a, "A"), &l, &p);
    hand_out(std::move(l), lu);
    hand_out(std::move(p), pivots);
  });
}

tsr_status tsr_linalg_solve(tsr_tensor* a, tsr_tensor* b, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(linalg_solve(require(a, "A"), require(b, "B")), out);
  });
}

tsr_status tsr_linalg_inv(tsr_tensor* a, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(linalg_inv(require(a, "A")), out);
  });
}

tsr_status tsr_linalg_det(tsr_tensor* a, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    TensorRef det;
    linalg_slogdet(require(a, "A"), nullptr, nullptr, &det);
    hand_out(std::move(det), out);
  });
}

tsr_status tsr_linalg_slogdet(tsr_tensor* a, tsr_tensor** sign, tsr_tensor** logabsdet) {
  return guard([&] {
    require_out(sign);
    require_out(logabsdet);
    clear({sign, logabsdet});
    TensorRef s, l;
    linalg_slogdet(require(a, "A"), &s, &l, nullptr);
    hand_out(std::move(s), sign);
    hand_out(std::move(l), logabsdet);
  });
}

tsr_status tsr_linalg_qr(tsr_tensor* a, int32_t complete, tsr_tensor** q, tsr_tensor** r) {
  return guard([&] {
    require_out(q);
    require_out(r);
    clear({q, r});
    TensorRef tq, tr;
    linalg_qr(require(a, "A"), complete != 0, &tq, &tr);
    hand_out(std::move(tq), q);
    hand_out(std::move(tr), r);
  });
}

tsr_status tsr_linalg_svd(tsr_tensor* a, int32_t full_matrices, tsr_tensor** u, tsr_tensor** s, tsr_tensor** vh) {
  return guard([&] {
    require_out(s);
    if ((u == nullptr) != (vh == nullptr))
      fail(TSR_ERR_INVALID_ARGUMENT, "tsr_linalg_svd: u and vh must both be given or both be NULL");
    clear({u, s, vh});
    TensorRef tu, ts, tv;
    linalg_svd(require(a, "A"), full_matrices != 0, u != nullptr ? &tu : nullptr, &ts, u != nullptr ? &tv : nullptr);
    if (u != nullptr) hand_out(std::move(tu), u);
    hand_out(std::move(ts), s);
    if (vh != nullptr) hand_out(std::move(tv), vh);
  });
}

tsr_status tsr_linalg_eigh(tsr_tensor* a, tsr_tensor** eigenvalues, tsr_tensor** eigenvectors) {
  return guard([&] {
    require_out(eigenvalues);
    clear({eigenvalues, eigenvectors});
    TensorRef w, v;
    linalg_eigh(require(a, "A"), &w, eigenvectors != nullptr ? &v : nullptr);
    hand_out(std::move(w), eigenvalues);
    if (eigenvectors != nullptr) hand_out(std::move(v), eigenvectors);
  });
}

tsr_status tsr_linalg_eig(tsr_tensor* a, tsr_tensor** eigenvalues, tsr_tensor** eigenvectors) {
  return guard([&] {
    require_out(eigenvalues);
    require_out(eigenvectors);
    clear({eigenvalues, eigenvectors});
    TensorRef w, v;
    linalg_eig(require(a, "A"), &w, &v);
    hand_out(std::move(w), eigenvalues);
    hand_out(std::move(v), eigenvectors);
  });
}

tsr_status tsr_linalg_eigvals(tsr_tensor* a, tsr_tensor** eigenvalues) {
  return guard([&] {
    require_out(eigenvalues);
    hand_out([&] {
      TensorRef w;
      linalg_eig(require(a, "A"), &w, nullptr);
      return w;
    }(), eigenvalues);
  });
}

tsr_status tsr_linalg_vector_norm(tsr_tensor* x, double ord, int32_t num_dims, const int32_t* dims, int32_t keepdim,
                                  tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    if (num_dims < 0) fail(TSR_ERR_INVALID_ARGUMENT, "num_dims must be >= 0");
    if (std::isnan(ord)) fail(TSR_ERR_INVALID_ARGUMENT, "linalg.vector_norm: ord must not be NaN");
    hand_out(linalg_vector_norm(require(x, "x"), ord, num_dims, dims, keepdim != 0), out);
  });
}

tsr_status tsr_linalg_pinv(tsr_tensor* a, tsr_tensor* atol, tsr_tensor* rtol, int32_t hermitian, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    hand_out(linalg_pinv(require(a, "A"), atol, rtol, hermitian != 0), out);
  });
}
