// SPDX-License-Identifier: Apache-2.0
// Copies and casts through the public C API: copy_ and fill_ through views
// (checking the base changed exactly there), casts between all 13 dtypes,
// creation ops (zeros .. randn), item's exactness, and reshape / contiguous /
// clone choosing between a view and a copy as PyTorch does.
#include <cmath>
#include <limits>

#include "ops_common.hpp"

using namespace ops;

namespace {

// The views of a (4, 6) base that copy_ and fill_ write through.
struct ViewKind {
  const char* name;
  Tensor (*make)(const Tensor& x);
};
const ViewKind kViews[] = {
    {"x", [](const Tensor& x) { return x; }},
    {"x[:, 1::2]", [](const Tensor& x) { return x.slice(1, 1, TSR_SLICE_NONE, 2); }},
    {"x[1:, ::3]", [](const Tensor& x) { return x.slice(0, 1).slice(1, 0, TSR_SLICE_NONE, 3); }},
    {"x.T", [](const Tensor& x) { return x.T(); }},
    {"x[2]", [](const Tensor& x) { return x[2]; }},
    {"x[1:, ::3].T", [](const Tensor& x) { return x.slice(0, 1).slice(1, 0, TSR_SLICE_NONE, 3).T(); }},
};

Input base_view(const ViewKind& v, tsr_dtype d) {
  Tensor x = make_input({4, 6}, d, Layout::Contiguous, Values::General, 51).base;
  return Input{v.make(x), x};
}

}  // namespace

TEST_CASE("copy_ from any layout and dtype into any view changes exactly the view") {
  for (const ViewKind& v : kViews)
    for (tsr_dtype dst : kDtypes)
      for (tsr_dtype src : kDtypes) {
        Shape shape = base_view(v, dst).view.shape();
        // Sources of the view's shape in every layout, a 0-d one and a
        // broadcast row.
        std::vector<std::pair<std::string, Tensor>> sources;
        for (Layout l : kLayouts) sources.emplace_back(layout_name(l), make_input(shape, src, l, Values::General, 52).view);
        sources.emplace_back("0-d", make_input({}, src, Layout::Contiguous, Values::General, 53).view);
        sources.emplace_back("row", make_input({shape.back()}, src, Layout::Sliced, Values::General, 54).view);
        for (const auto& [what, s] : sources) {
          INFO("copy_ into " << v.name << " " << tsr_dtype_name(dst) << " from " << what << " " << tsr_dtype_name(src));
          Input target = base_view(v, dst);
          std::vector<double> sv = values(s);
          check_inplace(target, value_of(dst), [&] { return tsr_copy_(target.view.get(), s.get()); }, [&] {
            std::vector<double> r(static_cast<size_t>(numel(shape)));
            for (size_t k = 0; k < r.size(); ++k)
              r[k] = cast(dst, sv[static_cast<size_t>(broadcast_source(shape, s.shape(), static_cast<int64_t>(k)))]);
            return r;
          });
        }
      }
}

TEST_CASE("fill_ through views, casting the scalar as PyTorch does") {
  // -3 into uint8 wraps to 253, as PyTorch allows.
  const tsr_scalar scalars[] = {int_scalar(7), float_scalar(2.5), bool_scalar(true), float_scalar(0.1), int_scalar(-3)};
  for (const ViewKind& v : kViews)
    for (tsr_dtype d : kDtypes)
      for (const tsr_scalar& s : scalars) {
        double value = s.kind == TSR_SCALAR_FLOAT ? s.f : static_cast<double>(s.i);
        INFO("fill_ " << v.name << " " << tsr_dtype_name(d) << " with " << value);
        Input target = base_view(v, d);
        check_inplace(target, value_of(d), [&] { return tsr_fill_(target.view.get(), s); },
                      [&] { return std::vector<double>(static_cast<size_t>(target.view.numel()), cast(d, value)); });
      }
  // fill_ is allowed on an expanded view (every element gets the value).
  Input e = make_input({3, 4}, TSR_FLOAT32, Layout::Expanded);
  CHECK(tsr_fill_(e.view.get(), float_scalar(1.5)) == TSR_OK);
  CHECK(values(e.base) == std::vector<double>(4, 1.5));
  // On 0-d and empty tensors.
  Tensor z = from_values({1}, {}, TSR_INT16);
  tessera::check(tsr_fill_(z.get(), int_scalar(-9)));
  CHECK(values(z) == std::vector<double>{-9});
  Tensor empty = from_values({}, {0, 3}, TSR_FLOAT64);
  CHECK(tsr_fill_(empty.get(), float_scalar(1.0)) == TSR_OK);
}

