// SPDX-License-Identifier: Apache-2.0
// The autograd engine's first step (Note [Autograd], runtime/autograd.hpp),
// white-box: gradients of compositions of ADD SUB MUL DIV (tensors and
// scalars, broadcast), NEG EXP LOG TANH, SUM and MATMUL against float64
// central differences of the same functions; accumulation on leaves,
// no_grad, the errors, and an op without a formula failing at backward.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "autograd.hpp"
#include "derivatives.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "tensor.hpp"
#include "test_paths.hpp"

using namespace tessera::rt;
namespace ag = tessera::rt::autograd;

namespace {

struct Runtime {
  tsr_runtime* rt = nullptr;
  Runtime() {
    const std::string config = std::string(test_paths::config_dir) + "/cpu.json";
    tsr_runtime_options opts = TSR_RUNTIME_OPTIONS_INIT;
    opts.config_path = config.c_str();
    REQUIRE(tsr_runtime_create(&opts, &rt) == TSR_OK);
  }
  ~Runtime() { tsr_runtime_destroy(rt); }
};

Runtime& runtime() {
  static Runtime r;
  return r;
}

TensorRef tensor(const std::vector<double>& values, std::vector<int64_t> shape, bool requires_grad = true) {
  TensorRef t = from_host(*runtime().rt, values.data(), static_cast<int32_t>(shape.size()), shape.data(), TSR_FLOAT64,
                          tsr_device{TSR_DEVICE_CPU, 0});
  if (requires_grad) ag::set_requires_grad(*t, true);
  return t;
}

std::vector<double> values(const tsr_tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.layout.numel()));
  read_to_host(t, out.data(), out.size() * sizeof(double));
  return out;
}

double scalar_of(const tsr_tensor& t) { return values(t).at(0); }

// backward() from one one-element output.
void backward_of(const TensorRef& y) { ag::backward({y}, {}, {}, {}); }

using Function = std::function<TensorRef(const std::vector<TensorRef>&)>;

// Checks every leaf's gradient of f (one element) against central
// differences of f in float64, each element moved by +-h.
void check_gradients(const Function& f, std::vector<std::vector<double>> data, const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<TensorRef> leaves;
  for (size_t i = 0; i < data.size(); ++i) leaves.push_back(tensor(data[i], shapes[i]));
  TensorRef y = f(leaves);
  REQUIRE(y->layout.numel() == 1);
  backward_of(y);
  const double h = 1e-6;
  for (size_t i = 0; i < data.size(); ++i) {
    TensorRef g = ag::grad(*leaves[i]);
    REQUIRE(g);
    const std::vector<double> got = values(*g);
    REQUIRE(got.size() == data[i].size());
    for (size_t k = 0; k < data[i].size(); ++k) {
      auto at = [&](double delta) {
        std::vector<TensorRef> moved;
        for (size_t j = 0; j < data.size(); ++j) {
          std::vector<double> v = data[j];
          if (j == i) v[k] += delta;
          moved.push_back(tensor(v, shapes[j], false));
        }
        return scalar_of(*f(moved));
      };
      const double want = (at(h) - at(-h)) / (2 * h);
      INFO("leaf " << i << " element " << k);
      CHECK(got[k] == Approx(want).epsilon(1e-6).margin(1e-8));
    }
  }
}

tsr_scalar number(double v) { return make_scalar(v); }

TensorRef sum_all(const TensorRef& t) { return reduce(TSR_OP_SUM, *t, 0, nullptr, false, 0); }

}  // namespace

