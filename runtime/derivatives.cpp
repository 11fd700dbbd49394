// SPDX-License-Identifier: Apache-2.0
// Note [The derivative table]
//   One Node per differentiable function, as PyTorch's derivatives.yaml has
//   one entry: its name (PyTorch's, "MulBackward0"), what it saves, and its
//   formula written with the runtime's own functions, so it runs on the
//   tensors' device. A formula returns the gradient of each input at the
//   shape of the op's output; the engine sums it to the input's shape and
//   dtype (Note [Autograd]). Adding a function: a Node below, and a case in
//   its record_* that makes it; a result of an op with no formula gets
//   NotImplementedBackward, whose backward fails naming the op, so no
//   gradient is ever dropped in silence. Results that are not floating or
//   complex (comparisons, argmax, integer ops) record nothing: they have no
//   gradient.
#include "derivatives.hpp"

#include <string>

#include "error.hpp"
#include "ops.hpp"
#include "shape.hpp"

namespace tessera::rt::autograd {

namespace {

// Whether out gets a record: floating results do; complex ones get
// NotImplementedBackward (their formulas take conjugates: not written yet);
// the others have no gradient.
bool differentiable(int32_t op, std::initializer_list<const tsr_tensor*> inputs, tsr_tensor& out);

TensorRef mul(const TensorRef& a, const TensorRef& b) { return binary(TSR_OP_MUL, *a, *b); }
TensorRef div(const TensorRef& a, const TensorRef& b) { return binary(TSR_OP_DIV, *a, *b); }
TensorRef neg(const TensorRef& a) { return unary(TSR_OP_NEG, *a); }
TensorRef mul_scalar(const TensorRef& a, tsr_scalar s) { return binary_scalar(TSR_OP_MUL, *a, s, false); }
TensorRef div_scalar(const TensorRef& a, tsr_scalar s) { return binary_scalar(TSR_OP_DIV, *a, s, false); }

struct NotImplementedBackward final : Node {
  int32_t op;
  explicit NotImplementedBackward(int32_t op_) : op(op_) {}
  const char* name() const override { return "NotImplemented"; }
  std::vector<TensorRef> apply(const TensorRef&) override {
    fail(TSR_ERR_UNSUPPORTED, std::string("the derivative for '") + tsr_op_name(op) + "' is not implemented");
  }
};

// ---- binary ------------------------------------------------------------------

struct AddBackward0 final : Node {
  const char* name() const override { return "AddBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override { return {g, g}; }
};
struct SubBackward0 final : Node {
  const char* name() const override { return "SubBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override { return {g, neg(g)}; }
};
struct MulBackward0 final : Node {
  TensorRef a, b;  // detached
  const char* name() const override { return "MulBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    return {next[0].node ? mul(g, b) : TensorRef{}, next[1].node ? mul(g, a) : TensorRef{}};
  }
};
struct DivBackward0 final : Node {
  TensorRef b, out;  // detached: d(a/b)/db = -out / b
  const char* name() const override { return "DivBackward0"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    TensorRef ga = next[0].node ? div(g, b) : TensorRef{};
    TensorRef gb = next[1].node ? neg(div(mul(g, out), b)) : TensorRef{};
    return {ga, gb};
  }
};

// One tensor operand and a Python-number one.
struct ScalarOpBackward final : Node {
  int32_t op;
  tsr_scalar s;
  bool reversed;
  TensorRef a, out;  // detached, where the formula needs them
  const char* name() const override {
    switch (op) {
      case TSR_OP_ADD: return "AddBackward1";
      case TSR_OP_SUB: return reversed ? "RsubBackward1" : "SubBackward1";
      case TSR_OP_MUL: return "MulBackward1";
      default: return "DivBackward1";
    }
  }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    switch (op) {
      case TSR_OP_ADD: return {g};
      case TSR_OP_SUB: return {reversed ? neg(g) : g};
      case TSR_OP_MUL: return {mul_scalar(g, s)};
      default:  // DIV: a / s, or s / a with gradient -out / a
        return {reversed ? neg(div(mul(g, out), a)) : div_scalar(g, s)};
    }
  }
};

// ---- unary --------------------------------------------------------------------

struct UnaryBackward final : Node {
  int32_t op;
  TensorRef a, out;  // detached
  const char* name() const override {
    switch (op) {
      case TSR_OP_NEG: return "NegBackward0";
      case TSR_OP_EXP: return "ExpBackward0";
      case TSR_OP_LOG: return "LogBackward0";
      default: return "TanhBackward0";
    }
  }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    switch (op) {
      case TSR_OP_NEG: return {neg(g)};
      case TSR_OP_EXP: return {mul(g, out)};
      case TSR_OP_LOG: return {div(g, a)};
      default:  // TANH: g * (1 - out^2)
        return {mul(g, binary_scalar(TSR_OP_SUB, *mul(out, out), make_scalar(1.0), true))};
    }
  }
};

// ---- reductions ----------------------------------------------------------------

// SUM: the gradient spread back over the reduced dims (an expanded view).
struct SumBackward final : Node {
  bool all = false;
  std::array<bool, TSR_MAX_DIMS> reduced{};
  const char* name() const override { return all ? "SumBackward0" : "SumBackward1"; }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    const InputMeta& in = inputs[0];
    int64_t keep[TSR_MAX_DIMS];
    for (int32_t d = 0; d < in.ndim; ++d) keep[d] = reduced[static_cast<size_t>(d)] ? 1 : in.shape[static_cast<size_t>(d)];
    TensorRef k = make_view(*g, view(g->layout, in.ndim, keep));
    return {make_view(*k, expand(k->layout, in.ndim, in.shape.data()))};
  }
};

// ---- products ----------------------------------------------------------------

// a @ b with ndim >= 2 on both: g @ b^T and a^T @ g over the last two dims
// (the engine sums broadcast batch dims).
struct MatmulBackward final : Node {
  TensorRef a, b;  // detached
  const char* name() const override { return "MmBackward0"; }
  static TensorRef mT(const TensorRef& t) {
    return make_view(*t, transpose(t->layout, t->layout.ndim - 2, t->layout.ndim - 1));
  }
  std::vector<TensorRef> apply(const TensorRef& g) override {
    return {next[0].node ? matmul(*g, *mT(b)) : TensorRef{}, next[1].node ? matmul(*mT(a), *g) : TensorRef{}};
  }
};

bool differentiable(int32_t op, std::initializer_list<const tsr_tensor*> inputs, tsr_tensor& out) {
  if (tsr_dtype_is_complex(out.dtype)) {
    record(std::make_shared<NotImplementedBackward>(op), inputs, out);
    return false;
  }
  return tsr_dtype_is_floating(out.dtype);
}

}  // namespace

