/* SPDX-License-Identifier: Apache-2.0 */
/* Gradients from C99 (tessera/autograd.h, ABI 1.8 and 1.9): a graph of matmul,
 * exp, mul and sum run backward, its gradients read and checked against
 * the same derivatives computed here in double; retain_graph, a second
 * backward's error, a saved tensor modified in place, a C hook with user
 * data that replaces a gradient, tsr_grad with create_graph (a second
 * derivative), grad mode, the node names, and the errors of integer
 * tensors and in-place writes into leaves; softmax's fused formula,
 * slogdet's node of two outputs and complex tensors refused (ABI 1.9).
 * Runs under valgrind too
 * (tests/abi/CMakeLists.txt). Exit status 0 when all hold. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "c99_check.h"
#include "c99_doubles.h"
#include "tessera/tessera.h"

static tsr_tensor* grad_of(tsr_tensor* t) {
  tsr_tensor* g = NULL;
  CHECK_OK(tsr_tensor_grad(t, &g));
  return g;
}

static tsr_tensor* sum_all(tsr_tensor* t) {
  tsr_tensor* s = NULL;
  CHECK_OK(tsr_reduce(TSR_OP_SUM, t, 0, NULL, 0, &s));
  return s;
}

/* A hook that doubles the gradient; its user data counts calls and releases. */
struct hook_state {
  int calls;
  int released;
};
static tsr_status doubling_hook(void* user_data, struct tsr_tensor* grad, struct tsr_tensor** replacement) {
  struct hook_state* state = (struct hook_state*)user_data;
  ++state->calls;
  return tsr_binary_scalar(TSR_OP_MUL, grad, tsr_scalar_float(2.0), 0, replacement);
}
static tsr_status failing_hook(void* user_data, struct tsr_tensor* grad, struct tsr_tensor** replacement) {
  (void)user_data;
  (void)grad;
  (void)replacement;
  return TSR_ERR_INVALID_ARGUMENT;
}
static void release_state(void* user_data) { ++((struct hook_state*)user_data)->released; }

/* s = sum(exp(x @ w) * exp(x @ w)) = sum_j exp(2 y_j), y = x @ w: its
 * gradients in double. */
static void reference(const double* x, const double* w, double* dx, double* dw) {
  int i, j;
  double dy[2];
  for (j = 0; j < 2; ++j) dy[j] = 2.0 * exp(2.0 * (x[0] * w[j] + x[1] * w[2 + j]));
  for (i = 0; i < 2; ++i) {
    dx[i] = w[2 * i] * dy[0] + w[2 * i + 1] * dy[1];
    for (j = 0; j < 2; ++j) dw[2 * i + j] = x[i] * dy[j];
  }
}

