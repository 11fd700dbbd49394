// SPDX-License-Identifier: Apache-2.0
// Note [The derivative table]
//   One Node per differentiable function, as PyTorch's derivatives.yaml has
//   one entry: its name (PyTorch's, "MulBackward0"), what it saves, and its
//   formula written with the runtime's own functions, so it runs on the
//   tensors' device. A formula returns the gradient of each input at the
//   shape of the op's output; the engine sums it to the input's shape and
//   dtype (Note [Autograd]). The table is this file and, for linear
//   algebra, derivatives_linalg.cpp (Note [Linear algebra formulas]), and
//   for the Fourier transforms derivatives_fft.cpp (Note [The adjoint of a
//   Fourier transform]). A node whose formula follows PyTorch's convention
//   for complex tensors says so (Node::handles_complex; Note [Complex
//   tensors and autograd]).
//   Adding a function:
//     1. its Node here (or there): the name, what it saves, apply();
//     2. a record_* (derivatives.hpp) that makes it, called by the function
//        after computing its result (with grad mode off when the function
//        is itself built from recorded ops, as linalg.cpp's are);
//     3. its row: op_gradient() in derivatives.hpp for an op (Note [Every
//        op has a gradient or a reason]), public_gradients.hpp for a public
//        function (Note [Every public function has a gradient or a reason]);
//        the build fails until both are given;
//     4. a line in tests/python/test_autograd_vs_torch.py (or
//        test_autograd_linalg_vs_torch.py): first and second derivatives
//        against torch, on three devices.
//   A result of an op with no formula gets NotImplementedBackward, whose
//   backward fails naming the op, so no gradient is ever dropped in
//   silence. Results that are not floating (comparisons, argmax, integer
//   ops) record nothing: they have no gradient.
//   A formula saves with saving() or SavedNode<N> (Note [Saved tensors and
//   versions]) and reads a, b, out (t[i]) while it runs; what only one
//   input's gradient reads is saved only when that input requires grad
//   (Note [Saving only what a gradient reads]). It is written
//   with recorded functions only (formula_ops.hpp; view_of for views, never
//   make_view on a gradient), so that under create_graph its own graph is
//   recorded and a second derivative needs no entry of its own. Every view
//   but expand and as_strided has one formula, ViewBackward: the gradient
//   scattered through the view op applied to a row-major layout of the
//   input's shape (the C API passes the op, not the result's layout, to
//   view_of), which holds for views of expanded tensors too.
#include "derivatives.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include "error.hpp"
#include "formula_ops.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt::autograd {

// Note [Saving only what a gradient reads]
//   A node saves a tensor that only one input's gradient reads (mul's and
//   matmul's other operand, div's and pow's output) only when that input
//   requires grad, as PyTorch's generated code does (should_compute_output),
//   and its formula reads it only under next[i].node. A graph then keeps no
//   tensor it will never read: x @ W with a constant x keeps x and not W,
//   and a gradient built under create_graph does not hold on to a tensor
//   whose retained .grad it becomes. Otherwise y.retain_grad() with
//   z = y * y and tsr_grad(create_graph) gives y.grad a MulBackward0 that
//   saves y itself, a cycle (y -> .grad -> node -> y) that nothing frees.

namespace {

using namespace formula;

// 1 / sqrt(t)
TensorRef rsqrt(const TensorRef& t) { return binary_scalar(TSR_OP_DIV, *unary(TSR_OP_SQRT, *t), make_scalar(1.0), true); }
// A comparison's mask as 0 and 1 in `dtype`.
TensorRef mask(int32_t cmp, const TensorRef& a, const TensorRef& b, int32_t dtype) {
  return to(binary(cmp, *a, *b), dtype, a->device);
}
// sign(t) of a real t; t / |t| (0 at 0) of a complex one, torch's sgn.
TensorRef sgn(const TensorRef& t) {
  if (!tsr_dtype_is_complex(t->dtype)) return math(TSR_MATH_SIGN, *t);
  TensorRef magnitude = unary(TSR_OP_ABS, *t);
  return zero_where(binary(TSR_OP_EQ, *magnitude, *scalar_like(magnitude, 0.0)), div(t, magnitude));
}
// The tensors a formula reads (Note [Saved tensors and versions]):
// a, b and out hold them while apply runs.
struct Saved : SavedNode<3> {
  TensorRef& a = t[0];  // the first input, the second, the output
  TensorRef& b = t[1];
  TensorRef& out = t[2];
};
// n with the named tensors saved (null: not needed by its formula).
template <class N>
std::shared_ptr<Node> saving(std::shared_ptr<N> n, const tsr_tensor* a, const tsr_tensor* b, const tsr_tensor* out) {
  if (a != nullptr) n->saved[0].save(*a, false);
  if (b != nullptr) n->saved[1].save(*b, false);
  if (out != nullptr) n->saved[2].save(*out, true);
  return n;
}

struct NotImplementedBackward final : Node {
  std::string what;  // the function, as the message names it
  explicit NotImplementedBackward(int32_t op) : what(tsr_op_name(op)) {}
  explicit NotImplementedBackward(std::string w) : what(std::move(w)) {}
  const char* name() const override { return "NotImplemented"; }
  bool handles_complex() const override { return true; }  // it fails with its own message
  std::vector<TensorRef> apply(const TensorRef&) override {
    fail(TSR_ERR_UNSUPPORTED, "derivative for aten::" + what + " is not implemented");
  }
};

// ---- binary ------------------------------------------------------------------

struct AddBackward0 final : Node {
  const char* name() const override { return "AddBackward0"; }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef& g) override { return {g, g}; }
};
struct SubBackward0 final : Node {
  const char* name() const override { return "SubBackward0"; }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef& g) override { return {g, neg(g)}; }
};
// Complex operands take conjugates (Note [Complex tensors and autograd]).
struct MulBackward0 final : Saved {
  const char* name() const override { return "MulBackward0"; }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    return {next[0].node ? mul(g, conj(b)) : TensorRef{}, next[1].node ? mul(g, conj(a)) : TensorRef{}};
  }
};
struct DivBackward0 final : Saved {  // d(a/b)/db = -out / b
  const char* name() const override { return "DivBackward0"; }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    TensorRef cb = next[0].node || next[1].node ? conj(b) : TensorRef{};
    TensorRef ga = next[0].node ? div(g, cb) : TensorRef{};
    TensorRef gb = next[1].node ? neg(div(mul(g, conj(out)), cb)) : TensorRef{};
    return {ga, gb};
  }
};

