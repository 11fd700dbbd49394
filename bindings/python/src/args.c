/* SPDX-License-Identifier: Apache-2.0 */
/* Python values into the C API's arguments (PyArg "O&" converters), and the
 * process's runtime (Note [Module functions over the C API] in _C.h). */
#include "_C.h"

#include <string.h>

int tc_tensor(PyObject* o, void* out) {
  if (!PyObject_TypeCheck(o, &TensorBaseType)) {
    PyErr_Format(PyExc_TypeError, "expected a tessera.Tensor, got %s", Py_TYPE(o)->tp_name);
    return 0;
  }
  tsr_tensor* h = ((TensorObject*)o)->handle;
  if (h == NULL) {
    PyErr_SetString(PyExc_AttributeError, "_h");
    return 0;
  }
  *(tsr_tensor**)out = h;
  return 1;
}

int tc_tensor_or_none(PyObject* o, void* out) {
  if (o == Py_None) {
    *(tsr_tensor**)out = NULL;
    return 1;
  }
  return tc_tensor(o, out);
}

/* An int in int64, from anything with __index__ (NumPy's integers too). */
static int index_int64(PyObject* o, int64_t* v) {
  PyObject* i = PyNumber_Index(o);
  if (i == NULL) return 0;
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(i, &overflow);
  Py_DECREF(i);
  if (x == -1 && PyErr_Occurred()) return 0;
  if (overflow != 0) {
    PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");  /* torch's words */
    return 0;
  }
  *v = (int64_t)x;
  return 1;
}

int tc_ints64(PyObject* o, void* out) {
  tc_i64s* r = (tc_i64s*)out;
  PyObject* seq = PySequence_Fast(o, "expected a sequence of ints");
  if (seq == NULL) return 0;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > TSR_MAX_DIMS) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_RuntimeError, "%zd dims: tessera tensors have at most %d (TSR_MAX_DIMS)", n, TSR_MAX_DIMS);
    return 0;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!index_int64(PySequence_Fast_GET_ITEM(seq, i), &r->v[i])) {
      Py_DECREF(seq);
      return 0;
    }
  }
  r->n = (int32_t)n;
  Py_DECREF(seq);
  return 1;
}

int tc_ints32(PyObject* o, void* out) {
  tc_i64s wide;
  if (!tc_ints64(o, &wide)) return 0;
  tc_i32s* r = (tc_i32s*)out;
  for (int32_t i = 0; i < wide.n; ++i) {
    if (wide.v[i] < INT32_MIN || wide.v[i] > INT32_MAX) {
      PyErr_Format(PyExc_IndexError, "dim %lld is out of range", (long long)wide.v[i]);
      return 0;
    }
    r->v[i] = (int32_t)wide.v[i];
  }
  r->n = wide.n;
  return 1;
}

int tc_dtype(PyObject* o, void* out) {
  if (o == Py_None) {
    *(tsr_dtype*)out = TSR_DTYPE_UNDEFINED;
    return 1;
  }
  PyObject* code = PyObject_GetAttrString(o, "_code");
  if (code == NULL) {
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "expected a tessera.dtype, got %s", Py_TYPE(o)->tp_name);
    return 0;
  }
  const long c = PyLong_AsLong(code);
  Py_DECREF(code);
  if (c == -1 && PyErr_Occurred()) return 0;
  *(tsr_dtype*)out = (tsr_dtype)c;
  return 1;
}

int tc_op(PyObject* o, void* out) {
  const long c = PyLong_AsLong(o);
  if (c == -1 && PyErr_Occurred()) return 0;
  if (c < 0 || c >= tsr_op_count()) {
    PyErr_Format(PyExc_ValueError, "op %ld is not one of the library's %d", c, (int)tsr_op_count());
    return 0;
  }
  *(tsr_op*)out = (tsr_op)c;
  return 1;
}

int tc_scalar(PyObject* o, void* out) {
  tsr_scalar* s = (tsr_scalar*)out;
  if (PyBool_Check(o)) {
    *s = tsr_scalar_bool(o == Py_True);
  } else if (PyLong_Check(o)) {
    int64_t v;
    if (!index_int64(o, &v)) return 0;
    *s = tsr_scalar_int(v);
  } else if (PyFloat_Check(o)) {
    *s = tsr_scalar_float(PyFloat_AS_DOUBLE(o));
  } else if (PyComplex_Check(o)) {
    const Py_complex c = PyComplex_AsCComplex(o);
    *s = tsr_scalar_complex(c.real, c.imag);
  } else {
    PyErr_Format(PyExc_TypeError, "expected a Python number, got %s", Py_TYPE(o)->tp_name);
    return 0;
  }
  return 1;
}

