// SPDX-License-Identifier: Apache-2.0
// The C ABI's own promises (version.h, status.h): a caller of another major
// is refused, older callers' smaller structs keep working, FFI callers get
// exported facts, and a refused shutdown is a status the caller can see.
#include <catch2/catch.hpp>
#include <cstddef>
#include <cstring>
#include <string>

#include "runtime_fixture.hpp"
#include "test_paths.hpp"

using tessera::test::cpu;
using tessera::test::last_error;
using tessera::test::runtime;

TEST_CASE("tsr_runtime_create refuses a caller compiled against another ABI major", "[abi][version]") {
  tsr_runtime_options opts = TSR_RUNTIME_OPTIONS_INIT;
  opts.config_path = test_paths::config;
  CHECK(opts.abi_version == TSR_ABI_VERSION);

  tsr_runtime* rt = nullptr;
  opts.abi_version = TSR_MAKE_VERSION(TSR_ABI_VERSION_MAJOR + 1, 0);
  CHECK(tsr_runtime_create(&opts, &rt) == TSR_ERR_VERSION);
  CHECK(rt == nullptr);
  const std::string both = last_error();
  CHECK_THAT(both, Catch::Contains("compiled against Tessera ABI " + std::to_string(TSR_ABI_VERSION_MAJOR + 1) + ".0"));
  CHECK_THAT(both, Catch::Contains("speaks ABI " + std::to_string(TSR_ABI_VERSION_MAJOR) + "." +
                                   std::to_string(TSR_ABI_VERSION_MINOR)));

  // An older minor of this major, "not stated" (0), and a pre-1.4 struct are accepted.
  for (uint32_t v : {TSR_MAKE_VERSION(TSR_ABI_VERSION_MAJOR, 0), 0u, TSR_ABI_VERSION}) {
    opts.abi_version = v;
    REQUIRE(tsr_runtime_create(&opts, &rt) == TSR_OK);
    CHECK(tsr_runtime_destroy(rt) == TSR_OK);
  }
  opts.abi_version = TSR_MAKE_VERSION(7, 0);
  opts.struct_size = TSR_STRUCT_SIZE(tsr_runtime_options, reserved);  // a 1.3 caller: no abi_version field
  REQUIRE(tsr_runtime_create(&opts, &rt) == TSR_OK);
  CHECK(tsr_runtime_destroy(rt) == TSR_OK);
  CHECK(TSR_VERSION_MAJOR(tsr_abi_version()) == TSR_ABI_VERSION_MAJOR);
}

TEST_CASE("tsr_tensor_describe fills an older caller's smaller struct and no more", "[abi][describe]") {
  tessera::Tensor t = tessera::Tensor::arange(runtime(), 12, cpu()).view({3, 4}).T();
  struct Guarded {
    tsr_tensor_desc desc;
    unsigned char tail[64];
  };
  // Sizes an older or newer caller might have: up to `device` (no shape),
  // up to `shape`, this library's, and a newer caller's larger struct.
  for (size_t size : {TSR_STRUCT_SIZE(tsr_tensor_desc, data), TSR_STRUCT_SIZE(tsr_tensor_desc, device),
                      TSR_STRUCT_SIZE(tsr_tensor_desc, shape), TSR_TENSOR_DESC_STRUCT_SIZE,
                      TSR_TENSOR_DESC_STRUCT_SIZE + 32}) {
    INFO("struct_size " << size);
    Guarded g;
    std::memset(&g, 0xA5, sizeof g);
    g.desc.struct_size = size;
    REQUIRE(tsr_tensor_describe(t.get(), &g.desc) == TSR_OK);
    CHECK(g.desc.struct_size == size);  // the caller's, untouched
    CHECK(g.desc.data == tsr_tensor_storage_data(t.get()));
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&g);
    const size_t written = std::min(size, sizeof(tsr_tensor_desc));
    bool untouched = true;
    for (size_t i = written; i < sizeof g; ++i) untouched &= bytes[i] == 0xA5;
    CHECK(untouched);
    if (size >= TSR_STRUCT_SIZE(tsr_tensor_desc, device)) {
      CHECK(g.desc.ndim == 2);
      CHECK(g.desc.dtype == TSR_INT64);
      CHECK(g.desc.device.type == TSR_DEVICE_CPU);
    }
    if (size >= TSR_TENSOR_DESC_STRUCT_SIZE) {
      CHECK(g.desc.shape[0] == 4);
      CHECK(g.desc.strides[0] == 1);
      CHECK(g.desc.strides[1] == 4);
    }
  }
  tsr_tensor_desc tiny{};
  tiny.struct_size = sizeof(size_t);
  CHECK(tsr_tensor_describe(t.get(), &tiny) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(last_error(), Catch::Contains("smallest layout"));
}

