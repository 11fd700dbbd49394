// SPDX-License-Identifier: Apache-2.0
// tessera/safetensors.h through the C API: a round trip with the header's
// order, info and metadata; the same bytes from memory; every refusal as a
// status with a message naming the file, *out left NULL; a failed save
// leaving the destination as it was; nothing left alive afterwards (the
// runtime's own destroy refuses while a tensor lives).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "runtime_fixture.hpp"

using namespace tessera;
using tessera::test::cpu;
using tessera::test::last_error;
using tessera::test::runtime;

namespace {

namespace fs = std::filesystem;

// A fresh directory, removed with its files at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tessera-safetensors-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() { fs::remove_all(path); }
  std::string file(const char* name) const { return (path / name).string(); }
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A file's bytes from a header text and data.
std::string file_bytes(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<size_t>(i)] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

template <class T>
std::vector<T> values(const Tensor& t) {
  std::vector<T> out(static_cast<size_t>(t.numel()));
  REQUIRE(tsr_copy_to_host(t.get(), out.data(), out.size() * sizeof(T), nullptr) == TSR_OK);
  return out;
}

tsr_safetensors* open_memory(const std::string& bytes, const char* label) {
  tsr_safetensors* st = reinterpret_cast<tsr_safetensors*>(&label);  // must be overwritten
  const tsr_status status = tsr_safetensors_open_memory(runtime().get(), bytes.data(), bytes.size(), label, &st);
  if (status != TSR_OK) CHECK(st == nullptr);
  return status == TSR_OK ? st : nullptr;
}

}  // namespace

TEST_CASE("safetensors: save, then open, info, get and metadata", "[safetensors]") {
  TempDir dir;
  const std::string path = dir.file("model.safetensors");
  const Runtime& rt = runtime();
  Tensor w = Tensor::arange(rt, 6, cpu()).to(TSR_FLOAT32).view({2, 3}).T();  // a transposed view
  Tensor n = Tensor::from_host<int64_t>(rt, {INT64_MIN, -1, INT64_MAX}, {3}, TSR_INT64, cpu());
  Tensor flag = Tensor::full(rt, {}, true, TSR_BOOL, cpu());
  Tensor none = Tensor::zeros(rt, {0, 4}, TSR_UINT8, cpu());
  const char* names[] = {"flag", "w", "none", "n"};
  tsr_tensor* tensors[] = {flag.get(), w.get(), none.get(), n.get()};
  const char* keys[] = {"format", "note"};
  const char* vals[] = {"pt", "two entries"};
  REQUIRE(tsr_safetensors_save(path.c_str(), 4, names, tensors, 2, keys, vals) == TSR_OK);

  tsr_safetensors* st = nullptr;
  REQUIRE(tsr_safetensors_open(rt.get(), path.c_str(), &st) == TSR_OK);
  REQUIRE(tsr_safetensors_count(st) == 4);
  // Data order: widest elements first, the caller's order within a size.
  CHECK(std::string(tsr_safetensors_name_at(st, 0)) == "n");
  CHECK(std::string(tsr_safetensors_name_at(st, 1)) == "w");
  CHECK(std::string(tsr_safetensors_name_at(st, 2)) == "flag");
  CHECK(std::string(tsr_safetensors_name_at(st, 3)) == "none");
  CHECK(tsr_safetensors_name_at(st, 4) == nullptr);
  CHECK(tsr_safetensors_name_at(st, -1) == nullptr);
  CHECK(tsr_safetensors_find(st, "w") == 1);
  CHECK(tsr_safetensors_find(st, "nope") == -1);

  int32_t dtype = -1, ndim = -1;
  int64_t shape[TSR_MAX_DIMS] = {};
  REQUIRE(tsr_safetensors_info(st, 1, &dtype, &ndim, shape) == TSR_OK);
  CHECK((dtype == TSR_FLOAT32 && ndim == 2 && shape[0] == 3 && shape[1] == 2));
  REQUIRE(tsr_safetensors_info(st, 2, &dtype, &ndim, nullptr) == TSR_OK);
  CHECK((dtype == TSR_BOOL && ndim == 0));
  CHECK(tsr_safetensors_info(st, 9, nullptr, nullptr, nullptr) == TSR_ERR_INDEX);
  CHECK(last_error() == path + ": index 9 is out of range for its 4 tensors");

  tsr_tensor* raw = nullptr;
  REQUIRE(tsr_safetensors_get(st, "w", cpu(), &raw) == TSR_OK);
  Tensor w2(raw);
  CHECK(w2.shape() == Shape{3, 2});
  CHECK(values<float>(w2) == std::vector<float>{0, 3, 1, 4, 2, 5});
  REQUIRE(tsr_safetensors_get(st, "n", cpu(), &raw) == TSR_OK);
  CHECK(values<int64_t>(Tensor(raw)) == std::vector<int64_t>{INT64_MIN, -1, INT64_MAX});
  REQUIRE(tsr_safetensors_get(st, "flag", cpu(), &raw) == TSR_OK);
  CHECK(values<uint8_t>(Tensor(raw)) == std::vector<uint8_t>{1});
  REQUIRE(tsr_safetensors_get(st, "none", cpu(), &raw) == TSR_OK);
  CHECK(Tensor(raw).shape() == Shape{0, 4});

  CHECK(tsr_safetensors_metadata_count(st) == 2);
  CHECK(std::string(tsr_safetensors_metadata_key_at(st, 1)) == "note");
  CHECK(tsr_safetensors_metadata_key_at(st, 2) == nullptr);
  CHECK(std::string(tsr_safetensors_metadata_get(st, "format")) == "pt");
  CHECK(tsr_safetensors_metadata_get(st, "absent") == nullptr);

  raw = reinterpret_cast<tsr_tensor*>(st);
  CHECK(tsr_safetensors_get(st, "nope", cpu(), &raw) == TSR_ERR_INDEX);
  CHECK(raw == nullptr);
  CHECK(last_error() == path + ": no tensor named 'nope'");
  tsr_safetensors_free(st);
  tsr_safetensors_free(nullptr);
  CHECK(tsr_safetensors_count(nullptr) == 0);
  CHECK(tsr_safetensors_find(nullptr, "w") == -1);
  CHECK(tsr_safetensors_metadata_get(nullptr, "format") == nullptr);
  CHECK(w2.numel() == 6);  // a tensor outlives its collection

  // The same bytes from memory give the same tensors.
  tsr_safetensors* mem = open_memory(read_bytes(path), "weights");
  REQUIRE(mem != nullptr);
  CHECK(tsr_safetensors_count(mem) == 4);
  tsr_safetensors_free(mem);
}

