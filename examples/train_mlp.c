/* SPDX-License-Identifier: Apache-2.0 */
/* train_mlp.c: the lessons' MLP trained on scikit-learn's digits from C99,
 * through Tessera's public C API only: examples/train_mlp.py's training, step
 * for step.
 *
 * The network is 64-16-16-10: the lessons' two hidden layers of 16 ReLU
 * units (their 2-16-16-1 network with its sigmoid output), with 64 inputs
 * (one per pixel of the 8x8 images) and 10 logits whose softmax, inside
 * tsr_cross_entropy, takes the place of the sigmoid for ten classes. The
 * Linear layers are initialised as torch's (and tessera.nn's): weight and
 * bias uniform in (-1/sqrt(fan_in), 1/sqrt(fan_in)) from the runtime's
 * seeded generator (tsr_rand after tsr_manual_seed), weight then bias, layer
 * by layer. Training is AdamW (lr 5e-3, torch's other defaults) on
 * minibatches of 32 gathered (tsr_take) in an order drawn from the same
 * generator (tsr_sort of tsr_rand); the loss per epoch and the final test
 * accuracy are printed as train_mlp.py prints them, and the weights are
 * saved as safetensors under tessera.nn.Sequential's names (0.weight,
 * 0.bias, 2.weight, ...), so that train_mlp.py's model loads them.
 *
 * The data is one safetensors file holding X_train [N, 64] float32, y_train
 * [N] int64, X_test [M, 64] float32 and y_test [M] int64, standardised
 * pixels and labels; `examples/train_mlp.py --export-data FILE` writes it.
 *
 *   train_mlp DATA.safetensors [--epochs N] [--seed S] [--device D]
 *             [--out WEIGHTS.safetensors] [--config CONFIG.json]
 *
 * The config is --config, else $TESSERA_CONFIG, else the default one beside
 * libtessera. Any error ends the program with status 1 and
 * tsr_last_error_message(); everything it makes is released (the runtime's
 * destroy would refuse a tensor left alive). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tessera/tessera.h"

#define NUM_LAYERS 3
#define BATCH 32
#define LEARNING_RATE 5e-3
static const int64_t sizes[NUM_LAYERS + 1] = {64, 16, 16, 10};
static const char* const param_names[2 * NUM_LAYERS] = {"0.weight", "0.bias", "2.weight",
                                                        "2.bias",   "4.weight", "4.bias"};

/* Runs a call; on failure prints it with the runtime's message and jumps to
 * the function's `done` label (which releases what the function made). */
#define TRY(call)                                                                                      \
  do {                                                                                                 \
    tsr_status try_status_ = (call);                                                                   \
    if (try_status_ != TSR_OK) {                                                                       \
      fprintf(stderr, "train_mlp: %s: %s (%s)\n", #call, tsr_last_error_message(),                   \
              tsr_status_name(try_status_));                                                           \
      goto done;                                                                                       \
    }                                                                                                  \
  } while (0)
#define FAIL(...)                           \
  do {                                      \
    fprintf(stderr, "train_mlp: ");         \
    fprintf(stderr, __VA_ARGS__);           \
    fprintf(stderr, "\n");                  \
    goto done;                              \
  } while (0)

typedef struct data {
  tsr_tensor *X_train, *y_train, *X_test, *y_test;
} data;

static void release_data(data* d) {
  tsr_tensor_release(d->X_train);
  tsr_tensor_release(d->y_train);
  tsr_tensor_release(d->X_test);
  tsr_tensor_release(d->y_test);
}

