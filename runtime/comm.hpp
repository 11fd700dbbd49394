// SPDX-License-Identifier: Apache-2.0
// Communicators and their work (the C API's tsr_comm and tsr_work,
// tessera/distributed.h): the device-agnostic half of every collective.
// The runtime checks the arguments, runs the checking mode's signature
// exchange, turns every tensor into a contiguous buffer the communicator
// can read (Note [Collectives through a plugin] in tessera/comm.h), starts
// the plugin's operation, and on completion copies results into outputs
// that are views or live in memory the communicator cannot read.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "plugin_loader.hpp"
#include "runtime.hpp"
#include "tensor.hpp"
#include "tessera/tessera.h"

struct tsr_comm {
  std::atomic<int64_t> refs{1};  // the caller's handle, plus one per live work
  tsr_runtime* rt = nullptr;
  const tessera::rt::LoadedPlugin* plugin = nullptr;
  const tsr_comm_iface* iface = nullptr;  // plugin->comm()
  void* ctx = nullptr;                    // plugin->api().ctx
  tsr_comm_handle handle = nullptr;
  int32_t rank = 0;
  int32_t size = 1;
  double timeout_s = 300.0;   // the config's comm_timeout_s
  bool debug = false;         // TESSERA_DISTRIBUTED_DEBUG (Note [The checking mode])
  std::string device_type;    // the config's key it was made for ("cpu"), for messages
};

struct tsr_work {
  tsr_comm* comm = nullptr;   // holds one reference
  tsr_comm_request request = nullptr;
  int32_t collective = 0;     // a tsr_collective
  std::mutex mutex;           // wait and test from several threads
  bool completed = false;
  tsr_status status = TSR_OK;
  std::string message;        // the failure, repeated by later waits
  std::vector<tessera::rt::TensorRef> keep;  // alive until completed
  // (destination, buffer): copied after completion.
  std::vector<std::pair<tessera::rt::TensorRef, tessera::rt::TensorRef>> copy_back;
};

namespace tessera::rt {

// "all_reduce", "broadcast", ...
const char* collective_name(int32_t collective);

// The world communicator of the plugin the config names for device_type
// (nullptr: see tsr_comm_world). The caller owns the result.
tsr_comm* comm_world(tsr_runtime& rt, const char* device_type);
// nullptr for a negative color.
tsr_comm* comm_split(tsr_comm& comm, int32_t color, int32_t key);
void comm_release(tsr_comm* comm) noexcept;

// One call of the C API, before its tensors are made into buffers.
struct CollectiveCall {
  int32_t collective = 0;        // a tsr_collective
  int32_t op = TSR_REDUCE_SUM;   // a tsr_reduce_op, where it reduces
  int32_t root = 0;              // or the peer of send/recv
  int32_t tag = 0;
  tsr_tensor* input = nullptr;   // in place: input == output
  tsr_tensor* output = nullptr;
  double timeout_s = 0.0;        // 0: the communicator's
};

// Starts the call; the caller owns the work (work_release).
tsr_work* start_collective(tsr_comm& comm, const CollectiveCall& call);
// Blocks until completion; throws the operation's failure.
void work_wait(tsr_work& work);
// Never blocks; true once completed (throws the failure).
bool work_test(tsr_work& work);
void work_release(tsr_work* work) noexcept;

}  // namespace tessera::rt
