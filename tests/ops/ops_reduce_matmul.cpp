// SPDX-License-Identifier: Apache-2.0
// Reductions (SUM MEAN MAX MIN ARGMAX over all, one and several dims, with
// and without keepdim, negative dims) and MATMUL (1-D and N-D operands,
// broadcast batches, K = 0) on every dtype and layout, against a float64
// reference computed on the host.
#include <cmath>
#include <limits>

#include "ops_common.hpp"

using namespace ops;

namespace {

constexpr std::array<tsr_op, 5> kReductions{TSR_OP_SUM, TSR_OP_MEAN, TSR_OP_MAX, TSR_OP_MIN, TSR_OP_ARGMAX};

// Which dims a reduction over `dims` (empty: all) covers on an ndim tensor.
std::vector<bool> reduced_mask(const std::vector<int32_t>& dims, size_t ndim) {
  std::vector<bool> mask(ndim, dims.empty());
  for (int32_t d : dims)
    if (ndim > 0) mask[static_cast<size_t>(d < 0 ? d + static_cast<int32_t>(ndim) : d)] = true;
  return mask;
}

Outcome reduce_outcome(tsr_op op, tsr_dtype d, const Shape& shape, const std::vector<int32_t>& dims) {
  const std::string name = tsr_op_name(op);
  if (op == TSR_OP_MEAN && !is_float(d))
    return error_of(TSR_ERR_TYPE, "mean(): could not infer output dtype. Input dtype must be either a floating point or "
                                  "complex dtype. Got: " + dtype_name(d));
  if (op == TSR_OP_MAX || op == TSR_OP_MIN || op == TSR_OP_ARGMAX) {
    if (dims.empty() && numel(shape) == 0)
      return error_of(TSR_OK, name + "(): Expected reduction dim to be specified for input.numel() == 0.");
    std::vector<bool> mask = reduced_mask(dims, shape.size());
    for (size_t i = 0; i < shape.size(); ++i)
      if (mask[i] && shape[i] == 0)
        return error_of(TSR_ERR_INDEX, "Expected reduction dim " + std::to_string(i) + " to have non-zero size.");
  }
  if (op == TSR_OP_ARGMAX) return d == TSR_BOOL ? either_of(TSR_INT64) : value_of(TSR_INT64);  // no bool argmax in 1.13
  // NumPy's sum of uint16/32/64 is uint64 (Note [Kernel contracts]); PyTorch's of the rest int64.
  if (op == TSR_OP_SUM && !is_float(d))
    return value_of(d == TSR_UINT16 || d == TSR_UINT32 || d == TSR_UINT64 ? TSR_UINT64 : TSR_INT64);
  return value_of(d);
}

Shape reduced_shape(tsr_op op, const Shape& shape, const std::vector<int32_t>& dims, bool keepdim) {
  std::vector<bool> mask = reduced_mask(dims, shape.size());
  Shape out;
  for (size_t i = 0; i < shape.size(); ++i)
    if (!mask[i] || keepdim) out.push_back(mask[i] ? 1 : shape[i]);
  (void)op;  // argmax without a dim keeps every dim as 1 with keepdim, like the others
  return out;
}

// The reduction in double: elements visit their output cell in row-major
// order, so "first" (argmax ties, first NaN) is the lowest index.
std::vector<double> reduce_reference(tsr_op op, const std::vector<double>& v, const Shape& shape,
                                     const std::vector<int32_t>& dims) {
  std::vector<bool> mask = reduced_mask(dims, shape.size());
  Shape keep;
  for (size_t i = 0; i < shape.size(); ++i) keep.push_back(mask[i] ? 1 : shape[i]);
  size_t n = static_cast<size_t>(numel(keep));
  std::vector<double> acc(n, 0.0), best(n, std::nan("")), index(n, 0.0), count(n, 0.0);
  for (size_t k = 0; k < v.size(); ++k) {
    // The output cell and the position along the (single) reduced dim.
    int64_t rest = static_cast<int64_t>(k), cell = 0, scale = 1, along = 0;
    for (size_t d = shape.size(); d-- > 0;) {
      int64_t coord = rest % shape[d];
      rest /= shape[d];
      if (mask[d]) along = coord;
      cell += (mask[d] ? 0 : coord) * scale;
      scale *= keep[d];
    }
    size_t c = static_cast<size_t>(cell);
    double x = v[k];
    double pos = dims.empty() ? static_cast<double>(k) : static_cast<double>(along);
    acc[c] += x;
    bool first = count[c] == 0;
    count[c] += 1;
    bool better = op == TSR_OP_MIN ? x < best[c] : x > best[c];
    if (first || (!std::isnan(best[c]) && (std::isnan(x) || better))) best[c] = x, index[c] = pos;
  }
  for (size_t c = 0; c < n; ++c) {
    if (op == TSR_OP_SUM) best[c] = acc[c];
    if (op == TSR_OP_MEAN) best[c] = acc[c] / count[c];
    if (op == TSR_OP_ARGMAX) best[c] = index[c];
  }
  return best;
}

void check_reduce(tsr_op op, const Tensor& t, const std::vector<int32_t>& dims, bool keepdim) {
  Outcome want = reduce_outcome(op, t.dtype(), t.shape(), dims);
  Result r = attempt([&](tsr_tensor** o) {
    return tsr_reduce(op, t.get(), static_cast<int32_t>(dims.size()), dims.empty() ? nullptr : dims.data(),
                      keepdim ? 1 : 0, o);
  });
  check_outcome(r, want, reduced_shape(op, t.shape(), dims, keepdim),
                [&] { return reduce_reference(op, values(t), t.shape(), dims); });
}

std::string dims_str(const std::vector<int32_t>& dims) {
  std::string s = "dims {";
  for (int32_t d : dims) s += std::to_string(d) + " ";
  return s + "}";
}

}  // namespace

