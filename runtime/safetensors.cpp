// SPDX-License-Identifier: Apache-2.0
// The safetensors format. The reader makes the checks of the reference
// reader (huggingface/safetensors, tensor.rs: read_metadata and
// Metadata::validate) and a few it leaves out: keys written twice (serde
// keeps the last, nlohmann too: either silently drops a tensor), nesting
// (so a hostile header cannot build a deep tree), NUL in names (a C string
// cannot carry it) and BOOL bytes other than 0 and 1 (not a Tessera bool).
// Every message starts with the file's label and names the tensor, the key
// or the byte at fault.
#include "safetensors.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>
#include <system_error>

#include "autograd.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "tensor.hpp"

namespace tessera::rt {
namespace {

using Json = nlohmann::ordered_json;

struct FormatDtype {
  const char* name;
  int32_t dtype;
};
constexpr FormatDtype kDtypes[] = {
    {"BOOL", TSR_BOOL},  {"U8", TSR_UINT8},    {"I8", TSR_INT8},     {"I16", TSR_INT16}, {"U16", TSR_UINT16},
    {"F16", TSR_FLOAT16}, {"BF16", TSR_BFLOAT16}, {"I32", TSR_INT32}, {"U32", TSR_UINT32}, {"F32", TSR_FLOAT32},
    {"F64", TSR_FLOAT64}, {"I64", TSR_INT64},  {"U64", TSR_UINT64}};
// The format's dtypes that have no Tessera dtype: named as such, not as unknown.
constexpr const char* kForeignDtypes[] = {"F8_E5M2", "F8_E4M3", "F8_E8M0", "F6_E2M3", "F6_E3M2", "F4", "C64"};
// A header nests three levels (object, entry, shape); unknown keys may nest
// further, but not without bound.
constexpr int kMaxDepth = 64;

const char* format_name(int32_t dtype) {
  for (const FormatDtype& d : kDtypes)
    if (d.dtype == dtype) return d.name;
  return nullptr;
}

// 'name', control bytes escaped, so that a message stays one line.
std::string in_quotes(const std::string& s) {
  std::string out = "'";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else {
      out += ch;
    }
  }
  return out + "'";
}

[[noreturn]] void bad(const std::string& label, const std::string& what, tsr_status status = TSR_ERR_INVALID_ARGUMENT) {
  fail(status, label + ": " + what);
}

std::string system_message(int err) { return std::error_code(err, std::generic_category()).message(); }

std::string offsets_text(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

std::string shape_text(const SafetensorsEntry& e) {
  std::string s = "[";
  for (int32_t d = 0; d < e.ndim; ++d) s += (d ? ", " : "") + std::to_string(e.shape[static_cast<size_t>(d)]);
  return s + "]";
}

// A JSON value as a message shows it: numbers as written, the rest by type.
std::string describe(const Json& v) { return v.is_number() ? v.dump() : std::string("a ") + v.type_name(); }

// ---- reading ----------------------------------------------------------------

// Stops the parser at a key written twice in one object and at nesting past
// kMaxDepth, before the tree is built.
class HeaderCheck {
 public:
  struct Stop {
    std::string what;
  };

  bool operator()(int depth, Json::parse_event_t event, Json& parsed) {
    using E = Json::parse_event_t;
    switch (event) {
      case E::object_start:
      case E::array_start:
        if (depth >= kMaxDepth) throw Stop{"the header nests deeper than " + std::to_string(kMaxDepth) + " levels"};
        frames_.push_back(Frame{event == E::object_start, {}, {}});
        break;
      case E::key: {
        Frame& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second) {
          if (frames_.size() == 1) throw Stop{"the header names " + in_quotes(top.key) + " twice"};
          throw Stop{"the header's entry " + in_quotes(frames_.front().key) + " has the key " + in_quotes(top.key) +
                     " twice"};
        }
        break;
      }
      case E::object_end:
      case E::array_end: frames_.pop_back(); break;
      case E::value: break;
    }
    return true;
  }

 private:
  struct Frame {
    bool object;
    std::string key;  // the key being read
    std::set<std::string> keys;
  };
  std::vector<Frame> frames_;
};

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line
// L, column C: <why>"; the message gives the file byte instead.
std::string parse_reason(const std::string& what) {
  const size_t column = what.find("column ");
  const size_t colon = column == std::string::npos ? std::string::npos : what.find(": ", column);
  if (colon != std::string::npos) return what.substr(colon + 2);
  const size_t bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

Json parse_header(const std::string& label, const unsigned char* text, uint64_t n) {
  if (n == 0) bad(label, "the header is empty (its length, the first 8 bytes, is 0)");
  if (text[0] != '{') {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", text[0]);
    bad(label, std::string("the header does not start with '{' (file byte 8 is ") + hex + ")");
  }
  HeaderCheck check;
  try {
    return Json::parse(text, text + n, std::ref(check));
  } catch (const HeaderCheck::Stop& stop) {
    bad(label, stop.what);
  } catch (const Json::parse_error& e) {
    bad(label, "the header is not valid JSON (file byte " + std::to_string(8 + (e.byte > 0 ? e.byte - 1 : 0)) +
                   "): " + parse_reason(e.what()));
  } catch (const Json::exception& e) {  // out_of_range.406: a number past double's range
    bad(label, std::string("the header is not valid JSON: ") + parse_reason(e.what()));
  }
}

void check_no_nul(const std::string& label, const std::string& s, const char* what) {
  if (s.find('\0') != std::string::npos)
    bad(label, std::string(what) + " " + in_quotes(s) + " holds a NUL character, which a C string cannot carry");
}

// A non-negative JSON integer, or a message naming `what`.
uint64_t non_negative(const std::string& label, const Json& v, const std::string& what) {
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0))
    bad(label, what + " is " + describe(v) + ", not a non-negative integer");
  return v.get<uint64_t>();
}

