// SPDX-License-Identifier: Apache-2.0
// nccl.so's entry point: a plugin that is only a communicator (tessera/comm.h)
// over NCCL, bootstrapped through MPI (Note [NCCL's bootstrap and its
// device]): world, split, release, the lazy NCCL communicator, and MPI's
// start-up and shut-down.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "comm_plugin.hpp"
#include "context.hpp"
#include "mpi_startup.hpp"
#include "plugin_init.hpp"

namespace tessera::nccl {

namespace {

constexpr const char* kPluginVersion = "0.1.0";


void finalize_at_exit() {
  World& w = world_state();
  mpi_startup::finalize_unless_broken(w.broken.load(), w.broken_reason, "nccl");
}

// Initialises MPI once per process from the launch environment, unless the
// application or mpi.so did (Note [NCCL's bootstrap and its device]).
void ensure_mpi(const Context& c) {
  World& w = world_state();
  mpi_startup::ensure_initialised(w.mutex, w.initialised_here, c.name, &finalize_at_exit);
}

// Polls one MPI request to the deadline; false: timed out.
bool mpi_poll(MPI_Request& req, Clock::time_point deadline, int& rc) {
  World& w = world_state();
  rc = MPI_SUCCESS;
  return poll_until(deadline, [&] {
    int flag = 0;
    std::lock_guard lock(w.mutex);
    rc = MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    return rc != MPI_SUCCESS || flag != 0;
  });
}

Comm* make_comm(MPI_Comm mc) {
  auto c = std::make_unique<Comm>();
  c->bootstrap = mc;
  MPI_Comm_set_errhandler(mc, MPI_ERRORS_RETURN);
  MPI_Comm_rank(mc, &c->rank);
  MPI_Comm_size(mc, &c->size);
  return c.release();
}

tsr_status world(void* ctx, double timeout_s, tsr_comm_handle* out) {
  Context& c = backend::comm_context_of(ctx);
  return guarded(c.host, "nccl", [&] {
    if (out == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, c.name + ": world needs an out pointer");
    ensure_mpi(c);
    World& w = world_state();
    if (w.broken.load()) fail(TSR_ERR_DEVICE, c.name + ": the world is broken: " + w.broken_reason);
    // A duplicate of MPI_COMM_WORLD, polled against the deadline, so that
    // a missing rank is a timeout.
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Request req = MPI_REQUEST_NULL;
    {
      std::lock_guard lock(w.mutex);
      const int rc = MPI_Comm_idup(MPI_COMM_WORLD, &dup, &req);
      if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, c.name + ": MPI_Comm_idup failed: " + mpi_error_text(rc));
    }
    int rc = MPI_SUCCESS;
    if (!mpi_poll(req, deadline_after(timeout_s), rc)) {
      mark_broken(c.name + ": world: timed out after " + seconds_text(timeout_s) + " s waiting for every rank");
      fail(TSR_ERR_TIMEOUT, c.name + ": world: timed out after " + seconds_text(timeout_s) + " s waiting for every rank");
    }
    if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, c.name + ": world: " + mpi_error_text(rc));
    std::lock_guard lock(w.mutex);
    *out = make_comm(dup);
  });
}

int32_t rank(void*, tsr_comm_handle comm) { return static_cast<Comm*>(comm)->rank; }
int32_t size(void*, tsr_comm_handle comm) { return static_cast<Comm*>(comm)->size; }

