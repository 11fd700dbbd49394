/* SPDX-License-Identifier: Apache-2.0 */
/* Data parallel training from C99 (mpi.data_parallel_c.np2): the loop of
 * tessera/distributed.h's Note, for a tiny model (3-4-2, tanh, mse_loss)
 * in float64 trained by SGD with momentum. Each rank takes an equal slice
 * of every global batch; after backward each gradient is all_reduced
 * (SUM, started asynchronously for all of them, then waited for) and
 * divided by the world size, then tsr_optimizer_step. Every rank also
 * trains the same model alone on the whole batches. Checks: each rank's
 * weights equal the single-process ones to 1e-12 relative, and are rank
 * 0's bit for bit. Run as: mpirun -np N test_data_parallel CONFIG (N
 * divides 12). Exit status 0 when all hold. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tessera/tessera.h"

#define IN 3
#define HIDDEN 4
#define OUT 2
#define BATCH 12 /* the global batch */
#define STEPS 8
#define NPARAMS 4

static int failures = 0;

#define TRY(call)                                                                                   \
  do {                                                                                              \
    tsr_status st_ = (call);                                                                        \
    if (st_ != TSR_OK) {                                                                            \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, tsr_last_error_message()); \
      ++failures;                                                                                   \
      goto done;                                                                                    \
    }                                                                                               \
  } while (0)

static tsr_runtime* rt;
static tsr_device cpu;
static const int64_t shapes[NPARAMS][2] = {{HIDDEN, IN}, {HIDDEN, 0}, {OUT, HIDDEN}, {OUT, 0}};

static int64_t numel(int i) { return shapes[i][0] * (shapes[i][1] ? shapes[i][1] : 1); }

/* The model's parameters, the same values on every rank (a formula). */
static int make_params(tsr_tensor** params) {
  double values[HIDDEN * IN];
  int i, k;
  for (i = 0; i < NPARAMS; ++i) {
    for (k = 0; k < numel(i); ++k) values[k] = 0.5 * sin(1.0 + 3.0 * i + 0.7 * k);
    if (tsr_from_host(rt, values, shapes[i][1] ? 2 : 1, shapes[i], TSR_FLOAT64, cpu, &params[i]) != TSR_OK ||
        tsr_tensor_set_requires_grad(params[i], 1) != TSR_OK) {
      fprintf(stderr, "make_params: %s\n", tsr_last_error_message());
      return 0;
    }
  }
  return 1;
}

/* Rows [first, first + n) of the global batch of `step`: inputs and targets. */
static int batch(int step, int first, int n, tsr_tensor** x, tsr_tensor** y) {
  double xs[BATCH * IN], ys[BATCH * OUT];
  int64_t xshape[2], yshape[2];
  int r, k;
  for (r = 0; r < n; ++r) {
    const int row = step * BATCH + first + r;
    for (k = 0; k < IN; ++k) xs[r * IN + k] = cos(0.37 * row + 1.3 * k);
    for (k = 0; k < OUT; ++k) ys[r * OUT + k] = sin(0.11 * row * (k + 1));
  }
  xshape[0] = yshape[0] = n;
  xshape[1] = IN;
  yshape[1] = OUT;
  return tsr_from_host(rt, xs, 2, xshape, TSR_FLOAT64, cpu, x) == TSR_OK &&
         tsr_from_host(rt, ys, 2, yshape, TSR_FLOAT64, cpu, y) == TSR_OK;
}

/* mse_loss(linear(tanh(linear(x, W1, b1)), W2, b2), y), mean over the rows, then backward. */
static int loss_backward(tsr_tensor** params, tsr_tensor* x, tsr_tensor* y) {
  tsr_tensor *z = NULL, *h = NULL, *out = NULL, *loss = NULL;
  int ok = 0;
  TRY(tsr_linear(x, params[0], params[1], &z));
  TRY(tsr_unary(TSR_OP_TANH, z, &h));
  TRY(tsr_linear(h, params[2], params[3], &out));
  TRY(tsr_mse_loss(out, y, NULL, &loss));
  TRY(tsr_backward(1, &loss, NULL, 0, NULL, NULL));
  ok = 1;
done:
  tsr_tensor_release(z);
  tsr_tensor_release(h);
  tsr_tensor_release(out);
  tsr_tensor_release(loss);
  return ok;
}

/* The loop of tessera/distributed.h's Note [Data parallel training]: every
 * gradient all_reduced (SUM) asynchronously, the works waited for, each
 * gradient divided by the world size. */
static int average_gradients(tsr_comm* comm, tsr_tensor** params) {
  tsr_tensor* grads[NPARAMS] = {NULL};
  tsr_work* works[NPARAMS] = {NULL};
  int i, ok = 0;
  for (i = NPARAMS - 1; i >= 0; --i) { /* the order backward makes them in */
    TRY(tsr_tensor_grad(params[i], &grads[i]));
    TRY(tsr_all_reduce(comm, grads[i], TSR_REDUCE_SUM, NULL, &works[i]));
  }
  for (i = NPARAMS - 1; i >= 0; --i) {
    TRY(tsr_work_wait(works[i]));
    TRY(tsr_binary_scalar_(TSR_OP_DIV, grads[i], tsr_scalar_float((double)tsr_comm_size(comm))));
  }
  ok = 1;
done:
  for (i = 0; i < NPARAMS; ++i) {
    tsr_work_release(works[i]);
    tsr_tensor_release(grads[i]);
  }
  return ok;
}

