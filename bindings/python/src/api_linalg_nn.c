/* SPDX-License-Identifier: Apache-2.0 */
/* The module functions over linalg (tessera/tessera.h's tsr_linalg_*), the nn functions and losses (tessera/nn.h) and the optimizers (tessera/optim.h)
 * (Note [Module functions over the C API] in _C.h). */
#include "_C.h"

#include <stddef.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------ */

/* The work of a call as a count of elements, for TC_MAYBE_WITHOUT_GIL. */
static int64_t times(int64_t n, int64_t factor) {
  int64_t work;
  if (factor <= 1) return n;
  return __builtin_mul_overflow(n, factor, &work) ? INT64_MAX : work;
}

static int64_t dim_size(tsr_tensor* t, int32_t from_end) {
  const int32_t ndim = tsr_tensor_ndim(t);
  return ndim >= from_end ? tsr_tensor_shape(t)[ndim - from_end] : 1;
}

/* Of the matrix functions: t's elements times its last dim (a
 * factorisation does that much per element, or more). */
static int64_t matrix_work(tsr_tensor* t) { return times(tsr_tensor_numel(t), dim_size(t, 1)); }

static int64_t numel_or_0(tsr_tensor* t) { return t != NULL ? tsr_tensor_numel(t) : 0; }

/* An int in int64 from anything with __index__, beyond it torch's error
 * (args.c's rule for the ints of shapes). */
static int int64_arg(PyObject* o, int64_t* v) {
  PyObject* index = PyNumber_Index(o);
  if (index == NULL) return 0;
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(index, &overflow);
  Py_DECREF(index);
  if (x == -1 && PyErr_Occurred()) return 0;
  if (overflow != 0) {
    PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
    return 0;
  }
  *v = (int64_t)x;
  return 1;
}


/* ---- linear algebra (tsr_linalg_*; matmul is api_tensor.c's) ------------------------ */

/* f(A) -> Tensor for the linalg functions of one matrix and one result. */
#define TC_LINALG_UNARY(name)                                                  \
  static PyObject* py_linalg_##name(PyObject* m, PyObject* arg) {              \
    (void)m;                                                                   \
    tsr_tensor *a, *out = NULL;                                                \
    tsr_status st;                                                             \
    if (!tc_tensor(arg, &a)) return NULL;                                      \
    TC_MAYBE_WITHOUT_GIL(matrix_work(a), st = tsr_linalg_##name(a, &out));     \
    return tc_result(st, out);                                                 \
  }
TC_LINALG_UNARY(inv)
TC_LINALG_UNARY(det)
#undef TC_LINALG_UNARY

static PyObject* py_linalg_cholesky(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *a, *out = NULL;
  int upper;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&p:linalg_cholesky", tc_tensor, &a, &upper)) return NULL;
  TC_MAYBE_WITHOUT_GIL(matrix_work(a), st = tsr_linalg_cholesky(a, upper, &out));
  return tc_result(st, out);
}

static PyObject* py_linalg_lu_factor(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor* a;
  tsr_tensor* outs[2] = {NULL, NULL};
  tsr_status st;
  if (!tc_tensor(arg, &a)) return NULL;
  TC_MAYBE_WITHOUT_GIL(matrix_work(a), st = tsr_linalg_lu_factor(a, &outs[0], &outs[1]));
  return tc_results(st, 2, outs);
}

static PyObject* py_linalg_solve(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *a, *b, *out = NULL;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&O&:linalg_solve", tc_tensor, &a, tc_tensor, &b)) return NULL;
  TC_MAYBE_WITHOUT_GIL(matrix_work(a) + tsr_tensor_numel(b), st = tsr_linalg_solve(a, b, &out));
  return tc_result(st, out);
}

static PyObject* py_linalg_slogdet(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor* a;
  tsr_tensor* outs[2] = {NULL, NULL};
  tsr_status st;
  if (!tc_tensor(arg, &a)) return NULL;
  TC_MAYBE_WITHOUT_GIL(matrix_work(a), st = tsr_linalg_slogdet(a, &outs[0], &outs[1]));
  return tc_results(st, 2, outs);
}

static PyObject* py_linalg_qr(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor* a;
  tsr_tensor* outs[2] = {NULL, NULL};
  int complete;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&p:linalg_qr", tc_tensor, &a, &complete)) return NULL;
  TC_MAYBE_WITHOUT_GIL(matrix_work(a), st = tsr_linalg_qr(a, complete, &outs[0], &outs[1]));
  return tc_results(st, 2, outs);
}

