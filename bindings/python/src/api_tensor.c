/* SPDX-License-Identifier: Apache-2.0 */
/* The module functions over tensors (Note [Module functions over the C API]
 * in _C.h): creation, metadata, views, copies, elementwise ops, reductions,
 * indexing ops, printing. */
#include "_C.h"

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

static PyObject* py_view(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i64s shape;
  if (!PyArg_ParseTuple(args, "O&O&:view", tc_tensor, &t, tc_ints64, &shape)) return NULL;
  const tsr_status st = tsr_view(t, shape.n, shape.v, &out);
  return tc_result(st, out);
}

static PyObject* py_reshape(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i64s shape;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&O&:reshape", tc_tensor, &t, tc_ints64, &shape)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(t), st = tsr_reshape(t, shape.n, shape.v, &out));  /* may copy */
  return tc_result(st, out);
}

static PyObject* py_expand(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i64s shape;
  if (!PyArg_ParseTuple(args, "O&O&:expand", tc_tensor, &t, tc_ints64, &shape)) return NULL;
  const tsr_status st = tsr_expand(t, shape.n, shape.v, &out);
  return tc_result(st, out);
}

static PyObject* py_permute(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i32s dims;
  if (!PyArg_ParseTuple(args, "O&O&:permute", tc_tensor, &t, tc_ints32, &dims)) return NULL;
  const tsr_status st = tsr_permute(t, dims.n, dims.v, &out);
  return tc_result(st, out);
}

static PyObject* py_transpose(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  int dim0, dim1;
  if (!PyArg_ParseTuple(args, "O&ii:transpose", tc_tensor, &t, &dim0, &dim1)) return NULL;
  const tsr_status st = tsr_transpose(t, dim0, dim1, &out);
  return tc_result(st, out);
}

static PyObject* py_flatten(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  int start, end;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&ii:flatten", tc_tensor, &t, &start, &end)) return NULL;
  TC_MAYBE_WITHOUT_GIL(tsr_tensor_numel(t), st = tsr_flatten(t, start, end, &out));  /* may copy */
  return tc_result(st, out);
}

static PyObject* py_unsqueeze(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  int dim;
  if (!PyArg_ParseTuple(args, "O&i:unsqueeze", tc_tensor, &t, &dim)) return NULL;
  const tsr_status st = tsr_unsqueeze(t, dim, &out);
  return tc_result(st, out);
}

static PyObject* py_squeeze(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  int dim;
  if (!PyArg_ParseTuple(args, "O&i:squeeze", tc_tensor, &t, &dim)) return NULL;
  const tsr_status st = tsr_squeeze(t, dim, &out);
  return tc_result(st, out);
}

static PyObject* py_slice(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  int dim;
  long long start, stop, step;
  if (!PyArg_ParseTuple(args, "O&iLLL:slice", tc_tensor, &t, &dim, &start, &stop, &step)) return NULL;
  const tsr_status st = tsr_slice(t, dim, start, stop, step, &out);
  return tc_result(st, out);
}

static PyObject* py_select(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  int dim;
  long long index;
  if (!PyArg_ParseTuple(args, "O&iL:select", tc_tensor, &t, &dim, &index)) return NULL;
  const tsr_status st = tsr_select(t, dim, index, &out);
  return tc_result(st, out);
}

static PyObject* py_as_strided(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  tc_i64s shape, strides;
  long long offset;
  if (!PyArg_ParseTuple(args, "O&O&O&L:as_strided", tc_tensor, &t, tc_ints64, &shape, tc_ints64, &strides, &offset))
    return NULL;
  if (shape.n != strides.n)
    return PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape (%d and %d)", (int)strides.n,
                        (int)shape.n);
  const tsr_status st = tsr_as_strided(t, shape.n, shape.v, strides.v, offset, &out);
  return tc_result(st, out);
}

static PyObject* py_diagonal(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  long long offset;
  int dim1, dim2;
  if (!PyArg_ParseTuple(args, "O&Lii:diagonal", tc_tensor, &t, &offset, &dim1, &dim2)) return NULL;
  const tsr_status st = tsr_diagonal(t, offset, dim1, dim2, &out);
  return tc_result(st, out);
}

PyMethodDef tc_tensor_methods[] = {
    {"t", py_t, METH_O, "t(x): x.T, all dims reversed (tsr_t)"},
    {"real", py_real, METH_O, "real(x): a view of the real parts (tsr_real)"},
    {"imag", py_imag, METH_O, "imag(x): a view of the imaginary parts (tsr_imag)"},
    {"squeeze_all", py_squeeze_all, METH_O, "squeeze_all(x): every dim of size 1 removed"},
    {"detach", py_detach, METH_O, "detach(x): a view that records nothing"},
    {"contiguous", py_contiguous, METH_O, "contiguous(x): x, or a row-major copy"},
    {"clone", py_clone, METH_O, "clone(x): a copy"},
    {"view", py_view, METH_VARARGS, "view(x, shape)"},
    {"reshape", py_reshape, METH_VARARGS, "reshape(x, shape): a view where one exists, else a copy"},
    {"expand", py_expand, METH_VARARGS, "expand(x, shape)"},
    {"permute", py_permute, METH_VARARGS, "permute(x, dims)"},
    {"transpose", py_transpose, METH_VARARGS, "transpose(x, dim0, dim1)"},
    {"flatten", py_flatten, METH_VARARGS, "flatten(x, start_dim, end_dim)"},
    {"unsqueeze", py_unsqueeze, METH_VARARGS, "unsqueeze(x, dim)"},
    {"squeeze", py_squeeze, METH_VARARGS, "squeeze(x, dim)"},
    {"slice", py_slice, METH_VARARGS, "slice(x, dim, start, stop, step): TSR_SLICE_NONE (-2**63) for an absent bound"},
    {"select", py_select, METH_VARARGS, "select(x, dim, index)"},
    {"as_strided", py_as_strided, METH_VARARGS, "as_strided(x, shape, strides, offset)"},
    {"diagonal", py_diagonal, METH_VARARGS, "diagonal(x, offset, dim1, dim2)"},
    {NULL, NULL, 0, NULL},
};
