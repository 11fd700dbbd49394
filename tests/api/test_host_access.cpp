// SPDX-License-Identifier: Apache-2.0
// Host-side access (ABI 1.4): which memory the host may address, one
// element by index, and copies to and from host memory of any layout
// (column-major for Fortran), checked against values computed here.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"
#include "tessera/half.h"

using tessera::Tensor;
using tessera::test::cpu;
using tessera::test::last_error;
using tessera::test::runtime;

TEST_CASE("the cpu is host-accessible; unknown devices and NULL are not", "[host]") {
  CHECK(tsr_device_is_host_accessible(runtime().get(), cpu()) == 1);
  CHECK(tsr_device_is_host_accessible(runtime().get(), tsr_device{TSR_DEVICE_CPU, 5}) == 0);
  CHECK(tsr_device_is_host_accessible(runtime().get(), tsr_device{TSR_DEVICE_CUDA, 0}) == 0);  // device memory, or none
  CHECK(tsr_device_is_host_accessible(nullptr, cpu()) == 0);
  Tensor t = Tensor::zeros(runtime(), {2}, TSR_FLOAT32, cpu());
  CHECK(tsr_tensor_is_host_accessible(t.get()) == 1);
  CHECK(tsr_tensor_is_host_accessible(nullptr) == 0);
}

TEST_CASE("one element by index: negative indices, views, every dtype", "[host][item]") {
  Tensor base = Tensor::arange(runtime(), 12, cpu()).view({3, 4});
  Tensor t = base.T();  // shape (4, 3), strides (1, 4): element (i, j) is 4j + i
  tsr_scalar v{};
  for (int64_t i = -4; i < 4; ++i)
    for (int64_t j = -3; j < 3; ++j) {
      const int64_t idx[2] = {i, j};
      REQUIRE(tsr_tensor_get_item(t.get(), 2, idx, &v) == TSR_OK);
      CHECK(v.kind == TSR_SCALAR_INT);
      CHECK(v.i == 4 * ((j + 3) % 3) + (i + 4) % 4);
    }
  const int64_t at[2] = {1, -1};  // element (1, 2) of the view: base[2][1]
  REQUIRE(tsr_tensor_set_item(t.get(), 2, at, tsr_scalar_int(-7)) == TSR_OK);
  const int64_t base_at[2] = {2, 1};
  REQUIRE(tsr_tensor_get_item(base.get(), 2, base_at, &v) == TSR_OK);
  CHECK(v.i == -7);  // the write reached the storage

  // Exact for large int64, bool as BOOL, float as FLOAT; a 0-d tensor takes no index.
  Tensor big = Tensor::full(runtime(), {}, tessera::Scalar(int64_t{(int64_t{1} << 62) + 1}), TSR_INT64, cpu());
  REQUIRE(tsr_tensor_get_item(big.get(), 0, nullptr, &v) == TSR_OK);
  CHECK(v.i == (int64_t{1} << 62) + 1);
  Tensor flags = Tensor::zeros(runtime(), {3}, TSR_BOOL, cpu());
  const int64_t one[1] = {1};
  REQUIRE(tsr_tensor_set_item(flags.get(), 1, one, tsr_scalar_bool(1)) == TSR_OK);
  REQUIRE(tsr_tensor_get_item(flags.get(), 1, one, &v) == TSR_OK);
  CHECK((v.kind == TSR_SCALAR_BOOL && v.i == 1));
  Tensor h = Tensor::zeros(runtime(), {2}, TSR_FLOAT16, cpu());
  REQUIRE(tsr_tensor_set_item(h.get(), 1, one, tsr_scalar_float(0.1)) == TSR_OK);
  REQUIRE(tsr_tensor_get_item(h.get(), 1, one, &v) == TSR_OK);
  CHECK(v.f == tsr_float16_to_float(tsr_float_to_float16(0.1f)));

  SECTION("errors name what is wrong") {
    const int64_t out_of_range[2] = {4, 0};
    CHECK(tsr_tensor_get_item(t.get(), 2, out_of_range, &v) == TSR_ERR_INDEX);
    CHECK_THAT(last_error(), Catch::Contains("index 4 is out of bounds for dim 0 with size 4"));
    const int64_t negative[2] = {0, -4};
    CHECK(tsr_tensor_set_item(t.get(), 2, negative, tsr_scalar_int(1)) == TSR_ERR_INDEX);
    CHECK_THAT(last_error(), Catch::Contains("index -4 is out of bounds for dim 1 with size 3"));
    CHECK(tsr_tensor_get_item(t.get(), 1, out_of_range, &v) == TSR_ERR_INVALID_ARGUMENT);
    CHECK_THAT(last_error(), Catch::Contains("1 indices for a tensor of 2 dims"));
    CHECK(tsr_tensor_get_item(t.get(), 2, nullptr, &v) == TSR_ERR_INVALID_ARGUMENT);
    CHECK(tsr_tensor_get_item(t.get(), 2, at, nullptr) == TSR_ERR_INVALID_ARGUMENT);
    Tensor small = Tensor::zeros(runtime(), {2}, TSR_INT8, cpu());
    CHECK(tsr_tensor_set_item(small.get(), 1, one, tsr_scalar_int(300)) != TSR_OK);  // does not fit an int8
    CHECK_THAT(last_error(), Catch::Contains("overflow"));
  }
}

