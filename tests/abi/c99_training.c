/* SPDX-License-Identifier: Apache-2.0 */
/* Training from C99 (tessera/nn.h and tessera/optim.h, ABI 1.10): a tiny
 * classifier (tsr_linear, tsr_gelu, tsr_linear, tsr_cross_entropy) trained
 * by tsr_backward and AdamW until its loss falls; one SGD step with
 * momentum, dampening and weight decay, and Adam steps (L2 decay, amsgrad),
 * against the same updates computed here in double; the state
 * (get/set, references and copies), set_lr and get/set_options between
 * steps, zero_grad, and the errors (invalid hyperparameters, a non-leaf or
 * duplicate parameter, an unknown state name) with their messages. Every
 * tensor released, every optimizer destroyed; runs under valgrind too
 * (tests/abi/CMakeLists.txt). Exit status 0 when all hold. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#define C99_EXPECT_TOLERANCE 1e-14
#include "c99_check.h"
#include "c99_doubles.h"
#include "tessera/tessera.h"

/* p's .grad becomes a copy of the n doubles g (1-d). */
static void set_grad(tsr_tensor* p, const double* g, int64_t n) {
  tsr_tensor* t = doubles(g, 1, &n, 0);
  CHECK_OK(tsr_tensor_set_grad(p, t));
  tsr_tensor_release(t);
}

/* The value of a one-element tensor (released), as a double. */
static double item_of(tsr_tensor* t) {
  tsr_scalar s;
  s.f = NAN;
  if (t == NULL) return NAN;
  CHECK_OK(tsr_item(t, &s));
  tsr_tensor_release(t);
  return s.f;
}

static tsr_tensor* state_of(tsr_optimizer* opt, int32_t i, const char* name) {
  tsr_tensor* t = NULL;
  CHECK_OK(tsr_optimizer_get_state(opt, i, name, &t));
  return t;
}

/* ---- a tiny classifier trained with AdamW ----------------------------------- */

enum { N = 12, IN = 4, HIDDEN = 8, CLASSES = 3 };

static double lcg(unsigned* s) { /* deterministic values in [-1, 1) */
  *s = *s * 1664525u + 1013904223u;
  return (double)(*s >> 8) / 8388608.0 - 1.0;
}

/* The mean cross-entropy of the model on (x, y); the graph recorded. */
static tsr_tensor* forward(tsr_tensor* x, tsr_tensor* y, tsr_tensor* const* params) {
  tsr_tensor *h = NULL, *a = NULL, *logits = NULL, *loss = NULL;
  tsr_loss_options mean = TSR_LOSS_OPTIONS_INIT;
  CHECK_OK(tsr_linear(x, params[0], params[1], &h));
  CHECK_OK(tsr_gelu(h, 0, &a));
  CHECK_OK(tsr_linear(a, params[2], params[3], &logits));
  CHECK_OK(tsr_cross_entropy(logits, y, &mean, &loss));
  tsr_tensor_release(logits);
  tsr_tensor_release(a);
  tsr_tensor_release(h);
  return loss;
}