// maximum / minimum: the gradient to the larger (smaller) operand, halves
// on a tie (PyTorch 1.13).
struct ExtremumBackward final : Saved {
  bool max;
  explicit ExtremumBackward(bool max_) : max(max_) {}
  const char* name() const override { return max ? "MaximumBackward0" : "MinimumBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const int32_t dt = g->dtype;
    TensorRef tie = mul_scalar(mask(TSR_OP_EQ, a, b, dt), make_scalar(0.5));
    TensorRef wa = binary(TSR_OP_ADD, *mask(max ? TSR_OP_GT : TSR_OP_LT, a, b, dt), *tie);
    TensorRef wb = binary(TSR_OP_ADD, *mask(max ? TSR_OP_LT : TSR_OP_GT, a, b, dt), *tie);
    return {next[0].node ? mul(g, wa) : TensorRef{}, next[1].node ? mul(g, wb) : TensorRef{}};
  }
};

// a ** b: b * a^(b - 1) for a, out * log(a) for b, that one 0 where a == 0
// and b >= 0 (PyTorch's pow_backward_exponent).
struct PowBackward1 final : Saved {
  const char* name() const override { return "PowBackward1"; }
  bool handles_complex() const override { return true; }  // conjugate derivatives; b's real part decides b >= 0
  std::vector<TensorRef> apply(const TensorRef& g) override {
    TensorRef ga, gb;
    if (next[0].node) {
      TensorRef bm1 = binary_scalar(TSR_OP_SUB, *b, make_scalar(1.0), false);
      ga = mul(g, conj(mul(b, binary(TSR_OP_POW, *a, *bm1))));
    }
    if (next[1].node) {
      TensorRef zero = full(*a->rt, 0, nullptr, make_scalar(0.0), a->dtype, a->device);
      TensorRef b_real = tsr_dtype_is_complex(b->dtype) ? complex_part(*b, false) : b;
      TensorRef at_zero = binary(TSR_OP_BITWISE_AND, *binary(TSR_OP_EQ, *a, *zero),
                                 *binary(TSR_OP_GE, *b_real, *scalar_like(b_real, 0.0)));
      gb = zero_where(at_zero, mul(g, conj(mul(out, unary(TSR_OP_LOG, *a)))));
    }
    return {ga, gb};
  }
};

// One tensor operand and a Python-number one, named as PyTorch 1.13 names
// the node it makes (s / a is its reciprocal times s there).
struct ScalarOpBackward final : Saved {
  int32_t op;
  tsr_scalar s;
  bool reversed;
  const char* name() const override {
    switch (op) {
      case TSR_OP_ADD: return "AddBackward0";
      case TSR_OP_SUB: return reversed ? "RsubBackward1" : "SubBackward0";
      case TSR_OP_MUL: return "MulBackward0";
      case TSR_OP_POW: return reversed ? "PowBackward1" : "PowBackward0";
      default: return reversed ? "MulBackward0" : "DivBackward0";
    }
  }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    switch (op) {
      case TSR_OP_ADD: return {g};
      case TSR_OP_SUB: return {reversed ? neg(g) : g};
      case TSR_OP_MUL: return {mul_scalar(g, conj(s))};
      case TSR_OP_POW: {  // a ** s: s * a^(s - 1); s ** a: out * log(s); conjugated for complex values
        const std::complex<double> v(s.kind == TSR_SCALAR_INT ? static_cast<double>(s.i) : s.f, tsr_scalar_imag(s));
        auto scalar = [](std::complex<double> c) {
          return c.imag() == 0 ? make_scalar(c.real()) : tsr_scalar_complex(c.real(), c.imag());
        };
        if (reversed) {  // a real result keeps the real log (NaN for a negative s, as PyTorch's)
          const tsr_scalar log_s = tsr_dtype_is_complex(out->dtype) ? scalar(std::log(v)) : make_scalar(std::log(v.real()));
          return {mul(g, conj(mul_scalar(out, log_s)))};
        }
        return {mul(g, conj(mul_scalar(binary_scalar(TSR_OP_POW, *a, scalar(v - 1.0), false), s)))};
      }
      default:  // DIV: a / s, or s / a with gradient -out / a
        return {reversed ? neg(div(mul(g, conj(out)), conj(a))) : div_scalar(g, conj(s))};
    }
  }
};

// ---- unary --------------------------------------------------------------------

struct UnaryBackward final : Saved {
  int32_t op;
  const char* name() const override {
    switch (op) {
      case TSR_OP_NEG: return "NegBackward0";
      case TSR_OP_EXP: return "ExpBackward0";
      case TSR_OP_LOG: return "LogBackward0";
      case TSR_OP_SQRT: return "SqrtBackward0";
      case TSR_OP_ABS: return "AbsBackward0";
      case TSR_OP_RELU: return "ReluBackward0";
      case TSR_OP_SIGMOID: return "SigmoidBackward0";
      default: return "TanhBackward0";
    }
  }
  bool handles_complex() const override { return op != TSR_OP_RELU; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    // Complex inputs: g times the conjugate derivative (Note [Complex tensors and autograd]).
    switch (op) {
      case TSR_OP_NEG: return {neg(g)};
      case TSR_OP_EXP: return {mul(g, conj(out))};
      case TSR_OP_LOG: return {div(g, conj(a))};
      case TSR_OP_SQRT: return {div(g, mul_scalar(conj(out), make_scalar(2.0)))};  // inf at 0, as PyTorch
      case TSR_OP_ABS: return {mul(g, sgn(a))};  // a / |a| for a complex a, 0 at 0
      case TSR_OP_RELU: {                                                    // 0 where a <= 0
        TensorRef zero = full(*a->rt, 0, nullptr, make_scalar(0.0), a->dtype, a->device);
        return {zero_where(binary(TSR_OP_LE, *a, *zero), g)};
      }
      case TSR_OP_SIGMOID:  // g * out * (1 - out)
        return {mul(g, conj(mul(out, binary_scalar(TSR_OP_SUB, *out, make_scalar(1.0), true))))};
      default:  // TANH: g * (1 - out^2)
        return {mul(g, conj(binary_scalar(TSR_OP_SUB, *mul(out, out), make_scalar(1.0), true)))};
    }
  }
};

