// SPDX-License-Identifier: Apache-2.0
// The derivative table's rows for torch.linalg's functions (Note [The
// derivative table] in derivatives.cpp; PyTorch 1.13's formulas, its node
// names). linalg.cpp computes each result with grad mode off, then calls
// its record_linalg_* here. The factorisations of several results (slogdet,
// qr, svd, eigh) record one node for all of them (Note [Nodes of several
// outputs] in autograd.hpp), whose formula takes every result's gradient
// at once. lu_factor's pivots are integers: its node is LU's alone.
//
// Note [Linear algebra formulas]
//   Formulas are written for real matrices (the engine refuses their
//   nodes a complex gradient: Note [Complex tensors and autograd] in
//   autograd.cpp), with recorded functions only, so a second derivative needs no entry:
//   the inverse of a triangular factor is linalg_inv, and X R^-T is
//   solve(R, X^T)^T, where PyTorch calls its triangular solver. A
//   function whose result depends on more than its input (a factor of
//   svd, eigh) saves every result it reads as an output of its node.
//   svdvals and eigvalsh compute the vectors their derivative needs when
//   their input requires grad, as PyTorch does; those results stay in the
//   node. The conditions are PyTorch's: eigh's and svd's formulas divide by
//   the differences of the eigenvalues (squared singular values), so a
//   repeated one gives inf or NaN where the loss depends on the vectors;
//   qr is differentiable when mode is reduced or the matrix is not tall;
//   det of a singular matrix goes through the SVD (the cofactor matrix
//   det U det Vh U diag(prod of the other singular values) Vh), chosen
//   when some matrix of the batch has det 0 (one number read back).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "error.hpp"
#include "formula_ops.hpp"