TEST_CASE("reductions: every op x dtype x layout over all, one and several dims") {
  const std::vector<std::vector<int32_t>> dims3{{}, {0}, {1}, {-1}, {-2}, {0, 2}, {-1, 0}, {0, 1, 2}};
  const std::vector<std::vector<int32_t>> dims0{{}, {0}, {-1}};
  for (const Shape& shape : {Shape{2, 3, 4}, Shape{2, 0, 3}, Shape{}})
    for (tsr_op op : kReductions)
      for (tsr_dtype d : kDtypes)
        for (Layout l : kLayouts)
          for (const auto& dims : shape.empty() ? dims0 : dims3)
            for (bool keepdim : {false, true}) {
              if (op == TSR_OP_ARGMAX && dims.size() > 1) continue;
              INFO(tsr_op_name(op) << " " << tsr_dtype_name(d) << " " << layout_name(l) << " " << shape_str(shape)
                                   << " " << dims_str(dims) << " keepdim " << keepdim);
              check_reduce(op, make_input(shape, d, l, Values::General, 31).view, dims, keepdim);
            }
}

TEST_CASE("reductions: NaN wins max, min and argmax; ties pick the first") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> v{1, nan, 3, nan, 2, 2, -1, 0, nan, 5, 5, 1};
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16})
    for (tsr_op op : kReductions)
      for (const std::vector<int32_t>& dims : {std::vector<int32_t>{}, {0}, {1}}) {
        INFO(tsr_op_name(op) << " " << tsr_dtype_name(d) << " " << dims_str(dims));
        check_reduce(op, from_values(v, {3, 4}, d), dims, false);
        check_reduce(op, from_values(v, {4, 3}, d).T(), dims, true);
      }
  // argmax's tie rule on the flat index: the first 5 wins.
  Tensor t = from_values({1, 5, 2, 5}, {2, 2}, TSR_INT32);
  check_reduce(TSR_OP_ARGMAX, t, {}, false);
  CHECK(t.argmax().item_int() == 1);
}

TEST_CASE("reductions: long rows accumulate without losing precision") {
  // Values k/8: every partial sum is exact in float32, so a sum rounds once.
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT32, TSR_UINT8, TSR_UINT64})
    for (const Shape& shape : {Shape{7, 300}, Shape{20000}})
      for (Layout l : {Layout::Contiguous, Layout::Transposed, Layout::Sliced})
        for (tsr_op op : {TSR_OP_SUM, TSR_OP_MEAN, TSR_OP_MAX, TSR_OP_ARGMAX})
          for (const std::vector<int32_t>& dims : {std::vector<int32_t>{}, {0}, {-1}}) {
            if (shape.size() == 1 && dims.size() == 1 && dims[0] == -1) continue;
            INFO(tsr_op_name(op) << " " << tsr_dtype_name(d) << " " << layout_name(l) << " " << shape_str(shape)
                                 << " " << dims_str(dims));
            check_reduce(op, make_input(shape, d, l, Values::General, 32).view, dims, false);
          }
}