static int train(tsr_comm* comm, tsr_tensor** params) {
  tsr_optimizer_options sgd;
  tsr_optimizer* opt = NULL;
  tsr_tensor *x = NULL, *y = NULL;
  const int rank = comm ? tsr_comm_rank(comm) : 0, world = comm ? tsr_comm_size(comm) : 1;
  int step, i, ok = 0;
  TRY(tsr_optimizer_defaults(TSR_OPTIMIZER_SGD, &sgd));
  sgd.lr = 0.1;
  sgd.momentum = 0.9;
  TRY(tsr_optimizer_create(NPARAMS, params, &sgd, &opt));
  if (comm) /* every rank starts from rank 0's weights */
    for (i = 0; i < NPARAMS; ++i) TRY(tsr_broadcast(comm, params[i], 0, NULL, NULL));
  for (step = 0; step < STEPS; ++step) {
    const int per = BATCH / world;
    if (!batch(step, rank * per, per, &x, &y)) goto done;
    TRY(tsr_optimizer_zero_grad(opt, 1));
    if (!loss_backward(params, x, y)) goto done;
    if (comm && !average_gradients(comm, params)) goto done;
    TRY(tsr_optimizer_step(opt));
    tsr_tensor_release(x);
    tsr_tensor_release(y);
    x = y = NULL;
  }
  ok = 1;
done:
  tsr_tensor_release(x);
  tsr_tensor_release(y);
  tsr_optimizer_destroy(opt);
  return ok;
}

int main(int argc, char** argv) {
  tsr_runtime_options options = TSR_RUNTIME_OPTIONS_INIT;
  tsr_comm* comm = NULL;
  tsr_tensor *ddp[NPARAMS] = {NULL}, *single[NPARAMS] = {NULL}, *zero = NULL;
  double a[HIDDEN * IN], b[HIDDEN * IN], worst = 0.0;
  int i, k, rank = 0, identical = 1;
  if (argc < 2) {
    fprintf(stderr, "usage: mpirun -np N test_data_parallel CONFIG\n");
    return 2;
  }
  options.config_path = argv[1];
  TRY(tsr_runtime_create(&options, &rt));
  TRY(tsr_device_parse(rt, "cpu", &cpu));
  TRY(tsr_comm_world(rt, "cpu", &comm));
  rank = tsr_comm_rank(comm);
  if (BATCH % tsr_comm_size(comm) != 0) {
    fprintf(stderr, "the world size %d does not divide the batch %d\n", tsr_comm_size(comm), BATCH);
    ++failures;
    goto done;
  }
  if (!make_params(ddp) || !make_params(single)) goto done;
  if (!train(comm, ddp) || !train(NULL, single)) goto done;

  for (i = 0; i < NPARAMS; ++i) {
    double scale = 0.0, diff = 0.0;
    TRY(tsr_read(ddp[i], a, (size_t)numel(i) * sizeof(double)));
    TRY(tsr_read(single[i], b, (size_t)numel(i) * sizeof(double)));
    for (k = 0; k < numel(i); ++k) {
      scale = fmax(scale, fabs(b[k]));
      diff = fmax(diff, fabs(a[k] - b[k]));
    }
    worst = fmax(worst, diff / scale);
    /* rank 0's weights, bit for bit */
    TRY(tsr_from_host(rt, a, shapes[i][1] ? 2 : 1, shapes[i], TSR_FLOAT64, cpu, &zero));
    TRY(tsr_broadcast(comm, zero, 0, NULL, NULL));
    TRY(tsr_read(zero, b, (size_t)numel(i) * sizeof(double)));
    if (memcmp(a, b, (size_t)numel(i) * sizeof(double)) != 0) identical = 0;
    tsr_tensor_release(zero);
    zero = NULL;
  }
  printf("rank %d of %d: %d steps; max relative difference from the single-process run %.3g; %s rank 0's\n",
         rank, tsr_comm_size(comm), STEPS, worst, identical ? "identical to" : "DIFFERENT from");
  if (!(worst < 1e-12)) {
    fprintf(stderr, "rank %d: the weights differ from the single-process run's by %.3g\n", rank, worst);
    ++failures;
  }
  if (!identical) {
    fprintf(stderr, "rank %d: the weights differ from rank 0's\n", rank);
    ++failures;
  }
done:
  for (i = 0; i < NPARAMS; ++i) {
    tsr_tensor_release(ddp[i]);
    tsr_tensor_release(single[i]);
  }
  tsr_tensor_release(zero);
  tsr_comm_release(comm);
  if (tsr_runtime_destroy(rt) != TSR_OK) {
    fprintf(stderr, "tsr_runtime_destroy: %s\n", tsr_last_error_message());
    ++failures;
  }
  return failures ? 1 : 0;
}