// The MATH functions (tsr_math): a's derivative times g; the rounding
// functions and sign give zeros, as PyTorch's.
struct MathBackward final : Saved {
  int32_t fn;
  const char* name() const override {
    static constexpr const char* kNames[] = {
        "SinBackward0",   "CosBackward0",   "TanBackward0",   "AsinBackward0",  "AcosBackward0",  "AtanBackward0",
        "SinhBackward0",  "CoshBackward0",  "AsinhBackward0", "AcoshBackward0", "AtanhBackward0", "Expm1Backward0",
        "Log1pBackward0", "Log2Backward0",  "Log10Backward0", "FloorBackward0", "CeilBackward0",  "TruncBackward0",
        "RoundBackward0", "SignBackward0"};
    static_assert(sizeof(kNames) / sizeof(kNames[0]) == TSR_MATH_CONJ, "one name per real MATH function");
    static_assert(TSR_MATH_FN_COUNT == TSR_MATH_ERF + 1, "a new MATH function: name it here");
    if (fn == TSR_MATH_ERF) return "ErfBackward0";
    return fn >= 0 && fn < TSR_MATH_CONJ ? kNames[fn] : "ConjBackward0";
  }
  // Complex inputs: g times the conjugate derivative (Note [Complex tensors and autograd]).
  bool handles_complex() const override { return fn <= TSR_MATH_LOG10 || fn == TSR_MATH_CONJ; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    auto one_minus_sq = [&] { return binary_scalar(TSR_OP_SUB, *mul(a, a), make_scalar(1.0), true); };
    auto times = [&](const TensorRef& d) { return mul(g, conj(d)); };
    auto over = [&](const TensorRef& d) { return div(g, conj(d)); };
    switch (fn) {
      case TSR_MATH_CONJ: return {conj(g)};
      case TSR_MATH_SIN: return {times(math(TSR_MATH_COS, *a))};
      case TSR_MATH_COS: return {neg(times(math(TSR_MATH_SIN, *a)))};
      case TSR_MATH_TAN: return {times(binary_scalar(TSR_OP_ADD, *mul(out, out), make_scalar(1.0), false))};
      case TSR_MATH_ASIN: return {times(rsqrt(one_minus_sq()))};
      case TSR_MATH_ACOS: return {neg(times(rsqrt(one_minus_sq())))};
      case TSR_MATH_ATAN: return {over(binary_scalar(TSR_OP_ADD, *mul(a, a), make_scalar(1.0), false))};
      case TSR_MATH_SINH: return {times(math(TSR_MATH_COSH, *a))};
      case TSR_MATH_COSH: return {times(math(TSR_MATH_SINH, *a))};
      case TSR_MATH_ASINH: return {times(rsqrt(binary_scalar(TSR_OP_ADD, *mul(a, a), make_scalar(1.0), false)))};
      case TSR_MATH_ACOSH:
        // 1 / sqrt(a^2 - 1) is the derivative on the real line (PyTorch 1.13's formula), but off it
        // only up to sign: a complex a takes 1 / (sqrt(a - 1) sqrt(a + 1)), the principal branch's.
        if (tsr_dtype_is_complex(a->dtype))
          return {times(mul(rsqrt(binary_scalar(TSR_OP_SUB, *a, make_scalar(1.0), false)),
                            rsqrt(binary_scalar(TSR_OP_ADD, *a, make_scalar(1.0), false))))};
        return {times(rsqrt(binary_scalar(TSR_OP_SUB, *mul(a, a), make_scalar(1.0), false)))};
      case TSR_MATH_ATANH: return {over(one_minus_sq())};
      case TSR_MATH_EXPM1: return {times(binary_scalar(TSR_OP_ADD, *out, make_scalar(1.0), false))};
      case TSR_MATH_LOG1P: return {over(binary_scalar(TSR_OP_ADD, *a, make_scalar(1.0), false))};
      case TSR_MATH_LOG2: return {over(mul_scalar(a, make_scalar(std::log(2.0))))};
      case TSR_MATH_LOG10: return {over(mul_scalar(a, make_scalar(std::log(10.0))))};
      case TSR_MATH_ERF:  // g 2/sqrt(pi) exp(-a^2)
        return {mul(g, mul_scalar(unary(TSR_OP_EXP, *neg(mul(a, a))), 1.1283791670955125738961589031215452))};
      default: return {zeros_like(g)};  // floor, ceil, trunc, round, sign
    }
  }
  // What the formula reads: a (most), out (tan, expm1), nothing (the zeros).
  static bool reads_input(int32_t fn) {
    return (fn != TSR_MATH_TAN && fn != TSR_MATH_EXPM1 && fn < TSR_MATH_FLOOR) || fn == TSR_MATH_ERF;
  }
  static bool reads_output(int32_t fn) { return fn == TSR_MATH_TAN || fn == TSR_MATH_EXPM1; }
};

// atan2(a, b), logaddexp(a, b), remainder(a, b) (a - floor(a / b) * b).
struct BinaryMoreBackward final : Saved {
  int32_t op;
  const char* name() const override {
    return op == TSR_OP_ATAN2 ? "Atan2Backward0" : op == TSR_OP_LOGADDEXP ? "LogaddexpBackward0" : "RemainderBackward1";
  }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    TensorRef ga, gb;
    if (op == TSR_OP_ATAN2) {
      TensorRef r2 = add(mul(a, a), mul(b, b));
      if (next[0].node) ga = div(mul(g, b), r2);
      if (next[1].node) gb = neg(div(mul(g, a), r2));
    } else if (op == TSR_OP_LOGADDEXP) {  // g * sigmoid(a - b), g * sigmoid(b - a)
      if (next[0].node) ga = mul(g, unary(TSR_OP_SIGMOID, *sub(a, b)));
      if (next[1].node) gb = mul(g, unary(TSR_OP_SIGMOID, *sub(b, a)));
    } else {
      if (next[0].node) ga = g;
      if (next[1].node) gb = neg(mul(g, binary(TSR_OP_FLOOR_DIVIDE, *a, *b)));
    }
    return {ga, gb};
  }
};

// where(cond, a, b): the gradient to a where cond holds, to b elsewhere;
// `a` holds the saved condition.
struct WhereBackward final : Saved {
  const char* name() const override { return "WhereBackward0"; }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    TensorRef zero = full(*g->rt, 0, nullptr, make_scalar(0.0), g->dtype, g->device);
    return {next[0].node ? where(*a, *g, *zero) : TensorRef{}, next[1].node ? where(*a, *zero, *g) : TensorRef{}};
  }
};

// ---- reductions ----------------------------------------------------------------

// g, the gradient of a reduction's result, as its input's shape: the
// reduced dims back as 1s, then expanded (recorded views).
TensorRef spread(const TensorRef& g, const InputMeta& in, const std::array<bool, TSR_MAX_DIMS>& reduced) {
  int64_t keep[TSR_MAX_DIMS];
  for (int32_t d = 0; d < in.ndim; ++d) keep[d] = reduced[static_cast<size_t>(d)] ? 1 : in.shape[static_cast<size_t>(d)];
  TensorRef k = view_of(*g, [&](const Layout& l) { return view(l, in.ndim, keep); }, "ViewBackward0");
  return view_of(*k, [&](const Layout& l) { return expand(l, in.ndim, in.shape.data()); }, "ExpandBackward0",
                 ViewKind::kExpand);
}

