// SPDX-License-Identifier: Apache-2.0
// Elementwise ops through the public C API against a float64 reference:
// binary ADD..GE, unary NEG..TANH, GELU, GELU_TANH, SILU and WHERE on every dtype, on contiguous,
// transposed, step-sliced, expanded, 0-d and empty inputs, with broadcasting,
// PyTorch's type promotion, Python scalars, the in-place forms and the out=
// forms (tsr_binary_out, tsr_binary_scalar_out, tsr_unary_out).
#include <cmath>
#include <functional>
#include <limits>

#include "ops_common.hpp"

using namespace ops;

namespace {

constexpr std::array<tsr_op, 13> kBinaryOps{TSR_OP_ADD, TSR_OP_SUB, TSR_OP_MUL, TSR_OP_DIV, TSR_OP_MAXIMUM,
                                            TSR_OP_MINIMUM, TSR_OP_POW, TSR_OP_EQ, TSR_OP_NE, TSR_OP_LT,
                                            TSR_OP_LE, TSR_OP_GT, TSR_OP_GE};
constexpr std::array<tsr_op, 11> kUnaryOps{TSR_OP_NEG,  TSR_OP_ABS,     TSR_OP_EXP,  TSR_OP_LOG,
                                           TSR_OP_SQRT, TSR_OP_RELU,    TSR_OP_SIGMOID, TSR_OP_TANH,
                                           TSR_OP_GELU, TSR_OP_GELU_TANH, TSR_OP_SILU};

bool is_comparison(tsr_op op) { return tsr_op_kind(op) == TSR_OP_KIND_COMPARE; }
// Unary ops that compute integer and bool inputs in float32.
bool is_float_unary(tsr_op op) {
  return op == TSR_OP_EXP || op == TSR_OP_LOG || op == TSR_OP_SQRT || op == TSR_OP_SIGMOID || op == TSR_OP_TANH ||
         op == TSR_OP_GELU || op == TSR_OP_GELU_TANH || op == TSR_OP_SILU;
}

double ref_binary(tsr_op op, double a, double b) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  switch (op) {
    case TSR_OP_ADD: return a + b;
    case TSR_OP_SUB: return a - b;
    case TSR_OP_MUL: return a * b;
    case TSR_OP_DIV: return a / b;
    case TSR_OP_MAXIMUM: return std::isnan(a) || std::isnan(b) ? nan : std::max(a, b);
    case TSR_OP_MINIMUM: return std::isnan(a) || std::isnan(b) ? nan : std::min(a, b);
    case TSR_OP_POW: return std::pow(a, b);
    case TSR_OP_EQ: return a == b;
    case TSR_OP_NE: return a != b;
    case TSR_OP_LT: return a < b;
    case TSR_OP_LE: return a <= b;
    case TSR_OP_GT: return a > b;
    case TSR_OP_GE: return a >= b;
    default: return nan;
  }
}