// The MPI side only (Note [NCCL's bootstrap and its device]): the child's
// NCCL communicator is made by its own first device operation.
tsr_status split(void* ctx, tsr_comm_handle comm, int32_t color, int32_t key, double timeout_s,
                 tsr_comm_handle* out) {
  Context& c = backend::comm_context_of(ctx);
  return guarded(c.host, "nccl", [&] {
    if (comm == nullptr || out == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, c.name + ": split needs a comm and out");
    Comm& parent = *static_cast<Comm*>(comm);
    World& w = world_state();
    const std::string at = c.name + ": split on rank " + std::to_string(parent.rank);
    // MPI has no non-blocking split: a barrier polled against the deadline
    // first proves every rank has arrived.
    MPI_Request req = MPI_REQUEST_NULL;
    {
      std::lock_guard lock(w.mutex);
      if (w.broken.load()) fail(TSR_ERR_DEVICE, at + ": the communicator is broken: " + w.broken_reason);
      const int rc = MPI_Ibarrier(parent.bootstrap, &req);
      if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, at + ": MPI_Ibarrier failed: " + mpi_error_text(rc));
    }
    int rc = MPI_SUCCESS;
    if (!mpi_poll(req, deadline_after(timeout_s), rc)) {
      mark_broken(at + ": timed out after " + seconds_text(timeout_s) + " s");
      fail(TSR_ERR_TIMEOUT, at + ": timed out after " + seconds_text(timeout_s) + " s waiting for every rank");
    }
    if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, at + ": " + mpi_error_text(rc));
    std::lock_guard lock(w.mutex);
    MPI_Comm child = MPI_COMM_NULL;
    rc = MPI_Comm_split(parent.bootstrap, color < 0 ? MPI_UNDEFINED : color, key, &child);
    if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, at + ": MPI_Comm_split failed: " + mpi_error_text(rc));
    *out = child == MPI_COMM_NULL ? nullptr : make_comm(child);
  });
}

// A non-blocking communicator is finalised (its issued work flushed, its
// peers quiescent) before it is destroyed; release must not block for
// long, so one that does not get there within kFinalizeSeconds, like a
// broken or unfinished one, is aborted instead.
constexpr double kFinalizeSeconds = 10;

void release_engine(Engine& e, bool broken) {
  if (e.nccl != nullptr) {
    bool finalized = false;
    if (!broken && e.ready() && ncclCommFinalize(e.nccl) != ncclSystemError) {
      ncclResult_t state = ncclInProgress;
      poll_until(deadline_after(kFinalizeSeconds), [&] {
        if (ncclCommGetAsyncError(e.nccl, &state) != ncclSuccess) state = ncclInternalError;
        return state != ncclInProgress;
      });
      finalized = state == ncclSuccess;
    }
    if (finalized)
      ncclCommDestroy(e.nccl);
    else
      ncclCommAbort(e.nccl);
    e.nccl = nullptr;
  }
  if (e.stream != nullptr) cudaStreamDestroy(e.stream);
  e.stream = nullptr;
}

// Not collective, never blocks: a broken world aborts its NCCL
// communicator (which stops what may still run on the device) instead of
// destroying it.
void release(void*, tsr_comm_handle comm) {
  if (comm == nullptr) return;
  Comm* c = static_cast<Comm*>(comm);
  World& w = world_state();
  {
    std::lock_guard lock(w.mutex);
    release_engine(c->collectives, w.broken.load());
    for (auto& [key, lane] : c->lanes) release_engine(lane, w.broken.load());
    for (cudaEvent_t e : c->spare_events) cudaEventDestroy(e);
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized && !w.broken.load() && c->bootstrap != MPI_COMM_NULL) MPI_Comm_free(&c->bootstrap);
  }
  delete c;
}

// NCCL reads and writes CUDA device memory where it lies.
int32_t can_access_device(void*, int32_t device_type, const char* name) {
  return device_type == TSR_DEVICE_CUDA || (name != nullptr && std::strcmp(name, "cuda") == 0) ? 1 : 0;
}

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
  return backend::make_comm_context(args, "nccl", kPluginVersion, slots);
}

}  // namespace

World& world_state() {
  static World w;
  return w;
}

Clock::time_point deadline_after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

std::string who(const Comm& c, int32_t collective) {
  return std::string(tsr_collective_name(collective)) + " on rank " + std::to_string(c.rank) + " of " +
         std::to_string(c.size);
}

std::string nccl_error_text(ncclResult_t r) {
  std::string text = ncclGetErrorString(r);
  const char* last = ncclGetLastError(nullptr);
  if (last != nullptr && *last != '\0') text += std::string(" (") + last + ")";
  return text;
}