// Which dims a reduction reduced, and how many elements each result has.
struct Reduction {
  std::array<bool, TSR_MAX_DIMS> reduced{};
  bool all = true;
  bool dims_given = false;  // the dims were named (sum(dim)), which PyTorch's node names tell apart
  int64_t count = 1;
  int32_t dims[TSR_MAX_DIMS] = {};
  int32_t num_dims = 0;
  Reduction() = default;
  Reduction(const tsr_tensor& a, const bool* r) {
    for (int32_t d = 0; d < a.layout.ndim; ++d) {
      reduced[static_cast<size_t>(d)] = r[d];
      all = all && r[d];
      if (r[d]) {
        count *= a.layout.shape[static_cast<size_t>(d)];
        dims[num_dims++] = d;
      }
    }
  }
  // t reduced by op over the same dims, kept as 1s (nothing reduced: t).
  TensorRef keep(int32_t op, const TensorRef& t) const {
    return num_dims == 0 ? t : reduce(op, *t, num_dims, dims, true, 0);
  }
};

// SUM and MEAN: the gradient spread back over the reduced dims, MEAN's
// divided by the count.
struct SumBackward final : Node {
  bool mean = false;
  Reduction r;
  const char* name() const override {
    return mean ? (r.dims_given ? "MeanBackward1" : "MeanBackward0") : (r.dims_given ? "SumBackward1" : "SumBackward0");
  }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    TensorRef s = spread(g, inputs[0], r.reduced);
    return {mean ? div_scalar(s, make_scalar(static_cast<double>(r.count))) : s};
  }
};

// PROD (zeros included), MAX and MIN (as amax / amin: ties share the
// gradient evenly, as PyTorch's max() of all elements and amax do), VAR and
// STD with their correction; a is the input, out the result.
struct ReduceBackward final : Saved {
  int32_t op;
  double correction = 0;
  Reduction r;
  bool handles_complex() const override { return op == TSR_OP_PROD; }  // the conjugate product of the others
  const char* name() const override {
    switch (op) {
      case TSR_OP_PROD: return r.dims_given ? "ProdBackward1" : "ProdBackward0";
      case TSR_OP_MAX: return r.dims_given ? "AmaxBackward0" : "MaxBackward1";
      case TSR_OP_MIN: return r.dims_given ? "AminBackward0" : "MinBackward1";
      case TSR_OP_VAR: return "VarBackward0";
      default: return "StdBackward0";
    }
  }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const InputMeta& in = inputs[0];
    TensorRef G = spread(g, in, r.reduced);
    const int32_t dt = a->dtype;
    switch (op) {
      case TSR_OP_MAX:
      case TSR_OP_MIN: {
        TensorRef hit = to(binary(TSR_OP_EQ, *a, *spread(out, in, r.reduced)), dt, a->device);
        return {mul(G, div(hit, r.keep(TSR_OP_SUM, hit)))};
      }
      case TSR_OP_VAR:
      case TSR_OP_STD: {
        // PyTorch 1.13's var_backward and std_backward: std's gradient is
        // var's of g / (2 std), 0 where std is 0; over all elements with no
        // degree of freedom left it is inf * g.
        if (op == TSR_OP_STD) {
          TensorRef O = spread(out, in, r.reduced);
          G = zero_where(binary(TSR_OP_EQ, *O, *scalar_like(O, 0.0)), div(G, mul_scalar(O, make_scalar(2.0))));
        }
        const double dof = static_cast<double>(r.count) - correction;
        if (r.all && dof == 0) return {mul_scalar(G, make_scalar(std::numeric_limits<double>::infinity()))};
        return {mul(mul_scalar(G, make_scalar(2.0 / dof)), sub(a, r.keep(TSR_OP_MEAN, a)))};
      }
      default: {  // PROD: the product of the other elements, at a zero too
        TensorRef zero = scalar_like(a, 0.0), one = scalar_like(a, 1.0);
        TensorRef is_zero = binary(TSR_OP_EQ, *a, *zero);
        TensorRef zeros = r.keep(TSR_OP_SUM, to(is_zero, dt, a->device));
        TensorRef nonzero_a = where(*is_zero, *one, *a);
        TensorRef others = r.keep(TSR_OP_PROD, nonzero_a);  // the product of the nonzero elements
        TensorRef at_zero = where(*binary(TSR_OP_EQ, *zeros, *one), *others, *zero);
        TensorRef elsewhere = where(*binary(TSR_OP_EQ, *zeros, *zero), *div(others, nonzero_a), *zero);
        return {mul(G, conj(where(*is_zero, *at_zero, *elsewhere)))};
      }
    }
  }
};

// softmax and log_softmax along dim, fused (PyTorch's
// _softmax_backward_data): out (g - sum(g out)), and g - exp(out) sum(g).
struct SoftmaxBackward final : Saved {
  int32_t dim = 0;
  bool log = false;
  const char* name() const override { return log ? "LogSoftmaxBackward0" : "SoftmaxBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const TensorRef s = reduce(TSR_OP_SUM, *(log ? g : mul(g, out)), 1, &dim, true);
    return {log ? sub(g, mul(unary(TSR_OP_EXP, *out), s)) : mul(out, sub(g, s))};
  }
};

// logsumexp over the reduced dims: g exp(x - out), both spread back.
struct LogsumexpBackward final : Saved {
  std::array<bool, TSR_MAX_DIMS> reduced{};
  const char* name() const override { return "LogsumexpBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const InputMeta& in = inputs[0];
    return {mul(spread(g, in, reduced), unary(TSR_OP_EXP, *sub(a, spread(out, in, reduced))))};
  }
};

// vector_norm of order p (PyTorch 1.13's norm_backward, spread back over
// the reduced dims): p = 0 no gradient; 1: sign(x) g; 2: g x / norm, 0
// where the norm is; +-inf: g shared among the elements of |x| equal to
// the norm (or NaN); other p: g sign(x) |x|^(p-1) / norm^(p-1), written
// so that zeros give 0 rather than NaN as PyTorch's does.
struct NormBackward final : Saved {
  double p = 2;
  Reduction r;
  const char* name() const override { return "LinalgVectorNormBackward0"; }
  bool handles_complex() const override { return true; }  // sgn(a) for sign(a): |a|'s derivative
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const InputMeta& in = inputs[0];
    const TensorRef G = spread(g, in, r.reduced), N = spread(out, in, r.reduced);
    if (p == 0) return {zeros_like(a)};
    const TensorRef sign = sgn(a);
    if (p == 1) return {mul(sign, G)};
    const TensorRef norm_is_zero = binary(TSR_OP_EQ, *N, *scalar_like(N, 0.0));
    if (p == 2) return {mul(G, zero_where(norm_is_zero, div(a, N)))};
    const TensorRef abs = unary(TSR_OP_ABS, *a);
    if (std::isinf(p)) {
      const TensorRef hit = to(binary(TSR_OP_BITWISE_OR, *binary(TSR_OP_EQ, *abs, *N), *binary(TSR_OP_NE, *abs, *abs)),
                               a->dtype, a->device);
      return {mul(sign, mul(div(G, r.keep(TSR_OP_SUM, hit)), hit))};
    }
    const auto power = [](const TensorRef& t, double e) { return binary_scalar(TSR_OP_POW, *t, make_scalar(e), false); };
    if (p < 1) {
      const TensorRef scaled = mul(sign, zero_where(binary(TSR_OP_EQ, *a, *scalar_like(a, 0.0)), power(abs, p - 1)));
      return {mul(mul(scaled, G), power(N, 1 - p))};
    }
    const TensorRef scaled = p < 2 ? mul(sign, power(abs, p - 1)) : mul(a, power(abs, p - 2));
    return {mul(scaled, zero_where(norm_is_zero, div(G, power(N, p - 1))))};
  }
};

