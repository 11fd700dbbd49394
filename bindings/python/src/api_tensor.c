/* SPDX-License-Identifier: Apache-2.0 */
/* The module functions over tensors (Note [Module functions over the C API]
 * in _C.h): creation, metadata, views, copies, elementwise ops, reductions,
 * indexing ops, printing. */
#include "_C.h"

#include <string.h>

/* ---- views: one tensor in, one view out ------------------------------------------- */

/* f(t) -> Tensor for the C functions of one tensor and one out-parameter. */
#define TC_UNARY_VIEW(name)                                       \
  static PyObject* py_##name(PyObject* m, PyObject* arg) {        \
    (void)m;                                                      \
    tsr_tensor *t, *out = NULL;                                   \
    if (!tc_tensor(arg, &t)) return NULL;                         \
    const tsr_status st = tsr_##name(t, &out);                    \
    return tc_result(st, out);                                    \
  }
TC_UNARY_VIEW(t)
TC_UNARY_VIEW(real)
TC_UNARY_VIEW(imag)
TC_UNARY_VIEW(squeeze_all)
TC_UNARY_VIEW(detach)
#undef TC_UNARY_VIEW

/* A copy's work runs without the GIL when it is large. */
#define TC_UNARY_COPY(name)                                                      \
  static PyObject* py_##name(PyObject* m, PyObject* arg) {                       \
    (void)m;                                                                     \
    tsr_tensor *t, *out = NULL;                                                  \
    tsr_status st;                                                               \
    if (!tc_tensor(arg, &t)) return NULL;                                        \
    TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(t), st = tsr_##name(t, &out));         \
    return tc_result(st, out);                                                   \
  }
TC_UNARY_COPY(contiguous)
TC_UNARY_COPY(clone)
#undef TC_UNARY_COPY

/* alias(x): a new Tensor over x's own handle (x[...], torch's alias). */
static PyObject* py_alias(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor* t;
  if (!tc_tensor(arg, &t)) return NULL;
  tsr_tensor_retain(t);
  return tc_wrap(t);
}

static PyObject* py_view(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i64s shape;
  if (!tc_parse(args, nargs, "view", "TS", &t, &shape)) return NULL;
  const tsr_status st = tsr_view(t, shape.n, shape.v, &out);
  return tc_result(st, out);
}

static PyObject* py_reshape(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i64s shape;
  tsr_status st;
  if (!tc_parse(args, nargs, "reshape", "TS", &t, &shape)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(t), st = tsr_reshape(t, shape.n, shape.v, &out));  /* may copy */
  return tc_result(st, out);
}

static PyObject* py_expand(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i64s shape;
  if (!tc_parse(args, nargs, "expand", "TS", &t, &shape)) return NULL;
  const tsr_status st = tsr_expand(t, shape.n, shape.v, &out);
  return tc_result(st, out);
}

static PyObject* py_permute(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i32s dims;
  if (!tc_parse(args, nargs, "permute", "Ts", &t, &dims)) return NULL;
  const tsr_status st = tsr_permute(t, dims.n, dims.v, &out);
  return tc_result(st, out);
}

static PyObject* py_transpose(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  int dim0, dim1;
  if (!tc_parse(args, nargs, "transpose", "Tii", &t, &dim0, &dim1)) return NULL;
  const tsr_status st = tsr_transpose(t, dim0, dim1, &out);
  return tc_result(st, out);
}

static PyObject* py_flatten(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  int start, end;
  tsr_status st;
  if (!tc_parse(args, nargs, "flatten", "Tii", &t, &start, &end)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(t), st = tsr_flatten(t, start, end, &out));  /* may copy */
  return tc_result(st, out);
}

static PyObject* py_unsqueeze(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  int dim;
  if (!tc_parse(args, nargs, "unsqueeze", "Ti", &t, &dim)) return NULL;
  const tsr_status st = tsr_unsqueeze(t, dim, &out);
  return tc_result(st, out);
}

static PyObject* py_squeeze(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  int dim;
  if (!tc_parse(args, nargs, "squeeze", "Ti", &t, &dim)) return NULL;
  const tsr_status st = tsr_squeeze(t, dim, &out);
  return tc_result(st, out);
}

static PyObject* py_slice(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  int dim;
  long long start, stop, step;
  if (!tc_parse(args, nargs, "slice", "TiLLL", &t, &dim, &start, &stop, &step)) return NULL;
  const tsr_status st = tsr_slice(t, dim, start, stop, step, &out);
  return tc_result(st, out);
}

static PyObject* py_select(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  int dim;
  long long index;
  if (!tc_parse(args, nargs, "select", "TiL", &t, &dim, &index)) return NULL;
  const tsr_status st = tsr_select(t, dim, index, &out);
  return tc_result(st, out);
}

static PyObject* py_as_strided(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i64s shape, strides;
  long long offset;
  if (!tc_parse(args, nargs, "as_strided", "TSSL", &t, &shape, &strides, &offset))
    return NULL;
  if (shape.n != strides.n)
    return PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape (%d and %d)", (int)strides.n,
                        (int)shape.n);
  const tsr_status st = tsr_as_strided(t, shape.n, shape.v, strides.v, offset, &out);
  return tc_result(st, out);
}