int32_t entry_dtype(const std::string& label, const std::string& name, const Json& v) {
  if (!v.is_string()) bad(label, "tensor " + in_quotes(name) + " dtype is " + describe(v) + ", not a string");
  const std::string s = v.get<std::string>();
  for (const FormatDtype& d : kDtypes)
    if (s == d.name) return d.dtype;
  for (const char* foreign : kForeignDtypes)
    if (s == foreign)
      bad(label, "tensor " + in_quotes(name) + " has dtype " + s + ", which Tessera has no dtype for", TSR_ERR_TYPE);
  bad(label, "tensor " + in_quotes(name) + " has an unknown dtype " + in_quotes(s), TSR_ERR_TYPE);
}

SafetensorsEntry parse_entry(const std::string& label, const std::string& name, const Json& v) {
  const std::string who = "tensor " + in_quotes(name);
  if (!v.is_object()) bad(label, who + " is " + describe(v) + ", not an object");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    if (!v.contains(key)) bad(label, who + " has no " + key);
  SafetensorsEntry e;
  e.name = name;
  e.dtype = entry_dtype(label, name, v["dtype"]);
  const Json& shape = v["shape"];
  if (!shape.is_array()) bad(label, who + " shape is " + describe(shape) + ", not a list");
  if (shape.size() > TSR_MAX_DIMS)
    bad(label, who + " has " + std::to_string(shape.size()) + " dims; Tessera allows at most " +
                   std::to_string(TSR_MAX_DIMS));
  e.ndim = static_cast<int32_t>(shape.size());
  uint64_t numel = 1;
  bool overflow = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    const uint64_t size = non_negative(label, shape[d], who + " shape[" + std::to_string(d) + "]");
    if (size > static_cast<uint64_t>(INT64_MAX))
      bad(label, who + " shape[" + std::to_string(d) + "] is " + std::to_string(size) + ", past 64-bit sizes");
    e.shape[d] = static_cast<int64_t>(size);
    overflow = overflow || __builtin_mul_overflow(numel, size, &numel);
  }
  const Json& offsets = v["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2)
    bad(label, who + " data_offsets is " + (offsets.is_array() ? "a list of " + std::to_string(offsets.size())
                                                               : describe(offsets)) +
                   ", not a list of two integers");
  e.begin = non_negative(label, offsets[0], who + " data_offsets[0]");
  e.end = non_negative(label, offsets[1], who + " data_offsets[1]");
  uint64_t nbytes = 0;
  if (overflow || __builtin_mul_overflow(numel, tsr_dtype_size(e.dtype), &nbytes) ||
      numel > static_cast<uint64_t>(INT64_MAX))
    bad(label, who + " shape " + shape_text(e) + " overflows 64-bit sizes");
  if (e.end >= e.begin && e.end - e.begin != nbytes)
    bad(label, who + " (" + format_name(e.dtype) + ", shape " + shape_text(e) + ") needs " + std::to_string(nbytes) +
                   " bytes but data_offsets " + offsets_text(e.begin, e.end) + " hold " +
                   std::to_string(e.end - e.begin));
  return e;
}