// cumsum along dim: the reversed cumulative sum of g.
struct CumsumBackward final : Node {
  int64_t dim;
  const char* name() const override { return "CumsumBackward0"; }
  bool handles_complex() const override { return true; }  // linear
  std::vector<TensorRef> apply(const TensorRef& g) override {
    if (g->layout.ndim == 0) return {g};
    const int64_t dims[1] = {dim};
    return {flip(*cumsum(*flip(*g, dims), dim, TSR_DTYPE_UNDEFINED), dims)};
  }
};

// cumprod(x, dim), as torch 1.13's cumprod_backward: a line's gradient at k
// is the sum over j >= k of g[j] * out[j] / x[k], which holds before the
// line's first zero z; at z, x[z] is left out of the products instead
// (cumprod with it replaced by 1); after z, out[j] does not depend on x[k].
// Sums over j >= k are cumsums of the flipped line.
struct CumprodBackward final : Saved {
  int64_t dim;
  const char* name() const override { return "CumprodBackward0"; }
  bool handles_complex() const override { return true; }  // products conjugated
  std::vector<TensorRef> apply(const TensorRef& g) override {
    using namespace formula;
    if (g->layout.ndim == 0) return {g};
    const int64_t dims[1] = {dim};
    auto tail_sums = [&](const TensorRef& v) { return flip(*cumsum(*flip(*v, dims), dim, TSR_DTYPE_UNDEFINED), dims); };
    const TensorRef zero = binary(TSR_OP_EQ, *a, *scalar_like(a, 0.0));
    const TensorRef zeros_so_far = cumsum(*zero, dim, TSR_INT64);
    const TensorRef before = binary(TSR_OP_EQ, *zeros_so_far, *full(*a->rt, 0, nullptr, make_scalar_int(0), TSR_INT64,
                                                                     a->device));
    const TensorRef first = binary(TSR_OP_BITWISE_AND, *zero,
                                   *binary(TSR_OP_EQ, *zeros_so_far,
                                           *full(*a->rt, 0, nullptr, make_scalar_int(1), TSR_INT64, a->device)));
    const TensorRef one = scalar_like(a, 1.0);
    const TensorRef early = div(tail_sums(mul(g, conj(out))), conj(where(*before, *a, *one)));
    const TensorRef at_zero = tail_sums(mul(g, conj(cumprod(*where(*first, *one, *a), dim, TSR_DTYPE_UNDEFINED))));
    return {where(*before, *early, *where(*first, *at_zero, *scalar_like(g, 0.0)))};
  }
};

// Zeros of `shape` with src added at index along dim, recorded: its
// derivative is the gather of g, whose own derivative is this again.
TensorRef scatter_add_zeros(const InputMeta& shape, int64_t dim, const TensorRef& index, const TensorRef& src);

// gather(x, dim, index): g added back at index (duplicates add up); take
// and flip are gathers, and sort's values the gather of its indices
// (named SortBackward0 there).
struct GatherBackward final : Node {
  int64_t dim;
  TensorRef index;
  const char* name_ = "GatherBackward0";
  const char* name() const override { return name_; }
  bool handles_complex() const override { return true; }  // linear
  std::vector<TensorRef> apply(const TensorRef& g) override { return {scatter_add_zeros(inputs[0], dim, index, g)}; }
};
struct ScatterAddBackward final : Node {
  int64_t dim;
  TensorRef index;
  const char* name() const override { return "ScatterAddBackward0"; }
  bool handles_complex() const override { return true; }  // linear
  std::vector<TensorRef> apply(const TensorRef& g) override { return {gather(*g, dim, *index)}; }
};

TensorRef scatter_add_zeros(const InputMeta& shape, int64_t dim, const TensorRef& index, const TensorRef& src) {
  TensorRef z = full(*src->rt, shape.ndim, shape.shape.data(), make_scalar(0.0), src->dtype, src->device);
  scatter_(*z, dim, *index, *src, true);
  if (should_record({src.get()})) {
    auto n = std::make_shared<ScatterAddBackward>();
    n->dim = dim;
    n->index = index;
    record(std::move(n), {src.get()}, *z);
  }
  return z;
}

// scatter_(dim, index, src) into self, recorded as if out of place:
// self's gradient is g with the written places zeroed (scatter_add_: g
// itself), src's the gather of g at index, padded with zeros where src is
// larger than index (PyTorch's formulas). Advanced-indexing writes are
// such scatters (bindings/python/tessera/_advanced.py).
struct ScatterBackward final : formula::SavedNode<1> {  // t[0]: the index
  int64_t dim = 0;
  bool add = false;
  const char* name() const override { return add ? "ScatterAddBackward0" : "ScatterBackward0"; }
  bool handles_complex() const override { return true; }  // linear in self and src
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const TensorRef& index = t[0];
    TensorRef gself, gsrc;
    if (next[0].node) {
      gself = g;
      if (!add) {
        TensorRef written = zeros_like(g);
        const TensorRef ones = full(*g->rt, index->layout.ndim, index->layout.shape.data(), make_scalar(1.0), g->dtype,
                                    g->device);
        scatter_(*written, dim, *index, *ones, false);
        gself = zero_where(binary(TSR_OP_NE, *written, *scalar_like(written, 0.0)), g);
      }
    }
    if (next[1].node) {
      gsrc = gather(*g, dim, *index);
      const InputMeta& src = inputs[1];
      for (int32_t k = 0; k < src.ndim && k < gsrc->layout.ndim; ++k) {
        const int64_t have = gsrc->layout.shape[static_cast<size_t>(k)], want = src.shape[static_cast<size_t>(k)];
        if (have >= want) continue;
        std::vector<int64_t> pad(gsrc->layout.shape.begin(), gsrc->layout.shape.begin() + gsrc->layout.ndim);
        pad[static_cast<size_t>(k)] = want - have;
        const TensorRef zeros = zeros_of(*gsrc, static_cast<int32_t>(pad.size()), pad.data());
        const tsr_tensor* parts[2] = {gsrc.get(), zeros.get()};
        gsrc = concat(parts, k);
      }
    }
    return {gself, gsrc};
  }
};