namespace tessera::rt::autograd {

namespace {

using namespace formula;

int64_t last(const tsr_tensor& t, int32_t from_end) {
  return t.layout.shape[static_cast<size_t>(t.layout.ndim - from_end)];
}
// [..] -> [.., 1, 1]: a value per matrix, to scale the matrices by.
TensorRef per_matrix(const TensorRef& v) { return unsqueezed(unsqueezed(v, -1), -1); }
TensorRef inv(const TensorRef& a) { return linalg_inv(*a); }
TensorRef solve(const TensorRef& a, const TensorRef& b) { return linalg_solve(*a, *b); }
TensorRef det(const TensorRef& a) {
  TensorRef d;
  linalg_slogdet(*a, nullptr, nullptr, &d);
  return d;
}
// X R^-T, R square: (R^-1 X^T)^T.
TensorRef times_inverse_transpose(const TensorRef& x, const TensorRef& r) { return mT(solve(r, mT(x))); }
// A node of several outputs (Note [Nodes of several outputs]).
template <size_t N>
struct MultiNode : SavedNode<N> {
  std::vector<TensorRef> apply(const TensorRef& g) override {
    std::vector<TensorRef> grads{g};
    return this->apply_outputs(grads);
  }
};

// L = cholesky(A): A's gradient L^-T phi(L^T gL) L^-1 made symmetric, phi
// the lower triangle with its diagonal halved (Murray 2016). upper: L^T.
struct CholeskyBackward final : SavedNode<1> {  // t[0]: L
  bool upper = false;
  const char* name() const override { return "LinalgCholeskyExBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const TensorRef L = upper ? mT(t[0]) : t[0], gL = upper ? mT(g) : g;
    const TensorRef P = matmul(mT(L), gL);
    const TensorRef phi = add(tril(P, -1), mul_scalar(diag_embed(diagonal_of(P)), 0.5));
    const TensorRef Linv = inv(L);
    return {mul_scalar(matmul(matmul(mT(Linv), add(phi, mT(phi))), Linv), 0.5)};
  }
};

// X = A^-1: -X^T g X^T.
struct InvBackward final : SavedNode<1> {  // t[0]: X
  const char* name() const override { return "LinalgInvExBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const TensorRef Xt = mT(t[0]);
    return {neg(matmul(Xt, matmul(g, Xt)))};
  }
};

// X = A^-1 B: gB = A^-T g, gA = -gB X^T; a vector B as a column.
struct SolveBackward final : SavedNode<2> {  // t[0]: A (in the solve's dtype), t[1]: X
  bool vector = false;
  const char* name() const override { return "LinalgSolveExBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const TensorRef G = vector ? unsqueezed(g, -1) : g;  // never read as a vector again: it has A's dims or more
    const TensorRef gB = solve(mT(t[0]), G);
    TensorRef gA;
    if (next[0].node) gA = neg(matmul(gB, mT(vector ? unsqueezed(t[1], -1) : t[1])));
    return {gA, next[1].node ? (vector ? squeezed(gB, -1) : gB) : TensorRef{}};
  }
};

// The cofactor matrix of each matrix of a through its SVD, scaled by
// coef [..]: det U det Vh U diag(coef prod_{j != i} S_j) Vh, which holds
// for singular matrices too.
TensorRef cofactors_by_svd(const TensorRef& a, const TensorRef& coef) {
  TensorRef U, S, Vh;
  linalg_svd(*a, false, &U, &S, &Vh);
  const int64_t n = last(*S, 1);
  const TensorRef I = eye_like(S, n);
  // others[.., i, j] = S_j off the diagonal, 1 on it: its row products
  // leave S_i out (PROD's formula handles the zeros).
  const TensorRef others = add(sub(unsqueezed(S, -2), mul(unsqueezed(S, -2), I)), I);
  const int32_t row = -1;
  const TensorRef D = mul(reduce(TSR_OP_PROD, *others, 1, &row, false), unsqueezed(mul(coef, mul(det(U), det(Vh))), -1));
  return matmul(mul(U, unsqueezed(D, -2)), Vh);
}

// d = det A: g d A^-T, or the cofactors through the SVD when a matrix of
// the batch is singular (Note [Linear algebra formulas]).
struct DetBackward final : SavedNode<2> {  // t[0]: A, t[1]: det
  const char* name() const override { return "LinalgDetBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const TensorRef& A = t[0];
    const TensorRef singular = reduce(TSR_OP_SUM, *binary(TSR_OP_EQ, *t[1], *scalar_like(t[1], 0.0)), 0, nullptr, false);
    if (read_item(*singular).i > 0) return {cofactors_by_svd(A, g)};
    return {mul(per_matrix(mul(g, t[1])), mT(inv(A)))};
  }
};

// (sign, logabsdet) = slogdet A: g_logabsdet A^-T; sign is constant
// where it is defined, so its gradient adds nothing (PyTorch's).
struct SlogdetBackward final : MultiNode<1> {  // t[0]: A
  const char* name() const override { return "LinalgSlogdetBackward0"; }
  uint32_t num_outputs() const override { return 2; }
  std::vector<TensorRef> apply_outputs(std::vector<TensorRef>& grads) override {
    const TensorRef& g = grads[1];
    if (!g) return {};
    return {mul(per_matrix(g), mT(inv(t[0])))};
  }
};

// A = QR (PyTorch 1.13's linalg_qr_backward). m >= n:
// (gQ + Q syminv(triu(gR R^T - Q^T gQ))) R^-T, syminv(X) = X + X^T - diag X;
// m < n, R = [U | V]: [Q tril(X - X^T) U^-T | 0] + Q gR, X = Q^T gQ - gR R^T.
struct QrBackward final : MultiNode<2> {  // t[0]: Q, t[1]: R
  bool complete = false;
  const char* name() const override { return "LinalgQrBackward0"; }
  uint32_t num_outputs() const override { return 2; }
  std::vector<TensorRef> apply_outputs(std::vector<TensorRef>& grads) override {
    grads.resize(2);
    const TensorRef &gQ = grads[0], &gR = grads[1];
    const TensorRef &Q = t[0], &R = t[1];
    const int64_t m = last(*Q, 2), n = last(*R, 1);
    if (complete && m > n)
      fail(TSR_ERR_UNSUPPORTED, "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
    if (!gQ && !gR) return {};
    TensorRef M;
    if (gQ) M = gR ? sub(matmul(gR, mT(R)), matmul(mT(Q), gQ)) : neg(matmul(mT(Q), gQ));
    else M = matmul(gR, mT(R));
    if (m >= n) {
      const TensorRef upper = triu(M);
      TensorRef b = matmul(Q, sub(add(upper, mT(upper)), diag_embed(diagonal_of(upper))));
      if (gQ) b = add(b, gQ);
      return {times_inverse_transpose(b, R)};
    }
    const TensorRef X = neg(M);
    TensorRef gA = times_inverse_transpose(matmul(Q, tril(sub(X, mT(X)), -1)), narrow(R, -1, 0, m));
    std::vector<int64_t> rest(R->layout.shape.begin(), R->layout.shape.begin() + R->layout.ndim);
    rest.back() = n - m;
    const TensorRef zeros = zeros_of(*gA, static_cast<int32_t>(rest.size()), rest.data());
    const tsr_tensor* parts[2] = {gA.get(), zeros.get()};
    gA = concat(parts, -1);
    if (gR) gA = add(gA, matmul(Q, gR));
    return {gA};
  }
};

// A = U diag(S) Vh (PyTorch 1.13's svd_backward): with E_ij = S_j^2 - S_i^2,
// U [(skew(U^T gU) S_j + S_i skew(Vh gVh^T)) / E + diag(gS)] Vh, plus the
// parts of gU (tall A) or gVh (wide A) outside U's or V's span. A full
// factorisation's extra vectors carry no information about A: they and
// their gradients are narrowed away first.
struct SvdBackward final : MultiNode<3> {  // t: U, S, Vh
  bool full_matrices = false;
  const char* name() const override { return "LinalgSvdBackward0"; }
  uint32_t num_outputs() const override { return 3; }
  std::vector<TensorRef> apply_outputs(std::vector<TensorRef>& grads) override {
    grads.resize(3);
    TensorRef gU = grads[0], gS = grads[1], gVh = grads[2];
    if (!gU && !gS && !gVh) return {};
    TensorRef U = t[0], Vh = t[2];
    const TensorRef& S = t[1];
    const int64_t k = last(*S, 1), m = last(*U, 2), n = last(*Vh, 1);
    if (full_matrices) {
      U = narrow(U, -1, 0, k);
      Vh = narrow(Vh, -2, 0, k);
      if (gU) gU = narrow(gU, -1, 0, k);
      if (gVh) gVh = narrow(gVh, -2, 0, k);
    }
    if (!gU && !gVh) return {m >= n ? matmul(U, mul(unsqueezed(gS, -1), Vh)) : matmul(mul(U, unsqueezed(gS, -2)), Vh)};
    const auto skew = [](const TensorRef& x) { return sub(x, mT(x)); };
    const TensorRef S2 = mul(S, S);
    const TensorRef E = add(sub(unsqueezed(S2, -2), unsqueezed(S2, -1)), eye_like(S, k));
    TensorRef inner;
    if (gU) inner = div(mul(skew(matmul(mT(U), gU)), unsqueezed(S, -2)), E);
    if (gVh) {
      const TensorRef v = div(mul(unsqueezed(S, -1), skew(matmul(Vh, mT(gVh)))), E);
      inner = inner ? add(inner, v) : v;
    }
    if (gS) inner = add(inner, diag_embed(gS));
    if (m > n && gU) {
      const TensorRef gUSinv = div(gU, unsqueezed(S, -2));
      const TensorRef left = add(matmul(U, inner), sub(gUSinv, matmul(U, matmul(mT(U), gUSinv))));
      return {matmul(left, Vh)};
    }
    if (m < n && gVh) {
      const TensorRef SinvgVh = div(gVh, unsqueezed(S, -1));
      const TensorRef right = add(matmul(inner, Vh), sub(SinvgVh, matmul(matmul(SinvgVh, mT(Vh)), Vh)));
      return {matmul(U, right)};
    }
    return {m >= n ? matmul(U, matmul(inner, Vh)) : matmul(matmul(U, inner), Vh)};
  }
};

// A = V diag(L) V^T (PyTorch 1.13's linalg_eig_backward, Hermitian case):
// V (diag(gL) + skew(V^T gV) / 2E) V^T with E_ij = L_j - L_i.
struct EighBackward final : MultiNode<2> {  // t: L, V
  const char* name() const override { return "LinalgEighBackward0"; }
  uint32_t num_outputs() const override { return 2; }
  std::vector<TensorRef> apply_outputs(std::vector<TensorRef>& grads) override {
    grads.resize(2);
    const TensorRef &gL = grads[0], &gV = grads[1];
    const TensorRef &L = t[0], &V = t[1];
    if (!gV) return {matmul(mul(V, unsqueezed(gL, -2)), mT(V))};
    const TensorRef VtgV = matmul(mT(V), gV);
    const TensorRef E = add(sub(unsqueezed(L, -2), unsqueezed(L, -1)), eye_like(L, last(*L, 1)));
    TensorRef inner = div(mul_scalar(sub(VtgV, mT(VtgV)), 0.5), E);
    if (gL) inner = add(inner, diag_embed(gL));
    return {matmul(V, matmul(inner, mT(V)))};
  }
};

// P = pinv(A) (PyTorch 1.13's pinv_backward), with the products taken in
// the order that keeps the matrices smallest.
struct PinvBackward final : SavedNode<2> {  // t[0]: A, t[1]: P
  const char* name() const override { return "LinalgPinvBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const TensorRef &A = t[0], &P = t[1];
    const TensorRef Pt = mT(P), gt = mT(g);
    if (last(*A, 2) <= last(*A, 1)) {
      const TensorRef K = matmul(gt, P), KPt = matmul(K, Pt);
      return {add(sub(sub(KPt, mT(matmul(P, K))), matmul(matmul(A, P), KPt)), matmul(matmul(Pt, P), sub(gt, matmul(K, A))))};
    }
    const TensorRef K = matmul(P, gt), PtK = matmul(Pt, K);
    return {sub(add(sub(matmul(matmul(sub(gt, matmul(A, K)), P), Pt), mT(matmul(K, P))), PtK), matmul(matmul(PtK, P), A))};
  }
};

// P X: the rows of X [.., m, n] permuted as LAPACK's pivots of an LU
// factorisation say (A = P L U; pivots [.., k], 1-based row swaps made in
// order). The permutation is worked out on the host from the pivots (k
// numbers a matrix, read back as the factorisations read their info), and
// applied on the device as a recorded gather.
TensorRef permute_rows(const TensorRef& x, const tsr_tensor& pivots) {
  const int64_t m = last(*x, 2), k = last(pivots, 1);
  const int64_t count = k == 0 ? 0 : pivots.layout.numel() / k;
  std::vector<int32_t> piv(static_cast<size_t>(pivots.layout.numel()));
  read_to_host(pivots, piv.data(), piv.size() * sizeof(int32_t));
  std::vector<int64_t> source(static_cast<size_t>(count * m));  // row i of P X is row source[i] of X
  for (int64_t b = 0; b < count; ++b) {
    std::vector<int64_t> perm(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) perm[static_cast<size_t>(i)] = i;
    for (int64_t i = 0; i < k; ++i) std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(piv[static_cast<size_t>(b * k + i)] - 1)]);
    for (int64_t i = 0; i < m; ++i) source[static_cast<size_t>(b * m + perm[static_cast<size_t>(i)])] = i;
  }
  std::vector<int64_t> shape(pivots.layout.shape.begin(), pivots.layout.shape.begin() + pivots.layout.ndim - 1);
  shape.push_back(m);
  shape.push_back(1);
  TensorRef index = from_host(*x->rt, source.data(), static_cast<int32_t>(shape.size()), shape.data(), TSR_INT64, x->device);
  shape.back() = last(*x, 1);
  TensorRef spread = make_view(*index, broadcast_to(index->layout, static_cast<int32_t>(shape.size()), shape.data()));
  return gather(*x, -2, *spread);
}

// (LU, pivots) = lu_factor(A), A = P L U (PyTorch 1.13's
// lu_factor_ex_backward and linalg_lu_backward): L's gradient is LU's
// columns up to k, U's its rows up to k; square A:
// P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T; wide and tall A also carry
// the gradient of U's (L's) block past k.
struct LuFactorBackward final : SavedNode<2> {  // t[0]: LU, t[1]: the pivots (int32)
  const char* name() const override { return "LinalgLuFactorExBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const TensorRef& LU = t[0];
    const int64_t m = last(*LU, 2), n = last(*LU, 1), k = std::min(m, n);
    if (LU->layout.numel() == 0) return {zeros_like(g)};
    const TensorRef L = add(tril(narrow(LU, -1, 0, k), -1), eye_like_shape(LU, m, k));
    const TensorRef U = triu(narrow(LU, -2, 0, k));
    const TensorRef gL = narrow(g, -1, 0, k), gU = narrow(g, -2, 0, k);
    TensorRef X;
    if (m == n) {
      X = add(tril(matmul(mT(L), gL), -1), triu(matmul(gU, mT(U))));
      X = solve(mT(L), times_inverse_transpose(X, U));
    } else if (m < n) {
      X = sub(matmul(mT(L), gL), matmul(triu(gU), mT(U)));
      X = times_inverse_transpose(tril(X, -1), narrow(U, -1, 0, k));
      const TensorRef left = add(X, triu(narrow(gU, -1, 0, k))), right = narrow(gU, -1, k, n - k);
      const tsr_tensor* parts[2] = {left.get(), right.get()};
      X = solve(mT(L), concat(parts, -1));
    } else {
      X = sub(matmul(gU, mT(U)), matmul(mT(L), tril(gL, -1)));
      X = solve(mT(narrow(L, -2, 0, k)), triu(X));
      const TensorRef top = add(X, tril(narrow(gL, -2, 0, k), -1)), bottom = narrow(gL, -2, k, m - k);
      const tsr_tensor* parts[2] = {top.get(), bottom.get()};
      X = times_inverse_transpose(concat(parts, -2), U);
    }
    return {permute_rows(X, *t[1])};
  }
  // I [m, k]: ones on the main diagonal.
  static TensorRef eye_like_shape(const TensorRef& t, int64_t m, int64_t k) { return eye(*t->rt, m, k, 0, t->dtype, t->device); }
};

// Links a node of several outputs to its input and makes each result
// output i of it.
void record_outputs(std::shared_ptr<Node> node, std::initializer_list<const tsr_tensor*> inputs,
                    std::initializer_list<tsr_tensor*> outputs) {
  link(*node, inputs);
  uint32_t i = 0;
  for (tsr_tensor* out : outputs) {
    if (out != nullptr) set_history(*out, node, i);
    ++i;
  }
}

}  // namespace

