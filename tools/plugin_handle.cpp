// SPDX-License-Identifier: Apache-2.0
#include "plugin_handle.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>

namespace tessera::tool {

namespace {

thread_local std::string last_plugin_error;

void host_set_error(tsr_status, const char* message) { last_plugin_error = message != nullptr ? message : ""; }

void host_log(int32_t level, const char* message) {
  if (level >= TSR_LOG_WARNING) std::fprintf(stderr, "plugin: %s\n", message != nullptr ? message : "");
}

// Copies min(declared, ours) bytes of a plugin struct into a zeroed one.
template <typename T>
void copy_struct(T& to, const T* from) {
  to = T{};
  if (from == nullptr) return;
  size_t n = std::min(from->struct_size, sizeof(T));
  std::memcpy(&to, from, n);
}

}  // namespace

const std::string& plugin_error() { return last_plugin_error; }
void clear_plugin_error() { last_plugin_error.clear(); }

const tsr_host_api* tool_host_api() {
  static const tsr_host_api host = {TSR_HOST_API_STRUCT_SIZE, TSR_ABI_VERSION, 0, &host_set_error, &host_log};
  return &host;
}

std::unique_ptr<PluginHandle> PluginHandle::open(const std::string& path, std::string& why) {
  std::unique_ptr<PluginHandle> h(new PluginHandle());
  h->path_ = path;
  h->library_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h->library_ == nullptr) {
    const char* e = dlerror();
    why = e != nullptr ? e : "dlopen failed";
    return nullptr;
  }
  void* sym = dlsym(h->library_, TSR_PLUGIN_ENTRY_SYMBOL);
  if (sym == nullptr) {
    why = std::string("no exported symbol ") + TSR_PLUGIN_ENTRY_SYMBOL;
    return nullptr;
  }
  h->entry_ = reinterpret_cast<tsr_plugin_init_fn>(sym);
  return h;
}

tsr_status PluginHandle::init(uint32_t abi_version, const tsr_plugin_api** out) {
  *out = nullptr;
  if (raw_ != nullptr) return TSR_ERR_INVALID_ARGUMENT;
  tsr_plugin_init_args args{};
  args.struct_size = TSR_PLUGIN_INIT_ARGS_STRUCT_SIZE;
  args.abi_version = abi_version;
  args.host = tool_host_api();
  args.options_json = "{}";
  args.instance_name = "under_test";
  clear_plugin_error();
  tsr_status st = TSR_OK;
  // An entry point that throws breaks the ABI; a C++ plugin built with our
  // compiler lets the exception reach here, where it is reported rather than
  // ending the tool (std::terminate). The library then stays mapped, as the
  // runtime's loader keeps it: a half-run init may have left code running.
  try {
    st = entry_(&args, out);
  } catch (const std::exception& e) {
    last_plugin_error = std::string("tsr_plugin_init threw a C++ exception: ") + e.what();
    threw_ = true;
  } catch (...) {
    last_plugin_error = "tsr_plugin_init threw a C++ exception not derived from std::exception";
    threw_ = true;
  }
  if (threw_) {
    *out = nullptr;
    return TSR_ERR_INTERNAL;
  }
  if (st != TSR_OK || *out == nullptr) return st;
  raw_ = *out;
  copy_struct(api_, raw_);
  copy_struct(device_, api_.device);
  copy_struct(kernels_, api_.kernels);
  return TSR_OK;
}

PluginHandle::~PluginHandle() {
  if (raw_ != nullptr && api_.destroy != nullptr) api_.destroy(api_.ctx);
  if (library_ != nullptr && !threw_) dlclose(library_);
}

}  // namespace tessera::tool
