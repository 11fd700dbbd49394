// SPDX-License-Identifier: Apache-2.0
// mpi.so's entry point: a plugin that is only a communicator (tessera/comm.h)
// over Open MPI: the world from the launch environment, split, release, and
// MPI's start-up and shut-down (Note [MPI is one per process]).
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "context.hpp"
#include "options_reader.hpp"
#include "plugin_init.hpp"

namespace tessera::mpi {

namespace {

constexpr const char* kPluginVersion = "0.1.0";

Context& ctx_of(void* ctx) { return *static_cast<Context*>(ctx); }

void finalize_at_exit() {
  World& w = world_state();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (w.broken.load()) {
    // MPI_Finalize would wait for the lost peer; the launcher reports the
    // process as ending without finalising, which is what happened.
    std::fprintf(stderr, "tessera: warning: mpi: MPI_Finalize skipped: %s\n", w.broken_reason.c_str());
    return;
  }
  MPI_Finalize();
}

// Initialises MPI once per process from the launch environment.
void ensure_initialised(Context& c) {
  World& w = world_state();
  std::lock_guard lock(w.mutex);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (finalized)
    fail(TSR_ERR_DEVICE, c.name + ": MPI was already finalised in this process; it cannot start again");
  if (initialized) return;  // by the application, or by an earlier instance
  int provided = 0;
  const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, c.name + ": MPI_Init_thread failed: " + mpi_error_text(rc));
  w.initialised_here = true;
  std::atexit(&finalize_at_exit);
}

Comm* make_comm(MPI_Comm mc) {
  auto c = std::make_unique<Comm>();
  c->comm = mc;
  MPI_Comm_set_errhandler(mc, MPI_ERRORS_RETURN);
  // Every rank has just finished creating `mc`, so this blocking dup
  // cannot wait for a missing one.
  MPI_Comm_dup(mc, &c->internal);
  MPI_Comm_rank(mc, &c->rank);
  MPI_Comm_size(mc, &c->size);
  return c.release();
}

tsr_status world(void* ctx, double timeout_s, tsr_comm_handle* out) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, "mpi", [&] {
    if (out == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, c.name + ": world needs an out pointer");
    ensure_initialised(c);
    World& w = world_state();
    if (w.broken.load()) fail(TSR_ERR_DEVICE, c.name + ": the world is broken: " + w.broken_reason);
    // A duplicate, so that the application's own traffic on
    // MPI_COMM_WORLD never matches ours; MPI_Comm_idup polled against the
    // deadline, so that a missing rank is a timeout.
    Comm world_view;
    {
      std::lock_guard lock(w.mutex);
      MPI_Comm_rank(MPI_COMM_WORLD, &world_view.rank);
      MPI_Comm_size(MPI_COMM_WORLD, &world_view.size);
    }
    MPI_Comm dup = MPI_COMM_NULL;
    Request r;
    r.comm = &world_view;
    r.collective = -1;
    r.timeout_s = timeout_s;
    r.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    r.requests.resize(1);
    {
      std::lock_guard lock(w.mutex);
      if (w.initialised_here) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      const int rc = MPI_Comm_idup(MPI_COMM_WORLD, &dup, &r.requests[0]);
      if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, c.name + ": MPI_Comm_idup failed: " + mpi_error_text(rc));
    }
    const tsr_status st = poll_until(c, r, true);
    if (st != TSR_OK) fail(st, r.message);
    std::lock_guard lock(w.mutex);
    *out = make_comm(dup);
  });
}

int32_t rank(void*, tsr_comm_handle comm) { return static_cast<Comm*>(comm)->rank; }
int32_t size(void*, tsr_comm_handle comm) { return static_cast<Comm*>(comm)->size; }