static PyObject* py_linalg_svd(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor* a;
  tsr_tensor* outs[3] = {NULL, NULL, NULL};
  int full_matrices, compute_uv = 1;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&p|p:linalg_svd", tc_tensor, &a, &full_matrices, &compute_uv)) return NULL;
  tsr_tensor** u = compute_uv ? &outs[0] : NULL;
  tsr_tensor** vh = compute_uv ? &outs[2] : NULL;
  TC_MAYBE_WITHOUT_GIL(matrix_work(a), st = tsr_linalg_svd(a, full_matrices, u, &outs[1], vh));
  return tc_results(st, 3, outs);
}

static PyObject* py_linalg_eigh(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor* a;
  tsr_tensor* outs[2] = {NULL, NULL};
  int eigenvectors = 1;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&|p:linalg_eigh", tc_tensor, &a, &eigenvectors)) return NULL;
  tsr_tensor** vectors = eigenvectors ? &outs[1] : NULL;
  TC_MAYBE_WITHOUT_GIL(matrix_work(a), st = tsr_linalg_eigh(a, &outs[0], vectors));
  return tc_results(st, 2, outs);
}

/* ABI 1.11: complex results whatever A's dtype (tsr_linalg_eig). */
static PyObject* py_linalg_eig(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor* a;
  tsr_tensor* outs[2] = {NULL, NULL};
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&:linalg_eig", tc_tensor, &a)) return NULL;
  TC_MAYBE_WITHOUT_GIL(matrix_work(a), st = tsr_linalg_eig(a, &outs[0], &outs[1]));
  return tc_results(st, 2, outs);
}

static PyObject* py_linalg_eigvals(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *a, *out = NULL;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&:linalg_eigvals", tc_tensor, &a)) return NULL;
  TC_MAYBE_WITHOUT_GIL(matrix_work(a), st = tsr_linalg_eigvals(a, &out));
  return tc_result(st, out);
}

/* dims of any length (tc_ints32 takes TSR_MAX_DIMS at most; more are
 * repeats, which the C function names as torch does). */
typedef struct {
  int32_t n;
  int32_t* v; /* PyMem_Malloc'd; free with PyMem_Free */
} dim_list;

static int dim_list_of(PyObject* o, dim_list* r) {
  PyObject* seq = PySequence_Fast(o, "expected a sequence of ints");
  if (seq == NULL) return 0;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > INT32_MAX) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_RuntimeError, "%zd dims: too many", n);
    return 0;
  }
  r->v = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *r->v);
  if (r->v == NULL) {
    Py_DECREF(seq);
    PyErr_NoMemory();
    return 0;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    /* tc_ints32's rules and messages, for one int */
    PyObject* index = PyNumber_Index(PySequence_Fast_GET_ITEM(seq, i));
    int overflow = 0;
    const long long x = index != NULL ? PyLong_AsLongLongAndOverflow(index, &overflow) : -1;
    Py_XDECREF(index);
    const int failed = x == -1 && PyErr_Occurred();
    if (!failed && overflow != 0) PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
    if (!failed && overflow == 0 && (x < INT32_MIN || x > INT32_MAX))
      PyErr_Format(PyExc_IndexError, "dim %lld is out of range", x);
    if (failed || PyErr_Occurred()) {
      PyMem_Free(r->v);
      Py_DECREF(seq);
      return 0;
    }
    r->v[i] = (int32_t)x;
  }
  r->n = (int32_t)n;
  Py_DECREF(seq);
  return 1;
}

static PyObject* py_linalg_vector_norm(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *x, *out = NULL;
  double ord;
  PyObject* dims_arg;
  dim_list dims;
  int keepdim;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&dOp:linalg_vector_norm", tc_tensor, &x, &ord, &dims_arg, &keepdim)) return NULL;
  if (!dim_list_of(dims_arg, &dims)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(x), st = tsr_linalg_vector_norm(x, ord, dims.n, dims.v, keepdim, &out));
  PyMem_Free(dims.v);
  return tc_result(st, out);
}

static PyObject* py_linalg_pinv(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *a, *atol, *rtol, *out = NULL;
  int hermitian;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&O&O&p:linalg_pinv", tc_tensor, &a, tc_tensor_or_none, &atol, tc_tensor_or_none,
                        &rtol, &hermitian))
    return NULL;
  TC_MAYBE_WITHOUT_GIL(matrix_work(a), st = tsr_linalg_pinv(a, atol, rtol, hermitian, &out));
  return tc_result(st, out);
}