TEST_CASE("autograd: broadcast arithmetic, scalars and unary functions match central differences") {
  // sum(tanh(x * w + b) / (2 - exp(-x)) - log(w)) over x [2, 3], w [3], b [2, 1]
  check_gradients(
      [](const std::vector<TensorRef>& p) {
        TensorRef t = binary(TSR_OP_ADD, *binary(TSR_OP_MUL, *p[0], *p[1]), *p[2]);
        TensorRef num = unary(TSR_OP_TANH, *t);
        TensorRef den = binary_scalar(TSR_OP_SUB, *unary(TSR_OP_EXP, *unary(TSR_OP_NEG, *p[0])), number(2), true);
        TensorRef q = binary(TSR_OP_SUB, *binary(TSR_OP_DIV, *num, *den), *unary(TSR_OP_LOG, *p[1]));
        return sum_all(binary_scalar(TSR_OP_MUL, *q, number(0.5), false));
      },
      {{0.3, -0.7, 1.1, 0.05, 0.9, -1.3}, {0.8, 1.6, 0.4}, {0.2, -0.1}}, {{2, 3}, {3}, {2, 1}});
}

TEST_CASE("autograd: matmul with broadcast batch dims, sum over some dims, and a reused input") {
  // sum(sum((a @ b) * (a @ b), dim 1) / 3) with a [2, 3, 4] and b [4, 2]: b's gradient sums over the batch
  check_gradients(
      [](const std::vector<TensorRef>& p) {
        TensorRef c = matmul(*p[0], *p[1]);
        TensorRef sq = binary(TSR_OP_MUL, *c, *c);
        const int32_t dims[1] = {1};
        TensorRef s = reduce(TSR_OP_SUM, *sq, 1, dims, false, 0);
        return sum_all(binary_scalar(TSR_OP_DIV, *s, number(3), false));
      },
      {{0.1, 0.2, -0.3, 0.4, 0.5, -0.6, 0.7, 0.8, -0.9, 1.0, 0.11, 0.12,
        0.13, -0.14, 0.15, 0.16, 0.17, 0.18, -0.19, 0.2, 0.21, 0.22, 0.23, -0.24},
       {1.0, -0.5, 0.25, 0.75, -1.25, 0.5, 0.3, -0.2}},
      {{2, 3, 4}, {4, 2}});
}

TEST_CASE("autograd: sqrt, abs, relu, sigmoid, pow, maximum, minimum and mean match central differences") {
  // Away from the kinks (abs and relu at 0, ties): those are checked exactly below.
  check_gradients(
      [](const std::vector<TensorRef>& p) {
        TensorRef r = binary(TSR_OP_ADD, *unary(TSR_OP_SQRT, *p[1]), *unary(TSR_OP_ABS, *p[0]));
        r = binary(TSR_OP_MUL, *r, *unary(TSR_OP_SIGMOID, *unary(TSR_OP_RELU, *p[0])));
        r = binary(TSR_OP_ADD, *r, *binary_scalar(TSR_OP_POW, *p[0], number(3), false));
        r = binary(TSR_OP_ADD, *r, *binary_scalar(TSR_OP_POW, *p[1], number(1.5), true));  // 1.5 ** p1
        r = binary(TSR_OP_ADD, *r, *binary(TSR_OP_POW, *p[1], *p[0]));
        r = binary(TSR_OP_ADD, *r, *binary(TSR_OP_MAXIMUM, *p[0], *p[1]));
        r = binary(TSR_OP_SUB, *r, *binary(TSR_OP_MINIMUM, *p[0], *p[1]));
        const int32_t dims[1] = {0};
        return sum_all(reduce(TSR_OP_MEAN, *r, 1, dims, false, 0));
      },
      {{0.3, -0.7, 1.1, 0.45, -0.9, 0.6}, {0.8, 1.6, 0.4, 0.3, 0.55, 1.2}}, {{2, 3}, {2, 3}});
}

TEST_CASE("autograd: the subgradients PyTorch 1.13 gives") {
  TensorRef x = tensor({0.0, -1.0, 2.0}, {3});
  TensorRef y = tensor({0.0, 3.0, 2.0}, {3});
  TensorRef s = sum_all(binary(TSR_OP_ADD, *unary(TSR_OP_RELU, *x), *unary(TSR_OP_ABS, *x)));
  backward_of(s);
  CHECK(values(*ag::grad(*x)) == std::vector<double>{0.0, -1.0, 2.0});  // relu' and abs' at 0: 0
  TensorRef x2 = tensor({0.0, -1.0, 2.0}, {3});
  backward_of(sum_all(binary(TSR_OP_MAXIMUM, *x2, *y)));
  CHECK(values(*ag::grad(*x2)) == std::vector<double>{0.5, 0.0, 0.5});  // ties split in halves
  CHECK(values(*ag::grad(*y)) == std::vector<double>{0.5, 1.0, 0.5});
  TensorRef z = tensor({0.0, 4.0}, {2});
  backward_of(sum_all(unary(TSR_OP_SQRT, *z)));
  const std::vector<double> gz = values(*ag::grad(*z));
  CHECK(std::isinf(gz[0]));
  CHECK(gz[1] == 0.25);
}

