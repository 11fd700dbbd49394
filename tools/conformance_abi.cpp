// SPDX-License-Identifier: Apache-2.0
// `tessera conformance`: the ABI and memory-interface checks.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "conformance_checks.hpp"

namespace tessera::tool {

namespace {

std::string version_text(uint32_t v) {
  return std::to_string(TSR_VERSION_MAJOR(v)) + "." + std::to_string(TSR_VERSION_MINOR(v));
}

// The smallest struct_size a 1.0 plugin may give: up to its last required field.
constexpr size_t kMinApiSize = TSR_STRUCT_SIZE(tsr_plugin_api, destroy);
constexpr size_t kMinIfaceSize = TSR_STRUCT_SIZE(tsr_device_iface, synchronize);
constexpr size_t kMinTableSize = TSR_STRUCT_SIZE(tsr_kernel_table, entries);

// One device allocation, freed at scope exit.
class Block {
 public:
  Block(const PluginHandle& p, int32_t device) : p_(p), device_(device) {}
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;
  ~Block() {
    if (ptr_ != nullptr) p_.device().deallocate(p_.ctx(), device_, ptr_, size_);
  }
  tsr_status allocate(size_t n) {
    size_ = n;
    return p_.device().allocate(p_.ctx(), device_, n, &ptr_);
  }
  char* ptr() const { return static_cast<char*>(ptr_); }

 private:
  const PluginHandle& p_;
  int32_t device_;
  void* ptr_ = nullptr;
  size_t size_ = 0;
};

std::vector<unsigned char> pattern(size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (auto& b : v) {
    x = x * 1664525u + 1013904223u;
    b = static_cast<unsigned char>(x >> 24);
  }
  return v;
}

std::string why(tsr_status st) { return "status " + std::to_string(st) + ": " + plugin_error(); }

}  // namespace

bool check_abi(PluginHandle& plugin, Report& r, std::string& unusable) {
  const std::string g = "abi";
  // A check without which no runtime would load the plugin: the first one
  // that fails is the reason it is unusable.
  const auto need = [&](bool ok, const std::string& name, const std::string& detail) {
    r.expect(ok, g, name, detail);
    if (!ok && unusable.empty()) unusable = name + ": " + detail;
    return ok;
  };
  // A runtime of another major version must be refused, with a message.
  const uint32_t other_major = TSR_MAKE_VERSION(TSR_ABI_VERSION_MAJOR + 1, 0);
  const tsr_plugin_api* api = nullptr;
  tsr_status st = plugin.init(other_major, &api);
  if (plugin.threw()) return need(false, "init", plugin_error());
  if (st == TSR_OK && api == nullptr) return need(false, "init", "returned TSR_OK and no api");
  if (st == TSR_OK) {
    r.fail(g, "refuses ABI " + version_text(other_major), "init succeeded for another major version");
  } else {
    r.expect(st == TSR_ERR_VERSION, g, "refuses ABI " + version_text(other_major),
             "returned status " + std::to_string(st) + " instead of TSR_ERR_VERSION");
    r.expect(!plugin_error().empty(), g, "says why it refuses another major", "no message set through set_error");
    st = plugin.init(TSR_ABI_VERSION, &api);
    if (plugin.threw()) return need(false, "init", plugin_error());
    if (st != TSR_OK || api == nullptr)
      return need(false, "init with ABI " + version_text(TSR_ABI_VERSION),
                  api == nullptr && st == TSR_OK ? "returned TSR_OK and no api" : why(st));
  }
  r.pass(g, "init with ABI " + version_text(TSR_ABI_VERSION));
  const tsr_plugin_api& a = plugin.api();
  bool usable = need(a.struct_size >= TSR_STRUCT_SIZE(tsr_plugin_api, abi_version), "api.struct_size",
                     std::to_string(a.struct_size) + " does not even cover abi_version");
  if (!usable) return false;
  usable &= need(TSR_VERSION_MAJOR(a.abi_version) == TSR_ABI_VERSION_MAJOR, "api.abi_version major",
                 "the plugin says ABI " + version_text(a.abi_version) + ", this tool has " +
                     version_text(TSR_ABI_VERSION));
  if (!usable) return false;  // nothing past abi_version of another major is read
  r.expect(TSR_VERSION_MINOR(a.abi_version) <= TSR_ABI_VERSION_MINOR || a.struct_size >= TSR_PLUGIN_API_STRUCT_SIZE,
           g, "api.struct_size covers its minor version", "a newer minor version with a shorter api struct");
  usable &= need(a.struct_size >= kMinApiSize, "api.struct_size",
                 std::to_string(a.struct_size) + " < " + std::to_string(kMinApiSize));
  usable &= need(a.device != nullptr && a.kernels != nullptr && a.destroy != nullptr, "api tables present",
                 "device, kernels or destroy is NULL");
  r.expect(a.device_type_name != nullptr && a.device_type_name[0] != '\0', g, "device type name",
           "device_type_name is empty");
  r.expect(a.plugin_name != nullptr && a.plugin_name[0] != '\0', g, "plugin name", "plugin_name is empty");
  if (!usable) return false;

  const tsr_device_iface& d = plugin.device();
  usable &= need(d.struct_size >= kMinIfaceSize, "device.struct_size",
                 std::to_string(d.struct_size) + " < " + std::to_string(kMinIfaceSize));
  usable &= need(d.device_count && d.get_properties && d.allocate && d.deallocate && d.copy_host_to_device &&
                     d.copy_device_to_host && d.copy_device_to_device && d.synchronize,
                 "required device slots", "a required slot of tsr_device_iface is NULL");
  r.expect((d.stream_create == nullptr) == (d.stream_destroy == nullptr) &&
               (d.stream_create == nullptr) == (d.stream_synchronize == nullptr),
           g, "stream slots all or none", "some but not all of the stream slots are set");

  const tsr_kernel_table& k = plugin.kernels();
  usable &= need(k.struct_size >= kMinTableSize, "kernels.struct_size",
                 std::to_string(k.struct_size) + " < " + std::to_string(kMinTableSize));
  usable &= need(k.count == 0 || k.entries != nullptr, "kernel entries", "count > 0 and entries NULL");
  if (!usable) return false;
  std::set<std::pair<int32_t, int32_t>> seen;
  int null_slots = 0, duplicates = 0, unknown = 0;
  for (size_t i = 0; i < k.count; ++i) {
    const tsr_kernel_entry& e = k.entries[i];
    if (e.fn == nullptr) ++null_slots;
    if (!seen.insert({e.op, e.dtype}).second) ++duplicates;
    if (e.op < 0 || e.op >= TSR_OP_COUNT || e.dtype < 0 || e.dtype >= TSR_DTYPE_COUNT) ++unknown;
  }
  usable &= need(null_slots == 0, "no NULL kernel", std::to_string(null_slots) + " entries claim a NULL function");
  r.expect(duplicates == 0, g, "no duplicate (op, dtype)", std::to_string(duplicates) + " duplicate entries");
  if (unknown > 0)
    r.skip(g, "unknown ops", std::to_string(unknown) + " entries name ops or dtypes newer than this tool");

  // Properties through an older caller's shorter struct: nothing written past it.
  int32_t count = d.device_count(plugin.ctx());
  r.expect(count >= 0, g, "device_count >= 0", "device_count returned " + std::to_string(count));
  if (count > 0) {
    struct {
      tsr_device_properties props;
      unsigned char tail[64];
    } probe;
    std::memset(&probe, 0xA5, sizeof probe);
    probe.props.struct_size = offsetof(tsr_device_properties, total_memory);  // name only
    clear_plugin_error();
    tsr_status ps = d.get_properties(plugin.ctx(), 0, &probe.props);
    const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&probe.props);
    bool untouched = true;
    for (size_t i = offsetof(tsr_device_properties, total_memory); i < sizeof probe; ++i)
      untouched &= bytes[i] == 0xA5;
    r.expect(ps == TSR_OK && untouched, g, "get_properties honours a short struct_size",
             ps != TSR_OK ? why(ps) : "wrote past the caller's struct_size");
  }
  return usable;
}

