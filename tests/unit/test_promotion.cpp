// SPDX-License-Identifier: Apache-2.0
// Type promotion: every pair of promote_types and can_cast, and result_type
// over tensors, 0-d tensors and Python numbers, against the table
// tests/data/shape/make_promotion.py recorded from torch 1.13 (the ten
// dtypes PyTorch has) and NumPy 1.24 (pairs with uint16/32/64, Note
// [Unsigned promotion]).
#include <catch2/catch.hpp>

#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "error.hpp"
#include "promotion.hpp"
#include "test_paths.hpp"

using namespace tessera::rt;

namespace {

nlohmann::json load_table() {
  std::ifstream in(std::string(test_paths::data_dir) + "/shape/promotion.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

const nlohmann::json& table() {
  static const nlohmann::json t = load_table();
  return t;
}

}  // namespace

TEST_CASE("the table names Tessera's dtypes in ABI order", "[promotion]") {
  const auto& names = table().at("dtypes");
  REQUIRE(names.size() == TSR_DTYPE_COUNT);
  for (int32_t d = 0; d < TSR_DTYPE_COUNT; ++d) CHECK(names[d].get<std::string>() == tsr_dtype_name(d));
}

TEST_CASE("promote_types matches torch.promote_types / np.promote_types for all 225 pairs", "[promotion]") {
  const auto& expected = table().at("promote_types");
  int checked = 0;
  for (int32_t a = 0; a < TSR_DTYPE_COUNT; ++a)
    for (int32_t b = 0; b < TSR_DTYPE_COUNT; ++b) {
      INFO(tsr_dtype_name(a) << " + " << tsr_dtype_name(b));
      CHECK(promote_types(a, b) == expected[a][b].get<int32_t>());
      ++checked;
    }
  CHECK(checked == 225);
  // The surprising ones, spelt out.
  CHECK(promote_types(TSR_UINT8, TSR_INT8) == TSR_INT16);
  CHECK(promote_types(TSR_FLOAT16, TSR_BFLOAT16) == TSR_FLOAT32);
  CHECK(promote_types(TSR_BOOL, TSR_UINT8) == TSR_UINT8);
  CHECK(promote_types(TSR_INT64, TSR_FLOAT16) == TSR_FLOAT16);
  // NumPy's, for the unsigned dtypes PyTorch 1.13 lacks.
  CHECK(promote_types(TSR_UINT16, TSR_INT8) == TSR_INT32);
  CHECK(promote_types(TSR_UINT32, TSR_INT32) == TSR_INT64);
  CHECK(promote_types(TSR_UINT64, TSR_INT64) == TSR_FLOAT64);
  CHECK(promote_types(TSR_UINT64, TSR_FLOAT16) == TSR_FLOAT64);
  CHECK(promote_types(TSR_UINT16, TSR_FLOAT16) == TSR_FLOAT32);
  CHECK(promote_types(TSR_UINT8, TSR_UINT64) == TSR_UINT64);
  // bfloat16 as float16 (NumPy has none).
  CHECK(promote_types(TSR_UINT16, TSR_BFLOAT16) == TSR_FLOAT32);
  CHECK(promote_types(TSR_UINT32, TSR_BFLOAT16) == TSR_FLOAT64);
}

TEST_CASE("can_cast matches torch.can_cast for all 225 pairs", "[promotion]") {
  const auto& expected = table().at("can_cast");
  for (int32_t a = 0; a < TSR_DTYPE_COUNT; ++a)
    for (int32_t b = 0; b < TSR_DTYPE_COUNT; ++b) {
      INFO(tsr_dtype_name(a) << " -> " << tsr_dtype_name(b));
      CHECK(can_cast(a, b) == expected[a][b].get<bool>());
    }
}

TEST_CASE("result_type matches torch.result_type", "[promotion]") {
  const auto& cases = table().at("result_type");
  REQUIRE(cases.size() >= 900);
  for (const auto& c : cases) {
    std::vector<Operand> ops;
    std::string desc;
    for (const auto& o : c.at("ops")) {
      const auto dtype = o[0].get<int32_t>();
      const auto kind = o[1].get<std::string>();
      ops.push_back({dtype, kind != "tensor", kind == "scalar"});
      desc += kind + ":" + tsr_dtype_name(dtype) + " ";
    }
    INFO(desc);
    CHECK(result_type(ops) == c.at("result").get<int32_t>());
  }
}

TEST_CASE("result_type: the priority rules the table exercises, by hand", "[promotion]") {
  auto rt = [](std::initializer_list<Operand> ops) { return result_type(std::span(ops.begin(), ops.size())); };
  const bool t = true, f = false;
  // A Python float with an integral tensor gives the default float32.
  CHECK(rt({{TSR_INT32, f, f}, {TSR_FLOAT64, t, t}}) == TSR_FLOAT32);
  // ... and does not raise a float16 tensor.
  CHECK(rt({{TSR_FLOAT16, f, f}, {TSR_FLOAT64, t, t}}) == TSR_FLOAT16);
  // A Python int with a bool tensor gives int64, with a uint8 tensor uint8.
  CHECK(rt({{TSR_BOOL, f, f}, {TSR_INT64, t, t}}) == TSR_INT64);
  CHECK(rt({{TSR_UINT8, f, f}, {TSR_INT64, t, t}}) == TSR_UINT8);
  // A 0-d float64 tensor with an int tensor keeps its float64; with a float
  // tensor it counts for nothing.
  CHECK(rt({{TSR_INT32, f, f}, {TSR_FLOAT64, t, f}}) == TSR_FLOAT64);
  CHECK(rt({{TSR_FLOAT16, f, f}, {TSR_FLOAT64, t, f}}) == TSR_FLOAT16);
  // Only Python numbers: a float gives float32.
  CHECK(rt({{TSR_INT64, t, t}, {TSR_FLOAT64, t, t}}) == TSR_FLOAT32);
  CHECK(rt({{TSR_INT8, f, f}}) == TSR_INT8);
  CHECK_THROWS_AS(rt({}), Error);
  // The unsigned dtypes keep the category rule: a Python int keeps the
  // tensor's dtype, a Python float gives float32 (not NumPy's float64), a
  // 0-d tensor of a higher category promotes through NumPy's table.
  CHECK(rt({{TSR_UINT64, f, f}, {TSR_INT64, t, t}}) == TSR_UINT64);
  CHECK(rt({{TSR_UINT32, f, f}, {TSR_FLOAT64, t, t}}) == TSR_FLOAT32);
  CHECK(rt({{TSR_UINT32, f, f}, {TSR_FLOAT16, t, f}}) == TSR_FLOAT64);
  CHECK(rt({{TSR_UINT16, f, f}, {TSR_INT64, t, f}}) == TSR_UINT16);
  CHECK(rt({{TSR_UINT64, f, f}, {TSR_INT8, f, f}}) == TSR_FLOAT64);
}

TEST_CASE("in-place casting rule", "[promotion]") {
  CHECK_FALSE(can_cast(TSR_FLOAT32, TSR_INT64));
  CHECK_FALSE(can_cast(TSR_INT64, TSR_BOOL));
  CHECK(can_cast(TSR_INT64, TSR_INT8));
  CHECK(can_cast(TSR_BOOL, TSR_FLOAT16));
  CHECK(category(TSR_BOOL) == Category::Bool);
  CHECK(category(TSR_UINT8) == Category::Integral);
  CHECK(category(TSR_BFLOAT16) == Category::Floating);
  CHECK(category(TSR_UINT64) == Category::Integral);
  CHECK_FALSE(can_cast(TSR_FLOAT64, TSR_UINT64));
  CHECK_FALSE(can_cast(TSR_UINT16, TSR_BOOL));
  CHECK(can_cast(TSR_UINT64, TSR_INT8));
  // Note [Complex dtypes]: complex outranks floating, and only complex takes it back.
  CHECK(category(TSR_COMPLEX64) == Category::Complex);
  CHECK_FALSE(can_cast(TSR_COMPLEX64, TSR_FLOAT64));
  CHECK(can_cast(TSR_FLOAT64, TSR_COMPLEX64));
  CHECK(promote_types(TSR_COMPLEX64, TSR_FLOAT64) == TSR_COMPLEX128);
  CHECK(promote_types(TSR_COMPLEX64, TSR_UINT32) == TSR_COMPLEX128);
}

TEST_CASE("unknown dtypes are refused", "[promotion]") {
  try {
    promote_types(TSR_FLOAT32, TSR_DTYPE_COUNT);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.status() == TSR_ERR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()) == "unknown dtype 15");
  }
  CHECK_THROWS_AS(can_cast(-1, TSR_FLOAT32), Error);
}