void record_linalg_cholesky(const tsr_tensor& a, bool upper, tsr_tensor& L) {
  if (!differentiable("linalg_cholesky", {&a}, L)) return;
  auto n = std::make_shared<CholeskyBackward>();
  n->upper = upper;
  n->saved[0].save(L, true);
  record(std::move(n), {&a}, L);
}

void record_linalg_inv(const tsr_tensor& a, tsr_tensor& x) {
  if (!differentiable("linalg_inv", {&a}, x)) return;
  auto n = std::make_shared<InvBackward>();
  n->saved[0].save(x, true);
  record(std::move(n), {&a}, x);
}

void record_linalg_solve(const tsr_tensor& a, const tsr_tensor& b, const tsr_tensor& A, bool vector, tsr_tensor& x) {
  if (!differentiable("linalg_solve", {&a, &b}, x)) return;
  auto n = std::make_shared<SolveBackward>();
  n->vector = vector;
  n->saved[0].save(A, false);
  n->saved[1].save(x, true);
  record(std::move(n), {&a, &b}, x);
}

void record_linalg_det(const tsr_tensor& a, tsr_tensor& det) {
  if (!differentiable("linalg_det", {&a}, det)) return;
  auto n = std::make_shared<DetBackward>();
  n->saved[0].save(a, false);
  n->saved[1].save(det, true);
  record(std::move(n), {&a}, det);
}