double ref_unary(tsr_op op, double a) {
  switch (op) {
    case TSR_OP_NEG: return -a;
    case TSR_OP_ABS: return std::fabs(a);
    case TSR_OP_EXP: return std::exp(a);
    case TSR_OP_LOG: return std::log(a);
    case TSR_OP_SQRT: return std::sqrt(a);
    case TSR_OP_RELU: return std::isnan(a) || a > 0 ? a : 0.0;
    case TSR_OP_SIGMOID: return 1.0 / (1.0 + std::exp(-a));
    case TSR_OP_TANH: return std::tanh(a);
    // torch's formulas (an infinite -a gives -inf * 0: NaN, as torch)
    case TSR_OP_GELU: return a * 0.5 * (1.0 + std::erf(a * M_SQRT1_2));
    case TSR_OP_GELU_TANH: return 0.5 * a * (1.0 + std::tanh(M_SQRT2 * M_2_SQRTPI * 0.5 * (a + 0.044715 * a * a * a)));
    case TSR_OP_SILU: return a / (1.0 + std::exp(-a));
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

// What PyTorch 1.13 does with `a (op) b` when the operands have dtypes a and
// b and promote to `common` (a scalar operand passes its kind's dtype).
Outcome binary_outcome(tsr_op op, tsr_dtype a, tsr_dtype b, tsr_dtype common) {
  if (op == TSR_OP_SUB && a == TSR_BOOL && b == TSR_BOOL)
    return error_of(TSR_ERR_TYPE, "Subtraction, the `-` operator, with two bool tensors is not supported.");
  if (op == TSR_OP_SUB && (a == TSR_BOOL || b == TSR_BOOL))
    return error_of(TSR_ERR_TYPE, "Subtraction, the `-` operator, with a bool tensor is not supported.");
  tsr_dtype compute = op == TSR_OP_DIV && !is_float(common) ? TSR_FLOAT32 : common;
  if (op == TSR_OP_POW && compute == TSR_BOOL) return either_of(TSR_BOOL);  // "pow" not implemented for 'Bool'
  return value_of(is_comparison(op) ? TSR_BOOL : compute);
}

tsr_dtype compute_of(tsr_op op, tsr_dtype common) {
  return op == TSR_OP_DIV && !is_float(common) ? TSR_FLOAT32 : common;
}

Outcome unary_outcome(tsr_op op, tsr_dtype d) {
  if (op == TSR_OP_NEG && d == TSR_BOOL)
    return error_of(TSR_ERR_TYPE, "Negation, the `-` operator, on a bool tensor is not supported.");
  tsr_dtype compute = is_float_unary(op) && !is_float(d) ? TSR_FLOAT32 : d;
  // PyTorch 1.13 has no CPU kernel for these; a runtime may have one.
  bool torch_lacks = (d == TSR_BOOL && (op == TSR_OP_ABS || op == TSR_OP_RELU)) ||
                     (d == TSR_FLOAT16 && op != TSR_OP_NEG && op != TSR_OP_ABS);
  return torch_lacks ? either_of(compute) : value_of(compute);
}

// The dtype a tensor of dtype t and a Python scalar s promote to.
tsr_dtype scalar_common(tsr_dtype t, const tsr_scalar& s) {
  if (s.kind == TSR_SCALAR_FLOAT) return is_float(t) ? t : TSR_FLOAT32;
  if (s.kind == TSR_SCALAR_INT) return t == TSR_BOOL ? TSR_INT64 : t;
  return t;
}
tsr_dtype scalar_dtype(const tsr_scalar& s) {
  return s.kind == TSR_SCALAR_FLOAT ? TSR_FLOAT64 : s.kind == TSR_SCALAR_INT ? TSR_INT64 : TSR_BOOL;
}
double scalar_value(const tsr_scalar& s) { return s.kind == TSR_SCALAR_FLOAT ? s.f : static_cast<double>(s.i); }

// The reference of a (op) b broadcast to `out`, both first cast to `compute`.
std::vector<double> binary_reference(tsr_op op, const std::vector<double>& a, const Shape& sa,
                                     const std::vector<double>& b, const Shape& sb, tsr_dtype compute,
                                     const Shape& out) {
  std::vector<double> r(static_cast<size_t>(numel(out)));
  for (size_t k = 0; k < r.size(); ++k) {
    double x = cast(compute, a[static_cast<size_t>(broadcast_source(out, sa, static_cast<int64_t>(k)))]);
    double y = cast(compute, b[static_cast<size_t>(broadcast_source(out, sb, static_cast<int64_t>(k)))]);
    r[k] = is_comparison(op) ? ref_binary(op, x, y) : cast(compute, ref_binary(op, x, y));
  }
  return r;
}

void check_binary(tsr_op op, const Tensor& a, const Tensor& b, const Shape& out_shape) {
  Outcome want = binary_outcome(op, a.dtype(), b.dtype(), promote(a.dtype(), b.dtype()));
  Result r = attempt([&](tsr_tensor** o) { return tsr_binary(op, a.get(), b.get(), o); });
  check_outcome(r, want, out_shape, [&] {
    return binary_reference(op, values(a), a.shape(), values(b), b.shape(), compute_of(op, promote(a.dtype(), b.dtype())),
                            out_shape);
  });
}

std::vector<double> unary_reference(tsr_op op, const std::vector<double>& a, tsr_dtype compute) {
  std::vector<double> r(a.size());
  for (size_t k = 0; k < a.size(); ++k) r[k] = cast(compute, ref_unary(op, cast(compute, a[k])));
  return r;
}

Values operand_values(tsr_op op) { return op == TSR_OP_POW ? Values::Exponent : Values::General; }

std::string context(tsr_op op, tsr_dtype d, Layout la, Layout lb) {
  return std::string(tsr_op_name(op)) + " " + tsr_dtype_name(d) + " a=" + layout_name(la) + " b=" + layout_name(lb);
}

}  // namespace

TEST_CASE("binary ops: every op x dtype on every pair of layouts") {
  const Shape shape{3, 4};
  for (tsr_op op : kBinaryOps)
    for (tsr_dtype d : kDtypes)
      for (Layout la : kLayouts)
        for (Layout lb : kLayouts) {
          INFO(context(op, d, la, lb));
          Input a = make_input(shape, d, la, Values::General, 1);
          Input b = make_input(shape, d, lb, operand_values(op), 2);
          check_binary(op, a.view, b.view, shape);
        }
}

TEST_CASE("binary ops: broadcasting, 0-d and empty operands") {
  struct Case {
    Shape a, b, out;
  };
  const Case cases[] = {{{3, 1}, {1, 4}, {3, 4}}, {{4}, {3, 4}, {3, 4}},    {{}, {2, 3}, {2, 3}},
                        {{2, 3}, {}, {2, 3}},     {{}, {}, {}},             {{0, 3}, {1, 3}, {0, 3}},
                        {{2, 0}, {2, 1}, {2, 0}}, {{0}, {}, {0}},           {{5, 1, 3}, {4, 1}, {5, 4, 3}},
                        {{1, 4}, {3, 1}, {3, 4}}};
  for (const Case& c : cases)
    for (size_t l = 0; l < kLayouts.size(); ++l)
      for (tsr_op op : kBinaryOps)
        for (tsr_dtype d : kDtypes) {
          Layout la = kLayouts[l], lb = kLayouts[(l + 1) % kLayouts.size()];
          INFO(context(op, d, la, lb) << " shapes " << shape_str(c.a) << " " << shape_str(c.b));
          Input a = make_input(c.a, d, la, Values::General, 3);
          Input b = make_input(c.b, d, lb, operand_values(op), 4);
          check_binary(op, a.view, b.view, c.out);
        }
}

TEST_CASE("binary ops: mixed dtypes promote as PyTorch does") {
  for (tsr_dtype da : kDtypes)
    for (tsr_dtype db : kDtypes) {
      CHECK(tsr_promote_types(da, db) == promote(da, db));
      for (tsr_op op : kBinaryOps) {
        INFO(tsr_op_name(op) << " " << tsr_dtype_name(da) << " with " << tsr_dtype_name(db));
        Input a = make_input({2, 3}, da, Layout::Transposed, Values::General, 5);
        Input b = make_input({2, 3}, db, Layout::Sliced, operand_values(op), 6);
        check_binary(op, a.view, b.view, {2, 3});
      }
    }
}

TEST_CASE("type promotion: result dtypes of the PyTorch examples") {
  struct Case {
    tsr_dtype a;
    Shape sa;
    tsr_dtype b;
    Shape sb;
    tsr_dtype out;
  };
  const Case cases[] = {
      {TSR_INT32, {3}, TSR_INT64, {3}, TSR_INT64},       {TSR_UINT8, {3}, TSR_INT8, {3}, TSR_INT16},
      {TSR_FLOAT16, {3}, TSR_BFLOAT16, {3}, TSR_FLOAT32}, {TSR_BOOL, {3}, TSR_INT8, {3}, TSR_INT8},
      {TSR_FLOAT64, {}, TSR_FLOAT32, {3}, TSR_FLOAT32},  // a 0-d tensor does not widen its category
      {TSR_INT64, {}, TSR_INT8, {3}, TSR_INT8},          {TSR_FLOAT64, {}, TSR_INT32, {3}, TSR_FLOAT64},
      {TSR_FLOAT16, {3}, TSR_FLOAT64, {}, TSR_FLOAT16},  {TSR_INT64, {}, TSR_FLOAT16, {}, TSR_FLOAT16},
      {TSR_BOOL, {3}, TSR_INT64, {}, TSR_INT64},         {TSR_UINT8, {3}, TSR_INT8, {}, TSR_UINT8},
  };
  for (const Case& c : cases) {
    INFO(tsr_dtype_name(c.a) << shape_str(c.sa) << " + " << tsr_dtype_name(c.b) << shape_str(c.sb));
    Input a = make_input(c.sa, c.a, Layout::Contiguous, Values::General, 7);
    Input b = make_input(c.sb, c.b, Layout::Contiguous, Values::General, 8);
    Shape out = c.sa.size() > c.sb.size() ? c.sa : c.sb;
    Result r = attempt([&](tsr_tensor** o) { return tsr_binary(TSR_OP_ADD, a.view.get(), b.view.get(), o); });
    check_outcome(r, value_of(c.out), out, [&] {
      return binary_reference(TSR_OP_ADD, values(a.view), c.sa, values(b.view), c.sb, c.out, out);
    });
  }
  // Python scalars: int64 tensor + 2.5 -> float32 (the default dtype); an
  // int scalar keeps int8, cast to it first (5 + 300 -> 5 + 44 = 49).
  Tensor i64 = from_values({1, -2, 3}, {3}, TSR_INT64);
  Result r = attempt([&](tsr_tensor** o) { return tsr_binary_scalar(TSR_OP_ADD, i64.get(), float_scalar(2.5), 0, o); });
  check_outcome(r, value_of(TSR_FLOAT32), {3}, [] { return std::vector<double>{3.5, 0.5, 5.5}; });
  Tensor i8 = from_values({5}, {1}, TSR_INT8);
  r = attempt([&](tsr_tensor** o) { return tsr_binary_scalar(TSR_OP_ADD, i8.get(), int_scalar(300), 0, o); });
  check_outcome(r, value_of(TSR_INT8), {1}, [] { return std::vector<double>{49}; });
}

TEST_CASE("binary ops with a Python scalar on either side") {
  const tsr_scalar scalars[] = {int_scalar(3), float_scalar(-1.5), bool_scalar(true)};
  for (tsr_op op : kBinaryOps)
    for (tsr_dtype d : kDtypes)
      for (const tsr_scalar& s : scalars)
        for (int reversed = 0; reversed < 2; ++reversed)
          for (const Shape& shape : {Shape{3, 4}, Shape{}})
            for (Layout l : kLayouts) {
              INFO(tsr_op_name(op) << " " << tsr_dtype_name(d) << " " << layout_name(l) << " scalar "
                                   << scalar_value(s) << " kind " << s.kind << " reversed " << reversed);
              // The tensor is the exponent when the scalar is the base.
              Input a = make_input(shape, d, l, reversed ? operand_values(op) : Values::General, 9);
              tsr_dtype common = scalar_common(d, s);
              Outcome want = reversed ? binary_outcome(op, scalar_dtype(s), d, common)
                                      : binary_outcome(op, d, scalar_dtype(s), common);
              Result r = attempt([&](tsr_tensor** o) { return tsr_binary_scalar(op, a.view.get(), s, reversed, o); });
              check_outcome(r, want, shape, [&] {
                std::vector<double> sv{scalar_value(s)};
                tsr_dtype compute = compute_of(op, common);
                return reversed ? binary_reference(op, sv, {}, values(a.view), shape, compute, shape)
                                : binary_reference(op, values(a.view), shape, sv, {}, compute, shape);
              });
            }
}

TEST_CASE("binary ops: NaN, infinities and signed zeros") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> a{nan, inf, -inf, 0.0, -0.0, 1.0, inf, 2.0, -2.0, 0.5, 0.0, -3.0};
  const std::vector<double> b{1.0, inf, inf, 0.0, 0.0, nan, -inf, -0.0, 0.5, -inf, -2.0, 2.0};
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16})
    for (tsr_op op : kBinaryOps) {
      INFO(tsr_op_name(op) << " " << tsr_dtype_name(d));
      check_binary(op, from_values(a, {12}, d), from_values(b, {12}, d), {12});
    }
}

