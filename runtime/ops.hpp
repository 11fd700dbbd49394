// SPDX-License-Identifier: Apache-2.0
// The device-agnostic half of every op: checks, broadcasting, promotion,
// output allocation; then one kernel call through the registry (Note
// [Kernel contracts] in tessera/ops.h says what each kernel receives).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "tensor.hpp"

namespace tessera::rt {

// ---- dispatch (dispatch.cpp) ------------------------------------------------
struct KernelParams {
  std::span<const tsr_scalar> scalars{};
  std::span<const int64_t> params{};
  std::span<const tsr_tensor_desc* const> more_outputs{};  // LINALG's results after the first
};
// Calls the kernel for (op, device, key_dtype); throws a clear error when
// there is none or when it fails.
void launch(tsr_runtime& rt, tsr_device device, int32_t op, int32_t key_dtype,
            std::initializer_list<const tsr_tensor_desc*> inputs, const tsr_tensor_desc& output,
            const KernelParams& extra = {});
// Throws unless both tensors are on one device.
void check_same_device(const tsr_tensor& a, const tsr_tensor& b);
// Throws when a write to `t` would hit one element through two indexes.
void check_no_internal_overlap(const tsr_tensor& t);
// Whether a and b may reach a common element: one storage and overlapping
// spans (conservative, as NumPy's may_share_memory: interleaved views count).
bool may_share_memory(const tsr_tensor& a, const tsr_tensor& b);
// An op for messages: "exp (op 17)", or "op 99 (not an op of ABI 1.4)".
std::string op_label(int32_t op);
tsr_scalar make_scalar(double v);
tsr_scalar make_scalar_int(int64_t v);

// ---- creation (creation.cpp) ------------------------------------------------
TensorRef empty(tsr_runtime& rt, int32_t ndim, const int64_t* shape, int32_t dtype, tsr_device device);
// fill_ checks that the value fits the dtype, as PyTorch does; the scalar
// operand of arithmetic converts with wrap-around instead.
void fill(const tsr_tensor& t, tsr_scalar value);
void fill_wrapping(const tsr_tensor& t, tsr_scalar value);
TensorRef full(tsr_runtime& rt, int32_t ndim, const int64_t* shape, tsr_scalar value, int32_t dtype,
               tsr_device device);
TensorRef arange(tsr_runtime& rt, tsr_scalar start, tsr_scalar end, tsr_scalar step, int32_t dtype,
                 tsr_device device);
TensorRef linspace(tsr_runtime& rt, double start, double end, int64_t steps, int32_t dtype, tsr_device device);
TensorRef random(tsr_runtime& rt, int32_t op, int32_t ndim, const int64_t* shape, int32_t dtype,
                 tsr_device device);
TensorRef from_host(tsr_runtime& rt, const void* data, int32_t ndim, const int64_t* shape, int32_t dtype,
                    tsr_device device);
// The dtype a Python-style scalar gets on its own.
int32_t scalar_dtype(const tsr_scalar& s);

// ---- copies (copy.cpp) ------------------------------------------------------
// dst[...] = src: broadcasting, casting and crossing devices.
void copy_into(const tsr_tensor& dst, const tsr_tensor& src);
TensorRef contiguous(const TensorRef& t);
TensorRef clone(const tsr_tensor& t);
TensorRef to(const TensorRef& t, int32_t dtype, tsr_device device);
// Copies the elements in row-major order to host memory.
void read_to_host(const tsr_tensor& t, void* dst, size_t nbytes);
// The value of a one-element tensor, exact (api_host_access.cpp).
tsr_scalar read_item(const tsr_tensor& t);

// ---- elementwise (elementwise.cpp) -----------------------------------------
TensorRef binary(int32_t op, const tsr_tensor& a, const tsr_tensor& b);
TensorRef binary_scalar(int32_t op, const tsr_tensor& a, tsr_scalar b, bool reversed);
// out = a (op) b into an existing tensor; a and b broadcast to out's shape.
void binary_out(int32_t op, const tsr_tensor& a, const tsr_tensor& b, const tsr_tensor& out);
void binary_scalar_out(int32_t op, const tsr_tensor& a, tsr_scalar b, bool reversed, const tsr_tensor& out);
void binary_inplace(int32_t op, const tsr_tensor& a, const tsr_tensor& b);
void binary_scalar_inplace(int32_t op, const tsr_tensor& a, tsr_scalar b);
TensorRef unary(int32_t op, const tsr_tensor& a);
void unary_out(int32_t op, const tsr_tensor& a, const tsr_tensor& out);
void unary_inplace(int32_t op, const tsr_tensor& a);
TensorRef where(const tsr_tensor& cond, const tsr_tensor& a, const tsr_tensor& b);
// torch.clamp (ABI 1.11): min(max(x, lo), hi), either bound null; the three promote.
TensorRef clamp(const tsr_tensor& x, const tsr_tensor* lo, const tsr_tensor* hi);

// ---- indexing.cpp ---------------------------------------------------------------
// cumsum along dim; dtype TSR_DTYPE_UNDEFINED keeps t's (else t is cast first).
TensorRef cumsum(const tsr_tensor& t, int64_t dim, int32_t dtype);
// cumprod along dim, as cumsum (ABI 1.11).
TensorRef cumprod(const tsr_tensor& t, int64_t dim, int32_t dtype);
// torch.searchsorted (ABI 1.11): int64 indices of values' shape; sorter may be null.
TensorRef searchsorted(const tsr_tensor& sorted, const tsr_tensor& values, bool right, const tsr_tensor* sorter);
// torch.gather: out[i][j] = x[i][index[i][j]] along dim; indices in [-n, n).
TensorRef gather(const tsr_tensor& x, int64_t dim, const tsr_tensor& index);
// x's elements at the 0-d or 1-d `indices` along dim (take, index_select).
TensorRef take(const tsr_tensor& x, const tsr_tensor& indices, int64_t dim);
// out[..index..] = src (add: +=) along dim, in place.
void scatter_(const tsr_tensor& out, int64_t dim, const tsr_tensor& index, const tsr_tensor& src, bool add);
// The (count, ndim) int64 indices of x's nonzero elements, row-major order.
TensorRef nonzero(const tsr_tensor& x);
// Sorted values and/or the indices that sort x along dim (either may be null).
void sort(const tsr_tensor& x, int64_t dim, bool descending, bool stable, TensorRef* values, TensorRef* indices);

// ---- sets.cpp ---------------------------------------------------------------------
// The distinct values of x (sorted), the index of each one's first occurrence
// in flattened x, each element's value number (x's shape), and their counts;
// any of the four may be null.
void unique(const tsr_tensor& x, TensorRef* values, TensorRef* indices, TensorRef* inverse, TensorRef* counts);

// ---- manipulation.cpp -----------------------------------------------------------
TensorRef concat(std::span<const tsr_tensor* const> tensors, int64_t dim);
TensorRef stack(std::span<const tsr_tensor* const> tensors, int64_t dim);
// dims empty: the flattened tensor rolled by shifts[0], in x's shape.
TensorRef roll(const tsr_tensor& x, std::span<const int64_t> shifts, std::span<const int64_t> dims);
TensorRef flip(const tsr_tensor& x, std::span<const int64_t> dims);
// tril (lower) / triu of the last two dims, diagonal k.
TensorRef triangle(const tsr_tensor& x, int64_t k, bool lower);
TensorRef eye(tsr_runtime& rt, int64_t n, int64_t m, int64_t k, int32_t dtype, tsr_device device);

// ---- linalg.cpp (ABI 1.6) ------------------------------------------------------
// torch.linalg's functions; each throws torch.linalg's error (TSR_ERR_LINALG,
// naming the batch element) for a matrix its factorisation cannot take.
TensorRef linalg_cholesky(const tsr_tensor& a, bool upper);
void linalg_lu_factor(const tsr_tensor& a, TensorRef* lu, TensorRef* pivots);
TensorRef linalg_solve(const tsr_tensor& a, const tsr_tensor& b);
TensorRef linalg_inv(const tsr_tensor& a);
// det, or sign and logabsdet (any of the three may be null).
void linalg_slogdet(const tsr_tensor& a, TensorRef* sign, TensorRef* logabsdet, TensorRef* det);
void linalg_qr(const tsr_tensor& a, bool complete, TensorRef* q, TensorRef* r);
// u and vh null: the singular values alone.
void linalg_svd(const tsr_tensor& a, bool full_matrices, TensorRef* u, TensorRef* s, TensorRef* vh);
// v null: the eigenvalues alone.
void linalg_eigh(const tsr_tensor& a, TensorRef* w, TensorRef* v);
// torch.linalg.eig (ABI 1.11): complex w and V of a general a; v null: eigvals.
void linalg_eig(const tsr_tensor& a, TensorRef* w, TensorRef* v);

// torch.linalg.pinv; atol, rtol null for torch's defaults, else tolerances per matrix ([..] or 0-d).
TensorRef linalg_pinv(const tsr_tensor& a, const tsr_tensor* atol, const tsr_tensor* rtol, bool hermitian);
// The ord-norm of x over dims (num_dims 0: all): torch.linalg.vector_norm.
TensorRef linalg_vector_norm(const tsr_tensor& x, double ord, int32_t num_dims, const int32_t* dims, bool keepdim);

// ---- softmax.cpp (ABI 1.9) -------------------------------------------------------
// softmax (log: log_softmax) of floating x along dim.
TensorRef softmax(const tsr_tensor& x, int64_t dim, bool log);
// log(sum(exp(x))) over dims (num_dims 0: all), stable.
TensorRef logsumexp(const tsr_tensor& x, int32_t num_dims, const int32_t* dims, bool keepdim);

// Note [Half precision inside fused functions]
//   A function computed from several ops (the softmax family, gelu, silu,
//   softplus, layer_norm) takes a float16 or bfloat16 input in float32 and
//   rounds once at the end, as PyTorch's kernels compute such inputs in
//   float: the same chain of half-precision ops would round after each op
//   (several ulps, and layer_norm's variance worse). Their formulas do the
//   same; the engine casts a gradient to its input's dtype.
inline bool is_half(int32_t dtype) { return dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16; }
// t in float32 when it is half precision, else t itself.
inline TensorRef widened(const tsr_tensor& t) {
  TensorRef r = TensorRef::share(const_cast<tsr_tensor*>(&t));
  return is_half(t.dtype) ? to(r, TSR_FLOAT32, t.device) : r;
}
// t in `dtype` (a result computed widened, rounded once).
inline TensorRef narrowed(TensorRef t, int32_t dtype) { return t->dtype == dtype ? t : to(t, dtype, t->device); }

// ---- nn.cpp, losses.cpp (ABI 1.10): tessera/nn.h; null pointers for absent tensors ----
TensorRef linear(const tsr_tensor& x, const tsr_tensor& weight, const tsr_tensor* bias);
TensorRef layer_norm(const tsr_tensor& x, int32_t k, const tsr_tensor* weight, const tsr_tensor* bias, double eps);
TensorRef embedding(const tsr_tensor& weight, const tsr_tensor& indices, int64_t padding_idx, bool scale_grad_by_freq);
void embedding_renorm_(const tsr_tensor& weight, const tsr_tensor& indices, double max_norm, double norm_type);
TensorRef dropout(const TensorRef& x, double p, bool training);
TensorRef gelu(const tsr_tensor& x, bool approximate);
TensorRef silu(const tsr_tensor& x);
TensorRef softplus(const tsr_tensor& x, double beta, double threshold);
struct LossOptions {
  int32_t reduction = 1;  // tsr_reduction
  int64_t ignore_index = -100;
  double label_smoothing = 0;
  const tsr_tensor* weight = nullptr;
  const tsr_tensor* pos_weight = nullptr;
};
TensorRef cross_entropy(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o);
TensorRef nll_loss(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o);
TensorRef mse_loss(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o);
TensorRef l1_loss(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o);
TensorRef binary_cross_entropy(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o);
TensorRef binary_cross_entropy_with_logits(const tsr_tensor& input, const tsr_tensor& target, const LossOptions& o);

// ---- math.cpp ------------------------------------------------------------------
// MATH's function fn (enum tsr_math_fn) of a, any dtype but bool.
TensorRef math(int32_t fn, const tsr_tensor& a);
void math_out(int32_t fn, const tsr_tensor& a, const tsr_tensor& out);

// ---- fft.cpp ---------------------------------------------------------------------
// tsr_fft: the transform `o` (validated here) of x, recorded (derivatives_fft.cpp).
TensorRef fft(const tsr_tensor& x, const tsr_fft_options& o);

// ---- complex_parts.cpp ---------------------------------------------------------
// The real (imag false) or imaginary part of a complex tensor as a view of
// its storage in the real dtype; real of a real tensor is a view of it, imag
// of one an error.
TensorRef complex_part(const tsr_tensor& t, bool imag);
// t's storage read as dtype, of t's itemsize (torch's Tensor.view(dtype)).
TensorRef view_dtype(const tsr_tensor& t, int32_t dtype);

// ---- reductions and matmul (reduce.cpp, matmul.cpp) -------------------------
// SUM's, PROD's and CUMSUM's result dtype for input `dtype`.
int32_t sum_dtype(int32_t dtype);
// correction: VAR's and STD's (scalars[0] of their kernels); ignored by the others.
TensorRef reduce(int32_t op, const tsr_tensor& t, int32_t num_dims, const int32_t* dims, bool keepdim,
                 double correction = 1.0);
TensorRef matmul(const tsr_tensor& a, const tsr_tensor& b);
// Into an existing tensor of the result's shape and dtype.
void matmul_out(const tsr_tensor& a, const tsr_tensor& b, const tsr_tensor& out);

}  // namespace tessera::rt