// In data order, the entries must tile the data buffer exactly.
void check_tiling(const SafetensorsFile& f) {
  const uint64_t size = f.bytes.size() - f.data_start;
  uint64_t at = 0;
  const SafetensorsEntry* previous = nullptr;
  for (const SafetensorsEntry& e : f.tensors) {
    const std::string who = "tensor " + in_quotes(e.name) + " data_offsets " + offsets_text(e.begin, e.end);
    if (e.end < e.begin) bad(f.label, who + " end before they begin");
    if (e.end > size)
      bad(f.label, who + " out of range of the " + std::to_string(size) + "-byte data buffer (file bytes " +
                       std::to_string(f.data_start) + " to " + std::to_string(f.bytes.size()) + ")");
    if (e.begin > at)
      bad(f.label, who + " leave a gap: bytes [" + std::to_string(at) + ", " + std::to_string(e.begin) +
                       ") of the data buffer belong to no tensor");
    if (e.begin < at)
      bad(f.label, who + " overlap tensor " + in_quotes(previous->name) + " " +
                       offsets_text(previous->begin, previous->end));
    at = e.end;
    previous = &e;
  }
  if (at != size)
    bad(f.label, "the tensors' data ends at byte " + std::to_string(at) + " of the " + std::to_string(size) +
                     "-byte data buffer: the last " + std::to_string(size - at) + " bytes belong to no tensor");
}

void check_bools(const SafetensorsFile& f) {
  for (const SafetensorsEntry& e : f.tensors) {
    if (e.dtype != TSR_BOOL) continue;
    const unsigned char* p = f.bytes.data() + f.data_start + e.begin;
    for (uint64_t i = 0; i < e.end - e.begin; ++i)
      if (p[i] > 1)
        bad(f.label, "tensor " + in_quotes(e.name) + " element " + std::to_string(i) + " (file byte " +
                         std::to_string(f.data_start + e.begin + i) + ") is " + std::to_string(p[i]) +
                         ", not a BOOL (0 or 1)");
  }
}

// ---- writing ----------------------------------------------------------------

void write_all(const std::string& label, int fd, const unsigned char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = ::write(fd, p, n);
    if (k < 0) {
      if (errno == EINTR) continue;
      bad(label, "cannot write: " + system_message(errno));
    }
    p += k;
    n -= static_cast<size_t>(k);
  }
}

// A file beside the destination, removed unless renamed over it.
class TempFile {
 public:
  explicit TempFile(const std::string& path) : path_(path) {
    static std::atomic<uint64_t> counter{0};
    for (int attempt = 0; fd_ < 0; ++attempt) {
      name_ = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
      fd_ = ::open(name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ < 0 && (errno != EEXIST || attempt == 100))
        bad(path, "cannot create the temporary file " + name_ + ": " + system_message(errno));
    }
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(name_.c_str());
  }

  int fd() const { return fd_; }

  // Flushed to the disk first, so that a crash leaves the old file or the new one.
  void commit() {
    if (::fsync(fd_) != 0) bad(path_, "cannot flush " + name_ + ": " + system_message(errno));
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) bad(path_, "cannot write " + name_ + ": " + system_message(errno));
    if (::rename(name_.c_str(), path_.c_str()) != 0)
      bad(path_, "cannot rename " + name_ + " over it: " + system_message(errno));
    committed_ = true;
    // The rename itself is durable once the directory is flushed (best effort).
    const size_t slash = path_.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path_.substr(0, slash);
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      (void)::fsync(dfd);
      ::close(dfd);
    }
  }

 private:
  std::string path_, name_;
  int fd_ = -1;
  bool committed_ = false;
};

// A string the header will hold, refused here when not UTF-8 (nlohmann's
// dump would throw without naming it).
void check_utf8(const std::string& label, const std::string& s, const std::string& what) {
  try {
    (void)Json(s).dump();
  } catch (const Json::type_error&) {
    bad(label, what + " is not valid UTF-8");
  }
  check_no_nul(label, s, what.c_str());
}

}  // namespace

void swap_little_endian(unsigned char* p, size_t nbytes, size_t elem) {
  if constexpr (std::endian::native == std::endian::big) {
    for (size_t i = 0; i + elem <= nbytes; i += elem) std::reverse(p + i, p + i + elem);
  } else {
    (void)p, (void)nbytes, (void)elem;
  }
}