/* Reads the four tensors onto `device` and checks their dtypes and shapes. */
static int load_data(tsr_runtime* rt, const char* path, tsr_device device, data* d) {
  static const char* const names[4] = {"X_train", "y_train", "X_test", "y_test"};
  tsr_tensor** slots[4];
  tsr_safetensors* st = NULL;
  int i, ok = 0;
  slots[0] = &d->X_train;
  slots[1] = &d->y_train;
  slots[2] = &d->X_test;
  slots[3] = &d->y_test;
  TRY(tsr_safetensors_open(rt, path, &st));
  for (i = 0; i < 4; ++i) TRY(tsr_safetensors_get(st, names[i], device, slots[i]));
  for (i = 0; i < 4; i += 2) {
    tsr_tensor* X = *slots[i];
    tsr_tensor* y = *slots[i + 1];
    if (tsr_tensor_dtype(X) != TSR_FLOAT32 || tsr_tensor_ndim(X) != 2 || tsr_tensor_shape(X)[1] != sizes[0])
      FAIL("%s: %s must be float32 of shape [N, %ld]", path, names[i], (long)sizes[0]);
    if (tsr_tensor_dtype(y) != TSR_INT64 || tsr_tensor_ndim(y) != 1 || tsr_tensor_shape(y)[0] != tsr_tensor_shape(X)[0])
      FAIL("%s: %s must be int64 of shape [%ld]", path, names[i + 1], (long)tsr_tensor_shape(X)[0]);
  }
  ok = 1;
done:
  tsr_safetensors_free(st);
  return ok;
}

/* torch.nn.init.uniform_'s draw: U(-bound, bound) as rand * (2 bound) - bound. */
static int uniform(tsr_runtime* rt, int32_t ndim, const int64_t* shape, double bound, tsr_device device,
                   tsr_tensor** out) {
  tsr_tensor *r = NULL, *scaled = NULL;
  int ok = 0;
  TRY(tsr_rand(rt, ndim, shape, TSR_FLOAT32, device, &r));
  TRY(tsr_binary_scalar(TSR_OP_MUL, r, tsr_scalar_float(bound - -bound), 0, &scaled));
  TRY(tsr_binary_scalar(TSR_OP_ADD, scaled, tsr_scalar_float(-bound), 0, out));
  TRY(tsr_tensor_set_requires_grad(*out, 1));
  ok = 1;
done:
  tsr_tensor_release(r);
  tsr_tensor_release(scaled);
  return ok;
}

/* torch.nn.Linear's reset_parameters: kaiming_uniform_(weight, a=sqrt(5)),
 * whose bound gain * sqrt(3 / fan_in) with gain sqrt(2 / (1 + a^2)) is
 * 1/sqrt(fan_in) (computed as torch computes it), and the bias uniform in
 * +-1/sqrt(fan_in). params[2 l] is layer l's weight, params[2 l + 1] its bias. */
static int init_params(tsr_runtime* rt, tsr_device device, tsr_tensor** params) {
  int l;
  for (l = 0; l < NUM_LAYERS; ++l) {
    int64_t shape[2];
    double fan_in = (double)sizes[l], a = sqrt(5.0);
    double gain = sqrt(2.0 / (1 + pow(a, 2.0)));
    shape[0] = sizes[l + 1];
    shape[1] = sizes[l];
    if (!uniform(rt, 2, shape, sqrt(3.0) * (gain / sqrt(fan_in)), device, &params[2 * l])) return 0;
    if (!uniform(rt, 1, shape, 1 / sqrt(fan_in), device, &params[2 * l + 1])) return 0;
  }
  return 1;
}

/* The network's logits for x [n, 64]: linear, relu, linear, relu, linear. */
static int forward(tsr_tensor* const* params, tsr_tensor* x, tsr_tensor** logits) {
  tsr_tensor *a = x, *z = NULL;
  int l, ok = 0;
  tsr_tensor_retain(x);
  for (l = 0; l < NUM_LAYERS; ++l) {
    TRY(tsr_linear(a, params[2 * l], params[2 * l + 1], &z));
    tsr_tensor_release(a);
    a = NULL;
    if (l + 1 < NUM_LAYERS) {
      TRY(tsr_unary(TSR_OP_RELU, z, &a));
      tsr_tensor_release(z);
      z = NULL;
    }
  }
  *logits = z;
  z = NULL;
  ok = 1;
done:
  tsr_tensor_release(a);
  tsr_tensor_release(z);
  return ok;
}

/* One minibatch: zero_grad, forward, cross_entropy, backward, step; *loss
 * gets the batch's mean loss. */
