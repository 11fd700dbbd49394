// SPDX-License-Identifier: Apache-2.0
// Every printed result of the lessons in shared/seeds, reproduced on Tessera.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>

#include "lesson_mlp.hpp"
#include "runtime_fixture.hpp"

using namespace tessera;
using tessera::test::cpu;
using tessera::test::runtime;

namespace {
std::string row(const char* name, const Tensor& v) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%-22s shape %-10s stride %-11s offset %lld  contiguous %s", name,
                tuple_string(v.shape()).c_str(), tuple_string(v.stride()).c_str(),
                static_cast<long long>(v.storage_offset()), v.is_contiguous() ? "True" : "False");
  return buf;
}

Tensor lesson_x() { return Tensor::arange(runtime(), 12, cpu()).view({3, 4}); }
}  // namespace

TEST_CASE("dtypes shapes and the precision of float32", "[lesson]") {
  const Runtime& rt = runtime();
  Tensor a = Tensor::from_host<float>(rt, {1.0f, 2.0f, 3.0f}, {3}, TSR_FLOAT32, cpu());
  CHECK(std::string(tsr_dtype_name(a.dtype())) == "float32");
  CHECK(tuple_string(a.shape()) == "(3,)");
  CHECK(rt.device_name(a.device()) == "cpu");
  // Python whole numbers become int64, decimals float32.
  CHECK(Tensor::full(rt, {2}, 1, TSR_DTYPE_UNDEFINED, cpu()).dtype() == TSR_INT64);
  CHECK(Tensor::full(rt, {2}, 1.0, TSR_DTYPE_UNDEFINED, cpu()).dtype() == TSR_FLOAT32);
  CHECK(Tensor::full(rt, {}, 1.0 / 3.0, TSR_FLOAT32, cpu()).str() == "tensor(0.3333)");
  CHECK(Tensor::full(rt, {}, 0.1, TSR_FLOAT32, cpu()).str() == "tensor(0.1000)");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17f", Tensor::full(rt, {}, 0.1, TSR_FLOAT32, cpu()).item_double());
  CHECK(std::string(buf) == "0.10000000149011612");
  tsr_finfo f32{}, f64{};
  f32.struct_size = f64.struct_size = TSR_FINFO_STRUCT_SIZE;
  REQUIRE(tsr_get_finfo(TSR_FLOAT32, &f32) == TSR_OK);
  REQUIRE(tsr_get_finfo(TSR_FLOAT64, &f64) == TSR_OK);
  CHECK(f32.eps == 1.1920928955078125e-07);
  CHECK(f64.eps == 2.220446049250313e-16);
}

TEST_CASE("the strides table of the five views", "[lesson]") {
  Tensor x = lesson_x();
  CHECK(row("x", x) == "x                      shape (3, 4)     stride (4, 1)      offset 0  contiguous True");
  CHECK(row("x.T", x.T()) == "x.T                    shape (4, 3)     stride (1, 4)      offset 0  contiguous False");
  CHECK(row("x[:, 1::2]", x.slice(1, 1, TSR_SLICE_NONE, 2)) ==
        "x[:, 1::2]             shape (3, 2)     stride (4, 2)      offset 1  contiguous False");
  CHECK(row("x.unsqueeze(0)", x.unsqueeze(0)) ==
        "x.unsqueeze(0)         shape (1, 3, 4)  stride (12, 4, 1)  offset 0  contiguous True");
  CHECK(row("x[:, :1].expand(3, 4)", x.slice(1, 0, 1).expand({3, 4})) ==
        "x[:, :1].expand(3, 4)  shape (3, 4)     stride (4, 0)      offset 0  contiguous False");
}

