/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/distributed.h — collectives across processes (public API, ABI 1.5).
 *
 * Included by tessera.h. A tsr_comm is a group of processes (ranks) that
 * exchange tensors through a communicator plugin (tessera/comm.h) chosen
 * by the config: "communicators" maps a device type to a plugin
 * ({"cpu": "mpi"}). Its meanings are torch.distributed's:
 *
 *   tsr_all_reduce      tensor = op over ranks (in place)
 *   tsr_broadcast       tensor = root's tensor (in place)
 *   tsr_comm_reduce     root's tensor = op over ranks (others unchanged)
 *   tsr_all_gather      output = every rank's input, concatenated along a
 *                       new leading block (output numel = size * input numel)
 *   tsr_reduce_scatter  output = block `rank` of op over ranks of input
 *                       (input numel = size * output numel)
 *   tsr_all_to_all      output block j = block `rank` of rank j's input
 *                       (equal blocks; input and output numel equal,
 *                       divisible by size)
 *   tsr_send, tsr_recv  point to point, matched by peer and tag
 *   tsr_barrier         every rank has arrived
 *
 * Tensors: any shape, layout (views, non-contiguous) and device. Inputs
 * and outputs of one call share a dtype (TSR_ERR_TYPE otherwise). Memory
 * the communicator cannot read (device memory, for MPI) is staged through
 * the host; an output that is a view receives the result by a copy.
 *
 * Blocking and asynchronous: every collective takes `work`. NULL: the call
 * blocks until done. Not NULL: the call returns once started, with *work
 * (owned by the caller, ended by tsr_work_release) to wait on or test; the
 * tensors must stay alive and untouched until the work completes (the work
 * holds references to them, as PyTorch's Work does).
 *
 * Nothing waits forever: every call has a timeout, the config's
 * "comm_timeout_s" (default 300 s) unless `options` gives one. A
 * collective whose peers do not answer fails with TSR_ERR_TIMEOUT and a
 * message naming the collective and the rank ("all_reduce on rank 1 of 4:
 * timed out after 30 s"); the communicator is then broken and every later
 * call on it fails at once.
 *
 * Checking mode: with TESSERA_DISTRIBUTED_DEBUG=1 in the environment, each
 * collective first exchanges what every rank called (collective, dtype,
 * shape, root, op) and fails with TSR_ERR_INVALID_ARGUMENT, naming the
 * ranks and what differs, instead of hanging or computing garbage.
 *
 * Lifetime: release every tsr_work and tsr_comm before tsr_runtime_destroy
 * (which refuses otherwise, as for tensors).
 *
 * Note [Data parallel training]
 *   Gradients averaged across ranks, from C (what Python's
 *   tessera.nn.parallel.DistributedDataParallel does during backward):
 *   every rank holds the same parameters and takes an equal slice of each
 *   global batch, with a loss that is the mean over its slice.
 *
 *     tsr_comm_world(rt, "cpu", &comm);
 *     for each parameter p: tsr_broadcast(comm, p, 0, NULL, NULL);  once
 *     tsr_optimizer_create(n, params, &options, &opt);
 *     each step:
 *       tsr_optimizer_zero_grad(opt, 1);
 *       loss = forward(my slice); tsr_backward(1, &loss, NULL, 0, NULL, NULL);
 *       for each parameter i (last first, the order backward makes them):
 *         tsr_tensor_grad(p[i], &g[i]);        .grad itself, not a copy
 *         tsr_all_reduce(comm, g[i], TSR_REDUCE_SUM, NULL, &w[i]);
 *       for each i: tsr_work_wait(w[i]); tsr_work_release(w[i]);
 *         tsr_binary_scalar_(TSR_OP_DIV, g[i], tsr_scalar_float(world size));
 *         tsr_tensor_release(g[i]);
 *       tsr_optimizer_step(opt);
 *
 *   The mean over ranks of the slices' mean gradients is the gradient of
 *   the mean over the global batch, so the parameters follow a
 *   single-process run on the whole batches to float64 rounding, and stay
 *   equal on every rank bit for bit (every rank divides the same sums).
 *   TSR_REDUCE_AVG does the SUM and the division in one call. Many small
 *   gradients travel faster as one: copy them into one flat buffer
 *   (tsr_copy_ into its slices), all_reduce it, copy the slices back.
 *   To overlap the all_reduces with backward, start them from a hook on
 *   each parameter (tsr_tensor_register_hook, autograd.h: a leaf's hooks
 *   run as soon as its gradient is ready, while the rest of backward still
 *   runs): the hook copies the gradient it receives into a buffer of its
 *   own and starts the all_reduce of that buffer (never of the hook's
 *   gradient, which backward goes on to read); after tsr_backward, wait
 *   and copy each result into .grad. tests/distributed/test_data_parallel.c
 *   runs the loop above.
 */
#ifndef TESSERA_DISTRIBUTED_H
#define TESSERA_DISTRIBUTED_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/comm.h"
#include "tessera/export.h"
#include "tessera/status.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tsr_runtime;
struct tsr_tensor;
typedef struct tsr_comm tsr_comm;
typedef struct tsr_work tsr_work;

/* Per-call options; NULL means every default. */
typedef struct tsr_comm_options {
  size_t struct_size; /* TSR_COMM_OPTIONS_STRUCT_SIZE */
  double timeout_s;   /* seconds; 0: the communicator's (the config's) */
} tsr_comm_options;

#define TSR_COMM_OPTIONS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_comm_options, timeout_s)

/* The world communicator of the launch environment (mpirun, srun) through
 * the plugin the config names for `device_type` ("cpu", "cuda"); NULL: the
 * default device's type, else the only communicator loaded. *out is owned
 * by the caller (tsr_comm_release). */
TSR_API tsr_status tsr_comm_world(struct tsr_runtime* rt, const char* device_type, tsr_comm** out);
/* Collective over `comm`: ranks with one color (>= 0) form a communicator,
 * ordered by key, then by rank. A negative color takes part and gets
 * *out = NULL (TSR_OK). */
TSR_API tsr_status tsr_comm_split(tsr_comm* comm, int32_t color, int32_t key, tsr_comm** out);
/* This process's rank, and the number of ranks; -1 for a NULL comm. */
TSR_API int32_t tsr_comm_rank(const tsr_comm* comm);
TSR_API int32_t tsr_comm_size(const tsr_comm* comm);
/* The communicator's default timeout in seconds; 0 for a NULL comm. */
TSR_API double tsr_comm_timeout(const tsr_comm* comm);
/* Ends the caller's handle (not collective, never blocks). NULL: no-op. */
TSR_API void tsr_comm_release(tsr_comm* comm);

/* The collectives; `op` is a tsr_reduce_op, `options` may be NULL, `work`
 * NULL blocks (see above). */
TSR_API tsr_status tsr_all_reduce(tsr_comm* comm, struct tsr_tensor* tensor, int32_t op,
                                  const tsr_comm_options* options, tsr_work** work);
TSR_API tsr_status tsr_broadcast(tsr_comm* comm, struct tsr_tensor* tensor, int32_t root,
                                 const tsr_comm_options* options, tsr_work** work);
TSR_API tsr_status tsr_comm_reduce(tsr_comm* comm, struct tsr_tensor* tensor, int32_t root, int32_t op,
                              const tsr_comm_options* options, tsr_work** work);
TSR_API tsr_status tsr_all_gather(tsr_comm* comm, struct tsr_tensor* output, struct tsr_tensor* input,
                                  const tsr_comm_options* options, tsr_work** work);
TSR_API tsr_status tsr_reduce_scatter(tsr_comm* comm, struct tsr_tensor* output, struct tsr_tensor* input,
                                      int32_t op, const tsr_comm_options* options, tsr_work** work);
TSR_API tsr_status tsr_all_to_all(tsr_comm* comm, struct tsr_tensor* output, struct tsr_tensor* input,
                                  const tsr_comm_options* options, tsr_work** work);
TSR_API tsr_status tsr_send(tsr_comm* comm, struct tsr_tensor* tensor, int32_t dst, int32_t tag,
                            const tsr_comm_options* options, tsr_work** work);
TSR_API tsr_status tsr_recv(tsr_comm* comm, struct tsr_tensor* tensor, int32_t src, int32_t tag,
                            const tsr_comm_options* options, tsr_work** work);
TSR_API tsr_status tsr_barrier(tsr_comm* comm, const tsr_comm_options* options, tsr_work** work);

/* Waits until the work completes, then finishes it (copies into outputs
 * that are views, back to device memory); the status of the operation. A
 * second wait returns the same status at once. */
TSR_API tsr_status tsr_work_wait(tsr_work* work);
/* Never blocks: *done = 1 once completed (and finished, as by wait). */
TSR_API tsr_status tsr_work_test(tsr_work* work, int32_t* done);
/* Ends the handle. A work not yet completed is first waited for (its
 * timeout bounds the wait), as dropping a PyTorch Work still lets the
 * operation finish. NULL: no-op. */
TSR_API void tsr_work_release(tsr_work* work);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_DISTRIBUTED_H */