TEST_CASE("casts between all 13 dtypes from every layout") {
  const std::vector<double> v{0, 0.5, 1, 2.7, -2.7, 100.25, -0.5, 1.0 / 3, 65000, -129.75, 255.5, 1e-8};
  for (tsr_dtype from : kDtypes)
    for (tsr_dtype to : kDtypes) {
      INFO(tsr_dtype_name(from) << " -> " << tsr_dtype_name(to));
      Tensor t = from_values(v, {12}, from);
      std::vector<double> tv = values(t), expected(tv.size());
      // A uint64 near 2^64 (a negative value wrapped) is no double: into an
      // integer it wraps from its int64 bits, exact for these small ones.
      if (from == TSR_UINT64 && !is_float(to)) {
        const std::vector<uint64_t> bits = t.to_vector<uint64_t>();
        for (size_t i = 0; i < tv.size(); ++i) tv[i] = static_cast<double>(static_cast<int64_t>(bits[i]));
      }
      for (size_t i = 0; i < tv.size(); ++i) expected[i] = cast(to, tv[i]);
      Result r = attempt([&](tsr_tensor** o) { return tsr_to_dtype(t.get(), to, o); });
      check_outcome(r, value_of(to), {12}, [&] { return expected; });
      if (from == to && r.status == TSR_OK) CHECK(r.out.same_storage(t));  // no copy needed
      for (Layout l : kLayouts) {
        INFO(layout_name(l));
        Tensor s = make_input({3, 4}, from, l, Values::General, 55).view;
        r = attempt([&](tsr_tensor** o) { return tsr_to_dtype(s.get(), to, o); });
        check_outcome(r, value_of(to), {3, 4}, [&] {
          std::vector<double> sv = values(s);
          for (double& x : sv) x = cast(to, x);
          return sv;
        });
      }
    }
}

TEST_CASE("casts round as PyTorch does (values printed by torch 1.13)") {
  struct Case {
    tsr_dtype from, to;
    std::vector<double> in, out;
  };
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const Case cases[] = {
      {TSR_FLOAT32, TSR_FLOAT16, {1.0 / 3, 65519, 65520, 1e-8, 6e-8, -0x1p-25},
       {0.333251953125, 65504, inf, 0, 5.960464477539063e-08, -0.0}},
      {TSR_FLOAT32, TSR_BFLOAT16, {1.00390625, 1.01171875, 3.14159265, 1e-40, 65520},
       {1.0, 1.015625, 3.140625, 9.183549615799121e-41, 65536}},
      {TSR_INT64, TSR_FLOAT32, {16777217}, {16777216}},
      {TSR_INT16, TSR_INT8, {300, -129}, {44, 127}},
      {TSR_FLOAT32, TSR_BOOL, {nan, 0.5, 0, -0.0}, {1, 1, 0, 0}},
      {TSR_FLOAT16, TSR_INT8, {2.5, -3.5, 0.5}, {2, -3, 0}},
      {TSR_FLOAT32, TSR_UINT8, {-1.5, 2.7, -2.7, 100.25}, {255, 2, 254, 100}},
      {TSR_FLOAT32, TSR_INT8, {-2.7, 2.7, -0.5, 300.25}, {-2, 2, 0, 44}},
      {TSR_BOOL, TSR_FLOAT16, {1, 0}, {1, 0}},
      {TSR_FLOAT64, TSR_FLOAT32, {0.1}, {0.100000001490116119384765625}},
  };
  for (const Case& c : cases) {
    INFO(tsr_dtype_name(c.from) << " -> " << tsr_dtype_name(c.to));
    Shape shape{static_cast<int64_t>(c.in.size())};
    Tensor t = from_values(c.in, shape, c.from);
    std::vector<double> got = values(t.to(c.to));
    for (size_t i = 0; i < got.size(); ++i) {
      INFO("element " << i << ": got " << got[i] << ", expected " << c.out[i]);
      CHECK((got[i] == c.out[i] && std::signbit(got[i]) == std::signbit(c.out[i])));
    }
  }
}

