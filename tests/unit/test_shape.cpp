// SPDX-License-Identifier: Apache-2.0
// View, shape and broadcasting logic (runtime/shape.hpp) against PyTorch
// 1.13: the lessons' cases, every error message, a differential table of
// random view chains recorded from torch (tests/data/shape/make_views.py),
// and a property test that composes index maps.
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <functional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "error.hpp"
#include "shape.hpp"
#include "tessera/tessera.h"
#include "test_paths.hpp"

using namespace tessera::rt;
using Vec = std::vector<int64_t>;

namespace {

Layout make(const Vec& shape, const Vec& strides, int64_t offset = 0) {
  Layout l;
  l.ndim = int32_t(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    l.shape[i] = shape[i];
    l.strides[i] = strides[i];
  }
  l.offset = offset;
  return l;
}

Vec shape_of(const Layout& l) { return Vec(l.shape.begin(), l.shape.begin() + l.ndim); }
Vec strides_of(const Layout& l) { return Vec(l.strides.begin(), l.strides.begin() + l.ndim); }

Layout contiguous(const Vec& shape) { return contiguous_layout(int32_t(shape.size()), shape.data()); }
Layout view_of(const Layout& l, const Vec& shape) { return view(l, int32_t(shape.size()), shape.data()); }
Layout expand_of(const Layout& l, const Vec& shape) { return expand(l, int32_t(shape.size()), shape.data()); }

// x = torch.arange(12).view(3, 4)
const Layout kX = make({3, 4}, {4, 1});

void expect_error(const std::function<void()>& body, tsr_status status, const std::string& message) {
  try {
    body();
    FAIL("no error; expected: " << message);
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == message);
    CHECK(e.status() == status);
  }
}

}  // namespace

// ---- the lessons ------------------------------------------------------------

TEST_CASE("lesson: five views of arange(12).view(3, 4)", "[shape]") {
  CHECK(shape_of(kX) == Vec{3, 4});
  CHECK(strides_of(contiguous({3, 4})) == Vec{4, 1});

  const Layout xt = reverse_dims(kX);
  CHECK(shape_of(xt) == Vec{4, 3});
  CHECK(strides_of(xt) == Vec{1, 4});
  CHECK(xt.offset == 0);

  const Layout cols = slice(kX, 1, 1, TSR_SLICE_NONE, 2);  // x[:, 1::2]
  CHECK(shape_of(cols) == Vec{3, 2});
  CHECK(strides_of(cols) == Vec{4, 2});
  CHECK(cols.offset == 1);

  const Layout u = unsqueeze(kX, 0);
  CHECK(shape_of(u) == Vec{1, 3, 4});
  CHECK(strides_of(u) == Vec{12, 4, 1});

  const Layout e = expand_of(slice(kX, 1, TSR_SLICE_NONE, 1, 1), {3, 4});  // x[:, :1].expand(3, 4)
  CHECK(shape_of(e) == Vec{3, 4});
  CHECK(strides_of(e) == Vec{4, 0});

  CHECK(is_contiguous(kX));
  CHECK_FALSE(is_contiguous(xt));
  CHECK_FALSE(is_contiguous(cols));
  CHECK(is_contiguous(u));
  CHECK_FALSE(is_contiguous(e));
}

TEST_CASE("lesson: addresses, x.T.view(12) fails, x.view(12) works", "[shape]") {
  const Layout xt = reverse_dims(kX);
  CHECK(xt.offset + 2 * xt.strides[0] + 1 * xt.strides[1] == 6);  // x.T[2, 1] is x[1, 2]
  const Layout y = slice(kX, 1, 1, TSR_SLICE_NONE, 2);
  CHECK(y.offset + 2 * y.strides[0] + 1 * y.strides[1] == 11);  // y[2, 1] is x[2, 3]

  expect_error([&] { view_of(xt, {12}); }, TSR_ERR_SHAPE,
               "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
               "two contiguous subspaces). Use .reshape(...) instead.");
  CHECK_FALSE(view_strides(xt, 1, Vec{12}.data()).has_value());
  const Layout flat = view_of(kX, {12});
  CHECK(shape_of(flat) == Vec{12});
  CHECK(strides_of(flat) == Vec{1});
  // reshape's copy then views: clone keeps x.T's strides, contiguous() does not.
  CHECK(strides_of(dense_like(xt)) == Vec{1, 4});
  CHECK_FALSE(flatten(xt, 0, -1).has_value());
}

TEST_CASE("lesson: points[1] of a (3, 2) tensor", "[shape]") {
  const Layout points = contiguous({3, 2});
  const Layout p1 = select(points, 0, 1);
  CHECK(p1.offset == 2);
  CHECK(shape_of(p1) == Vec{2});
  CHECK(strides_of(p1) == Vec{1});
  const Layout pt = transpose(points, 0, 1);
  CHECK(shape_of(pt) == Vec{2, 3});
  CHECK(strides_of(pt) == Vec{1, 2});
}

// ---- individual rules, values printed by torch 1.13 --------------------------

TEST_CASE("contiguous strides count a size-0 dim as 1", "[shape]") {
  CHECK(strides_of(contiguous({2, 0, 3})) == Vec{3, 3, 1});
  CHECK(contiguous({}).ndim == 0);
  CHECK(checked_numel(2, Vec{3, 4}.data(), 8) == 12);
  CHECK(checked_numel(0, nullptr, 4) == 1);
  // 2^62 elements fit in int64, 2^63 bytes do not.
  CHECK(checked_numel(2, Vec{int64_t(1) << 61, 2}.data(), 1) == int64_t(1) << 62);
}

