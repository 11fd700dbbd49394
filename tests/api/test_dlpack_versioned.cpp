// SPDX-License-Identifier: Apache-2.0
// DLPack 1.x through the C API (tessera/dlpack_exchange.h): the export's
// layout, dtype codes and flags; imports that share, that copy (read-only,
// negative strides) and that refuse; the producer's deleter runs exactly
// once in every case (also run under valgrind: nothing may leak).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"

using namespace tessera;
using tessera::test::cpu;
using tessera::test::last_error;
using tessera::test::runtime;

namespace {

// Counts a managed tensor's deleter calls, then runs the producer's own.
int g_calls = 0;
void (*g_producer_deleter)(tsr_dlpack_versioned*) = nullptr;
void counting_deleter(tsr_dlpack_versioned* self) {
  ++g_calls;
  if (g_producer_deleter != nullptr) g_producer_deleter(self);
}

// Tessera's export of t, its deleter counted.
tsr_dlpack_versioned* counted_export(const Tensor& t, const tsr_dlpack_options* options = nullptr) {
  tsr_dlpack_versioned* m = nullptr;
  REQUIRE(tsr_to_dlpack_versioned(t.get(), options, &m) == TSR_OK);
  REQUIRE(m != nullptr);
  g_calls = 0;
  g_producer_deleter = m->deleter;
  m->deleter = counting_deleter;
  return m;
}

// A hand-made producer over a caller's buffer: the struct and its dims, no allocation.
struct Foreign {
  tsr_dlpack_versioned managed{};
  int64_t shape[4] = {};
  int64_t strides[4] = {};
  Foreign(void* data, int32_t ndim, tsr_dlpack_dtype dtype) {
    managed.version = {1, 0};
    managed.deleter = counting_deleter;
    managed.dl_tensor.data = data;
    managed.dl_tensor.device = {TSR_DLPACK_DEVICE_CPU, 0};
    managed.dl_tensor.ndim = ndim;
    managed.dl_tensor.dtype = dtype;
    managed.dl_tensor.shape = shape;
    managed.dl_tensor.strides = strides;
    g_calls = 0;
    g_producer_deleter = nullptr;
  }
};

Tensor import(tsr_dlpack_versioned* m) {
  tsr_tensor* raw = nullptr;
  const tsr_status st = tsr_from_dlpack_versioned(runtime().get(), m, &raw);
  INFO(last_error());
  REQUIRE(st == TSR_OK);
  return Tensor(raw);
}

}  // namespace

TEST_CASE("the export is DLPack 1.x's layout over the tensor's memory", "[dlpack]") {
  Tensor base = Tensor::from_host(runtime(), std::vector<double>{0, 1, 2, 3, 4, 5}, {2, 3}, TSR_FLOAT64, cpu());
  Tensor t = base.T();
  tsr_dlpack_versioned* m = counted_export(t);
  CHECK(m->version.major == 1);
  CHECK(m->version.minor == 0);
  CHECK(m->flags == 0);
  const tsr_dlpack_tensor& dl = m->dl_tensor;
  CHECK(dl.data == base.data_ptr());
  CHECK(dl.device.device_type == TSR_DLPACK_DEVICE_CPU);
  CHECK(dl.device.device_id == 0);
  CHECK(dl.ndim == 2);
  CHECK((dl.dtype.code == TSR_DLPACK_FLOAT && dl.dtype.bits == 64 && dl.dtype.lanes == 1));
  CHECK((dl.shape[0] == 3 && dl.shape[1] == 2));
  CHECK((dl.strides[0] == 1 && dl.strides[1] == 3));
  CHECK(dl.byte_offset == 0);
  {
    Tensor back = import(m);  // zero copy: the same memory, the deleter when the last view goes
    CHECK(back.data_ptr() == base.data_ptr());
    CHECK(back.to_vector<double>() == std::vector<double>{0, 3, 1, 4, 2, 5});
    base.select(0, 1).fill_(7.0);
    CHECK(back.to_vector<double>() == std::vector<double>{0, 7, 1, 7, 2, 7});
    Tensor view = back.T();
    back = Tensor();
    CHECK(g_calls == 0);
  }
  CHECK(g_calls == 1);
}