TEST_CASE("binary ops: integer arithmetic wraps as in C++") {
  struct Case {
    tsr_op op;
    tsr_dtype d;
    double a, b, out;
  };
  const Case cases[] = {{TSR_OP_ADD, TSR_INT8, 100, 100, -56},         {TSR_OP_SUB, TSR_UINT8, 3, 5, 254},
                        {TSR_OP_MUL, TSR_INT16, 200, 200, -25536},     {TSR_OP_ADD, TSR_INT32, 2147483647, 1, -2147483648.0},
                        {TSR_OP_MUL, TSR_UINT8, 16, 17, 16},           {TSR_OP_POW, TSR_INT8, 3, 5, -13},
                        {TSR_OP_POW, TSR_UINT8, 2, 9, 0},              {TSR_OP_SUB, TSR_INT8, -128, 1, 127}};
  for (const Case& c : cases) {
    INFO(tsr_op_name(c.op) << " " << tsr_dtype_name(c.d) << " " << c.a << ", " << c.b);
    Result r = attempt([&](tsr_tensor** o) {
      return tsr_binary(c.op, from_values({c.a}, {1}, c.d).get(), from_values({c.b}, {1}, c.d).get(), o);
    });
    check_outcome(r, value_of(c.d), {1}, [&] { return std::vector<double>{c.out}; });
  }
  // int64 beyond double's 53 bits: read back as int64, exactly.
  const int64_t big = std::numeric_limits<int64_t>::max();
  Tensor a = Tensor::from_host(runtime(), std::vector<int64_t>{big, 1LL << 62}, {2}, TSR_INT64, cpu());
  Tensor one = Tensor::from_host(runtime(), std::vector<int64_t>{1, 3}, {2}, TSR_INT64, cpu());
  CHECK((a + one).to_vector<int64_t>() == std::vector<int64_t>{std::numeric_limits<int64_t>::min(), (1LL << 62) + 3});
  CHECK((a * one).to_vector<int64_t>() == std::vector<int64_t>{big, static_cast<int64_t>(3ULL << 62)});
  for (auto [op, d, in, out] : {std::tuple{TSR_OP_NEG, TSR_INT8, -128.0, -128.0}, std::tuple{TSR_OP_ABS, TSR_INT8, -128.0, -128.0},
                                std::tuple{TSR_OP_NEG, TSR_UINT8, 5.0, 251.0}, std::tuple{TSR_OP_ABS, TSR_INT16, -300.0, 300.0}}) {
    INFO(tsr_op_name(op) << " " << tsr_dtype_name(d) << " " << in);
    Result r = attempt([&, op = op, d = d, in = in](tsr_tensor** o) { return tsr_unary(op, from_values({in}, {1}, d).get(), o); });
    check_outcome(r, value_of(d), {1}, [out = out] { return std::vector<double>{out}; });
  }
}