static int train_step(tsr_optimizer* opt, tsr_tensor* const* params, const data* d, tsr_tensor* index,
                      double* loss_value) {
  tsr_tensor *x = NULL, *y = NULL, *logits = NULL, *loss = NULL;
  tsr_scalar value;
  int ok = 0;
  TRY(tsr_take(d->X_train, index, 0, &x));
  TRY(tsr_take(d->y_train, index, 0, &y));
  TRY(tsr_optimizer_zero_grad(opt, 1));
  if (!forward(params, x, &logits)) goto done;
  TRY(tsr_cross_entropy(logits, y, NULL, &loss));
  TRY(tsr_backward(1, &loss, NULL, 0, NULL, NULL));
  TRY(tsr_optimizer_step(opt));
  TRY(tsr_item(loss, &value));
  *loss_value = value.f;
  ok = 1;
done:
  tsr_tensor_release(x);
  tsr_tensor_release(y);
  tsr_tensor_release(logits);
  tsr_tensor_release(loss);
  return ok;
}

/* One pass over the training set in an order drawn from the generator;
 * prints the epoch's line with its mean loss. */
static int train_epoch(tsr_runtime* rt, tsr_device device, tsr_optimizer* opt, tsr_tensor* const* params,
                       const data* d, int epoch, int epochs) {
  const int64_t n = tsr_tensor_shape(d->X_train)[0];
  const int64_t batches = (n + BATCH - 1) / BATCH;
  tsr_tensor *r = NULL, *order = NULL, *index = NULL;
  tsr_sort_options sort = TSR_SORT_OPTIONS_INIT;
  double total = 0.0, loss;
  int64_t b;
  int width = 0, e, ok = 0;
  char bar[31];
  TRY(tsr_rand(rt, 1, &n, TSR_FLOAT32, device, &r));
  TRY(tsr_sort(r, &sort, NULL, &order)); /* a permutation: tessera.rand(n).argsort() */
  for (b = 0; b < batches; ++b) {
    TRY(tsr_slice(order, 0, b * BATCH, (b + 1) * BATCH, 1, &index));
    if (!train_step(opt, params, d, index, &loss)) goto done;
    total += loss * (double)tsr_tensor_numel(index);
    tsr_tensor_release(index);
    index = NULL;
  }
  for (e = epochs; e > 0; e /= 10) ++width;
  memset(bar, '#', sizeof bar - 1);
  bar[sizeof bar - 1] = '\0';
  printf("epoch %*d/%d [%s] %ld/%ld loss %.4f\n", width, epoch, epochs, bar, (long)batches, (long)batches,
         total / (double)n);
  fflush(stdout);
  ok = 1;
done:
  tsr_tensor_release(r);
  tsr_tensor_release(order);
  tsr_tensor_release(index);
  return ok;
}

/* How many rows of X the network classifies as y says, with grad mode off. */
static int count_correct(tsr_tensor* const* params, tsr_tensor* X, tsr_tensor* y, int64_t* correct) {
  tsr_tensor *logits = NULL, *predicted = NULL, *equal = NULL, *count = NULL;
  const int32_t class_dim = 1;
  int32_t was_enabled = tsr_set_grad_enabled(0);
  tsr_scalar value;
  int ok = 0;
  if (!forward(params, X, &logits)) goto done;
  TRY(tsr_reduce(TSR_OP_ARGMAX, logits, 1, &class_dim, 0, &predicted));
  TRY(tsr_binary(TSR_OP_EQ, predicted, y, &equal));
  TRY(tsr_reduce(TSR_OP_SUM, equal, 0, NULL, 0, &count));
  TRY(tsr_item(count, &value));
  *correct = value.i;
  ok = 1;
done:
  tsr_set_grad_enabled(was_enabled);
  tsr_tensor_release(logits);
  tsr_tensor_release(predicted);
  tsr_tensor_release(equal);
  tsr_tensor_release(count);
  return ok;
}

/* Saves the parameters, opens the file again and checks that every tensor
 * reads back bit for bit. */
static int save_and_check(tsr_runtime* rt, tsr_device device, tsr_tensor* const* params, const char* path) {
  tsr_safetensors* st = NULL;
  tsr_tensor* back = NULL;
  int i, ok = 0;
  TRY(tsr_safetensors_save(path, 2 * NUM_LAYERS, param_names, params, 0, NULL, NULL));
  TRY(tsr_safetensors_open(rt, path, &st));
  if (tsr_safetensors_count(st) != 2 * NUM_LAYERS) FAIL("%s: %ld tensors, not %d", path,
                                                         (long)tsr_safetensors_count(st), 2 * NUM_LAYERS);
  for (i = 0; i < 2 * NUM_LAYERS; ++i) {
    TRY(tsr_safetensors_get(st, param_names[i], device, &back));
    TRY(tsr_assert_close(back, params[i], 0.0, 0.0, 0));
    tsr_tensor_release(back);
    back = NULL;
  }
  ok = 1;
done:
  tsr_tensor_release(back);
  tsr_safetensors_free(st);
  return ok;
}

