// SPDX-License-Identifier: Apache-2.0
// The C API of tessera/safetensors.h over safetensors.cpp: argument checks,
// the opaque collection, and tensors made from its bytes on any device.
#include <algorithm>
#include <bit>
#include <memory>
#include <string>
#include <vector>

#include "api_support.hpp"
#include "ops.hpp"
#include "runtime.hpp"
#include "safetensors.hpp"
#include "tessera/safetensors.h"

using namespace tessera::rt;

struct tsr_safetensors {
  tsr_runtime* rt;
  SafetensorsFile file;
};

namespace {

// count (>= 0) C strings, none NULL.
std::vector<std::string> strings(int64_t count, const char* const* list, const char* what) {
  if (count < 0) fail(TSR_ERR_INVALID_ARGUMENT, std::string("tsr_safetensors_save: ") + what + " count is negative");
  std::vector<std::string> out;
  if (count == 0) return out;
  if (list == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, std::string("tsr_safetensors_save: ") + what + " is NULL");
  out.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    if (list[i] == nullptr)
      fail(TSR_ERR_INVALID_ARGUMENT,
           std::string("tsr_safetensors_save: ") + what + "[" + std::to_string(i) + "] is NULL");
    out.emplace_back(list[i]);
  }
  return out;
}

const SafetensorsEntry* entry_at(const tsr_safetensors* st, int64_t i) {
  if (st == nullptr || i < 0 || static_cast<uint64_t>(i) >= st->file.tensors.size()) return nullptr;
  return &st->file.tensors[static_cast<size_t>(i)];
}

// *out gets the collection `read()` parses, or NULL when it fails.
template <class Read>
void open_into(tsr_runtime* rt, tsr_safetensors** out, Read&& read) {
  require_out(out);
  *out = nullptr;
  require(rt, "runtime");
  *out = std::make_unique<tsr_safetensors>(tsr_safetensors{rt, read()}).release();
}

}  // namespace

extern "C" {

tsr_status tsr_safetensors_save(const char* path, int64_t count, const char* const* names,
                                tsr_tensor* const* tensors, int64_t metadata_count, const char* const* metadata_keys,
                                const char* const* metadata_values) {
  return guard([&] {
    if (path == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "tsr_safetensors_save: path is NULL");
    const std::vector<std::string> name_list = strings(count, names, "names");
    if (count > 0 && tensors == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "tsr_safetensors_save: tensors is NULL");
    std::vector<SafetensorsItem> items;
    items.reserve(name_list.size());
    for (size_t i = 0; i < name_list.size(); ++i) {
      if (tensors[i] == nullptr)
        fail(TSR_ERR_INVALID_ARGUMENT, "tsr_safetensors_save: tensors[" + std::to_string(i) + "] is NULL");
      items.push_back(SafetensorsItem{name_list[i], tensors[i]});
    }
    const std::vector<std::string> keys = strings(metadata_count, metadata_keys, "metadata_keys");
    const std::vector<std::string> values = strings(metadata_count, metadata_values, "metadata_values");
    std::vector<std::pair<std::string, std::string>> metadata;
    for (size_t i = 0; i < keys.size(); ++i) metadata.emplace_back(keys[i], values[i]);
    save_safetensors(path, items, metadata);
  });
}

tsr_status tsr_safetensors_open(tsr_runtime* rt, const char* path, tsr_safetensors** out) {
  return guard([&] {
    if (path == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "tsr_safetensors_open: path is NULL");
    open_into(rt, out, [&] { return read_safetensors(path); });
  });
}

tsr_status tsr_safetensors_open_memory(tsr_runtime* rt, const void* data, size_t nbytes, const char* label,
                                       tsr_safetensors** out) {
  return guard([&] {
    if (data == nullptr && nbytes > 0) fail(TSR_ERR_INVALID_ARGUMENT, "tsr_safetensors_open_memory: data is NULL");
    const auto* begin = static_cast<const unsigned char*>(data);
    open_into(rt, out, [&] {
      return parse_safetensors(label == nullptr ? "<memory>" : label,
                               std::vector<unsigned char>(begin, begin + nbytes));
    });
  });
}

void tsr_safetensors_free(tsr_safetensors* st) { delete st; }

int64_t tsr_safetensors_count(const tsr_safetensors* st) {
  return st == nullptr ? 0 : static_cast<int64_t>(st->file.tensors.size());
}

const char* tsr_safetensors_name_at(const tsr_safetensors* st, int64_t i) {
  const SafetensorsEntry* e = entry_at(st, i);
  return e == nullptr ? nullptr : e->name.c_str();
}

int64_t tsr_safetensors_find(const tsr_safetensors* st, const char* name) {
  if (st == nullptr || name == nullptr) return -1;
  const auto it = st->file.index.find(name);
  return it == st->file.index.end() ? -1 : static_cast<int64_t>(it->second);
}

tsr_status tsr_safetensors_info(const tsr_safetensors* st, int64_t i, int32_t* dtype, int32_t* ndim,
                                int64_t* shape) {
  return guard([&] {
    const tsr_safetensors& s = require(st, "safetensors");
    const SafetensorsEntry* e = entry_at(st, i);
    if (e == nullptr)
      fail(TSR_ERR_INDEX, s.file.label + ": index " + std::to_string(i) + " is out of range for its " +
                              std::to_string(s.file.tensors.size()) + " tensors");
    if (dtype != nullptr) *dtype = e->dtype;
    if (ndim != nullptr) *ndim = e->ndim;
    if (shape != nullptr) std::copy(e->shape.begin(), e->shape.begin() + e->ndim, shape);
  });
}

tsr_status tsr_safetensors_get(tsr_safetensors* st, const char* name, tsr_device device, tsr_tensor** out) {
  return guard([&] {
    require_out(out);
    *out = nullptr;
    const tsr_safetensors& s = require(st, "safetensors");
    if (name == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "tsr_safetensors_get: name is NULL");
    const int64_t i = tsr_safetensors_find(st, name);
    if (i < 0) fail(TSR_ERR_INDEX, s.file.label + ": no tensor named '" + std::string(name) + "'");
    const SafetensorsEntry& e = s.file.tensors[static_cast<size_t>(i)];
    const unsigned char* bytes = s.file.bytes.data() + s.file.data_start + e.begin;
    std::vector<unsigned char> swapped;  // only on a big-endian host
    if constexpr (std::endian::native == std::endian::big) {
      swapped.assign(bytes, bytes + (e.end - e.begin));
      swap_little_endian(swapped.data(), swapped.size(), tsr_dtype_size(e.dtype));
      bytes = swapped.data();
    }
    hand_out(from_host(*s.rt, bytes, e.ndim, e.shape.data(), e.dtype, device), out);
  });
}

int64_t tsr_safetensors_metadata_count(const tsr_safetensors* st) {
  return st == nullptr ? 0 : static_cast<int64_t>(st->file.metadata.size());
}

const char* tsr_safetensors_metadata_key_at(const tsr_safetensors* st, int64_t i) {
  if (st == nullptr || i < 0 || static_cast<uint64_t>(i) >= st->file.metadata.size()) return nullptr;
  return st->file.metadata[static_cast<size_t>(i)].first.c_str();
}

const char* tsr_safetensors_metadata_get(const tsr_safetensors* st, const char* key) {
  if (st == nullptr || key == nullptr) return nullptr;
  for (const auto& [k, v] : st->file.metadata)
    if (k == key) return v.c_str();
  return nullptr;
}

}  // extern "C"