// ---- Note [Send and recv lanes] ----------------------------------------------
// NCCL runs one communicator's operations in order, and a send does not
// finish before its receiver runs the matching recv. So a send queued
// before a recv on one communicator waits for the peer's recv, which on the
// peer waits behind the peer's own send: the exchange "send to the next
// rank, then receive from the previous one" deadlocks beyond NCCL's
// buffers. MPI's isend then recv works, and so must ours. Each direction
// between two ranks therefore gets its own 2-rank NCCL communicator and
// stream, a lane: a send from a to b queues on lane (a, b), where a is
// rank 0, and b's recv from a on the same lane, where b is rank 1. Sends
// and receives between a pair still match in order, as NCCL's do.
//
// Making an NCCL communicator waits for all of its ranks, and in a ring
// every rank's first send is to a rank busy making another lane: so a lane
// is made without blocking. Its sender makes the id and hands it over MPI
// point to point on the communicator's bootstrap (kLaneTag); then NCCL's
// non-blocking initialisation runs; every look at any operation of the
// communicator advances every lane in the making (advance_lane), and the
// operations started on a lane before it was ready are queued, in start
// order, once it is. (PyTorch makes its pair communicators blocking, so a
// ring's first isend/recv can hang there; it asks for batch_isend_irecv.)
constexpr int kLaneTag = 0x4c4e;

namespace {

// Begins NCCL's non-blocking initialisation of e (rank of nranks, with
// `id`) on `device`, with a stream of its own.
void start_init(Engine& e, int nranks, int rank, const ncclUniqueId& id, int device, const std::string& at) {
  DeviceScope scope(device);
  cudaStream_t stream = nullptr;
  const cudaError_t ce = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  if (ce != cudaSuccess) fail(TSR_ERR_DEVICE, at + ": cudaStreamCreateWithFlags: " + cudaGetErrorString(ce));
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t comm = nullptr;
  const ncclResult_t r = ncclCommInitRankConfig(&comm, nranks, id, rank, &config);
  e.nccl = comm;
  e.device = device;
  e.stream = stream;
  e.state = Engine::State::kInitializing;
  if (r != ncclSuccess && r != ncclInProgress) {
    e.aborted = true;
    fail(TSR_ERR_DEVICE, at + ": ncclCommInitRankConfig on CUDA device " + std::to_string(device) + ": " +
                             nccl_error_text(r));
  }
}

// One look at an initialising engine: ncclInProgress, ncclSuccess (ready),
// or the failure (the engine then aborted).
ncclResult_t poll_init(Engine& e) {
  ncclResult_t state = ncclInProgress;
  if (ncclCommGetAsyncError(e.nccl, &state) != ncclSuccess) state = ncclInternalError;
  if (state == ncclSuccess) e.state = Engine::State::kReady;
  if (state != ncclSuccess && state != ncclInProgress) abort_engine(e);
  return state;
}

void check_engine(const Engine& e, int device, const std::string& at) {
  if (e.aborted) fail(TSR_ERR_DEVICE, at + ": the NCCL communicator was aborted by an earlier failure");
  if (e.state != Engine::State::kNone && device != e.device)
    fail(TSR_ERR_DEVICE, at + ": this communicator runs on CUDA device " + std::to_string(e.device) +
                             " (its first device operation's), and the tensor is on CUDA device " +
                             std::to_string(device));
}

}  // namespace