/* ---- nn functions (tessera/nn.h) ------------------------------------------------------ */

static PyObject* py_linear(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *x, *w, *bias, *out = NULL;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&O&O&:linear", tc_tensor, &x, tc_tensor, &w, tc_tensor_or_none, &bias)) return NULL;
  /* x [.., in] by weight [out, in]: x's elements times out */
  TC_MAYBE_WITHOUT_GIL(times(tsr_tensor_numel(x), dim_size(w, 2)), st = tsr_linear(x, w, bias, &out));
  return tc_result(st, out);
}

static PyObject* py_layer_norm(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *x, *w, *b, *out = NULL;
  int k;
  double eps;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&iO&O&d:layer_norm", tc_tensor, &x, &k, tc_tensor_or_none, &w, tc_tensor_or_none, &b,
                        &eps))
    return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(x), st = tsr_layer_norm(x, k, w, b, eps, &out));
  return tc_result(st, out);
}

/* padding_idx: an int, or None for none (TSR_NO_PADDING_IDX). */
static PyObject* py_embedding(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *w, *idx, *out = NULL;
  PyObject* padding;
  int scale_grad_by_freq;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&O&Op:embedding", tc_tensor, &w, tc_tensor, &idx, &padding, &scale_grad_by_freq))
    return NULL;
  int64_t padding_idx = TSR_NO_PADDING_IDX;
  if (padding != Py_None && !int64_arg(padding, &padding_idx)) return NULL;
  TC_MAYBE_WITHOUT_GIL(times(tsr_tensor_numel(idx), dim_size(w, 1)),  /* a row per index */
                       st = tsr_embedding(w, idx, padding_idx, scale_grad_by_freq, &out));
  return tc_result(st, out);
}

static PyObject* py_embedding_renorm_(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *w, *idx;
  double max_norm, norm_type;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&O&dd:embedding_renorm_", tc_tensor, &w, tc_tensor, &idx, &max_norm, &norm_type))
    return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(w), st = tsr_embedding_renorm_(w, idx, max_norm, norm_type));
  return tc_none(st);
}

static PyObject* py_dropout(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *x, *out = NULL;
  double p;
  int training;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&dp:dropout", tc_tensor, &x, &p, &training)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(x), st = tsr_dropout(x, p, training, &out));
  return tc_result(st, out);
}

static PyObject* py_gelu(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *x, *out = NULL;
  int approximate;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&p:gelu", tc_tensor, &x, &approximate)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(x), st = tsr_gelu(x, approximate, &out));
  return tc_result(st, out);
}

static PyObject* py_silu(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor *x, *out = NULL;
  tsr_status st;
  if (!tc_tensor(arg, &x)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(x), st = tsr_silu(x, &out));
  return tc_result(st, out);
}

static PyObject* py_softplus(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *x, *out = NULL;
  double beta, threshold;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&dd:softplus", tc_tensor, &x, &beta, &threshold)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(x), st = tsr_softplus(x, beta, threshold, &out));
  return tc_result(st, out);
}

/* ---- losses: f(input, target, reduction=1, ignore_index=-100, label_smoothing=0.0,
 *      weight=None, pos_weight=None) -> Tensor, the tsr_loss_options fields in
 *      their order (reduction a tsr_reduction: 0 none, 1 mean, 2 sum) -------------- */

typedef tsr_status (*loss_fn)(tsr_tensor*, tsr_tensor*, const tsr_loss_options*, tsr_tensor**);

static PyObject* loss(loss_fn fn, const char* format, PyObject* args) {
  tsr_tensor *input, *target, *out = NULL;
  tsr_loss_options o = TSR_LOSS_OPTIONS_INIT;
  int reduction = TSR_REDUCTION_MEAN;
  PyObject* ignore_index = NULL;
  tsr_status st;
  if (!PyArg_ParseTuple(args, format, tc_tensor, &input, tc_tensor, &target, &reduction, &ignore_index,
                        &o.label_smoothing, tc_tensor_or_none, &o.weight, tc_tensor_or_none, &o.pos_weight))
    return NULL;
  o.reduction = reduction;
  if (ignore_index != NULL && !int64_arg(ignore_index, &o.ignore_index)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(input) + numel_or_0(o.weight), st = fn(input, target, &o, &out));
  return tc_result(st, out);
}

