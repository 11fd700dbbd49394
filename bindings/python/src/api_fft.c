/* SPDX-License-Identifier: Apache-2.0 */
/* The module function over tessera/fft.h's tsr_fft (Note [Module functions
 * over the C API] in _C.h); tessera/fft.py and tessera/array_api/fft.py
 * check the arguments with torch's and the Array API's messages and call it. */
#include "_C.h"

/* fft(x, kind, inverse, norm, dims or None, n or None) -> Tensor.
 * kind: tsr_fft_kind (0 C2C, 1 R2C, 2 C2R); norm: tsr_fft_norm (0
 * backward, 1 ortho, 2 forward); dims None: every dim of x; n None: the
 * lengths from x, else one per dim (-1: that dim's default). */
static PyObject* py_fft(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *x, *out = NULL;
  int kind = 0, inverse = 0, norm = 0;
  PyObject *dims_obj = Py_None, *n_obj = Py_None;
  tc_i64s dims = {0, {0}}, n = {0, {0}};
  tsr_fft_options o;
  tsr_status st;
  if (!PyArg_ParseTuple(args, "O&iii|OO:fft", tc_tensor, &x, &kind, &inverse, &norm, &dims_obj, &n_obj)) return NULL;
  if (dims_obj != Py_None && !tc_ints64(dims_obj, &dims)) return NULL;
  if (n_obj != Py_None && !tc_ints64(n_obj, &n)) return NULL;
  if (n_obj != Py_None && (dims_obj == Py_None || n.n != dims.n)) {
    PyErr_SetString(PyExc_TypeError, "fft: n needs dims of the same length");
    return NULL;
  }
  tsr_fft_options_init(&o);
  o.kind = kind;
  o.inverse = inverse;
  o.norm = norm;
  if (dims_obj != Py_None) {
    o.num_dims = dims.n;
    for (int32_t i = 0; i < dims.n; ++i) {
      o.dims[i] = dims.v[i];
      if (n_obj != Py_None) o.n[i] = n.v[i];
    }
  }
  /* Note [The GIL around kernels]: an FFT does about log2(n) passes per element. */
  TC_MAYBE_WITHOUT_GIL(tc_elements(x, NULL) * 8, st = tsr_fft(x, &o, &out));
  return tc_result(st, out);
}

PyMethodDef tc_fft_methods[] = {
    {"fft", py_fft, METH_VARARGS,
     "fft(x, kind, inverse, norm, dims=None, n=None): tsr_fft; kind 0 C2C, 1 R2C, 2 C2R; norm 0 backward, "
     "1 ortho, 2 forward; dims None: every dim; n: one length per dim, -1 for the default"},
    {NULL, NULL, 0, NULL},
};
