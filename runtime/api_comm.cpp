// SPDX-License-Identifier: Apache-2.0
// The C API of tessera/distributed.h: communicators, collectives, work.
#include "api_support.hpp"
#include "comm.hpp"

using namespace tessera::rt;

namespace {

double timeout_of(const tsr_comm_options* options) {
  if (options == nullptr) return 0.0;
  if (options->struct_size < TSR_STRUCT_SIZE(tsr_comm_options, timeout_s))
    fail(TSR_ERR_INVALID_ARGUMENT, "tsr_comm_options.struct_size " + std::to_string(options->struct_size) +
                                       " is too small; set it to TSR_COMM_OPTIONS_STRUCT_SIZE");
  if (!(options->timeout_s >= 0.0))
    fail(TSR_ERR_INVALID_ARGUMENT, "tsr_comm_options.timeout_s must be >= 0 seconds (0: the config's)");
  return options->timeout_s;
}

// One collective: start it, then hand out the work or wait for it.
tsr_status run(tsr_comm* comm, CollectiveCall call, const tsr_comm_options* options, tsr_work** work) {
  return guard([&] {
    tsr_comm& c = require(comm, "comm");
    call.timeout_s = timeout_of(options);
    if (work != nullptr) *work = nullptr;
    tsr_work* started = start_collective(c, call);
    if (work != nullptr) {
      *work = started;
      return;
    }
    struct Release {
      tsr_work* w;
      ~Release() { work_release(w); }
    } release{started};
    work_wait(*started);
  });
}

CollectiveCall make_call(int32_t collective, tsr_tensor* input, tsr_tensor* output) {
  CollectiveCall call;
  call.collective = collective;
  call.input = input;
  call.output = output;
  return call;
}

// send (the tensor is the input) and recv (the output).
tsr_status point_to_point(int32_t collective, tsr_comm* comm, tsr_tensor* tensor, int32_t peer, int32_t tag,
                          const tsr_comm_options* options, tsr_work** work) {
  if (tensor == nullptr)
    return guard([&] { fail(TSR_ERR_INVALID_ARGUMENT, std::string(tsr_collective_name(collective)) + ": tensor is NULL"); });
  const bool send = collective == TSR_COLL_SEND;
  CollectiveCall call = make_call(collective, send ? tensor : nullptr, send ? nullptr : tensor);
  call.root = peer;
  call.tag = tag;
  return run(comm, call, options, work);
}

}  // namespace

tsr_status tsr_comm_world(tsr_runtime* rt, const char* device_type, tsr_comm** out) {
  return guard([&] {
    require_out(out);
    *out = comm_world(require(rt, "runtime"), device_type);
  });
}

tsr_status tsr_comm_split(tsr_comm* comm, int32_t color, int32_t key, tsr_comm** out) {
  return guard([&] {
    require_out(out);
    *out = comm_split(require(comm, "comm"), color, key);
  });
}

int32_t tsr_comm_rank(const tsr_comm* comm) { return comm ? comm->rank : -1; }
int32_t tsr_comm_size(const tsr_comm* comm) { return comm ? comm->size : -1; }
double tsr_comm_timeout(const tsr_comm* comm) { return comm ? comm->timeout_s : 0.0; }
void tsr_comm_release(tsr_comm* comm) { comm_release(comm); }

tsr_status tsr_all_reduce(tsr_comm* comm, tsr_tensor* tensor, int32_t op, const tsr_comm_options* options,
                          tsr_work** work) {
  if (tensor == nullptr) return guard([] { fail(TSR_ERR_INVALID_ARGUMENT, "all_reduce: tensor is NULL"); });
  CollectiveCall call = make_call(TSR_COLL_ALL_REDUCE, tensor, tensor);
  call.op = op;
  return run(comm, call, options, work);
}

tsr_status tsr_broadcast(tsr_comm* comm, tsr_tensor* tensor, int32_t root, const tsr_comm_options* options,
                         tsr_work** work) {
  if (tensor == nullptr) return guard([] { fail(TSR_ERR_INVALID_ARGUMENT, "broadcast: tensor is NULL"); });
  CollectiveCall call = make_call(TSR_COLL_BROADCAST, tensor, tensor);
  call.root = root;
  return run(comm, call, options, work);
}

tsr_status tsr_comm_reduce(tsr_comm* comm, tsr_tensor* tensor, int32_t root, int32_t op, const tsr_comm_options* options,
                      tsr_work** work) {
  if (tensor == nullptr) return guard([] { fail(TSR_ERR_INVALID_ARGUMENT, "reduce: tensor is NULL"); });
  CollectiveCall call = make_call(TSR_COLL_REDUCE, tensor, tensor);
  call.root = root;
  call.op = op;
  return run(comm, call, options, work);
}

tsr_status tsr_all_gather(tsr_comm* comm, tsr_tensor* output, tsr_tensor* input, const tsr_comm_options* options,
                          tsr_work** work) {
  if (output == nullptr || input == nullptr)
    return guard([] { fail(TSR_ERR_INVALID_ARGUMENT, "all_gather: output or input is NULL"); });
  return run(comm, make_call(TSR_COLL_ALL_GATHER, input, output), options, work);
}

tsr_status tsr_reduce_scatter(tsr_comm* comm, tsr_tensor* output, tsr_tensor* input, int32_t op,
                              const tsr_comm_options* options, tsr_work** work) {
  if (output == nullptr || input == nullptr)
    return guard([] { fail(TSR_ERR_INVALID_ARGUMENT, "reduce_scatter: output or input is NULL"); });
  CollectiveCall call = make_call(TSR_COLL_REDUCE_SCATTER, input, output);
  call.op = op;
  return run(comm, call, options, work);
}

tsr_status tsr_all_to_all(tsr_comm* comm, tsr_tensor* output, tsr_tensor* input, const tsr_comm_options* options,
                          tsr_work** work) {
  if (output == nullptr || input == nullptr)
    return guard([] { fail(TSR_ERR_INVALID_ARGUMENT, "all_to_all: output or input is NULL"); });
  return run(comm, make_call(TSR_COLL_ALL_TO_ALL, input, output), options, work);
}

tsr_status tsr_send(tsr_comm* comm, tsr_tensor* tensor, int32_t dst, int32_t tag, const tsr_comm_options* options,
                    tsr_work** work) {
  return point_to_point(TSR_COLL_SEND, comm, tensor, dst, tag, options, work);
}

tsr_status tsr_recv(tsr_comm* comm, tsr_tensor* tensor, int32_t src, int32_t tag, const tsr_comm_options* options,
                    tsr_work** work) {
  return point_to_point(TSR_COLL_RECV, comm, tensor, src, tag, options, work);
}

tsr_status tsr_barrier(tsr_comm* comm, const tsr_comm_options* options, tsr_work** work) {
  return run(comm, make_call(TSR_COLL_BARRIER, nullptr, nullptr), options, work);
}

tsr_status tsr_work_wait(tsr_work* work) {
  return guard([&] { work_wait(require(work, "work")); });
}

tsr_status tsr_work_test(tsr_work* work, int32_t* done) {
  return guard([&] {
    require_out(done);
    *done = work_test(require(work, "work")) ? 1 : 0;
  });
}

void tsr_work_release(tsr_work* work) { work_release(work); }