#define TC_LOSS(name)                                                                              \
  static PyObject* py_##name(PyObject* m, PyObject* args) {                                        \
    (void)m;                                                                                       \
    return loss(tsr_##name, "O&O&|iOdO&O&:" #name, args);                                          \
  }
TC_LOSS(cross_entropy)
TC_LOSS(nll_loss)
TC_LOSS(mse_loss)
TC_LOSS(l1_loss)
TC_LOSS(binary_cross_entropy)
TC_LOSS(binary_cross_entropy_with_logits)
#undef TC_LOSS

/* ---- optimizers (tessera/optim.h) ----------------------------------------------------
 *
 * Note [Optimizers as capsules]
 *   A tsr_optimizer* is a PyCapsule named "tessera._C.optimizer", whose
 *   destructor calls tsr_optimizer_destroy when the last reference goes
 *   (optimizer_destroy does it earlier and renames the capsule, so that
 *   it is neither destroyed twice nor used after). Its options are a dict
 *   with tsr_optimizer_options' field names: "kind" (an int), the flags
 *   "maximize", "nesterov" and "amsgrad" (bools; any truth value is taken),
 *   and the floats "lr", "weight_decay", "momentum", "dampening", "beta1",
 *   "beta2", "eps". A dict given to optimizer_create needs "kind" and takes
 *   that kind's defaults for any field it lacks; one given to
 *   optimizer_set_options the optimizer's options now. */

static const char kOptimizerName[] = "tessera._C.optimizer";
static const char kDestroyedName[] = "tessera._C.optimizer (destroyed)";

static void optimizer_capsule_destructor(PyObject* capsule) {
  /* A destroyed one has the other name: IsValid is false, nothing is left.
   * After stop_releasing (exit) the runtime may be gone: nothing is called. */
  if (PyCapsule_IsValid(capsule, kOptimizerName) && tc_releasing())
    tsr_optimizer_destroy((tsr_optimizer*)PyCapsule_GetPointer(capsule, kOptimizerName));
}

/* "O&" converter: a live optimizer capsule into tsr_optimizer**. */
static int tc_optimizer(PyObject* o, void* out) {
  if (PyCapsule_IsValid(o, kOptimizerName)) {
    *(tsr_optimizer**)out = (tsr_optimizer*)PyCapsule_GetPointer(o, kOptimizerName);
    return 1;
  }
  if (PyCapsule_IsValid(o, kDestroyedName)) {
    PyErr_SetString(PyExc_ValueError, "the optimizer was destroyed (optimizer_destroy)");
  } else {
    PyErr_Format(PyExc_TypeError, "expected an optimizer from tessera._C.optimizer_create, got %s",
                 Py_TYPE(o)->tp_name);
  }
  return 0;
}

typedef enum { kOptInt, kOptFlag, kOptDouble } opt_field_kind;
static const struct {
  const char* name;
  opt_field_kind kind;
  size_t offset;
} kOptionFields[] = {
    {"kind", kOptInt, offsetof(tsr_optimizer_options, kind)},
    {"maximize", kOptFlag, offsetof(tsr_optimizer_options, maximize)},
    {"lr", kOptDouble, offsetof(tsr_optimizer_options, lr)},
    {"weight_decay", kOptDouble, offsetof(tsr_optimizer_options, weight_decay)},
    {"momentum", kOptDouble, offsetof(tsr_optimizer_options, momentum)},
    {"dampening", kOptDouble, offsetof(tsr_optimizer_options, dampening)},
    {"nesterov", kOptFlag, offsetof(tsr_optimizer_options, nesterov)},
    {"amsgrad", kOptFlag, offsetof(tsr_optimizer_options, amsgrad)},
    {"beta1", kOptDouble, offsetof(tsr_optimizer_options, beta1)},
    {"beta2", kOptDouble, offsetof(tsr_optimizer_options, beta2)},
    {"eps", kOptDouble, offsetof(tsr_optimizer_options, eps)},
};
enum { kOptionFieldCount = sizeof kOptionFields / sizeof kOptionFields[0] };

