// SPDX-License-Identifier: Apache-2.0
// mpi.so's collectives: every operation starts as MPI's non-blocking form
// (MPI_Iallreduce, MPI_Ibcast, ...) and completes by polling MPI_Testall
// against the request's deadline, so a peer that never answers is a
// TSR_ERR_TIMEOUT naming the rank and the collective, never a hang.
#include <sched.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <string>

#include "comm_plugin.hpp"
#include "context.hpp"
#include "tessera/half.h"

namespace tessera::mpi {

const char* collective_name(int32_t collective) {
  return collective < 0 ? "comm_dup" : tsr_collective_name(collective);  // -1: world's MPI_Comm_idup
}

std::string who(const Comm& c, int32_t collective) {
  return std::string(collective_name(collective)) + " on rank " + std::to_string(c.rank) + " of " +
         std::to_string(c.size);
}

namespace {


bool reduces(int32_t collective) {
  return collective == TSR_COLL_ALL_REDUCE || collective == TSR_COLL_REDUCE || collective == TSR_COLL_REDUCE_SCATTER;
}

bool is_half(int32_t dtype) { return dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16; }

// The MPI datatype that carries a dtype's bytes. Note [Half precision over
// MPI]: MPI has no float16 or bfloat16; they travel as 16-bit integers
// where nothing is computed on them, and a reduction converts them to
// float32 first, reduces in float32 and rounds once at the end (more exact
// than rounding at every step, as a user-defined MPI_Op would).
MPI_Datatype datatype_of(int32_t dtype) {
  switch (dtype) {
    case TSR_FLOAT32: return MPI_FLOAT;
    case TSR_FLOAT64: return MPI_DOUBLE;
    case TSR_FLOAT16:
    case TSR_BFLOAT16: return MPI_UINT16_T;
    case TSR_INT8: return MPI_INT8_T;
    case TSR_UINT8: return MPI_UINT8_T;
    case TSR_INT16: return MPI_INT16_T;
    case TSR_INT32: return MPI_INT32_T;
    case TSR_INT64: return MPI_INT64_T;
    case TSR_BOOL: return MPI_UINT8_T;
    default: fail(TSR_ERR_TYPE, "mpi: unknown dtype " + std::to_string(dtype));
  }
}

// Bool holds 0 or 1: SUM and MAX are a logical or (MPI_MAX), PROD and MIN
// a logical and (MPI_MIN). AVG is SUM, divided afterwards.
MPI_Op op_of(int32_t op, int32_t dtype) {
  if (dtype == TSR_BOOL) return (op == TSR_REDUCE_SUM || op == TSR_REDUCE_MAX) ? MPI_MAX : MPI_MIN;
  switch (op) {
    case TSR_REDUCE_SUM:
    case TSR_REDUCE_AVG: return MPI_SUM;
    case TSR_REDUCE_PROD: return MPI_PROD;
    case TSR_REDUCE_MIN: return MPI_MIN;
    case TSR_REDUCE_MAX: return MPI_MAX;
    default: fail(TSR_ERR_INVALID_ARGUMENT, "mpi: unknown reduce op " + std::to_string(op));
  }
}

int count_of(int64_t n, const std::string& at) {
  if (n > INT_MAX) fail(TSR_ERR_UNSUPPORTED, at + ": " + std::to_string(n) + " elements exceed MPI's int count");
  return static_cast<int>(n);
}

void to_float(const void* src, float* dst, size_t n, int32_t dtype) {
  const auto* h = static_cast<const uint16_t*>(src);
  for (size_t i = 0; i < n; ++i) dst[i] = dtype == TSR_FLOAT16 ? tsr_float16_to_float(h[i]) : tsr_bfloat16_to_float(h[i]);
}

void from_float(const float* src, void* dst, size_t n, int32_t dtype) {
  auto* h = static_cast<uint16_t*>(dst);
  for (size_t i = 0; i < n; ++i) h[i] = dtype == TSR_FLOAT16 ? tsr_float_to_float16(src[i]) : tsr_float_to_bfloat16(src[i]);
}

template <class T> void divide(void* data, size_t n, int by) {
  T* p = static_cast<T*>(data);
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<T>(p[i] / static_cast<T>(by));
}

// The work after MPI has completed: AVG's division, half conversion back.
void finish(Request& r) {
  if (r.out == nullptr || r.out_count == 0) return;
  const int n = r.comm->size;
  if (r.half_dtype >= 0) {
    if (r.divide)
      for (float& x : r.staged_out) x /= static_cast<float>(n);
    from_float(r.staged_out.data(), r.out, r.out_count, r.half_dtype);
    return;
  }
  if (!r.divide) return;
  if (r.out_dtype == TSR_FLOAT32) divide<float>(r.out, r.out_count, n);
  if (r.out_dtype == TSR_FLOAT64) divide<double>(r.out, r.out_count, n);
}

// ---- Note [All-reduce over point to point] ----------------------------------
// Open MPI 4.1's non-blocking MPI_Iallreduce (libnbc) takes about four times
// as long as its blocking MPI_Allreduce for small messages, and a blocking
// call cannot honour a deadline. So all_reduce runs as rounds of
// MPI_Isend/MPI_Irecv on the communicator's internal duplicate, polled like
// every other request, with the arithmetic done here between rounds:
//   - recursive doubling (log2 n rounds, whole buffer) when n is a power of
//     two and the message is at most 64 KiB, or has fewer elements than
//     ranks;
//   - otherwise a ring: n-1 reduce-scatter rounds then n-1 all-gather
//     rounds over n chunks (bandwidth-optimal, as MPI's own large-message
//     algorithm), each round cut into messages of at most 4 MiB;
//   - MPI_Iallreduce for the rest (fewer elements than ranks, n not a power
//     of two).
// Every element's reduction happens in one fixed order and the result is
// copied from there, so all ranks hold the same bits (the ops commute).
// Several all_reduces may be in flight on one communicator, and ranks may
// advance them in different orders (one polls them all, another waits for
// the last first), so each one's messages carry its own tag: its number
// among the communicator's all_reduces, the same on every rank since
// collectives start in the same order everywhere. MPI guarantees tags up to
// 32767, so the tags wrap: a tag is taken again only after 32768 more
// all_reduces have started on the communicator.
constexpr uint32_t kStepTags = 32768;
constexpr size_t kDoublingMaxBytes = 64 * 1024;
constexpr size_t kSegmentBytes = size_t{4} << 20;
constexpr size_t kEagerBytes = 2048;
constexpr size_t kPiecesMaxBytes = 16 * 1024;

template <class T> void combine(T* dst, const T* src, size_t n, int32_t op) {
  switch (op) {
    case TSR_REDUCE_PROD: for (size_t i = 0; i < n; ++i) dst[i] = static_cast<T>(dst[i] * src[i]); break;
    case TSR_REDUCE_MIN: for (size_t i = 0; i < n; ++i) dst[i] = src[i] < dst[i] ? src[i] : dst[i]; break;
    case TSR_REDUCE_MAX: for (size_t i = 0; i < n; ++i) dst[i] = src[i] > dst[i] ? src[i] : dst[i]; break;
    default: for (size_t i = 0; i < n; ++i) dst[i] = static_cast<T>(dst[i] + src[i]); break;  // SUM, AVG
  }
}

// dst[i] = dst[i] (op) src[i]; halves are float32 here, bool uint8 with MAX/MIN.
void combine(void* dst, const void* src, size_t n, int32_t dtype, int32_t op) {
  switch (dtype) {
    case TSR_FLOAT32: combine(static_cast<float*>(dst), static_cast<const float*>(src), n, op); break;
    case TSR_FLOAT64: combine(static_cast<double*>(dst), static_cast<const double*>(src), n, op); break;
    case TSR_INT8: combine(static_cast<int8_t*>(dst), static_cast<const int8_t*>(src), n, op); break;
    case TSR_UINT8:
    case TSR_BOOL: combine(static_cast<uint8_t*>(dst), static_cast<const uint8_t*>(src), n, op); break;
    case TSR_INT16: combine(static_cast<int16_t*>(dst), static_cast<const int16_t*>(src), n, op); break;
    case TSR_INT32: combine(static_cast<int32_t*>(dst), static_cast<const int32_t*>(src), n, op); break;
    case TSR_INT64: combine(static_cast<int64_t*>(dst), static_cast<const int64_t*>(src), n, op); break;
    default: break;
  }
}

// The rounds for `count` elements of `item` bytes; false: use MPI_Iallreduce.
bool plan_all_reduce(Request& r, size_t count, size_t item) {
  const int n = r.comm->size, rank = r.comm->rank;
  const bool power_of_two = (n & (n - 1)) == 0;
  if (power_of_two && (count * item <= kDoublingMaxBytes || count < static_cast<size_t>(n))) {
    for (int k = 1; k < n; k <<= 1) {
      Step s;
      s.send_peer = s.recv_peer = rank ^ k;
      s.send_count = s.recv_count = count;
      s.reduce = true;
      r.steps.push_back(s);
    }
    r.scratch.reserve(count * item);
    return true;
  }
  if (count < static_cast<size_t>(n)) return false;
  const auto bound = [&](int i) { return count * static_cast<size_t>(i) / static_cast<size_t>(n); };
  const auto chunk = [&](int c, size_t& offset, size_t& len) {
    c = ((c % n) + n) % n;
    offset = bound(c);
    len = bound(c + 1) - offset;
  };
  // Rounds move at most kSegmentBytes each: Open MPI's shared-memory
  // transport slows down tenfold on single messages above ~16 MiB here.
  const size_t segment = std::max<size_t>(kSegmentBytes / item, 1);
  size_t largest = 0;
  for (int phase = 0; phase < 2; ++phase)
    for (int s = 0; s < n - 1; ++s) {
      Step st;
      st.send_peer = (rank + 1) % n;
      st.recv_peer = (rank + n - 1) % n;
      st.reduce = phase == 0;
      chunk(phase == 0 ? rank - s : rank + 1 - s, st.send_offset, st.send_count);
      chunk(phase == 0 ? rank - s - 1 : rank - s, st.recv_offset, st.recv_count);
      // Both sides split alike, so each part meets its peer's part.
      const size_t parts = (std::max(st.send_count, st.recv_count) + segment - 1) / segment;
      for (size_t p = 0; p < std::max<size_t>(parts, 1); ++p) {
        Step part = st;
        const size_t k = std::max<size_t>(parts, 1);
        part.send_offset = st.send_offset + st.send_count * p / k;
        part.send_count = st.send_count * (p + 1) / k - st.send_count * p / k;
        part.recv_offset = st.recv_offset + st.recv_count * p / k;
        part.recv_count = st.recv_count * (p + 1) / k - st.recv_count * p / k;
        largest = std::max(largest, part.recv_count);
        r.steps.push_back(part);
      }
    }
  r.scratch.reserve(largest * item);
  return true;
}

// How many messages carry `count` elements in one round: pieces of at most
// kEagerBytes up to 16 KiB (Open MPI's shared-memory transport sends those
// eagerly; one larger message takes a rendezvous round trip first), one
// message above, where the pieces' per-message cost outgrows that round
// trip (2 ranks, 2026-12-01: 64 KiB took 49 us in 32 pieces, 25-30 us in
// one message, bare MPI_Allreduce 29 us). A function of the count alone,
// so that the sender and the receiver of a range cut it alike.
size_t pieces_of(size_t count, size_t item) {
  const size_t bytes = count * item;
  if (bytes <= kEagerBytes || bytes > kPiecesMaxBytes) return 1;
  return (bytes + kEagerBytes - 1) / kEagerBytes;
}

// Posts round r.next_step (the caller holds the world's mutex).
void post_step(Request& r) {
  const Step& s = r.steps[r.next_step];
  const size_t item = tsr_dtype_size(r.reduce_dtype);
  char* recv_to = s.reduce ? r.scratch.data() : r.buffer + s.recv_offset * item;
  char* send_from = r.buffer + s.send_offset * item;
  const size_t recv_pieces = pieces_of(s.recv_count, item), send_pieces = pieces_of(s.send_count, item);
  r.requests.assign(recv_pieces + send_pieces, MPI_REQUEST_NULL);
  int rc = MPI_SUCCESS;
  for (size_t p = 0; p < recv_pieces && rc == MPI_SUCCESS; ++p) {
    const size_t from = s.recv_count * p / recv_pieces, to = s.recv_count * (p + 1) / recv_pieces;
    rc = MPI_Irecv(recv_to + from * item, static_cast<int>(to - from), r.datatype, s.recv_peer, r.step_tag,
                   r.comm->internal, &r.requests[p]);
  }
  for (size_t p = 0; p < send_pieces && rc == MPI_SUCCESS; ++p) {
    const size_t from = s.send_count * p / send_pieces, to = s.send_count * (p + 1) / send_pieces;
    rc = MPI_Isend(send_from + from * item, static_cast<int>(to - from), r.datatype, s.send_peer, r.step_tag,
                   r.comm->internal, &r.requests[recv_pieces + p]);
  }
  if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, "mpi: " + who(*r.comm, r.collective) + ": " + mpi_error_text(rc));
}

// Whom a request that timed out still waits for, as far as it knows: the
// peer of a send or recv, or of the pending half of an all_reduce round;
// MPI's own collectives do not say which rank is missing.
std::string waiting_for(const Request& r) {
  if (r.peer >= 0) return "waiting for rank " + std::to_string(r.peer);
  if (r.next_step >= r.steps.size()) return "with a peer rank missing";
  const Step& s = r.steps[r.next_step];
  const std::string round = " in round " + std::to_string(r.next_step + 1) + " of " + std::to_string(r.steps.size());
  const size_t recv_pieces = r.requests.size() - pieces_of(s.send_count, tsr_dtype_size(r.reduce_dtype));
  for (size_t i = 0; i < r.requests.size(); ++i) {
    int done = 1;
    MPI_Status status;
    if (r.requests[i] != MPI_REQUEST_NULL) MPI_Request_get_status(r.requests[i], &done, &status);
    if (done) continue;
    return i < recv_pieces ? "waiting for rank " + std::to_string(s.recv_peer) + " to send its part" + round
                           : "waiting for rank " + std::to_string(s.send_peer) + " to receive" + round;
  }
  return "waiting" + round;
}

// After round r.next_step completed: its arithmetic.
void finish_step(Request& r) {
  const Step& s = r.steps[r.next_step];
  if (s.reduce)
    combine(r.buffer + s.recv_offset * tsr_dtype_size(r.reduce_dtype), r.scratch.data(), s.recv_count,
            r.reduce_dtype, r.reduce_op);
}

// Starts the MPI operation; fills r.requests.
void post(Request& r, const tsr_comm_args& a) {
  Comm& c = *r.comm;
  const std::string at = who(c, a.collective);
  const tsr_tensor_desc* in = a.input;
  const tsr_tensor_desc* out = a.output;
  const bool root = c.rank == a.root;
  const backend::CommOperands operands = backend::check_comm_operands(a, c.rank, c.size, "mpi: " + at);
  const int32_t dtype = operands.dtype;
  MPI_Datatype dt = datatype_of(dtype);
  const bool half_reduce = reduces(a.collective) && is_half(dtype);
  MPI_Op op = MPI_SUM;
  if (reduces(a.collective)) {
    if (a.op == TSR_REDUCE_AVG && dtype != TSR_FLOAT32 && dtype != TSR_FLOAT64 && !is_half(dtype))
      fail(TSR_ERR_TYPE, at + ": avg needs a floating dtype, got " + tsr_dtype_name(dtype));
    op = op_of(a.op, dtype);
    r.divide = a.op == TSR_REDUCE_AVG;
  }
  void* in_ptr = in ? in->data : nullptr;
  void* out_ptr = out ? out->data : nullptr;
  const int64_t n_in = operands.n_in, n_out = operands.n_out;
  r.out = out_ptr;
  r.out_dtype = dtype;
  r.out_count = static_cast<size_t>(n_out);
  if (a.collective == TSR_COLL_REDUCE && !root) r.out_count = 0;
  if (half_reduce) {
    // Note [Half precision over MPI]: reduce float32 copies.
    dt = MPI_FLOAT;
    r.half_dtype = dtype;
    r.staged_in.resize(static_cast<size_t>(n_in));
    to_float(in_ptr, r.staged_in.data(), r.staged_in.size(), dtype);
    r.staged_out.resize(r.out_count);
    in_ptr = r.staged_in.data();
    out_ptr = r.out_count ? r.staged_out.data() : nullptr;
  }
  const bool in_place = in_ptr != nullptr && in_ptr == out_ptr;
  r.requests.assign(1, MPI_REQUEST_NULL);
  MPI_Request* req = r.requests.data();
  int rc = MPI_SUCCESS;
  // Open MPI wants a non-NULL buffer even for zero elements.
  static char empty_buffer[8];
  if (in_ptr == nullptr && in) in_ptr = empty_buffer;
  if (out_ptr == nullptr && out && r.out_count == 0 && !(a.collective == TSR_COLL_REDUCE && !root)) out_ptr = empty_buffer;
  switch (a.collective) {
    case TSR_COLL_ALL_REDUCE: {
      const int n = count_of(n_out, at);
      const size_t item = half_reduce ? sizeof(float) : tsr_dtype_size(dtype);
      if (c.size > 1 && n > 0 && plan_all_reduce(r, static_cast<size_t>(n), item)) {
        // Note [All-reduce over point to point]: the result buffer starts as
        // this rank's input.
        if (!in_place) std::memcpy(out_ptr, in_ptr, static_cast<size_t>(n) * item);
        r.buffer = static_cast<char*>(out_ptr);
        r.datatype = dt;
        r.reduce_dtype = half_reduce ? TSR_FLOAT32 : dtype;
        r.reduce_op = dtype == TSR_BOOL ? (op == MPI_MAX ? TSR_REDUCE_MAX : TSR_REDUCE_MIN) : a.op;
        r.next_step = 0;
        r.step_tag = static_cast<int>(c.step_sequence++ % kStepTags);
        post_step(r);
        break;
      }
      rc = MPI_Iallreduce(in_place ? MPI_IN_PLACE : in_ptr, out_ptr, n, dt, op, c.comm, req);
      break;
    }
    case TSR_COLL_BROADCAST: {
      if (root && in_ptr != out_ptr && n_out > 0) std::memcpy(out_ptr, in_ptr, static_cast<size_t>(n_out) * tsr_dtype_size(dtype));
      rc = MPI_Ibcast(out_ptr, count_of(n_out, at), dt, a.root, c.comm, req);
      break;
    }
    case TSR_COLL_REDUCE: {
      const int n = count_of(n_in, at);
      rc = MPI_Ireduce(root && in_place ? MPI_IN_PLACE : in_ptr, root ? out_ptr : nullptr, n, dt, op, a.root, c.comm,
                       req);
      break;
    }
    case TSR_COLL_ALL_GATHER:
      rc = MPI_Iallgather(in_ptr, count_of(n_in, at), dt, out_ptr, count_of(n_in, at), dt, c.comm, req);
      break;
    case TSR_COLL_REDUCE_SCATTER:
      rc = MPI_Ireduce_scatter_block(in_ptr, out_ptr, count_of(n_out, at), dt, op, c.comm, req);
      break;
    case TSR_COLL_ALL_TO_ALL:
      rc = MPI_Ialltoall(in_ptr, count_of(n_in / c.size, at), dt, out_ptr, count_of(n_in / c.size, at), dt, c.comm,
                         req);
      break;
    case TSR_COLL_SEND:
      rc = MPI_Isend(in_ptr, count_of(n_in, at), dt, a.root, a.tag, c.comm, req);
      break;
    case TSR_COLL_RECV:
      rc = MPI_Irecv(out_ptr, count_of(n_out, at), dt, a.root, a.tag, c.comm, req);
      break;
    case TSR_COLL_BARRIER: rc = MPI_Ibarrier(c.comm, req); break;
  }
  if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, "mpi: " + at + ": " + mpi_error_text(rc));
}