static void train(void) {
  static const int64_t xs[2] = {N, IN}, w1s[2] = {HIDDEN, IN}, b1s[1] = {HIDDEN}, w2s[2] = {CLASSES, HIDDEN},
                       b2s[1] = {CLASSES}, ys[1] = {N};
  double xv[N * IN], w1[HIDDEN * IN], b1[HIDDEN], w2[CLASSES * HIDDEN], b2[CLASSES];
  int64_t yv[N];
  unsigned seed = 12345u;
  tsr_tensor *x, *y = NULL, *params[4], *loss;
  tsr_optimizer* opt = NULL;
  tsr_optimizer_options o;
  double first = 0, last = 0;
  int i, step;

  for (i = 0; i < N * IN; ++i) xv[i] = 2.0 * lcg(&seed);
  for (i = 0; i < N; ++i) { /* a class the inputs decide */
    const double s = xv[i * IN] + 0.5 * xv[i * IN + 1] - xv[i * IN + 2];
    yv[i] = s < -0.5 ? 0 : (s < 0.5 ? 1 : 2);
  }
  for (i = 0; i < HIDDEN * IN; ++i) w1[i] = 0.5 * lcg(&seed);
  for (i = 0; i < HIDDEN; ++i) b1[i] = 0.1 * lcg(&seed);
  for (i = 0; i < CLASSES * HIDDEN; ++i) w2[i] = 0.35 * lcg(&seed);
  for (i = 0; i < CLASSES; ++i) b2[i] = 0.1 * lcg(&seed);
  x = doubles(xv, 2, xs, 0);
  CHECK_OK(tsr_from_host(rt, yv, 1, ys, TSR_INT64, cpu, &y));
  params[0] = doubles(w1, 2, w1s, 1);
  params[1] = doubles(b1, 1, b1s, 1);
  params[2] = doubles(w2, 2, w2s, 1);
  params[3] = doubles(b2, 1, b2s, 1);

  CHECK_OK(tsr_optimizer_defaults(TSR_OPTIMIZER_ADAMW, &o));
  CHECK(o.lr == 1e-3 && o.weight_decay == 1e-2 && o.beta1 == 0.9 && o.beta2 == 0.999 && o.eps == 1e-8 &&
        !o.amsgrad && !o.maximize && o.struct_size == TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE);
  o.lr = 0.05;
  CHECK_OK(tsr_optimizer_create(4, params, &o, &opt));
  CHECK(tsr_optimizer_num_params(opt) == 4);
  for (step = 0; step < 60; ++step) {
    CHECK_OK(tsr_optimizer_zero_grad(opt, 1));
    loss = forward(x, y, params);
    CHECK_OK(tsr_backward(1, &loss, NULL, 0, NULL, NULL));
    CHECK_OK(tsr_optimizer_step(opt));
    if (step == 0) first = item_of(loss);
    else if (step == 59) last = item_of(loss);
    else tsr_tensor_release(loss);
  }
  if (!(first > 0.8 && last < 0.05 * first)) {
    fprintf(stderr, "train: the loss went from %g to %g in 60 AdamW steps\n", first, last);
    ++failures;
  }
  CHECK(item_of(state_of(opt, 0, "step")) == 60.0);
  {
    tsr_tensor* p = NULL;
    CHECK_OK(tsr_optimizer_param(opt, 2, &p));
    CHECK(p == params[2] || (p != NULL && tsr_tensor_storage_data(p) == tsr_tensor_storage_data(params[2])));
    tsr_tensor_release(p);
    CHECK_FAILS(tsr_optimizer_param(opt, 4, &p), TSR_ERR_INDEX, "out of range");
  }
  tsr_optimizer_destroy(opt);
  for (i = 0; i < 4; ++i) tsr_tensor_release(params[i]);
  tsr_tensor_release(y);
  tsr_tensor_release(x);
}

/* ---- SGD and Adam against updates computed by hand --------------------------- */

enum { K = 3 };