Engine& collectives_engine(Comm& c, int32_t collective, int device, Clock::time_point deadline, double timeout_s) {
  const std::string at = "nccl: " + who(c, collective);
  Engine& e = c.collectives;
  check_engine(e, device, at);
  if (e.ready()) return e;
  World& w = world_state();
  const auto timed_out = [&](const std::string& step) {
    const std::string m = at + ": timed out after " + seconds_text(timeout_s) + " s " + step +
                          " (the communicator is now broken)";
    mark_broken(m);
    fail(TSR_ERR_TIMEOUT, m);
  };
  // The id: made by rank 0, carried by MPI (every rank is here: a collective).
  ncclUniqueId id{};
  MPI_Request req = MPI_REQUEST_NULL;
  {
    std::lock_guard lock(w.mutex);
    if (c.rank == 0) {
      const ncclResult_t r = ncclGetUniqueId(&id);
      if (r != ncclSuccess) fail(TSR_ERR_DEVICE, at + ": ncclGetUniqueId: " + nccl_error_text(r));
    }
    const int rc = MPI_Ibcast(&id, sizeof id, MPI_BYTE, 0, c.bootstrap, &req);
    if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, at + ": MPI_Ibcast: " + mpi_error_text(rc));
  }
  int rc = MPI_SUCCESS;
  if (!mpi_poll(req, deadline, rc)) timed_out("waiting for every rank to make the NCCL communicator");
  if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, at + ": MPI_Ibcast: " + mpi_error_text(rc));
  std::lock_guard lock(w.mutex);
  start_init(e, c.size, c.rank, id, device, at);
  ncclResult_t state = ncclInProgress;
  poll_until(deadline, [&] { return (state = poll_init(e)) != ncclInProgress; });
  if (state == ncclInProgress) {
    abort_engine(e);
    timed_out("making the NCCL communicator on CUDA device " + std::to_string(device));
  }
  if (state != ncclSuccess)
    fail(TSR_ERR_DEVICE, at + ": ncclCommInitRankConfig on CUDA device " + std::to_string(device) + ": " +
                             nccl_error_text(state));
  return e;
}

Engine& begin_lane(Comm& c, int from, int to, int device, const std::string& at) {
  Engine& e = c.lanes[{from, to}];
  check_engine(e, device, at);
  if (e.state != Engine::State::kNone) return e;
  e.from = from;
  e.to = to;
  e.device = device;
  if (c.rank == from) {
    const ncclResult_t r = ncclGetUniqueId(&e.id);
    if (r != ncclSuccess) fail(TSR_ERR_DEVICE, at + ": ncclGetUniqueId: " + nccl_error_text(r));
  }
  const int rc = c.rank == from ? MPI_Isend(&e.id, sizeof e.id, MPI_BYTE, to, kLaneTag, c.bootstrap, &e.id_request)
                                : MPI_Irecv(&e.id, sizeof e.id, MPI_BYTE, from, kLaneTag, c.bootstrap, &e.id_request);
  if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, at + ": handing over the NCCL id: " + mpi_error_text(rc));
  e.state = Engine::State::kExchangingId;
  return e;
}

bool advance_lane(Comm& c, Engine& e, const std::string& at) {
  if (e.aborted) fail(TSR_ERR_DEVICE, at + ": the NCCL communicator was aborted by an earlier failure");
  if (e.state == Engine::State::kExchangingId) {
    int flag = 0;
    const int rc = MPI_Test(&e.id_request, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, at + ": handing over the NCCL id: " + mpi_error_text(rc));
    if (!flag) return false;
    start_init(e, 2, c.rank == e.from ? 0 : 1, e.id, e.device, at);
  }
  if (e.state == Engine::State::kInitializing) {
    const ncclResult_t state = poll_init(e);
    if (state != ncclSuccess && state != ncclInProgress)
      fail(TSR_ERR_DEVICE, at + ": ncclCommInitRankConfig on CUDA device " + std::to_string(e.device) + ": " +
                               nccl_error_text(state));
  }
  return e.ready();
}

void abort_engine(Engine& e) {
  if (e.nccl != nullptr) ncclCommAbort(e.nccl);
  e.nccl = nullptr;
  e.aborted = true;
}

Request::~Request() {
  if (engine != nullptr && !queued) {  // abandoned while waiting for its lane
    auto& d = engine->deferred;
    d.erase(std::remove(d.begin(), d.end(), this), d.end());
  }
  // A pending barrier's MPI request is left as it is: MPI forbids freeing
  // it, and its world is broken already, so nothing runs MPI again.
  if (done != nullptr) {
    if (comm != nullptr && completed && status == TSR_OK)
      comm->spare_events.push_back(done);
    else
      cudaEventDestroy(done);
  }
  // cudaFree and cudaFreeHost wait for the device: only for finished
  // operations (an aborted communicator has stopped its kernels).
  if (device_in != nullptr) cudaFree(device_in);
  if (device_out != nullptr) cudaFree(device_out);
  if (pinned_out != nullptr) cudaFreeHost(pinned_out);
}

}  // namespace tessera::nccl

extern "C" TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  return tessera::backend::init_plugin("nccl", args, out, tessera::nccl::make_context);
}