void record_binary(int32_t op, const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out) {
  if (!differentiable(op, {&a, &b}, out)) return;
  std::shared_ptr<Node> node;
  switch (op) {
    case TSR_OP_ADD: node = std::make_shared<AddBackward0>(); break;
    case TSR_OP_SUB: node = std::make_shared<SubBackward0>(); break;
    case TSR_OP_MUL: {
      auto n = std::make_shared<MulBackward0>();
      n->a = detached(a);
      n->b = detached(b);
      node = n;
      break;
    }
    case TSR_OP_DIV: {
      auto n = std::make_shared<DivBackward0>();
      n->b = detached(b);
      n->out = detached(out);
      node = n;
      break;
    }
    default: node = std::make_shared<NotImplementedBackward>(op);
  }
  record(std::move(node), {&a, &b}, out);
}

void record_binary_scalar(int32_t op, const tsr_tensor& a, tsr_scalar s, bool reversed, tsr_tensor& out) {
  if (!differentiable(op, {&a}, out)) return;
  if (op != TSR_OP_ADD && op != TSR_OP_SUB && op != TSR_OP_MUL && op != TSR_OP_DIV)
    return record(std::make_shared<NotImplementedBackward>(op), {&a}, out);
  auto n = std::make_shared<ScalarOpBackward>();
  n->op = op;
  n->s = s;
  n->reversed = reversed;
  if (op == TSR_OP_DIV && reversed) {
    n->a = detached(a);
    n->out = detached(out);
  }
  record(std::move(n), {&a}, out);
}

void record_unary(int32_t op, const tsr_tensor& a, tsr_tensor& out) {
  if (!differentiable(op, {&a}, out)) return;
  if (op != TSR_OP_NEG && op != TSR_OP_EXP && op != TSR_OP_LOG && op != TSR_OP_TANH)
    return record(std::make_shared<NotImplementedBackward>(op), {&a}, out);
  auto n = std::make_shared<UnaryBackward>();
  n->op = op;
  if (op == TSR_OP_LOG) n->a = detached(a);
  if (op == TSR_OP_EXP || op == TSR_OP_TANH) n->out = detached(out);
  record(std::move(n), {&a}, out);
}

void record_reduce(int32_t op, const tsr_tensor& a, const bool* reduced, tsr_tensor& out) {
  if (!differentiable(op, {&a}, out)) return;
  if (op != TSR_OP_SUM) return record(std::make_shared<NotImplementedBackward>(op), {&a}, out);
  auto n = std::make_shared<SumBackward>();
  n->all = true;
  for (int32_t d = 0; d < a.layout.ndim; ++d) {
    n->reduced[static_cast<size_t>(d)] = reduced[d];
    n->all = n->all && reduced[d];
  }
  record(std::move(n), {&a}, out);
}

void record_matmul(const tsr_tensor& a, const tsr_tensor& b, tsr_tensor& out) {
  if (!differentiable(TSR_OP_MATMUL, {&a, &b}, out)) return;
  if (a.layout.ndim < 2 || b.layout.ndim < 2)
    return record(std::make_shared<NotImplementedBackward>(TSR_OP_MATMUL), {&a, &b}, out);
  auto n = std::make_shared<MatmulBackward>();
  n->a = detached(a);
  n->b = detached(b);
  record(std::move(n), {&a, &b}, out);
}

}  // namespace tessera::rt::autograd
