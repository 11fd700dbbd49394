// SPDX-License-Identifier: Apache-2.0
// nccl.so's state: the process-wide bootstrap, one communicator, one request.
#pragma once

#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "comm_plugin.hpp"
#include "mpi_startup.hpp"
#include "plugin_error.hpp"
#include "tessera/plugin.h"

namespace tessera::nccl {

using backend::fail;
using backend::guarded;
using Clock = std::chrono::steady_clock;

// Note [NCCL's bootstrap and its device]
//   NCCL moves device memory, but does not find its peers: every rank of a
//   communicator must be given the same ncclUniqueId, made by one of them.
//   nccl.so hands it over through MPI (as nccl-tests does), so a job
//   starts as mpi.so's does (mpirun, srun, or a world of one), and MPI's
//   start-up and shut-down follow Note [MPI is one per process] of mpi.so:
//   initialised here unless the application or mpi.so did it first,
//   finalised at exit only by whoever initialised it.
//
//   A communicator is bound to one CUDA device, and a tensor says which
//   device it lives on only when it arrives. So, as PyTorch's
//   ProcessGroupNCCL, world and split make the MPI side alone (rank, size,
//   an MPI communicator to bootstrap through), and the NCCL communicator is
//   made by the first operation that moves device memory, on that memory's
//   device: rank 0 makes the id, MPI_Ibcast carries it (polled against the
//   deadline), ncclCommInitRankConfig starts non-blocking and is polled
//   too. Every rank reaches that first operation at the same point, since
//   collectives start in one order everywhere. A later operation on memory
//   of another device is refused, naming both devices.
using World = mpi_startup::World;
World& world_state();

struct Comm;
struct Request;

// One NCCL communicator, the CUDA device it is bound to, and the stream its
// operations queue on (non-blocking, owned). A lane (Note [Send and recv
// lanes]) is made without blocking: its id is handed over, then NCCL's
// initialisation polled, by whatever call next looks at the communicator.
struct Engine {
  enum class State { kNone, kExchangingId, kInitializing, kReady };
  State state = State::kNone;
  ncclComm_t nccl = nullptr;  // initialising or ready
  int device = -1;
  cudaStream_t stream = nullptr;
  bool aborted = false;       // ncclCommAbort'ed: what was queued on it stopped
  int from = -1, to = -1;     // a lane's sender and receiver (ranks of the communicator)
  ncclUniqueId id{};          // a lane's id while it is handed over
  MPI_Request id_request = MPI_REQUEST_NULL;
  std::vector<Request*> deferred;  // operations started before it was ready, in start order
  bool ready() const { return state == State::kReady; }
};

// One started operation: the event recorded after it on the communicator's
// stream, and its deadline.
struct Request {
  Comm* comm = nullptr;
  Engine* engine = nullptr;                // where it was queued (NULL: barrier, or nothing queued)
  int32_t collective = 0;
  Clock::time_point deadline;
  double timeout_s = 0;
  cudaEvent_t done = nullptr;              // owned; NULL: nothing was queued (an empty operation)
  MPI_Request barrier = MPI_REQUEST_NULL;  // BARRIER runs over MPI (Note [NCCL's bootstrap and its device])
  bool completed = false;
  tsr_status status = TSR_OK;
  std::string message;
  int32_t peer = -1;                       // send / recv: the other rank, for a timeout's message
  // Host memory goes through device copies (Note [Host memory through
  // NCCL]): the device buffers, and the pinned buffer the result comes
  // back into before it is copied to `host_out` on completion.
  void* device_in = nullptr;   // owned (cudaMalloc)
  void* device_out = nullptr;  // owned (cudaMalloc)
  void* pinned_out = nullptr;  // owned (cudaHostAlloc)
  void* host_out = nullptr;    // the caller's; borrowed until completion
  size_t out_bytes = 0;
  // What queuing it takes, kept for an operation that waits for its lane
  // (Note [Send and recv lanes]): copies of the arguments and descriptors
  // (the memory behind them outlives the request).
  bool queued = false;
  tsr_comm_args args{};
  tsr_tensor_desc input{}, output{};
  ncclDataType_t wire_type = ncclInt8;
  size_t per_element = 1;      // NCCL elements per tensor element
  size_t n_in = 0, n_out = 0;  // tensor elements
  bool host = false;           // host memory: Note [Host memory through NCCL]
  ~Request();
};

// One communicator: the MPI side from world or split, the NCCL side once
// an operation has named its device: the collectives' engine, and one
// engine per direction of send and recv (Note [Send and recv lanes]).
struct Comm {
  MPI_Comm bootstrap = MPI_COMM_NULL;  // a duplicate of MPI_COMM_WORLD, or a split of one
  int rank = 0;
  int size = 1;
  Engine collectives;                  // made by the first collective on device memory
  std::map<std::pair<int, int>, Engine> lanes;  // (sender, receiver) ranks -> a 2-rank engine
  std::vector<cudaEvent_t> spare_events;        // finished requests' events, reused
};

using Context = backend::CommContext;

// "all_reduce on rank 1 of 4".
std::string who(const Comm& c, int32_t collective);
using mpi_startup::mpi_error_text;
std::string nccl_error_text(ncclResult_t r);
// Marks the world broken (first reason wins).
inline void mark_broken(const std::string& reason) { world_state().mark_broken(reason); }
// Polls `done()` (true: finished) until the deadline; false: timed out.
// Busy at first (a small operation completes in microseconds), then
// yielding the core (ranks may outnumber cores).
template <class F> bool poll_until(Clock::time_point deadline, F&& done) {
  for (unsigned spins = 0;; ++spins) {
    if (done()) return true;
    if (Clock::now() >= deadline) return false;
    if (spins > 2000) sched_yield();
  }
}
Clock::time_point deadline_after(double seconds);

inline std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// Makes a CUDA device current for a scope (the caller's comes back after).
struct DeviceScope {
  int previous = 0;
  explicit DeviceScope(int device) {
    cudaGetDevice(&previous);
    const cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess)
      fail(TSR_ERR_DEVICE, "nccl: cudaSetDevice(" + std::to_string(device) + "): " + cudaGetErrorString(e));
  }
  ~DeviceScope() { cudaSetDevice(previous); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;
};
// The collectives' engine, made on `device` if it is not yet (collective
// over c, polled against the deadline). Fails when it is bound to another
// device.
Engine& collectives_engine(Comm& c, int32_t collective, int device, Clock::time_point deadline, double timeout_s);
// The lane from rank `from` to rank `to` of c (Note [Send and recv lanes]),
// its making begun on `device` if it was not; it may not be ready yet.
Engine& begin_lane(Comm& c, int from, int to, int device, const std::string& at);
// One step of making lane e, never blocking; true once it is ready. The
// caller holds the world's mutex.
bool advance_lane(Comm& c, Engine& e, const std::string& at);
// Aborts an engine's NCCL communicator (its kernels stop).
void abort_engine(Engine& e);

// The collective slots (collectives.cpp).
tsr_status start(void* ctx, tsr_comm_handle comm, const tsr_comm_args* args, tsr_comm_request* out);
tsr_status wait(void* ctx, tsr_comm_request request);
tsr_status test(void* ctx, tsr_comm_request request, int32_t* done);
void request_free(void* ctx, tsr_comm_request request);

}  // namespace tessera::nccl
