/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/comm.h — the communicator interface a plugin may provide (ABI 1.5).
 *
 * A plugin that moves tensors between processes (MPI, NCCL) offers one
 * tsr_comm_iface through tsr_plugin_api.comm. It may offer nothing else: a
 * communicator-only plugin answers device_type_name "" with a NULL device
 * table and an empty kernel table (plugin.h). As for devices, the table is
 * an interface plus the opaque context tsr_plugin_api.ctx, passed back as
 * the first argument of every slot.
 *
 * Note [Collectives through a plugin]
 *   - The runtime owns the tensors. It hands a slot descriptors
 *     (tensor_desc.h) that are always CONTIGUOUS, row-major, with offset
 *     0 relative to `data`, of a dtype the interface accepts: it has made
 *     non-contiguous inputs contiguous, and copies a result into an output
 *     that is a view afterwards.
 *   - Memory: a communicator reads and writes host-addressable memory
 *     always. It reads device memory only where can_access_device says so
 *     (NCCL for cuda); otherwise the runtime stages through host buffers
 *     (the device plugin's copy slots, after the tensor's stream is
 *     synchronised), so the slot sees host memory only.
 *   - Every operation is started (start), then completed by wait or
 *     polled by test. A blocking call is start + wait. The descriptors'
 *     `data` stays valid, and is not touched by the runtime, until the
 *     request has completed (wait or test answered done, or failed).
 *   - Nothing blocks forever: every start carries a timeout (seconds,
 *     > 0) counted from the start; wait returns TSR_ERR_TIMEOUT at that
 *     deadline, and test answers TSR_ERR_TIMEOUT once it has passed. The
 *     message names the collective, the rank and the size of the
 *     communicator ("all_reduce on rank 1 of 4: timed out after 30 s").
 *   - After a timeout or a lost peer the communicator is broken: every
 *     later start on it (and on communicators split from the same world)
 *     fails at once with TSR_ERR_DEVICE, and shutdown does not wait for
 *     the peers. A slot never aborts or exits the process.
 *   - Ranks call collectives on one communicator in the same order with
 *     matching arguments (as MPI and NCCL require). The runtime's checking
 *     mode (TESSERA_DISTRIBUTED_DEBUG=1) verifies that before each call.
 *
 * Threading: slots may be called from several threads, but operations on
 * one communicator are started in one order on every rank (the caller's
 * business, as in MPI).
 */
#ifndef TESSERA_COMM_H
#define TESSERA_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/export.h"
#include "tessera/status.h"
#include "tessera/tensor_desc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How elements combine; values are part of the ABI (append only). AVG is
 * SUM divided by the communicator's size (floating dtypes only). On bool,
 * SUM and MAX are a logical or, PROD and MIN a logical and. */
typedef enum tsr_reduce_op {
  TSR_REDUCE_SUM = 0,
  TSR_REDUCE_PROD = 1,
  TSR_REDUCE_MIN = 2,
  TSR_REDUCE_MAX = 3,
  TSR_REDUCE_AVG = 4,
  TSR_REDUCE_OP_COUNT = 5
} tsr_reduce_op;

/* The operations (append only). With n ranks and a contiguous input of N
 * elements:
 *   ALL_REDUCE      output (N) = op over ranks of input (N); input may be
 *                   output (in place)
 *   BROADCAST       output (N) = root's input (N); non-roots' input is NULL
 *   REDUCE          root's output (N) = op over ranks; others' output NULL
 *   ALL_GATHER      output (n*N) = concatenation of every rank's input
 *   REDUCE_SCATTER  input (n*M), output (M): output = op over ranks of
 *                   input[rank*M .. rank*M+M)
 *   ALL_TO_ALL      input (n*M), output (n*M): output[j*M..] = rank j's
 *                   input[rank*M..]
 *   SEND            input to rank `peer` with `tag`; output NULL
 *   RECV            output from rank `peer` with `tag`; input NULL
 *   BARRIER         no tensors */
typedef enum tsr_collective {
  TSR_COLL_ALL_REDUCE = 0,
  TSR_COLL_BROADCAST = 1,
  TSR_COLL_REDUCE = 2,
  TSR_COLL_ALL_GATHER = 3,
  TSR_COLL_REDUCE_SCATTER = 4,
  TSR_COLL_ALL_TO_ALL = 5,
  TSR_COLL_SEND = 6,
  TSR_COLL_RECV = 7,
  TSR_COLL_BARRIER = 8,
  TSR_COLL_COUNT = 9
} tsr_collective;

/* "all_reduce", "broadcast", ... (as torch.distributed names them); "?"
 * for a value outside the enum. */
