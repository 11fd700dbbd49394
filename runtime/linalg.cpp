// SPDX-License-Identifier: Apache-2.0
// torch.linalg's factorisations and the functions built on them (ABI 1.6).
// Checks, shapes and results are allocated here, then one LINALG kernel runs
// per call (Note [Kernel contracts], kind LINALG: the device's own, or the
// CPU fallback's LAPACK), and each matrix's `info` comes back to the host to
// become torch.linalg's error naming the batch element: the one read back,
// as torch.linalg's own error checks do. det and slogdet come from LU: U's diagonal and the pivots' parity, reduced
// on the device. Matrices with a dim of 0, and empty batches, never reach a
// kernel: their results (empty, or the identity and 1) are written here.
#include <functional>
#include <string>
#include <vector>

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

TensorRef linalg_cholesky(const tsr_tensor& a, bool upper) {
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
  if (!vector) return x;
  const std::vector<int64_t> shape = s.shape({s.n});
  return make_view(*x, view(x->layout, static_cast<int32_t>(shape.size()), shape.data()));
}

TensorRef linalg_inv(const tsr_tensor& a) {
  const std::string fn = "linalg.inv";
  const Stack s = check_stack(a, fn, true);
  TensorRef x = new_tensor(a, s.shape({s.n, s.n}), a.dtype);
  if (s.count() == 0 || s.n == 0) return x;
  TensorRef info = info_tensor(a, s);
  run_linalg(TSR_OP_INV, s, a, nullptr, *x, {info.get()}, {});
  check_info(*info, s, fn, [](int32_t k) {
    return "The diagonal element " + std::to_string(k) +
           " is zero, the inversion could not be completed because the input matrix is singular.";
  });
  return x;
}

void linalg_slogdet(const tsr_tensor& a, TensorRef* sign, TensorRef* logabsdet, TensorRef* det) {
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

}  // namespace tessera::rt