/* ---- the runtime ------------------------------------------------------------- */

static tsr_runtime* g_runtime;         /* created on first use, destroyed by runtime_destroy() */
static tsr_device g_default_device;
static int g_default_available;

tsr_runtime* tc_runtime(void) {
  if (g_runtime != NULL) return g_runtime;
  tsr_runtime_options opts = TSR_RUNTIME_OPTIONS_INIT;
  tsr_runtime* rt = NULL;
  tsr_status st = tsr_runtime_create(&opts, &rt);
  if (st != TSR_OK) {
    tc_raise(st);
    return NULL;
  }
  int32_t available = 0;
  st = tsr_runtime_default_device(rt, &g_default_device, &available);
  if (st != TSR_OK) {
    tc_raise(st);  /* reads the message before destroying */
    tsr_runtime_destroy(rt);
    return NULL;
  }
  g_default_available = available != 0;
  g_runtime = rt;
  return rt;
}

int tc_device(PyObject* o, void* out) {
  tsr_device* d = (tsr_device*)out;
  if (o == Py_None) {
    if (tc_runtime() == NULL) return 0;
    *d = g_default_device;
    return 1;
  }
  /* tessera.device: its `_pair()` is (type code, index), the runtime's
   * numbers for its name (_types.py). */
  PyObject* pair = PyObject_CallMethod(o, "_pair", NULL);
  if (pair == NULL) {
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
      PyErr_Clear();
      PyErr_Format(PyExc_TypeError, "expected a tessera.device, got %s", Py_TYPE(o)->tp_name);
    }
    return 0;
  }
  int type = 0, index = 0;
  const int ok = PyArg_ParseTuple(pair, "ii", &type, &index);
  Py_DECREF(pair);
  if (!ok) return 0;
  d->type = type;
  d->index = index;
  return 1;
}

/* _C.runtime(): the runtime's address (an int), creating it. */
static PyObject* py_runtime(PyObject* m, PyObject* unused) {
  (void)m;
  (void)unused;
  tsr_runtime* rt = tc_runtime();
  return rt == NULL ? NULL : PyLong_FromVoidPtr(rt);
}

/* _C.default_device(): (type, index, available) of the config's default device. */
static PyObject* py_default_device(PyObject* m, PyObject* unused) {
  (void)m;
  (void)unused;
  if (tc_runtime() == NULL) return NULL;
  return Py_BuildValue("iiO", (int)g_default_device.type, (int)g_default_device.index,
                       g_default_available ? Py_True : Py_False);
}

/* _C.runtime_destroy(): at exit; False when tensors are still alive (the
 * runtime refuses and stays, as tsr_runtime_destroy does). */
static PyObject* py_runtime_destroy(PyObject* m, PyObject* unused) {
  (void)m;
  (void)unused;
  if (g_runtime == NULL) Py_RETURN_TRUE;
  if (tsr_runtime_destroy(g_runtime) != TSR_OK) Py_RETURN_FALSE;
  g_runtime = NULL;
  Py_RETURN_TRUE;
}

/* _C.device_parse(text): (type, index) for "cpu", "cuda:1", an alias. */
static PyObject* py_device_parse(PyObject* m, PyObject* args) {
  (void)m;
  const char* text;
  if (!PyArg_ParseTuple(args, "s:device_parse", &text)) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  tsr_device d;
  const tsr_status st = tsr_device_parse(rt, text, &d);
  if (st != TSR_OK) return tc_raise(st);
  return Py_BuildValue("ii", (int)d.type, (int)d.index);
}

/* _C.device_format(type, index): the runtime's name, "cpu" / "cuda:0". */
static PyObject* py_device_format(PyObject* m, PyObject* args) {
  (void)m;
  tsr_device d;
  int type, index;
  if (!PyArg_ParseTuple(args, "ii:device_format", &type, &index)) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  d.type = type;
  d.index = index;
  char buf[128];
  tsr_device_format(rt, d, buf, sizeof buf);
  return PyUnicode_FromString(buf);
}

PyMethodDef tc_runtime_methods[] = {
    {"runtime", py_runtime, METH_NOARGS, "the process's tsr_runtime* as an int, created on first use"},
    {"default_device", py_default_device, METH_NOARGS, "(type, index, available) of the config's default device"},
    {"runtime_destroy", py_runtime_destroy, METH_NOARGS, "destroys the runtime; False while tensors are alive"},
    {"device_parse", py_device_parse, METH_VARARGS, "device_parse(text) -> (type, index)"},
    {"device_format", py_device_format, METH_VARARGS, "device_format(type, index) -> its name"},
    {NULL, NULL, 0, NULL},
};