TEST_CASE("exported twins of the inline helpers, for FFI callers", "[abi][ffi]") {
  for (int32_t d = 0; d < TSR_DTYPE_COUNT; ++d) {
    CHECK(tsr_dtype_itemsize(d) == tsr_dtype_size(d));
    CHECK(std::string(tsr_dtype_get_name(d)) == tsr_dtype_name(d));
  }
  CHECK(tsr_dtype_itemsize(TSR_INT64) == 8);
  CHECK(tsr_dtype_itemsize(-1) == 0);
  CHECK(tsr_dtype_itemsize(TSR_DTYPE_COUNT) == 0);
  CHECK(std::string(tsr_dtype_get_name(TSR_BFLOAT16)) == "bfloat16");
  CHECK(std::string(tsr_dtype_get_name(99)) == "?");
  for (int32_t op = 0; op < TSR_OP_COUNT; ++op) CHECK(std::string(tsr_op_get_name(op)) == tsr_op_name(op));
  CHECK(std::string(tsr_op_get_name(TSR_OP_MATMUL)) == "matmul");
  CHECK(std::string(tsr_op_get_name(TSR_OP_COUNT)) == "?");
  CHECK(tsr_op_count() == TSR_OP_COUNT);
  CHECK(tsr_op_kind(TSR_OP_POW) == TSR_OP_KIND_BINARY);
  CHECK(tsr_op_kind(TSR_OP_GE) == TSR_OP_KIND_COMPARE);
  CHECK(tsr_op_arity(TSR_OP_WHERE) == 3);
  CHECK(tsr_op_arity(TSR_OP_RAND_NORMAL) == 0);
  CHECK(tsr_op_kind(-1) == -1);
  CHECK(tsr_op_arity(TSR_OP_COUNT) == -1);
  CHECK(tsr_struct_size(TSR_STRUCT_RUNTIME_OPTIONS) == TSR_RUNTIME_OPTIONS_STRUCT_SIZE);
  CHECK(tsr_struct_size(TSR_STRUCT_MEMORY_STATS) == TSR_MEMORY_STATS_STRUCT_SIZE);
  CHECK(tsr_struct_size(TSR_STRUCT_FINFO) == TSR_FINFO_STRUCT_SIZE);
  CHECK(tsr_struct_size(TSR_STRUCT_TENSOR_DESC) == TSR_TENSOR_DESC_STRUCT_SIZE);
  CHECK(tsr_struct_size(TSR_STRUCT_SCALAR) == 24);
  CHECK(tsr_struct_size(TSR_STRUCT_DEVICE) == 8);
  CHECK(tsr_struct_size(TSR_STRUCT_SEARCHSORTED_OPTIONS) == TSR_SEARCHSORTED_OPTIONS_STRUCT_SIZE);
  CHECK(tsr_struct_size(TSR_STRUCT_FFT_OPTIONS) == TSR_FFT_OPTIONS_STRUCT_SIZE);
  CHECK(tsr_struct_size(TSR_STRUCT_DLPACK_OPTIONS) == TSR_DLPACK_OPTIONS_STRUCT_SIZE);
  CHECK(tsr_struct_size(-1) == 0);
  CHECK(tsr_struct_size(99) == 0);
  // The scalar constructors of tessera/scalar.h.
  CHECK(tsr_scalar_int(-3).kind == TSR_SCALAR_INT);
  CHECK(tsr_scalar_int(-3).f == -3.0);
  CHECK(tsr_scalar_bool(5).i == 1);
  CHECK(tsr_scalar_float(0.5).kind == TSR_SCALAR_FLOAT);
}

TEST_CASE("a refused shutdown is a status; the runtime stays usable; errors can be cleared", "[abi][destroy]") {
  tsr_runtime_options opts = TSR_RUNTIME_OPTIONS_INIT;
  opts.config_path = test_paths::config;
  tsr_runtime* rt = nullptr;
  REQUIRE(tsr_runtime_create(&opts, &rt) == TSR_OK);
  tsr_device dev;
  REQUIRE(tsr_device_parse(rt, "cpu", &dev) == TSR_OK);
  int64_t shape[1] = {4};
  tsr_tensor* t = nullptr;
  REQUIRE(tsr_ones(rt, 1, shape, TSR_FLOAT32, dev, &t) == TSR_OK);

  tsr_clear_last_error();
  CHECK(tsr_last_error_status() == TSR_OK);
  CHECK(last_error().empty());
  CHECK(tsr_runtime_destroy(rt) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(tsr_last_error_status() == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(last_error(), Catch::Contains("1 tensor(s) and 1 storage(s) still alive"));
  CHECK_THAT(last_error(), Catch::Contains("nothing was freed"));

  // Still usable: an op runs, and a later destroy succeeds.
  tsr_tensor* u = nullptr;
  REQUIRE(tsr_binary(TSR_OP_ADD, t, t, &u) == TSR_OK);
  float out[4] = {};
  REQUIRE(tsr_read(u, out, sizeof out) == TSR_OK);
  CHECK(out[3] == 2.0f);
  tsr_tensor_release(u);
  tsr_tensor_release(t);
  tsr_clear_last_error();
  CHECK(tsr_runtime_destroy(rt) == TSR_OK);
  CHECK(tsr_last_error_status() == TSR_OK);  // success leaves the slot as it was: cleared
  CHECK(tsr_runtime_destroy(nullptr) == TSR_OK);
}