tsr_status split(void* ctx, tsr_comm_handle comm, int32_t color, int32_t key, double timeout_s,
                 tsr_comm_handle* out) {
  Context& c = ctx_of(ctx);
  return guarded(c.host, "mpi", [&] {
    if (comm == nullptr || out == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, c.name + ": split needs a comm and out");
    Comm& parent = *static_cast<Comm*>(comm);
    World& w = world_state();
    // MPI has no non-blocking split: first a barrier polled against the
    // deadline proves every rank has arrived, so MPI_Comm_split cannot
    // then wait for a missing one.
    Request r;
    r.comm = &parent;
    r.collective = TSR_COLL_BARRIER;
    r.timeout_s = timeout_s;
    r.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
    r.requests.resize(1);
    {
      std::lock_guard lock(w.mutex);
      if (w.broken.load()) fail(TSR_ERR_DEVICE, c.name + ": split on rank " + std::to_string(parent.rank) +
                                                    ": the communicator is broken: " + w.broken_reason);
      const int rc = MPI_Ibarrier(parent.comm, &r.requests[0]);
      if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, c.name + ": MPI_Ibarrier failed: " + mpi_error_text(rc));
    }
    const tsr_status st = poll_until(c, r, true);
    if (st != TSR_OK) fail(st, "split: " + r.message);
    std::lock_guard lock(w.mutex);
    MPI_Comm child = MPI_COMM_NULL;
    const int rc = MPI_Comm_split(parent.comm, color < 0 ? MPI_UNDEFINED : color, key, &child);
    if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, c.name + ": MPI_Comm_split failed: " + mpi_error_text(rc));
    *out = child == MPI_COMM_NULL ? nullptr : make_comm(child);
  });
}

void release(void*, tsr_comm_handle comm) {
  if (comm == nullptr) return;
  Comm* c = static_cast<Comm*>(comm);
  World& w = world_state();
  {
    std::lock_guard lock(w.mutex);
    int finalized = 0;
    MPI_Finalized(&finalized);
    // MPI_Comm_free is local in Open MPI; a broken world leaves it alone.
    if (!finalized && !w.broken.load() && c->comm != MPI_COMM_NULL) {
      MPI_Comm_free(&c->comm);
      MPI_Comm_free(&c->internal);
    }
  }
  delete c;
}

int32_t can_access_device(void*, int32_t, const char*) { return 0; }  // host memory only

void destroy(void* ctx) { delete static_cast<Context*>(ctx); }

std::unique_ptr<Context> make_context(const tsr_plugin_init_args& args) {
  auto c = std::make_unique<Context>();
  c->host = args.host;
  c->name = (args.struct_size >= TSR_STRUCT_SIZE(tsr_plugin_init_args, instance_name) && args.instance_name)
                ? std::string("mpi \"") + args.instance_name + "\""
                : std::string("mpi");
  // No options yet: refuse any, so that a typo is not silently ignored.
  backend::for_each_option("mpi", args.options_json, [&](const std::string& key, const std::string&) {
    fail(TSR_ERR_CONFIG, "mpi: unknown option \"" + key + "\" (mpi.so takes none; the timeout is the config's "
                                                          "\"comm_timeout_s\")");
  });
  tsr_comm_iface& m = c->comm;
  m.struct_size = TSR_COMM_IFACE_STRUCT_SIZE;
  m.name = "mpi";
  m.can_access_device = &can_access_device;
  m.world = &world;
  m.rank = &rank;
  m.size = &size;
  m.split = &split;
  m.release = &release;
  m.start = &start;
  m.wait = &wait;
  m.test = &test;
  m.request_free = &request_free;
  tsr_plugin_api& a = c->api;
  a.struct_size = TSR_PLUGIN_API_STRUCT_SIZE;
  a.abi_version = TSR_ABI_VERSION;
  a.device_type = TSR_DEVICE_UNDEFINED;
  a.device_type_name = "";
  a.plugin_name = "mpi";
  a.plugin_version = kPluginVersion;
  a.ctx = c.get();
  a.device = nullptr;
  a.kernels = nullptr;
  a.destroy = &destroy;
  a.comm = &c->comm;
  return c;
}

}  // namespace

World& world_state() {
  static World w;
  return w;
}

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<size_t>(len));
}

void mark_broken(const std::string& reason) {
  World& w = world_state();
  std::lock_guard lock(w.mutex);
  if (!w.broken.exchange(true)) w.broken_reason = reason;
}

}  // namespace tessera::mpi

extern "C" TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  return tessera::backend::init_plugin("mpi", args, out, tessera::mpi::make_context);
}