TEST_CASE("the export's dtype codes: bool, unsigned, bfloat16, complex", "[dlpack]") {
  struct Case {
    tsr_dtype dtype;
    uint8_t code, bits;
  };
  const Case cases[] = {{TSR_BOOL, TSR_DLPACK_BOOL, 8},         {TSR_UINT8, TSR_DLPACK_UINT, 8},
                        {TSR_UINT16, TSR_DLPACK_UINT, 16},      {TSR_UINT32, TSR_DLPACK_UINT, 32},
                        {TSR_UINT64, TSR_DLPACK_UINT, 64},      {TSR_INT8, TSR_DLPACK_INT, 8},
                        {TSR_INT64, TSR_DLPACK_INT, 64},        {TSR_FLOAT16, TSR_DLPACK_FLOAT, 16},
                        {TSR_BFLOAT16, TSR_DLPACK_BFLOAT, 16},  {TSR_FLOAT32, TSR_DLPACK_FLOAT, 32},
                        {TSR_COMPLEX64, TSR_DLPACK_COMPLEX, 64}, {TSR_COMPLEX128, TSR_DLPACK_COMPLEX, 128}};
  for (const Case& c : cases) {
    INFO(tsr_dtype_name(c.dtype));
    Tensor t = Tensor::ones(runtime(), {3}, c.dtype, cpu());
    tsr_dlpack_versioned* m = counted_export(t);
    CHECK(m->dl_tensor.dtype.code == c.code);
    CHECK(m->dl_tensor.dtype.bits == c.bits);
    Tensor back = import(m);
    CHECK(back.dtype() == c.dtype);
    CHECK(back.data_ptr() == t.data_ptr());
    back = Tensor();
    CHECK(g_calls == 1);
  }
}