TEST_CASE("item returns the stored value exactly") {
  Tensor big = Tensor::from_host(runtime(), std::vector<int64_t>{(1LL << 62) + 1}, {}, TSR_INT64, cpu());
  tsr_scalar s = big.item();
  CHECK(s.kind == TSR_SCALAR_INT);
  CHECK(s.i == (1LL << 62) + 1);
  s = Tensor::from_host(runtime(), std::vector<double>{0.1}, {1, 1}, TSR_FLOAT64, cpu()).item();
  CHECK(s.kind == TSR_SCALAR_FLOAT);
  CHECK(s.f == 0.1);
  s = Tensor::from_host(runtime(), std::vector<float>{0.1f}, {1}, TSR_FLOAT32, cpu()).item();
  CHECK(s.f == static_cast<double>(0.1f));
  struct Case {
    tsr_dtype d;
    double v;
    int32_t kind;
  };
  for (const Case& c : {Case{TSR_FLOAT16, 0.0999755859375, TSR_SCALAR_FLOAT}, Case{TSR_BFLOAT16, -3.140625, TSR_SCALAR_FLOAT},
                        Case{TSR_INT8, -128, TSR_SCALAR_INT}, Case{TSR_UINT8, 200, TSR_SCALAR_INT},
                        Case{TSR_INT16, -32768, TSR_SCALAR_INT}, Case{TSR_INT32, 2147483647, TSR_SCALAR_INT},
                        Case{TSR_BOOL, 1, TSR_SCALAR_BOOL}}) {
    INFO(tsr_dtype_name(c.d));
    s = from_values({c.v}, {}, c.d).item();
    CHECK(s.kind == c.kind);
    CHECK((c.kind == TSR_SCALAR_FLOAT ? s.f : static_cast<double>(s.i)) == c.v);
  }
  // A one-element view at an offset reads the element it points at.
  Tensor x = from_values({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4}, TSR_INT32);
  CHECK(x.slice(0, 1, 2).slice(1, 2, 3).item().i == 6);
  CHECK(x.T().slice(0, 3, 4).slice(1, 2, 3).item().i == 11);
  CHECK(x.slice(1, 1, TSR_SLICE_NONE, 2)[2][1].item().i == 11);
}