namespace {

// PyTorch's matmul in double: 1-D operands become (1, k) / (k, 1), batch
// dims broadcast, and the added dims are dropped from the result.
std::vector<double> matmul_reference(const std::vector<double>& av, Shape sa, const std::vector<double>& bv, Shape sb) {
  bool a1 = sa.size() == 1, b1 = sb.size() == 1;
  if (a1) sa.insert(sa.begin(), 1);
  if (b1) sb.push_back(1);
  int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  Shape ba(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
  Shape batch = tessera::broadcast_shapes(ba, bb);
  std::vector<double> out(static_cast<size_t>(numel(batch) * m * n));
  for (int64_t i = 0; i < numel(batch); ++i) {
    int64_t ia = broadcast_source(batch, ba, i), ib = broadcast_source(batch, bb, i);
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < n; ++c) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p)
          s += av[static_cast<size_t>((ia * m + r) * k + p)] * bv[static_cast<size_t>((ib * k + p) * n + c)];
        out[static_cast<size_t>((i * m + r) * n + c)] = s;
      }
  }
  return out;
}

void check_matmul(const Tensor& a, const Tensor& b, const Shape& out) {
  tsr_dtype d = a.dtype();
  // PyTorch 1.13 has no CPU matmul for float16 or bool.
  Outcome want = d == TSR_FLOAT16 || d == TSR_BOOL ? either_of(d) : value_of(d);
  Result r = attempt([&](tsr_tensor** o) { return tsr_matmul(a.get(), b.get(), o); });
  check_outcome(r, want, out, [&] { return matmul_reference(values(a), a.shape(), values(b), b.shape()); });
}

}  // namespace

TEST_CASE("matmul: 1-D and N-D operands, broadcast batches, K = 0, every dtype and layout") {
  struct Case {
    Shape a, b, out;
  };
  const Case cases[] = {{{4}, {4}, {}},
                        {{3}, {3, 5}, {5}},
                        {{2, 3}, {3}, {2}},
                        {{2, 3}, {3, 4}, {2, 4}},
                        {{2, 1, 3, 4}, {5, 4, 2}, {2, 5, 3, 2}},
                        {{3}, {2, 3, 4}, {2, 4}},
                        {{2, 3, 4}, {4}, {2, 3}},
                        {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}},
                        {{1, 2, 3}, {4, 3, 2}, {4, 2, 2}},
                        {{3, 0}, {0, 4}, {3, 4}},
                        {{0}, {0}, {}},
                        {{0, 3}, {3, 4}, {0, 4}},
                        {{2, 0, 3}, {3, 4}, {2, 0, 4}}};
  for (const Case& c : cases)
    for (tsr_dtype d : kDtypes)
      for (Layout la : kLayouts)
        for (Layout lb : kLayouts) {
          INFO("matmul " << tsr_dtype_name(d) << " " << shape_str(c.a) << " " << layout_name(la) << " @ "
                         << shape_str(c.b) << " " << layout_name(lb));
          check_matmul(make_input(c.a, d, la, Values::General, 41).view, make_input(c.b, d, lb, Values::General, 42).view,
                       c.out);
        }
}

TEST_CASE("matmul: larger operands (the BLAS path) and integer wrap-around") {
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_BFLOAT16, TSR_INT8, TSR_INT32, TSR_INT64, TSR_UINT32})
    for (Layout la : {Layout::Contiguous, Layout::Transposed, Layout::Sliced})
      for (Layout lb : {Layout::Contiguous, Layout::Transposed, Layout::Expanded}) {
        INFO("matmul " << tsr_dtype_name(d) << " " << layout_name(la) << " @ " << layout_name(lb));
        check_matmul(make_input({2, 33, 65}, d, la, Values::General, 43).view,
                     make_input({65, 17}, d, lb, Values::General, 44).view, {2, 33, 17});
        check_matmul(make_input({65}, d, la, Values::General, 45).view,
                     make_input({3, 65, 9}, d, lb, Values::General, 46).view, {3, 9});
      }
  // 1*100 + 2*100 = 300 wraps to 44 in int8, as in PyTorch.
  Tensor a = from_values({1, 2, 3, 4}, {2, 2}, TSR_INT8), b = from_values({100, 0, 100, 0}, {2, 2}, TSR_INT8);
  Result r = attempt([&](tsr_tensor** o) { return tsr_matmul(a.get(), b.get(), o); });
  check_outcome(r, value_of(TSR_INT8), {2, 2}, [] { return std::vector<double>{44, 0, -68, 0}; });
}

// ---- matmul out=: into an existing tensor ----------------------------------------

namespace {
// `out` as a view over a base of sentinels (77), which must stay where the view does not reach.
Input matmul_output(const Shape& shape, tsr_dtype dtype, Layout layout) {
  Input o = make_input(shape, dtype, layout, Values::General, 98);
  REQUIRE(tsr_fill_(o.base.get(), int_scalar(77)) == TSR_OK);
  return o;
}
}  // namespace

