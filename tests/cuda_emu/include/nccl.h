/* SPDX-License-Identifier: Apache-2.0 */
// NCCL's API as nccl.so uses it, emulated over MPI for nccl_emu.so
// (tests/distributed): the plugin's own sources, built against this header
// and the CUDA emulator, run their whole path (bootstrap, the lazy
// communicator, dtypes, staging, events, polling, deadlines, abort) in
// processes under mpirun where no GPU is. Only what nccl.so calls is here.
//
// Note [Emulated NCCL]
//   - A communicator is its members' world ranks, and everything moves as
//     MPI point-to-point messages on MPI_COMM_WORLD under a tag of its own
//     (kOpTags up: 65536 per rank 0, by the id's serial). Its ranks find
//     each other through the unique id: rank 0's world rank and a serial
//     number. Every member sends its rank to rank 0 (tags from kJoinTag up),
//     which answers each with the member list. Nothing blocks:
//     ncclCommGetAsyncError answers ncclInProgress until the list is
//     everywhere, as a non-blocking NCCL communicator does. (No MPI
//     communicator is made: MPI_Comm_create_group blocks until every
//     member is in it, and two ranks making two communicators at once
//     could each wait in a different one.)
//   - An operation queues a step on its CUDA stream (Note [Emulated
//     streams] in cuda_runtime.h): its first run posts its messages, later
//     runs test them, and the last one computes: every rank sends what the
//     operation needs straight to the ranks that need it (all_reduce: the
//     whole buffer to everyone), and reductions run in rank order, so every
//     rank holds the same bits. Operations start in stream order, and a
//     peer that never comes leaves cudaEventQuery at cudaErrorNotReady, as
//     a GPU's kernel would spin.
//   - float16 and bfloat16 reduce in float32 (MPI has neither), rounded
//     once; ncclAvg is a sum divided by the size. Send and recv match in
//     order per peer, as NCCL's do.
//   - ncclCommAbort makes every pending step finish at once without
//     touching memory again (a GPU's aborted kernels stop); the MPI
//     requests it leaves are the broken job's.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cuda_runtime.h"
#include "tessera/half.h"

typedef enum {
  ncclSuccess = 0,
  ncclUnhandledCudaError = 1,
  ncclSystemError = 2,
  ncclInternalError = 3,
  ncclInvalidArgument = 4,
  ncclInvalidUsage = 5,
  ncclRemoteError = 6,
  ncclInProgress = 7,
  ncclNumResults = 8
} ncclResult_t;

typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 } ncclRedOp_t;

typedef enum {
  ncclInt8 = 0,
  ncclUint8 = 1,
  ncclInt32 = 2,
  ncclUint32 = 3,
  ncclInt64 = 4,
  ncclUint64 = 5,
  ncclFloat16 = 6,
  ncclFloat32 = 7,
  ncclFloat64 = 8,
  ncclBfloat16 = 9
} ncclDataType_t;

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
  char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef struct {
  int blocking;
} ncclConfig_t;
#define NCCL_CONFIG_INITIALIZER {1}

namespace tessera_nccl_emu {

constexpr int kJoinTag = 30000;  // + serial % 1000: a member's rank to rank 0; + 1000: the list back
constexpr int kOpTags = 65536;   // a communicator's operations: kOpTags * (1 + rank 0's world rank) + serial

struct Id {
  uint32_t magic;
  int32_t root_world_rank;
  uint32_t serial;
};
constexpr uint32_t kMagic = 0x54534e45;  // "TSNE"

inline uint32_t next_serial() {
  static std::atomic<uint32_t> serial{0};
  return serial++;
}

inline thread_local std::string last_error;

}  // namespace tessera_nccl_emu

struct ncclComm {
  int rank = 0, size = 1, world_rank = 0;
  tessera_nccl_emu::Id id{};
  int tag = 0;                      // its operations' messages
  // Joining (Note [Emulated NCCL]).
  bool joined = false;
  bool list_sent = false;
  std::vector<MPI_Request> join;
  std::vector<int> members;         // world ranks by communicator rank
  std::vector<int> join_in;         // rank 0: each member's (rank, world rank)
  int my_entry[2] = {0, 0};
  std::atomic<bool> aborted{false};
  ncclResult_t async = ncclSuccess;
};
typedef ncclComm* ncclComm_t;