TEST_CASE("copies to and from host memory in column-major and other layouts", "[host][strided]") {
  // A (3, 4) float64 tensor with a[i][j] = 10 i + j, read out as Fortran order.
  std::vector<double> rows(12);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) rows[static_cast<size_t>(4 * i + j)] = 10 * i + j;
  Tensor a = Tensor::from_host(runtime(), rows, {3, 4}, TSR_FLOAT64, cpu());
  const int64_t fortran[2] = {1, 3};
  std::vector<double> col(12, -1);
  REQUIRE(tsr_copy_to_host(a.get(), col.data(), col.size() * sizeof(double), fortran) == TSR_OK);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) CHECK(col[static_cast<size_t>(i + 3 * j)] == 10 * i + j);

  // From a transposed view, into a padded host layout (leading dimension 6):
  // only the elements reached are written.
  Tensor at = a.T();  // (4, 3)
  const int64_t padded[2] = {6, 1};
  std::vector<double> pad(4 * 6, -1);
  REQUIRE(tsr_copy_to_host(at.get(), pad.data(), pad.size() * sizeof(double), padded) == TSR_OK);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c) CHECK(pad[static_cast<size_t>(6 * r + c)] == (c < 3 ? 10 * c + r : -1));

  // Fortran data into a view of a new tensor: every element of the view written.
  Tensor z = Tensor::zeros(runtime(), {3, 8}, TSR_FLOAT64, cpu());
  Tensor every_other = z.slice(1, 0, TSR_SLICE_NONE, 2);  // (3, 4)
  REQUIRE(tsr_copy_from_host(every_other.get(), col.data(), col.size() * sizeof(double), fortran) == TSR_OK);
  std::vector<double> back(24);
  REQUIRE(tsr_read(z.get(), back.data(), back.size() * sizeof(double)) == TSR_OK);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 8; ++j) CHECK(back[static_cast<size_t>(8 * i + j)] == (j % 2 == 0 ? 10 * i + j / 2 : 0));

  // Row-major when strides are NULL; a stride of 0 broadcasts a host value on the way in.
  std::vector<double> flat(12);
  REQUIRE(tsr_copy_to_host(a.get(), flat.data(), flat.size() * sizeof(double), nullptr) == TSR_OK);
  CHECK(flat == rows);
  const double seven = 7;
  const int64_t zeros[2] = {0, 0};
  REQUIRE(tsr_copy_from_host(z.get(), &seven, sizeof seven, zeros) == TSR_OK);
  REQUIRE(tsr_read(z.get(), back.data(), back.size() * sizeof(double)) == TSR_OK);
  CHECK(back == std::vector<double>(24, 7));

  SECTION("errors") {
    CHECK(tsr_copy_to_host(a.get(), col.data(), 11 * sizeof(double), fortran) == TSR_ERR_INVALID_ARGUMENT);
    CHECK_THAT(last_error(), Catch::Contains("reaches byte 96 but host_nbytes is 88"));
    const int64_t negative[2] = {-1, 3};
    CHECK(tsr_copy_to_host(a.get(), col.data(), col.size() * sizeof(double), negative) == TSR_ERR_INVALID_ARGUMENT);
    CHECK_THAT(last_error(), Catch::Contains("host stride -1 at dim 0 is negative"));
    double cell = 0;
    CHECK(tsr_copy_to_host(a.get(), &cell, sizeof cell, zeros) == TSR_ERR_INVALID_ARGUMENT);  // one cell, many writes
    CHECK(tsr_copy_from_host(a.get(), nullptr, 96, fortran) == TSR_ERR_INVALID_ARGUMENT);
    CHECK_THAT(last_error(), Catch::Contains("host memory is NULL"));
    const int64_t huge[2] = {INT64_MAX / 2, 1};
    CHECK(tsr_copy_to_host(a.get(), col.data(), col.size() * sizeof(double), huge) == TSR_ERR_INVALID_ARGUMENT);
    CHECK(tsr_copy_to_host(nullptr, col.data(), 96, fortran) == TSR_ERR_INVALID_ARGUMENT);
  }
  SECTION("an empty tensor copies nothing, even with a NULL buffer") {
    Tensor e = Tensor::zeros(runtime(), {0, 3}, TSR_FLOAT32, cpu());
    CHECK(tsr_copy_to_host(e.get(), nullptr, 0, nullptr) == TSR_OK);
    CHECK(tsr_copy_from_host(e.get(), nullptr, 0, nullptr) == TSR_OK);
  }
}
