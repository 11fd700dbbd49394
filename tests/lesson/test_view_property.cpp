// SPDX-License-Identifier: Apache-2.0
// Property test: for random shapes and random chains of view ops, every
// element read through the view equals storage[offset + sum(i_j * stride_j)],
// and view(-1) succeeds exactly when the lesson's condition holds.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "runtime_fixture.hpp"

using namespace tessera;
using tessera::test::cpu;
using tessera::test::runtime;

namespace {

// The lesson's condition for flattening with view: after leaving out dims
// of size 1, stride[j] == shape[j+1] * stride[j+1] for neighbouring dims.
bool flattenable(const Shape& shape, const Shape& stride) {
  int64_t prev_stride = -1, prev_size = 0;
  bool have = false;
  int64_t numel = 1;
  for (int64_t s : shape) numel *= s;
  if (numel <= 1) return true;
  for (size_t j = 0; j < shape.size(); ++j) {
    if (shape[j] == 1) continue;
    if (have && prev_stride != shape[j] * stride[j]) return false;
    prev_stride = stride[j];
    prev_size = shape[j];
    have = true;
  }
  (void)prev_size;
  return true;
}

Tensor random_view(std::mt19937& rng, Tensor v) {
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int steps = static_cast<int>(pick(1, 5));
  for (int s = 0; s < steps; ++s) {
    int nd = v.dim();
    switch (pick(0, 6)) {
      case 0:
        if (nd >= 2) v = v.transpose(static_cast<int32_t>(pick(0, nd - 1)), static_cast<int32_t>(pick(0, nd - 1)));
        break;
      case 1:
        if (nd >= 1) {
          int32_t d = static_cast<int32_t>(pick(0, nd - 1));
          int64_t n = v.shape()[static_cast<size_t>(d)];
          v = v.slice(d, pick(-n - 1, n), pick(-n - 1, n + 1), pick(1, 3));
        }
        break;
      case 2:
        if (nd < 5) v = v.unsqueeze(static_cast<int32_t>(pick(0, nd)));
        break;
      case 3:
        if (nd >= 1 && v.shape()[0] > 0) v = v.select(0, pick(-v.shape()[0], v.shape()[0] - 1));
        break;
      case 4: {
        Shape s = v.shape();
        for (auto& x : s)
          if (x == 1 && pick(0, 1)) x = pick(1, 3);
        v = v.expand(s);
        break;
      }
      case 5:
        if (nd >= 2) {
          std::vector<int32_t> p(static_cast<size_t>(nd));
          for (int i = 0; i < nd; ++i) p[static_cast<size_t>(i)] = i;
          std::shuffle(p.begin(), p.end(), rng);
          v = v.permute(p);
        }
        break;
      default: v = v.squeeze(); break;
    }
  }
  return v;
}

}  // namespace

TEST_CASE("elements of random views sit at offset + sum(i_j * stride_j)", "[property]") {
  std::mt19937 rng(12345);
  const Runtime& rt = runtime();
  int checked = 0, flattened = 0, refused = 0;
  for (int trial = 0; trial < 400; ++trial) {
    int nd = std::uniform_int_distribution<int>(1, 4)(rng);
    Shape shape;
    for (int i = 0; i < nd; ++i) shape.push_back(std::uniform_int_distribution<int64_t>(1, 5)(rng));
    int64_t numel = 1;
    for (int64_t s : shape) numel *= s;
    Tensor storage = Tensor::arange(rt, numel, cpu());  // storage[m] == m
    Tensor v = random_view(rng, storage.view(shape));
    REQUIRE(v.same_storage(storage));
    std::vector<int64_t> values = v.to_vector<int64_t>();
    Shape vs = v.shape(), st = v.stride();
    std::vector<int64_t> idx(vs.size(), 0);
    for (size_t flat = 0; flat < values.size(); ++flat) {
      int64_t place = v.storage_offset();
      for (size_t j = 0; j < idx.size(); ++j) place += idx[j] * st[j];
      REQUIRE(values[flat] == place);
      for (size_t j = idx.size(); j-- > 0;) {
        if (++idx[j] < vs[j]) break;
        idx[j] = 0;
      }
      ++checked;
    }
    bool expect = flattenable(vs, st);
    bool ok = true;
    try {
      Tensor f = v.view({-1});
      REQUIRE(f.same_storage(storage));
      REQUIRE(f.to_vector<int64_t>() == values);
    } catch (const Error& e) {
      ok = false;
      REQUIRE(e.status() == TSR_ERR_SHAPE);
    }
    INFO("shape " << tuple_string(vs) << " stride " << tuple_string(st));
    REQUIRE(ok == expect);
    (ok ? flattened : refused)++;
  }
  CHECK(checked > 1000);
  CHECK(flattened > 20);
  CHECK(refused > 20);
}
