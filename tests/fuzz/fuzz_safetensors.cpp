// SPDX-License-Identifier: Apache-2.0
// Fuzz target: arbitrary bytes as a safetensors file.
//
// The reader must either accept the bytes as a file that keeps the
// format's promises or refuse them with TSR_ERR_INVALID_ARGUMENT or
// TSR_ERR_TYPE and one message that starts with the file's label; anything
// else — another status, another exception, a crash, a sanitizer report, a
// leak — is a finding. An accepted file then goes through the public API:
// every tensor made on the cpu must hold exactly its bytes of the file, and
// the file saved again (under /dev/shm where there is one, so the fsync
// costs nothing) must read back as the same tensors and metadata. No
// tensor may outlive its handle.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "error.hpp"
#include "fuzz_support.hpp"
#include "runtime.hpp"
#include "safetensors.hpp"
#include "tessera/tessera.h"

const char* const fuzz::kTarget = "fuzz_safetensors";

namespace {

using fuzz::runtime;

using tessera::rt::SafetensorsEntry;
using tessera::rt::SafetensorsFile;

const char* const kLabel = "<fuzz>";
const tsr_device kCpu{TSR_DEVICE_CPU, 0};

const std::string& scratch_path() {
  static const std::string path = [] {
    const char* dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    return std::string(dir) + "/fuzz_safetensors." + std::to_string(::getpid()) + ".safetensors";
  }();
  return path;
}

// What parse_safetensors promises of a file it accepts.
void check_file(const SafetensorsFile& f, size_t size) {
  EXPECT(f.label == kLabel && f.bytes.size() == size, "label or bytes not kept");
  EXPECT(f.data_start >= 8 && f.data_start <= size, "data start outside the file");
  uint64_t at = 0;
  for (size_t i = 0; i < f.tensors.size(); ++i) {
    const SafetensorsEntry& e = f.tensors[i];
    EXPECT(e.begin == at && e.end >= e.begin, "offsets do not tile the data buffer: " + e.name);
    EXPECT(e.ndim >= 0 && e.ndim <= TSR_MAX_DIMS, "ndim out of range");
    uint64_t numel = 1;
    for (int32_t d = 0; d < e.ndim; ++d) {
      EXPECT(e.shape[static_cast<size_t>(d)] >= 0, "negative dim");
      numel *= static_cast<uint64_t>(e.shape[static_cast<size_t>(d)]);  // bounded by end - begin below
    }
    EXPECT(e.end - e.begin == numel * tsr_dtype_size(e.dtype), "size mismatch accepted: " + e.name);
    EXPECT(f.index.at(e.name) == i, "index does not name its entry");
    EXPECT(e.name.find('\0') == std::string::npos, "NUL in a name accepted");
    at = e.end;
  }
  EXPECT(at == size - f.data_start, "bytes after the last tensor accepted");
  EXPECT(f.index.size() == f.tensors.size(), "duplicate names accepted");
}

// The collection's tensors against the file's bytes; each name's
// (dtype, shape, bytes) appended to `seen`.
std::vector<std::string> through_api(tsr_safetensors* st) {
  std::vector<std::string> seen;
  for (int64_t i = 0; i < tsr_safetensors_count(st); ++i) {
    const char* name = tsr_safetensors_name_at(st, i);
    EXPECT(name != nullptr && tsr_safetensors_find(st, name) == i, "name_at and find disagree");
    tsr_tensor* t = nullptr;
    EXPECT(tsr_safetensors_get(st, name, kCpu, &t) == TSR_OK, std::string("get failed: ") + tsr_last_error_message());
    // The storage itself (a fresh cpu tensor): tsr_copy_to_host's copy kernel
    // may rewrite NaN payloads, and the file's bits must arrive unchanged.
    const size_t nbytes = static_cast<size_t>(tsr_tensor_numel(t)) * tsr_tensor_element_size(t);
    EXPECT(tsr_tensor_is_contiguous(t) && tsr_tensor_storage_offset(t) == 0, "get made a view");
    const char* storage = static_cast<const char*>(tsr_tensor_storage_data(t));
    const std::string bytes = nbytes == 0 ? std::string() : std::string(storage, nbytes);
    std::string record = std::string(name) + '\0' + std::to_string(tsr_tensor_dtype(t));
    for (int32_t d = 0; d < tsr_tensor_ndim(t); ++d) record += "," + std::to_string(tsr_tensor_shape(t)[d]);
    seen.push_back(record + '\0' + bytes);
    tsr_tensor_release(t);
  }
  std::sort(seen.begin(), seen.end());
  for (int64_t i = 0; i < tsr_safetensors_metadata_count(st); ++i) {
    const char* key = tsr_safetensors_metadata_key_at(st, i);
    seen.push_back(std::string("meta:") + key + '\0' + tsr_safetensors_metadata_get(st, key));
  }
  return seen;
}

// Saved again and reread: the same tensors (in the writer's order) and metadata.
void round_trip(tsr_runtime* rt, tsr_safetensors* st, const std::vector<std::string>& before) {
  std::vector<tsr_tensor*> tensors;
  std::vector<const char*> names, keys, values;
  for (int64_t i = 0; i < tsr_safetensors_count(st); ++i) {
    names.push_back(tsr_safetensors_name_at(st, i));
    tensors.push_back(nullptr);
    EXPECT(tsr_safetensors_get(st, names.back(), kCpu, &tensors.back()) == TSR_OK, "get failed");
  }
  for (int64_t i = 0; i < tsr_safetensors_metadata_count(st); ++i) {
    keys.push_back(tsr_safetensors_metadata_key_at(st, i));
    values.push_back(tsr_safetensors_metadata_get(st, keys.back()));
  }
  const std::string& path = scratch_path();
  const tsr_status saved = tsr_safetensors_save(path.c_str(), static_cast<int64_t>(names.size()), names.data(),
                                                tensors.data(), static_cast<int64_t>(keys.size()), keys.data(),
                                                values.data());
  for (tsr_tensor* t : tensors) tsr_tensor_release(t);
  EXPECT(saved == TSR_OK, std::string("an accepted file could not be saved again: ") + tsr_last_error_message());
  tsr_safetensors* again = nullptr;
  EXPECT(tsr_safetensors_open(rt, path.c_str(), &again) == TSR_OK,
         std::string("a saved file was refused: ") + tsr_last_error_message());
  EXPECT(through_api(again) == before, "the saved file reads back differently");
  tsr_safetensors_free(again);
  ::unlink(path.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tsr_runtime* rt = runtime();
  SafetensorsFile file;
  try {
    file = tessera::rt::parse_safetensors(kLabel, std::vector<unsigned char>(data, data + size));
  } catch (const tessera::rt::Error& e) {
    EXPECT(e.status() == TSR_ERR_INVALID_ARGUMENT || e.status() == TSR_ERR_TYPE,
           std::string("status ") + tsr_status_name(e.status()) + ": " + e.what());
    EXPECT(std::strncmp(e.what(), "<fuzz>: ", 8) == 0, std::string("message without its label: ") + e.what());
    EXPECT(std::strchr(e.what(), '\n') == nullptr, std::string("a message of several lines: ") + e.what());
    return 0;
  }
  // Any other exception escapes and aborts: also a finding.
  check_file(file, size);

  tsr_safetensors* st = nullptr;
  EXPECT(tsr_safetensors_open_memory(rt, data, size, kLabel, &st) == TSR_OK, "the API refused a parsed file");
  const std::vector<std::string> seen = through_api(st);
  for (const std::string& s : seen) {
    if (s.rfind("meta:", 0) == 0) continue;
    const size_t name_end = s.find('\0');
    const SafetensorsEntry& e = file.tensors[file.index.at(s.substr(0, name_end))];
    const std::string expected(reinterpret_cast<const char*>(data) + file.data_start + e.begin, e.end - e.begin);
    EXPECT(s.compare(s.size() - expected.size(), expected.size(), expected) == 0, "a tensor's bytes differ: " + e.name);
  }
  if (size <= 65536) round_trip(rt, st, seen);
  tsr_safetensors_free(st);
  EXPECT(rt->live_tensors.load() == 0 && rt->live_storages.load() == 0, "tensors or storages outlive their handles");
  return 0;
}