// concat along dim: each input's slice of g (stack and roll are concats).
struct CatBackward final : Node {
  int64_t dim;
  const char* name() const override { return "CatBackward0"; }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    std::vector<TensorRef> grads;
    int64_t at = 0;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const int64_t n = inputs[i].shape[static_cast<size_t>(dim)];
      if (next[i].node)
        grads.push_back(view_of(*g, [&](const Layout& l) { return slice(l, static_cast<int32_t>(dim), at, at + n, 1); },
                                "SliceBackward0"));
      else
        grads.emplace_back();
      at += n;
    }
    return grads;
  }
};

// ---- products ----------------------------------------------------------------

// a @ b: g @ b^T and a^T @ g over the last two dims (the engine sums
// broadcast batch dims). A 1-d operand takes part as a matrix of one row
// (a) or one column (b), and g gets those dims back first. Named as
// PyTorch 1.13 names the node a user sees: MmBackward0, MvBackward0,
// DotBackward0; a vector times a matrix ends in SqueezeBackward3, a
// batched product in a view of bmm's result.
struct MatmulBackward final : Saved {
  const char* name() const override {
    const int32_t na = inputs[0].ndim, nb = inputs[1].ndim;
    if (na == 1 && nb == 1) return "DotBackward0";
    if (na == 2 && nb == 1) return "MvBackward0";
    if (na == 1 && nb == 2) return "SqueezeBackward3";
    if (na == 2 && nb == 2) return "MmBackward0";
    return "UnsafeViewBackward0";
  }
  bool handles_complex() const override { return true; }  // G @ B^H and A^H @ G
  std::vector<TensorRef> apply(const TensorRef& g) override {
    // a is saved only for b's gradient and b only for a's (Note [Saving only what a gradient reads]).
    const bool row = inputs[0].ndim == 1, col = inputs[1].ndim == 1;
    TensorRef G = g;
    if (col) G = unsqueezed(G, -1);
    if (row) G = unsqueezed(G, -2);
    TensorRef ga, gb;
    if (next[0].node) {
      ga = matmul(G, mT(conj(col ? unsqueezed(b, -1) : b)));
      if (row) ga = squeezed(ga, -2);
    }
    if (next[1].node) {
      gb = matmul(mT(conj(row ? unsqueezed(a, 0) : a)), G);
      if (col) gb = squeezed(gb, -1);
    }
    return {ga, gb};
  }
};

// ---- copies and views -------------------------------------------------------

// The copies, named by the caller; the engine sums, casts and moves.
// torch.real / torch.imag (a view of the complex storage as reals; PyTorch
// makes it by view_as_real and select, and names it so): the real gradient
// g goes back as g + 0i, or 0 + gi.
struct ComplexPartBackward final : Node {
  bool imag = false;
  const char* name() const override { return "SelectBackward0"; }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    TensorRef c = to(g, inputs[0].dtype, g->device);
    return {imag ? mul_scalar(c, tsr_scalar_complex(0.0, 1.0)) : c};
  }
};

struct CopyBackward final : Node {
  const char* name_;
  explicit CopyBackward(const char* n) : name_(n) {}
  const char* name() const override { return name_; }
  bool handles_complex() const override { return true; }  // a cast's: the engine's to_input
  std::vector<TensorRef> apply(const TensorRef& g) override { return {g}; }
};
struct FillBackward final : Node {
  const char* name() const override { return "FillBackward0"; }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef&) override { return {}; }
};

// Whether some element of l is reached by two indexes (a stride 0 on a dim
// of size > 1: expand's views).
bool self_overlapping(const Layout& l) {
  for (int32_t d = 0; d < l.ndim; ++d)
    if (l.strides[static_cast<size_t>(d)] == 0 && l.shape[static_cast<size_t>(d)] > 1) return true;
  return false;
}

// Two layouts over one storage, their offsets moved so that the lower one
// starts at 0, and the span of elements they reach together.
struct Span {
  Layout first, second;
  int64_t extent = 1;
  Span(Layout a, Layout b) : first(a), second(b) {
    const int64_t origin = std::min(a.offset, b.offset);
    first.offset -= origin;
    second.offset -= origin;
    extent = std::max<int64_t>({1, storage_extent(first), storage_extent(second)});
  }
  // Zeros of the span, like g's dtype and device.
  TensorRef zeros(const tsr_tensor& g) const {
    return full(*g.rt, 1, &extent, make_scalar(0.0), g.dtype, g.device);
  }
};

// Every view but expand: the gradient written through the view's layout
// into zeros laid out as the storage span, then read through the input's
// layout, so each input element gets the gradient of the view element over
// it (0 where none is). One formula for transpose, permute, slice, select,
// view, squeeze, unsqueeze, flatten, reshape and as_strided views that do
// not alias themselves. Its own derivative is the same map with the two
// layouts swapped, recorded when a graph is being created.
struct ViewBackward final : Node {
  const char* name_;
  Span span;  // first: the input's layout, second: the view's
  ViewBackward(const char* n, const Span& s) : name_(n), span(s) {}
  const char* name() const override { return name_; }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    TensorRef z = span.zeros(*g);
    copy_into(*make_view(*z, span.second), *g);
    TensorRef r = make_view(*z, span.first);
    if (should_record({g.get()}))
      record(std::make_shared<ViewBackward>("ViewScatterBackward0", Span(span.second, span.first)), {g.get()}, *r);
    return {r};
  }
};
struct ExpandBackward final : Node {
  const char* name() const override { return "ExpandBackward0"; }
  bool handles_complex() const override { return true; }
  std::vector<TensorRef> apply(const TensorRef& g) override { return {g}; }  // the engine sums it to the input's shape
};

// A base whose region (a view of it) was written in place: the region's
// gradient goes to the op that wrote it, the rest to the base's old
// history (Note [In-place ops]).
struct CopySlices final : Node {
  Span span;  // first: the base's layout, second: the written region's
  explicit CopySlices(const Span& s) : span(s) {}
  const char* name() const override { return "CopySlices"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    if (grad_enabled() && requires_grad(*g)) {
      // Creating a graph: the region's gradient is g read through the
      // region's layout (a view map, recorded as ViewBackward records its
      // own), the rest g where a constant mask of the region is 0.
      ViewBackward to_region("CopySlices", Span(span.second, span.first));
      TensorRef region = to_region.apply(g)[0];
      TensorRef mask = span.zeros(*g);
      fill(*make_view(*mask, span.second), make_scalar(1.0));
      TensorRef in_region = binary(TSR_OP_NE, *make_view(*mask, span.first), *scalar_like(g, 0.0));
      return {zero_where(in_region, g), region};
    }
    TensorRef z = span.zeros(*g);
    copy_into(*make_view(*z, span.first), *g);
    TensorRef written = clone(*make_view(*z, span.second));
    fill(*make_view(*z, span.second), make_scalar(0.0));
    return {make_view(*z, span.first), written};
  }
};

}  // namespace

