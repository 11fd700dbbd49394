// SPDX-License-Identifier: Apache-2.0
// format_tensor against repr() strings printed by PyTorch 1.13
// (tests/data/format/cases.json, written by make_reference.py).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "format.hpp"
#include "tessera/dtype.h"
#include "test_paths.hpp"

using tessera::rt::format_tensor;
using tessera::rt::HostTensor;
using tessera::rt::PrintOptions;

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

nlohmann::json load(const char* file) {
  std::ifstream in(std::string(test_paths::data_dir) + "/format/" + file);
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

// A tensor owning its bytes, for hand-written cases.
struct Owned {
  std::vector<int64_t> shape;
  std::vector<unsigned char> bytes;
  int32_t dtype;
  HostTensor view() const {
    return HostTensor{dtype, static_cast<int32_t>(shape.size()), shape.data(), bytes.data()};
  }
};

template <class T>
Owned owned(int32_t dtype, std::vector<int64_t> shape, const std::vector<T>& values) {
  Owned o{std::move(shape), std::vector<unsigned char>(values.size() * sizeof(T)), dtype};
  if (!o.bytes.empty()) std::memcpy(o.bytes.data(), values.data(), o.bytes.size());
  return o;
}

}  // namespace

TEST_CASE("format_tensor matches PyTorch 1.13 repr for every reference case") {
  const nlohmann::json cases = load("cases.json");
  REQUIRE(cases.size() >= 150);
  int checked = 0;
  for (const auto& c : cases) {
    INFO("case: " << c["name"].get<std::string>());
    std::vector<int64_t> shape = c["shape"].get<std::vector<int64_t>>();
    std::vector<unsigned char> bytes = from_hex(c["hex"].get<std::string>());
    const int32_t dtype = dtype_from_name(c["dtype"].get<std::string>());
    int64_t numel = 1;
    for (int64_t s : shape) numel *= s;
    REQUIRE(static_cast<int64_t>(bytes.size()) == numel * static_cast<int64_t>(tsr_dtype_size(dtype)));
    HostTensor t{dtype, static_cast<int32_t>(shape.size()), shape.data(), bytes.data()};
    const auto& o = c["options"];
    PrintOptions opts;
    opts.precision = o["precision"].get<int>();
    opts.threshold = o["threshold"].get<int64_t>();
    opts.edgeitems = o["edgeitems"].get<int64_t>();
    opts.linewidth = o["linewidth"].get<int>();
    opts.sci_mode = o["sci_mode"].get<int>();
    // PyTorch prints torch.<dtype>; Tessera prints its own name, tessera.<dtype>.
    const std::string want = std::regex_replace(c["repr"].get<std::string>(), std::regex("dtype=torch\\."), "dtype=tessera.");
    CHECK(format_tensor(t, opts, c["device"].get<std::string>()) == want);
    ++checked;
  }
  CHECK(checked == static_cast<int>(cases.size()));
}

TEST_CASE("format_tensor on a non-cpu device, as PyTorch prints a cuda tensor") {
  PrintOptions opts;
  // Written by hand from PyTorch 1.13's rules: device first, then dtype.
  auto a = owned<float>(TSR_FLOAT32, {2}, {1.0f, 2.5f});
  CHECK(format_tensor(a.view(), opts, "cuda:0") == "tensor([1.0000, 2.5000], device='cuda:0')");
  auto b = owned<int32_t>(TSR_INT32, {2, 2}, {1, 2, 3, 40});
  CHECK(format_tensor(b.view(), opts, "cuda:0") ==
        "tensor([[ 1,  2],\n        [ 3, 40]], device='cuda:0', dtype=tessera.int32)");
  auto c = owned<int64_t>(TSR_INT64, {0}, {});
  CHECK(format_tensor(c.view(), opts, "arena:0") == "tensor([], device='arena:0', dtype=tessera.int64)");
  auto d = owned<double>(TSR_FLOAT64, {}, {0.5});
  CHECK(format_tensor(d.view(), opts, "cuda:1") == "tensor(0.5000, device='cuda:1', dtype=tessera.float64)");
  // A long last line pushes the suffix onto its own line at the indent of "tensor(".
  auto e = owned<int64_t>(TSR_INT64, {6}, {1000000000, 2, 3, 4, 5, 6});
  CHECK(format_tensor(e.view(), opts, "cuda:0") ==
        "tensor([1000000000,          2,          3,          4,          5,          6],\n"
        "       device='cuda:0')");
  CHECK(format_tensor(e.view(), opts, "cpu") ==
        "tensor([1000000000,          2,          3,          4,          5,          6])");
}

TEST_CASE("format_tensor: the lesson's values") {
  PrintOptions opts;
  auto third = owned<float>(TSR_FLOAT32, {}, {1.0f / 3.0f});
  CHECK(format_tensor(third.view(), opts, "cpu") == "tensor(0.3333)");
  auto tenth = owned<float>(TSR_FLOAT32, {}, {0.1f});
  CHECK(format_tensor(tenth.view(), opts, "cpu") == "tensor(0.1000)");
  std::vector<int64_t> values(12);
  for (int64_t i = 0; i < 12; ++i) values[i] = i;
  auto x = owned<int64_t>(TSR_INT64, {3, 4}, values);
  CHECK(format_tensor(x.view(), opts, "cpu") ==
        "tensor([[ 0,  1,  2,  3],\n        [ 4,  5,  6,  7],\n        [ 8,  9, 10, 11]])");
  // The "full" profile: no summarisation however large.
  std::vector<int64_t> many(1001, 7);
  auto m = owned<int64_t>(TSR_INT64, {1001}, many);
  opts.threshold = std::numeric_limits<int64_t>::max();
  CHECK(format_tensor(m.view(), opts, "cpu").find("...") == std::string::npos);
  opts.threshold = 1000;
  CHECK(format_tensor(m.view(), opts, "cpu") == "tensor([7, 7, 7,  ..., 7, 7, 7])");
}

TEST_CASE("python_float_repr spells floats as Python's repr does") {
  using tessera::rt::python_float_repr;
  CHECK(python_float_repr(0.5) == "0.5");
  CHECK(python_float_repr(2.0) == "2.0");
  CHECK(python_float_repr(-0.0) == "-0.0");
  CHECK(python_float_repr(1e-5) == "1e-05");
  CHECK(python_float_repr(1.3e-6) == "1.3e-06");
  CHECK(python_float_repr(0.0001) == "0.0001");
  CHECK(python_float_repr(1e16) == "1e+16");
  CHECK(python_float_repr(1e15) == "1000000000000000.0");
  CHECK(python_float_repr(123456789012345678.0) == "1.2345678901234568e+17");
  CHECK(python_float_repr(0.1f) == "0.10000000149011612");
  CHECK(python_float_repr(1.0 / 3.0) == "0.3333333333333333");
  CHECK(python_float_repr(5e-324) == "5e-324");
  CHECK(python_float_repr(1.7976931348623157e308) == "1.7976931348623157e+308");
  CHECK(python_float_repr(std::nan("")) == "nan");
  CHECK(python_float_repr(-std::numeric_limits<double>::infinity()) == "-inf");
}