TEST_CASE("is_contiguous and is_non_overlapping_and_dense follow ATen", "[shape]") {
  CHECK(is_contiguous(make({3, 1, 4}, {4, 100, 1})));  // size-1 stride ignored
  CHECK(is_contiguous(make({0, 3}, {7, 5})));          // empty
  CHECK(is_contiguous(make({}, {})));
  CHECK(is_non_overlapping_and_dense(make({4, 3}, {1, 4})));
  CHECK(is_non_overlapping_and_dense(make({3, 1, 4}, {1, 100, 3})));
  CHECK(is_non_overlapping_and_dense(make({3, 0, 4}, {1, 100, 3})));
  CHECK(is_non_overlapping_and_dense(make({5}, {1})));
  CHECK(is_non_overlapping_and_dense(make({1}, {9})));
  CHECK_FALSE(is_non_overlapping_and_dense(make({3}, {2})));
  CHECK_FALSE(is_non_overlapping_and_dense(make({3, 2}, {4, 2})));
  CHECK_FALSE(is_non_overlapping_and_dense(make({3, 4}, {4, 0})));
  CHECK(is_non_overlapping_and_dense(make({2, 0}, {0, 1})));  // empty: contiguous
  CHECK(is_non_overlapping_and_dense(make({0, 1, 3}, {24, 24, 2})));
  CHECK_FALSE(is_non_overlapping_and_dense(make({3, 4}, {1, 1})));
}

TEST_CASE("dense_like matches x.clone().stride() in torch 1.13", "[shape]") {
  struct Case {
    Vec shape, strides, clone_strides;
  };
  // From /usr/bin/python3: y = torch.arange(120).view(2, 3, 4, 5) and views of it.
  const Case cases[] = {
      {{4, 3}, {1, 4}, {1, 4}},                          // x.T
      {{3, 2}, {4, 2}, {2, 1}},                          // x[:, 1::2]
      {{2, 3}, {2, 4}, {1, 2}},                          // x.T[::2]
      {{3, 4}, {4, 0}, {4, 1}},                          // x[:, :1].expand(3, 4)
      {{4, 2, 3, 3}, {5, 60, 2, 20}, {3, 36, 1, 12}},    // y.permute(2, 0, 3, 1)[:, :, ::2]
      {{4, 3, 2, 4}, {1, 20, 60, 5}, {1, 16, 48, 4}},    // y.permute(3, 1, 0, 2)[1:]
      {{6, 2, 4, 3}, {0, 60, 5, 20}, {24, 12, 1, 4}},    // y[..., :1].expand(2, 3, 4, 6).permute(3, 0, 2, 1)
      {{3, 4}, {1, 1}, {1, 3}},                          // as_strided, equal strides: smaller size first
      {{3, 4}, {4, 4}, {1, 3}},
      {{3, 4, 2}, {4, 4, 0}, {2, 6, 1}},
      {{3, 4, 2}, {0, 4, 1}, {8, 2, 1}},
      {{2, 2, 2}, {2, 2, 1}, {4, 2, 1}},
      {{3, 1, 4}, {1, 100, 3}, {1, 100, 3}},             // dense: strides kept as they are
      {{3, 0, 4}, {1, 100, 3}, {1, 100, 3}},
      {{0, 1, 3}, {24, 24, 2}, {24, 24, 2}},             // empty: contiguous, so kept
  };
  for (const Case& c : cases) {
    const Layout src = make(c.shape, c.strides, 7);
    const Layout d = dense_like(src);
    INFO("shape " << shape_string(src) << " strides " << format_list(c.strides.data(), src.ndim));
    CHECK(shape_of(d) == c.shape);
    CHECK(strides_of(d) == c.clone_strides);
    CHECK(d.offset == 0);
  }
}

TEST_CASE("slice clamps as Python does", "[shape]") {
  auto check = [](int64_t start, int64_t stop, int64_t step, Vec shape, Vec strides, int64_t offset) {
    const Layout s = slice(kX, 1, start, stop, step);
    INFO("x[:, " << start << ":" << stop << ":" << step << "]");
    CHECK(shape_of(s) == shape);
    CHECK(strides_of(s) == strides);
    CHECK(s.offset == offset);
  };
  const int64_t none = TSR_SLICE_NONE, big = INT64_MAX;
  check(5, none, 1, {3, 0}, {4, 1}, 4);
  check(-100, 2, 1, {3, 2}, {4, 1}, 0);
  check(3, 1, 1, {3, 0}, {4, 1}, 3);
  check(big, none, 1, {3, 0}, {4, 1}, 4);
  check(1, big, 1, {3, 3}, {4, 1}, 1);
  check(-3, -1, 1, {3, 2}, {4, 1}, 1);
  check(1, 3, int64_t(1) << 62, {3, 1}, {4, int64_t(1) << 62}, 1);
  const Layout rows = slice(kX, 0, 1, none, 1);  // x[1:, ::3]
  const Layout r = slice(rows, 1, none, none, 3);
  CHECK(shape_of(r) == Vec{2, 2});
  CHECK(strides_of(r) == Vec{4, 3});
  CHECK(r.offset == 4);
  CHECK(slice(kX, 0, 4, none, 1).offset == 12);  // x[4:]
}