SafetensorsFile parse_safetensors(std::string label, std::vector<unsigned char> bytes) {
  SafetensorsFile f;
  f.label = std::move(label);
  f.bytes = std::move(bytes);
  const uint64_t size = f.bytes.size();
  if (size < 8)
    bad(f.label, "the file is " + std::to_string(size) + " bytes, too short for the 8-byte header length");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | f.bytes[static_cast<size_t>(i)];
  if (n > kSafetensorsMaxHeader)
    bad(f.label, "the header length " + std::to_string(n) + " exceeds the format's limit of " +
                     std::to_string(kSafetensorsMaxHeader) + " bytes");
  if (n > size - 8)
    bad(f.label, "the header length " + std::to_string(n) + " runs past the end of the " + std::to_string(size) +
                     "-byte file");
  f.data_start = 8 + n;
  const Json header = parse_header(f.label, f.bytes.data() + 8, n);

  for (const auto& [key, value] : header.items()) {
    if (key == "__metadata__") {
      if (!value.is_object()) bad(f.label, "__metadata__ is " + describe(value) + ", not an object of strings");
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string())
          bad(f.label, "__metadata__ " + in_quotes(k) + " is " + describe(v) + ", not a string");
        check_no_nul(f.label, k, "the __metadata__ key");
        check_no_nul(f.label, v.get<std::string>(), "the __metadata__ value");
        f.metadata.emplace_back(k, v.get<std::string>());
      }
      continue;
    }
    check_no_nul(f.label, key, "the tensor name");
    f.tensors.push_back(parse_entry(f.label, key, value));
  }
  // Data order; ties (empty tensors) keep the header's order.
  std::stable_sort(f.tensors.begin(), f.tensors.end(), [](const SafetensorsEntry& a, const SafetensorsEntry& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  check_tiling(f);
  check_bools(f);
  for (size_t i = 0; i < f.tensors.size(); ++i) f.index.emplace(f.tensors[i].name, i);
  return f;
}

SafetensorsFile read_safetensors(const std::string& path) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) bad(path, "cannot open: " + system_message(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) bad(path, "cannot stat: " + system_message(errno));
  if (!S_ISREG(st.st_mode)) bad(path, "not a regular file");
  std::vector<unsigned char> bytes(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t k = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (k < 0) {
      if (errno == EINTR) continue;
      bad(path, "cannot read: " + system_message(errno));
    }
    if (k == 0) bad(path, "the file shrank from " + std::to_string(bytes.size()) + " to " + std::to_string(got) +
                              " bytes while being read");
    got += static_cast<size_t>(k);
  }
  return parse_safetensors(path, std::move(bytes));
}

void save_safetensors(const std::string& path, const std::vector<SafetensorsItem>& items,
                      const std::vector<std::pair<std::string, std::string>>& metadata) {
  // Everything that can be refused is refused before a file is created.
  std::set<std::string> seen;
  std::vector<size_t> order(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const SafetensorsItem& it = items[i];
    const std::string who = "tensor " + in_quotes(it.name);
    check_utf8(path, it.name, "the name of tensor " + std::to_string(i));
    if (it.name == "__metadata__") bad(path, "a tensor cannot be called '__metadata__' (the format's metadata key)");
    if (!seen.insert(it.name).second) bad(path, "two tensors are called " + in_quotes(it.name));
    if (format_name(it.tensor->dtype) == nullptr)
      bad(path, who + " is " + tsr_dtype_name(it.tensor->dtype) + ", which safetensors has no dtype for",
          TSR_ERR_TYPE);
    order[i] = i;
  }
  Json meta = Json::object();
  for (const auto& [k, v] : metadata) {
    check_utf8(path, k, "the __metadata__ key " + in_quotes(k));
    check_utf8(path, v, "the __metadata__ value of " + in_quotes(k));
    if (meta.contains(k)) bad(path, "the __metadata__ key " + in_quotes(k) + " is given twice");
    meta[k] = v;
  }
  // Widest elements first: every tensor's data then starts at a multiple of
  // its element size (the header is padded to 8), as the reference writes.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return tsr_dtype_size(items[a].tensor->dtype) > tsr_dtype_size(items[b].tensor->dtype);
  });
  Json header = Json::object();
  if (!metadata.empty()) header["__metadata__"] = std::move(meta);
  uint64_t at = 0;
  for (const size_t i : order) {
    const tsr_tensor& t = *items[i].tensor;
    const uint64_t nbytes = static_cast<uint64_t>(t.layout.numel()) * tsr_dtype_size(t.dtype);
    Json shape = Json::array();
    for (int32_t d = 0; d < t.layout.ndim; ++d) shape.push_back(t.layout.shape[static_cast<size_t>(d)]);
    header[items[i].name] = {{"dtype", format_name(t.dtype)}, {"shape", std::move(shape)},
                             {"data_offsets", {at, at + nbytes}}};
    at += nbytes;
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  unsigned char length[8];
  for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(static_cast<uint64_t>(text.size()) >> (8 * i));

  TempFile file(path);
  write_all(path, file.fd(), length, 8);
  write_all(path, file.fd(), reinterpret_cast<const unsigned char*>(text.data()), text.size());
  // Reading values back is not an op to record.
  autograd::GradModeGuard no_grad(false);
  for (const size_t i : order) {
    const tsr_tensor& t = *items[i].tensor;
    const size_t elem = tsr_dtype_size(t.dtype);
    std::vector<unsigned char> data(static_cast<size_t>(t.layout.numel()) * elem);
    if (data.empty()) continue;
    try {
      read_to_host(t, data.data(), data.size());
    } catch (const Error& e) {
      bad(path, "tensor " + in_quotes(items[i].name) + ": " + e.what(), e.status());
    }
    swap_little_endian(data.data(), data.size(), elem);
    write_all(path, file.fd(), data.data(), data.size());
  }
  file.commit();
}

}  // namespace tessera::rt