TEST_CASE("unary ops: every op x dtype x layout, 0-d and empty") {
  for (const Shape& shape : {Shape{3, 4}, Shape{}, Shape{0, 3}})
    for (tsr_op op : kUnaryOps)
      for (tsr_dtype d : kDtypes)
        for (Layout l : kLayouts) {
          INFO(tsr_op_name(op) << " " << tsr_dtype_name(d) << " " << layout_name(l) << " " << shape_str(shape));
          Input a = make_input(shape, d, l, Values::General, 10);
          Outcome want = unary_outcome(op, d);
          Result r = attempt([&](tsr_tensor** o) { return tsr_unary(op, a.view.get(), o); });
          check_outcome(r, want, shape, [&] { return unary_reference(op, values(a.view), want.dtype); });
        }
}

TEST_CASE("unary ops: NaN, infinities, signed zeros and large values") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> a{nan, inf, -inf, 0.0, -0.0, 20.0, -20.0, 0.001, 100.0, -100.0, 1.0, -1.0};
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16})
    for (tsr_op op : kUnaryOps) {
      INFO(tsr_op_name(op) << " " << tsr_dtype_name(d));
      Tensor t = from_values(a, {12}, d);
      Result r = attempt([&](tsr_tensor** o) { return tsr_unary(op, t.get(), o); });
      check_outcome(r, unary_outcome(op, d), {12}, [&] { return unary_reference(op, values(t), d); });
    }
}

TEST_CASE("where: every dtype x layouts, broadcasting and promotion") {
  auto check_where = [](const Tensor& c, const Tensor& a, const Tensor& b, const Shape& out, tsr_dtype dtype) {
    Result r = attempt([&](tsr_tensor** o) { return tsr_where(c.get(), a.get(), b.get(), o); });
    check_outcome(r, value_of(dtype), out, [&] {
      std::vector<double> vc = values(c), va = values(a), vb = values(b), e(static_cast<size_t>(numel(out)));
      for (size_t k = 0; k < e.size(); ++k) {
        int64_t i = static_cast<int64_t>(k);
        e[k] = cast(dtype, vc[static_cast<size_t>(broadcast_source(out, c.shape(), i))] != 0
                               ? va[static_cast<size_t>(broadcast_source(out, a.shape(), i))]
                               : vb[static_cast<size_t>(broadcast_source(out, b.shape(), i))]);
      }
      return e;
    });
  };
  struct Case {
    Shape c, a, b, out;
  };
  const Case shapes[] = {{{3, 4}, {3, 4}, {3, 4}, {3, 4}}, {{3, 1}, {1, 4}, {}, {3, 4}},
                         {{}, {2, 3}, {3}, {2, 3}},        {{0, 4}, {4}, {1, 4}, {0, 4}}};
  for (const Case& s : shapes)
    for (tsr_dtype d : kDtypes)
      for (size_t l = 0; l < kLayouts.size(); ++l) {
        Layout lc = kLayouts[l], la = kLayouts[(l + 1) % 4], lb = kLayouts[(l + 2) % 4];
        INFO(tsr_dtype_name(d) << " cond=" << layout_name(lc) << " a=" << layout_name(la) << " b=" << layout_name(lb)
                               << " " << shape_str(s.out));
        check_where(make_input(s.c, TSR_BOOL, lc, Values::General, 11).view, make_input(s.a, d, la, Values::General, 12).view,
                    make_input(s.b, d, lb, Values::General, 13).view, s.out, d);
      }
  struct Mixed {
    tsr_dtype a;
    Shape sa;
    tsr_dtype b;
    Shape sb;
    tsr_dtype out;
  };
  const Mixed mixed[] = {{TSR_INT32, {3}, TSR_FLOAT32, {3}, TSR_FLOAT32},
                         {TSR_INT8, {3}, TSR_UINT8, {3}, TSR_INT16},
                         {TSR_FLOAT64, {}, TSR_FLOAT32, {3}, TSR_FLOAT32},
                         {TSR_INT64, {3}, TSR_BOOL, {3}, TSR_INT64}};
  for (const Mixed& m : mixed) {
    INFO("where " << tsr_dtype_name(m.a) << " " << tsr_dtype_name(m.b));
    check_where(make_input({3}, TSR_BOOL, Layout::Contiguous, Values::General, 14).view,
                make_input(m.sa, m.a, Layout::Contiguous, Values::General, 15).view,
                make_input(m.sb, m.b, Layout::Contiguous, Values::General, 16).view, {3}, m.out);
  }
}