static PyObject* py_diagonal(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  long long offset;
  int dim1, dim2;
  if (!tc_parse(args, nargs, "diagonal", "TLii", &t, &offset, &dim1, &dim2)) return NULL;
  const tsr_status st = tsr_diagonal(t, offset, dim1, dim2, &out);
  return tc_result(st, out);
}


/* ---- creation (on the process's runtime) ------------------------------------------ */

#define TC_SIZED(name)                                                                              \
  static PyObject* py_##name(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {               \
    (void)m;                                                                                        \
    tc_i64s shape;                                                                                  \
    tsr_dtype dtype;                                                                                \
    tsr_device device;                                                                              \
    tsr_tensor* out = NULL;                                                                         \
    if (!tc_parse(args, nargs, #name, "SDV", &shape, &dtype, &device)) return NULL;                 \
    tsr_runtime* rt = tc_runtime();                                                                 \
    if (rt == NULL) return NULL;                                                                    \
    const tsr_status st = tsr_##name(rt, shape.n, shape.v, dtype, device, &out);                    \
    return tc_result(st, out);                                                                      \
  }
TC_SIZED(empty)
TC_SIZED(zeros)
TC_SIZED(ones)
TC_SIZED(rand)
TC_SIZED(randn)
#undef TC_SIZED

static PyObject* py_full(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tc_i64s shape;
  tsr_scalar value;
  tsr_dtype dtype;
  tsr_device device;
  tsr_tensor* out = NULL;
  if (!tc_parse(args, nargs, "full", "SNDV", &shape, &value, &dtype, &device))
    return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  const tsr_status st = tsr_full(rt, shape.n, shape.v, value, dtype, device, &out);
  return tc_result(st, out);
}

static PyObject* py_arange(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_scalar start, end, step;
  tsr_dtype dtype;
  tsr_device device;
  tsr_tensor* out = NULL;
  if (!tc_parse(args, nargs, "arange", "NNNDV", &start, &end, &step, &dtype, &device))
    return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  const tsr_status st = tsr_arange(rt, start, end, step, dtype, device, &out);
  return tc_result(st, out);
}

static PyObject* py_linspace(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  double start, end;
  long long steps;
  tsr_dtype dtype;
  tsr_device device;
  tsr_tensor* out = NULL;
  if (!tc_parse(args, nargs, "linspace", "ddLDV", &start, &end, &steps, &dtype, &device))
    return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  const tsr_status st = tsr_linspace(rt, start, end, steps, dtype, device, &out);
  return tc_result(st, out);
}

static PyObject* py_eye(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  long long n, cols, k;
  tsr_dtype dtype;
  tsr_device device;
  tsr_tensor* out = NULL;
  if (!tc_parse(args, nargs, "eye", "LLLDV", &n, &cols, &k, &dtype, &device)) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  const tsr_status st = tsr_eye(rt, n, cols, k, dtype, device, &out);
  return tc_result(st, out);
}

static PyObject* py_manual_seed(PyObject* m, PyObject* arg) {
  (void)m;
  const unsigned long long seed = PyLong_AsUnsignedLongLongMask(arg);
  if (seed == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  tsr_manual_seed(rt, seed);
  Py_RETURN_NONE;
}

/* from_host(buffer, shape, dtype, device): a tensor holding a copy of the
 * buffer's bytes (C order, the dtype's size each). */
static PyObject* py_from_host(PyObject* m, PyObject* args) {
  (void)m;
  Py_buffer data;
  tc_i64s shape;
  tsr_dtype dtype;
  tsr_device device;
  tsr_tensor* out = NULL;
  if (!PyArg_ParseTuple(args, "y*O&O&O&:from_host", &data, tc_ints64, &shape, tc_dtype, &dtype, tc_device, &device))
    return NULL;
  int64_t n = 1;
  for (int32_t i = 0; i < shape.n; ++i) n *= shape.v[i] > 0 ? shape.v[i] : 0;
  tsr_status st = TSR_OK;
  if ((size_t)data.len < (size_t)n * tsr_dtype_itemsize(dtype)) {
    PyBuffer_Release(&data);
    return PyErr_Format(PyExc_ValueError, "from_host: %zd bytes for %lld elements of %s", data.len, (long long)n,
                        tsr_dtype_get_name(dtype));
  }
  tsr_runtime* rt = tc_runtime();
  if (rt != NULL) TC_MAYBE_WITHOUT_GIL(n, st = tsr_from_host(rt, data.buf, shape.n, shape.v, dtype, device, &out));
  PyBuffer_Release(&data);
  if (rt == NULL) return NULL;
  return tc_result(st, out);
}

/* ---- metadata --------------------------------------------------------------------- */

#define TC_GETTER(name, type, make)                          \
  static PyObject* py_##name(PyObject* m, PyObject* arg) {   \
    (void)m;                                                 \
    tsr_tensor* t;                                           \
    if (!tc_tensor(arg, &t)) return NULL;                    \
    const type v = tsr_##name(t);                            \
    return make;                                             \
  }
TC_GETTER(tensor_numel, int64_t, PyLong_FromLongLong(v))
TC_GETTER(tensor_storage_offset, int64_t, PyLong_FromLongLong(v))
TC_GETTER(tensor_storage_data, void*, PyLong_FromVoidPtr((void*)v))
TC_GETTER(tensor_storage_nbytes, size_t, PyLong_FromSize_t(v))
TC_GETTER(tensor_element_size, size_t, PyLong_FromSize_t(v))
TC_GETTER(tensor_is_contiguous, int32_t, PyBool_FromLong(v))
TC_GETTER(tensor_dtype, tsr_dtype, PyLong_FromLong((long)v))
#undef TC_GETTER

static PyObject* py_tensor_strides(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor* t;
  if (!tc_tensor(arg, &t)) return NULL;
  const int32_t n = tsr_tensor_ndim(t);
  const int64_t* strides = tsr_tensor_strides(t);
  PyObject* r = PyTuple_New(n);
  for (int32_t i = 0; r != NULL && i < n; ++i) {
    PyObject* v = PyLong_FromLongLong(strides[i]);
    if (v == NULL) Py_CLEAR(r);
    else PyTuple_SET_ITEM(r, i, v);
  }
  return r;
}

/* ---- elementwise ops -------------------------------------------------------------- */


static PyObject* py_binary(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_op op;
  tsr_tensor *a, *b, *out = NULL;
  tsr_status st;
  if (!tc_parse(args, nargs, "binary", "KTT", &op, &a, &b)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, b), st = tsr_binary(op, a, b, &out));
  return tc_result(st, out);
}