static void sgd_by_hand(void) {
  static const double p0[K] = {0.5, -1.25, 2.0}, g1[K] = {0.1, 0.2, -0.3}, g2[K] = {-0.4, 0.05, 0.25};
  const double lr = 0.1, momentum = 0.9, dampening = 0.25, wd = 0.01;
  static const int64_t k = K;
  double p[K], buf[K], d;
  tsr_tensor *param = doubles(p0, 1, &k, 1), *b;
  tsr_optimizer* opt = NULL;
  tsr_optimizer_options o;
  int i;

  CHECK_OK(tsr_optimizer_defaults(TSR_OPTIMIZER_SGD, &o));
  CHECK(isnan(o.lr) && o.momentum == 0 && o.dampening == 0 && !o.nesterov && o.weight_decay == 0);
  o.lr = lr;
  o.momentum = momentum;
  o.dampening = dampening;
  o.weight_decay = wd;
  CHECK_OK(tsr_optimizer_create(1, &param, &o, &opt));
  b = state_of(opt, 0, "momentum_buffer");
  CHECK(b == NULL); /* no state before the first step */

  /* Step 1: the buffer is d_p itself (no dampening), p -= lr buf. */
  set_grad(param, g1, K);
  CHECK_OK(tsr_optimizer_step(opt));
  for (i = 0; i < K; ++i) {
    buf[i] = g1[i] + wd * p0[i];
    p[i] = p0[i] + -lr * buf[i];
  }
  expect(param, p, K, "SGD step 1");
  b = state_of(opt, 0, "momentum_buffer");
  expect(b, buf, K, "SGD momentum_buffer after step 1");
  tsr_tensor_release(b);
  CHECK(state_of(opt, 0, "step") == NULL); /* SGD keeps no step */

  /* Step 2: buf = momentum buf + (1 - dampening) d_p. */
  set_grad(param, g2, K);
  CHECK_OK(tsr_optimizer_step(opt));
  for (i = 0; i < K; ++i) {
    d = g2[i] + wd * p[i];
    buf[i] = buf[i] * momentum + (1 - dampening) * d;
    p[i] = p[i] + -lr * buf[i];
  }
  expect(param, p, K, "SGD step 2 (momentum, dampening)");

  /* Nesterov, options changed between steps: d_p + momentum buf. */
  CHECK_OK(tsr_optimizer_get_options(opt, &o));
  CHECK(o.lr == lr && o.momentum == momentum && o.dampening == dampening && o.kind == TSR_OPTIMIZER_SGD);
  o.dampening = 0;
  o.nesterov = 1;
  o.maximize = 1;
  CHECK_OK(tsr_optimizer_set_options(opt, &o));
  set_grad(param, g1, K);
  CHECK_OK(tsr_optimizer_step(opt));
  for (i = 0; i < K; ++i) {
    d = -g1[i] + wd * p[i];
    buf[i] = buf[i] * momentum + d;
    p[i] = p[i] + -lr * (d + momentum * buf[i]);
  }
  expect(param, p, K, "SGD step 3 (nesterov, maximize)");

  /* set_lr: lr 0 leaves the parameter where it is (the buffer moves on). */
  CHECK_OK(tsr_optimizer_set_lr(opt, 0.0));
  CHECK_OK(tsr_optimizer_get_options(opt, &o));
  CHECK(o.lr == 0.0 && o.nesterov == 1 && o.momentum == momentum);
  CHECK_OK(tsr_optimizer_step(opt));
  expect(param, p, K, "SGD with lr 0");

  /* zero_grad: in place, then dropped; a step without a .grad is skipped. */
  {
    tsr_tensor* g = NULL;
    double zeros[K] = {0, 0, 0};
    CHECK_OK(tsr_tensor_grad(param, &g));
    CHECK_OK(tsr_optimizer_zero_grad(opt, 0));
    expect(g, zeros, K, "a .grad zeroed in place");
    tsr_tensor_release(g);
    CHECK_OK(tsr_optimizer_zero_grad(opt, 1));
    CHECK_OK(tsr_tensor_grad(param, &g));
    CHECK(g == NULL);
    CHECK_OK(tsr_optimizer_set_lr(opt, lr));
    CHECK_OK(tsr_optimizer_step(opt));
    expect(param, p, K, "SGD without a .grad");
  }

  /* The kind cannot change; errors leave the options as they were. */
  o.kind = TSR_OPTIMIZER_ADAM;
  CHECK_FAILS(tsr_optimizer_set_options(opt, &o), TSR_ERR_INVALID_ARGUMENT, "the kind cannot change");
  CHECK_FAILS(tsr_optimizer_set_lr(opt, -1.0), TSR_ERR_INVALID_ARGUMENT, "Invalid learning rate: -1");
  CHECK_OK(tsr_optimizer_get_options(opt, &o));
  CHECK(o.lr == lr && o.kind == TSR_OPTIMIZER_SGD);
  o.dampening = 0.5; /* with nesterov */
  CHECK_FAILS(tsr_optimizer_set_options(opt, &o), TSR_ERR_INVALID_ARGUMENT,
              "Nesterov momentum requires a momentum and zero dampening");

  tsr_optimizer_destroy(opt);
  tsr_tensor_release(param);
}