TEST_CASE("the address formula, view failing on x.T, and storage sharing", "[lesson]") {
  Tensor x = lesson_x();
  Tensor storage = Tensor::arange(runtime(), 12, cpu());
  auto element = [&](const Tensor& v, std::vector<int64_t> index) {
    int64_t place = v.storage_offset();
    for (size_t j = 0; j < index.size(); ++j) place += index[j] * v.stride()[j];
    return storage[place].item_int();
  };
  // "6 6 11"
  CHECK(element(x.T(), {2, 1}) == 6);
  CHECK(x.T()[2][1].item_int() == 6);
  CHECK(element(x.slice(1, 1, TSR_SLICE_NONE, 2), {2, 1}) == 11);
  // view(12) on x.T fails with PyTorch's message.
  try {
    x.T().view({12});
    FAIL("x.T.view(12) should fail");
  } catch (const Error& e) {
    CHECK(e.status() == TSR_ERR_SHAPE);
    CHECK(std::string(e.what()).substr(0, 46) == "view size is not compatible with input tensor'");
  }
  // "True False True"
  CHECK(x.same_storage(x.T()));
  CHECK_FALSE(x.same_storage(x.T().reshape({12})));
  CHECK(x.same_storage(x.view({12})));
  // reshape copies the twelve numbers in x.T's order.
  CHECK(x.T().reshape({12}).to_vector<int64_t>() == std::vector<int64_t>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
}

TEST_CASE("broadcasting reads with stride 0 and writes new memory", "[lesson]") {
  Tensor x = lesson_x();
  Tensor r = Tensor::from_host<int64_t>(runtime(), {0, 10, 20, 30}, {4}, TSR_INT64, cpu());
  Tensor total = x + r;
  // "(3, 4) (0, 1) False"
  CHECK(tuple_string(total.shape()) == "(3, 4)");
  CHECK(tuple_string(r.expand({3, 4}).stride()) == "(0, 1)");
  CHECK_FALSE(total.same_storage(x));
  CHECK(total.to_vector<int64_t>() == std::vector<int64_t>{0, 11, 22, 33, 4, 15, 26, 37, 8, 19, 30, 41});
  CHECK(broadcast_shapes({3, 1}, {1, 4}) == Shape{3, 4});
}

TEST_CASE("writes through views reach the base", "[lesson]") {
  Tensor x = lesson_x();
  Tensor y = x.slice(1, 1, TSR_SLICE_NONE, 2);
  y[0][0].fill_(100);
  CHECK(x[0][1].item_int() == 100);
  Tensor z = lesson_x();
  z.slice(0, 1).slice(1, 0, TSR_SLICE_NONE, 3).add_(1);
  CHECK(z.to_vector<int64_t>() == std::vector<int64_t>{0, 1, 2, 3, 5, 5, 6, 8, 9, 9, 10, 12});
  Tensor w = lesson_x();
  w.slice(1, 1, TSR_SLICE_NONE, 2).copy_(Tensor::full(runtime(), {3, 2}, -1, TSR_INT64, cpu()));
  CHECK(w.to_vector<int64_t>() == std::vector<int64_t>{0, -1, 2, -1, 4, -1, 6, -1, 8, -1, 10, -1});
}

TEST_CASE("the second lesson: points[1] has offset 2, size (2,), stride (1,)", "[lesson]") {
  Tensor points = Tensor::from_host<float>(runtime(), {4, 1, 5, 3, 2, 1}, {3, 2}, TSR_FLOAT32, cpu());
  CHECK(tuple_string(points.stride()) == "(2, 1)");
  Tensor second = points[1];
  CHECK(second.storage_offset() == 2);
  CHECK(tuple_string(second.shape()) == "(2,)");
  CHECK(tuple_string(second.stride()) == "(1,)");
  CHECK(second.same_storage(points));
  CHECK(second.to_vector<float>() == std::vector<float>{5, 3});
  Tensor pt = points.T();
  CHECK(pt.same_storage(points));
  CHECK(tuple_string(pt.shape()) == "(2, 3)");
  CHECK(tuple_string(pt.stride()) == "(1, 2)");
}

TEST_CASE("the MLP forward: float64 matches, float32 differs in the 7th digit", "[lesson]") {
  lesson::MlpResult r = lesson::run_mlp(runtime(), cpu());
  CHECK(tuple_string(r.out64.shape()) == "(200, 1)");
  CHECK(r.out64.dtype() == TSR_FLOAT64);
  CHECK(r.out32.dtype() == TSR_FLOAT32);
  CHECK_NOTHROW(assert_close(r.out64, r.expected));
  CHECK(r.gap > 1e-8);
  CHECK(r.gap < 1e-6);
  try {
    assert_close(r.out32, r.expected);
    FAIL("assert_close must refuse float32 against float64");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).rfind("The values for attribute 'dtype' do not match", 0) == 0);
  }
}
