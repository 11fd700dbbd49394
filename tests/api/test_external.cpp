// SPDX-License-Identifier: Apache-2.0
// External memory: wrapped without a copy, the deleter runs exactly once —
// when the last view goes, or at once when the call fails.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <vector>

#include "runtime_fixture.hpp"

using namespace tessera;
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
}  // namespace

TEST_CASE("external memory is shared and its deleter runs once, after the last view", "[external]") {
  std::vector<double> buf = {0, 1, 2, 3, 4, 5};
  Counter counter;
  int64_t shape[2] = {2, 3};
  tsr_tensor* raw = nullptr;
  REQUIRE(tsr_from_external(runtime().get(), buf.data(), 2, shape, nullptr, 0, TSR_FLOAT64, cpu(), count_delete,
                            &counter, &raw) == TSR_OK);
  {
    Tensor t(raw);
    CHECK(t.data_ptr() == buf.data());
    Tensor v = t.T();
    buf[1] = 100;  // a write on the owner's side shows through the view
    CHECK(v.select(0, 1).select(0, 0).item_double() == 100);
    v.select(0, 2).select(0, 1).fill_(-1);  // and a write through the view reaches the owner
    CHECK(buf[5] == -1);
    t = Tensor();
    CHECK(counter.calls == 0);  // v still holds the storage
  }
  CHECK(counter.calls == 1);
  CHECK(counter.last == buf.data());
}

TEST_CASE("external memory with strides and an offset", "[external]") {
  std::vector<int32_t> buf(20);
  for (int i = 0; i < 20; ++i) buf[static_cast<size_t>(i)] = i;
  Counter counter;
  int64_t shape[2] = {3, 2}, strides[2] = {5, 2};
  tsr_tensor* raw = nullptr;
  REQUIRE(tsr_from_external(runtime().get(), buf.data(), 2, shape, strides, 1, TSR_INT32, cpu(), count_delete, &counter,
                            &raw) == TSR_OK);
  Tensor t(raw);
  CHECK(t.to_vector<int32_t>() == std::vector<int32_t>{1, 3, 6, 8, 11, 13});
  t = Tensor();
  CHECK(counter.calls == 1);
}

TEST_CASE("a failed wrap still runs the deleter exactly once", "[external]") {
  alignas(8) static unsigned char bytes[64];
  struct Case {
    void* data;
    int32_t ndim;
    std::vector<int64_t> shape, strides;
    int64_t offset;
    tsr_dtype dtype;
    tsr_device device;
    const char* needle;
  };
  tsr_device cpu0 = cpu(), cpu9{TSR_DEVICE_CPU, 9};
  std::vector<Case> cases = {
      {bytes + 1, 1, {2}, {}, 0, TSR_FLOAT32, cpu0, "not aligned"},
      {bytes, 1, {2}, {-1}, 0, TSR_FLOAT32, cpu0, "negative stride"},
      {bytes, 1, {-2}, {}, 0, TSR_FLOAT32, cpu0, "negative dimension"},
      {bytes, 1, {2}, {}, -3, TSR_FLOAT32, cpu0, "negative storage offset"},
      {bytes, 1, {2}, {}, 0, static_cast<tsr_dtype>(42), cpu0, "invalid dtype"},
      {bytes, 1, {2}, {}, 0, TSR_FLOAT32, cpu9, "not available"},
      {nullptr, 1, {2}, {}, 0, TSR_FLOAT32, cpu0, "NULL"},
      {bytes, 2, {int64_t(1) << 40, int64_t(1) << 40}, {}, 0, TSR_FLOAT32, cpu0, "overflow"},
  };
  for (const Case& c : cases) {
    Counter counter;
    tsr_tensor* out = nullptr;
    INFO(c.needle);
    tsr_status st = tsr_from_external(runtime().get(), c.data, c.ndim, c.shape.data(),
                                      c.strides.empty() ? nullptr : c.strides.data(), c.offset, c.dtype, c.device,
                                      count_delete, &counter, &out);
    CHECK(st != TSR_OK);
    CHECK(out == nullptr);
    CHECK_THAT(tsr_last_error_message(), Catch::Contains(c.needle));
    CHECK(counter.calls == 1);
  }
  // A NULL runtime too.
  Counter counter;
  tsr_tensor* out = nullptr;
  int64_t two = 2;
  CHECK(tsr_from_external(nullptr, bytes, 1, &two, nullptr, 0, TSR_FLOAT32, cpu0, count_delete, &counter, &out) ==
        TSR_ERR_INVALID_ARGUMENT);
  CHECK(counter.calls == 1);
}