static void adam_by_hand(void) {
  static const double p0[K] = {0.75, -0.5, 1.5}, g1[K] = {0.3, -0.02, 0.6}, g2[K] = {-0.1, 0.4, 0.2};
  const double lr = 0.01, beta1 = 0.8, beta2 = 0.95, eps = 1e-6, wd = 0.1;
  static const int64_t k = K;
  const double* gs[2];
  double p[K], m[K] = {0, 0, 0}, v[K] = {0, 0, 0}, vmax[K] = {0, 0, 0}, g, bc1, bc2, step_size;
  tsr_tensor *param = doubles(p0, 1, &k, 1), *t;
  tsr_optimizer* opt = NULL;
  tsr_optimizer_options o;
  int i, s;

  CHECK_OK(tsr_optimizer_defaults(TSR_OPTIMIZER_ADAM, &o));
  CHECK(o.lr == 1e-3 && o.weight_decay == 0 && o.beta1 == 0.9 && o.beta2 == 0.999 && o.eps == 1e-8);
  o.lr = lr;
  o.beta1 = beta1;
  o.beta2 = beta2;
  o.eps = eps;
  o.weight_decay = wd;
  o.amsgrad = 1;
  CHECK_OK(tsr_optimizer_create(1, &param, &o, &opt));
  CHECK(state_of(opt, 0, "exp_avg") == NULL && state_of(opt, 0, "step") == NULL);
  gs[0] = g1;
  gs[1] = g2;
  memcpy(p, p0, sizeof p);
  for (s = 1; s <= 2; ++s) {
    set_grad(param, gs[s - 1], K);
    CHECK_OK(tsr_optimizer_step(opt));
    bc1 = 1 - pow(beta1, s);
    bc2 = 1 - pow(beta2, s);
    step_size = lr / bc1;
    for (i = 0; i < K; ++i) {
      g = gs[s - 1][i] + wd * p[i]; /* Adam: L2 in the gradient */
      m[i] = m[i] * beta1 + (1 - beta1) * g;
      v[i] = v[i] * beta2 + ((1 - beta2) * g) * g;
      vmax[i] = v[i] > vmax[i] ? v[i] : vmax[i];
      p[i] = p[i] + (-step_size * m[i]) / (sqrt(vmax[i]) / sqrt(bc2) + eps);
    }
    expect(param, p, K, s == 1 ? "Adam step 1" : "Adam step 2");
  }
  t = state_of(opt, 0, "exp_avg");
  expect(t, m, K, "exp_avg");
  tsr_tensor_release(t);
  t = state_of(opt, 0, "exp_avg_sq");
  expect(t, v, K, "exp_avg_sq");
  tsr_tensor_release(t);
  t = state_of(opt, 0, "max_exp_avg_sq");
  expect(t, vmax, K, "max_exp_avg_sq");
  tsr_tensor_release(t);
  t = state_of(opt, 0, "step");
  CHECK(t != NULL && tsr_tensor_ndim(t) == 0 && tsr_tensor_dtype(t) == TSR_FLOAT32);
  CHECK(item_of(t) == 2.0);

  /* State: get hands out the state itself (writes into it are the
   * state's); set copies; NULL removes; "step" moves the bias correction. */
  {
    static const double mv[K] = {0.01, -0.02, 0.03};
    double wantp[K];
    tsr_tensor *seven = NULL, *mine = doubles(mv, 1, &k, 0), *wrong = NULL, *ints = NULL;
    static const int64_t two = 2;
    static const int32_t iv[K] = {1, 2, 3};
    t = state_of(opt, 0, "exp_avg");
    CHECK_OK(tsr_binary_scalar_(TSR_OP_MUL, t, tsr_scalar_float(2.0)));
    tsr_tensor_release(t);
    for (i = 0; i < K; ++i) m[i] *= 2.0;
    t = state_of(opt, 0, "exp_avg");
    expect(t, m, K, "exp_avg written through get_state");
    tsr_tensor_release(t);
    CHECK_OK(tsr_optimizer_set_state(opt, 0, "exp_avg", mine));
    CHECK_OK(tsr_binary_scalar_(TSR_OP_MUL, mine, tsr_scalar_float(100.0))); /* not the state's */
    t = state_of(opt, 0, "exp_avg");
    expect(t, mv, K, "exp_avg after set_state");
    CHECK(t != mine);
    tsr_tensor_release(t);
    CHECK_OK(tsr_from_host(rt, iv, 1, &k, TSR_INT32, cpu, &ints)); /* cast to the parameter's dtype */
    CHECK_OK(tsr_optimizer_set_state(opt, 0, "exp_avg_sq", ints));
    t = state_of(opt, 0, "exp_avg_sq");
    {
      const double want[K] = {1, 2, 3};
      expect(t, want, K, "exp_avg_sq set from int32");
    }
    tsr_tensor_release(t);
    CHECK_OK(tsr_full(rt, 0, NULL, tsr_scalar_float(7.0), TSR_FLOAT32, cpu, &seven));
    CHECK_OK(tsr_optimizer_set_state(opt, 0, "step", seven));
    CHECK(item_of(state_of(opt, 0, "step")) == 7.0);
    CHECK_OK(tsr_optimizer_set_state(opt, 0, "max_exp_avg_sq", NULL));
    CHECK(state_of(opt, 0, "max_exp_avg_sq") == NULL);
    /* Without amsgrad now, step 8 from the state set above. */
    CHECK_OK(tsr_optimizer_get_options(opt, &o));
    o.amsgrad = 0;
    o.maximize = 1;
    CHECK_OK(tsr_optimizer_set_options(opt, &o));
    set_grad(param, g1, K);
    CHECK_OK(tsr_optimizer_step(opt));
    bc1 = 1 - pow(beta1, 8);
    bc2 = 1 - pow(beta2, 8);
    for (i = 0; i < K; ++i) {
      g = -g1[i] + wd * p[i];
      m[i] = mv[i] * beta1 + (1 - beta1) * g;
      v[i] = (i + 1.0) * beta2 + ((1 - beta2) * g) * g;
      wantp[i] = p[i] + (-(lr / bc1) * m[i]) / (sqrt(v[i]) / sqrt(bc2) + eps);
    }
    expect(param, wantp, K, "Adam step from a set state (step 8, maximize)");
    CHECK(item_of(state_of(opt, 0, "step")) == 8.0);

    CHECK_FAILS(tsr_optimizer_get_state(opt, 0, "momentum", &t), TSR_ERR_INVALID_ARGUMENT,
                "no state named \"momentum\"");
    CHECK(t == NULL);
    CHECK_FAILS(tsr_optimizer_set_state(opt, 0, "exp_avgs", mine), TSR_ERR_INVALID_ARGUMENT, "no state named");
    CHECK_FAILS(tsr_optimizer_get_state(opt, 1, "exp_avg", &t), TSR_ERR_INDEX, "out of range");
    CHECK_OK(tsr_zeros(rt, 1, &two, TSR_FLOAT64, cpu, &wrong));
    CHECK_FAILS(tsr_optimizer_set_state(opt, 0, "exp_avg", wrong), TSR_ERR_SHAPE, "the parameter's shape");
    CHECK_FAILS(tsr_optimizer_set_state(opt, 0, "step", wrong), TSR_ERR_SHAPE, "one element");
    tsr_tensor_release(ints);
    tsr_tensor_release(wrong);
    tsr_tensor_release(seven);
    tsr_tensor_release(mine);
  }
  tsr_optimizer_destroy(opt);
  tsr_tensor_release(param);
}