static int usage(void) {
  fprintf(stderr, "usage: train_mlp DATA.safetensors [--epochs N] [--seed S] [--device D] "
                  "[--out WEIGHTS.safetensors] [--config CONFIG.json]\n");
  return 2;
}

int main(int argc, char** argv) {
  const char *data_path = NULL, *out_path = "mlp.safetensors", *device_name = "cpu", *config = NULL;
  long epochs = 30;
  unsigned long long seed = 0;
  tsr_runtime_options options = TSR_RUNTIME_OPTIONS_INIT;
  tsr_runtime* rt = NULL;
  tsr_device device;
  data d = {NULL, NULL, NULL, NULL};
  tsr_tensor* params[2 * NUM_LAYERS] = {NULL, NULL, NULL, NULL, NULL, NULL};
  tsr_optimizer_options adamw;
  tsr_optimizer* opt = NULL;
  int64_t correct = 0, test_size;
  int i, status = 1;

  for (i = 1; i < argc; ++i) {
    char* end = NULL;
    if (argv[i][0] != '-' && data_path == NULL) {
      data_path = argv[i];
    } else if (i + 1 >= argc) {
      return usage();
    } else if (strcmp(argv[i], "--epochs") == 0) {
      epochs = strtol(argv[++i], &end, 10);
      if (*end != '\0' || epochs < 1 || epochs > 100000) return usage();
    } else if (strcmp(argv[i], "--seed") == 0) {
      seed = strtoull(argv[++i], &end, 10);
      if (*end != '\0') return usage();
    } else if (strcmp(argv[i], "--device") == 0) {
      device_name = argv[++i];
    } else if (strcmp(argv[i], "--out") == 0) {
      out_path = argv[++i];
    } else if (strcmp(argv[i], "--config") == 0) {
      config = argv[++i];
    } else {
      return usage();
    }
  }
  if (data_path == NULL) return usage();

  options.config_path = config;
  TRY(tsr_runtime_create(&options, &rt));
  TRY(tsr_device_parse(rt, device_name, &device));
  if (!load_data(rt, data_path, device, &d)) goto done;
  test_size = tsr_tensor_shape(d.X_test)[0];
  printf("digits: %ld images to train on, %ld to test on; MLP %ld-%ld-%ld-%ld on %s\n",
         (long)tsr_tensor_shape(d.X_train)[0], (long)test_size, (long)sizes[0], (long)sizes[1], (long)sizes[2],
         (long)sizes[3], device_name);

  tsr_manual_seed(rt, (uint64_t)seed);
  if (!init_params(rt, device, params)) goto done;
  TRY(tsr_optimizer_defaults(TSR_OPTIMIZER_ADAMW, &adamw));
  adamw.lr = LEARNING_RATE;
  TRY(tsr_optimizer_create(2 * NUM_LAYERS, params, &adamw, &opt));
  for (i = 1; i <= epochs; ++i)
    if (!train_epoch(rt, device, opt, params, &d, i, (int)epochs)) goto done;

  if (!count_correct(params, d.X_test, d.y_test, &correct)) goto done;
  printf("test accuracy: %.4f (%ld/%ld), %ld epochs\n", (double)correct / (double)test_size, (long)correct,
         (long)test_size, epochs);
  if (!save_and_check(rt, device, params, out_path)) goto done;
  printf("weights saved to %s; read back: identical\n", out_path);
  status = 0;

done:
  tsr_optimizer_destroy(opt);
  for (i = 0; i < 2 * NUM_LAYERS; ++i) tsr_tensor_release(params[i]);
  release_data(&d);
  if (rt != NULL && tsr_runtime_destroy(rt) != TSR_OK) {
    fprintf(stderr, "train_mlp: tsr_runtime_destroy: %s\n", tsr_last_error_message());
    status = 1;
  }
  return status;
}