static PyObject* py_binary_scalar(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_op op;
  tsr_tensor *a, *out = NULL;
  tsr_scalar s;
  int reversed;
  tsr_status st;
  if (!tc_parse(args, nargs, "binary_scalar", "KTNp", &op, &a, &s, &reversed))
    return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, NULL), st = tsr_binary_scalar(op, a, s, reversed, &out));
  return tc_result(st, out);
}

static PyObject* py_binary_(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_op op;
  tsr_tensor *a, *b;
  tsr_status st;
  if (!tc_parse(args, nargs, "binary_", "KTT", &op, &a, &b)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, b), st = tsr_binary_(op, a, b));
  return tc_none(st);
}

static PyObject* py_binary_scalar_(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_op op;
  tsr_tensor* a;
  tsr_scalar s;
  tsr_status st;
  if (!tc_parse(args, nargs, "binary_scalar_", "KTN", &op, &a, &s)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, NULL), st = tsr_binary_scalar_(op, a, s));
  return tc_none(st);
}

static PyObject* py_binary_out(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_op op;
  tsr_tensor *a, *b, *out;
  tsr_status st;
  if (!tc_parse(args, nargs, "binary_out", "KTTT", &op, &a, &b, &out))
    return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, b), st = tsr_binary_out(op, a, b, out));
  return tc_none(st);
}

static PyObject* py_binary_scalar_out(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_op op;
  tsr_tensor *a, *out;
  tsr_scalar s;
  int reversed;
  tsr_status st;
  if (!tc_parse(args, nargs, "binary_scalar_out", "KTNpT", &op, &a, &s, &reversed, &out))
    return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, NULL), st = tsr_binary_scalar_out(op, a, s, reversed, out));
  return tc_none(st);
}

static PyObject* py_unary(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_op op;
  tsr_tensor *a, *out = NULL;
  tsr_status st;
  if (!tc_parse(args, nargs, "unary", "KT", &op, &a)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, NULL), st = tsr_unary(op, a, &out));
  return tc_result(st, out);
}

static PyObject* py_unary_(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_op op;
  tsr_tensor* a;
  tsr_status st;
  if (!tc_parse(args, nargs, "unary_", "KT", &op, &a)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, NULL), st = tsr_unary_(op, a));
  return tc_none(st);
}

static PyObject* py_unary_out(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_op op;
  tsr_tensor *a, *out;
  tsr_status st;
  if (!tc_parse(args, nargs, "unary_out", "KTT", &op, &a, &out)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, NULL), st = tsr_unary_out(op, a, out));
  return tc_none(st);
}

static PyObject* py_math(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  int fn;
  tsr_tensor *a, *out = NULL;
  tsr_status st;
  if (!tc_parse(args, nargs, "math", "iT", &fn, &a)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, NULL), st = tsr_math(fn, a, &out));
  return tc_result(st, out);
}

static PyObject* py_math_out(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  int fn;
  tsr_tensor *a, *out;
  tsr_status st;
  if (!tc_parse(args, nargs, "math_out", "iTT", &fn, &a, &out)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, NULL), st = tsr_math_out(fn, a, out));
  return tc_none(st);
}

static PyObject* py_matmul(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *a, *b, *out = NULL;
  tsr_status st;
  if (!tc_parse(args, nargs, "matmul", "TT", &a, &b)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, b), st = tsr_matmul(a, b, &out));
  return tc_result(st, out);
}

static PyObject* py_matmul_out(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *a, *b, *out;
  tsr_status st;
  if (!tc_parse(args, nargs, "matmul_out", "TTT", &a, &b, &out)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, b), st = tsr_matmul_out(a, b, out));
  return tc_none(st);
}