namespace {
// The outcome of a = a (op) b in place, given the dtype the op computes in.
Outcome inplace_outcome(tsr_op op, tsr_dtype a, tsr_dtype b, tsr_dtype common) {
  Outcome o = binary_outcome(op, a, b, common);
  if (o.kind == Outcome::Error) return o;
  tsr_dtype compute = compute_of(op, common);
  if (!can_cast(compute, a))
    return error_of(TSR_ERR_TYPE, "result type " + dtype_name(compute) + " can't be cast to the desired output type " +
                                      dtype_name(a));
  o.dtype = a;
  return o;
}

constexpr std::array<Layout, 3> kWritable{Layout::Contiguous, Layout::Transposed, Layout::Sliced};
}  // namespace

TEST_CASE("in-place binary ops write through views") {
  for (tsr_op op : kBinaryOps) {
    if (is_comparison(op)) continue;
    for (tsr_dtype d : kDtypes)
      for (Layout la : kWritable)
        for (Layout lb : kLayouts) {
          INFO(context(op, d, la, lb));
          Input a = make_input({3, 4}, d, la, Values::General, 17);
          Input b = make_input({3, 4}, d, lb, operand_values(op), 18);
          std::vector<double> va = values(a.view), vb = values(b.view);
          check_inplace(a, inplace_outcome(op, d, d, d), [&] { return tsr_binary_(op, a.view.get(), b.view.get()); },
                        [&] { return binary_reference(op, va, {3, 4}, vb, {3, 4}, d, {3, 4}); });
        }
  }
  // Broadcast and mixed-dtype right-hand sides.
  struct Case {
    tsr_op op;
    tsr_dtype a;
    tsr_dtype b;
    Shape sb;
  };
  const Case cases[] = {{TSR_OP_ADD, TSR_FLOAT32, TSR_INT64, {4}},   {TSR_OP_MUL, TSR_FLOAT16, TSR_FLOAT64, {}},
                        {TSR_OP_ADD, TSR_INT32, TSR_FLOAT32, {3, 4}}, {TSR_OP_SUB, TSR_INT64, TSR_INT8, {3, 1}},
                        {TSR_OP_DIV, TSR_FLOAT64, TSR_INT32, {4}},    {TSR_OP_ADD, TSR_BOOL, TSR_INT8, {4}},
                        {TSR_OP_SUB, TSR_FLOAT32, TSR_BOOL, {4}},     {TSR_OP_MAXIMUM, TSR_INT16, TSR_UINT8, {1, 4}},
                        {TSR_OP_POW, TSR_BFLOAT16, TSR_FLOAT32, {}}};
  for (const Case& c : cases) {
    INFO("in-place " << tsr_op_name(c.op) << " " << tsr_dtype_name(c.a) << " with " << tsr_dtype_name(c.b)
                     << shape_str(c.sb));
    Input a = make_input({3, 4}, c.a, Layout::Sliced, Values::General, 19);
    Input b = make_input(c.sb, c.b, Layout::Contiguous, operand_values(c.op), 20);
    std::vector<double> va = values(a.view), vb = values(b.view);
    tsr_dtype common = promote(c.a, c.b);
    check_inplace(a, inplace_outcome(c.op, c.a, c.b, common),
                  [&] { return tsr_binary_(c.op, a.view.get(), b.view.get()); },
                  [&] { return binary_reference(c.op, va, {3, 4}, vb, c.sb, compute_of(c.op, common), {3, 4}); });
  }
}

TEST_CASE("in-place binary ops with a scalar") {
  const tsr_scalar scalars[] = {int_scalar(3), float_scalar(-1.5), bool_scalar(true)};
  for (tsr_op op : kBinaryOps) {
    if (is_comparison(op)) continue;
    for (tsr_dtype d : kDtypes)
      for (const tsr_scalar& s : scalars)
        for (Layout l : kWritable) {
          INFO(tsr_op_name(op) << "_ " << tsr_dtype_name(d) << " " << layout_name(l) << " scalar " << scalar_value(s)
                               << " kind " << s.kind);
          Input a = make_input({3, 4}, d, l, Values::General, 21);
          std::vector<double> va = values(a.view);
          tsr_dtype common = scalar_common(d, s);
          check_inplace(a, inplace_outcome(op, d, scalar_dtype(s), common),
                        [&] { return tsr_binary_scalar_(op, a.view.get(), s); },
                        [&] { return binary_reference(op, va, {3, 4}, {scalar_value(s)}, {}, compute_of(op, common), {3, 4}); });
        }
  }
}