TEST_CASE("export options: copy, flags, struct size", "[dlpack]") {
  Tensor t = Tensor::from_host(runtime(), std::vector<float>{1, 2, 3}, {3}, TSR_FLOAT32, cpu());
  tsr_dlpack_options o = TSR_DLPACK_OPTIONS_INIT;
  o.copy = TSR_DLPACK_COPY_ALWAYS;
  o.flags = TSR_DLPACK_FLAG_READ_ONLY;
  tsr_dlpack_versioned* m = counted_export(t, &o);
  CHECK(m->flags == (TSR_DLPACK_FLAG_IS_COPIED | TSR_DLPACK_FLAG_READ_ONLY));
  CHECK(m->dl_tensor.data != t.data_ptr());
  CHECK(static_cast<float*>(m->dl_tensor.data)[2] == 3.0f);
  m->deleter(m);
  CHECK(g_calls == 1);

  o = TSR_DLPACK_OPTIONS_INIT;
  o.copy = TSR_DLPACK_COPY_NEVER;
  o.to_device = 1;
  o.device = cpu();  // the tensor's own device: no copy needed
  m = counted_export(t, &o);
  CHECK(m->flags == 0);
  CHECK(m->dl_tensor.data == t.data_ptr());
  m->deleter(m);

  tsr_dlpack_versioned* none = nullptr;
  o = TSR_DLPACK_OPTIONS_INIT;
  o.flags = TSR_DLPACK_FLAG_IS_COPIED;
  CHECK(tsr_to_dlpack_versioned(t.get(), &o, &none) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(last_error(), Catch::Contains("only TSR_DLPACK_FLAG_READ_ONLY"));
  o = TSR_DLPACK_OPTIONS_INIT;
  o.struct_size = 4;
  CHECK(tsr_to_dlpack_versioned(t.get(), &o, &none) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(last_error(), Catch::Contains("TSR_DLPACK_OPTIONS_STRUCT_SIZE"));
  o = TSR_DLPACK_OPTIONS_INIT;
  o.copy = 7;
  CHECK(tsr_to_dlpack_versioned(t.get(), &o, &none) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(none == nullptr);
  CHECK(tsr_to_dlpack_versioned(nullptr, nullptr, &none) == TSR_ERR_INVALID_ARGUMENT);
}

TEST_CASE("a read-only capsule is imported as a copy, and its deleter runs at once", "[dlpack]") {
  std::vector<int32_t> buf = {1, 2, 3, 4};
  Foreign f(buf.data(), 1, {TSR_DLPACK_INT, 32, 1});
  f.shape[0] = 4;
  f.strides[0] = 1;
  f.managed.flags = TSR_DLPACK_FLAG_READ_ONLY;
  Tensor t = import(&f.managed);
  CHECK(g_calls == 1);  // copied: the producer's memory is released before the call returns
  CHECK(t.data_ptr() != buf.data());
  CHECK(t.to_vector<int32_t>() == std::vector<int32_t>{1, 2, 3, 4});
  t.fill_(0);  // the copy is writable; the producer's memory is not written
  CHECK(buf == std::vector<int32_t>{1, 2, 3, 4});
}

TEST_CASE("negative strides are imported as a flipped copy (Note [Negative steps])", "[dlpack]") {
  std::vector<int32_t> buf = {0, 1, 2, 3, 4, 5};
  // NumPy's a.reshape(2, 3)[::-1]: data at row 1, strides (-3, 1).
  Foreign f(buf.data() + 3, 2, {TSR_DLPACK_INT, 32, 1});
  f.shape[0] = 2;
  f.shape[1] = 3;
  f.strides[0] = -3;
  f.strides[1] = 1;
  Tensor t = import(&f.managed);
  CHECK(g_calls == 1);
  CHECK(t.to_vector<int32_t>() == std::vector<int32_t>{3, 4, 5, 0, 1, 2});
  CHECK((t.stride()[0] >= 0 && t.stride()[1] >= 0));
  // A negative stride over an empty or one-long dim reverses nothing: zero copy.
  Foreign g(buf.data(), 2, {TSR_DLPACK_INT, 32, 1});
  g.shape[0] = 1;
  g.shape[1] = 2;
  g.strides[0] = -6;
  g.strides[1] = 1;
  Tensor u = import(&g.managed);
  CHECK(u.data_ptr() == buf.data());
  CHECK(g_calls == 0);
  u = Tensor();
  CHECK(g_calls == 1);
}

TEST_CASE("refused imports name the fault and run the deleter once", "[dlpack]") {
  std::vector<double> buf(4);
  struct Case {
    const char* what;
    void (*spoil)(Foreign&);
    tsr_status status;
    const char* message;
  };
  const Case cases[] = {
      {"major 2", [](Foreign& f) { f.managed.version = {2, 0}; }, TSR_ERR_UNSUPPORTED,
       "DLPack version 2.0 is not supported"},
      {"major 0", [](Foreign& f) { f.managed.version = {0, 8}; }, TSR_ERR_UNSUPPORTED, "major version 1"},
      {"ndim -1", [](Foreign& f) { f.managed.dl_tensor.ndim = -1; }, TSR_ERR_INVALID_ARGUMENT, "has -1 dims"},
      {"ndim 17", [](Foreign& f) { f.managed.dl_tensor.ndim = 17; }, TSR_ERR_INVALID_ARGUMENT, "TSR_MAX_DIMS"},
      {"NULL shape", [](Foreign& f) { f.managed.dl_tensor.shape = nullptr; }, TSR_ERR_INVALID_ARGUMENT,
       "shape is NULL"},
      {"negative size", [](Foreign& f) { f.shape[0] = -2; }, TSR_ERR_INVALID_ARGUMENT, "size -2 at dim 0"},
      {"two lanes", [](Foreign& f) { f.managed.dl_tensor.dtype.lanes = 2; }, TSR_ERR_UNSUPPORTED, "lanes 2"},
      {"float8", [](Foreign& f) { f.managed.dl_tensor.dtype = {8, 8, 1}; }, TSR_ERR_UNSUPPORTED, "code 8, bits 8"},
      {"kDLExtDev", [](Foreign& f) { f.managed.dl_tensor.device.device_type = 12; }, TSR_ERR_UNSUPPORTED,
       "device type 12"},
      {"misaligned", [](Foreign& f) { f.managed.dl_tensor.byte_offset = 3; }, TSR_ERR_INVALID_ARGUMENT, "aligned"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    Foreign f(buf.data(), 1, {TSR_DLPACK_FLOAT, 64, 1});
    f.shape[0] = 4;
    f.strides[0] = 1;
    c.spoil(f);
    tsr_tensor* out = nullptr;
    CHECK(tsr_from_dlpack_versioned(runtime().get(), &f.managed, &out) == c.status);
    CHECK_THAT(last_error(), Catch::Contains(c.message));
    CHECK(out == nullptr);
    CHECK(g_calls == 1);
  }
  tsr_tensor* out = nullptr;
  CHECK(tsr_from_dlpack_versioned(runtime().get(), nullptr, &out) == TSR_ERR_INVALID_ARGUMENT);
  Foreign f(buf.data(), 1, {TSR_DLPACK_FLOAT, 64, 1});
  f.shape[0] = 4;
  CHECK(tsr_from_dlpack_versioned(nullptr, &f.managed, &out) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(g_calls == 1);  // taken over, so deleted, also when the runtime is NULL
}

TEST_CASE("a round trip of Tessera's export through a copying import frees everything", "[dlpack]") {
  Tensor t = Tensor::from_host(runtime(), std::vector<int64_t>{5, 6, 7}, {3}, TSR_INT64, cpu());
  tsr_dlpack_versioned* m = counted_export(t);
  m->flags |= TSR_DLPACK_FLAG_READ_ONLY;  // as a read-only producer would hand it out
  Tensor c = import(m);
  CHECK(g_calls == 1);
  CHECK(c.data_ptr() != t.data_ptr());
  CHECK(c.to_vector<int64_t>() == std::vector<int64_t>{5, 6, 7});
}