TEST_CASE("unsqueeze, squeeze, transpose, permute, expand, flatten", "[shape]") {
  const Layout cols = slice(kX, 1, 1, TSR_SLICE_NONE, 2);
  CHECK(strides_of(unsqueeze(kX, 1)) == Vec{4, 4, 1});
  CHECK(strides_of(unsqueeze(kX, 2)) == Vec{4, 1, 1});
  CHECK(strides_of(unsqueeze(kX, -1)) == Vec{4, 1, 1});
  CHECK(strides_of(unsqueeze(cols, 1)) == Vec{4, 4, 2});
  CHECK(strides_of(unsqueeze(cols, 2)) == Vec{4, 2, 1});
  CHECK(unsqueeze(cols, 2).offset == 1);

  const Layout s = make({3, 1, 4}, {4, 4, 1}, 2);
  CHECK(shape_of(squeeze_dim(s, 1)) == Vec{3, 4});
  CHECK(shape_of(squeeze_dim(s, 0)) == Vec{3, 1, 4});
  CHECK(squeeze_dim(s, 1).offset == 2);
  CHECK(shape_of(squeeze_all(make({1, 3, 1, 1}, {9, 3, 1, 1}))) == Vec{3});
  CHECK(squeeze_dim(make({}, {}), -1).ndim == 0);

  const Layout y = contiguous({2, 3, 4});
  CHECK(shape_of(reverse_dims(y)) == Vec{4, 3, 2});
  CHECK(strides_of(reverse_dims(y)) == Vec{1, 4, 12});
  CHECK(reverse_dims(make({}, {})).ndim == 0);
  CHECK(strides_of(reverse_dims(make({5}, {3}))) == Vec{3});
  const int32_t perm[] = {2, 0, -2};
  CHECK(strides_of(permute(y, 3, perm)) == Vec{1, 12, 4});
  CHECK(strides_of(transpose(y, -1, 0)) == Vec{1, 4, 12});

  const Layout a = contiguous({3});
  CHECK(strides_of(expand_of(a, {2, 3})) == Vec{0, 1});
  CHECK(strides_of(expand_of(a, {1, 3})) == Vec{3, 1});
  CHECK(strides_of(expand_of(a, {2, 1, 3})) == Vec{0, 3, 1});
  CHECK(strides_of(expand_of(make({}, {}), {2, 3})) == Vec{0, 0});
  CHECK(strides_of(expand_of(make({}, {}), {1, 1})) == Vec{0, 0});
  CHECK(strides_of(expand_of(kX, {-1, 4})) == Vec{4, 1});

  const auto f0 = flatten(make({}, {}, 3), 0, -1);
  REQUIRE(f0);
  CHECK(shape_of(*f0) == Vec{1});
  CHECK(f0->offset == 3);
  const auto same = flatten(reverse_dims(kX), 0, 0);  // start == end: the tensor itself
  REQUIRE(same);
  CHECK(strides_of(*same) == Vec{1, 4});
  const auto f = flatten(contiguous({2, 3, 4}), 1, 2);
  REQUIRE(f);
  CHECK(shape_of(*f) == Vec{2, 12});
}

TEST_CASE("view strides follow ATen's computeStride", "[shape]") {
  // Empty tensors: the same shape keeps strides, others get fresh ones.
  const Layout e = make({2, 0, 3}, {3, 3, 1});
  CHECK(strides_of(view_of(e, {0, 5})) == Vec{5, 1});
  CHECK(strides_of(view_of(e, {-1})) == Vec{1});
  CHECK(strides_of(view_of(make({2, 0, 2}, {3, 3, 2}), {6, 0})) == Vec{1, 1});
  CHECK(strides_of(view_of(make({0, 2}, {3, 2}), {0, 2})) == Vec{3, 2});
  // 0-d and size-1 dims.
  CHECK(strides_of(view_of(make({}, {}), {1, 1})) == Vec{1, 1});
  CHECK(view_of(make({1, 1}, {1, 1}), {}).ndim == 0);
  // Splitting a non-contiguous dim keeps its stride.
  const Layout cols = slice(kX, 1, 1, TSR_SLICE_NONE, 2);  // (3, 2) strides (4, 2)
  CHECK(strides_of(view_of(cols, {3, 2, 1})) == Vec{4, 2, 2});
  CHECK(strides_of(view_of(reverse_dims(kX), {2, 2, 3})) == Vec{2, 1, 4});
  expect_error([&] { view_of(slice(view_of(kX, {2, 2, 3}), 1, 1, TSR_SLICE_NONE, 1), {-1}); }, TSR_ERR_SHAPE,
               "view size is not compatible with input tensor's size and stride (at least one dimension spans across "
               "two contiguous subspaces). Use .reshape(...) instead.");
}

TEST_CASE("broadcasting", "[shape]") {
  int64_t out[TSR_MAX_DIMS];
  CHECK(broadcast_shapes(2, Vec{3, 1}.data(), 2, Vec{1, 4}.data(), out) == 2);
  CHECK(Vec(out, out + 2) == Vec{3, 4});
  CHECK(broadcast_shapes(2, Vec{3, 1}.data(), 1, Vec{0}.data(), out) == 2);
  CHECK(Vec(out, out + 2) == Vec{3, 0});
  CHECK(broadcast_shapes(0, nullptr, 1, Vec{5}.data(), out) == 1);
  CHECK(out[0] == 5);
  const Layout row = contiguous({4});
  const Layout b = broadcast_to(row, 2, Vec{3, 4}.data());
  CHECK(strides_of(b) == Vec{0, 1});  // r.expand(3, 4).stride() == (0, 1)
  const Layout c = broadcast_to(make({3, 1}, {1, 1}, 5), 2, Vec{3, 4}.data());
  CHECK(strides_of(c) == Vec{1, 0});
  CHECK(c.offset == 5);
}