TEST_CASE("in-place unary ops write through views") {
  for (tsr_op op : kUnaryOps)
    for (tsr_dtype d : kDtypes)
      for (Layout l : kWritable) {
        INFO(tsr_op_name(op) << "_ " << tsr_dtype_name(d) << " " << layout_name(l));
        Input a = make_input({3, 4}, d, l, Values::General, 22);
        std::vector<double> va = values(a.view);
        Outcome want = unary_outcome(op, d);
        if (want.kind != Outcome::Error && want.dtype != d)
          want = error_of(TSR_ERR_TYPE, "result type " + dtype_name(want.dtype) +
                                            " can't be cast to the desired output type " + dtype_name(d));
        check_inplace(a, want, [&] { return tsr_unary_(op, a.view.get()); },
                      [&] { return unary_reference(op, va, d); });
      }
}

// ---- out= forms: into an existing tensor ---------------------------------------

namespace {
// The outcome of writing `a (op) b` (promoting to `common`) into an output of dtype `out`.
Outcome into_outcome(Outcome o, tsr_dtype out) {
  if (o.kind == Outcome::Error) return o;
  if (!can_cast(o.dtype, out))
    return error_of(TSR_ERR_TYPE, "result type " + dtype_name(o.dtype) + " can't be cast to the desired output type " +
                                      dtype_name(out));
  o.dtype = out;
  return o;
}

// `out` viewed over a base filled with sentinels 77 (which stay where the view does not reach).
Input make_output(const Shape& shape, tsr_dtype dtype, Layout layout) {
  Input o = make_input(shape, dtype, layout, Values::General, 99);
  REQUIRE(tsr_fill_(o.base.get(), dtype == TSR_BOOL ? bool_scalar(true) : int_scalar(77)) == TSR_OK);
  return o;
}
}  // namespace

TEST_CASE("out= binary ops write into an existing tensor through views") {
  for (tsr_op op : kBinaryOps)
    for (tsr_dtype d : kDtypes)
      for (Layout lo : kWritable)
        for (Layout la : kLayouts) {
          Layout lb = kLayouts[(static_cast<size_t>(la) + 1) % kLayouts.size()];
          INFO("out= " << context(op, d, la, lb) << " out=" << layout_name(lo));
          Input a = make_input({3, 4}, d, la, Values::General, 31);
          Input b = make_input({3, 4}, d, lb, operand_values(op), 32);
          Outcome o = binary_outcome(op, d, d, d);
          Input out = make_output({3, 4}, o.kind == Outcome::Error ? d : o.dtype, lo);
          std::vector<double> va = values(a.view), vb = values(b.view);
          check_inplace(out, into_outcome(o, out.view.dtype()),
                        [&] { return tsr_binary_out(op, a.view.get(), b.view.get(), out.view.get()); },
                        [&] { return binary_reference(op, va, {3, 4}, vb, {3, 4}, compute_of(op, d), {3, 4}); });
        }
}

TEST_CASE("out= binary ops broadcast to the output and cast into its dtype") {
  struct Case {
    tsr_op op;
    tsr_dtype a;
    Shape sa;
    tsr_dtype b;
    Shape sb;
    tsr_dtype out;
    Shape so;
  };
  const Case cases[] = {
      {TSR_OP_ADD, TSR_FLOAT32, {4}, TSR_FLOAT32, {3, 1}, TSR_FLOAT32, {3, 4}},
      {TSR_OP_ADD, TSR_FLOAT32, {4}, TSR_FLOAT32, {4}, TSR_FLOAT32, {3, 4}},   // NumPy: inputs stretch to out
      {TSR_OP_MUL, TSR_INT32, {3, 4}, TSR_INT32, {}, TSR_FLOAT64, {3, 4}},     // int32 result cast to float64
      {TSR_OP_DIV, TSR_INT64, {3, 4}, TSR_INT64, {4}, TSR_FLOAT64, {3, 4}},    // float32 result into float64
      {TSR_OP_SUB, TSR_INT8, {3, 4}, TSR_UINT8, {3, 4}, TSR_INT64, {3, 4}},    // int16 into int64
      {TSR_OP_LT, TSR_FLOAT32, {3, 4}, TSR_INT64, {4}, TSR_FLOAT32, {3, 4}},   // bool into float32
      {TSR_OP_EQ, TSR_INT32, {3, 1}, TSR_INT32, {4}, TSR_INT8, {3, 4}},        // bool into int8
      {TSR_OP_ADD, TSR_FLOAT32, {3, 4}, TSR_FLOAT32, {3, 4}, TSR_INT32, {3, 4}},  // float into int: refused
      {TSR_OP_ADD, TSR_INT64, {3, 4}, TSR_INT64, {3, 4}, TSR_BOOL, {3, 4}},       // int into bool: refused
      {TSR_OP_ADD, TSR_FLOAT64, {3, 4}, TSR_FLOAT32, {3, 4}, TSR_FLOAT16, {3, 4}},  // narrowing a float is allowed
      {TSR_OP_MAXIMUM, TSR_BFLOAT16, {3, 4}, TSR_FLOAT32, {}, TSR_BFLOAT16, {3, 4}},
      {TSR_OP_ADD, TSR_FLOAT32, {0, 4}, TSR_FLOAT32, {4}, TSR_FLOAT32, {0, 4}},  // empty: nothing written
  };
  for (const Case& c : cases)
    for (Layout lo : kWritable) {
      INFO(tsr_op_name(c.op) << " " << tsr_dtype_name(c.a) << shape_str(c.sa) << " with " << tsr_dtype_name(c.b)
                             << shape_str(c.sb) << " into " << tsr_dtype_name(c.out) << shape_str(c.so) << " "
                             << layout_name(lo));
      Input a = make_input(c.sa, c.a, Layout::Transposed, Values::General, 33);
      Input b = make_input(c.sb, c.b, Layout::Sliced, operand_values(c.op), 34);
      Input out = make_output(c.so, c.out, lo);
      std::vector<double> va = values(a.view), vb = values(b.view);
      const tsr_dtype common = promote(c.a, c.b);
      check_inplace(out, into_outcome(binary_outcome(c.op, c.a, c.b, common), c.out),
                    [&] { return tsr_binary_out(c.op, a.view.get(), b.view.get(), out.view.get()); },
                    [&] { return binary_reference(c.op, va, c.sa, vb, c.sb, compute_of(c.op, common), c.so); });
    }
}