static PyObject* options_to_dict(const tsr_optimizer_options* o) {
  PyObject* d = PyDict_New();
  if (d == NULL) return NULL;
  for (int i = 0; i < kOptionFieldCount; ++i) {
    const char* field = (const char*)o + kOptionFields[i].offset;
    PyObject* v;
    if (kOptionFields[i].kind == kOptDouble) {
      v = PyFloat_FromDouble(*(const double*)field);
    } else if (kOptionFields[i].kind == kOptFlag) {
      v = PyBool_FromLong(*(const int32_t*)field != 0);
    } else {
      v = PyLong_FromLong(*(const int32_t*)field);
    }
    if (v == NULL || PyDict_SetItemString(d, kOptionFields[i].name, v) < 0) {
      Py_XDECREF(v);
      Py_DECREF(d);
      return NULL;
    }
    Py_DECREF(v);
  }
  return d;
}

static int int32_of(PyObject* v, int32_t* out) {
  const long x = PyLong_AsLong(v);
  if (x == -1 && PyErr_Occurred()) return 0;
  if (x < INT32_MIN || x > INT32_MAX) {
    PyErr_Format(PyExc_OverflowError, "%ld does not fit in int32", x);
    return 0;
  }
  *out = (int32_t)x;
  return 1;
}

/* The fields `dict` names written over *o (which holds the base values);
 * any other key is a TypeError. */
static int options_from_dict(PyObject* dict, tsr_optimizer_options* o) {
  if (!PyDict_Check(dict)) {
    PyErr_Format(PyExc_TypeError, "optimizer options must be a dict, not %s", Py_TYPE(dict)->tp_name);
    return 0;
  }
  Py_ssize_t found = 0;
  for (int i = 0; i < kOptionFieldCount; ++i) {
    PyObject* v = PyDict_GetItemString(dict, kOptionFields[i].name);  /* borrowed */
    if (v == NULL) continue;
    ++found;
    char* field = (char*)o + kOptionFields[i].offset;
    Py_INCREF(v);  /* the conversions may run Python code that changes the dict */
    int ok = 1;
    if (kOptionFields[i].kind == kOptDouble) {
      const double x = PyFloat_AsDouble(v);
      if (x == -1.0 && PyErr_Occurred()) {
        ok = 0;
      } else {
        *(double*)field = x;
      }
    } else if (kOptionFields[i].kind == kOptFlag) {
      const int t = PyObject_IsTrue(v);
      if (t < 0) {
        ok = 0;
      } else {
        *(int32_t*)field = t;
      }
    } else {
      ok = int32_of(v, (int32_t*)field);
    }
    Py_DECREF(v);
    if (!ok) return 0;
  }
  if (found != PyDict_Size(dict)) {
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(dict, &pos, &key, &value)) {
      int known = 0;
      if (PyUnicode_Check(key)) {
        const char* k = PyUnicode_AsUTF8(key);
        if (k == NULL) return 0;
        for (int i = 0; i < kOptionFieldCount && !known; ++i) known = strcmp(k, kOptionFields[i].name) == 0;
      }
      if (!known) {
        PyErr_Format(PyExc_TypeError, "%R is not an optimizer option (tsr_optimizer_options' fields)", key);
        return 0;
      }
    }
  }
  return 1;
}

/* The elements a step or zero_grad goes over: its parameters'. */
static int64_t optimizer_elements(tsr_optimizer* opt) {
  int64_t n = 0;
  const int32_t count = tsr_optimizer_num_params(opt);
  for (int32_t i = 0; i < count && n < kReleaseGilElements; ++i) {
    tsr_tensor* p = NULL;
    if (tsr_optimizer_param(opt, i, &p) != TSR_OK) continue;
    n += tsr_tensor_numel(p);
    tsr_tensor_release(p);
  }
  return n;
}

static PyObject* py_optimizer_defaults(PyObject* m, PyObject* args) {
  (void)m;
  int kind;
  if (!PyArg_ParseTuple(args, "i:optimizer_defaults", &kind)) return NULL;
  tsr_optimizer_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE;
  const tsr_status st = tsr_optimizer_defaults(kind, &o);
  if (st != TSR_OK) return tc_raise(st);
  return options_to_dict(&o);
}