/* ---- AdamW's decoupled decay, one step -------------------------------------- */

static void adamw_by_hand(void) {
  static const double p0[K] = {1.0, -2.0, 0.5}, g1[K] = {0.2, 0.1, -0.3};
  static const int64_t k = K;
  tsr_tensor* param = doubles(p0, 1, &k, 1);
  tsr_optimizer* opt = NULL;
  tsr_optimizer_options o;
  double p[K], m, v;
  int i;
  CHECK_OK(tsr_optimizer_defaults(TSR_OPTIMIZER_ADAMW, &o));
  o.lr = 0.1;
  o.weight_decay = 0.5;
  CHECK_OK(tsr_optimizer_create(1, &param, &o, &opt));
  set_grad(param, g1, K);
  CHECK_OK(tsr_optimizer_step(opt));
  for (i = 0; i < K; ++i) {
    p[i] = p0[i] * (1 - 0.1 * 0.5); /* the gradient itself undecayed */
    m = (1 - 0.9) * g1[i];
    v = ((1 - 0.999) * g1[i]) * g1[i];
    p[i] = p[i] + (-(0.1 / (1 - 0.9)) * m) / (sqrt(v) / sqrt(1 - 0.999) + 1e-8);
  }
  expect(param, p, K, "AdamW step 1");
  tsr_optimizer_destroy(opt);
  tsr_tensor_release(param);
}