// ---- Note [Reused requests] ---------------------------------------------------
// A request owns what its operation needs beyond the caller's buffers: the
// MPI requests, the rounds of Note [All-reduce over point to point], the
// scratch a reducing round receives into, the float32 copies of halves. A
// training loop runs the same collectives on the same communicator again
// and again, so a request that completed goes back to its communicator
// (Comm::spare, up to kSpareRequests of them) with that memory, and the
// next start takes it: no allocation, no fresh pages to fault in, and the
// scratch stays in cache. A request that failed or was abandoned is
// deleted (its MPI requests may still be pending).
constexpr size_t kSpareRequests = 4;

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

}  // namespace

tsr_status poll_until(Context& ctx, Request& r, bool block) {
  if (r.completed) {
    if (r.status != TSR_OK) backend::report_error(ctx.host, r.status, r.message.c_str());
    return r.status;
  }
  World& w = world_state();
  const auto finish_with = [&](tsr_status st, std::string message) {
    r.completed = true;
    r.status = st;
    r.message = std::move(message);
    if (st != TSR_OK) backend::report_error(ctx.host, st, r.message.c_str());
    return st;
  };
  // Busy polling first (a small message completes in microseconds), then
  // yielding the core (ranks may outnumber cores: --oversubscribe).
  for (unsigned spins = 0;; ++spins) {
    int flag = 0;
    int rc;
    {
      std::lock_guard lock(w.mutex);
      rc = MPI_Testall(static_cast<int>(r.requests.size()), r.requests.data(), &flag, MPI_STATUSES_IGNORE);
    }
    if (rc != MPI_SUCCESS) {
      std::string m = "mpi: " + who(*r.comm, r.collective) + ": a peer failed: " + mpi_error_text(rc);
      mark_broken(m);
      return finish_with(TSR_ERR_DEVICE, m);
    }
    if (flag) {
      try {
        // Note [All-reduce over point to point]: the next round, if any.
        if (r.next_step < r.steps.size()) {
          finish_step(r);
          if (++r.next_step < r.steps.size()) {
            std::lock_guard lock(w.mutex);
            post_step(r);
            continue;
          }
        }
        finish(r);
      } catch (const backend::Error& e) {
        mark_broken(e.what());
        return finish_with(e.status(), e.what());
      } catch (...) {
        return finish_with(TSR_ERR_INTERNAL, "mpi: " + who(*r.comm, r.collective) + ": finishing failed");
      }
      return finish_with(TSR_OK, "");
    }
    if (Clock::now() >= r.deadline) {
      std::string m = who(*r.comm, r.collective) + ": timed out after " + seconds_text(r.timeout_s) + " s " +
                      waiting_for(r) + " (the communicator is now broken)";
      mark_broken(m);
      return finish_with(TSR_ERR_TIMEOUT, m);
    }
    if (!block) return TSR_OK;
    if (spins > 2000) sched_yield();
  }
}