static PyObject* py_optimizer_create(PyObject* m, PyObject* args) {
  (void)m;
  PyObject *params, *options;
  if (!PyArg_ParseTuple(args, "OO:optimizer_create", &params, &options)) return NULL;
  if (!PyDict_Check(options))
    return PyErr_Format(PyExc_TypeError, "optimizer options must be a dict, not %s", Py_TYPE(options)->tp_name);
  PyObject* kind_value = PyDict_GetItemString(options, "kind");  /* borrowed */
  if (kind_value == NULL) return PyErr_Format(PyExc_TypeError, "optimizer options need a 'kind'");
  int32_t kind;
  Py_INCREF(kind_value);
  const int kind_ok = int32_of(kind_value, &kind);
  Py_DECREF(kind_value);
  if (!kind_ok) return NULL;
  tsr_optimizer_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE;
  tsr_status st = tsr_optimizer_defaults(kind, &o);
  if (st != TSR_OK) return tc_raise(st);
  if (!options_from_dict(options, &o)) return NULL;

  PyObject* seq = PySequence_Fast(params, "optimizer_create: params must be a sequence of Tensors");
  if (seq == NULL) return NULL;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > INT32_MAX) {
    Py_DECREF(seq);
    return PyErr_Format(PyExc_OverflowError, "%zd parameters: at most INT32_MAX", n);
  }
  tsr_tensor** handles = PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *handles);
  if (handles == NULL) {
    Py_DECREF(seq);
    return PyErr_NoMemory();
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!tc_tensor(PySequence_Fast_GET_ITEM(seq, i), &handles[i])) {
      PyMem_Free(handles);
      Py_DECREF(seq);
      return NULL;
    }
  }
  tsr_optimizer* opt = NULL;
  st = tsr_optimizer_create((int32_t)n, handles, &o, &opt);  /* retains each parameter */
  PyMem_Free(handles);
  Py_DECREF(seq);
  if (st != TSR_OK) return tc_raise(st);
  PyObject* capsule = PyCapsule_New(opt, kOptimizerName, optimizer_capsule_destructor);
  if (capsule == NULL) tsr_optimizer_destroy(opt);
  return capsule;
}

static PyObject* py_optimizer_destroy(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_optimizer* opt;
  if (!tc_optimizer(arg, &opt)) return NULL;
  if (PyCapsule_SetName(arg, kDestroyedName) < 0) return NULL;
  tsr_optimizer_destroy(opt);
  Py_RETURN_NONE;
}

static PyObject* py_optimizer_step(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_optimizer* opt;
  tsr_status st;
  if (!tc_optimizer(arg, &opt)) return NULL;
  TC_MAYBE_WITHOUT_GIL(optimizer_elements(opt), st = tsr_optimizer_step(opt));
  return tc_none(st);
}

static PyObject* py_optimizer_zero_grad(PyObject* m, PyObject* args) {
  (void)m;
  tsr_optimizer* opt;
  int set_to_none;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&p:optimizer_zero_grad", tc_optimizer, &opt, &set_to_none)) return NULL;
  if (set_to_none) {
    st = tsr_optimizer_zero_grad(opt, 1);  /* drops references: no work over elements */
  } else {
    TC_MAYBE_WITHOUT_GIL(optimizer_elements(opt), st = tsr_optimizer_zero_grad(opt, 0));
  }
  return tc_none(st);
}

static PyObject* py_optimizer_get_options(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_optimizer* opt;
  if (!tc_optimizer(arg, &opt)) return NULL;
  tsr_optimizer_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE;
  const tsr_status st = tsr_optimizer_get_options(opt, &o);
  if (st != TSR_OK) return tc_raise(st);
  return options_to_dict(&o);
}

static PyObject* py_optimizer_set_options(PyObject* m, PyObject* args) {
  (void)m;
  tsr_optimizer* opt;
  PyObject* options;
  if (!PyArg_ParseTuple(args, "O&O:optimizer_set_options", tc_optimizer, &opt, &options)) return NULL;
  tsr_optimizer_options o;
  memset(&o, 0, sizeof o);
  o.struct_size = TSR_OPTIMIZER_OPTIONS_STRUCT_SIZE;
  tsr_status st = tsr_optimizer_get_options(opt, &o);
  if (st != TSR_OK) return tc_raise(st);
  if (!options_from_dict(options, &o)) return NULL;
  st = tsr_optimizer_set_options(opt, &o);
  return tc_none(st);
}

static PyObject* py_optimizer_set_lr(PyObject* m, PyObject* args) {
  (void)m;
  tsr_optimizer* opt;
  double lr;
  if (!PyArg_ParseTuple(args, "O&d:optimizer_set_lr", tc_optimizer, &opt, &lr)) return NULL;
  const tsr_status st = tsr_optimizer_set_lr(opt, lr);
  return tc_none(st);
}

static PyObject* py_optimizer_num_params(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_optimizer* opt;
  if (!tc_optimizer(arg, &opt)) return NULL;
  return PyLong_FromLong(tsr_optimizer_num_params(opt));
}