void record_linalg_slogdet(const tsr_tensor& a, tsr_tensor& sign, tsr_tensor& logabsdet) {
  if (!differentiable("linalg_slogdet", {&a}, logabsdet)) return;
  auto n = std::make_shared<SlogdetBackward>();
  n->saved[0].save(a, false);
  record_outputs(std::move(n), {&a}, {&sign, &logabsdet});
}

void record_linalg_qr(const tsr_tensor& a, bool complete, tsr_tensor& q, tsr_tensor& r) {
  if (!differentiable("linalg_qr", {&a}, q)) return;
  auto n = std::make_shared<QrBackward>();
  n->complete = complete;
  n->saved[0].save(q, true, 0);
  n->saved[1].save(r, true, 1);
  record_outputs(std::move(n), {&a}, {&q, &r});
}

void record_linalg_svd(const tsr_tensor& a, bool full_matrices, tsr_tensor& u, tsr_tensor& s, tsr_tensor& vh,
                       bool values_only) {
  if (!differentiable("linalg_svd", {&a}, u)) return;
  auto n = std::make_shared<SvdBackward>();
  n->full_matrices = full_matrices;
  n->saved[0].save(u, true, 0);
  n->saved[1].save(s, true, 1);
  n->saved[2].save(vh, true, 2);
  if (values_only) record_outputs(std::move(n), {&a}, {nullptr, &s, nullptr});
  else record_outputs(std::move(n), {&a}, {&u, &s, &vh});
}

void record_linalg_pinv(const tsr_tensor& a, tsr_tensor& p) {
  if (!differentiable("linalg_pinv", {&a}, p)) return;
  auto n = std::make_shared<PinvBackward>();
  n->saved[0].save(a, false);
  n->saved[1].save(p, true);
  record(std::move(n), {&a}, p);
}

void record_linalg_lu_factor(const tsr_tensor& a, tsr_tensor& lu, const tsr_tensor& pivots) {
  if (!differentiable("linalg_lu_factor", {&a}, lu)) return;
  auto n = std::make_shared<LuFactorBackward>();
  n->saved[0].save(lu, true);
  n->saved[1].save(pivots, false);
  record(std::move(n), {&a}, lu);
}

void record_linalg_eigh(const tsr_tensor& a, tsr_tensor& w, tsr_tensor& v, bool values_only) {
  if (!differentiable("linalg_eigh", {&a}, v)) return;
  auto n = std::make_shared<EighBackward>();
  n->saved[0].save(w, true, 0);
  n->saved[1].save(v, true, 1);
  if (values_only) record_outputs(std::move(n), {&a}, {&w, nullptr});
  else record_outputs(std::move(n), {&a}, {&w, &v});
}

}  // namespace tessera::rt::autograd
