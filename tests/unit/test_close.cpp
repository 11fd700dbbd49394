// SPDX-License-Identifier: Apache-2.0
// compare_close / compare_metadata against torch.testing.assert_close messages
// printed by PyTorch 1.13 (tests/data/format/close_cases.json).
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <regex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "close.hpp"
#include "tessera/dtype.h"
#include "test_paths.hpp"

using tessera::rt::compare_close;
using tessera::rt::compare_metadata;
using tessera::rt::default_tolerance;
using tessera::rt::HostTensor;

namespace {

int32_t dtype_from_name(const std::string& name) {
  for (int32_t d = 0; d < TSR_DTYPE_COUNT; ++d)
    if (name == tsr_dtype_name(d)) return d;
  FAIL("unknown dtype " << name);
  return -1;
}

std::vector<unsigned char> from_hex(const std::string& hex) {
  std::vector<unsigned char> bytes(hex.size() / 2);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return bytes;
}

}  // namespace

TEST_CASE("compare_close and compare_metadata match PyTorch 1.13's assert_close") {
  std::ifstream in(std::string(test_paths::data_dir) + "/format/close_cases.json");
  REQUIRE(in.good());
  const nlohmann::json cases = nlohmann::json::parse(in);
  REQUIRE(cases.size() >= 60);
  int failing = 0, metadata = 0;
  for (const auto& c : cases) {
    INFO("case: " << c["name"].get<std::string>());
    // PyTorch names torch.Size and torch.<dtype>; Tessera its own.
    const std::string expected_message =
        std::regex_replace(c["message"].get<std::string>(), std::regex("torch\\.(Size|float|int|uint|bool|bfloat)"),
                           "tessera.$1");
    failing += !expected_message.empty();
    if (c.contains("metadata")) {
      ++metadata;
      auto shape_a = c["shape_a"].get<std::vector<int64_t>>();
      auto shape_b = c["shape_b"].get<std::vector<int64_t>>();
      CHECK(compare_metadata(dtype_from_name(c["dtype_a"].get<std::string>()), static_cast<int32_t>(shape_a.size()),
                             shape_a.data(), c["device_a"].get<std::string>(),
                             dtype_from_name(c["dtype_b"].get<std::string>()), static_cast<int32_t>(shape_b.size()),
                             shape_b.data(), c["device_b"].get<std::string>()) == expected_message);
      continue;
    }
    const int32_t dtype = dtype_from_name(c["dtype"].get<std::string>());
    auto shape = c["shape"].get<std::vector<int64_t>>();
    auto a = from_hex(c["actual"].get<std::string>());
    auto b = from_hex(c["expected"].get<std::string>());
    HostTensor ta{dtype, static_cast<int32_t>(shape.size()), shape.data(), a.data()};
    HostTensor tb{dtype, static_cast<int32_t>(shape.size()), shape.data(), b.data()};
    double rtol = c["rtol"].get<double>(), atol = c["atol"].get<double>();
    if (rtol < 0) {  // torch's defaults for the dtype
      rtol = default_tolerance(dtype).rtol;
      atol = default_tolerance(dtype).atol;
    }
    CHECK(compare_close(ta, tb, rtol, atol, c["equal_nan"].get<bool>()) == expected_message);
  }
  // The reference exercises both outcomes and the metadata path.
  CHECK(failing > 30);
  CHECK(metadata >= 10);
}

TEST_CASE("compare_close: the brief's float32 example and the defaults") {
  const int64_t shape[2] = {2, 2};
  const float a[4] = {1.0f, 2.0f, 2.0f, 4.0f};
  const float b[4] = {1.0f, 2.0f, 2.5f, 4.0f};
  HostTensor ta{TSR_FLOAT32, 2, shape, a}, tb{TSR_FLOAT32, 2, shape, b};
  auto tol = default_tolerance(TSR_FLOAT32);
  CHECK(compare_close(ta, tb, tol.rtol, tol.atol, false) ==
        "Tensor-likes are not close!\n\nMismatched elements: 1 / 4 (25.0%)\n"
        "Greatest absolute difference: 0.5 at index (1, 0) (up to 1e-05 allowed)\n"
        "Greatest relative difference: 0.2 at index (1, 0) (up to 1.3e-06 allowed)");
  CHECK(compare_close(ta, ta, tol.rtol, tol.atol, false).empty());
  CHECK(default_tolerance(TSR_FLOAT16).rtol == 1e-3);
  CHECK(default_tolerance(TSR_BFLOAT16).rtol == 1.6e-2);
  CHECK(default_tolerance(TSR_FLOAT64).atol == 1e-7);
  CHECK(default_tolerance(TSR_INT32).rtol == 0.0);
  CHECK(default_tolerance(TSR_BOOL).atol == 0.0);
  const int64_t one[1] = {3};
  CHECK(compare_metadata(TSR_FLOAT32, 1, one, "cpu", TSR_FLOAT32, 1, one, "cuda:0") ==
        "The values for attribute 'device' do not match: cpu != cuda:0.");
}