TSR_INLINE const char* tsr_collective_name(int32_t collective) {
  switch (collective) {
    case TSR_COLL_ALL_REDUCE: return "all_reduce";
    case TSR_COLL_BROADCAST: return "broadcast";
    case TSR_COLL_REDUCE: return "reduce";
    case TSR_COLL_ALL_GATHER: return "all_gather";
    case TSR_COLL_REDUCE_SCATTER: return "reduce_scatter";
    case TSR_COLL_ALL_TO_ALL: return "all_to_all";
    case TSR_COLL_SEND: return "send";
    case TSR_COLL_RECV: return "recv";
    case TSR_COLL_BARRIER: return "barrier";
    default: return "?";
  }
}

/* "sum", "prod", "min", "max", "avg"; "?" for a value outside the enum. */
TSR_INLINE const char* tsr_reduce_op_name(int32_t op) {
  switch (op) {
    case TSR_REDUCE_SUM: return "sum";
    case TSR_REDUCE_PROD: return "prod";
    case TSR_REDUCE_MIN: return "min";
    case TSR_REDUCE_MAX: return "max";
    case TSR_REDUCE_AVG: return "avg";
    default: return "?";
  }
}

/* A plugin's communicator, opaque to the runtime. Made by world or split,
 * ended by release. */
typedef void* tsr_comm_handle;
/* A started operation, opaque to the runtime. Made by start, ended by
 * request_free. */
typedef void* tsr_comm_request;

/* One operation. Owned by the runtime; valid for the start call only (the
 * plugin copies what it keeps; the memory behind the descriptors' data
 * outlives the request, see the Note). */
typedef struct tsr_comm_args {
  size_t struct_size;             /* TSR_COMM_ARGS_STRUCT_SIZE */
  int32_t collective;             /* a tsr_collective */
  int32_t op;                     /* a tsr_reduce_op (reducing collectives; else 0) */
  int32_t root;                   /* BROADCAST, REDUCE: the root; SEND, RECV: the peer rank */
  int32_t tag;                    /* SEND, RECV: the message tag (>= 0); else 0 */
  const tsr_tensor_desc* input;   /* contiguous; borrowed; NULL where the table above says */
  const tsr_tensor_desc* output;  /* contiguous; borrowed; NULL where the table above says */
  double timeout_s;               /* seconds from start until the request times out; > 0 */
} tsr_comm_args;

#define TSR_COMM_ARGS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_comm_args, timeout_s)

/* The communicator interface. Every slot is required unless marked optional. */
typedef struct tsr_comm_iface {
  size_t struct_size; /* TSR_COMM_IFACE_STRUCT_SIZE */

  /* The engine's name for messages ("mpi"); static. */
  const char* name;

  /* Optional: 1 when the communicator reads and writes memory of device
   * type `device_type` (a tsr_device_type; `device_type_name` is its
   * name, "cuda") directly; 0: the runtime stages it through the host.
   * Host-addressable memory is always readable and never asked about.
   * NULL: host memory only. */
  int32_t (*can_access_device)(void* ctx, int32_t device_type, const char* device_type_name);

  /* The world communicator of the process's launch environment (mpirun,
   * srun): every process of the job. *out is owned by the runtime until
   * release; each call returns a new handle. timeout_s bounds any
   * start-up exchange. A process started without a launcher is a world
   * of one. */
  tsr_status (*world)(void* ctx, double timeout_s, tsr_comm_handle* out);
  /* This process's rank in `comm` (0 .. size-1), and the number of ranks.
   * Never fail. */
  int32_t (*rank)(void* ctx, tsr_comm_handle comm);
  int32_t (*size)(void* ctx, tsr_comm_handle comm);
  /* Collective over `comm`: ranks with the same color (>= 0) form one new
   * communicator, ordered by key then by rank in `comm`. A rank passing a
   * negative color takes part and gets *out = NULL. */
  tsr_status (*split)(void* ctx, tsr_comm_handle comm, int32_t color, int32_t key, double timeout_s,
                      tsr_comm_handle* out);
  /* Ends a handle from world or split (not collective; never blocks). */
  void (*release)(void* ctx, tsr_comm_handle comm);

  /* Starts one operation; *out is owned by the runtime until request_free.
   * A bad argument (dtype, sizes, root) fails here, before any exchange. */
  tsr_status (*start)(void* ctx, tsr_comm_handle comm, const tsr_comm_args* args, tsr_comm_request* out);
  /* Waits until the request completes (TSR_OK) or its deadline passes
   * (TSR_ERR_TIMEOUT), or the communicator breaks (TSR_ERR_DEVICE).
   * Calling it again after it returned gives the same status at once. */
  tsr_status (*wait)(void* ctx, tsr_comm_request request);
  /* Never blocks: *done = 1 when the request has completed. Past the
   * deadline it fails with TSR_ERR_TIMEOUT. */
  tsr_status (*test)(void* ctx, tsr_comm_request request, int32_t* done);
  /* Frees a request. One that has not completed (a timeout) is abandoned:
   * its communicator is broken. Never blocks, never fails. */
  void (*request_free)(void* ctx, tsr_comm_request request);
} tsr_comm_iface;

#define TSR_COMM_IFACE_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_comm_iface, request_free)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_COMM_H */
