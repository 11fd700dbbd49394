// SPDX-License-Identifier: Apache-2.0
// torch.linalg's factorisations and the functions built on them (ABI 1.6).
// Checks, shapes and results are allocated here, then one LINALG kernel runs
// per call (Note [Kernel contracts], kind LINALG: the device's own, or the
// CPU fallback's LAPACK), and each matrix's `info` comes back to the host to
// become torch.linalg's error naming the batch element: the one read back,
// as torch.linalg's own error checks do. det and slogdet come from LU: U's diagonal and the pivots' parity, reduced
// on the device. Matrices with a dim of 0, and empty batches, never reach a
// kernel: their results (empty, or the identity and 1) are written here.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "derivatives.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "promotion.hpp"
#include "shape.hpp"

namespace tessera::rt {

namespace {

// PyTorch's names of the dtypes it refuses, for its messages.
const char* torch_type_name(int32_t dtype) {
  switch (dtype) {
    case TSR_FLOAT16: return "Half";
    case TSR_BFLOAT16: return "BFloat16";
    case TSR_UINT8: return "Byte";
    case TSR_INT8: return "Char";
    case TSR_INT16: return "Short";
    case TSR_INT32: return "Int";
    case TSR_INT64: return "Long";
    case TSR_BOOL: return "Bool";
    case TSR_COMPLEX64: return "ComplexFloat";
    case TSR_COMPLEX128: return "ComplexDouble";
    default: return tsr_dtype_name(dtype);
  }
}

// An order as PyTorch prints it in messages: "inf", "-1", "0.5".
std::string format_order(double ord) {
  if (std::isinf(ord)) return ord > 0 ? "inf" : "-inf";
  std::string s = std::to_string(ord);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// A stack of matrices: the batch dims (all but the last two) and m x n.
struct Stack {
  std::vector<int64_t> batch;
  int64_t m = 0, n = 0;
  int64_t count() const {
    int64_t c = 1;
    for (int64_t s : batch) c *= s;
    return c;
  }
  bool batched() const { return !batch.empty(); }
  // batch ++ dims
  std::vector<int64_t> shape(std::initializer_list<int64_t> dims) const {
    std::vector<int64_t> s = batch;
    s.insert(s.end(), dims);
    return s;
  }
};

void check_dtype(const tsr_tensor& a, const std::string& fn) {
  if (tsr_op_takes_dtype(TSR_OP_LU, a.dtype)) return;  // LAPACK's four (TSR_OP_DTYPES_LINALG_COMPLEX)
  if (a.dtype == TSR_FLOAT16 || a.dtype == TSR_BFLOAT16)
    fail(TSR_ERR_TYPE, fn + ": Low precision dtypes not supported. Got " + torch_type_name(a.dtype));
  fail(TSR_ERR_TYPE, fn + ": Expected a floating point or complex tensor as input. Got " + torch_type_name(a.dtype));
}

Stack check_stack(const tsr_tensor& a, const std::string& fn, bool square) {
  const int32_t nd = a.layout.ndim;
  if (nd < 2) fail(TSR_ERR_SHAPE, fn + ": The input tensor A must have at least 2 dimensions.");
  check_dtype(a, fn);
  Stack s;
  s.batch.assign(a.layout.shape.begin(), a.layout.shape.begin() + (nd - 2));
  s.m = a.layout.shape[static_cast<size_t>(nd - 2)];
  s.n = a.layout.shape[static_cast<size_t>(nd - 1)];
  if (square && s.m != s.n)
    fail(TSR_ERR_SHAPE, fn + ": A must be batches of square matrices, but they are " + std::to_string(s.m) + " by " +
                            std::to_string(s.n) + " matrices");
  return s;
}

TensorRef new_tensor(const tsr_tensor& like, const std::vector<int64_t>& shape, int32_t dtype) {
  return empty(*like.rt, static_cast<int32_t>(shape.size()), shape.data(), dtype, like.device);
}

// Runs LINALG op `op` on (a[, b]) -> out, more..., each input read as
// `stack`'s batch (broadcast where it has fewer or size-1 batch dims).
void run_linalg(int32_t op, const Stack& stack, const tsr_tensor& a, const tsr_tensor* b, const tsr_tensor& out,
                std::initializer_list<const tsr_tensor*> more, std::initializer_list<int64_t> params) {
  auto input_desc = [&](const tsr_tensor& t, tsr_tensor_desc& d) {
    const int32_t nd = t.layout.ndim;
    const std::vector<int64_t> shape = stack.shape({t.layout.shape[static_cast<size_t>(nd - 2)],
                                                    t.layout.shape[static_cast<size_t>(nd - 1)]});
    fill_desc_broadcast(t, static_cast<int32_t>(shape.size()), shape.data(), d);
  };
  tsr_tensor_desc da, db, dout;
  input_desc(a, da);
  if (b != nullptr) input_desc(*b, db);
  fill_desc(out, dout);
  std::vector<tsr_tensor_desc> more_descs(more.size());
  std::vector<const tsr_tensor_desc*> more_ptrs;
  size_t i = 0;
  for (const tsr_tensor* t : more) {
    fill_desc(*t, more_descs[i]);
    more_ptrs.push_back(&more_descs[i++]);
  }
  const std::vector<int64_t> p(params);
  const KernelParams extra{.params = p, .more_outputs = more_ptrs};
  if (b != nullptr) launch(*a.rt, a.device, op, a.dtype, {&da, &db}, dout, extra);
  else launch(*a.rt, a.device, op, a.dtype, {&da}, dout, extra);
}

// Throws torch.linalg's error for the first matrix whose info is not 0.
void check_info(const tsr_tensor& info, const Stack& stack, const std::string& fn,
                const std::function<std::string(int32_t)>& why) {
  const int64_t n = info.layout.numel();
  std::vector<int32_t> v(static_cast<size_t>(n));
  read_to_host(info, v.data(), v.size() * sizeof(int32_t));
  for (int64_t i = 0; i < n; ++i) {
    const int32_t k = v[static_cast<size_t>(i)];
    if (k == 0) continue;
    if (k < 0) fail(TSR_ERR_INTERNAL, fn + ": the kernel reported LAPACK info " + std::to_string(k) + " (a bad argument)");
    fail(TSR_ERR_LINALG, fn + ": " + (stack.batched() ? "(Batch element " + std::to_string(i) + "): " : "") + why(k));
  }
}

TensorRef info_tensor(const tsr_tensor& like, const Stack& stack) { return new_tensor(like, stack.batch, TSR_INT32); }

// The identity of n x n, read as `stack`'s batch of them (stride 0).
TensorRef identity(const tsr_tensor& like, const Stack& stack, int64_t n) {
  TensorRef e = eye(*like.rt, n, n, 0, like.dtype, like.device);
  const std::vector<int64_t> shape = stack.shape({n, n});
  return make_view(*e, broadcast_to(e->layout, static_cast<int32_t>(shape.size()), shape.data()));
}

// The diagonal of the last two dims as a view: [.., min(m, n)].
TensorRef diagonal_view(const tsr_tensor& t) {
  const Layout& l = t.layout;
  const int32_t nd = l.ndim;
  std::vector<int64_t> shape(l.shape.begin(), l.shape.begin() + (nd - 1)), strides(l.strides.begin(), l.strides.begin() + (nd - 1));
  shape.back() = std::min(l.shape[static_cast<size_t>(nd - 2)], l.shape[static_cast<size_t>(nd - 1)]);
  strides.back() = l.strides[static_cast<size_t>(nd - 2)] + l.strides[static_cast<size_t>(nd - 1)];
  return make_view(t, as_strided(l, nd - 1, shape.data(), strides.data(), l.offset, storage_extent(l)));
}

// LU of square a ([.., n, n], n > 0, a non-empty batch): lu and pivots.
void lu(const tsr_tensor& a, const Stack& stack, TensorRef& lu_out, TensorRef& pivots, TensorRef& info) {
  lu_out = new_tensor(a, stack.shape({stack.m, stack.n}), a.dtype);
  pivots = new_tensor(a, stack.shape({std::min(stack.m, stack.n)}), TSR_INT32);
  info = info_tensor(a, stack);
  run_linalg(TSR_OP_LU, stack, a, nullptr, *lu_out, {pivots.get(), info.get()}, {});
}

// (-1)^(number of row interchanges), in a's dtype: [..].
TensorRef pivot_sign(const tsr_tensor& a, const tsr_tensor& pivots, int64_t n) {
  TensorRef rows = arange(*a.rt, tsr_scalar_int(1), tsr_scalar_int(n + 1), tsr_scalar_int(1), TSR_INT32, a.device);
  const int32_t last = -1;
  TensorRef swaps = reduce(TSR_OP_SUM, *binary(TSR_OP_NE, pivots, *rows), 1, &last, false);
  TensorRef odd = binary_scalar(TSR_OP_REMAINDER, *swaps, tsr_scalar_int(2), false);
  TensorRef sign = binary_scalar(TSR_OP_ADD, *binary_scalar(TSR_OP_MUL, *odd, tsr_scalar_int(-2), false),
                                 tsr_scalar_int(1), false);
  return to(sign, a.dtype, a.device);
}

}  // namespace

// The computations, without records (defined below their recording twins).
static TensorRef cholesky_of(const tsr_tensor& a, bool upper);
static void lu_factor_of(const tsr_tensor& a, TensorRef* lu_out, TensorRef* pivots);
static void slogdet_of(const tsr_tensor& a, TensorRef* sign, TensorRef* logabsdet, TensorRef* det);
static void qr_of(const tsr_tensor& a, bool complete, TensorRef* q, TensorRef* r);
static void svd_of(const tsr_tensor& a, bool full_matrices, TensorRef* u, TensorRef* sv, TensorRef* vh);
static void eigh_of(const tsr_tensor& a, TensorRef* w, TensorRef* v);

// Each function computes with grad mode off, then records its node when
// its input requires grad (derivatives_linalg.cpp).

TensorRef linalg_cholesky(const tsr_tensor& a, bool upper) {
  const bool records = autograd::should_record({&a});
  const autograd::GradModeGuard off(false);
  TensorRef out = cholesky_of(a, upper);
  if (records) autograd::record_linalg_cholesky(a, upper, *out);
  return out;
}

TensorRef cholesky_of(const tsr_tensor& a, bool upper) {
  const std::string fn = "linalg.cholesky";
  const Stack s = check_stack(a, fn, true);
  TensorRef out = new_tensor(a, s.shape({s.n, s.n}), a.dtype);
  if (s.count() == 0 || s.n == 0) return out;
  TensorRef info = info_tensor(a, s);
  run_linalg(TSR_OP_CHOLESKY, s, a, nullptr, *out, {info.get()}, {upper ? 1 : 0});
  check_info(*info, s, fn, [](int32_t k) {
    return "The factorization could not be completed because the input is not positive-definite (the leading "
           "minor of order " + std::to_string(k) + " is not positive-definite).";
  });
  return out;
}

void linalg_lu_factor(const tsr_tensor& a, TensorRef* lu_out, TensorRef* pivots) {
  const bool records = autograd::should_record({&a});
  const autograd::GradModeGuard off(false);
  lu_factor_of(a, lu_out, pivots);
  if (records) autograd::record_linalg_lu_factor(a, **lu_out, **pivots);
}

void lu_factor_of(const tsr_tensor& a, TensorRef* lu_out, TensorRef* pivots) {
  const std::string fn = "torch.linalg.lu_factor";
  const Stack s = check_stack(a, fn, false);
  if (s.count() == 0 || s.m == 0 || s.n == 0) {
    *lu_out = new_tensor(a, s.shape({s.m, s.n}), a.dtype);
    *pivots = new_tensor(a, s.shape({std::min(s.m, s.n)}), TSR_INT32);
    return;
  }
  TensorRef info;
  lu(a, s, *lu_out, *pivots, info);
  check_info(*info, s, fn, [](int32_t k) {
    return "U[" + std::to_string(k) + "," + std::to_string(k) +
           "] is zero and using it on lu_solve would result in a division by zero. If you still want to perform "
           "the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)";
  });
}

TensorRef linalg_solve(const tsr_tensor& a_in, const tsr_tensor& b_in) {
  const std::string fn = "linalg.solve";
  check_same_device(a_in, b_in);
  check_dtype(a_in, fn);
  check_dtype(b_in, fn);
  // The Array API's promotion (torch refuses mixed dtypes).
  const int32_t dtype = promote_types(a_in.dtype, b_in.dtype);
  TensorRef a = to(TensorRef::share(const_cast<tsr_tensor*>(&a_in)), dtype, a_in.device);
  TensorRef b = to(TensorRef::share(const_cast<tsr_tensor*>(&b_in)), dtype, b_in.device);
  const Stack sa = check_stack(*a, fn, true);
  // torch's vector case: b is [n], or a's shape without its last dim.
  const Layout& lb = b->layout;
  bool vector = lb.ndim == 1;
  if (lb.ndim == a->layout.ndim - 1) {
    vector = true;
    for (int32_t k = 0; k < lb.ndim; ++k) vector = vector && lb.shape[static_cast<size_t>(k)] == a->layout.shape[static_cast<size_t>(k)];
  }
  if (lb.ndim == 0) fail(TSR_ERR_SHAPE, fn + ": The input tensor B must have at least 1 dimensions.");
  const bool records = autograd::should_record({&a_in, &b_in});
  const autograd::GradModeGuard off(false);
  if (vector) {
    std::vector<int64_t> shape(lb.shape.begin(), lb.shape.begin() + lb.ndim);
    shape.push_back(1);
    b = make_view(*b, view(lb, static_cast<int32_t>(shape.size()), shape.data()));
  }
  const Layout& lb2 = b->layout;
  const int64_t bn = lb2.shape[static_cast<size_t>(lb2.ndim - 2)], k = lb2.shape[static_cast<size_t>(lb2.ndim - 1)];
  if (bn != sa.n)
    fail(TSR_ERR_SHAPE, fn + ": Incompatible shapes of A and B for the equation AX = B (" + std::to_string(sa.n) + "x" +
                            std::to_string(sa.n) + " and " + std::to_string(bn) + "x" + std::to_string(k) + ")");
  Stack s = sa;
  int64_t batch[TSR_MAX_DIMS];
  const int32_t nb = broadcast_shapes(static_cast<int32_t>(sa.batch.size()), sa.batch.data(), lb2.ndim - 2,
                                      lb2.shape.data(), batch);
  s.batch.assign(batch, batch + nb);
  TensorRef x = new_tensor(*a, s.shape({s.n, k}), dtype);
  if (s.count() > 0 && s.n > 0 && k > 0) {
    TensorRef info = info_tensor(*a, s);
    run_linalg(TSR_OP_SOLVE, s, *a, b.get(), *x, {info.get()}, {});
    check_info(*info, s, "torch.linalg.solve", [](int32_t) { return std::string("The solver failed because the input matrix is singular."); });
  }
  if (vector) {
    const std::vector<int64_t> shape = s.shape({s.n});
    x = make_view(*x, view(x->layout, static_cast<int32_t>(shape.size()), shape.data()));
  }
  if (records) autograd::record_linalg_solve(a_in, b_in, *a, vector, *x);
  return x;
}

TensorRef linalg_inv(const tsr_tensor& a) {
  const std::string fn = "linalg.inv";
  const Stack s = check_stack(a, fn, true);
  const bool records = autograd::should_record({&a});
  const autograd::GradModeGuard off(false);
  TensorRef x = new_tensor(a, s.shape({s.n, s.n}), a.dtype);
  if (s.count() > 0 && s.n > 0) {
    TensorRef info = info_tensor(a, s);
    run_linalg(TSR_OP_INV, s, a, nullptr, *x, {info.get()}, {});
    check_info(*info, s, fn, [](int32_t k) {
      return "The diagonal element " + std::to_string(k) +
             " is zero, the inversion could not be completed because the input matrix is singular.";
    });
  }
  if (records) autograd::record_linalg_inv(a, *x);
  return x;
}

void linalg_slogdet(const tsr_tensor& a, TensorRef* sign, TensorRef* logabsdet, TensorRef* det) {
  const bool records = autograd::should_record({&a});
  const autograd::GradModeGuard off(false);
  TensorRef own_sign, own_logabsdet;  // both, for slogdet's node
  if (records && det == nullptr) {
    if (sign == nullptr) sign = &own_sign;
    if (logabsdet == nullptr) logabsdet = &own_logabsdet;
  }
  slogdet_of(a, sign, logabsdet, det);
  if (!records) return;
  if (det != nullptr) autograd::record_linalg_det(a, **det);
  else autograd::record_linalg_slogdet(a, **sign, **logabsdet);
}

void slogdet_of(const tsr_tensor& a, TensorRef* sign, TensorRef* logabsdet, TensorRef* det) {
  const std::string fn = det != nullptr ? "linalg.det" : "linalg.slogdet";
  const Stack s = check_stack(a, fn, true);
  if (s.count() == 0 || s.n == 0) {  // the empty product: det 1, sign 1, log 0
    const tsr_scalar one = tsr_scalar_float(1.0), zero = tsr_scalar_float(0.0);
    if (det != nullptr) *det = full(*a.rt, static_cast<int32_t>(s.batch.size()), s.batch.data(), one, a.dtype, a.device);
    if (sign != nullptr) *sign = full(*a.rt, static_cast<int32_t>(s.batch.size()), s.batch.data(), one, a.dtype, a.device);
    if (logabsdet != nullptr)
      *logabsdet =
          full(*a.rt, static_cast<int32_t>(s.batch.size()), s.batch.data(), zero, tsr_dtype_real(a.dtype), a.device);
    return;
  }
  TensorRef lu_out, pivots, info;
  lu(a, s, lu_out, pivots, info);  // a singular a is no error: its det is 0
  TensorRef diag = diagonal_view(*lu_out);
  TensorRef perm = pivot_sign(a, *pivots, s.n);
  const int32_t last = -1;
  if (det != nullptr) *det = binary(TSR_OP_MUL, *reduce(TSR_OP_PROD, *diag, 1, &last, false), *perm);
  // SIGN of a complex u is u / |u| (0 at 0): the product is det / |det|.
  if (sign != nullptr)
    *sign = binary(TSR_OP_MUL, *reduce(TSR_OP_PROD, *math(TSR_MATH_SIGN, *diag), 1, &last, false), *perm);
  // ABS of a complex writes the real dtype, so logabsdet is real.
  if (logabsdet != nullptr)
    *logabsdet = reduce(TSR_OP_SUM, *unary(TSR_OP_LOG, *unary(TSR_OP_ABS, *diag)), 1, &last, false);
}

void linalg_qr(const tsr_tensor& a, bool complete, TensorRef* q, TensorRef* r) {
  const bool records = autograd::should_record({&a});
  const autograd::GradModeGuard off(false);
  qr_of(a, complete, q, r);
  if (records) autograd::record_linalg_qr(a, complete, **q, **r);
}

void qr_of(const tsr_tensor& a, bool complete, TensorRef* q, TensorRef* r) {
  const Stack s = check_stack(a, "linalg.qr", false);
  const int64_t k = std::min(s.m, s.n), c = complete ? s.m : k;
  *q = new_tensor(a, s.shape({s.m, c}), a.dtype);
  *r = new_tensor(a, s.shape({c, s.n}), a.dtype);
  if (s.count() == 0 || s.m == 0) return;
  if (s.n == 0) {  // r is empty; a complete q is the identity
    if (c > 0) copy_into(**q, *identity(a, s, s.m));
    return;
  }
  run_linalg(TSR_OP_QR, s, a, nullptr, **q, {r->get()}, {complete ? 1 : 0});
}

void linalg_svd(const tsr_tensor& a, bool full_matrices, TensorRef* u, TensorRef* sv, TensorRef* vh) {
  const bool records = autograd::should_record({&a});
  const autograd::GradModeGuard off(false);
  const bool values_only = u == nullptr;
  TensorRef own_u, own_vh;  // the vectors the derivative of the values needs
  if (records && values_only) {
    u = &own_u;
    vh = &own_vh;
    full_matrices = false;
  }
  svd_of(a, full_matrices, u, sv, vh);
  if (records) autograd::record_linalg_svd(a, full_matrices, **u, **sv, **vh, values_only);
}

void svd_of(const tsr_tensor& a, bool full_matrices, TensorRef* u, TensorRef* sv, TensorRef* vh) {
  const std::string fn = "linalg.svd";
  const Stack s = check_stack(a, fn, false);
  const bool vectors = u != nullptr;
  const int64_t k = std::min(s.m, s.n);
  *sv = new_tensor(a, s.shape({k}), tsr_dtype_real(a.dtype));
  if (vectors) {
    *u = new_tensor(a, s.shape({s.m, full_matrices ? s.m : k}), a.dtype);
    *vh = new_tensor(a, s.shape({full_matrices ? s.n : k, s.n}), a.dtype);
  }
  if (s.count() == 0) return;
  if (k == 0) {  // no singular value; full bases are the identities
    if (vectors && full_matrices) {
      if (s.m > 0) copy_into(**u, *identity(a, s, s.m));
      if (s.n > 0) copy_into(**vh, *identity(a, s, s.n));
    }
    return;
  }
  // LAPACK's gesdd refuses a NaN as a bad argument (an infinity becomes one
  // when gesdd scales the matrix into range), and reports it through
  // xerbla: torch's error instead, before the kernel, from elementwise ops
  // on the device: x - x is NaN exactly where x is not finite, and NaN is
  // the one value unequal to itself.
  const int32_t matrix_dims[2] = {-2, -1};
  TensorRef diff = binary(TSR_OP_SUB, a, a);
  TensorRef nans = reduce(TSR_OP_SUM, *binary(TSR_OP_NE, *diff, *diff), 2, matrix_dims, false);
  check_info(*to(nans, TSR_INT32, a.device), s, fn, [](int32_t) {
    return std::string("The algorithm failed to converge because the input matrix contained non-finite values.");
  });
  TensorRef info = info_tensor(a, s);
  if (vectors) run_linalg(TSR_OP_SVD, s, a, nullptr, **sv, {u->get(), vh->get(), info.get()}, {1, full_matrices ? 1 : 0});
  else run_linalg(TSR_OP_SVD, s, a, nullptr, **sv, {info.get()}, {0, 0});
  check_info(*info, s, fn, [](int32_t k) {
    return "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated "
           "singular values (error code: " + std::to_string(k) + ").";
  });
}

void linalg_eigh(const tsr_tensor& a, TensorRef* w, TensorRef* v) {
  const bool records = autograd::should_record({&a});
  const autograd::GradModeGuard off(false);
  const bool values_only = v == nullptr;
  TensorRef own_v;  // the vectors the derivative of the values needs
  if (records && values_only) v = &own_v;
  eigh_of(a, w, v);
  if (records) autograd::record_linalg_eigh(a, **w, **v, values_only);
}

void eigh_of(const tsr_tensor& a, TensorRef* w, TensorRef* v) {
  const std::string fn = "linalg.eigh";
  const Stack s = check_stack(a, fn, true);
  *w = new_tensor(a, s.shape({s.n}), tsr_dtype_real(a.dtype));
  if (v != nullptr) *v = new_tensor(a, s.shape({s.n, s.n}), a.dtype);
  if (s.count() == 0 || s.n == 0) return;
  TensorRef info = info_tensor(a, s);
  if (v != nullptr) run_linalg(TSR_OP_EIGH, s, a, nullptr, **w, {v->get(), info.get()}, {1});
  else run_linalg(TSR_OP_EIGH, s, a, nullptr, **w, {info.get()}, {0});
  check_info(*info, s, fn, [](int32_t k) {
    return "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated "
           "eigenvalues (error code: " + std::to_string(k) + ").";
  });
}

// torch.linalg.eig and eigvals: LINALG's EIG (geev). Its results are
// complex, which Tessera does not differentiate (Note [Complex tensors and
// autograd]): a real a that requires grad gives results recording
// NotImplementedBackward.
void linalg_eig(const tsr_tensor& a, TensorRef* w, TensorRef* v) {
  const bool vectors = v != nullptr;
  const std::string fn = vectors ? "linalg.eig" : "linalg.eigvals";
  const Stack s = check_stack(a, fn, true);
  const autograd::NoFormulaYet record(vectors ? "linalg_eig" : "linalg_eigvals", a);
  const int32_t complex = tsr_dtype_complex(a.dtype);
  *w = new_tensor(a, s.shape({s.n}), complex);
  if (vectors) *v = new_tensor(a, s.shape({s.n, s.n}), complex);
  if (s.count() > 0 && s.n > 0) {
    // torch.linalg.eig refuses infinities and NaNs (LAPACK's balancing and
    // QR iteration do not make sense of them); so does eigvals here, where
    // torch's returns NaN: no function returns NaN in place of an error.
    // Found as svd finds them (x - x is NaN exactly where x is not finite).
    const int32_t matrix_dims[2] = {-2, -1};
    TensorRef diff = binary(TSR_OP_SUB, a, a);
    TensorRef bad = reduce(TSR_OP_SUM, *binary(TSR_OP_NE, *diff, *diff), 2, matrix_dims, false);
    check_info(*to(bad, TSR_INT32, a.device), s, fn,
               [](int32_t) { return std::string("input tensor should not contain infs or NaNs."); });
    TensorRef info = info_tensor(a, s);
    if (vectors) run_linalg(TSR_OP_EIG, s, a, nullptr, **w, {v->get(), info.get()}, {1});
    else run_linalg(TSR_OP_EIG, s, a, nullptr, **w, {info.get()}, {0});
    check_info(*info, s, fn, [](int32_t k) {
      return "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated "
             "eigenvalues (error code: " + std::to_string(k) + ").";
    });
  }
  *w = record(*w);
  if (vectors) *v = record(*v);
}

}  // namespace tessera::rt

namespace tessera::rt {

TensorRef linalg_vector_norm(const tsr_tensor& x, double ord, int32_t num_dims, const int32_t* dims, bool keepdim) {
  const std::string fn = "linalg.vector_norm";
  if (!tsr_dtype_is_floating(x.dtype) && !tsr_dtype_is_complex(x.dtype))
    fail(TSR_ERR_TYPE, fn + ": Expected a floating point or complex tensor as input. Got " + torch_type_name(x.dtype));
  if (num_dims == 0) dims = nullptr;
  bool reduced[TSR_MAX_DIMS];
  reduced_dims(x.layout.ndim, num_dims, dims, reduced);
  bool reduces_empty = false;  // over a dim of size 0 (or all dims of an empty x)
  for (int32_t d = 0; d < x.layout.ndim; ++d) reduces_empty = reduces_empty || (reduced[d] && x.layout.shape[d] == 0);
  if (reduces_empty && (ord < 0 || std::isinf(ord)))
    fail(TSR_ERR_INVALID_ARGUMENT, fn + " cannot compute the " + format_order(ord) +
                                       " norm on an empty tensor because the operation does not have an identity");
  const bool records = autograd::should_record({&x});
  const autograd::GradModeGuard off(false);
  TensorRef abs = unary(TSR_OP_ABS, x);  // |z| of a complex x, in the real dtype
  TensorRef out;
  if (std::isinf(ord)) {
    out = reduce(ord > 0 ? TSR_OP_MAX : TSR_OP_MIN, *abs, num_dims, dims, keepdim);
  } else if (ord == 0) {
    out = to(reduce(TSR_OP_SUM, *binary_scalar(TSR_OP_NE, *abs, make_scalar(0.0), false), num_dims, dims, keepdim),
             abs->dtype, x.device);
  } else if (ord == 1) {
    out = reduce(TSR_OP_SUM, *abs, num_dims, dims, keepdim);
  } else if (ord == 2) {
    out = unary(TSR_OP_SQRT, *reduce(TSR_OP_SUM, *binary(TSR_OP_MUL, *abs, *abs), num_dims, dims, keepdim));
  } else {
    TensorRef powers = binary_scalar(TSR_OP_POW, *abs, make_scalar(ord), false);
    out = binary_scalar(TSR_OP_POW, *reduce(TSR_OP_SUM, *powers, num_dims, dims, keepdim), make_scalar(1.0 / ord), false);
  }
  if (records) autograd::record_vector_norm(x, ord, reduced, *out);
  return out;
}

}  // namespace tessera::rt

namespace tessera::rt {

namespace {
// The conjugate transpose of the last two dims (of a real matrix, its transpose): a view, or a conjugated copy.
TensorRef mH(const TensorRef& t) {
  TensorRef v = make_view(*t, transpose(t->layout, -2, -1));
  return tsr_dtype_is_complex(t->dtype) ? math(TSR_MATH_CONJ, *v) : v;
}
// v [..] or 0-d as a value per matrix of a stack of vectors [.., k]: [.., 1].
TensorRef per_vector(const tsr_tensor& v) { return make_view(v, unsqueeze(v.layout, v.layout.ndim)); }
}  // namespace

TensorRef linalg_pinv(const tsr_tensor& a, const tsr_tensor* atol, const tsr_tensor* rtol, bool hermitian) {
  const std::string fn = "linalg.pinv";
  const Stack s = check_stack(a, fn, false);  // hermitian: eigh checks that the matrices are square
  for (const tsr_tensor* tol : {atol, rtol})
    if (tol != nullptr) {
      check_same_device(a, *tol);
      if (tsr_dtype_is_complex(tol->dtype)) fail(TSR_ERR_TYPE, fn + ": atol and rtol must be real tensors");
    }
  const bool records = autograd::should_record({&a});
  const autograd::GradModeGuard off(false);
  const int32_t real = tsr_dtype_real(a.dtype);
  // Values (singular values, or eigenvalues) and the vectors either side.
  TensorRef values, left, right, largest;
  if (hermitian) {
    eigh_of(a, &values, &left);
    right = mH(left);
    const int64_t k = s.n;
    TensorRef abs = unary(TSR_OP_ABS, *values);
    TensorRef first = make_view(*abs, slice(abs->layout, -1, 0, std::min<int64_t>(k, 1), 1));
    TensorRef last = make_view(*abs, slice(abs->layout, -1, std::max<int64_t>(k - 1, 0), k, 1));
    largest = binary(TSR_OP_MAXIMUM, *first, *last);  // ascending: at one end
  } else {
    svd_of(a, false, &left, &values, &right);
    largest = make_view(*values, slice(values->layout, -1, 0, 1, 1));  // descending: the first
  }
  // max(atol, rtol * largest), rtol by default eps * max(m, n) (0 where a positive atol is given).
  const double eps = real == TSR_FLOAT32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
  const double default_rtol = eps * static_cast<double>(std::max(s.m, s.n));
  TensorRef r;
  if (rtol != nullptr) r = per_vector(*to(TensorRef::share(const_cast<tsr_tensor*>(rtol)), real, a.device));
  else if (atol != nullptr)
    r = binary_scalar(TSR_OP_MUL, *to(binary_scalar(TSR_OP_LE, *per_vector(*atol), make_scalar(0.0), false), real, a.device),
                      make_scalar(default_rtol), false);
  else r = full(*a.rt, 0, nullptr, make_scalar(default_rtol), real, a.device);
  TensorRef cutoff = binary(TSR_OP_MUL, *r, *largest);
  if (atol != nullptr)
    cutoff = binary(TSR_OP_MAXIMUM, *cutoff, *to(per_vector(*atol), real, a.device));
  TensorRef kept = binary(TSR_OP_GT, *unary(TSR_OP_ABS, *values), *cutoff);
  TensorRef zero = full(*a.rt, 0, nullptr, make_scalar(0.0), real, a.device);
  TensorRef inverses = where(*kept, *binary_scalar(TSR_OP_DIV, *values, make_scalar(1.0), true), *zero);
  // hermitian: (V * w_inv) V^H; else Vh^H (S_inv U^H).
  TensorRef out = hermitian
                      ? matmul(*binary(TSR_OP_MUL, *left, *make_view(*inverses, unsqueeze(inverses->layout, -2))), *right)
                      : matmul(*mH(right), *binary(TSR_OP_MUL, *per_vector(*inverses), *mH(left)));
  if (records) autograd::record_linalg_pinv(a, *out);
  return out;
}

}  // namespace tessera::rt
