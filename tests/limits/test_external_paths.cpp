// SPDX-License-Identifier: Apache-2.0
// External memory: the deleter runs exactly once on every path that
// tests/api/test_external.cpp leaves out — a NULL out-pointer, bad ndim, a
// NULL shape, extents that overflow, an unknown device, a NULL deleter — and
// after the storage has been shared by views, copies and `to`.
#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"

using tessera::test::cpu;
using tessera::test::runtime;

namespace {

struct Counter {
  int calls = 0;
  void* last = nullptr;
};

void count_delete(void* ctx, void* data) {
  auto* c = static_cast<Counter*>(ctx);
  ++c->calls;
  c->last = data;
}

alignas(64) double g_cells[16];

}  // namespace

TEST_CASE("every failing wrap runs the deleter once, with the caller's pointer", "[external]") {
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  const std::vector<int64_t> ones17(TSR_MAX_DIMS + 1, 1);
  const int64_t two = 2, four = 4;
  const int64_t huge_stride = int64_t{1} << 62;  // extent fits int64 elements, not bytes
  const int64_t shape_2x2[2] = {2, 2};
  const int64_t overflow_strides[2] = {kMax, kMax};
  struct Case {
    const char* what;
    int32_t ndim;
    const int64_t* shape;
    const int64_t* strides;
    int64_t offset;
    tsr_dtype dtype;
    tsr_device device;
    bool null_out;
    const char* needle;
  };
  const tsr_device cpu0 = cpu(), unknown{77, 0};
  const std::vector<Case> cases = {
      {"NULL out", 1, &two, nullptr, 0, TSR_FLOAT64, cpu0, true, "the output pointer is NULL"},
      {"ndim > max", TSR_MAX_DIMS + 1, ones17.data(), nullptr, 0, TSR_FLOAT64, cpu0, false,
       "tensors have at most 16 dims, got 17"},
      {"ndim < 0", -3, ones17.data(), nullptr, 0, TSR_FLOAT64, cpu0, false, "ndim must be non-negative, got -3"},
      {"NULL shape", 2, nullptr, nullptr, 0, TSR_FLOAT64, cpu0, false, "shape is NULL"},
      {"byte extent overflows", 1, &two, &huge_stride, 0, TSR_FLOAT64, cpu0, false, "overflows"},
      {"element extent overflows", 2, shape_2x2, overflow_strides, 0, TSR_FLOAT64, cpu0, false, "overflows"},
      {"offset overflows", 1, &four, nullptr, kMax - 1, TSR_FLOAT64, cpu0, false, "overflows"},
      {"unknown device", 1, &two, nullptr, 0, TSR_FLOAT64, unknown, false, "unknown device type 77"},
      {"undefined dtype", 1, &two, nullptr, 0, TSR_DTYPE_UNDEFINED, cpu0, false, "invalid dtype -1"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    Counter counter;
    tsr_tensor* out = nullptr;
    tsr_status st = tsr_from_external(runtime().get(), g_cells, c.ndim, c.shape, c.strides, c.offset, c.dtype,
                                      c.device, count_delete, &counter, c.null_out ? nullptr : &out);
    INFO("message: " << tsr_last_error_message());
    CHECK(st == TSR_ERR_INVALID_ARGUMENT);
    CHECK_THAT(std::string(tsr_last_error_message()), Catch::Contains(c.needle));
    CHECK(out == nullptr);
    CHECK(counter.calls == 1);
    CHECK(counter.last == static_cast<void*>(g_cells));
  }
}

TEST_CASE("a failing wrap with no deleter just fails", "[external]") {
  tsr_tensor* out = nullptr;
  const int64_t two = 2, back = -2;
  CHECK(tsr_from_external(runtime().get(), g_cells, 1, &two, &back, 0, TSR_FLOAT64, cpu(), nullptr, nullptr, &out) ==
        TSR_ERR_INVALID_ARGUMENT);
  CHECK(out == nullptr);
}

TEST_CASE("the deleter runs once after views, copies and conversions of the storage are gone", "[external]") {
  for (int i = 0; i < 16; ++i) g_cells[i] = i;
  Counter counter;
  const int64_t shape[2] = {4, 4};
  tsr_tensor* base = nullptr;
  REQUIRE(tsr_from_external(runtime().get(), g_cells, 2, shape, nullptr, 0, TSR_FLOAT64, cpu(), count_delete, &counter,
                            &base) == TSR_OK);
  std::vector<tsr_tensor*> held;
  // Runs one call that hands out a tensor and keeps it.
  auto keep = [&](auto call) {
    tsr_tensor* t = nullptr;
    REQUIRE(call(&t) == TSR_OK);
    held.push_back(t);
    return t;
  };
  tsr_tensor* tr = keep([&](tsr_tensor** o) { return tsr_transpose(base, 0, 1, o); });  // a view
  const int64_t flat = 16;
  // A copy: the transpose is not viewable as 1-d.
  tsr_tensor* copy = keep([&](tsr_tensor** o) { return tsr_reshape(tr, 1, &flat, o); });
  CHECK(tsr_tensor_storage_data(copy) != static_cast<void*>(g_cells));
  // The same dtype: the same tensor, a new reference.
  CHECK(keep([&](tsr_tensor** o) { return tsr_to_dtype(base, TSR_FLOAT64, o); }) == base);
  keep([&](tsr_tensor** o) { return tsr_to_dtype(base, TSR_FLOAT32, o); });  // a converted copy
  CHECK(keep([&](tsr_tensor** o) { return tsr_contiguous(base, o); }) == base);  // contiguous already
  keep([&](tsr_tensor** o) { return tsr_slice(base, 1, 1, 3, 1, o); });  // a view with an offset
  tsr_tensor_retain(base);
  held.push_back(base);
  // A failing op on the storage keeps it alive and untouched.
  const int64_t bad[1] = {5};
  tsr_tensor* none = nullptr;
  CHECK(tsr_view(base, 1, bad, &none) == TSR_ERR_SHAPE);
  CHECK(none == nullptr);
  tsr_tensor_release(base);
  for (tsr_tensor* h : held) {
    CHECK(counter.calls == 0);
    tsr_tensor_release(h);
  }
  CHECK(counter.calls == 1);
  CHECK(counter.last == static_cast<void*>(g_cells));
}

TEST_CASE("an empty external tensor owns its pointer too", "[external]") {
  Counter counter;
  const int64_t zero = 0;
  tsr_tensor* t = nullptr;
  // No element is read, so NULL data is allowed; the deleter still runs once.
  REQUIRE(tsr_from_external(runtime().get(), nullptr, 1, &zero, nullptr, 0, TSR_FLOAT32, cpu(), count_delete, &counter,
                            &t) == TSR_OK);
  CHECK(tsr_tensor_numel(t) == 0);
  CHECK(counter.calls == 0);
  tsr_tensor_release(t);
  CHECK(counter.calls == 1);
  CHECK(counter.last == nullptr);
}
