// SPDX-License-Identifier: Apache-2.0
// The safetensors format (tessera/safetensors.h): a whole file parsed and
// checked from its bytes, and named tensors written to a path atomically.
// Errors are Error exceptions whose message starts with the file's label.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tessera/tensor_desc.h"

struct tsr_tensor;

namespace tessera::rt {

// The reference reader's limit on the JSON header (safetensors' MAX_HEADER_SIZE).
inline constexpr uint64_t kSafetensorsMaxHeader = 100'000'000;

struct SafetensorsEntry {
  std::string name;
  int32_t dtype = 0;  // a tsr_dtype
  int32_t ndim = 0;
  std::array<int64_t, TSR_MAX_DIMS> shape{};
  uint64_t begin = 0, end = 0;  // data_offsets, relative to the data buffer
};

// A checked file: every entry's bytes lie in `bytes`, in data order.
struct SafetensorsFile {
  std::string label;                 // the path, for messages
  std::vector<unsigned char> bytes;  // the whole file
  uint64_t data_start = 0;           // 8 + the header's length
  std::vector<SafetensorsEntry> tensors;
  std::unordered_map<std::string, size_t> index;  // name -> position in tensors
  std::vector<std::pair<std::string, std::string>> metadata;  // in the file's order
};

// Reverses each `elem`-byte element on a big-endian host, so that bytes
// move between the file's little-endian order and the host's; a no-op on
// little-endian hosts.
void swap_little_endian(unsigned char* p, size_t nbytes, size_t elem);

// Checks the whole file (Note in tessera/safetensors.h) and indexes it;
// throws Error naming `label` and the fault.
SafetensorsFile parse_safetensors(std::string label, std::vector<unsigned char> bytes);
// Reads the regular file at `path` and parses it.
SafetensorsFile read_safetensors(const std::string& path);

struct SafetensorsItem {
  std::string name;
  const tsr_tensor* tensor;
};
// Writes a file through a temporary one renamed over `path`; on failure the
// temporary file is removed and `path` is untouched.
void save_safetensors(const std::string& path, const std::vector<SafetensorsItem>& items,
                      const std::vector<std::pair<std::string, std::string>>& metadata);

}  // namespace tessera::rt