TEST_CASE("out= binary ops with a scalar on either side") {
  const tsr_scalar scalars[] = {int_scalar(3), float_scalar(-1.5), bool_scalar(true)};
  const tsr_op ops_[] = {TSR_OP_SUB, TSR_OP_DIV, TSR_OP_POW, TSR_OP_GT};
  for (tsr_op op : ops_)
    for (tsr_dtype d : kDtypes)
      for (const tsr_scalar& s : scalars)
        for (int reversed = 0; reversed < 2; ++reversed) {
          INFO(tsr_op_name(op) << " " << tsr_dtype_name(d) << " scalar " << scalar_value(s) << " kind " << s.kind
                               << " reversed " << reversed);
          Input a = make_input({3, 4}, d, Layout::Transposed, operand_values(op), 35);
          std::vector<double> va = values(a.view);
          const tsr_dtype common = scalar_common(d, s);
          Outcome o = reversed ? binary_outcome(op, scalar_dtype(s), d, common) : binary_outcome(op, d, scalar_dtype(s), common);
          // Into float64: every result here casts to it (bool and integers included).
          Input out = make_output({3, 4}, TSR_FLOAT64, Layout::Sliced);
          check_inplace(out, into_outcome(o, TSR_FLOAT64),
                        [&] { return tsr_binary_scalar_out(op, a.view.get(), s, reversed, out.view.get()); },
                        [&] {
                          std::vector<double> sv{scalar_value(s)};
                          return reversed ? binary_reference(op, sv, {}, va, {3, 4}, compute_of(op, common), {3, 4})
                                          : binary_reference(op, va, {3, 4}, sv, {}, compute_of(op, common), {3, 4});
                        });
        }
}

TEST_CASE("out= unary ops write into an existing tensor") {
  const tsr_dtype outs[] = {TSR_FLOAT64, TSR_FLOAT32, TSR_INT64};
  for (tsr_op op : kUnaryOps)
    for (tsr_dtype d : kDtypes)
      for (tsr_dtype od : outs)
        for (Layout lo : kWritable) {
          // -x in uint64 is 2^64 - x, no double: ops_unsigned.cpp casts it into int64 exactly.
          if (op == TSR_OP_NEG && d == TSR_UINT64 && od == TSR_INT64) continue;
          INFO(tsr_op_name(op) << " " << tsr_dtype_name(d) << " into " << tsr_dtype_name(od) << " "
                               << layout_name(lo));
          Input a = make_input({3, 4}, d, Layout::Expanded, Values::General, 36);
          std::vector<double> va = values(a.view);
          Outcome o = unary_outcome(op, d);
          Input out = make_output({3, 4}, od, lo);
          check_inplace(out, into_outcome(o, od), [&] { return tsr_unary_out(op, a.view.get(), out.view.get()); },
                        [&] { return unary_reference(op, va, o.dtype); });
        }
}

TEST_CASE("out= outputs that share memory with the inputs") {
  const Shape s34{3, 4};
  std::vector<double> x0(12);
  for (size_t i = 0; i < x0.size(); ++i) x0[i] = static_cast<double>(i) - 4.0;
  auto fresh = [&] { return from_values(x0, s34, TSR_FLOAT32); };
  auto at = [&](int64_t r, int64_t c) { return x0[static_cast<size_t>(r * 4 + c)]; };
  SECTION("out is an input exactly: the in-place result") {
    Tensor x = fresh();
    REQUIRE(tsr_binary_out(TSR_OP_MUL, x.get(), x.get(), x.get()) == TSR_OK);
    std::vector<double> want(12);
    for (size_t i = 0; i < 12; ++i) want[i] = x0[i] * x0[i];
    CHECK(mismatch(x, s34, TSR_FLOAT32, want) == "");
    Tensor y = fresh();
    REQUIRE(tsr_unary_out(TSR_OP_NEG, y.get(), y.get()) == TSR_OK);
    for (size_t i = 0; i < 12; ++i) want[i] = -x0[i];
    CHECK(mismatch(y, s34, TSR_FLOAT32, want) == "");
  }
  SECTION("the C++ wrapper's assign is the out= form") {
    Tensor x = fresh(), z = from_values(std::vector<double>(12, 0.0), s34, TSR_FLOAT64);
    z.assign(TSR_OP_SUB, x, x.select(0, 2)).assign(TSR_OP_ABS, z);
    std::vector<double> want(12);
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t c = 0; c < 4; ++c) want[static_cast<size_t>(r * 4 + c)] = std::fabs(at(r, c) - at(2, c));
    CHECK(mismatch(z, s34, TSR_FLOAT64, want) == "");
  }
  SECTION("a row of out broadcast over out reads the row as it was") {
    Tensor x = fresh();
    Tensor row = x.select(0, 1);  // overwritten by the second row of the result
    REQUIRE(tsr_binary_out(TSR_OP_ADD, x.get(), row.get(), x.get()) == TSR_OK);
    std::vector<double> want(12);
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t c = 0; c < 4; ++c) want[static_cast<size_t>(r * 4 + c)] = at(r, c) + at(1, c);
    CHECK(mismatch(x, s34, TSR_FLOAT32, want) == "");
  }
  SECTION("shifted windows of one storage: as if every input were read first") {
    Tensor x = fresh();
    Tensor src = x.slice(1, 0, 3), dst = x.slice(1, 1, 4);  // out[:, j] = x[:, j-1] * 2 + 0 via (src + src)
    REQUIRE(tsr_binary_out(TSR_OP_ADD, src.get(), src.get(), dst.get()) == TSR_OK);
    std::vector<double> want = x0;
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t c = 1; c < 4; ++c) want[static_cast<size_t>(r * 4 + c)] = 2 * at(r, c - 1);
    CHECK(mismatch(x, s34, TSR_FLOAT32, want) == "");
    Tensor y = fresh();
    Tensor ysrc = y.slice(1, 0, 3), ydst = y.slice(1, 1, 4);
    REQUIRE(tsr_unary_out(TSR_OP_NEG, ysrc.get(), ydst.get()) == TSR_OK);
    for (int64_t r = 0; r < 3; ++r)
      for (int64_t c = 1; c < 4; ++c) want[static_cast<size_t>(r * 4 + c)] = -at(r, c - 1);
    CHECK(mismatch(y, s34, TSR_FLOAT32, want) == "");
  }
  SECTION("the transpose of out is read from a copy") {
    std::vector<double> sq(16);
    for (size_t i = 0; i < 16; ++i) sq[i] = static_cast<double>(i);
    Tensor m = from_values(sq, {4, 4}, TSR_FLOAT64);
    Tensor mt = m.transpose(0, 1);
    REQUIRE(tsr_binary_out(TSR_OP_SUB, m.get(), mt.get(), m.get()) == TSR_OK);
    std::vector<double> want(16);
    for (size_t r = 0; r < 4; ++r)
      for (size_t c = 0; c < 4; ++c) want[r * 4 + c] = sq[r * 4 + c] - sq[c * 4 + r];
    CHECK(mismatch(m, {4, 4}, TSR_FLOAT64, want) == "");
  }
}