int main(int argc, char** argv) {
  static const double xv[2] = {0.25, -0.5}, wv[4] = {0.5, -1.0, 1.5, 0.75};
  static const int64_t row[2] = {1, 2}, square[2] = {2, 2};
  tsr_autograd_options keep = {0};
  tsr_tensor *x, *w, *y, *z, *zz, *s, *g;
  double dx[2], dw[4], twice[4];
  int i;

  if (!start_runtime(argc, argv)) return 1;
  CHECK(tsr_struct_size(TSR_STRUCT_AUTOGRAD_OPTIONS) == TSR_AUTOGRAD_OPTIONS_STRUCT_SIZE);
  keep.struct_size = TSR_AUTOGRAD_OPTIONS_STRUCT_SIZE;
  keep.retain_graph = 1;

  /* The graph, its names, backward and the gradients. */
  x = doubles(xv, 2, row, 1);
  w = doubles(wv, 2, square, 1);
  CHECK(tsr_tensor_requires_grad(x) && tsr_tensor_is_leaf(x) && tsr_tensor_grad_fn_name(x) == NULL);
  CHECK_OK(tsr_matmul(x, w, &y));
  CHECK_OK(tsr_unary(TSR_OP_EXP, y, &z));
  CHECK_OK(tsr_binary(TSR_OP_MUL, z, z, &zz));
  s = sum_all(zz);
  CHECK(tsr_tensor_requires_grad(s) && !tsr_tensor_is_leaf(s));
  CHECK(tsr_tensor_grad_fn_name(y) != NULL && strcmp(tsr_tensor_grad_fn_name(y), "MmBackward0") == 0);
  CHECK(tsr_tensor_grad_fn_name(z) != NULL && strcmp(tsr_tensor_grad_fn_name(z), "ExpBackward0") == 0);
  CHECK(tsr_tensor_grad_fn_name(s) != NULL && strcmp(tsr_tensor_grad_fn_name(s), "SumBackward0") == 0);
  CHECK_OK(tsr_tensor_retain_grad(z));
  CHECK(tsr_tensor_retains_grad(z) && !tsr_tensor_retains_grad(y));
  CHECK_OK(tsr_backward(1, &s, NULL, 0, NULL, &keep));
  reference(xv, wv, dx, dw);
  g = grad_of(x);
  expect(g, dx, 2, "x.grad");
  tsr_tensor_release(g);
  g = grad_of(w);
  expect(g, dw, 4, "w.grad");
  tsr_tensor_release(g);
  g = grad_of(y);
  CHECK(g == NULL); /* not retained */
  g = grad_of(z);
  CHECK(g != NULL);
  tsr_tensor_release(g);

  /* retain_graph: a second backward adds the same again. */
  CHECK_OK(tsr_backward(1, &s, NULL, 0, NULL, &keep));
  for (i = 0; i < 4; ++i) twice[i] = 2.0 * dw[i];
  g = grad_of(w);
  expect(g, twice, 4, "w.grad after two backward calls");
  tsr_tensor_release(g);
  /* Without it the graph is freed, and a third backward fails as PyTorch's does. */
  CHECK_OK(tsr_backward(1, &s, NULL, 0, NULL, NULL));
  CHECK_FAILS(tsr_backward(1, &s, NULL, 0, NULL, NULL), TSR_ERR_INVALID_ARGUMENT,
              "Trying to backward through the graph a second time");
  /* .grad can be dropped and set. */
  CHECK_OK(tsr_tensor_set_grad(w, NULL));
  g = grad_of(w);
  CHECK(g == NULL);
  CHECK_FAILS(tsr_tensor_set_grad(w, x), TSR_ERR_SHAPE, "assigned grad has data of a different size");
  tsr_tensor_release(s);
  tsr_tensor_release(zz);
  tsr_tensor_release(z);
  tsr_tensor_release(y);

  /* A saved tensor modified in place. */
  {
    tsr_tensor *e = NULL, *es;
    CHECK_OK(tsr_unary(TSR_OP_EXP, x, &e));
    CHECK(tsr_tensor_version(e) == 0);
    CHECK_OK(tsr_binary_scalar_(TSR_OP_ADD, e, tsr_scalar_float(1.0)));
    CHECK(tsr_tensor_version(e) == 1);
    CHECK(strcmp(tsr_tensor_grad_fn_name(e), "AddBackward0") == 0);
    es = sum_all(e);
    CHECK_FAILS(tsr_backward(1, &es, NULL, 0, NULL, NULL), TSR_ERR_INVALID_ARGUMENT,
                "one of the variables needed for gradient computation has been modified by an inplace operation: "
                "[torch.DoubleTensor [1, 2]], which is output 0 of ExpBackward0, is at version 1; expected "
                "version 0 instead.");
    tsr_tensor_release(es);
    tsr_tensor_release(e);
  }

  /* A hook that replaces the gradient, then one that fails; the user data
   * is released when the hooks are removed. */
  {
    struct hook_state state = {0, 0};
    int64_t h1 = 0, h2 = 0;
    tsr_tensor *d = NULL, *ds;
    double want[2] = {4.0, 4.0}; /* d = 2x; the hook doubles d's gradient */
    CHECK_OK(tsr_tensor_set_grad(x, NULL));
    CHECK_OK(tsr_binary_scalar(TSR_OP_MUL, x, tsr_scalar_float(2.0), 0, &d));
    CHECK_OK(tsr_tensor_register_hook(d, doubling_hook, &state, release_state, &h1));
    CHECK(h1 > 0);
    ds = sum_all(d);
    CHECK_OK(tsr_backward(1, &ds, NULL, 0, NULL, &keep));
    CHECK(state.calls == 1);
    g = grad_of(x);
    expect(g, want, 2, "x.grad through a hook");
    tsr_tensor_release(g);
    CHECK_OK(tsr_tensor_register_hook(d, failing_hook, NULL, NULL, &h2));
    CHECK_FAILS(tsr_backward(1, &ds, NULL, 0, NULL, &keep), TSR_ERR_INVALID_ARGUMENT,
                "a gradient hook returned TSR_ERR_INVALID_ARGUMENT");
    CHECK_OK(tsr_tensor_remove_hook(d, h2));
    CHECK_OK(tsr_tensor_remove_hook(d, h1));
    CHECK(state.released == 1);
    CHECK_FAILS(tsr_tensor_remove_hook(d, h1), TSR_ERR_INVALID_ARGUMENT, "no hook with handle");
    tsr_tensor_release(ds);
    tsr_tensor_release(d);
  }

  /* tsr_grad with create_graph: d/dx sum(x^3) = 3x^2, and d/dx of its sum = 6x. */
  {
    tsr_autograd_options create = {0};
    tsr_tensor *cube = NULL, *c, *first = NULL, *fs, *second = NULL, *pair[2];
    double want1[2], want2[2];
    create.struct_size = TSR_AUTOGRAD_OPTIONS_STRUCT_SIZE;
    create.retain_graph = -1;
    create.create_graph = 1;
    CHECK_OK(tsr_binary_scalar(TSR_OP_POW, x, tsr_scalar_float(3.0), 0, &cube));
    c = sum_all(cube);
    CHECK_OK(tsr_grad(1, &c, NULL, 1, &x, &create, &first));
    for (i = 0; i < 2; ++i) {
      want1[i] = 3.0 * xv[i] * xv[i];
      want2[i] = 6.0 * xv[i];
    }
    expect(first, want1, 2, "grad of sum(x^3)");
    CHECK(tsr_tensor_requires_grad(first));
    fs = sum_all(first);
    CHECK_OK(tsr_grad(1, &fs, NULL, 1, &x, NULL, &second));
    expect(second, want2, 2, "second derivative of sum(x^3)");
    /* An input the output does not reach. */
    pair[0] = x;
    pair[1] = w;
    tsr_tensor_release(c);
    c = sum_all(cube);
    {
      tsr_tensor* results[2] = {NULL, NULL};
      CHECK_FAILS(tsr_grad(1, &c, NULL, 2, pair, &keep, results), TSR_ERR_INVALID_ARGUMENT,
                  "One of the differentiated Tensors appears to not have been used in the graph");
      CHECK(results[0] == NULL && results[1] == NULL);
      keep.allow_unused = 1;
      CHECK_OK(tsr_grad(1, &c, NULL, 2, pair, &keep, results));
      CHECK(results[0] != NULL && results[1] == NULL);
      tsr_tensor_release(results[0]);
    }
    keep.allow_unused = 0;
    tsr_tensor_release(second);
    tsr_tensor_release(fs);
    tsr_tensor_release(first);
    tsr_tensor_release(c);
    tsr_tensor_release(cube);
  }

  /* A retained .grad under create_graph: y = 2x, z = sum(y * y), so
     y.grad = 2y = 4x and dz/dx = 8x. y.grad's graph must not hold y
     itself (Note [Saving only what a gradient reads]): y and its .grad
     would keep each other alive, and valgrind's leak check
     (abi.c99_autograd_valgrind) fails this test. */
  {
    tsr_autograd_options create = {0};
    tsr_tensor *y = NULL, *yy = NULL, *z, *gx = NULL, *gy;
    double want_x[2], want_y[2];
    create.struct_size = TSR_AUTOGRAD_OPTIONS_STRUCT_SIZE;
    create.retain_graph = -1;
    create.create_graph = 1;
    CHECK_OK(tsr_binary_scalar(TSR_OP_MUL, x, tsr_scalar_float(2.0), 0, &y));
    CHECK_OK(tsr_tensor_retain_grad(y));
    CHECK_OK(tsr_binary(TSR_OP_MUL, y, y, &yy));
    z = sum_all(yy);
    CHECK_OK(tsr_grad(1, &z, NULL, 1, &x, &create, &gx));
    for (i = 0; i < 2; ++i) {
      want_x[i] = 8.0 * xv[i];
      want_y[i] = 4.0 * xv[i];
    }
    expect(gx, want_x, 2, "grad of sum((2x)^2)");
    gy = grad_of(y);
    CHECK(gy != NULL && tsr_tensor_requires_grad(gy));
    expect(gy, want_y, 2, "retained y.grad under create_graph");
    tsr_tensor_release(gy);
    tsr_tensor_release(gx);
    tsr_tensor_release(z);
    tsr_tensor_release(yy);
    tsr_tensor_release(y);
  }

  /* Grad mode, detach, and the errors. */
  {
    static const int64_t ints[2] = {1, 2};
    tsr_tensor *plain = NULL, *i64 = NULL, *det = NULL;
    CHECK(tsr_is_grad_enabled() == 1);
    CHECK(tsr_set_grad_enabled(0) == 1);
    CHECK_OK(tsr_binary(TSR_OP_MUL, x, x, &plain));
    CHECK(!tsr_tensor_requires_grad(plain) && tsr_tensor_grad_fn_name(plain) == NULL);
    CHECK_OK(tsr_binary_scalar_(TSR_OP_ADD, x, tsr_scalar_float(0.0))); /* a leaf may be written under no_grad */
    CHECK(tsr_set_grad_enabled(1) == 0);
    CHECK_FAILS(tsr_binary_scalar_(TSR_OP_ADD, x, tsr_scalar_float(0.0)), TSR_ERR_INVALID_ARGUMENT,
                "a leaf Variable that requires grad is being used in an in-place operation.");
    CHECK_FAILS(tsr_binary_out(TSR_OP_ADD, x, x, plain), TSR_ERR_INVALID_ARGUMENT,
                "add(): functions with out=... arguments don't support automatic differentiation, but one of "
                "the arguments requires grad.");
    CHECK_FAILS(tsr_backward(1, &plain, NULL, 0, NULL, NULL), TSR_ERR_INVALID_ARGUMENT,
                "element 0 of tensors does not require grad and does not have a grad_fn");
    CHECK_OK(tsr_from_host(rt, ints, 1, &ints[1], TSR_INT64, cpu, &i64));
    CHECK_FAILS(tsr_tensor_set_requires_grad(i64, 1), TSR_ERR_TYPE,
                "only Tensors of floating point dtype can require gradients");
    CHECK_OK(tsr_detach(x, &det));
    CHECK(!tsr_tensor_requires_grad(det) && tsr_tensor_storage_data(det) == tsr_tensor_storage_data(x));
    tsr_tensor_release(det);
    tsr_tensor_release(i64);
    tsr_tensor_release(plain);
  }

  /* ABI 1.9: a fused formula (softmax), a node of several outputs
   * (slogdet: the gradient of logabsdet alone is A^-T), and complex
   * tensors refused. */
  {
    static const double av[4] = {2.0, 1.0, 0.5, 3.0}, cv[2] = {1.0, -2.0};
    static const int64_t square[2] = {2, 2};
    tsr_tensor *a = doubles(av, 2, square, 1), *sm = NULL, *cvec = doubles(cv, 1, &square[1], 0), *prod = NULL, *s;
    tsr_tensor *sign = NULL, *logabs = NULL, *l, *cz = NULL;
    double e0 = exp(xv[0]), e1 = exp(xv[1]), p0, p1, dot, wants[2], wantl[4];
    const double det = av[0] * av[3] - av[1] * av[2];
    CHECK_OK(tsr_softmax(x, -1, &sm)); /* x is [1, 2] */
    CHECK(strcmp(tsr_tensor_grad_fn_name(sm), "SoftmaxBackward0") == 0);
    CHECK_OK(tsr_binary(TSR_OP_MUL, sm, cvec, &prod));
    s = sum_all(prod);
    CHECK_OK(tsr_tensor_set_grad(x, NULL));
    CHECK_OK(tsr_backward(1, &s, NULL, 0, NULL, NULL));
    p0 = e0 / (e0 + e1);
    p1 = e1 / (e0 + e1);
    dot = p0 * cv[0] + p1 * cv[1];
    wants[0] = p0 * (cv[0] - dot);
    wants[1] = p1 * (cv[1] - dot);
    {
      tsr_tensor* g = grad_of(x);
      expect(g, wants, 2, "grad of sum(softmax(x) * c)");
      tsr_tensor_release(g);
    }
    CHECK_OK(tsr_linalg_slogdet(a, &sign, &logabs));
    CHECK(strcmp(tsr_tensor_grad_fn_name(sign), "LinalgSlogdetBackward0") == 0);
    CHECK(strcmp(tsr_tensor_grad_fn_name(logabs), "LinalgSlogdetBackward0") == 0);
    l = sum_all(logabs);
    CHECK_OK(tsr_backward(1, &l, NULL, 0, NULL, NULL));
    wantl[0] = av[3] / det; /* (A^-1)^T */
    wantl[1] = -av[2] / det;
    wantl[2] = -av[1] / det;
    wantl[3] = av[0] / det;
    {
      tsr_tensor* g = grad_of(a);
      expect(g, wantl, 4, "grad of log|det A|");
      tsr_tensor_release(g);
    }
    /* Complex leaves (ABI 1.12): d/dz of the complex sum(z * z), started
       by the implicit gradient 1, is 2 conj(z) under PyTorch's convention. */
    {
      static const double zv[4] = {1.0, 2.0, 3.0, -1.0}, want[4] = {2.0, -4.0, 6.0, 2.0};
      double got[4] = {0, 0, 0, 0};
      tsr_tensor *zz = NULL, *zs, *gz;
      CHECK_OK(tsr_zeros(rt, 1, &square[1], TSR_COMPLEX128, cpu, &cz));
      CHECK_OK(tsr_copy_from_host(cz, zv, sizeof zv, NULL));
      CHECK_OK(tsr_tensor_set_requires_grad(cz, 1));
      CHECK_OK(tsr_binary(TSR_OP_MUL, cz, cz, &zz));
      zs = sum_all(zz);
      CHECK_OK(tsr_backward(1, &zs, NULL, 0, NULL, NULL));
      gz = grad_of(cz);
      CHECK(gz != NULL);
      CHECK_OK(tsr_copy_to_host(gz, got, sizeof got, NULL));
      for (i = 0; i < 4; ++i) CHECK(got[i] == want[i]);
      tsr_tensor_release(gz);
      tsr_tensor_release(zs);
      tsr_tensor_release(zz);
      tsr_tensor_release(cz);
    }
    tsr_tensor_release(l);
    tsr_tensor_release(logabs);
    tsr_tensor_release(sign);
    tsr_tensor_release(s);
    tsr_tensor_release(prod);
    tsr_tensor_release(cvec);
    tsr_tensor_release(sm);
    tsr_tensor_release(a);
  }

  tsr_tensor_release(w);
  tsr_tensor_release(x);
  CHECK_OK(tsr_runtime_destroy(rt));
  if (failures == 0) printf("c99_autograd: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
