// SPDX-License-Identifier: Apache-2.0
#include "comm.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

#include "abi_history.hpp"
#include "error.hpp"
#include "ops.hpp"
#include "plugin_call.hpp"
#include "shape.hpp"

namespace tessera::rt {

const char* collective_name(int32_t collective) { return tsr_collective_name(collective); }

namespace {

bool reduces(int32_t collective) {
  return collective == TSR_COLL_ALL_REDUCE || collective == TSR_COLL_REDUCE || collective == TSR_COLL_REDUCE_SCATTER;
}

// "all_reduce on rank 1 of 4": how every message of a call begins.
std::string who(const tsr_comm& c, int32_t collective) {
  return std::string(collective_name(collective)) + " on rank " + std::to_string(c.rank) + " of " +
         std::to_string(c.size);
}

// Holds a plugin request until it is handed to a work, so that a failure
// in between frees it.
struct RequestGuard {
  const tsr_comm& comm;
  tsr_comm_request request = nullptr;
  ~RequestGuard() {
    if (request != nullptr) {
      PluginCall call(comm.plugin);
      comm.iface->request_free(comm.ctx, request);
    }
  }
};

// Starts one plugin operation and waits for it (the checking mode's
// exchange, split's own steps).
void run_blocking(const tsr_comm& c, const tsr_comm_args& args) {
  RequestGuard g{c};
  PluginCall call(c.plugin);
  tsr_status st = c.iface->start(c.ctx, c.handle, &args, &g.request);
  if (st == TSR_OK) st = c.iface->wait(c.ctx, g.request);
  if (st != TSR_OK) fail(st, plugin_message());
}

// The descriptor of a contiguous buffer, with `data` at its first element.
void buffer_desc(const tsr_tensor& t, tsr_tensor_desc& d) {
  fill_desc(t, d);
  if (d.data != nullptr) d.data = static_cast<char*>(d.data) + d.offset * static_cast<int64_t>(tsr_dtype_size(t.dtype));
  d.offset = 0;
}

// A host buffer's descriptor (the checking mode's signatures).
tsr_tensor_desc host_desc(void* data, int64_t numel, int32_t dtype) {
  tsr_tensor_desc d{};
  d.struct_size = TSR_TENSOR_DESC_STRUCT_SIZE;
  d.data = data;
  d.ndim = 1;
  d.dtype = dtype;
  d.device = tsr_device{TSR_DEVICE_CPU, 0};
  d.shape[0] = numel;
  d.strides[0] = 1;
  return d;
}

// Whether the communicator reads t's memory where it lies.
bool readable(const tsr_comm& c, const tsr_tensor& t) {
  const DeviceType& type = *t.storage->device_type;
  if (type.host_accessible(t.device.index)) return true;
  return c.iface->can_access_device != nullptr &&
         c.iface->can_access_device(c.ctx, type.type, type.name.c_str()) != 0;
}

// Note [Device memory handed to a communicator]
//   A communicator that reads device memory where it lies (NCCL) queues
//   its work on a stream of its own, which knows nothing of the device
//   plugin's streams: the kernels that produced an input, or still read an
//   output, may not have run yet. So before such an operation starts, the
//   device plugin synchronises the tensor's device (as staging does before
//   its copy). The other direction needs nothing: the operation has
//   completed, as the host has seen, before wait or test returns it, and
//   what the device plugin queues afterwards reads the result.
void settle_device(const tsr_tensor& t) {
  const DeviceType& type = *t.storage->device_type;
  if (type.host_accessible(t.device.index)) return;
  tsr_status st;
  {
    PluginCall call(type.plugin);
    st = type.iface->synchronize(type.ctx, t.device.index);
  }
  if (st != TSR_OK) fail(st, "synchronising " + t.rt->registry.device_name(t.device) + " before a collective: " + plugin_message());
}

tsr_device host_device(const tsr_runtime& rt) {
  const DeviceType* cpu = rt.registry.device_type(TSR_DEVICE_CPU);
  if (cpu == nullptr || cpu->device_count == 0)
    fail(TSR_ERR_UNSUPPORTED, "staging a tensor through the host needs the cpu device, and no plugin drives it");
  return tsr_device{TSR_DEVICE_CPU, 0};
}

// A contiguous buffer holding t's values, readable by the communicator.
TensorRef input_buffer(const tsr_comm& c, tsr_tensor& t) {
  TensorRef ref = TensorRef::share(&t);
  if (readable(c, t)) return is_contiguous(t.layout) ? ref : contiguous(ref);
  TensorRef host = make_tensor(*t.rt, contiguous_layout(t.layout.ndim, t.layout.shape.data()), t.dtype,
                               host_device(*t.rt));
  copy_into(*host, t);  // through the device plugin's copy slots
  return host;
}

// A contiguous buffer the communicator may write t's result into: t
// itself, or a scratch buffer copied into t after completion.
TensorRef output_buffer(const tsr_comm& c, tsr_tensor& t, tsr_work& work) {
  TensorRef ref = TensorRef::share(&t);
  const bool direct = readable(c, t);
  if (direct && is_contiguous(t.layout)) return ref;
  TensorRef scratch = make_tensor(*t.rt, contiguous_layout(t.layout.ndim, t.layout.shape.data()), t.dtype,
                                  direct ? t.device : host_device(*t.rt));
  work.copy_back.emplace_back(ref, scratch);
  return scratch;
}

// ---- Note [The checking mode] ----------------------------------------------
// With TESSERA_DISTRIBUTED_DEBUG=1 (as PyTorch's TORCH_DISTRIBUTED_DEBUG=
// DETAIL), every collective first all-gathers a fixed-size signature of
// what each rank called, under the same timeout, and every rank compares
// them all. A difference fails the call on EVERY rank with one message
// naming the ranks and what differs, so a mismatch is an error rather than
// a hang or garbage. Point-to-point calls are not checked (their peers
// differ by design).

constexpr int kSigFields = 5 + 2 * (1 + TSR_MAX_DIMS);
using Signature = std::array<int64_t, kSigFields>;

Signature signature_of(const CollectiveCall& call) {
  Signature s{};
  s[0] = 0x5453524331LL;  // "TSRC1": a version of this layout
  s[1] = call.collective;
  s[2] = reduces(call.collective) ? call.op : -1;
  s[3] = (call.collective == TSR_COLL_BROADCAST || call.collective == TSR_COLL_REDUCE) ? call.root : -1;
  const tsr_tensor* any = call.input ? call.input : call.output;
  s[4] = any ? any->dtype : -1;
  const tsr_tensor* tensors[2] = {call.input, call.output};
  for (int k = 0; k < 2; ++k) {
    int64_t* at = &s[static_cast<size_t>(5 + k * (1 + TSR_MAX_DIMS))];
    at[0] = tensors[k] ? tensors[k]->layout.ndim : -1;
    for (int32_t d = 0; tensors[k] && d < tensors[k]->layout.ndim; ++d) at[1 + d] = tensors[k]->layout.shape[d];
  }
  return s;
}

std::string describe_field(const Signature& s, int field) {
  switch (field) {
    case 0: return "signature version " + std::to_string(s[0]);
    case 1: return tsr_collective_name(static_cast<int32_t>(s[1]));
    case 2: return tsr_reduce_op_name(static_cast<int32_t>(s[2]));
    case 3: return std::to_string(s[3]);
    case 4: return s[4] < 0 ? "none" : tsr_dtype_name(static_cast<int32_t>(s[4]));
    default: {
      const int64_t* at = &s[static_cast<size_t>(field)];
      if (at[0] < 0) return "none";
      return format_tuple(at + 1, static_cast<int32_t>(at[0]));
    }
  }
}

void check_signatures(const tsr_comm& c, const CollectiveCall& call, double timeout_s) {
  const Signature mine = signature_of(call);
  std::vector<int64_t> all(static_cast<size_t>(c.size) * kSigFields);
  tsr_tensor_desc in = host_desc(const_cast<int64_t*>(mine.data()), kSigFields, TSR_INT64);
  tsr_tensor_desc out = host_desc(all.data(), static_cast<int64_t>(all.size()), TSR_INT64);
  tsr_comm_args args{};
  args.struct_size = TSR_COMM_ARGS_STRUCT_SIZE;
  args.collective = TSR_COLL_ALL_GATHER;
  args.input = &in;
  args.output = &out;
  args.timeout_s = timeout_s;
  try {
    run_blocking(c, args);
  } catch (const Error& e) {
    fail(e.status(), "TESSERA_DISTRIBUTED_DEBUG: exchanging what each rank called before " +
                         who(c, call.collective) + " failed: " + e.what());
  }
  // Which field differs first, in the order a reader cares about.
  static const struct {
    int field;
    const char* what;
    tsr_status status;
  } fields[] = {{0, "the signature version (one Tessera on every rank)", TSR_ERR_INVALID_ARGUMENT},
                {1, "the collective", TSR_ERR_INVALID_ARGUMENT},
                {2, "the reduce op", TSR_ERR_INVALID_ARGUMENT},
                {3, "the root", TSR_ERR_INVALID_ARGUMENT},
                {4, "the dtype", TSR_ERR_TYPE},
                {5, "the input shape", TSR_ERR_SHAPE},
                {5 + 1 + TSR_MAX_DIMS, "the output shape", TSR_ERR_SHAPE}};
  for (const auto& f : fields) {
    std::map<std::string, std::string> ranks_by_value;  // value -> "0, 2"
    std::vector<std::string> order;                     // values by first rank
    for (int r = 0; r < c.size; ++r) {
      Signature s;
      std::memcpy(s.data(), &all[static_cast<size_t>(r) * kSigFields], sizeof s);
      const std::string v = describe_field(s, f.field);
      std::string& ranks = ranks_by_value[v];
      if (ranks.empty()) order.push_back(v);
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    }
    if (order.size() <= 1) continue;
    std::string list;
    for (const std::string& v : order) {
      const std::string& ranks = ranks_by_value[v];
      list += (list.empty() ? "" : "; ") + std::string(ranks.find(',') == std::string::npos ? "rank " : "ranks ") +
              ranks + ": " + v;
    }
    fail(f.status, "TESSERA_DISTRIBUTED_DEBUG: " + who(c, call.collective) + ": the ranks disagree on " + f.what +
                       " (" + list + ")");
  }
}

bool debug_from_environment() {
  const char* v = std::getenv("TESSERA_DISTRIBUTED_DEBUG");
  return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0 && std::strcmp(v, "OFF") != 0 &&
         std::strcmp(v, "off") != 0;
}

// ---- argument checks ----------------------------------------------------------

void check_call(const tsr_comm& c, const CollectiveCall& call) {
  const std::string at = who(c, call.collective);
  // Note [What an older plugin is handed]: a collective has no fallback.
  const uint32_t minor = c.plugin->abi_minor();
  for (const tsr_tensor* t : {call.input, call.output})
    if (t != nullptr)
      if (const NewerThing newer = newer_dtype(minor, t->dtype))
        fail(TSR_ERR_UNSUPPORTED, at + ": communicator " + built_before(c.plugin->config().name, minor, newer));
  if (reduces(call.collective)) {
    if (call.op < 0 || call.op >= TSR_REDUCE_OP_COUNT)
      fail(TSR_ERR_INVALID_ARGUMENT, at + ": invalid reduce op " + std::to_string(call.op));
    const int32_t dtype = call.input->dtype;
    if (call.op == TSR_REDUCE_AVG && !tsr_dtype_is_floating(dtype))
      fail(TSR_ERR_TYPE, at + ": ReduceOp.AVG needs a floating dtype, got " + tsr_dtype_name(dtype));
  }
  const bool rooted = call.collective == TSR_COLL_BROADCAST || call.collective == TSR_COLL_REDUCE;
  const bool p2p = call.collective == TSR_COLL_SEND || call.collective == TSR_COLL_RECV;
  if ((rooted || p2p) && (call.root < 0 || call.root >= c.size))
    fail(TSR_ERR_INVALID_ARGUMENT, at + ": " + (rooted ? "root " : "peer rank ") + std::to_string(call.root) +
                                       " is outside 0.." + std::to_string(c.size - 1));
  if (p2p && call.root == c.rank)
    fail(TSR_ERR_INVALID_ARGUMENT, at + ": the peer rank is this rank");
  if (p2p && call.tag < 0) fail(TSR_ERR_INVALID_ARGUMENT, at + ": tag " + std::to_string(call.tag) + " is negative");
  if (call.input && call.output && call.input != call.output) {
    if (call.input->dtype != call.output->dtype)
      fail(TSR_ERR_TYPE, at + ": the output's dtype " + tsr_dtype_name(call.output->dtype) +
                             " differs from the input's " + tsr_dtype_name(call.input->dtype));
    if (call.input->rt != call.output->rt) fail(TSR_ERR_INVALID_ARGUMENT, at + ": the tensors belong to two runtimes");
    const int64_t n_in = call.input->layout.numel(), n_out = call.output->layout.numel(), n = c.size;
    const auto sizes = [&](const std::string& rule) {
      fail(TSR_ERR_SHAPE, at + ": " + rule + "; the input has " + std::to_string(n_in) + " element(s) " +
                              shape_string(call.input->layout) + ", the output " + std::to_string(n_out) + " " +
                              shape_string(call.output->layout));
    };
    if (call.collective == TSR_COLL_ALL_GATHER && n_out != n * n_in)
      sizes("the output must hold world size (" + std::to_string(n) + ") times the input's elements");
    if (call.collective == TSR_COLL_REDUCE_SCATTER && n_in != n * n_out)
      sizes("the input must hold world size (" + std::to_string(n) + ") times the output's elements");
    if (call.collective == TSR_COLL_ALL_TO_ALL && (n_in != n_out || n_in % n != 0))
      sizes("the input and the output must have equal element counts, divisible by the world size (" +
            std::to_string(n) + ")");
  }
  if (call.output) check_no_internal_overlap(*call.output);
  if (call.input && call.output && call.input != call.output && may_share_memory(*call.input, *call.output))
    fail(TSR_ERR_INVALID_ARGUMENT, at + ": the output shares memory with the input");
}

}  // namespace

// ---- communicators -------------------------------------------------------------

tsr_comm* comm_world(tsr_runtime& rt, const char* device_type) {
  const Config& cfg = rt.config;
  std::string type;
  std::string plugin_name;
  if (device_type != nullptr) {
    type = device_type;
    auto it = cfg.communicators.find(type);
    if (it == cfg.communicators.end()) {
      std::string known;
      for (const auto& [k, v] : cfg.communicators) known += (known.empty() ? "" : ", ") + k + " -> " + v;
      fail(TSR_ERR_CONFIG, "config " + cfg.origin + ": no communicator for device type \"" + type +
                               "\" (\"communicators\": " + (known.empty() ? "none" : known) + ")");
    }
    plugin_name = it->second;
  } else if (const DeviceType* dt = rt.registry.device_type(rt.default_device.type);
             dt != nullptr && cfg.communicators.count(dt->name)) {
    type = dt->name;
    plugin_name = cfg.communicators.at(type);
  } else if (cfg.communicators.size() == 1) {
    type = cfg.communicators.begin()->first;
    plugin_name = cfg.communicators.begin()->second;
  } else {
    for (const auto& p : rt.plugins)
      if (p->comm() != nullptr) {
        if (!plugin_name.empty())
          fail(TSR_ERR_CONFIG, "config " + cfg.origin + ": several plugins offer a communicator (" + plugin_name +
                                   ", " + p->config().name + "); name one per device type in \"communicators\"");
        plugin_name = p->config().name;
      }
    if (plugin_name.empty())
      fail(TSR_ERR_CONFIG, "config " + cfg.origin + ": no plugin offers a communicator (add one, such as mpi.so, "
                                                    "and \"communicators\": {\"cpu\": \"mpi\"})");
    type = "cpu";
  }
  const LoadedPlugin* plugin = nullptr;
  for (const auto& p : rt.plugins)
    if (p->config().name == plugin_name) plugin = p.get();
  if (plugin == nullptr) {
    std::string why = "it is disabled";
    for (const PluginFailure& f : rt.failures)
      if (f.name == plugin_name) why = "it failed to load: " + f.reason;
    fail(TSR_ERR_LOAD, "communicator plugin \"" + plugin_name + "\" for device type \"" + type + "\" is not loaded: " +
                           why);
  }
  if (plugin->comm() == nullptr)
    fail(TSR_ERR_CONFIG, "config " + cfg.origin + ": /communicators/" + type + ": plugin \"" + plugin_name + "\" (" +
                             plugin->path() + ") offers no communicator");

  auto c = std::make_unique<tsr_comm>();
  c->rt = &rt;
  c->plugin = plugin;
  c->iface = plugin->comm();
  c->ctx = plugin->api().ctx;
  c->timeout_s = cfg.comm_timeout_s;
  c->debug = debug_from_environment();
  c->device_type = type;
  {
    PluginCall call(plugin);
    const tsr_status st = c->iface->world(c->ctx, c->timeout_s, &c->handle);
    if (st != TSR_OK) fail(st, "communicator \"" + plugin_name + "\": the world communicator: " + plugin_message());
    c->rank = c->iface->rank(c->ctx, c->handle);
    c->size = c->iface->size(c->ctx, c->handle);
  }
  rt.live_comms.fetch_add(1);
  return c.release();
}

tsr_comm* comm_split(tsr_comm& comm, int32_t color, int32_t key) {
  tsr_comm_handle handle = nullptr;
  {
    PluginCall call(comm.plugin);
    const tsr_status st = comm.iface->split(comm.ctx, comm.handle, color, key, comm.timeout_s, &handle);
    if (st != TSR_OK) fail(st, plugin_message());
  }
  if (handle == nullptr) return nullptr;
  auto c = std::make_unique<tsr_comm>();
  c->rt = comm.rt;
  c->plugin = comm.plugin;
  c->iface = comm.iface;
  c->ctx = comm.ctx;
  c->handle = handle;
  c->timeout_s = comm.timeout_s;
  c->debug = comm.debug;
  c->device_type = comm.device_type;
  PluginCall call(comm.plugin);
  c->rank = c->iface->rank(c->ctx, handle);
  c->size = c->iface->size(c->ctx, handle);
  comm.rt->live_comms.fetch_add(1);
  return c.release();
}

void comm_release(tsr_comm* comm) noexcept {
  if (comm == nullptr || comm->refs.fetch_sub(1) != 1) return;
  {
    PluginCall call(comm->plugin);
    comm->iface->release(comm->ctx, comm->handle);
  }
  comm->rt->live_comms.fetch_sub(1);
  delete comm;
}

// ---- collectives ---------------------------------------------------------------

tsr_work* start_collective(tsr_comm& c, const CollectiveCall& call_in) {
  CollectiveCall call = call_in;
  const double timeout = call.timeout_s > 0 ? call.timeout_s : c.timeout_s;
  check_call(c, call);
  if (c.debug && call.collective != TSR_COLL_SEND && call.collective != TSR_COLL_RECV)
    check_signatures(c, call, timeout);

  auto work = std::make_unique<tsr_work>();
  work->collective = call.collective;
  TensorRef in, out;
  switch (call.collective) {
    case TSR_COLL_ALL_REDUCE:
      in = out = output_buffer(c, *call.output, *work);
      if (in.get() != call.input) copy_into(*in, *call.input);
      break;
    case TSR_COLL_BROADCAST:
    case TSR_COLL_REDUCE: {
      // In place on the root; broadcast writes every other rank, reduce
      // reads every other rank.
      const bool root = c.rank == call.root;
      const bool writes = call.collective == TSR_COLL_BROADCAST ? !root : root;
      if (writes) {
        out = output_buffer(c, *call.output, *work);
        if (root) {
          if (out.get() != call.input) copy_into(*out, *call.input);
          in = out;
        }
      } else {
        in = input_buffer(c, *call.input);
        if (root) out = in;  // broadcast's root: its buffer is the message, unchanged
      }
      break;
    }
    case TSR_COLL_SEND: in = input_buffer(c, *call.input); break;
    case TSR_COLL_RECV: out = output_buffer(c, *call.output, *work); break;
    case TSR_COLL_BARRIER: break;
    default:
      in = input_buffer(c, *call.input);
      out = output_buffer(c, *call.output, *work);
      break;
  }

  tsr_tensor_desc in_desc{}, out_desc{};
  tsr_comm_args args{};
  args.struct_size = TSR_COMM_ARGS_STRUCT_SIZE;
  args.collective = call.collective;
  args.op = reduces(call.collective) ? call.op : 0;
  args.root = call.root;
  args.tag = call.tag;
  args.timeout_s = timeout;
  if (in) {
    buffer_desc(*in, in_desc);
    args.input = &in_desc;
  }
  if (out) {
    buffer_desc(*out, out_desc);
    args.output = &out_desc;
  }
  // Note [Device memory handed to a communicator]
  if (in) settle_device(*in);
  if (out && out.get() != in.get()) settle_device(*out);
  // The work keeps the buffers, and the caller's tensors, alive.
  for (TensorRef* r : {&in, &out})
    if (*r) work->keep.push_back(*r);
  for (tsr_tensor* t : {call.input, call.output})
    if (t != nullptr) work->keep.push_back(TensorRef::share(t));

  {
    PluginCall pc(c.plugin);
    const tsr_status st = c.iface->start(c.ctx, c.handle, &args, &work->request);
    if (st != TSR_OK) fail(st, plugin_message());
  }
  c.refs.fetch_add(1);
  work->comm = &c;
  return work.release();
}

namespace {

// After the plugin's wait or test answered: record the outcome once, and
// finish a completed operation (copies into the caller's tensors).
void complete(tsr_work& w, tsr_status st) {
  w.completed = true;
  w.status = st;
  if (st != TSR_OK) {
    w.message = plugin_message();
  } else {
    try {
      for (auto& [dst, buffer] : w.copy_back) copy_into(*dst, *buffer);
    } catch (const Error& e) {
      w.status = e.status();
      w.message = who(*w.comm, w.collective) + ": copying the result into the output failed: " + e.what();
    }
  }
  w.copy_back.clear();
  w.keep.clear();
}

void throw_outcome(const tsr_work& w) {
  if (w.status != TSR_OK) fail(w.status, w.message);
}

}  // namespace

void work_wait(tsr_work& w) {
  std::lock_guard lock(w.mutex);
  if (!w.completed) {
    const tsr_comm& c = *w.comm;
    PluginCall call(c.plugin);
    complete(w, c.iface->wait(c.ctx, w.request));
  }
  throw_outcome(w);
}

bool work_test(tsr_work& w) {
  std::lock_guard lock(w.mutex);
  if (!w.completed) {
    const tsr_comm& c = *w.comm;
    int32_t done = 0;
    PluginCall call(c.plugin);
    const tsr_status st = c.iface->test(c.ctx, w.request, &done);
    if (st != TSR_OK || done) complete(w, st);
  }
  throw_outcome(w);
  return w.completed;
}

void work_release(tsr_work* w) noexcept {
  if (w == nullptr) return;
  // A work dropped before completion is still completed (as PyTorch's
  // Work): the peers are in the collective too, and its buffers must
  // outlive it. Its deadline bounds the wait; a failure here has no caller
  // to go to, and the plugin has logged the broken communicator.
  try {
    work_wait(*w);
  } catch (...) {
  }
  if (w->request != nullptr) {
    PluginCall call(w->comm->plugin);
    w->comm->iface->request_free(w->comm->ctx, w->request);
  }
  tsr_comm* c = w->comm;
  delete w;
  comm_release(c);
}

}  // namespace tessera::rt