TEST_CASE("safetensors: corrupt bytes are refused naming the label, with *out NULL", "[safetensors]") {
  const std::string f32 = R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,12]}})";
  CHECK(open_memory(file_bytes(f32, std::string(8, '\0')), "m.safetensors") == nullptr);
  CHECK(tsr_last_error_status() == TSR_ERR_INVALID_ARGUMENT);
  CHECK(last_error() == "m.safetensors: tensor 'w' data_offsets [0, 12] out of range of the 8-byte data buffer "
                        "(file bytes 63 to 71)");
  CHECK(open_memory("short", nullptr) == nullptr);
  CHECK(last_error() == "<memory>: the file is 5 bytes, too short for the 8-byte header length");
  CHECK(open_memory(file_bytes(R"({"w":{"dtype":"F8_E5M2","shape":[1],"data_offsets":[0,1]}})", "x"), "f8") ==
        nullptr);
  CHECK(tsr_last_error_status() == TSR_ERR_TYPE);
  CHECK(last_error() == "f8: tensor 'w' has dtype F8_E5M2, which Tessera has no dtype for");
  CHECK(open_memory(file_bytes("{\"w\": 1", ""), "j") == nullptr);
  CHECK(last_error().rfind("j: the header is not valid JSON (file byte ", 0) == 0);
  tsr_safetensors* st = nullptr;
  CHECK(tsr_safetensors_open(runtime().get(), "/nonexistent/dir/x.safetensors", &st) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(st == nullptr);
  CHECK(last_error() == "/nonexistent/dir/x.safetensors: cannot open: No such file or directory");
}

