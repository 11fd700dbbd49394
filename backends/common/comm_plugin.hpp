// SPDX-License-Identifier: Apache-2.0
// What the communicator plugins (mpi.so, nccl.so) share: the checks of one
// operation's arguments before any exchange (tessera/comm.h's table of
// collectives), and the tsr_plugin_api of a plugin that is only a
// communicator.
#pragma once

#include <memory>
#include <string>

#include "options_reader.hpp"
#include "plugin_error.hpp"
#include "tessera/comm.h"
#include "tessera/plugin.h"

namespace tessera::backend {

inline int64_t numel_of_desc(const tsr_tensor_desc* d) {
  if (d == nullptr) return 0;
  int64_t n = 1;
  for (int32_t i = 0; i < d->ndim; ++i) n *= d->shape[i];
  return n;
}

inline void check_comm_desc(const tsr_tensor_desc* d, const char* which, const std::string& at) {
  if (d == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, at + ": the " + which + " descriptor is NULL");
  if (d->struct_size < TSR_STRUCT_SIZE(tsr_tensor_desc, strides))
    fail(TSR_ERR_INVALID_ARGUMENT, at + ": the " + which + " descriptor is too small");
  if (d->dtype < 0 || d->dtype >= TSR_DTYPE_COUNT) fail(TSR_ERR_TYPE, at + ": unknown dtype " + std::to_string(d->dtype));
}

// One operation's element counts and dtype, after its checks.
struct CommOperands {
  int64_t n_in = 0, n_out = 0;  // elements of input and output (0 where NULL)
  int32_t dtype = TSR_INT8;     // the input's, else the output's (BARRIER: int8)
};

// Checks a's descriptors as tessera/comm.h's table asks for `collective` on
// rank `rank` of `size` (which are required, which may be NULL, the counts
// of ALL_GATHER, REDUCE_SCATTER and ALL_TO_ALL), before any exchange; `at`
// begins every message ("mpi: all_reduce on rank 0 of 2").
inline CommOperands check_comm_operands(const tsr_comm_args& a, int rank, int size, const std::string& at) {
  const tsr_tensor_desc* in = a.input;
  const tsr_tensor_desc* out = a.output;
  const bool root = rank == a.root;
  switch (a.collective) {
    case TSR_COLL_ALL_REDUCE: case TSR_COLL_BROADCAST: case TSR_COLL_ALL_GATHER:
    case TSR_COLL_REDUCE_SCATTER: case TSR_COLL_ALL_TO_ALL:
      check_comm_desc(out, "output", at);
      if (a.collective != TSR_COLL_BROADCAST || root) check_comm_desc(in, "input", at);
      break;
    case TSR_COLL_REDUCE:
      check_comm_desc(in, "input", at);
      if (root) check_comm_desc(out, "output", at);
      break;
    case TSR_COLL_SEND: check_comm_desc(in, "input", at); break;
    case TSR_COLL_RECV: check_comm_desc(out, "output", at); break;
    case TSR_COLL_BARRIER: break;
    default: fail(TSR_ERR_UNSUPPORTED, at + ": unknown collective " + std::to_string(a.collective));
  }
  CommOperands o;
  o.n_in = numel_of_desc(in);
  o.n_out = numel_of_desc(out);
  o.dtype = in ? in->dtype : out ? out->dtype : TSR_INT8;
  const std::string n = std::to_string(size);
  switch (a.collective) {
    case TSR_COLL_ALL_GATHER:
      if (o.n_out != o.n_in * size)
        fail(TSR_ERR_SHAPE, at + ": the output has " + std::to_string(o.n_out) + " elements, not " + n + " x " +
                                std::to_string(o.n_in));
      break;
    case TSR_COLL_REDUCE_SCATTER:
      if (o.n_in != o.n_out * size)
        fail(TSR_ERR_SHAPE, at + ": the input has " + std::to_string(o.n_in) + " elements, not " + n + " x " +
                                std::to_string(o.n_out));
      break;
    case TSR_COLL_ALL_TO_ALL:
      if (o.n_in != o.n_out || o.n_in % size != 0)
        fail(TSR_ERR_SHAPE, at + ": input and output need equal element counts divisible by " + n);
      break;
    default: break;
  }
  return o;
}

// The tsr_plugin_api of a plugin that is only a communicator (plugin.h: no
// device type, no device table, no kernels), offering `comm`.
inline void init_comm_only_api(tsr_plugin_api& a, const char* plugin_name, const char* plugin_version, void* ctx,
                               void (*destroy)(void*), const tsr_comm_iface* comm) {
  a.struct_size = TSR_PLUGIN_API_STRUCT_SIZE;
  a.abi_version = TSR_ABI_VERSION;
  a.device_type = TSR_DEVICE_UNDEFINED;
  a.device_type_name = "";
  a.plugin_name = plugin_name;
  a.plugin_version = plugin_version;
  a.ctx = ctx;
  a.device = nullptr;
  a.kernels = nullptr;
  a.destroy = destroy;
  a.comm = comm;
}

// The context of a communicator-only plugin (the `ctx` of its slots).
struct CommContext {
  tsr_plugin_api api{};
  tsr_comm_iface comm{};
  const tsr_host_api* host = nullptr;  // the runtime's, for error messages
  std::string name;                    // the instance name, for messages
};
inline CommContext& comm_context_of(void* ctx) { return *static_cast<CommContext*>(ctx); }

// Makes the context: its name for messages is the plugin's, with the
// config's instance name when there is one; it takes no options (an
// unknown one is an error, so that a typo is not silently ignored); `slots`
// holds the communicator's functions.
inline std::unique_ptr<CommContext> make_comm_context(const tsr_plugin_init_args& args, const char* plugin,
                                                      const char* version, const tsr_comm_iface& slots) {
  auto c = std::make_unique<CommContext>();
  c->host = args.host;
  c->name = (args.struct_size >= TSR_STRUCT_SIZE(tsr_plugin_init_args, instance_name) && args.instance_name)
                ? std::string(plugin) + " \"" + args.instance_name + "\""
                : std::string(plugin);
  for_each_option(plugin, args.options_json, [&](const std::string& key, const std::string&) {
    fail(TSR_ERR_CONFIG, std::string(plugin) + ": unknown option \"" + key + "\" (" + plugin +
                             ".so takes none; the timeout is the config's \"comm_timeout_s\")");
  });
  c->comm = slots;
  c->comm.struct_size = TSR_COMM_IFACE_STRUCT_SIZE;
  c->comm.name = plugin;
  init_comm_only_api(c->api, plugin, version, c.get(), [](void* ctx) { delete static_cast<CommContext*>(ctx); },
                     &c->comm);
  return c;
}

// The checks at the top of every plugin's `start` slot.
inline void check_start_args(const CommContext& c, tsr_comm_handle comm, const tsr_comm_args* args,
                             const tsr_comm_request* out) {
  if (comm == nullptr || args == nullptr || out == nullptr)
    fail(TSR_ERR_INVALID_ARGUMENT, c.name + ": start needs a comm, args and out");
  if (args->struct_size < TSR_STRUCT_SIZE(tsr_comm_args, timeout_s))
    fail(TSR_ERR_INVALID_ARGUMENT, c.name + ": tsr_comm_args too small");
}

}  // namespace tessera::backend
