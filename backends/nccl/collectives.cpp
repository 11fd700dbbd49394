// SPDX-License-Identifier: Apache-2.0
// nccl.so's collectives: every operation queues on the communicator's CUDA
// stream (NCCL's non-blocking communicator), an event is recorded after it,
// and wait and test poll that event and NCCL's asynchronous error against
// the deadline. Past it the NCCL communicator is aborted, which stops its
// kernels, and the world is broken: a TSR_ERR_TIMEOUT naming the rank and
// the collective, never a hang.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "comm_plugin.hpp"
#include "context.hpp"

namespace tessera::nccl {

namespace {


bool reduces(int32_t collective) {
  return collective == TSR_COLL_ALL_REDUCE || collective == TSR_COLL_REDUCE || collective == TSR_COLL_REDUCE_SCATTER;
}

bool floating(int32_t dtype) {
  return dtype == TSR_FLOAT32 || dtype == TSR_FLOAT64 || dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16 ||
         dtype == TSR_COMPLEX64 || dtype == TSR_COMPLEX128;
}

// Note [Dtypes over NCCL]
//   NCCL reduces int8, uint8, int32, uint32, int64, uint64 and the four
//   floating types natively. bool (0 or 1) travels as uint8: SUM and MAX
//   are a logical or (ncclMax), PROD and MIN a logical and (ncclMin).
//   complex64 and complex128 travel as twice as many float32 or float64:
//   SUM and AVG are those of the parts; PROD, MIN and MAX are refused.
//   int16 and uint16 move as bytes, but NCCL has no 16-bit integer to
//   reduce in: their reductions are refused, as PyTorch's NCCL backend
//   refuses them (cast to int32 first). AVG needs a floating dtype.
struct Wire {
  ncclDataType_t type;
  size_t per_element;  // NCCL elements per tensor element
};

Wire wire_of(int32_t dtype, bool reducing, int32_t op, const std::string& at) {
  const bool complex = dtype == TSR_COMPLEX64 || dtype == TSR_COMPLEX128;
  if (reducing && op == TSR_REDUCE_AVG && !floating(dtype))
    fail(TSR_ERR_TYPE, at + ": avg needs a floating dtype, got " + tsr_dtype_name(dtype));
  if (reducing && complex && op != TSR_REDUCE_SUM && op != TSR_REDUCE_AVG)
    fail(TSR_ERR_TYPE, at + ": " + tsr_reduce_op_name(op) + " is not defined on " + tsr_dtype_name(dtype) +
                           " (sum and avg are)");
  switch (dtype) {
    case TSR_FLOAT32: return {ncclFloat32, 1};
    case TSR_FLOAT64: return {ncclFloat64, 1};
    case TSR_FLOAT16: return {ncclFloat16, 1};
    case TSR_BFLOAT16: return {ncclBfloat16, 1};
    case TSR_INT8: return {ncclInt8, 1};
    case TSR_UINT8:
    case TSR_BOOL: return {ncclUint8, 1};
    case TSR_INT32: return {ncclInt32, 1};
    case TSR_UINT32: return {ncclUint32, 1};
    case TSR_INT64: return {ncclInt64, 1};
    case TSR_UINT64: return {ncclUint64, 1};
    case TSR_COMPLEX64: return {ncclFloat32, 2};
    case TSR_COMPLEX128: return {ncclFloat64, 2};
    case TSR_INT16:
    case TSR_UINT16:
      if (reducing)
        fail(TSR_ERR_UNSUPPORTED, at + ": NCCL cannot reduce " + tsr_dtype_name(dtype) +
                                      " (it has no 16-bit integer type); cast to int32 first");
      return {ncclUint8, 2};
    default: fail(TSR_ERR_TYPE, at + ": dtype " + tsr_dtype_name(dtype) + " has no NCCL type");
  }
}

ncclRedOp_t op_of(int32_t op, int32_t dtype) {
  if (dtype == TSR_BOOL) return (op == TSR_REDUCE_SUM || op == TSR_REDUCE_MAX) ? ncclMax : ncclMin;
  switch (op) {
    case TSR_REDUCE_PROD: return ncclProd;
    case TSR_REDUCE_MIN: return ncclMin;
    case TSR_REDUCE_MAX: return ncclMax;
    case TSR_REDUCE_AVG: return ncclAvg;
    default: return ncclSum;
  }
}

void cuda_check(cudaError_t e, const std::string& at, const char* what) {
  if (e != cudaSuccess) fail(TSR_ERR_DEVICE, at + ": " + what + ": " + cudaGetErrorString(e));
}

// The CUDA device of device memory: where CUDA says it lies, else the
// descriptor's index (Tessera's cuda:i is CUDA's device i where every
// device is usable, as on the machines cuda.so runs on).
int device_of(const tsr_tensor_desc& d) {
  cudaPointerAttributes attr{};
  if (d.data != nullptr && cudaPointerGetAttributes(&attr, d.data) == cudaSuccess && attr.type == cudaMemoryTypeDevice)
    return attr.device;
  cudaGetLastError();  // clear a failed query's sticky-free error
  return d.device.index;
}

// A non-blocking communicator may answer ncclInProgress while it queues:
// poll it to the end (bounded by the deadline).
void settle_call(Request& r, ncclResult_t res, const std::string& at, const char* what) {
  ncclResult_t state = res;
  if (res == ncclInProgress)
    poll_until(r.deadline, [&] {
      if (ncclCommGetAsyncError(r.engine->nccl, &state) != ncclSuccess) state = ncclInternalError;
      return state != ncclInProgress;
    });
  if (state == ncclInProgress) {
    const std::string m = at + ": " + what + " did not finish queuing before the deadline (the communicator is now broken)";
    mark_broken(m);
    fail(TSR_ERR_TIMEOUT, m);
  }
  if (state != ncclSuccess) fail(TSR_ERR_DEVICE, at + ": " + what + ": " + nccl_error_text(state));
}

// Note [Host memory through NCCL]
//   comm.h promises that a communicator reads host memory always (a config
//   may name nccl for the cpu too). NCCL reads device memory only, so host
//   buffers go through the communicator's device: the input is copied in
//   (from pageable memory CUDA stages at once), the result comes back into
//   pinned memory on the stream, and completion copies it into the
//   caller's buffer. A device-to-pageable copy would block the host until
//   the collective finished, beyond any deadline.
void stage_host(Request& r, const void*& send, void*& recv, size_t in_bytes, size_t out_bytes, bool in_place,
                const std::string& at) {
  cudaStream_t s = r.engine->stream;
  if (out_bytes > 0) {
    cuda_check(cudaMalloc(&r.device_out, out_bytes), at, "cudaMalloc");
    cuda_check(cudaHostAlloc(&r.pinned_out, out_bytes, cudaHostAllocDefault), at, "cudaHostAlloc");
    r.host_out = recv;
    r.out_bytes = out_bytes;
    recv = r.device_out;
  }
  if (in_bytes > 0) {
    void* into = in_place ? r.device_out : nullptr;
    if (into == nullptr) {
      cuda_check(cudaMalloc(&r.device_in, in_bytes), at, "cudaMalloc");
      into = r.device_in;
    }
    cuda_check(cudaMemcpyAsync(into, send, in_bytes, cudaMemcpyHostToDevice, s), at, "cudaMemcpyAsync");
    send = into;
  }
}

// Queues the operation on its engine's stream.
void enqueue(Request& r, const void* send, void* recv, const std::string& at) {
  const Comm& c = *r.comm;
  const Engine& e = *r.engine;
  const tsr_comm_args& a = r.args;
  const Wire wire{r.wire_type, r.per_element};
  const size_t count_in = r.n_in, count_out = r.n_out;
  const ncclRedOp_t op = op_of(a.op, a.input ? a.input->dtype : a.output->dtype);
  ncclResult_t res = ncclSuccess;
  const char* what = "";
  switch (a.collective) {
    case TSR_COLL_ALL_REDUCE:
      what = "ncclAllReduce";
      res = ncclAllReduce(send, recv, count_out * wire.per_element, wire.type, op, e.nccl, e.stream);
      break;
    case TSR_COLL_BROADCAST:
      what = "ncclBroadcast";
      res = ncclBroadcast(c.rank == a.root ? send : recv, recv, count_out * wire.per_element, wire.type, a.root, e.nccl,
                          e.stream);
      break;
    case TSR_COLL_REDUCE:
      what = "ncclReduce";  // recvbuff is read on the root only
      res = ncclReduce(send, c.rank == a.root ? recv : const_cast<void*>(send), count_in * wire.per_element, wire.type,
                       op, a.root, e.nccl, e.stream);
      break;
    case TSR_COLL_ALL_GATHER:
      what = "ncclAllGather";
      res = ncclAllGather(send, recv, count_in * wire.per_element, wire.type, e.nccl, e.stream);
      break;
    case TSR_COLL_REDUCE_SCATTER:
      what = "ncclReduceScatter";
      res = ncclReduceScatter(send, recv, count_out * wire.per_element, wire.type, op, e.nccl, e.stream);
      break;
    case TSR_COLL_ALL_TO_ALL:
      what = "ncclAlltoAll";
      res = ncclAlltoAll(send, recv, count_in / static_cast<size_t>(c.size) * wire.per_element, wire.type, e.nccl,
                         e.stream);
      break;
    case TSR_COLL_SEND:
      what = "ncclSend";
      res = ncclSend(send, count_in * wire.per_element, wire.type, 1, e.nccl, e.stream);  // the lane's receiver
      break;
    case TSR_COLL_RECV:
      what = "ncclRecv";
      res = ncclRecv(recv, count_out * wire.per_element, wire.type, 0, e.nccl, e.stream);  // the lane's sender
      break;
    default: fail(TSR_ERR_UNSUPPORTED, at + ": unknown collective");
  }
  settle_call(r, res, at, what);
}

// Queues r on its engine, which is ready: staging, the operation, the
// copy back, the event. The caller holds the world's mutex.
void enqueue_now(Request& r) {
  Comm& c = *r.comm;
  const tsr_comm_args& a = r.args;
  const std::string at = "nccl: " + who(c, a.collective);
  DeviceScope scope(r.engine->device);
  const void* send = a.input ? a.input->data : nullptr;
  void* recv = a.output ? a.output->data : nullptr;
  if (r.host) {
    const size_t item = tsr_dtype_size(a.input ? a.input->dtype : a.output->dtype);
    const bool in_place = send != nullptr && send == recv;
    const bool writes = a.collective != TSR_COLL_SEND && (a.collective != TSR_COLL_REDUCE || c.rank == a.root);
    stage_host(r, send, recv, send ? r.n_in * item : 0, writes ? r.n_out * item : 0, in_place, at);
  }
  enqueue(r, send, recv, at);
  if (r.pinned_out != nullptr)
    cuda_check(cudaMemcpyAsync(r.pinned_out, r.device_out, r.out_bytes, cudaMemcpyDeviceToHost, r.engine->stream), at,
               "cudaMemcpyAsync");
  if (!c.spare_events.empty()) {
    r.done = c.spare_events.back();
    c.spare_events.pop_back();
  } else {
    cuda_check(cudaEventCreateWithFlags(&r.done, cudaEventDisableTiming), at, "cudaEventCreateWithFlags");
  }
  cuda_check(cudaEventRecord(r.done, r.engine->stream), at, "cudaEventRecord");
  r.queued = true;
}

// Note [Send and recv lanes]: advances every lane of c in the making, and
// queues, in start order, what waited for a lane that is now ready. A lane
// that fails fails its waiting operations. The caller holds the mutex.
void progress_lanes(Comm& c) {
  for (auto& [key, e] : c.lanes) {
    if (e.aborted || (e.ready() && e.deferred.empty())) continue;
    const std::string at = "nccl: the lane from rank " + std::to_string(e.from) + " to rank " + std::to_string(e.to) +
                           " of " + std::to_string(c.size);
    try {
      if (!advance_lane(c, e, at)) continue;
      while (!e.deferred.empty()) {
        enqueue_now(*e.deferred.front());  // a failure leaves it listed, to fail below
        e.deferred.erase(e.deferred.begin());
      }
    } catch (const backend::Error& err) {
      mark_broken(err.what());
      abort_engine(e);
      for (Request* q : e.deferred) {
        q->completed = true;
        q->status = err.status();
        q->message = err.what();
      }
      e.deferred.clear();
    }
  }
}

// Starts one operation; the caller holds the world's mutex.
void post(Request& r, const tsr_comm_args& a) {
  Comm& c = *r.comm;
  const std::string at = "nccl: " + who(c, a.collective);
  const backend::CommOperands operands = backend::check_comm_operands(a, c.rank, c.size, at);
  if (a.collective == TSR_COLL_BARRIER) {
    // Note [NCCL's bootstrap and its device]: a barrier has no memory to
    // name a device by; the MPI side waits for every rank.
    const int rc = MPI_Ibarrier(c.bootstrap, &r.barrier);
    if (rc != MPI_SUCCESS) fail(TSR_ERR_DEVICE, at + ": MPI_Ibarrier: " + mpi_error_text(rc));
    return;
  }
  const tsr_tensor_desc& any = a.input ? *a.input : *a.output;
  const Wire wire = wire_of(operands.dtype, reduces(a.collective), a.op, at);
  r.n_in = static_cast<size_t>(operands.n_in);
  r.n_out = static_cast<size_t>(operands.n_out);
  // An operation on no elements moves nothing, on every rank alike.
  if ((a.collective == TSR_COLL_REDUCE ? r.n_in : std::max(r.n_in, r.n_out)) == 0) return;
  r.args = a;
  r.args.input = a.input ? &(r.input = *a.input) : nullptr;
  r.args.output = a.output ? &(r.output = *a.output) : nullptr;
  r.wire_type = wire.type;
  r.per_element = wire.per_element;
  r.host = any.device.type != TSR_DEVICE_CUDA;
  int device = 0;
  if (!r.host)
    device = device_of(any);
  else if (c.collectives.ready())
    device = c.collectives.device;  // host memory: the communicator's device
  else
    cudaGetDevice(&device);
  if (a.collective != TSR_COLL_SEND && a.collective != TSR_COLL_RECV) {
    r.engine = &collectives_engine(c, a.collective, device, r.deadline, r.timeout_s);
    enqueue_now(r);
    return;
  }
  const bool sending = a.collective == TSR_COLL_SEND;
  r.engine = &begin_lane(c, sending ? c.rank : a.root, sending ? a.root : c.rank, device, at);
  r.engine->deferred.push_back(&r);
  progress_lanes(c);
}

// One look at the request; true once it has completed (r.completed).
bool look(Context& ctx, Request& r) {
  if (r.completed) return true;
  World& w = world_state();
  std::lock_guard lock(w.mutex);
  const auto finish_with = [&](tsr_status st, std::string message) {
    r.completed = true;
    r.status = st;
    r.message = std::move(message);
    if (st != TSR_OK) backend::report_error(ctx.host, st, r.message.c_str());
    return true;
  };
  const std::string at = "nccl: " + who(*r.comm, r.collective);
  progress_lanes(*r.comm);  // Note [Send and recv lanes]: every rank's lanes advance while it waits
  if (r.completed) {        // its lane failed
    backend::report_error(ctx.host, r.status, r.message.c_str());
    return true;
  }
  if (r.engine != nullptr && !r.queued) {
    // Waiting for its lane.
  } else if (r.barrier != MPI_REQUEST_NULL) {
    int flag = 0;
    const int rc = MPI_Test(&r.barrier, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      mark_broken(at + ": a peer failed: " + mpi_error_text(rc));
      return finish_with(TSR_ERR_DEVICE, at + ": a peer failed: " + mpi_error_text(rc));
    }
    if (flag) return finish_with(TSR_OK, "");
  } else if (r.done == nullptr) {
    return finish_with(TSR_OK, "");  // nothing was queued
  } else if (r.engine->aborted) {
    // Aborted for another operation's failure: whatever the event says,
    // the kernels were stopped.
    return finish_with(TSR_ERR_DEVICE, at + ": the communicator was aborted: " + w.broken_reason);
  } else {
    DeviceScope scope(r.engine->device);
    const cudaError_t q = cudaEventQuery(r.done);
    if (q != cudaSuccess && q != cudaErrorNotReady) {
      const std::string m = at + ": the device failed: " + cudaGetErrorString(q);
      mark_broken(m);
      abort_engine(*r.engine);
      return finish_with(TSR_ERR_DEVICE, m);
    }
    if (q == cudaErrorNotReady) cudaGetLastError();  // not an error to keep
    // A peer's failure ends NCCL's kernels too: the event alone does not
    // say the data arrived.
    ncclResult_t state = ncclSuccess;
    if (ncclCommGetAsyncError(r.engine->nccl, &state) == ncclSuccess && state != ncclSuccess && state != ncclInProgress) {
      const std::string m = at + ": a peer failed: " + nccl_error_text(state);
      mark_broken(m);
      abort_engine(*r.engine);
      return finish_with(TSR_ERR_DEVICE, m);
    }
    if (q == cudaSuccess) {
      if (r.pinned_out != nullptr) std::memcpy(r.host_out, r.pinned_out, r.out_bytes);
      return finish_with(TSR_OK, "");
    }
  }
  if (Clock::now() >= r.deadline) {
    const std::string waiting =
        r.engine != nullptr && !r.queued
            ? "waiting for rank " + std::to_string(r.peer) + " to make the NCCL communicator of sends between them"
        : r.peer >= 0 ? "waiting for rank " + std::to_string(r.peer)
                      : std::string("with a peer rank missing");
    const std::string m = who(*r.comm, r.collective) + ": timed out after " + seconds_text(r.timeout_s) + " s " +
                          waiting + " (the communicator is now broken)";
    mark_broken(m);
    if (r.engine != nullptr) abort_engine(*r.engine);
    return finish_with(TSR_ERR_TIMEOUT, m);
  }
  return false;
}

}  // namespace

tsr_status start(void* ctx, tsr_comm_handle comm, const tsr_comm_args* args, tsr_comm_request* out) {
  Context& c = backend::comm_context_of(ctx);
  return guarded(c.host, "nccl", [&] {
    backend::check_start_args(c, comm, args, out);
    World& w = world_state();
    std::lock_guard lock(w.mutex);
    auto r = std::make_unique<Request>();
    r->comm = static_cast<Comm*>(comm);
    r->collective = args->collective;
    r->timeout_s = args->timeout_s > 0 ? args->timeout_s : 300.0;
    r->deadline = deadline_after(r->timeout_s);
    if (w.broken.load())
      fail(TSR_ERR_DEVICE, "nccl: " + who(*r->comm, args->collective) +
                               ": the communicator is broken by an earlier failure: " + w.broken_reason);
    if (args->collective == TSR_COLL_SEND || args->collective == TSR_COLL_RECV) r->peer = args->root;
    post(*r, *args);
    *out = r.release();
  });
}

tsr_status wait(void* ctx, tsr_comm_request request) {
  Context& c = backend::comm_context_of(ctx);
  Request& r = *static_cast<Request*>(request);
  poll_until(Clock::time_point::max(), [&] { return look(c, r); });
  if (r.status != TSR_OK) backend::report_error(c.host, r.status, r.message.c_str());
  return r.status;
}

tsr_status test(void* ctx, tsr_comm_request request, int32_t* done) {
  Context& c = backend::comm_context_of(ctx);
  Request& r = *static_cast<Request*>(request);
  const bool finished = look(c, r);
  if (done != nullptr) *done = finished ? 1 : 0;
  if (finished && r.status != TSR_OK) backend::report_error(c.host, r.status, r.message.c_str());
  return finished ? r.status : TSR_OK;
}

void request_free(void*, tsr_comm_request request) {
  Request* r = static_cast<Request*>(request);
  if (r == nullptr) return;
  World& w = world_state();
  std::lock_guard lock(w.mutex);
  // An operation that did not complete may still run on the device: the
  // communicator is aborted (its kernels stop) before its buffers go.
  if (!r->completed || r->status != TSR_OK) {
    mark_broken("nccl: " + who(*r->comm, r->collective) + ": abandoned before it completed");
    if (!r->completed && r->engine != nullptr) abort_engine(*r->engine);
  }
  delete r;
}

}  // namespace tessera::nccl