void check_memory(const PluginHandle& p, int32_t device, Report& r) {
  const std::string g = "memory";
  const tsr_device_iface& d = p.device();
  void* ctx = p.ctx();
  tsr_device_properties props{};
  props.struct_size = sizeof props;
  uint64_t total = 0;
  if (d.get_properties(ctx, device, &props) == TSR_OK) total = props.total_memory;

  // Round trips through one block per size: host -> device -> device -> host.
  std::vector<size_t> sizes = {1, 3, 63, 64, 65, 4097, (size_t{1} << 20) + 7};
  size_t large = size_t{64} << 20;
  if (total == 0 || total >= 4 * large) sizes.push_back(large);
  else r.skip(g, "64 MiB block", "the device has " + std::to_string(total) + " bytes");
  for (size_t n : sizes) {
    const std::string name = std::to_string(n) + " bytes";
    Block a(p, device), b(p, device);
    tsr_status st = a.allocate(n);
    if (st == TSR_OK) st = b.allocate(n);
    if (!r.expect(st == TSR_OK, g, "allocate " + name, why(st))) continue;
    r.expect(reinterpret_cast<uintptr_t>(a.ptr()) % 64 == 0 && reinterpret_cast<uintptr_t>(b.ptr()) % 64 == 0, g,
             "64-byte alignment of " + name, "an address not aligned to 64 bytes");
    std::vector<unsigned char> src = pattern(n, static_cast<unsigned>(n)), back(n, 0);
    st = d.copy_host_to_device(ctx, device, a.ptr(), src.data(), n, nullptr);
    if (st == TSR_OK) st = d.copy_device_to_device(ctx, device, b.ptr(), device, a.ptr(), n, nullptr);
    if (st == TSR_OK) st = d.synchronize(ctx, device);
    if (st == TSR_OK) st = d.copy_device_to_host(ctx, device, back.data(), b.ptr(), n, nullptr);
    if (!r.expect(st == TSR_OK, g, "copies of " + name, why(st))) continue;
    r.expect(back == src, g, "round trip of " + name, "the bytes read back differ from those written");
    if (n >= 16) {  // a copy at odd offsets inside the block leaves its neighbours alone
      std::vector<unsigned char> patch = pattern(5, 99);
      st = d.copy_host_to_device(ctx, device, a.ptr() + 3, patch.data(), 5, nullptr);
      if (st == TSR_OK) st = d.copy_device_to_host(ctx, device, back.data(), a.ptr(), n, nullptr);
      std::vector<unsigned char> want = src;
      for (size_t i = 0; i < patch.size(); ++i) want[3 + i] = patch[i];
      r.expect(st == TSR_OK && back == want, g, "copy at an odd offset in " + name,
               st != TSR_OK ? why(st) : "bytes outside the 5 copied changed, or the 5 did not arrive");
    }
  }

  // Zero-byte copies are no-ops that succeed.
  {
    Block a(p, device);
    tsr_status st = a.allocate(64);
    unsigned char host[1] = {0};
    if (st == TSR_OK) st = d.copy_host_to_device(ctx, device, a.ptr(), host, 0, nullptr);
    if (st == TSR_OK) st = d.copy_device_to_host(ctx, device, host, a.ptr(), 0, nullptr);
    if (st == TSR_OK) st = d.copy_device_to_device(ctx, device, a.ptr(), device, a.ptr(), 0, nullptr);
    r.expect(st == TSR_OK, g, "zero-byte copies", why(st));
  }

  // Many small blocks live at once, each keeping its own bytes; freed out of order.
  {
    constexpr int kBlocks = 2000;
    std::vector<std::unique_ptr<Block>> blocks;
    tsr_status st = TSR_OK;
    for (int i = 0; i < kBlocks && st == TSR_OK; ++i) {
      blocks.push_back(std::make_unique<Block>(p, device));
      size_t n = 17 + static_cast<size_t>(i % 83);
      st = blocks.back()->allocate(n);
      if (st == TSR_OK) {
        std::vector<unsigned char> v = pattern(n, static_cast<unsigned>(i));
        st = d.copy_host_to_device(ctx, device, blocks.back()->ptr(), v.data(), n, nullptr);
      }
    }
    bool intact = st == TSR_OK;
    for (int i = 0; i < kBlocks && intact; i += 7) {
      size_t n = 17 + static_cast<size_t>(i % 83);
      std::vector<unsigned char> v(n);
      intact = d.copy_device_to_host(ctx, device, v.data(), blocks[static_cast<size_t>(i)]->ptr(), n, nullptr) == TSR_OK &&
               v == pattern(n, static_cast<unsigned>(i));
    }
    r.expect(intact, g, std::to_string(kBlocks) + " small blocks", st != TSR_OK ? why(st) : "a block lost its bytes");
    for (size_t i = 0; i < blocks.size(); i += 2) blocks[i].reset();  // free every other one first
    blocks.clear();
  }

  // Optional slots.
  if (d.empty_cache != nullptr) {
    tsr_status st = d.empty_cache(ctx, device);
    r.expect(st == TSR_OK, g, "empty_cache", why(st));
  } else {
    r.skip(g, "empty_cache", "optional slot not implemented");
  }
  if (d.stream_create != nullptr) {
    tsr_stream s = nullptr;
    tsr_status st = d.stream_create(ctx, device, &s);
    if (st == TSR_OK) st = d.stream_synchronize(ctx, device, s);
    if (st == TSR_OK) st = d.stream_destroy(ctx, device, s);
    r.expect(st == TSR_OK, g, "stream create, synchronize, destroy", why(st));
  } else {
    r.skip(g, "streams", "optional slots not implemented");
  }
  if (d.memory_stats != nullptr) {  // since 1.1: in use grows by at least what is allocated
    uint64_t used0 = 0, reserved0 = 0, used1 = 0, reserved1 = 0, used2 = 0, reserved2 = 0;
    tsr_status st = d.memory_stats(ctx, device, &used0, &reserved0);
    {
      Block a(p, device);
      if (st == TSR_OK) st = a.allocate(size_t{1} << 20);
      if (st == TSR_OK) st = d.memory_stats(ctx, device, &used1, &reserved1);
    }
    if (st == TSR_OK) st = d.memory_stats(ctx, device, &used2, &reserved2);
    r.expect(st == TSR_OK && used1 >= used0 + (uint64_t{1} << 20) && reserved1 >= used1 && reserved0 >= used0 &&
                 used2 == used0,
             g, "memory_stats follows an allocation",
             st != TSR_OK ? why(st)
                          : "in use " + std::to_string(used0) + " -> " + std::to_string(used1) + " -> " +
                                std::to_string(used2) + " around a 1 MiB block, reserved " + std::to_string(reserved1));
  } else {
    r.skip(g, "memory_stats", "optional slot (ABI 1.1) not implemented");
  }
  if (total > 0) {
    tsr_device_properties after{};
    after.struct_size = sizeof after;
    tsr_status st = d.get_properties(ctx, device, &after);
    r.expect(st == TSR_OK && after.free_memory <= after.total_memory, g, "free memory <= total memory",
             st != TSR_OK ? why(st) : "free_memory exceeds total_memory");
  }
}

}  // namespace tessera::tool