/* ---- the errors --------------------------------------------------------------- */

static void errors(void) {
  static const double v[2] = {1.0, 2.0};
  static const int64_t two = 2;
  tsr_tensor *a = doubles(v, 1, &two, 1), *b = doubles(v, 1, &two, 1), *nonleaf = NULL, *ints = NULL, *pair[2];
  tsr_optimizer* opt = NULL;
  tsr_optimizer_options o;

  CHECK_OK(tsr_optimizer_defaults(TSR_OPTIMIZER_SGD, &o));
  CHECK_FAILS(tsr_optimizer_create(1, &a, &o, &opt), TSR_ERR_INVALID_ARGUMENT, "lr is required");
  CHECK(opt == NULL);
  o.lr = -1.0;
  CHECK_FAILS(tsr_optimizer_create(1, &a, &o, &opt), TSR_ERR_INVALID_ARGUMENT, "Invalid learning rate: -1");
  o.lr = 0.1;
  o.momentum = -0.5;
  CHECK_FAILS(tsr_optimizer_create(1, &a, &o, &opt), TSR_ERR_INVALID_ARGUMENT, "Invalid momentum value: -0.5");
  o.momentum = 0;
  o.weight_decay = -0.1;
  CHECK_FAILS(tsr_optimizer_create(1, &a, &o, &opt), TSR_ERR_INVALID_ARGUMENT,
              "Invalid weight_decay value: -0.1");
  o.weight_decay = 0;
  o.nesterov = 1;
  CHECK_FAILS(tsr_optimizer_create(1, &a, &o, &opt), TSR_ERR_INVALID_ARGUMENT,
              "Nesterov momentum requires a momentum and zero dampening");
  CHECK_OK(tsr_optimizer_defaults(TSR_OPTIMIZER_ADAM, &o));
  o.beta1 = 1.0;
  CHECK_FAILS(tsr_optimizer_create(1, &a, &o, &opt), TSR_ERR_INVALID_ARGUMENT,
              "Invalid beta parameter at index 0: 1");
  o.beta1 = 0.9;
  o.beta2 = -0.5;
  CHECK_FAILS(tsr_optimizer_create(1, &a, &o, &opt), TSR_ERR_INVALID_ARGUMENT,
              "Invalid beta parameter at index 1: -0.5");
  o.beta2 = 0.999;
  o.eps = -1e-8;
  CHECK_FAILS(tsr_optimizer_create(1, &a, &o, &opt), TSR_ERR_INVALID_ARGUMENT, "Invalid epsilon value: -1e-08");
  o.eps = 1e-8;
  o.kind = 7;
  CHECK_FAILS(tsr_optimizer_create(1, &a, &o, &opt), TSR_ERR_INVALID_ARGUMENT, "is not a tsr_optimizer_kind");
  CHECK_FAILS(tsr_optimizer_defaults(-1, &o), TSR_ERR_INVALID_ARGUMENT, "is not a tsr_optimizer_kind");
  CHECK_OK(tsr_optimizer_defaults(TSR_OPTIMIZER_ADAM, &o));
  o.struct_size = 4;
  CHECK_FAILS(tsr_optimizer_create(1, &a, &o, &opt), TSR_ERR_INVALID_ARGUMENT, "struct_size");
  o.struct_size = TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE;

  /* The parameters: leaves, floating, each once. */
  CHECK_OK(tsr_binary(TSR_OP_MUL, a, b, &nonleaf));
  CHECK_FAILS(tsr_optimizer_create(1, &nonleaf, &o, &opt), TSR_ERR_INVALID_ARGUMENT,
              "can't optimize a non-leaf Tensor");
  pair[0] = a;
  pair[1] = a;
  CHECK_FAILS(tsr_optimizer_create(2, pair, &o, &opt), TSR_ERR_INVALID_ARGUMENT, "appear more than once");
  CHECK(opt == NULL);
  CHECK_OK(tsr_zeros(rt, 1, &two, TSR_INT64, cpu, &ints));
  pair[1] = ints;
  CHECK_FAILS(tsr_optimizer_create(2, pair, &o, &opt), TSR_ERR_TYPE, "parameters are floating tensors");
  CHECK_FAILS(tsr_optimizer_create(-1, NULL, &o, &opt), TSR_ERR_INVALID_ARGUMENT, "num_params is negative");
  CHECK_FAILS(tsr_optimizer_step(NULL), TSR_ERR_INVALID_ARGUMENT, "optimizer");
  CHECK(strlen(tsr_last_error_message()) > 0);
  CHECK(tsr_optimizer_num_params(NULL) == 0);
  tsr_optimizer_destroy(NULL);

  /* No parameters is allowed (a step does nothing); two distinct ones too. */
  CHECK_OK(tsr_optimizer_create(0, NULL, &o, &opt));
  CHECK_OK(tsr_optimizer_step(opt));
  tsr_optimizer_destroy(opt);
  opt = NULL;
  pair[0] = a;
  pair[1] = b;
  CHECK_OK(tsr_optimizer_create(2, pair, &o, &opt));
  CHECK(tsr_optimizer_num_params(opt) == 2);
  tsr_optimizer_destroy(opt);

  tsr_tensor_release(ints);
  tsr_tensor_release(nonleaf);
  tsr_tensor_release(b);
  tsr_tensor_release(a);
}

int main(int argc, char** argv) {
  if (!start_runtime(argc, argv)) return 1;
  CHECK(tsr_struct_size(TSR_STRUCT_OPTIMIZER_OPTIONS) == TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE);
  CHECK(tsr_struct_size(TSR_STRUCT_LOSS_OPTIONS) == TSR_LOSS_OPTIONS_STRUCT_SIZE);
  CHECK(TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE == sizeof(tsr_optimizer_options));

  train();
  sgd_by_hand();
  adam_by_hand();
  adamw_by_hand();
  errors();

  CHECK_OK(tsr_runtime_destroy(rt));
  if (failures == 0) printf("c99_training: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