tsr_status start(void* ctx, tsr_comm_handle comm, const tsr_comm_args* args, tsr_comm_request* out) {
  Context& c = backend::comm_context_of(ctx);
  return guarded(c.host, "mpi", [&] {
    backend::check_start_args(c, comm, args, out);
    World& w = world_state();
    std::lock_guard lock(w.mutex);
    Comm& owner = *static_cast<Comm*>(comm);
    // Note [Reused requests]: a spare one when there is one.
    std::unique_ptr<Request> r;
    if (!owner.spare.empty()) {
      r = std::move(owner.spare.back());
      owner.spare.pop_back();
    } else {
      r = std::make_unique<Request>();
    }
    r->comm = &owner;
    r->collective = args->collective;
    r->timeout_s = args->timeout_s > 0 ? args->timeout_s : 300.0;
    r->deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(r->timeout_s));
    if (w.broken.load())
      fail(TSR_ERR_DEVICE, "mpi: " + who(*r->comm, args->collective) +
                               ": the communicator is broken by an earlier failure: " + w.broken_reason);
    if (args->collective == TSR_COLL_SEND || args->collective == TSR_COLL_RECV) r->peer = args->root;
    post(*r, *args);
    *out = r.release();
  });
}

tsr_status wait(void* ctx, tsr_comm_request request) {
  Context& c = backend::comm_context_of(ctx);
  return poll_until(c, *static_cast<Request*>(request), true);
}

tsr_status test(void* ctx, tsr_comm_request request, int32_t* done) {
  Context& c = backend::comm_context_of(ctx);
  Request& r = *static_cast<Request*>(request);
  const tsr_status st = poll_until(c, r, false);
  if (done != nullptr) *done = r.completed ? 1 : 0;
  return st;
}

void request_free(void*, tsr_comm_request request) {
  Request* r = static_cast<Request*>(request);
  if (r == nullptr) return;
  // MPI forbids freeing a pending collective's request: one that did not
  // complete (a timeout, or abandoned here) breaks the world, so that no
  // MPI call runs again and nothing writes into the freed buffers.
  if (!r->completed || r->status != TSR_OK) {
    mark_broken("mpi: " + who(*r->comm, r->collective) + ": abandoned before it completed");
    delete r;
    return;
  }
  // Note [Reused requests]: kept for the communicator's next operation.
  std::unique_ptr<Request> keep(r);
  Comm& owner = *keep->comm;
  keep->reset();
  std::lock_guard lock(world_state().mutex);
  if (owner.spare.size() < kSpareRequests) owner.spare.push_back(std::move(keep));
}

}  // namespace tessera::mpi