static PyObject* py_where(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *c, *a, *b, *out = NULL;
  tsr_status st;
  if (!tc_parse(args, nargs, "where", "TTT", &c, &a, &b)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(a, b), st = tsr_where(c, a, b, &out));
  return tc_result(st, out);
}

/* ---- copies and conversions ------------------------------------------------------- */

static PyObject* py_to(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tsr_dtype dtype;
  tsr_device device;
  tsr_status st;
  if (!tc_parse(args, nargs, "to", "TDV", &t, &dtype, &device)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_to(t, dtype, device, &out));
  return tc_result(st, out);
}

static PyObject* py_to_dtype(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tsr_dtype dtype;
  tsr_status st;
  if (!tc_parse(args, nargs, "to_dtype", "TD", &t, &dtype)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_to_dtype(t, dtype, &out));
  return tc_result(st, out);
}

static PyObject* py_to_device(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tsr_device device;
  tsr_status st;
  if (!tc_parse(args, nargs, "to_device", "TV", &t, &device)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_to_device(t, device, &out));
  return tc_result(st, out);
}

static PyObject* py_copy_(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *dst, *src;
  tsr_status st;
  if (!tc_parse(args, nargs, "copy_", "TT", &dst, &src)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(dst, NULL), st = tsr_copy_(dst, src));
  return tc_none(st);
}

static PyObject* py_fill_(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor* t;
  tsr_scalar s;
  tsr_status st;
  if (!tc_parse(args, nargs, "fill_", "TN", &t, &s)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_fill_(t, s));
  return tc_none(st);
}

/* ---- reductions and indexing ops -------------------------------------------------- */

static PyObject* py_reduce(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_op op;
  tsr_tensor *t, *out = NULL;
  tc_i32s dims;
  int keepdim;
  double correction = 1.0;
  tsr_status st;
  if (!tc_parse(args, nargs, "reduce", "KTsp|d", &op, &t, &dims, &keepdim, &correction))
    return NULL;
  tsr_reduce_options o = {TSR_REDUCE_OPTIONS_STRUCT_SIZE, dims.v, dims.n, keepdim, correction};
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_reduce_ex(op, t, &o, &out));
  return tc_result(st, out);
}

static PyObject* py_cumsum(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  long long dim;
  tsr_dtype dtype;
  tsr_status st;
  if (!tc_parse(args, nargs, "cumsum", "TLD", &t, &dim, &dtype)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_cumsum(t, dim, dtype, &out));
  return tc_result(st, out);
}

static PyObject* py_clamp(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *x, *lo = NULL, *hi = NULL, *out = NULL;
  tsr_status st;
  if (!tc_parse(args, nargs, "clamp", "Ttt", &x, &lo, &hi)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(x, NULL), st = tsr_clamp(x, lo, hi, &out));
  return tc_result(st, out);
}

static PyObject* py_view_dtype(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tsr_dtype dtype;
  if (!tc_parse(args, nargs, "view_dtype", "TD", &t, &dtype)) return NULL;
  const tsr_status st = tsr_view_dtype(t, dtype, &out);
  return tc_result(st, out);
}

static PyObject* py_cumprod(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  long long dim;
  tsr_dtype dtype;
  tsr_status st;
  if (!tc_parse(args, nargs, "cumprod", "TLD", &t, &dim, &dtype)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_cumprod(t, dim, dtype, &out));
  return tc_result(st, out);
}

static PyObject* py_searchsorted(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *sorted, *values, *sorter = NULL, *out = NULL;
  int right;
  tsr_status st;
  if (!tc_parse(args, nargs, "searchsorted", "TTpt", &sorted, &values, &right, &sorter)) return NULL;
  tsr_searchsorted_options o = TSR_SEARCHSORTED_OPTIONS_INIT;
  o.right = right;
  o.sorter = sorter;
  TC_MAYBE_WITHOUT_GIL(tc_elements(values, NULL), st = tsr_searchsorted(sorted, values, &o, &out));
  return tc_result(st, out);
}

static PyObject* py_gather(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *index, *out = NULL;
  long long dim;
  tsr_status st;
  if (!tc_parse(args, nargs, "gather", "TLT", &t, &dim, &index)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, index), st = tsr_gather(t, dim, index, &out));
  return tc_result(st, out);
}

static PyObject* py_take(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *index, *out = NULL;
  long long dim;
  tsr_status st;
  if (!tc_parse(args, nargs, "take", "TTL", &t, &index, &dim)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, index), st = tsr_take(t, index, dim, &out));
  return tc_result(st, out);
}

static PyObject* py_scatter_(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *index, *src;
  long long dim;
  int add;
  tsr_status st;
  if (!tc_parse(args, nargs, "scatter_", "TLTTp", &t, &dim, &index, &src, &add))
    return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, index), st = tsr_scatter_(t, dim, index, src, add));
  return tc_none(st);
}

static PyObject* py_nonzero(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tsr_status st;
  if (!tc_tensor(arg, &t)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_nonzero(t, &out));
  return tc_result(st, out);
}