TEST_CASE("reshape gives a view when one exists, else a copy") {
  Tensor x = from_values({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {2, 6}, TSR_FLOAT32);
  Tensor expanded = from_values({0, 1, 2, 3}, {1, 4}, TSR_FLOAT32).expand({3, 4});
  struct Case {
    const char* what;
    Tensor in;
    Shape shape, out_shape, strides;
    int64_t offset;
    bool view;
  };
  const Case cases[] = {  // strides and offsets printed by torch 1.13
      {"x", x, {3, 4}, {3, 4}, {4, 1}, 0, true},
      {"x", x, {-1, 3}, {4, 3}, {3, 1}, 0, true},
      {"x.T", x.T(), {12}, {12}, {1}, 0, false},
      {"x.T", x.T(), {3, 2, 2}, {3, 2, 2}, {2, 1, 6}, 0, true},
      {"x[:, ::2]", x.slice(1, 0, TSR_SLICE_NONE, 2), {3, 2}, {3, 2}, {4, 2}, 0, true},
      {"x[:, ::2]", x.slice(1, 0, TSR_SLICE_NONE, 2), {2, 1, 3}, {2, 1, 3}, {6, 6, 2}, 0, true},
      {"x[:, 1:4]", x.slice(1, 1, 4), {6}, {6}, {1}, 0, false},
      {"x[:, 1:4]", x.slice(1, 1, 4), {2, 3, 1}, {2, 3, 1}, {6, 1, 1}, 1, true},
      {"x[1:]", x.slice(0, 1), {3, 2}, {3, 2}, {2, 1}, 6, true},
      {"expanded", expanded, {12}, {12}, {1}, 0, false},
      {"expanded", expanded, {3, 2, 2}, {3, 2, 2}, {0, 2, 1}, 0, true},
  };
  for (const Case& c : cases) {
    INFO("reshape " << c.what << " to " << shape_str(c.shape));
    Tensor r = c.in.reshape(c.shape);
    CHECK(r.shape() == c.out_shape);
    CHECK(r.same_storage(c.in) == c.view);
    if (c.view) {
      CHECK(r.stride() == c.strides);
      CHECK(r.storage_offset() == c.offset);
    } else {
      CHECK(r.is_contiguous());
    }
    CHECK(values(r) == values(c.in));  // row-major order is kept either way
  }
  Tensor scalar = from_values({5}, {}, TSR_INT64);
  CHECK(scalar.reshape({1, 1}).same_storage(scalar));
  CHECK(from_values({}, {0, 3}, TSR_INT8).reshape({3, 0}).shape() == Shape{3, 0});
}

TEST_CASE("contiguous returns the tensor itself when already contiguous") {
  Tensor x = make_input({3, 4}, TSR_FLOAT64, Layout::Contiguous).view;
  for (const Tensor& t : {x, x.slice(0, 1), from_values({2}, {}, TSR_INT8), from_values({}, {0, 3}, TSR_FLOAT32).T(),
                          x.slice(0, 1, 2).T()}) {
    INFO("contiguous of " << shape_str(t.shape()) << " strides " << shape_str(t.stride()));
    REQUIRE(t.is_contiguous());
    Tensor c = t.contiguous();
    CHECK(c.same_storage(t));
    CHECK(c.storage_offset() == t.storage_offset());
    CHECK(c.stride() == t.stride());
  }
  for (Layout l : {Layout::Transposed, Layout::Sliced, Layout::Expanded})
    for (tsr_dtype d : kDtypes) {
      INFO("contiguous of " << layout_name(l) << " " << tsr_dtype_name(d));
      Tensor t = make_input({3, 4}, d, l).view;
      CHECK_FALSE(t.is_contiguous());
      Tensor c = t.contiguous();
      CHECK_FALSE(c.same_storage(t));
      CHECK(c.is_contiguous());
      CHECK(c.stride() == Shape{4, 1});
      CHECK(mismatch(c, {3, 4}, d, values(t)) == "");
    }
}

TEST_CASE("clone keeps the strides of a dense tensor and copies the data") {
  Tensor x = make_input({3, 4}, TSR_INT32, Layout::Contiguous).view;
  Tensor x3 = make_input({2, 3, 4}, TSR_FLOAT32, Layout::Contiguous).view;
  struct Case {
    const char* what;
    Tensor in;
    Shape strides;
  };
  const Case cases[] = {  // strides printed by torch 1.13
      {"x", x, {4, 1}},
      {"x.T", x.T(), {1, 4}},
      {"permute(2, 0, 1)", x3.permute({2, 0, 1}), {1, 12, 4}},
      {"x[1:]", x.slice(0, 1), {4, 1}},
      {"x[:, ::2]", x.slice(1, 0, TSR_SLICE_NONE, 2), {2, 1}},
      {"expanded", make_input({3, 4}, TSR_INT8, Layout::Expanded).view, {4, 1}},
      {"0-d", from_values({3}, {}, TSR_BOOL), {}},
  };
  for (const Case& c : cases) {
    INFO("clone of " << c.what);
    Tensor k = c.in.clone();
    CHECK_FALSE(k.same_storage(c.in));
    CHECK(k.stride() == c.strides);
    CHECK(k.storage_offset() == 0);
    CHECK(mismatch(k, c.in.shape(), c.in.dtype(), values(c.in)) == "");
    // The copy is independent of the original.
    if (k.numel() > 0) {
      std::vector<double> before = values(c.in);
      tessera::check(tsr_fill_(k.get(), int_scalar(0)));
      CHECK(values(c.in) == before);
    }
  }
}

TEST_CASE("creation: zeros, ones, full and their dtypes") {
  for (tsr_dtype d : kDtypes)
    for (const Shape& shape : {Shape{2, 3}, Shape{}, Shape{0}, Shape{4, 0, 2}}) {
      INFO(tsr_dtype_name(d) << " " << shape_str(shape));
      size_t n = static_cast<size_t>(numel(shape));
      Tensor z = Tensor::zeros(runtime(), shape, d, cpu()), o = Tensor::ones(runtime(), shape, d, cpu());
      CHECK(mismatch(z, shape, d, std::vector<double>(n, 0)) == "");
      CHECK(mismatch(o, shape, d, std::vector<double>(n, 1)) == "");
      CHECK(z.is_contiguous());
      Tensor f = Tensor::full(runtime(), shape, Scalar(2.5), d, cpu());
      CHECK(mismatch(f, shape, d, std::vector<double>(n, 2.5)) == "");  // int dtypes truncate to 2
      Tensor e = Tensor::empty(runtime(), shape, d, cpu());
      CHECK(e.shape() == shape);
      CHECK(e.dtype() == d);
    }
  // dtype inferred from the scalar: bool, int64, float32.
  CHECK(Tensor::full(runtime(), {2}, Scalar(true), TSR_DTYPE_UNDEFINED, cpu()).dtype() == TSR_BOOL);
  CHECK(Tensor::full(runtime(), {2}, Scalar(3), TSR_DTYPE_UNDEFINED, cpu()).dtype() == TSR_INT64);
  CHECK(Tensor::full(runtime(), {2}, Scalar(2.5), TSR_DTYPE_UNDEFINED, cpu()).dtype() == TSR_FLOAT32);
  CHECK(values(Tensor::full(runtime(), {2}, Scalar(true), TSR_FLOAT32, cpu())) == std::vector<double>{1, 1});
}

TEST_CASE("creation: arange and linspace (values printed by torch 1.13)") {
  struct Case {
    Scalar start, end, step;
    tsr_dtype dtype, out_dtype;
    std::vector<double> out;
  };
  const tsr_dtype U = TSR_DTYPE_UNDEFINED;
  std::vector<double> tenth32, tenth64;
  for (int i = 0; i < 10; ++i) tenth32.push_back(cast(TSR_FLOAT32, i * 0.1)), tenth64.push_back(i * 0.1);
  const Case aranges[] = {
      {0, 10, 3, U, TSR_INT64, {0, 3, 6, 9}},
      {10, 0, -3, U, TSR_INT64, {10, 7, 4, 1}},
      {0, -7, -2, U, TSR_INT64, {0, -2, -4, -6}},
      {0.0, 1.0, 0.1, U, TSR_FLOAT32, tenth32},
      {0.0, 1.0, 0.1, TSR_FLOAT64, TSR_FLOAT64, tenth64},
      {1, 2.5, 0.5, U, TSR_FLOAT32, {1, 1.5, 2}},
      {-1.0, -2.0, -0.25, U, TSR_FLOAT32, {-1, -1.25, -1.5, -1.75}},
      {0, 5, 1, TSR_INT32, TSR_INT32, {0, 1, 2, 3, 4}},
      {0.5, 3, 1, TSR_INT64, TSR_INT64, {0, 1, 2}},
      {0, 5, 2, TSR_FLOAT16, TSR_FLOAT16, {0, 2, 4}},
      {5, 5, 1, U, TSR_INT64, {}},
      {3, 0, -1, TSR_UINT8, TSR_UINT8, {3, 2, 1}},
      {3, 0, -1, TSR_UINT64, TSR_UINT64, {3, 2, 1}},  // the unsigned dtypes as uint8 (no torch values)
      {0, 7, 3, TSR_UINT16, TSR_UINT16, {0, 3, 6}},
      {0.5, 3, 1, TSR_UINT32, TSR_UINT32, {0, 1, 2}},
  };
  for (const Case& c : aranges) {
    INFO("arange(" << c.start.value.f << ", " << c.end.value.f << ", " << c.step.value.f << ") "
                   << tsr_dtype_name(c.dtype));
    Result r = attempt([&](tsr_tensor** o) {
      return tsr_arange(runtime().get(), c.start.value, c.end.value, c.step.value, c.dtype, cpu(), o);
    });
    check_outcome(r, value_of(c.out_dtype), {static_cast<int64_t>(c.out.size())}, [&] { return c.out; });
  }
  struct Lin {
    double start, end;
    int64_t steps;
    tsr_dtype dtype, out_dtype;
    std::vector<double> out;
  };
  const Lin linspaces[] = {
      {0, 1, 5, U, TSR_FLOAT32, {0.0, 0.25, 0.5, 0.75, 1.0}},
      {-1, 1, 7, TSR_FLOAT64, TSR_FLOAT64,
       {-1.0, -0.6666666666666667, -0.33333333333333337, 5.551115123125783e-17, 0.33333333333333337,
        0.6666666666666667, 1.0}},
      {3, 5, 1, U, TSR_FLOAT32, {3}},
      {0, 1, 0, U, TSR_FLOAT32, {}},
      {0, 10, 5, TSR_INT64, TSR_INT64, {0, 2, 5, 7, 10}},
      {-5, 5, 4, TSR_INT32, TSR_INT32, {-5, -1, 1, 5}},
      {10, 0, 6, U, TSR_FLOAT32, {10, 8, 6, 4, 2, 0}},
      {0, 1, 10, U, TSR_FLOAT32,
       {0.0, 0.1111111119389534, 0.2222222238779068, 0.3333333432674408, 0.4444444477558136, 0.5555555820465088,
        0.6666666865348816, 0.7777777910232544, 0.8888888955116272, 1.0}},
  };
  for (const Lin& c : linspaces) {
    INFO("linspace(" << c.start << ", " << c.end << ", " << c.steps << ") " << tsr_dtype_name(c.dtype));
    Result r = attempt([&](tsr_tensor** o) { return tsr_linspace(runtime().get(), c.start, c.end, c.steps, c.dtype, cpu(), o); });
    check_outcome(r, value_of(c.out_dtype), {c.steps}, [&] { return c.out; });
  }
}

TEST_CASE("creation: rand and randn statistics and reproducibility") {
  tessera::Runtime& rt = runtime();
  const int64_t n = 200000;
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_DTYPE_UNDEFINED}) {
    INFO(tsr_dtype_name(d));
    tsr_dtype want = d == TSR_DTYPE_UNDEFINED ? TSR_FLOAT32 : d;
    rt.manual_seed(2024);
    Tensor u = Tensor::rand(rt, {n}, d, cpu()), g = Tensor::randn(rt, {n / 2, 2}, d, cpu());
    CHECK(u.dtype() == want);
    CHECK(g.dtype() == want);
    CHECK(g.shape() == Shape{n / 2, 2});
    std::vector<double> uv = values(u), gv = values(g);
    double sum = 0, sq = 0, lo = 1, hi = 0;
    for (double x : uv) sum += x, sq += x * x, lo = std::min(lo, x), hi = std::max(hi, x);
    double mean = sum / n, var = sq / n - mean * mean;
    CHECK(lo >= 0.0);
    CHECK(hi < 1.0);
    CHECK(std::fabs(mean - 0.5) < 0.01);
    CHECK(std::fabs(var - 1.0 / 12) < 0.005);
    sum = sq = 0;
    int64_t within = 0;
    for (double x : gv) sum += x, sq += x * x, within += std::fabs(x) < 1.0;
    mean = sum / n, var = sq / n - mean * mean;
    CHECK(std::fabs(mean) < 0.02);
    CHECK(std::fabs(std::sqrt(var) - 1.0) < 0.02);
    CHECK(std::fabs(static_cast<double>(within) / n - 0.6827) < 0.01);
    // Same seed, same numbers; the stream moves on; the shape does not matter.
    rt.manual_seed(2024);
    CHECK(values(Tensor::rand(rt, {n}, d, cpu())) == uv);
    CHECK(values(Tensor::randn(rt, {n}, d, cpu())) == gv);
    rt.manual_seed(7);
    std::vector<double> a = values(Tensor::rand(rt, {2, 3}, d, cpu()));
    std::vector<double> b = values(Tensor::rand(rt, {6}, d, cpu()));
    CHECK(a != b);
    rt.manual_seed(7);
    CHECK(values(Tensor::rand(rt, {6}, d, cpu())) == a);
    rt.manual_seed(8);
    CHECK(values(Tensor::rand(rt, {6}, d, cpu())) != a);
  }
  CHECK(Tensor::rand(rt, {0, 3}, TSR_FLOAT32, cpu()).numel() == 0);
  CHECK(Tensor::randn(rt, {}, TSR_FLOAT64, cpu()).dim() == 0);
}

TEST_CASE("in-place ops whose source aliases the destination") {
  std::vector<double> v;
  for (int i = 0; i < 12; ++i) v.push_back(i);
  // a += a with one identical layout: every element doubles.
  Tensor x = from_values(v, {3, 4}, TSR_FLOAT32);
  CHECK(tsr_binary_(TSR_OP_ADD, x.get(), x.get()) == TSR_OK);
  std::vector<double> doubled = v;
  for (double& d : doubled) d *= 2;
  CHECK(values(x) == doubled);
  // x[:, :2].copy_(x[:, 1:3]) reads the old values, as PyTorch prints.
  Tensor y = from_values(v, {3, 4}, TSR_INT64);
  CHECK(tsr_copy_(y.slice(1, 0, 2).get(), y.slice(1, 1, 3).get()) == TSR_OK);
  CHECK(values(y) == std::vector<double>{1, 2, 2, 3, 5, 6, 6, 7, 9, 10, 10, 11});
}
