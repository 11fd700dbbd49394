// SPDX-License-Identifier: Apache-2.0
// mpi.so's entry point: a plugin that is only a communicator (tessera/comm.h)
// over Open MPI: the world from the launch environment, split, release, and
// MPI's start-up and shut-down (Note [MPI is one per process]).
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "comm_plugin.hpp"
#include "context.hpp"
#include "mpi_startup.hpp"
#include "plugin_init.hpp"

namespace tessera::mpi {

namespace {

constexpr const char* kPluginVersion = "0.1.0";


void finalize_at_exit() {
  World& w = world_state();
  mpi_startup::finalize_unless_broken(w.broken.load(), w.broken_reason, "mpi");
}

// Initialises MPI once per process from the launch environment.
void ensure_initialised(Context& c) {
  World& w = world_state();
  mpi_startup::ensure_initialised(w.mutex, w.initialised_here, c.name, &finalize_at_exit);
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
  Context& c = backend::comm_context_of(ctx);
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
  Context& c = backend::comm_context_of(ctx);
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

std::unique_ptr<Context> make_context(const tsr_plugin_init_args& args) {
  tsr_comm_iface slots{};
  slots.can_access_device = &can_access_device;
  slots.world = &world;
  slots.rank = &rank;
  slots.size = &size;
  slots.split = &split;
  slots.release = &release;
  slots.start = &start;
  slots.wait = &wait;
  slots.test = &test;
  slots.request_free = &request_free;
  return backend::make_comm_context(args, "mpi", kPluginVersion, slots);
}

}  // namespace

World& world_state() {
  static World w;
  return w;
}

}  // namespace tessera::mpi

extern "C" TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  return tessera::backend::init_plugin("mpi", args, out, tessera::mpi::make_context);
}