namespace {
// The tensor a C API call makes, adopted.
template <class F> TensorRef c_view(F&& call) {
  tsr_tensor* out = nullptr;
  const tsr_status st = call(&out);
  INFO(tsr_last_error_message());
  REQUIRE(st == TSR_OK);
  return TensorRef(out);
}
}  // namespace

TEST_CASE("autograd: views and copies through the C API carry gradients back") {
  // sum over a transposed, sliced, selected, expanded, reshaped, permuted and cloned chain of x [2, 3, 4]
  check_gradients(
      [](const std::vector<TensorRef>& p) {
        TensorRef t = c_view([&](tsr_tensor** o) { return tsr_transpose(p[0].get(), 0, 2, o); });  // [4, 3, 2]
        TensorRef sl = c_view([&](tsr_tensor** o) { return tsr_slice(t.get(), 0, 1, 4, 2, o); });  // rows 1 and 3: [2, 3, 2]
        TensorRef se = c_view([&](tsr_tensor** o) { return tsr_select(sl.get(), 2, 1, o); });      // [2, 3]
        TensorRef un = c_view([&](tsr_tensor** o) { return tsr_unsqueeze(se.get(), 0, o); });      // [1, 2, 3]
        const int64_t wide[3] = {4, 2, 3};
        TensorRef ex = c_view([&](tsr_tensor** o) { return tsr_expand(un.get(), 3, wide, o); });   // [4, 2, 3], stride 0
        const int64_t flat[2] = {8, 3};
        TensorRef re = c_view([&](tsr_tensor** o) { return tsr_reshape(ex.get(), 2, flat, o); });  // not viewable: a copy, then a view
        const int32_t perm[2] = {1, 0};
        TensorRef pe = c_view([&](tsr_tensor** o) { return tsr_permute(re.get(), 2, perm, o); });
        TensorRef w = tensor({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24},
                             {3, 8}, false);
        TensorRef c = clone(*binary(TSR_OP_MUL, *pe, *w));
        return sum_all(binary(TSR_OP_MUL, *c, *c));
      },
      {{0.5, 0.25, 0.125, 1.0, 0.75, 0.5, 0.25, 1.5, 1.25, 1.0, 0.75, 0.5,
        0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4}},
      {{2, 3, 4}});
}

TEST_CASE("autograd: a gradient has its input's dtype") {
  TensorRef x = tensor({1.0, -2.0, 3.0}, {3});
  TensorRef y = binary_scalar(TSR_OP_MUL, *to(x, TSR_FLOAT32, x->device), number(2), false);
  CHECK(y->dtype == TSR_FLOAT32);
  backward_of(sum_all(y));
  TensorRef g = ag::grad(*x);
  CHECK(g->dtype == TSR_FLOAT64);
  CHECK(values(*g) == std::vector<double>{2.0, 2.0, 2.0});
}

TEST_CASE("autograd: gradients accumulate on leaves; no_grad records nothing") {
  TensorRef x = tensor({1.0, 2.0, 3.0}, {3});
  for (int round = 0; round < 2; ++round) {
    TensorRef y = sum_all(binary(TSR_OP_MUL, *x, *x));
    CHECK(std::string(ag::grad_fn(*y)->name()) == "SumBackward0");
    backward_of(y);
  }
  CHECK(values(*ag::grad(*x)) == std::vector<double>{4.0, 8.0, 12.0});  // 2 * (2x)
  {
    ag::GradModeGuard off(false);
    TensorRef y = binary(TSR_OP_MUL, *x, *x);
    CHECK_FALSE(ag::requires_grad(*y));
  }
  TensorRef z = binary_scalar(TSR_OP_DIV, *x, number(2), true);  // 2 / x
  CHECK(std::string(ag::grad_fn(*z)->name()) == "MulBackward0");
  CHECK(ag::grad_fn(*x) == nullptr);
}