static PyObject* py_sort(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor* t;
  tsr_sort_options o = TSR_SORT_OPTIONS_INIT;
  long long dim;
  int descending, stable;
  tsr_tensor* outs[2] = {NULL, NULL};
  tsr_status st;
  if (!tc_parse(args, nargs, "sort", "TLpp", &t, &dim, &descending, &stable)) return NULL;
  o.dim = dim;
  o.descending = descending;
  o.stable = stable;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_sort(t, &o, &outs[0], &outs[1]));
  return tc_results(st, 2, outs);
}

/* unique(x, indices, inverse, counts) -> (values, indices, inverse, counts),
 * None for each not asked for. */
static PyObject* py_unique(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor* t;
  int want_indices, want_inverse, want_counts;
  tsr_tensor* outs[4] = {NULL, NULL, NULL, NULL};
  tsr_status st;
  if (!tc_parse(args, nargs, "unique", "Tppp", &t, &want_indices, &want_inverse, &want_counts)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_unique(t, &outs[0], want_indices ? &outs[1] : NULL,
                                                        want_inverse ? &outs[2] : NULL, want_counts ? &outs[3] : NULL));
  return tc_results(st, 4, outs);
}

/* A sequence of Tensors as handles (borrowed: the sequence holds them). */
static tsr_tensor** handles_of(PyObject* seq, Py_ssize_t* count) {
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  tsr_tensor** hs = PyMem_Malloc(sizeof(tsr_tensor*) * (size_t)(n > 0 ? n : 1));
  if (hs == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!tc_tensor(PySequence_Fast_GET_ITEM(seq, i), &hs[i])) {
      PyMem_Free(hs);
      return NULL;
    }
  }
  *count = n;
  return hs;
}

static PyObject* join(PyObject* args, int stack) {
  PyObject* tensors;
  long long dim;
  if (!PyArg_ParseTuple(args, stack ? "OL:stack" : "OL:concat", &tensors, &dim)) return NULL;
  PyObject* seq = PySequence_Fast(tensors, "expected a sequence of Tensors");
  if (seq == NULL) return NULL;
  Py_ssize_t n = 0;
  tsr_tensor** hs = handles_of(seq, &n);
  if (hs == NULL) {
    Py_DECREF(seq);
    return NULL;
  }
  if (n > INT32_MAX) {
    PyMem_Free(hs);
    Py_DECREF(seq);
    return PyErr_Format(PyExc_ValueError, "%zd tensors: at most %d", n, INT32_MAX);
  }
  int64_t elements = 0;
  for (Py_ssize_t i = 0; i < n; ++i) elements += tsr_tensor_numel(hs[i]);
  tsr_tensor* out = NULL;
  tsr_status st;
  TC_MAYBE_WITHOUT_GIL(elements, st = stack ? tsr_stack(hs, (int32_t)n, dim, &out)
                                            : tsr_concat(hs, (int32_t)n, dim, &out));
  PyMem_Free(hs);
  Py_DECREF(seq);
  return tc_result(st, out);
}

static PyObject* py_concat(PyObject* m, PyObject* args) {
  (void)m;
  return join(args, 0);
}

static PyObject* py_stack(PyObject* m, PyObject* args) {
  (void)m;
  return join(args, 1);
}

static PyObject* py_roll(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i64s shifts;
  PyObject* dims_arg;
  tc_i64s dims = {0, {0}};
  tsr_status st;
  if (!tc_parse(args, nargs, "roll", "TSO", &t, &shifts, &dims_arg)) return NULL;
  if (dims_arg != Py_None && !tc_ints64(dims_arg, &dims)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL),
                       st = tsr_roll(t, shifts.n, shifts.v, dims_arg == Py_None ? NULL : dims.v, &out));
  return tc_result(st, out);
}

static PyObject* py_flip(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i64s dims;
  tsr_status st;
  if (!tc_parse(args, nargs, "flip", "TS", &t, &dims)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_flip(t, dims.n, dims.v, &out));
  return tc_result(st, out);
}