TEST_CASE("out= errors name what is wrong and write nothing") {
  Tensor f34 = make_input({3, 4}, TSR_FLOAT32, Layout::Contiguous).view;
  Tensor f4 = make_input({4}, TSR_FLOAT32, Layout::Contiguous).view;
  struct Case {
    const char* name;
    Input out;
    std::function<tsr_status(const Tensor&)> call;
    tsr_status status;
    const char* message;
  };
  const Case cases[] = {
      {"out smaller than the broadcast shape", make_output({4}, TSR_FLOAT32, Layout::Sliced),
       [&](const Tensor& o) { return tsr_binary_out(TSR_OP_ADD, f34.get(), f4.get(), o.get()); }, TSR_ERR_SHAPE,
       "output with shape [4] doesn't match the broadcast shape [3, 4]"},
      {"out of another shape", make_output({4, 3}, TSR_FLOAT32, Layout::Contiguous),
       [&](const Tensor& o) { return tsr_binary_out(TSR_OP_ADD, f34.get(), f34.get(), o.get()); }, TSR_ERR_SHAPE,
       "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"},
      {"unary into another shape", make_output({2, 4}, TSR_FLOAT32, Layout::Contiguous),
       [&](const Tensor& o) { return tsr_unary_out(TSR_OP_EXP, f34.get(), o.get()); }, TSR_ERR_SHAPE,
       "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"},
      {"expanded out", make_output({3, 4}, TSR_FLOAT32, Layout::Expanded),
       [&](const Tensor& o) { return tsr_binary_out(TSR_OP_ADD, f34.get(), f34.get(), o.get()); },
       TSR_ERR_INVALID_ARGUMENT, "more than one element of the written-to tensor refers to a single memory location"},
      {"float result into int64", make_output({3, 4}, TSR_INT64, Layout::Transposed),
       [&](const Tensor& o) { return tsr_unary_out(TSR_OP_SIGMOID, f34.get(), o.get()); }, TSR_ERR_TYPE,
       "result type float32 can't be cast to the desired output type int64"},
      {"NULL out", make_output({3, 4}, TSR_FLOAT32, Layout::Contiguous),
       [&](const Tensor&) { return tsr_binary_out(TSR_OP_ADD, f34.get(), f34.get(), nullptr); },
       TSR_ERR_INVALID_ARGUMENT, "out"},
      {"NULL a", make_output({3, 4}, TSR_FLOAT32, Layout::Contiguous),
       [&](const Tensor& o) { return tsr_unary_out(TSR_OP_RELU, nullptr, o.get()); }, TSR_ERR_INVALID_ARGUMENT, "a"},
      {"not a binary op", make_output({3, 4}, TSR_FLOAT32, Layout::Contiguous),
       [&](const Tensor& o) { return tsr_binary_out(TSR_OP_RELU, f34.get(), f34.get(), o.get()); },
       TSR_ERR_INVALID_ARGUMENT, "relu (op 20) is not a binary op"},
      {"an op number no ABI has", make_output({3, 4}, TSR_FLOAT32, Layout::Contiguous),
       [&](const Tensor& o) { return tsr_binary_out(static_cast<tsr_op>(999), f34.get(), f34.get(), o.get()); },
       TSR_ERR_INVALID_ARGUMENT, "op 999 (not an op of ABI 1."},
      {"bool - bool", make_output({3, 4}, TSR_BOOL, Layout::Contiguous),
       [&](const Tensor& o) { return tsr_binary_scalar_out(TSR_OP_SUB, o.get(), bool_scalar(true), 0, o.get()); },
       TSR_ERR_TYPE, "Subtraction, the `-` operator, with two bool tensors is not supported."},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    check_inplace(c.out, error_of(c.status, c.message), [&] { return c.call(c.out.view); }, [] {
      return std::vector<double>{};
    });
  }
}