bool differentiable(const char*, std::initializer_list<const tsr_tensor*>, tsr_tensor& out) {
  // A complex result records its node too: the engine refuses one whose
  // formula is real-only (Note [Complex tensors and autograd]).
  return tsr_dtype_is_floating(out.dtype) || tsr_dtype_is_complex(out.dtype);
}

void record_copy(const tsr_tensor& a, tsr_tensor& out, const char* name) {
  if (!differentiable(name, {&a}, out)) return;
  record(std::make_shared<CopyBackward>(name), {&a}, out);
}

void record_unsupported(const char* what, std::initializer_list<const tsr_tensor*> inputs, tsr_tensor& out) {
  if (tsr_dtype_is_floating(out.dtype) || tsr_dtype_is_complex(out.dtype))
    record(std::make_shared<NotImplementedBackward>(std::string(what)), inputs, out);
}

void record_fill(tsr_tensor& out) {
  if (tsr_dtype_is_floating(out.dtype) || tsr_dtype_is_complex(out.dtype))
    record(std::make_shared<FillBackward>(), {}, out);
}

void record_view(const tsr_tensor& a, tsr_tensor& out, const Layout& dense_view, const char* name, ViewKind kind) {
  meta_of(out).view_version = version(out);  // its grad_fn is made from a's history as it is now
  if (!differentiable(name, {&a}, out)) return;
  if (kind == ViewKind::kExpand) return record(std::make_shared<ExpandBackward>(), {&a}, out);
  if (kind == ViewKind::kStrided) {
    if (self_overlapping(a.layout) || self_overlapping(out.layout))
      return record(std::make_shared<NotImplementedBackward>(std::string("as_strided of a tensor that aliases itself")),
                    {&a}, out);
    return record(std::make_shared<ViewBackward>(name, Span(a.layout, out.layout)), {&a}, out);
  }
  const Layout dense = contiguous_layout(a.layout.ndim, a.layout.shape.data());
  record(std::make_shared<ViewBackward>(name, Span(dense, dense_view)), {&a}, out);
}

std::shared_ptr<Node> view_node(tsr_tensor& base, const tsr_tensor& view) {
  std::shared_ptr<Node> n;
  if (self_overlapping(view.layout) || self_overlapping(base.layout))
    n = std::make_shared<NotImplementedBackward>(std::string("a view that aliases itself"));
  else if (view.dtype != base.dtype)  // a complex tensor's real or imaginary part, its strides in reals
    n = std::make_shared<NotImplementedBackward>(std::string("a real or imaginary part whose tensor was written in place"));
  else
    n = std::make_shared<ViewBackward>("AsStridedBackward0", Span(base.layout, view.layout));
  link(*n, {&base});
  return n;
}

void rebase_history(tsr_tensor& target, std::shared_ptr<Node> node) {
  AutogradMeta& m = meta_of(target);
  if (target.base == nullptr) {
    set_history(target, std::move(node));
    return;
  }
  tsr_tensor& base = *target.base;
  auto copy_slices = std::make_shared<CopySlices>(Span(base.layout, target.layout));
  link(*copy_slices, {&base, nullptr});
  InputMeta& written = copy_slices->inputs[1];  // what flows to the op: the region's gradient
  written.ndim = target.layout.ndim;
  std::copy(target.layout.shape.begin(), target.layout.shape.end(), written.shape.begin());
  written.dtype = target.dtype;
  written.device = target.device;
  copy_slices->next[1] = Edge{std::move(node), 0};
  set_history(base, std::move(copy_slices));
  std::lock_guard<std::mutex> lock(m.mutex);
  m.grad_fn = view_node(base, target);
  m.output_nr = 0;
  m.view_version = version(target);
}

namespace {
// t when `read` (Note [Saving only what a gradient reads]), else null.
const tsr_tensor* if_read(bool read, const tsr_tensor& t) { return read ? &t : nullptr; }

// The node of binary op `op` on a and b (saving what its formula reads).
std::shared_ptr<Node> binary_node(int32_t op, const tsr_tensor& a, const tsr_tensor& b, const tsr_tensor& out) {
  const bool grad_a = requires_grad(a), grad_b = requires_grad(b);
  switch (op) {
    case TSR_OP_ADD: return std::make_shared<AddBackward0>();
    case TSR_OP_SUB: return std::make_shared<SubBackward0>();
    case TSR_OP_MUL: return saving(std::make_shared<MulBackward0>(), if_read(grad_b, a), if_read(grad_a, b), nullptr);
    case TSR_OP_DIV: return saving(std::make_shared<DivBackward0>(), nullptr, &b, if_read(grad_b, out));
    case TSR_OP_MAXIMUM:
    case TSR_OP_MINIMUM: return saving(std::make_shared<ExtremumBackward>(op == TSR_OP_MAXIMUM), &a, &b, nullptr);
    case TSR_OP_POW: return saving(std::make_shared<PowBackward1>(), &a, &b, if_read(grad_b, out));
    case TSR_OP_ATAN2:
    case TSR_OP_LOGADDEXP:
    case TSR_OP_REMAINDER: {
      auto n = std::make_shared<BinaryMoreBackward>();
      n->op = op;
      return saving(std::move(n), &a, &b, nullptr);
    }
    default: return std::make_shared<NotImplementedBackward>(op);
  }
}
}  // namespace

void record_binary(int32_t op, const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out) {
  if (!differentiable(tsr_op_name(op), {&a, &b}, out)) return;
  record(binary_node(op, a, b, out), {&a, &b}, out);
}

void record_binary_scalar(int32_t op, const tsr_tensor& a, tsr_scalar s, bool reversed, tsr_tensor& out) {
  if (!differentiable(tsr_op_name(op), {&a}, out)) return;
  if (op != TSR_OP_ADD && op != TSR_OP_SUB && op != TSR_OP_MUL && op != TSR_OP_DIV && op != TSR_OP_POW) {
    // The tensor-tensor formula, the number a constant 0-d tensor without an edge.
    const TensorRef c = full(*a.rt, 0, nullptr, s, out.dtype, a.device);
    const tsr_tensor& lhs = reversed ? *c : a;
    const tsr_tensor& rhs = reversed ? a : *c;
    std::shared_ptr<Node> node = binary_node(op, lhs, rhs, out);
    if (op == TSR_OP_REMAINDER && !reversed) node->alias = "RemainderBackward0";  // torch's Tensor % Scalar
    return record(std::move(node), {reversed ? nullptr : &a, reversed ? &a : nullptr}, out);
  }
  auto n = std::make_shared<ScalarOpBackward>();
  n->op = op;
  n->s = s;
  n->reversed = reversed;
  const bool saves = (op == TSR_OP_DIV && reversed) || op == TSR_OP_POW;
  record(saving(std::move(n), saves ? &a : nullptr, nullptr, saves ? &out : nullptr), {&a}, out);
}