#define TC_TRIANGLE(name)                                                        \
  static PyObject* py_##name(PyObject* m, PyObject* const* args, Py_ssize_t nargs) { \
    (void)m;                                                                     \
    tsr_tensor *t, *out = NULL;                                                  \
    int64_t k;                                                                   \
    tsr_status st;                                                               \
    if (!tc_parse(args, nargs, #name, "TL", &t, &k)) return NULL;                \
    TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_##name(t, k, &out));          \
    return tc_result(st, out);                                                   \
  }
TC_TRIANGLE(tril)
TC_TRIANGLE(triu)
#undef TC_TRIANGLE

#define TC_SOFTMAX(name)                                                         \
  static PyObject* py_##name(PyObject* m, PyObject* const* args, Py_ssize_t nargs) { \
    (void)m;                                                                     \
    tsr_tensor *t, *out = NULL;                                                  \
    int64_t dim;                                                                 \
    tsr_status st;                                                               \
    if (!tc_parse(args, nargs, #name, "TL", &t, &dim)) return NULL;              \
    TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_##name(t, dim, &out));        \
    return tc_result(st, out);                                                   \
  }
TC_SOFTMAX(softmax)
TC_SOFTMAX(log_softmax)
#undef TC_SOFTMAX

static PyObject* py_logsumexp(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i32s dims;
  int keepdim;
  tsr_status st;
  if (!tc_parse(args, nargs, "logsumexp", "Tsp", &t, &dims, &keepdim)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_logsumexp(t, dims.n, dims.v, keepdim, &out));
  return tc_result(st, out);
}

/* ---- values and text ---------------------------------------------------------------- */

/* item(x): its one element as a Python number (uint64 as an unsigned int). */
static PyObject* py_item(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor* t;
  tsr_scalar s;
  if (!tc_tensor(arg, &t)) return NULL;
  const tsr_status st = tsr_item(t, &s);
  if (st != TSR_OK) return tc_raise(st);
  if (s.kind == TSR_SCALAR_INT && tsr_tensor_dtype(t) == TSR_UINT64)
    return PyLong_FromUnsignedLongLong((unsigned long long)s.i);  /* tsr_item: i holds the bits */
  return tc_scalar_value(s);
}

/* read(x): its elements' bytes in C order (numel * itemsize). */
static PyObject* py_read(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor* t;
  if (!tc_tensor(arg, &t)) return NULL;
  const size_t nbytes = (size_t)tsr_tensor_numel(t) * tsr_tensor_element_size(t);
  PyObject* buf = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)nbytes);
  if (buf == NULL) return NULL;
  tsr_status st;
  TC_MAYBE_WITHOUT_GIL(tc_elements(t, NULL), st = tsr_read(t, PyBytes_AS_STRING(buf), nbytes));
  if (st != TSR_OK) {
    Py_DECREF(buf);
    return tc_raise(st);
  }
  return buf;
}


#define TC_TEXT(name)                                          \
  static PyObject* py_##name(PyObject* m, PyObject* arg) {     \
    (void)m;                                                   \
    tsr_tensor* t;                                             \
    char* text = NULL;                                         \
    if (!tc_tensor(arg, &t)) return NULL;                      \
    const tsr_status st = tsr_##name(t, &text);                \
    return tc_take_string(st, text);                              \
  }
TC_TEXT(format)
TC_TEXT(format_layout)
#undef TC_TEXT

/* ---- shapes and dtypes -------------------------------------------------------------- */

static PyObject* py_broadcast_shapes(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  tc_i64s a, b;
  int32_t n = 0;
  int64_t out[TSR_MAX_DIMS];
  if (!tc_parse(args, nargs, "broadcast_shapes", "SS", &a, &b)) return NULL;
  const tsr_status st = tsr_broadcast_shapes(a.n, a.v, b.n, b.v, &n, out);
  if (st != TSR_OK) return tc_raise(st);
  PyObject* r = PyTuple_New(n);
  for (int32_t i = 0; r != NULL && i < n; ++i) {
    PyObject* v = PyLong_FromLongLong(out[i]);
    if (v == NULL) Py_CLEAR(r);
    else PyTuple_SET_ITEM(r, i, v);
  }
  return r;
}

static PyObject* py_promote_types(PyObject* m, PyObject* const* args, Py_ssize_t nargs) {
  (void)m;
  int a, b;
  if (!tc_parse(args, nargs, "promote_types", "ii", &a, &b)) return NULL;
  return PyLong_FromLong((long)tsr_promote_types((tsr_dtype)a, (tsr_dtype)b));
}

/* get_finfo(code) -> (bits, eps, max, min, tiny) */
static PyObject* py_get_finfo(PyObject* m, PyObject* arg) {
  (void)m;
  const long code = PyLong_AsLong(arg);
  if (code == -1 && PyErr_Occurred()) return NULL;
  tsr_finfo f;
  f.struct_size = TSR_FINFO_STRUCT_SIZE;
  const tsr_status st = tsr_get_finfo((tsr_dtype)code, &f);
  if (st != TSR_OK) return tc_raise(st);
  return Py_BuildValue("idddd", (int)f.bits, f.eps, f.max, f.min, f.tiny);
}

