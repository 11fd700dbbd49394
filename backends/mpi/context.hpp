// SPDX-License-Identifier: Apache-2.0
// mpi.so's state: the plugin's context, one communicator, one request.
#pragma once

#include <mpi.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "comm_plugin.hpp"
#include "mpi_startup.hpp"
#include "plugin_error.hpp"
#include "tessera/plugin.h"

namespace tessera::mpi {

using backend::fail;
using backend::guarded;
using Clock = std::chrono::steady_clock;

// Note [MPI is one per process]
//   MPI is initialised once per process and cannot start again after
//   MPI_Finalize, so its state is process-wide, unlike every other
//   plugin's: the World of world_state() is mpi.so's one mutable global.
//   It is initialised (MPI_Init_thread, MPI_THREAD_MULTIPLE asked, whatever
//   is provided accepted, every MPI call serialised by `mutex`) on the first
//   world() of any instance, from the launch environment (mpirun, srun, or
//   a singleton world of one). When mpi.so initialised MPI it finalises it
//   at exit (atexit; the library is -z nodelete, so the handler stays
//   mapped), unless a peer was lost or an operation timed out: then
//   MPI_Finalize could wait forever for the lost rank, so it is skipped
//   and the launcher reports the process as ending without finalising. A
//   world the application initialised itself is never finalised here.
using World = mpi_startup::World;
World& world_state();

// Bytes that grow without being zeroed: an all_reduce's receive buffer,
// overwritten by MPI before it is read (zeroing 512 KiB per call cost as
// much as the reduction it feeds).
class Scratch {
 public:
  char* reserve(size_t bytes) {
    if (bytes > capacity_) {
      data_.reset(new char[bytes]);  // default-initialised: not zeroed
      capacity_ = bytes;
    }
    return data_.get();
  }
  char* data() const { return data_.get(); }

 private:
  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
};

struct Comm;

// One round of Note [All-reduce over point to point]: send a range of the
// result buffer to one peer, receive a range from another (into scratch to
// be reduced in, or straight into the result). Offsets and counts in elements.
struct Step {
  int send_peer = 0, recv_peer = 0;
  size_t send_offset = 0, send_count = 0;
  size_t recv_offset = 0, recv_count = 0;
  bool reduce = false;
};

// One started operation and what finishing it takes.
struct Request {
  Comm* comm = nullptr;
  int32_t collective = 0;
  Clock::time_point deadline;
  double timeout_s = 0;
  std::vector<MPI_Request> requests;
  bool completed = false;
  tsr_status status = TSR_OK;
  std::string message;
  // float16/bfloat16 reductions run in float32 (Note [Half precision over MPI]).
  std::vector<float> staged_in, staged_out;
  int32_t half_dtype = -1;  // the dtype to convert staged_out back to
  void* out = nullptr;      // where the result goes
  size_t out_count = 0;     // elements of `out` that receive it
  int32_t out_dtype = 0;
  bool divide = false;      // AVG: SUM, then divide by the size
  // Note [All-reduce over point to point]: the steps still to run.
  std::vector<Step> steps;
  size_t next_step = 0;
  char* buffer = nullptr;          // the result buffer the steps work in
  Scratch scratch;                 // what a reducing step receives
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  int32_t reduce_dtype = 0;        // the dtype the steps reduce in (float32 for halves)
  int32_t reduce_op = 0;
  int step_tag = 0;                // the tag of this operation's rounds
  int32_t peer = -1;               // send / recv: the other rank, for a timeout's message

  // Back to a fresh request, keeping the buffers' memory (Comm::spare).
  void reset() {
    auto keep_requests = std::move(requests);
    auto keep_steps = std::move(steps);
    auto keep_in = std::move(staged_in), keep_out = std::move(staged_out);
    Scratch keep_scratch = std::move(scratch);
    *this = Request{};
    requests = std::move(keep_requests);
    requests.clear();
    steps = std::move(keep_steps);
    steps.clear();
    staged_in = std::move(keep_in);
    staged_in.clear();
    staged_out = std::move(keep_out);
    staged_out.clear();
    scratch = std::move(keep_scratch);
  }
};

// One communicator: a duplicate of MPI_COMM_WORLD, or a split of one, with
// MPI_ERRORS_RETURN so that a peer's failure is a status, not an abort.
struct Comm {
  MPI_Comm comm = MPI_COMM_NULL;
  // A second duplicate for the point-to-point steps of Note [All-reduce
  // over point to point], so they never match the user's send and recv.
  MPI_Comm internal = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  // All-reduces run over point to point so far: the next one's tag
  // (Note [All-reduce over point to point]); guarded by the world's mutex.
  uint32_t step_sequence = 0;
  // Finished requests kept for the next operation on this communicator, so
  // that a steady stream of collectives allocates nothing (Note [Reused
  // requests]); guarded by the world's mutex.
  std::vector<std::unique_ptr<Request>> spare;
};

using Context = backend::CommContext;

// "all_reduce on rank 1 of 4".
std::string who(const Comm& c, int32_t collective);
const char* collective_name(int32_t collective);
// MPI's text for an error code.
using mpi_startup::mpi_error_text;
// Marks the world broken (first reason wins).
inline void mark_broken(const std::string& reason) { world_state().mark_broken(reason); }

// The collective slots (collectives.cpp).
tsr_status start(void* ctx, tsr_comm_handle comm, const tsr_comm_args* args, tsr_comm_request* out);
tsr_status wait(void* ctx, tsr_comm_request request);
tsr_status test(void* ctx, tsr_comm_request request, int32_t* done);
void request_free(void* ctx, tsr_comm_request request);
// Polls `requests` until they complete or the deadline passes (used by split too).
tsr_status poll_until(Context& ctx, Request& r, bool block);

}  // namespace tessera::mpi