void record_unary(int32_t op, const tsr_tensor& a, tsr_tensor& out) {
  // The fused activations (ABI 1.10) are tessera/nn.h's, with their nodes.
  if (op == TSR_OP_GELU || op == TSR_OP_GELU_TANH) return record_gelu(a, op == TSR_OP_GELU_TANH, out);
  if (op == TSR_OP_SILU) return record_silu(a, out);
  if (!differentiable(tsr_op_name(op), {&a}, out)) return;
  switch (op) {
    case TSR_OP_NEG: case TSR_OP_EXP: case TSR_OP_LOG: case TSR_OP_TANH: case TSR_OP_SQRT: case TSR_OP_ABS:
    case TSR_OP_RELU: case TSR_OP_SIGMOID: break;
    default: return record(std::make_shared<NotImplementedBackward>(op), {&a}, out);
  }
  auto n = std::make_shared<UnaryBackward>();
  n->op = op;
  const bool input = op == TSR_OP_LOG || op == TSR_OP_ABS || op == TSR_OP_RELU;
  const bool result = op == TSR_OP_EXP || op == TSR_OP_TANH || op == TSR_OP_SQRT || op == TSR_OP_SIGMOID;
  record(saving(std::move(n), input ? &a : nullptr, nullptr, result ? &out : nullptr), {&a}, out);
}

void record_where(const tsr_tensor& cond, const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out) {
  if (!differentiable("where", {&a, &b}, out)) return;
  auto n = std::make_shared<WhereBackward>();
  n->saved[0].save(cond, false);
  record(std::move(n), {&a, &b}, out);
}

void record_reduce(int32_t op, const tsr_tensor& a, const bool* reduced, bool dims_given, double correction,
                   tsr_tensor& out) {
  if (!differentiable(tsr_op_name(op), {&a}, out)) return;
  if (op == TSR_OP_SUM || op == TSR_OP_MEAN) {
    auto n = std::make_shared<SumBackward>();
    n->mean = op == TSR_OP_MEAN;
    n->r = Reduction(a, reduced);
    n->r.dims_given = dims_given;
    return record(std::move(n), {&a}, out);
  }
  if (op != TSR_OP_PROD && op != TSR_OP_MAX && op != TSR_OP_MIN && op != TSR_OP_VAR && op != TSR_OP_STD)
    return record(std::make_shared<NotImplementedBackward>(op), {&a}, out);
  auto n = std::make_shared<ReduceBackward>();
  n->op = op;
  n->correction = correction;
  n->r = Reduction(a, reduced);
  n->r.dims_given = dims_given;
  const bool reads_out = op != TSR_OP_VAR;
  record(saving(std::move(n), &a, nullptr, reads_out ? &out : nullptr), {&a}, out);
}

void record_math(int32_t fn, const tsr_tensor& a, tsr_tensor& out) {
  if (!differentiable(tsr_math_fn_name(fn), {&a}, out)) return;
  auto n = std::make_shared<MathBackward>();
  n->fn = fn;
  record(saving(std::move(n), MathBackward::reads_input(fn) ? &a : nullptr, nullptr,
                MathBackward::reads_output(fn) ? &out : nullptr),
         {&a}, out);
}

void record_softmax(const tsr_tensor& x, int32_t dim, bool log, tsr_tensor& out) {
  if (!differentiable(log ? "log_softmax" : "softmax", {&x}, out)) return;
  auto n = std::make_shared<SoftmaxBackward>();
  n->dim = dim;
  n->log = log;
  record(saving(std::move(n), nullptr, nullptr, &out), {&x}, out);
}

void record_logsumexp(const tsr_tensor& x, const bool* reduced, tsr_tensor& out) {
  if (!differentiable("logsumexp", {&x}, out)) return;
  auto n = std::make_shared<LogsumexpBackward>();
  std::copy(reduced, reduced + x.layout.ndim, n->reduced.begin());
  record(saving(std::move(n), &x, nullptr, &out), {&x}, out);
}

void record_vector_norm(const tsr_tensor& x, double ord, const bool* reduced, tsr_tensor& out) {
  if (!differentiable("linalg_vector_norm", {&x}, out)) return;
  auto n = std::make_shared<NormBackward>();
  n->p = ord;
  n->r = Reduction(x, reduced);
  record(saving(std::move(n), &x, nullptr, &out), {&x}, out);
}

void record_cumsum(const tsr_tensor& a, int64_t dim, tsr_tensor& out) {
  if (!differentiable("cumsum", {&a}, out)) return;
  auto n = std::make_shared<CumsumBackward>();
  n->dim = dim;
  record(std::move(n), {&a}, out);
}

void record_cumprod(const tsr_tensor& a, int64_t dim, tsr_tensor& out) {
  if (!differentiable("cumprod", {&a}, out)) return;
  auto n = std::make_shared<CumprodBackward>();
  n->dim = dim;
  record(saving(std::move(n), &a, nullptr, &out), {&a}, out);
}

void record_gather(const tsr_tensor& x, int64_t dim, const TensorRef& index, tsr_tensor& out, const char* name) {
  if (!differentiable(name == nullptr ? "gather" : "sort", {&x}, out)) return;
  auto n = std::make_shared<GatherBackward>();
  n->dim = dim;
  n->index = index;
  if (name != nullptr) n->name_ = name;
  record(std::move(n), {&x}, out);
}

void record_scatter(const tsr_tensor& self, const tsr_tensor& src, int64_t dim, const tsr_tensor& index, bool add,
                    tsr_tensor& out) {
  if (!differentiable(add ? "scatter_add_" : "scatter_", {&self, &src}, out)) return;
  auto n = std::make_shared<ScatterBackward>();
  n->dim = dim;
  n->add = add;
  n->saved[0].save(index, false);
  record(std::move(n), {&self, &src}, out);
}

void record_concat(std::span<const tsr_tensor* const> tensors, int64_t dim, tsr_tensor& out) {
  if (!tsr_dtype_is_floating(out.dtype) && !tsr_dtype_is_complex(out.dtype)) return;
  auto n = std::make_shared<CatBackward>();
  n->dim = dim;
  link(*n, tensors);
  set_history(out, std::move(n));
}

void record_complex_part(const tsr_tensor& t, bool imag, tsr_tensor& out) {
  meta_of(out).view_version = version(out);  // its base's later writes refuse it (view_node)
  if (!differentiable(imag ? "imag" : "real", {&t}, out)) return;
  auto n = std::make_shared<ComplexPartBackward>();
  n->imag = imag;
  record(std::move(n), {&t}, out);
}

void record_matmul(const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out) {
  if (!differentiable("matmul", {&a, &b}, out)) return;
  // Note [Saving only what a gradient reads]: a's gradient reads b, b's reads a.
  record(saving(std::make_shared<MatmulBackward>(), if_read(requires_grad(b), a), if_read(requires_grad(a), b), nullptr),
         {&a, &b}, out);
}

}  // namespace tessera::rt::autograd