TEST_CASE("storage_extent", "[shape]") {
  CHECK(storage_extent(kX) == 12);
  CHECK(storage_extent(slice(kX, 1, 1, TSR_SLICE_NONE, 2)) == 12);
  CHECK(storage_extent(select(kX, 0, 1)) == 8);
  CHECK(storage_extent(make({3, 0}, {4, 1}, 4)) == 0);
  CHECK(storage_extent(make({}, {}, 5)) == 6);
  CHECK(storage_extent(expand_of(slice(kX, 1, 0, 1, 1), {3, 4})) == 9);
}

// ---- every error ---------------------------------------------------------------

TEST_CASE("error messages are PyTorch's", "[shape][errors]") {
  const Vec big{int64_t(1) << 62, 4};
  const Layout scalar = make({}, {});
  const std::string view_msg =
      "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
      "contiguous subspaces). Use .reshape(...) instead.";

  expect_error([&] { transpose(kX, 0, 2); }, TSR_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  expect_error([&] { wrap_dim(-3, 2); }, TSR_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  expect_error([&] { squeeze_dim(scalar, 1); }, TSR_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  expect_error([&] { unsqueeze(kX, 3); }, TSR_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  expect_error([&] { select(contiguous({3}), 0, 5); }, TSR_ERR_INDEX,
               "index 5 is out of bounds for dimension 0 with size 3");
  expect_error([&] { select(kX, -1, -5); }, TSR_ERR_INDEX, "index -5 is out of bounds for dimension 1 with size 4");
  expect_error([&] { select(scalar, 0, 0); }, TSR_ERR_INDEX,
               "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
               "convert a 0-dim tensor to a number");
  expect_error([&] { view_of(reverse_dims(kX), {12}); }, TSR_ERR_SHAPE, view_msg);
  expect_error([&] { view_of(kX, {5, -1}); }, TSR_ERR_SHAPE, "shape '[5, -1]' is invalid for input of size 12");
  expect_error([&] { view_of(kX, {0, -1}); }, TSR_ERR_SHAPE, "shape '[0, -1]' is invalid for input of size 12");
  expect_error([&] { view_of(kX, {2, 2, int64_t(1) << 40}); }, TSR_ERR_SHAPE,
               "shape '[2, 2, 1099511627776]' is invalid for input of size 12");
  expect_error([&] { view_of(kX, {-1, int64_t(1) << 62, int64_t(1) << 62}); }, TSR_ERR_SHAPE,
               "shape '[-1, 4611686018427387904, 4611686018427387904]' is invalid for input of size 12");
  expect_error([&] { view_of(kX, {-1, -1}); }, TSR_ERR_SHAPE, "only one dimension can be inferred");
  expect_error([&] { view_of(kX, {-2, 6}); }, TSR_ERR_INVALID_ARGUMENT, "invalid shape dimension -2");
  expect_error([&] { view_of(contiguous({0}), {0, -1}); }, TSR_ERR_SHAPE,
               "cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified dimension size -1 can "
               "be any value and is ambiguous");
  expect_error([&] { expand_of(contiguous({2, 3}), {2, 5}); }, TSR_ERR_SHAPE,
               "The expanded size of the tensor (5) must match the existing size (3) at non-singleton dimension 1.  "
               "Target sizes: [2, 5].  Tensor sizes: [2, 3]");
  expect_error([&] { expand_of(kX, {3, -2}); }, TSR_ERR_SHAPE,
               "The expanded size of the tensor (-2) must match the existing size (4) at non-singleton dimension 1.  "
               "Target sizes: [3, -2].  Tensor sizes: [3, 4]");
  expect_error([&] { expand_of(kX, {-1, 3, 4}); }, TSR_ERR_SHAPE,
               "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0");
  expect_error([&] { expand_of(kX, {3}); }, TSR_ERR_SHAPE,
               "expand(tensor of size [3, 4], size=[3]): the number of sizes provided (1) must be greater or equal to "
               "the number of dimensions in the tensor (2)");
  expect_error([&] { expand_of(contiguous({3}), {-2, 3}); }, TSR_ERR_INVALID_ARGUMENT,
               "Trying to create tensor with negative dimension -2: [-2, 3]");
  expect_error([&] { expand_of(contiguous({1, 1}), {int64_t(1) << 40, int64_t(1) << 40}); },
               TSR_ERR_INVALID_ARGUMENT,
               "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]");
  int64_t out[TSR_MAX_DIMS];
  expect_error([&] { broadcast_shapes(2, Vec{2, 3}.data(), 1, Vec{4}.data(), out); }, TSR_ERR_SHAPE,
               "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
  expect_error([&] { broadcast_to(contiguous({4}), 2, Vec{2, 3}.data()); }, TSR_ERR_SHAPE,
               "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1");
  expect_error([&] { broadcast_to(contiguous({2, 3}), 1, Vec{3}.data()); }, TSR_ERR_SHAPE,
               "output with shape [3] doesn't match the broadcast shape [2, 3]");
  expect_error([&] { broadcast_to(contiguous({0}), 1, Vec{1}.data()); }, TSR_ERR_SHAPE,
               "output with shape [1] doesn't match the broadcast shape [0]");
  expect_error([&] { contiguous({-1, 3}); }, TSR_ERR_INVALID_ARGUMENT,
               "Trying to create tensor with negative dimension -1: [-1, 3]");
  expect_error([&] { contiguous(big); }, TSR_ERR_INVALID_ARGUMENT,
               "Storage size calculation overflowed with sizes=[4611686018427387904, 4]");
  expect_error([&] { checked_numel(3, Vec{int64_t(1) << 62, 4, 0}.data(), 4); }, TSR_ERR_INVALID_ARGUMENT,
               "Storage size calculation overflowed with sizes=[4611686018427387904, 4, 0]");
  expect_error([&] { checked_numel(2, Vec{int64_t(1) << 61, 2}.data(), 2); }, TSR_ERR_INVALID_ARGUMENT,
               "Storage size calculation overflowed with sizes=[2305843009213693952, 2]");
  CHECK(checked_numel(3, Vec{0, int64_t(1) << 62, 4}.data(), 4) == 0);  // ATen: 0 first, no overflow
  const Vec ones17(17, 1);
  expect_error([&] { contiguous(ones17); }, TSR_ERR_INVALID_ARGUMENT, "tensors have at most 16 dims, got 17 (TSR_MAX_DIMS: a kernel's tsr_tensor_desc holds the shape and "
               "strides in arrays of that size, part of the plugin ABI)");
  expect_error([&] { view_of(contiguous({1}), ones17); }, TSR_ERR_INVALID_ARGUMENT,
               "tensors have at most 16 dims, got 17 (TSR_MAX_DIMS: a kernel's tsr_tensor_desc holds the shape and "
               "strides in arrays of that size, part of the plugin ABI)");
  expect_error([&] { unsqueeze(contiguous(Vec(16, 1)), 0); }, TSR_ERR_INVALID_ARGUMENT,
               "tensors have at most 16 dims, got 17 (TSR_MAX_DIMS: a kernel's tsr_tensor_desc holds the shape and "
               "strides in arrays of that size, part of the plugin ABI)");
  const int32_t one_dim[] = {0}, twice[] = {1, -1}, out_of_range[] = {0, 2};
  expect_error([&] { permute(kX, 1, one_dim); }, TSR_ERR_INVALID_ARGUMENT,
               "permute(): number of dimensions in the tensor input does not match the length of the desired "
               "ordering of dimensions i.e. input.dim() = 2 is not equal to len(dims) = 1");
  expect_error([&] { permute(kX, 2, twice); }, TSR_ERR_INVALID_ARGUMENT, "permute(): duplicate dims are not allowed.");
  expect_error([&] { permute(kX, 2, out_of_range); }, TSR_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  expect_error([&] { slice(kX, 1, 0, 2, 0); }, TSR_ERR_INVALID_ARGUMENT, "slice step must be positive");
  expect_error([&] { slice(kX, 1, 0, 2, -1); }, TSR_ERR_INVALID_ARGUMENT, "slice step must be positive");
  expect_error([&] { slice(scalar, 0, 0, 2, 1); }, TSR_ERR_INDEX, "slice() cannot be applied to a 0-dim tensor.");
  expect_error([&] { flatten(kX, 1, 0); }, TSR_ERR_INVALID_ARGUMENT,
               "flatten() has invalid args: start_dim cannot come after end_dim");
  expect_error([&] { flatten(kX, 2, 2); }, TSR_ERR_INDEX,
               "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  auto strided = [&](Vec shape, Vec strides, int64_t offset, size_t item = 8) {
    as_strided(kX, int32_t(shape.size()), shape.data(), strides.data(), offset, 12 * int64_t(item), item);
  };
  expect_error([&] { strided({2, 2}, {1, -1}, 0); }, TSR_ERR_INVALID_ARGUMENT,
               "as_strided: Negative strides are not supported at the moment, got strides: [1, -1]");
  expect_error([&] { strided({2, 2}, {1, 1}, -1); }, TSR_ERR_INVALID_ARGUMENT, "Tensor: invalid storage offset -1");
  expect_error([&] { strided({-1, 2}, {1, 1}, 0); }, TSR_ERR_INVALID_ARGUMENT,
               "Trying to create tensor with negative dimension -1: [-1, 2]");
  expect_error([&] { strided({4, 4}, {4, 1}, 0); }, TSR_ERR_INVALID_ARGUMENT,
               "as_strided: sizes [4, 4], strides [4, 1], storage offset 0, and itemsize 8 requiring a storage size "
               "of 128 are out of bounds for storage of size 96");
  expect_error([&] { strided({4, 4}, {4, 1}, 1); }, TSR_ERR_INVALID_ARGUMENT,
               "as_strided: sizes [4, 4], strides [4, 1], storage offset 1, and itemsize 8 requiring a storage size "
               "of 136 are out of bounds for storage of size 96");
  expect_error([&] { strided({3, 4}, {4, 1}, 12, 1); }, TSR_ERR_INVALID_ARGUMENT,
               "as_strided: sizes [3, 4], strides [4, 1], storage offset 12, and itemsize 1 requiring a storage size "
               "of 24 are out of bounds for storage of size 12");
  expect_error([&] { strided({2, 2}, {INT64_MAX / 2, INT64_MAX / 2}, 0); }, TSR_ERR_INVALID_ARGUMENT,
               "Storage size calculation overflowed with sizes=[2, 2] and strides=[4611686018427387903, "
               "4611686018427387903]");
  // An empty view may sit anywhere.
  const Layout empty = as_strided(kX, 2, Vec{0, 4}.data(), Vec{4, 1}.data(), 100, 12);
  CHECK(empty.offset == 100);
}

// ---- the differential table ------------------------------------------------

namespace {

// Where we say the same thing in other words, and why.
std::string expected_message(const std::string& torch_message) {
  // 1.13 names the wrong layout here; we name none.
  std::string m = std::regex_replace(torch_message, std::regex("^permute\\(sparse_coo\\): "), "permute(): ");
  // We do not know the dtype, so we do not name the tensor type.
  m = std::regex_replace(m, std::regex("^expand\\(torch\\.\\w+\\{(\\[[^\\]]*\\])\\}"), "expand(tensor of size $1");
  // torch names its internal setStorage; we name the call the user made.
  m = std::regex_replace(m, std::regex("^setStorage: "), "as_strided: ");
  return m;
}

Vec vec(const nlohmann::json& j) { return j.get<Vec>(); }

// Runs one recorded step; *copied says whether flatten needed a copy.
Layout apply_step(const Layout& x, const std::string& op, const nlohmann::json& a, int64_t& storage, bool& copied) {
  copied = false;
  if (op == "transpose") return transpose(x, a[0], a[1]);
  if (op == "T") return reverse_dims(x);
  if (op == "permute") {
    std::vector<int32_t> dims = a.get<std::vector<int32_t>>();
    return permute(x, int32_t(dims.size()), dims.data());
  }
  if (op == "slice") {
    auto bound = [](const nlohmann::json& v) { return v.is_null() ? int64_t(TSR_SLICE_NONE) : v.get<int64_t>(); };
    return slice(x, a[0], bound(a[1]), bound(a[2]), a[3]);
  }
  if (op == "select") return select(x, a[0], a[1]);
  if (op == "unsqueeze") return unsqueeze(x, a[0]);
  if (op == "squeeze") return squeeze_dim(x, a[0]);
  if (op == "squeeze_all") return squeeze_all(x);
  if (op == "expand") return expand_of(x, vec(a));
  if (op == "view") return view_of(x, vec(a));
  if (op == "flatten") {
    if (auto r = flatten(x, a[0], a[1])) return *r;
    // What the caller does: copy to row-major (a new storage), then view.
    copied = true;
    const Layout fresh = contiguous_layout(x.ndim, x.shape.data());
    storage = fresh.numel();
    auto r = flatten(fresh, a[0], a[1]);
    REQUIRE(r);
    return *r;
  }
  if (op == "as_strided") {
    const Vec shape = vec(a[0]), strides = vec(a[1]);
    return as_strided(x, int32_t(shape.size()), shape.data(), strides.data(), a[2], storage * 8, 8);
  }
  FAIL("unknown op " << op);
  return x;
}

}  // namespace

TEST_CASE("random view chains replay exactly as torch 1.13 ran them", "[shape][torch]") {
  std::ifstream in(std::string(test_paths::data_dir) + "/shape/views.json");
  REQUIRE(in.good());
  const nlohmann::json table = nlohmann::json::parse(in);
  const auto& chains = table.at("chains");
  REQUIRE(chains.size() >= 500);
  int steps = 0, errors = 0, copies = 0;
  for (size_t c = 0; c < chains.size(); ++c) {
    const auto& base = chains[c].at("base");
    int64_t storage = base.at("storage");
    const Vec shape = vec(base.at("shape")), strides = vec(base.at("strides"));
    Layout x = as_strided(Layout{}, int32_t(shape.size()), shape.data(), strides.data(), base.at("offset"), storage * 8, 8);
    std::string trail = "chain " + std::to_string(c) + ": base " + shape_string(x) + " " + strides_string(x);
    for (const auto& step : chains[c].at("steps")) {
      const std::string op = step.at("op");
      trail += " | " + op + step.at("args").dump();
      INFO(trail);
      ++steps;
      bool copied = false;
      if (step.contains("error")) {
        ++errors;
        const std::string torch_message = step.at("error");
        try {
          apply_step(x, op, step.at("args"), storage, copied);
          FAIL("no error; torch said: " << torch_message);
        } catch (const Error& e) {
          if (torch_message == "numel: integer multiplication overflow") {
            // torch's words for expand to a negative size; ours say what is wrong.
            const std::string ours = e.what();
            CHECK((ours.find("negative dimension") != std::string::npos ||
                   ours.find("isn't allowed") != std::string::npos));
          } else {
            CHECK(std::string(e.what()) == expected_message(torch_message));
          }
          CHECK((e.status() == TSR_ERR_INDEX) == (step.at("error_type") == "IndexError"));
        }
        break;
      }
      const Layout y = apply_step(x, op, step.at("args"), storage, copied);
      CHECK(shape_of(y) == vec(step.at("shape")));
      CHECK(strides_of(y) == vec(step.at("strides")));
      CHECK(y.offset == step.at("offset").get<int64_t>());
      CHECK(is_contiguous(y) == step.at("contiguous").get<bool>());
      CHECK(strides_of(dense_like(y)) == vec(step.at("clone_strides")));
      CHECK(copied == step.value("copied", false));
      CHECK(storage_extent(y) <= storage);
      copies += copied;
      x = y;
    }
  }
  CHECK(steps >= 1500);
  CHECK(errors >= 100);
  CHECK(copies >= 1);
}

// ---- the property test -----------------------------------------------------------

namespace {

// One step of a chain: the layout before it, and how an index of the layout
// after it maps to an index of the layout before (written from each op's
// meaning, not from shape.cpp).
struct Step {
  Layout before;
  std::function<Vec(const Vec&)> back;
};

int64_t address(const Layout& l, const Vec& idx) {
  int64_t a = l.offset;
  for (int32_t i = 0; i < l.ndim; ++i) a += idx[i] * l.strides[i];
  return a;
}

Vec unravel(int64_t linear, const Vec& shape) {
  Vec idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = linear % shape[i];
    linear /= shape[i];
  }
  return idx;
}

int64_t ravel(const Vec& idx, const Vec& shape) {
  int64_t linear = 0;
  for (size_t i = 0; i < shape.size(); ++i) linear = linear * shape[i] + idx[i];
  return linear;
}

int64_t wrap(int64_t d, int64_t n) { return d < 0 ? d + n : d; }

// Whether some strides walk `target` over x's elements in x's row-major
// order (the lesson's condition for view, in general): the stride of each
// dim is forced by its first step, then every element is checked.
bool view_exists(const Layout& x, const Vec& target) {
  const int64_t n = x.numel();
  if (n == 0) return true;
  const Vec xs = shape_of(x);
  auto addr_at = [&](int64_t linear) { return address(x, unravel(linear, xs)); };
  Vec strides(target.size(), 0);
  int64_t block = 1;
  for (size_t j = target.size(); j-- > 0;) {
    if (target[j] > 1) strides[j] = addr_at(block) - addr_at(0);
    block *= target[j];
  }
  for (int64_t k = 0; k < n; ++k) {
    const Vec idx = unravel(k, target);
    int64_t a = addr_at(0);
    for (size_t j = 0; j < target.size(); ++j) a += idx[j] * strides[j];
    if (a != addr_at(k)) return false;
  }
  return true;
}

// The lesson's condition for view(-1): after dropping size-1 dims,
// stride[j] == size[j+1] * stride[j+1] for neighbouring dims.
bool lesson_flatten_condition(const Layout& x) {
  if (x.numel() == 0) return true;
  Vec size, stride;
  for (int32_t i = 0; i < x.ndim; ++i)
    if (x.shape[i] != 1) {
      size.push_back(x.shape[i]);
      stride.push_back(x.strides[i]);
    }
  for (size_t j = 0; j + 1 < size.size(); ++j)
    if (stride[j] != size[j + 1] * stride[j + 1]) return false;
  return true;
}

}  // namespace

TEST_CASE("property: a chain's final layout addresses what the composed index maps address", "[shape][property]") {
  std::mt19937_64 rng(7);
  auto uniform = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int views_ok = 0, views_refused = 0, flat_checked = 0, elements = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    // A base: row-major, or permuted dims with gaps between them, maybe a stride 0.
    Vec shape(uniform(0, 4));
    for (auto& s : shape) s = uniform(uniform(0, 9) == 0 ? 0 : 1, 4);
    Layout base = contiguous(shape);
    if (uniform(0, 1)) {
      std::vector<int32_t> order(shape.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = int32_t(i);
      std::shuffle(order.begin(), order.end(), rng);
      int64_t step = uniform(1, 2);
      for (auto d = order.rbegin(); d != order.rend(); ++d) {
        base.strides[*d] = uniform(0, 7) == 0 ? 0 : step;
        step *= std::max<int64_t>(shape[*d], 1) + uniform(0, 1);
      }
      base.offset = uniform(0, 3);
    }
    std::vector<Step> chain;
    Layout x = base;
    for (int k = 0; k < 6; ++k) {
      const int32_t n = x.ndim;
      const Vec xs = shape_of(x);
      const int64_t nd = std::max(n, 1);
      std::function<Vec(const Vec&)> back;
      Layout y;
      try {
        switch (uniform(0, 10)) {
          case 0: {
            const int64_t a = uniform(-nd, nd - 1), b = uniform(-nd, nd - 1);
            y = transpose(x, a, b);
            back = [=](const Vec& i) {
              Vec o = i;
              if (n) std::swap(o[wrap(a, n)], o[wrap(b, n)]);
              return o;
            };
            break;
          }
          case 1: {
            std::vector<int32_t> dims(n);
            for (int32_t i = 0; i < n; ++i) dims[i] = i;
            std::shuffle(dims.begin(), dims.end(), rng);
            y = permute(x, n, dims.data());
            back = [=](const Vec& i) {
              Vec o(n);
              for (int32_t j = 0; j < n; ++j) o[dims[j]] = i[j];
              return o;
            };
            break;
          }
          case 2: {
            const int64_t d = uniform(-nd, nd - 1), step = uniform(1, 3);
            const int64_t start = uniform(0, 3) == 0 ? int64_t(TSR_SLICE_NONE) : uniform(-5, 5);
            const int64_t stop = uniform(0, 3) == 0 ? int64_t(TSR_SLICE_NONE) : uniform(-5, 5);
            y = slice(x, d, start, stop, step);
            const int64_t dd = wrap(d, n), size = xs[dd];
            // Python's list slicing, for the first index taken.
            int64_t first = start == TSR_SLICE_NONE ? 0 : start;
            if (first < 0) first = std::max<int64_t>(first + size, 0);
            first = std::min(first, size);
            back = [=](const Vec& i) {
              Vec o = i;
              o[dd] = first + i[dd] * step;
              return o;
            };
            break;
          }
          case 3: {
            const int64_t d = uniform(-nd, nd - 1);
            const int64_t size = n ? xs[wrap(d, n)] : 1;
            const int64_t index = uniform(-size, size - 1);
            y = select(x, d, index);
            back = [=](const Vec& i) {
              Vec o = i;
              o.insert(o.begin() + wrap(d, n), index < 0 ? index + size : index);
              return o;
            };
            break;
          }
          case 4: {
            const int64_t d = uniform(-n - 1, n);
            y = unsqueeze(x, d);
            back = [=](const Vec& i) {
              Vec o = i;
              o.erase(o.begin() + wrap(d, n + 1));
              return o;
            };
            break;
          }
          case 5: {
            const int64_t d = uniform(-nd, nd - 1);
            y = squeeze_dim(x, d);
            back = [=](const Vec& i) {
              Vec o = i;
              if (n && xs[wrap(d, n)] == 1) o.insert(o.begin() + wrap(d, n), 0);
              return o;
            };
            break;
          }
          case 6: {
            y = squeeze_all(x);
            back = [=](const Vec& i) {
              Vec o;
              size_t j = 0;
              for (int64_t s : xs) o.push_back(s == 1 ? 0 : i[j++]);
              return o;
            };
            break;
          }
          case 7: {
            const int64_t lead = uniform(0, 2);
            Vec target;
            for (int64_t i = 0; i < lead; ++i) target.push_back(uniform(1, 3));
            for (int64_t s : xs) target.push_back(s == 1 ? uniform(0, 3) : (uniform(0, 1) ? -1 : s));
            y = expand_of(x, target);
            back = [=](const Vec& i) {
              Vec o(n);
              for (int32_t j = 0; j < n; ++j) o[j] = xs[j] == 1 ? 0 : i[j + lead];
              return o;
            };
            break;
          }
          case 8:
          case 9: {
            // view to a random factorisation (or -1); its success is checked
            // against the brute-force condition.
            Vec target;
            int64_t rest = x.numel();
            if (uniform(0, 2) == 0 || rest == 0) {
              target = {-1};
              if (rest == 0 && uniform(0, 1)) target = {0, 5};
            } else {
              for (int r = int(uniform(0, 3)); r > 0; --r) {
                Vec divisors;
                for (int64_t dv = 1; dv <= rest; ++dv)
                  if (rest % dv == 0) divisors.push_back(dv);
                const int64_t dv = divisors[uniform(0, int64_t(divisors.size()) - 1)];
                target.push_back(dv);
                rest /= dv;
              }
              target.push_back(rest);
            }
            Vec resolved = target;
            if (resolved == Vec{-1}) resolved = {x.numel()};
            const bool exists = view_exists(x, resolved);
            if (resolved.size() == 1 && x.numel() > 0) {
              CHECK(exists == lesson_flatten_condition(x));
              ++flat_checked;
            }
            try {
              y = view_of(x, target);
            } catch (const Error& e) {
              INFO("view " << shape_string(x) << " " << strides_string(x) << " -> "
                           << format_list(target.data(), int32_t(target.size())));
              CHECK_FALSE(exists);
              CHECK(e.status() == TSR_ERR_SHAPE);
              ++views_refused;
              throw;
            }
            INFO("view " << shape_string(x) << " " << strides_string(x) << " -> " << shape_string(y));
            CHECK(exists);
            CHECK(y.offset == x.offset);
            ++views_ok;
            const Vec ys = shape_of(y);
            back = [=](const Vec& i) { return unravel(ravel(i, ys), xs); };
            break;
          }
          default: {
            if (n == 0) {
              y = reverse_dims(x);
              back = [](const Vec& i) { return i; };
              break;
            }
            const int64_t s = uniform(0, n - 1), e = uniform(s, n - 1);
            auto f = flatten(x, s, e);
            // flatten is view-or-copy; it must be a view exactly when view() is.
            const Vec target = [&] {
              Vec t(xs.begin(), xs.begin() + s);
              int64_t m = 1;
              for (int64_t d = s; d <= e; ++d) m *= xs[d];
              t.push_back(m);
              t.insert(t.end(), xs.begin() + e + 1, xs.end());
              return t;
            }();
            CHECK(f.has_value() == view_exists(x, target));
            if (s == 0 && e == n - 1 && x.numel() > 0) {
              CHECK(f.has_value() == lesson_flatten_condition(x));
              ++flat_checked;
            }
            if (!f) break;
            y = *f;
            const Vec ys = shape_of(y);
            back = [=](const Vec& i) { return unravel(ravel(i, ys), xs); };
          }
        }
      } catch (const Error&) {
        continue;  // an invalid step: the chain goes on from x
      }
      if (!back) continue;
      chain.push_back({x, back});
      x = y;
    }
    // Every element of the final layout: its address, and the address of
    // the base element the chain's index maps lead back to.
    const Vec fs = shape_of(x);
    const int64_t numel = x.numel();
    REQUIRE(numel <= 100000);
    for (int64_t k = 0; k < numel; ++k) {
      Vec idx = unravel(k, fs);
      const int64_t direct = address(x, idx);
      for (auto s = chain.rbegin(); s != chain.rend(); ++s) idx = s->back(idx);
      REQUIRE(idx.size() == size_t(base.ndim));
      if (direct != address(base, idx)) {
        FAIL("trial " << trial << " element " << k << ": " << direct << " != " << address(base, idx));
      }
      ++elements;
    }
  }
  CHECK(views_ok > 100);
  CHECK(views_refused > 10);
  CHECK(flat_checked > 50);
  CHECK(elements > 10000);
}