TEST_CASE("matmul out=: every writable output layout, 1-D and batched operands") {
  struct Case {
    Shape a, b, out;
  };
  const Case cases[] = {{{4}, {4}, {}},          {{3}, {3, 5}, {5}},          {{2, 3}, {3}, {2}},
                        {{2, 3}, {3, 4}, {2, 4}}, {{2, 1, 3, 4}, {5, 4, 2}, {2, 5, 3, 2}},
                        {{2, 33, 65}, {65, 17}, {2, 33, 17}}, {{3, 0}, {0, 4}, {3, 4}}};
  for (const Case& c : cases)
    for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_BFLOAT16, TSR_INT32})
      for (Layout lo : {Layout::Contiguous, Layout::Transposed, Layout::Sliced}) {
        INFO("matmul out= " << tsr_dtype_name(d) << " " << shape_str(c.a) << " @ " << shape_str(c.b) << " into "
                            << layout_name(lo));
        Tensor a = make_input(c.a, d, Layout::Transposed, Values::General, 47).view;
        Tensor b = make_input(c.b, d, Layout::Sliced, Values::General, 48).view;
        Input out = matmul_output(c.out, d, lo);
        check_inplace(out, value_of(d), [&] { return tsr_matmul_out(a.get(), b.get(), out.view.get()); },
                      [&] { return matmul_reference(values(a), a.shape(), values(b), b.shape()); });
      }
}

TEST_CASE("matmul out=: an output that is also an input reads the input as it was") {
  std::vector<double> v(9);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) - 3.0;
  Tensor x = from_values(v, {3, 3}, TSR_FLOAT64);
  std::vector<double> want = matmul_reference(v, {3, 3}, v, {3, 3});
  REQUIRE(tsr_matmul_out(x.get(), x.get(), x.get()) == TSR_OK);  // x = x @ x
  CHECK(mismatch(x, {3, 3}, TSR_FLOAT64, want) == "");
  Tensor y = from_values(v, {3, 3}, TSR_FLOAT64);
  std::vector<double> vt(9);
  for (size_t r = 0; r < 3; ++r)
    for (size_t c = 0; c < 3; ++c) vt[r * 3 + c] = v[c * 3 + r];
  REQUIRE(tsr_matmul_out(y.T().get(), y.get(), y.get()) == TSR_OK);  // y = y.T @ y
  CHECK(mismatch(y, {3, 3}, TSR_FLOAT64, matmul_reference(vt, {3, 3}, v, {3, 3})) == "");
  Tensor z = from_values(v, {3, 3}, TSR_FLOAT64);  // a row of z times z, into another row of z
  REQUIRE(tsr_matmul_out(z.select(0, 0).get(), z.get(), z.select(0, 2).get()) == TSR_OK);
  std::vector<double> zwant = v;
  std::vector<double> row = matmul_reference({v[0], v[1], v[2]}, {3}, v, {3, 3});
  for (size_t c = 0; c < 3; ++c) zwant[6 + c] = row[c];
  CHECK(mismatch(z, {3, 3}, TSR_FLOAT64, zwant) == "");
}

TEST_CASE("matmul out=: a wrong output is refused and left alone") {
  Tensor a = make_input({2, 3}, TSR_FLOAT32, Layout::Contiguous).view;
  Tensor b = make_input({3, 4}, TSR_FLOAT32, Layout::Contiguous).view;
  struct Case {
    const char* name;
    Input out;
    tsr_status status;
    const char* message;
  };
  const Case cases[] = {
      {"float64 out", matmul_output({2, 4}, TSR_FLOAT64, Layout::Contiguous), TSR_ERR_TYPE,
       "Expected out tensor to have dtype float32, but got float64 instead"},
      {"wrong shape", matmul_output({4, 2}, TSR_FLOAT32, Layout::Transposed), TSR_ERR_SHAPE,
       "matmul: out has shape [4, 2] but the result's shape is [2, 4] (out= never resizes)"},
      {"expanded out", matmul_output({2, 4}, TSR_FLOAT32, Layout::Expanded), TSR_ERR_INVALID_ARGUMENT,
       "more than one element of the written-to tensor refers to a single memory location"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    check_inplace(c.out, error_of(c.status, c.message), [&] { return tsr_matmul_out(a.get(), b.get(), c.out.view.get()); },
                  [] { return std::vector<double>{}; });
  }
  CHECK(tsr_matmul_out(a.get(), b.get(), nullptr) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(std::string(tsr_last_error_message()), Catch::Contains("out"));
  CHECK(tsr_matmul_out(a.get(), a.get(), make_input({2, 3}, TSR_FLOAT32, Layout::Contiguous).view.get()) ==
        TSR_ERR_SHAPE);  // (2x3) @ (2x3): the operands' own error first
}