TEST_CASE("autograd: errors name what is wrong") {
  TensorRef plain = tensor({1.0}, {1}, false);
  try {
    backward_of(plain);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "element 0 of tensors does not require grad and does not have a grad_fn");
  }
  TensorRef x = tensor({1.0, 2.0}, {2});
  try {
    backward_of(binary(TSR_OP_MUL, *x, *x));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "grad can be implicitly created only for scalar outputs");
  }
  TensorRef m = sum_all(binary(TSR_OP_FLOOR_DIVIDE, *x, *x));  // no derivative (PyTorch's neither): fails loudly
  try {
    backward_of(m);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.status() == TSR_ERR_UNSUPPORTED);
    CHECK(std::string(e.what()) == "derivative for aten::floor_divide is not implemented");
  }
  int64_t shape[1] = {2};
  TensorRef i = empty(*runtime().rt, 1, shape, TSR_INT64, tsr_device{TSR_DEVICE_CPU, 0});
  try {
    ag::set_requires_grad(*i, true);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "only Tensors of floating point dtype can require gradients");
  }
  TensorRef y = binary(TSR_OP_ADD, *x, *x);
  CHECK_THROWS_AS(ag::set_requires_grad(*y, false), Error);  // not a leaf
}

// Note [Every op has a gradient or a reason]: the table and the formulas
// agree. Each binary, unary, reduction and MATH op the table says has a
// formula records a node of its own on float64 leaves, and backward through
// it runs (values are the finite-difference tests' business above); each
// one it calls pending or refused fails at backward naming it.
TEST_CASE("autograd: op_gradient agrees with the derivative table") {
  int checked = 0;
  for (int32_t op = 0; op < TSR_OP_COUNT; ++op) {
    const ag::Gradient row = ag::op_gradient(static_cast<tsr_op>(op));
    const int32_t kind = tsr_op_kind(op);
    if (kind != TSR_OP_KIND_BINARY && kind != TSR_OP_KIND_UNARY && kind != TSR_OP_KIND_REDUCE &&
        kind != TSR_OP_KIND_MATH)
      continue;
    if (row == ag::Gradient::kNone) continue;
    INFO(tsr_op_name(op));
    std::vector<int32_t> fns;
    if (kind == TSR_OP_KIND_MATH)
      for (int32_t fn = 0; fn < TSR_MATH_CONJ; ++fn) fns.push_back(fn);
    else
      fns.push_back(-1);
    for (int32_t fn : fns) {
      TensorRef x = tensor({0.5, 1.5, 2.5, 0.25, 0.75, 1.25}, {2, 3});
      TensorRef y = tensor({1.5, 0.5, 2.0, 1.25, 0.5, 0.75}, {2, 3});
      TensorRef out = kind == TSR_OP_KIND_BINARY ? binary(op, *x, *y)
                      : kind == TSR_OP_KIND_UNARY ? unary(op, *x)
                      : kind == TSR_OP_KIND_MATH ? math(fn, *x)
                                                 : reduce(op, *x, 0, nullptr, false, op == TSR_OP_VAR || op == TSR_OP_STD);
      REQUIRE(ag::grad_fn(*out));
      const std::string node = ag::grad_fn(*out)->name();
      if (row == ag::Gradient::kFormula) {
        CHECK(node != "NotImplemented");
        backward_of(sum_all(out));
        CHECK(ag::grad(*x));
      } else {
        CHECK(node == "NotImplemented");
        CHECK_THROWS_WITH(backward_of(sum_all(out)), Catch::Contains(tsr_op_name(op)));
      }
      ++checked;
    }
  }
  CHECK(checked > 40);  // every binary, unary, reduction and MATH row above
}