static PyObject* py_optimizer_param(PyObject* m, PyObject* args) {
  (void)m;
  tsr_optimizer* opt;
  int i;
  tsr_tensor* out = NULL;
  if (!PyArg_ParseTuple(args, "O&i:optimizer_param", tc_optimizer, &opt, &i)) return NULL;
  if (!tc_ready()) return NULL;
  const tsr_status st = tsr_optimizer_param(opt, i, &out);
  return tc_result(st, out);
}

/* A new Tensor over the state tensor itself (writes change the state), or
 * None while there is none. */
static PyObject* py_optimizer_get_state(PyObject* m, PyObject* args) {
  (void)m;
  tsr_optimizer* opt;
  int i;
  const char* name;
  tsr_tensor* out = NULL;
  if (!PyArg_ParseTuple(args, "O&is:optimizer_get_state", tc_optimizer, &opt, &i, &name)) return NULL;
  if (!tc_ready()) return NULL;
  const tsr_status st = tsr_optimizer_get_state(opt, i, name, &out);
  if (st == TSR_OK && out == NULL) Py_RETURN_NONE;
  return tc_result(st, out);
}

static PyObject* py_optimizer_set_state(PyObject* m, PyObject* args) {
  (void)m;
  tsr_optimizer* opt;
  int i;
  const char* name;
  tsr_tensor* value;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&isO&:optimizer_set_state", tc_optimizer, &opt, &i, &name, tc_tensor_or_none, &value))
    return NULL;
  TC_MAYBE_WITHOUT_GIL(numel_or_0(value), st = tsr_optimizer_set_state(opt, i, name, value));  /* copies */
  return tc_none(st);
}

/* ---- testing ------------------------------------------------------------------------ */

/* assert_close(actual, expected, rtol, atol, equal_nan) -> None: a mismatch
 * (TSR_ERR_INVALID_ARGUMENT) raises AssertionError with the C message
 * (naming the worst element); any other failure what _lib.error gives. */
static PyObject* py_assert_close(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *actual, *expected;
  double rtol, atol;
  int equal_nan;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&O&ddp:assert_close", tc_tensor, &actual, tc_tensor, &expected, &rtol, &atol,
                        &equal_nan))
    return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(actual) + tsr_tensor_numel(expected),
                       st = tsr_assert_close(actual, expected, rtol, atol, equal_nan));
  if (st != TSR_ERR_INVALID_ARGUMENT) return tc_none(st);
  return tc_raise_as(st, PyExc_AssertionError);
}