PyMethodDef tc_tensor_methods[] = {
    {"t", py_t, METH_O, "t(x): x.T, all dims reversed (tsr_t)"},
    {"real", py_real, METH_O, "real(x): a view of the real parts (tsr_real)"},
    {"imag", py_imag, METH_O, "imag(x): a view of the imaginary parts (tsr_imag)"},
    {"squeeze_all", py_squeeze_all, METH_O, "squeeze_all(x): every dim of size 1 removed"},
    {"detach", py_detach, METH_O, "detach(x): a view that records nothing"},
    {"contiguous", py_contiguous, METH_O, "contiguous(x): x, or a row-major copy"},
    {"clone", py_clone, METH_O, "clone(x): a copy"},
    {"alias", py_alias, METH_O, "alias(x): a new Tensor over the same handle"},
    {"view", (PyCFunction)(void (*)(void))py_view, METH_FASTCALL, "view(x, shape)"},
    {"reshape", (PyCFunction)(void (*)(void))py_reshape, METH_FASTCALL, "reshape(x, shape): a view where one exists, else a copy"},
    {"expand", (PyCFunction)(void (*)(void))py_expand, METH_FASTCALL, "expand(x, shape)"},
    {"permute", (PyCFunction)(void (*)(void))py_permute, METH_FASTCALL, "permute(x, dims)"},
    {"transpose", (PyCFunction)(void (*)(void))py_transpose, METH_FASTCALL, "transpose(x, dim0, dim1)"},
    {"flatten", (PyCFunction)(void (*)(void))py_flatten, METH_FASTCALL, "flatten(x, start_dim, end_dim)"},
    {"unsqueeze", (PyCFunction)(void (*)(void))py_unsqueeze, METH_FASTCALL, "unsqueeze(x, dim)"},
    {"squeeze", (PyCFunction)(void (*)(void))py_squeeze, METH_FASTCALL, "squeeze(x, dim)"},
    {"slice", (PyCFunction)(void (*)(void))py_slice, METH_FASTCALL, "slice(x, dim, start, stop, step): TSR_SLICE_NONE (-2**63) for an absent bound"},
    {"select", (PyCFunction)(void (*)(void))py_select, METH_FASTCALL, "select(x, dim, index)"},
    {"as_strided", (PyCFunction)(void (*)(void))py_as_strided, METH_FASTCALL, "as_strided(x, shape, strides, offset)"},
    {"diagonal", (PyCFunction)(void (*)(void))py_diagonal, METH_FASTCALL, "diagonal(x, offset, dim1, dim2)"},
    {"empty", (PyCFunction)(void (*)(void))py_empty, METH_FASTCALL, "empty(shape, dtype, device)"},
    {"zeros", (PyCFunction)(void (*)(void))py_zeros, METH_FASTCALL, "zeros(shape, dtype, device)"},
    {"ones", (PyCFunction)(void (*)(void))py_ones, METH_FASTCALL, "ones(shape, dtype, device)"},
    {"rand", (PyCFunction)(void (*)(void))py_rand, METH_FASTCALL, "rand(shape, dtype, device)"},
    {"randn", (PyCFunction)(void (*)(void))py_randn, METH_FASTCALL, "randn(shape, dtype, device)"},
    {"full", (PyCFunction)(void (*)(void))py_full, METH_FASTCALL, "full(shape, value, dtype, device)"},
    {"arange", (PyCFunction)(void (*)(void))py_arange, METH_FASTCALL, "arange(start, end, step, dtype, device)"},
    {"linspace", (PyCFunction)(void (*)(void))py_linspace, METH_FASTCALL, "linspace(start, end, steps, dtype, device)"},
    {"eye", (PyCFunction)(void (*)(void))py_eye, METH_FASTCALL, "eye(n, m, k, dtype, device)"},
    {"manual_seed", py_manual_seed, METH_O, "manual_seed(seed): modulo 2**64"},
    {"from_host", py_from_host, METH_VARARGS, "from_host(buffer, shape, dtype, device): a copy of the bytes"},
    {"tensor_numel", py_tensor_numel, METH_O, "tensor_numel(x)"},
    {"tensor_strides", py_tensor_strides, METH_O, "tensor_strides(x): a tuple, in elements"},
    {"tensor_storage_offset", py_tensor_storage_offset, METH_O, "tensor_storage_offset(x): in elements"},
    {"tensor_storage_data", py_tensor_storage_data, METH_O, "tensor_storage_data(x): the storage's address"},
    {"tensor_storage_nbytes", py_tensor_storage_nbytes, METH_O, "tensor_storage_nbytes(x)"},
    {"tensor_element_size", py_tensor_element_size, METH_O, "tensor_element_size(x): bytes"},
    {"tensor_is_contiguous", py_tensor_is_contiguous, METH_O, "tensor_is_contiguous(x)"},
    {"tensor_dtype", py_tensor_dtype, METH_O, "tensor_dtype(x): the dtype's code"},
    {"binary", (PyCFunction)(void (*)(void))py_binary, METH_FASTCALL, "binary(op, a, b)"},
    {"binary_scalar", (PyCFunction)(void (*)(void))py_binary_scalar, METH_FASTCALL, "binary_scalar(op, a, number, reversed)"},
    {"binary_", (PyCFunction)(void (*)(void))py_binary_, METH_FASTCALL, "binary_(op, a, b): a (op)= b"},
    {"binary_scalar_", (PyCFunction)(void (*)(void))py_binary_scalar_, METH_FASTCALL, "binary_scalar_(op, a, number)"},
    {"binary_out", (PyCFunction)(void (*)(void))py_binary_out, METH_FASTCALL, "binary_out(op, a, b, out)"},
    {"binary_scalar_out", (PyCFunction)(void (*)(void))py_binary_scalar_out, METH_FASTCALL, "binary_scalar_out(op, a, number, reversed, out)"},
    {"unary", (PyCFunction)(void (*)(void))py_unary, METH_FASTCALL, "unary(op, a)"},
    {"unary_", (PyCFunction)(void (*)(void))py_unary_, METH_FASTCALL, "unary_(op, a)"},
    {"unary_out", (PyCFunction)(void (*)(void))py_unary_out, METH_FASTCALL, "unary_out(op, a, out)"},
    {"math", (PyCFunction)(void (*)(void))py_math, METH_FASTCALL, "math(fn, a): a tsr_math_fn"},
    {"math_out", (PyCFunction)(void (*)(void))py_math_out, METH_FASTCALL, "math_out(fn, a, out)"},
    {"matmul", (PyCFunction)(void (*)(void))py_matmul, METH_FASTCALL, "matmul(a, b)"},
    {"matmul_out", (PyCFunction)(void (*)(void))py_matmul_out, METH_FASTCALL, "matmul_out(a, b, out)"},
    {"where", (PyCFunction)(void (*)(void))py_where, METH_FASTCALL, "where(condition, a, b)"},
    {"to", (PyCFunction)(void (*)(void))py_to, METH_FASTCALL, "to(x, dtype, device)"},
    {"to_dtype", (PyCFunction)(void (*)(void))py_to_dtype, METH_FASTCALL, "to_dtype(x, dtype)"},
    {"to_device", (PyCFunction)(void (*)(void))py_to_device, METH_FASTCALL, "to_device(x, device)"},
    {"copy_", (PyCFunction)(void (*)(void))py_copy_, METH_FASTCALL, "copy_(dst, src)"},
    {"fill_", (PyCFunction)(void (*)(void))py_fill_, METH_FASTCALL, "fill_(x, number)"},
    {"reduce", (PyCFunction)(void (*)(void))py_reduce, METH_FASTCALL, "reduce(op, x, dims, keepdim, correction=1.0): () for every dim"},
    {"cumsum", (PyCFunction)(void (*)(void))py_cumsum, METH_FASTCALL, "cumsum(x, dim, dtype)"},
    {"clamp", (PyCFunction)(void (*)(void))py_clamp, METH_FASTCALL, "clamp(x, min, max)"},
    {"view_dtype", (PyCFunction)(void (*)(void))py_view_dtype, METH_FASTCALL, "view_dtype(x, dtype)"},
    {"cumprod", (PyCFunction)(void (*)(void))py_cumprod, METH_FASTCALL, "cumprod(x, dim, dtype)"},
    {"searchsorted", (PyCFunction)(void (*)(void))py_searchsorted, METH_FASTCALL,
     "searchsorted(sorted, values, right, sorter)"},
    {"gather", (PyCFunction)(void (*)(void))py_gather, METH_FASTCALL, "gather(x, dim, index)"},
    {"take", (PyCFunction)(void (*)(void))py_take, METH_FASTCALL, "take(x, index, dim)"},
    {"scatter_", (PyCFunction)(void (*)(void))py_scatter_, METH_FASTCALL, "scatter_(x, dim, index, src, add)"},
    {"nonzero", py_nonzero, METH_O, "nonzero(x)"},
    {"sort", (PyCFunction)(void (*)(void))py_sort, METH_FASTCALL, "sort(x, dim, descending, stable) -> (values, indices)"},
    {"unique", (PyCFunction)(void (*)(void))py_unique, METH_FASTCALL,
     "unique(x, indices, inverse, counts) -> (values, indices, inverse, counts), None where not asked"},
    {"concat", py_concat, METH_VARARGS, "concat(tensors, dim)"},
    {"stack", py_stack, METH_VARARGS, "stack(tensors, dim)"},
    {"roll", (PyCFunction)(void (*)(void))py_roll, METH_FASTCALL, "roll(x, shifts, dims): dims None rolls the flattened tensor"},
    {"flip", (PyCFunction)(void (*)(void))py_flip, METH_FASTCALL, "flip(x, dims)"},
    {"tril", (PyCFunction)(void (*)(void))py_tril, METH_FASTCALL, "tril(x, k)"},
    {"triu", (PyCFunction)(void (*)(void))py_triu, METH_FASTCALL, "triu(x, k)"},
    {"softmax", (PyCFunction)(void (*)(void))py_softmax, METH_FASTCALL, "softmax(x, dim)"},
    {"log_softmax", (PyCFunction)(void (*)(void))py_log_softmax, METH_FASTCALL, "log_softmax(x, dim)"},
    {"logsumexp", (PyCFunction)(void (*)(void))py_logsumexp, METH_FASTCALL, "logsumexp(x, dims, keepdim)"},
    {"item", py_item, METH_O, "item(x): the one element as a Python number"},
    {"read", py_read, METH_O, "read(x): the elements' bytes, C order"},
    {"format", py_format, METH_O, "format(x): torch's repr"},
    {"format_layout", py_format_layout, METH_O, "format_layout(x): the layout picture"},
    {"broadcast_shapes", (PyCFunction)(void (*)(void))py_broadcast_shapes, METH_FASTCALL, "broadcast_shapes(a, b) -> tuple"},
    {"promote_types", (PyCFunction)(void (*)(void))py_promote_types, METH_FASTCALL, "promote_types(code_a, code_b) -> code"},
    {"get_finfo", py_get_finfo, METH_O, "get_finfo(code) -> (bits, eps, max, min, tiny)"},
    {NULL, NULL, 0, NULL},
};