inline const char* ncclGetErrorString(ncclResult_t r) {
  switch (r) {
    case ncclSuccess: return "no error";
    case ncclSystemError: return "unhandled system error (emulated NCCL: an MPI call failed)";
    case ncclInternalError: return "internal error (emulated NCCL)";
    case ncclInvalidArgument: return "invalid argument (emulated NCCL)";
    case ncclInvalidUsage: return "invalid usage (emulated NCCL)";
    case ncclRemoteError: return "remote process exited or there was a network error (emulated NCCL)";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result (emulated NCCL)";
  }
}
inline const char* ncclGetLastError(ncclComm_t) { return tessera_nccl_emu::last_error.c_str(); }

inline ncclResult_t ncclGetUniqueId(ncclUniqueId* out) {
  std::memset(out, 0, sizeof *out);
  tessera_nccl_emu::Id id{tessera_nccl_emu::kMagic, 0, tessera_nccl_emu::next_serial()};
  MPI_Comm_rank(MPI_COMM_WORLD, &id.root_world_rank);
  std::memcpy(out->internal, &id, sizeof id);
  return ncclSuccess;
}

namespace tessera_nccl_emu {

inline ncclResult_t failed(ncclComm* c, ncclResult_t r, const std::string& what) {
  last_error = what;
  if (c != nullptr) c->async = r;
  return r;
}

// Advances a joining communicator; ncclSuccess once every member has the list.
inline ncclResult_t progress_join(ncclComm* c) {
  if (c->joined) return c->async;
  int flag = 0;
  if (MPI_Testall(static_cast<int>(c->join.size()), c->join.data(), &flag, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
    return failed(c, ncclSystemError, "emulated NCCL: joining the communicator failed in MPI");
  if (!flag) return ncclInProgress;
  if (c->rank == 0 && !c->list_sent) {
    // Every member has sent its rank: the list, to each of them.
    c->members.assign(static_cast<size_t>(c->size), -1);
    c->members[0] = c->world_rank;
    for (int k = 0; k + 1 < c->size; ++k) {
      const int r = c->join_in[static_cast<size_t>(2 * k)], w = c->join_in[static_cast<size_t>(2 * k + 1)];
      if (r <= 0 || r >= c->size || c->members[static_cast<size_t>(r)] != -1)
        return failed(c, ncclInvalidUsage, "emulated NCCL: rank " + std::to_string(r) + " joined twice or is out of range");
      c->members[static_cast<size_t>(r)] = w;
    }
    const int tag = kJoinTag + 1000 + static_cast<int>(c->id.serial % 1000);
    c->join.assign(static_cast<size_t>(c->size - 1), MPI_REQUEST_NULL);
    for (int r = 1; r < c->size; ++r)
      MPI_Isend(c->members.data(), c->size, MPI_INT, c->members[static_cast<size_t>(r)], tag, MPI_COMM_WORLD,
                &c->join[static_cast<size_t>(r - 1)]);
    c->list_sent = true;
    return ncclInProgress;
  }
  c->joined = true;
  return ncclSuccess;
}

inline size_t type_size(ncclDataType_t t) {
  switch (t) {
    case ncclInt8:
    case ncclUint8: return 1;
    case ncclFloat16:
    case ncclBfloat16: return 2;
    case ncclInt32:
    case ncclUint32:
    case ncclFloat32: return 4;
    default: return 8;
  }
}

inline bool is_half(ncclDataType_t t) { return t == ncclFloat16 || t == ncclBfloat16; }

// dst[i] = dst[i] op src[i] in T.
template <class T> void combine_as(void* dst, const void* src, size_t n, ncclRedOp_t op) {
  T* d = static_cast<T*>(dst);
  const T* s = static_cast<const T*>(src);
  for (size_t i = 0; i < n; ++i) {
    switch (op) {
      case ncclProd: d[i] = static_cast<T>(d[i] * s[i]); break;
      case ncclMax: d[i] = s[i] > d[i] ? s[i] : d[i]; break;
      case ncclMin: d[i] = s[i] < d[i] ? s[i] : d[i]; break;
      default: d[i] = static_cast<T>(d[i] + s[i]); break;  // ncclSum, ncclAvg
    }
  }
}

// The elements a reduction works in: float32 for the halves.
inline size_t work_size(ncclDataType_t t) { return is_half(t) ? sizeof(float) : type_size(t); }

inline void to_work(const void* src, void* dst, size_t n, ncclDataType_t t) {
  if (!is_half(t)) {
    std::memcpy(dst, src, n * type_size(t));
    return;
  }
  const auto* h = static_cast<const uint16_t*>(src);
  auto* f = static_cast<float*>(dst);
  for (size_t i = 0; i < n; ++i) f[i] = t == ncclFloat16 ? tsr_float16_to_float(h[i]) : tsr_bfloat16_to_float(h[i]);
}

inline void from_work(const void* src, void* dst, size_t n, ncclDataType_t t) {
  if (!is_half(t)) {
    std::memcpy(dst, src, n * type_size(t));
    return;
  }
  const auto* f = static_cast<const float*>(src);
  auto* h = static_cast<uint16_t*>(dst);
  for (size_t i = 0; i < n; ++i) h[i] = t == ncclFloat16 ? tsr_float_to_float16(f[i]) : tsr_float_to_bfloat16(f[i]);
}

inline void combine(void* dst, const void* src, size_t n, ncclDataType_t t, ncclRedOp_t op) {
  switch (t) {
    case ncclInt8: combine_as<int8_t>(dst, src, n, op); break;
    case ncclUint8: combine_as<uint8_t>(dst, src, n, op); break;
    case ncclInt32: combine_as<int32_t>(dst, src, n, op); break;
    case ncclUint32: combine_as<uint32_t>(dst, src, n, op); break;
    case ncclInt64: combine_as<int64_t>(dst, src, n, op); break;
    case ncclUint64: combine_as<uint64_t>(dst, src, n, op); break;
    case ncclFloat64: combine_as<double>(dst, src, n, op); break;
    default: combine_as<float>(dst, src, n, op); break;  // float32, and the halves' work type
  }
}

inline void divide(void* data, size_t n, ncclDataType_t t, int by) {
  if (t == ncclFloat64) {
    for (size_t i = 0; i < n; ++i) static_cast<double*>(data)[i] /= static_cast<double>(by);
  } else {
    for (size_t i = 0; i < n; ++i) static_cast<float*>(data)[i] /= static_cast<float>(by);
  }
}

// One queued operation: its messages, and what to compute once they are in.
struct Op {
  ncclComm* comm = nullptr;
  std::vector<MPI_Request> requests;
  std::vector<std::vector<char>> inbox;  // one buffer per peer rank, where the operation receives
  bool started = false;
  std::function<void(Op&)> begin;  // posts the messages
  std::function<void(Op&)> end;    // after they are in: the arithmetic, the copies
  void send(const void* data, size_t bytes, int to) {
    requests.push_back(MPI_REQUEST_NULL);
    MPI_Isend(data, static_cast<int>(bytes), MPI_BYTE, comm->members[static_cast<size_t>(to)], comm->tag, MPI_COMM_WORLD,
              &requests.back());
  }
  void recv(void* data, size_t bytes, int from) {
    requests.push_back(MPI_REQUEST_NULL);
    MPI_Irecv(data, static_cast<int>(bytes), MPI_BYTE, comm->members[static_cast<size_t>(from)], comm->tag,
              MPI_COMM_WORLD, &requests.back());
  }
  // Receives `bytes` from every other rank into inbox[rank].
  void recv_from_all(size_t bytes) {
    inbox.assign(static_cast<size_t>(comm->size), {});
    for (int r = 0; r < comm->size; ++r)
      if (r != comm->rank) {
        inbox[static_cast<size_t>(r)].resize(bytes);
        recv(inbox[static_cast<size_t>(r)].data(), bytes, r);
      }
  }
};

// Queues `op` on `stream` as a polled step (Note [Emulated NCCL]).
inline ncclResult_t submit(ncclComm* c, cudaStream_t stream, std::shared_ptr<Op> op) {
  if (c == nullptr || !c->joined) return failed(c, ncclInvalidUsage, "emulated NCCL: the communicator is not ready");
  op->comm = c;
  tessera_cuda_emu::enqueue_polled(stream, [op] {
    ncclComm* comm = op->comm;
    if (comm->aborted.load()) return true;  // stopped: touches nothing again
    if (!op->started) {
      op->started = true;
      op->begin(*op);
    }
    int flag = 0;
    if (MPI_Testall(static_cast<int>(op->requests.size()), op->requests.data(), &flag, MPI_STATUSES_IGNORE) !=
        MPI_SUCCESS) {
      failed(comm, ncclRemoteError, "emulated NCCL: a peer failed");
      return true;
    }
    if (!flag) return false;
    if (op->end) op->end(*op);
    return true;
  });
  return ncclSuccess;
}

// The reduction of `count` elements from every rank's `parts` (this rank's
// own, then inbox[r] for the others), in rank order, into `out`.
inline void reduce_parts(const Op& o, const void* own, size_t offset_bytes, size_t count, ncclDataType_t type,
                         ncclRedOp_t op, void* out) {
  const size_t w = work_size(type);
  std::vector<char> acc(count * w), part(count * w);
  for (int r = 0; r < o.comm->size; ++r) {
    const char* src = r == o.comm->rank ? static_cast<const char*>(own) : o.inbox[static_cast<size_t>(r)].data() + offset_bytes;
    to_work(src, r == 0 ? acc.data() : part.data(), count, type);
    if (r > 0) combine(acc.data(), part.data(), count, type, op);
  }
  if (op == ncclAvg) divide(acc.data(), count, is_half(type) ? ncclFloat32 : type, o.comm->size);
  from_work(acc.data(), out, count, type);
}

}  // namespace tessera_nccl_emu

inline ncclResult_t ncclCommInitRankConfig(ncclComm_t* out, int nranks, ncclUniqueId id_bytes, int rank, ncclConfig_t*) {
  using namespace tessera_nccl_emu;
  Id id;
  std::memcpy(&id, id_bytes.internal, sizeof id);
  if (id.magic != kMagic) return failed(nullptr, ncclInvalidArgument, "emulated NCCL: not a unique id of ncclGetUniqueId");
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return failed(nullptr, ncclInvalidArgument, "emulated NCCL: rank " + std::to_string(rank) + " of " + std::to_string(nranks));
  auto* c = new ncclComm;
  c->rank = rank;
  c->size = nranks;
  c->id = id;
  c->tag = kOpTags * (1 + id.root_world_rank) + static_cast<int>(id.serial % kOpTags);
  MPI_Comm_rank(MPI_COMM_WORLD, &c->world_rank);
  const int tag = kJoinTag + static_cast<int>(id.serial % 1000);
  if (rank == 0) {
    c->join_in.assign(static_cast<size_t>(2 * (nranks - 1)), 0);
    c->join.assign(static_cast<size_t>(nranks - 1), MPI_REQUEST_NULL);
    for (int k = 0; k + 1 < nranks; ++k)
      MPI_Irecv(&c->join_in[static_cast<size_t>(2 * k)], 2, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD,
                &c->join[static_cast<size_t>(k)]);
  } else {
    c->my_entry[0] = rank;
    c->my_entry[1] = c->world_rank;
    c->members.assign(static_cast<size_t>(nranks), -1);
    c->join.assign(2, MPI_REQUEST_NULL);
    c->list_sent = true;  // not rank 0's business here
    MPI_Isend(c->my_entry, 2, MPI_INT, id.root_world_rank, tag, MPI_COMM_WORLD, &c->join[0]);
    MPI_Irecv(c->members.data(), nranks, MPI_INT, id.root_world_rank, kJoinTag + 1000 + static_cast<int>(id.serial % 1000),
              MPI_COMM_WORLD, &c->join[1]);
  }
  *out = c;
  return ncclInProgress;
}

inline ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t* state) {
  if (comm == nullptr) return ncclInvalidArgument;
  *state = comm->joined ? comm->async : tessera_nccl_emu::progress_join(comm);
  return ncclSuccess;
}

inline ncclResult_t ncclCommAbort(ncclComm_t comm) {
  if (comm == nullptr) return ncclSuccess;
  // Its steps still queued on streams hold it: it stays (aborted), as the
  // broken job's MPI requests do.
  comm->aborted = true;
  return ncclSuccess;
}

// Every operation of a communicator has finished when its stream's steps
// have: nothing is left to flush.
inline ncclResult_t ncclCommFinalize(ncclComm_t comm) { return comm == nullptr ? ncclInvalidArgument : ncclSuccess; }

inline ncclResult_t ncclCommDestroy(ncclComm_t comm) {
  delete comm;
  return ncclSuccess;
}

inline ncclResult_t ncclAllReduce(const void* send, void* recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
                                  ncclComm_t comm, cudaStream_t stream) {
  using namespace tessera_nccl_emu;
  auto o = std::make_shared<Op>();
  const size_t bytes = count * type_size(type);
  o->begin = [=](Op& self) {
    self.recv_from_all(bytes);
    for (int r = 0; r < self.comm->size; ++r)
      if (r != self.comm->rank) self.send(send, bytes, r);
  };
  o->end = [=](Op& self) { reduce_parts(self, send, 0, count, type, op, recv); };
  return submit(comm, stream, o);
}

inline ncclResult_t ncclReduce(const void* send, void* recv, size_t count, ncclDataType_t type, ncclRedOp_t op, int root,
                               ncclComm_t comm, cudaStream_t stream) {
  using namespace tessera_nccl_emu;
  auto o = std::make_shared<Op>();
  const size_t bytes = count * type_size(type);
  o->begin = [=](Op& self) {
    if (self.comm->rank == root)
      self.recv_from_all(bytes);
    else
      self.send(send, bytes, root);
  };
  o->end = [=](Op& self) {
    if (self.comm->rank == root) reduce_parts(self, send, 0, count, type, op, recv);
  };
  return submit(comm, stream, o);
}

inline ncclResult_t ncclReduceScatter(const void* send, void* recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
                                      ncclComm_t comm, cudaStream_t stream) {
  using namespace tessera_nccl_emu;
  auto o = std::make_shared<Op>();
  const size_t bytes = count * type_size(type);
  o->begin = [=](Op& self) {
    self.recv_from_all(bytes);
    for (int r = 0; r < self.comm->size; ++r)
      if (r != self.comm->rank) self.send(static_cast<const char*>(send) + static_cast<size_t>(r) * bytes, bytes, r);
  };
  o->end = [=](Op& self) {
    reduce_parts(self, static_cast<const char*>(send) + static_cast<size_t>(self.comm->rank) * bytes, 0, count, type,
                 op, recv);
  };
  return submit(comm, stream, o);
}

inline ncclResult_t ncclBroadcast(const void* send, void* recv, size_t count, ncclDataType_t type, int root,
                                  ncclComm_t comm, cudaStream_t stream) {
  using namespace tessera_nccl_emu;
  auto o = std::make_shared<Op>();
  const size_t bytes = count * type_size(type);
  o->begin = [=](Op& self) {
    if (self.comm->rank != root) {
      self.recv(recv, bytes, root);
      return;
    }
    if (send != recv) std::memcpy(recv, send, bytes);
    for (int r = 0; r < self.comm->size; ++r)
      if (r != root) self.send(recv, bytes, r);
  };
  return submit(comm, stream, o);
}

inline ncclResult_t ncclAllGather(const void* send, void* recv, size_t count, ncclDataType_t type, ncclComm_t comm,
                                  cudaStream_t stream) {
  using namespace tessera_nccl_emu;
  auto o = std::make_shared<Op>();
  const size_t bytes = count * type_size(type);
  o->begin = [=](Op& self) {
    char* out = static_cast<char*>(recv);
    std::memmove(out + static_cast<size_t>(self.comm->rank) * bytes, send, bytes);
    for (int r = 0; r < self.comm->size; ++r)
      if (r != self.comm->rank) {
        self.recv(out + static_cast<size_t>(r) * bytes, bytes, r);
        self.send(send, bytes, r);
      }
  };
  return submit(comm, stream, o);
}

inline ncclResult_t ncclAlltoAll(const void* send, void* recv, size_t count, ncclDataType_t type, ncclComm_t comm,
                                 cudaStream_t stream) {
  using namespace tessera_nccl_emu;
  auto o = std::make_shared<Op>();
  const size_t bytes = count * type_size(type);
  o->begin = [=](Op& self) {
    const char* in = static_cast<const char*>(send);
    char* out = static_cast<char*>(recv);
    const size_t me = static_cast<size_t>(self.comm->rank);
    std::memcpy(out + me * bytes, in + me * bytes, bytes);
    for (int r = 0; r < self.comm->size; ++r)
      if (r != self.comm->rank) {
        self.recv(out + static_cast<size_t>(r) * bytes, bytes, r);
        self.send(in + static_cast<size_t>(r) * bytes, bytes, r);
      }
  };
  return submit(comm, stream, o);
}

inline ncclResult_t ncclSend(const void* send, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                             cudaStream_t stream) {
  using namespace tessera_nccl_emu;
  auto o = std::make_shared<Op>();
  const size_t bytes = count * type_size(type);
  o->begin = [=](Op& self) { self.send(send, bytes, peer); };
  return submit(comm, stream, o);
}

inline ncclResult_t ncclRecv(void* recv, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                             cudaStream_t stream) {
  using namespace tessera_nccl_emu;
  auto o = std::make_shared<Op>();
  const size_t bytes = count * type_size(type);
  o->begin = [=](Op& self) { self.recv(recv, bytes, peer); };
  return submit(comm, stream, o);
}