PyMethodDef tc_linalg_nn_methods[] = {
    /* linear algebra */
    {"linalg_cholesky", py_linalg_cholesky, METH_VARARGS, "linalg_cholesky(A, upper): L (or U) of A = L L^H"},
    {"linalg_lu_factor", py_linalg_lu_factor, METH_O, "linalg_lu_factor(A) -> (LU, pivots)"},
    {"linalg_solve", py_linalg_solve, METH_VARARGS, "linalg_solve(A, B): X with A X = B"},
    {"linalg_inv", py_linalg_inv, METH_O, "linalg_inv(A)"},
    {"linalg_det", py_linalg_det, METH_O, "linalg_det(A)"},
    {"linalg_slogdet", py_linalg_slogdet, METH_O, "linalg_slogdet(A) -> (sign, logabsdet)"},
    {"linalg_qr", py_linalg_qr, METH_VARARGS, "linalg_qr(A, complete) -> (Q, R)"},
    {"linalg_svd", py_linalg_svd, METH_VARARGS,
     "linalg_svd(A, full_matrices, compute_uv=True) -> (U, S, Vh); U and Vh None without compute_uv"},
    {"linalg_eigh", py_linalg_eigh, METH_VARARGS,
     "linalg_eigh(A, eigenvectors=True) -> (eigenvalues, eigenvectors or None), from A's lower triangle"},
    {"linalg_eig", py_linalg_eig, METH_VARARGS,
     "linalg_eig(A) -> (eigenvalues, eigenvectors), complex, of a general square A (ABI 1.11)"},
    {"linalg_eigvals", py_linalg_eigvals, METH_VARARGS, "linalg_eigvals(A): the complex eigenvalues (ABI 1.11)"},
    {"linalg_vector_norm", py_linalg_vector_norm, METH_VARARGS,
     "linalg_vector_norm(x, ord, dims, keepdim): dims [] for all"},
    {"linalg_pinv", py_linalg_pinv, METH_VARARGS, "linalg_pinv(A, atol or None, rtol or None, hermitian)"},
    /* nn functions */
    {"linear", py_linear, METH_VARARGS, "linear(x, weight, bias or None): x weight^T + bias"},
    {"layer_norm", py_layer_norm, METH_VARARGS,
     "layer_norm(x, num_normalized_dims, weight or None, bias or None, eps)"},
    {"embedding", py_embedding, METH_VARARGS,
     "embedding(weight, indices, padding_idx or None, scale_grad_by_freq): the rows of weight"},
    {"embedding_renorm_", py_embedding_renorm_, METH_VARARGS,
     "embedding_renorm_(weight, indices, max_norm, norm_type): the rows named renormalised in place"},
    {"dropout", py_dropout, METH_VARARGS, "dropout(x, p, training)"},
    {"gelu", py_gelu, METH_VARARGS, "gelu(x, approximate): approximate True for the tanh form"},
    {"silu", py_silu, METH_O, "silu(x)"},
    {"softplus", py_softplus, METH_VARARGS, "softplus(x, beta, threshold)"},
    /* losses */
    {"cross_entropy", py_cross_entropy, METH_VARARGS,
     "cross_entropy(input, target, reduction=1, ignore_index=-100, label_smoothing=0.0, weight=None, "
     "pos_weight=None): reduction 0 none, 1 mean, 2 sum (tsr_loss_options)"},
    {"nll_loss", py_nll_loss, METH_VARARGS, "nll_loss(input, target, ...): the arguments of cross_entropy"},
    {"mse_loss", py_mse_loss, METH_VARARGS, "mse_loss(input, target, ...): the arguments of cross_entropy"},
    {"l1_loss", py_l1_loss, METH_VARARGS, "l1_loss(input, target, ...): the arguments of cross_entropy"},
    {"binary_cross_entropy", py_binary_cross_entropy, METH_VARARGS,
     "binary_cross_entropy(input, target, ...): the arguments of cross_entropy"},
    {"binary_cross_entropy_with_logits", py_binary_cross_entropy_with_logits, METH_VARARGS,
     "binary_cross_entropy_with_logits(input, target, ...): the arguments of cross_entropy"},
    /* optimizers (Note [Optimizers as capsules]) */
    {"optimizer_defaults", py_optimizer_defaults, METH_VARARGS, "optimizer_defaults(kind) -> torch's options, a dict"},
    {"optimizer_create", py_optimizer_create, METH_VARARGS,
     "optimizer_create(params, options) -> an optimizer (a capsule); options a dict with 'kind'"},
    {"optimizer_destroy", py_optimizer_destroy, METH_O,
     "optimizer_destroy(opt): now rather than when opt is collected; opt is unusable after"},
    {"optimizer_step", py_optimizer_step, METH_O, "optimizer_step(opt): one update of the parameters with a .grad"},
    {"optimizer_zero_grad", py_optimizer_zero_grad, METH_VARARGS, "optimizer_zero_grad(opt, set_to_none)"},
    {"optimizer_get_options", py_optimizer_get_options, METH_O, "optimizer_get_options(opt) -> a dict"},
    {"optimizer_set_options", py_optimizer_set_options, METH_VARARGS,
     "optimizer_set_options(opt, options): the fields the dict names replaced"},
    {"optimizer_set_lr", py_optimizer_set_lr, METH_VARARGS, "optimizer_set_lr(opt, lr)"},
    {"optimizer_num_params", py_optimizer_num_params, METH_O, "optimizer_num_params(opt) -> int"},
    {"optimizer_param", py_optimizer_param, METH_VARARGS, "optimizer_param(opt, i) -> parameter i"},
    {"optimizer_get_state", py_optimizer_get_state, METH_VARARGS,
     "optimizer_get_state(opt, i, name) -> the state tensor itself, or None"},
    {"optimizer_set_state", py_optimizer_set_state, METH_VARARGS,
     "optimizer_set_state(opt, i, name, value or None): a copy of value, or removed"},
    /* testing */
    {"assert_close", py_assert_close, METH_VARARGS,
     "assert_close(actual, expected, rtol, atol, equal_nan): AssertionError on a mismatch (rtol/atol < 0: the "
     "dtype's defaults)"},
    {NULL, NULL, 0, NULL},
};