TEST_CASE("safetensors: bad arguments are statuses", "[safetensors]") {
  Tensor t = Tensor::ones(runtime(), {2}, TSR_FLOAT32, cpu());
  tsr_tensor* one[] = {t.get()};
  tsr_tensor* null_tensor[] = {nullptr};
  const char* name[] = {"t"};
  const char* null_name[] = {nullptr};
  CHECK(tsr_safetensors_save(nullptr, 1, name, one, 0, nullptr, nullptr) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(last_error() == "tsr_safetensors_save: path is NULL");
  CHECK(tsr_safetensors_save("x", -1, name, one, 0, nullptr, nullptr) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(tsr_safetensors_save("x", 1, nullptr, one, 0, nullptr, nullptr) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(tsr_safetensors_save("x", 1, null_name, one, 0, nullptr, nullptr) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(last_error() == "tsr_safetensors_save: names[0] is NULL");
  CHECK(tsr_safetensors_save("x", 1, name, null_tensor, 0, nullptr, nullptr) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(last_error() == "tsr_safetensors_save: tensors[0] is NULL");
  CHECK(tsr_safetensors_save("x", 1, name, one, 1, nullptr, nullptr) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(last_error() == "tsr_safetensors_save: metadata_keys is NULL");
  CHECK(tsr_safetensors_open(runtime().get(), "x", nullptr) == TSR_ERR_INVALID_ARGUMENT);
  tsr_safetensors* st = nullptr;
  CHECK(tsr_safetensors_open(nullptr, "x", &st) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(tsr_safetensors_open(runtime().get(), nullptr, &st) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(tsr_safetensors_open_memory(runtime().get(), nullptr, 4, "x", &st) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(tsr_safetensors_info(nullptr, 0, nullptr, nullptr, nullptr) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(st == nullptr);
  // Nothing was written: the file "x" was never created.
  CHECK(!fs::exists("x"));
}

TEST_CASE("safetensors: a refused save leaves the destination as it was", "[safetensors]") {
  TempDir dir;
  const std::string path = dir.file("keep.safetensors");
  std::ofstream(path, std::ios::binary) << "previous contents";
  Tensor ok = Tensor::ones(runtime(), {2}, TSR_FLOAT32, cpu());
  Tensor z = Tensor::ones(runtime(), {2}, TSR_COMPLEX64, cpu());
  const char* names[] = {"ok", "z"};
  tsr_tensor* tensors[] = {ok.get(), z.get()};
  CHECK(tsr_safetensors_save(path.c_str(), 2, names, tensors, 0, nullptr, nullptr) == TSR_ERR_TYPE);
  CHECK(last_error() == path + ": tensor 'z' is complex64, which safetensors has no dtype for");
  const char* twice[] = {"ok", "ok"};
  tsr_tensor* both[] = {ok.get(), ok.get()};
  CHECK(tsr_safetensors_save(path.c_str(), 2, twice, both, 0, nullptr, nullptr) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(last_error() == path + ": two tensors are called 'ok'");
  const char* keys[] = {"k", "k"};
  const char* vals[] = {"a", "b"};
  CHECK(tsr_safetensors_save(path.c_str(), 1, names, tensors, 2, keys, vals) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(last_error() == path + ": the __metadata__ key 'k' is given twice");
  const char* bad_utf8[] = {"\xff"};
  CHECK(tsr_safetensors_save(path.c_str(), 1, bad_utf8, tensors, 0, nullptr, nullptr) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(last_error() == path + ": the name of tensor 0 is not valid UTF-8");
  // A directory in the way of the rename: the temporary file is removed too.
  const std::string sub = dir.file("sub");
  fs::create_directory(sub);
  std::ofstream(sub + "/inside", std::ios::binary) << "x";
  CHECK(tsr_safetensors_save(sub.c_str(), 1, names, tensors, 0, nullptr, nullptr) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(last_error().find("cannot rename") != std::string::npos);
  CHECK(read_bytes(path) == "previous contents");
  CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator{}) == 2);
}

TEST_CASE("safetensors: nothing stays alive after save, open, get and free", "[safetensors]") {
  TempDir dir;
  const std::string path = dir.file("a.safetensors");
  tsr_runtime_options opts = TSR_RUNTIME_OPTIONS_INIT;
  opts.config_path = test_paths::config;
  tsr_runtime* rt = nullptr;
  REQUIRE(tsr_runtime_create(&opts, &rt) == TSR_OK);
  tsr_device dev{};
  REQUIRE(tsr_device_parse(rt, "cpu", &dev) == TSR_OK);
  const int64_t shape[] = {4, 5};
  tsr_tensor* t = nullptr;
  REQUIRE(tsr_randn(rt, 2, shape, TSR_FLOAT64, dev, &t) == TSR_OK);
  const char* name[] = {"t"};
  REQUIRE(tsr_safetensors_save(path.c_str(), 1, name, &t, 0, nullptr, nullptr) == TSR_OK);
  tsr_safetensors* st = nullptr;
  REQUIRE(tsr_safetensors_open(rt, path.c_str(), &st) == TSR_OK);
  tsr_tensor* back = nullptr;
  REQUIRE(tsr_safetensors_get(st, "t", dev, &back) == TSR_OK);
  double a[20], b[20];
  REQUIRE(tsr_copy_to_host(t, a, sizeof a, nullptr) == TSR_OK);
  REQUIRE(tsr_copy_to_host(back, b, sizeof b, nullptr) == TSR_OK);
  CHECK(std::memcmp(a, b, sizeof a) == 0);
  CHECK(tsr_runtime_destroy(rt) == TSR_ERR_INVALID_ARGUMENT);  // two tensors alive: refused
  tsr_tensor_release(back);
  tsr_tensor_release(t);
  tsr_safetensors_free(st);
  CHECK(tsr_runtime_destroy(rt) == TSR_OK);
}
