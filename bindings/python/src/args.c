/* SPDX-License-Identifier: Apache-2.0 */
/* Python values into the C API's arguments (PyArg "O&" converters), and the
 * process's runtime (Note [Module functions over the C API] in _C.h). */
#include "_C.h"

#include <stdarg.h>
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
    /* the runtime's own words (check_ndim), as when it saw the count */
    PyErr_Format(PyExc_RuntimeError,
                 "tensors have at most %d dims, got %zd (TSR_MAX_DIMS: a kernel's tsr_tensor_desc holds the shape "
                 "and strides in arrays of that size, part of the plugin ABI)",
                 TSR_MAX_DIMS, n);
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

/* Note [Fast calls]
 *   The module functions that Tensor methods call on every use take their
 *   arguments as METH_FASTCALL: a C array, no argument tuple to build.
 *   tc_parse reads them by a format of one letter per argument, each with
 *   the pointer it fills (the converters above):
 *     T Tensor (tsr_tensor**)     t Tensor or None (tsr_tensor**)
 *     i int32 (int32_t*)           L int64 (int64_t*)       d float (double*)
 *     p truth value (int*)         O any object (PyObject**, borrowed)
 *     S ints (tc_i64s*)            s ints in int32 (tc_i32s*)
 *     D dtype or None (tsr_dtype*) V device or None (tsr_device*)
 *     N number (tsr_scalar*)       K op number (tsr_op*)
 *   and `|` before the optional ones. Errors are PyArg_ParseTuple's kinds
 *   (TypeError for the count or a type, OverflowError for a range). */
int tc_parse(PyObject* const* args, Py_ssize_t nargs, const char* fn, const char* format, ...) {
  Py_ssize_t required = 0, total = 0;
  int optional = 0;
  for (const char* f = format; *f; ++f) {
    if (*f == '|') {
      optional = 1;
      continue;
    }
    ++total;
    if (!optional) ++required;
  }
  if (nargs < required || nargs > total) {
    if (required == total)
      PyErr_Format(PyExc_TypeError, "%s() takes exactly %zd arguments (%zd given)", fn, total, nargs);
    else
      PyErr_Format(PyExc_TypeError, "%s() takes %zd to %zd arguments (%zd given)", fn, required, total, nargs);
    return 0;
  }
  va_list ap;
  va_start(ap, format);
  int ok = 1;
  Py_ssize_t i = 0;
  for (const char* f = format; *f && ok; ++f) {
    if (*f == '|') continue;
    void* out = va_arg(ap, void*);
    if (i >= nargs) break; /* optional arguments not given keep their values */
    PyObject* o = args[i++];
    switch (*f) {
      case 'T': ok = tc_tensor(o, out); break;
      case 't': ok = tc_tensor_or_none(o, out); break;
      case 'i': {
        const long v = PyLong_AsLong(o);
        if (v == -1 && PyErr_Occurred()) ok = 0;
        else if (v < INT32_MIN || v > INT32_MAX) {
          PyErr_Format(PyExc_OverflowError, "%s(): %ld does not fit in int32", fn, v);
          ok = 0;
        } else {
          *(int32_t*)out = (int32_t)v;
        }
        break;
      }
      case 'L': {
        const long long v = PyLong_AsLongLong(o);
        if (v == -1 && PyErr_Occurred()) ok = 0;
        else *(int64_t*)out = (int64_t)v;
        break;
      }
      case 'd': {
        const double v = PyFloat_AsDouble(o);
        if (v == -1.0 && PyErr_Occurred()) ok = 0;
        else *(double*)out = v;
        break;
      }
      case 'p': {
        const int v = PyObject_IsTrue(o);
        if (v < 0) ok = 0;
        else *(int*)out = v;
        break;
      }
      case 'O': *(PyObject**)out = o; break;
      case 'S': ok = tc_ints64(o, out); break;
      case 's': ok = tc_ints32(o, out); break;
      case 'D': ok = tc_dtype(o, out); break;
      case 'V': ok = tc_device(o, out); break;
      case 'N': ok = tc_scalar(o, out); break;
      case 'K': ok = tc_op(o, out); break;
      default:
        PyErr_Format(PyExc_SystemError, "tc_parse: unknown format letter '%c' for %s()", *f, fn);
        ok = 0;
    }
  }
  va_end(ap);
  return ok;
}

/* The Python number a tsr_scalar holds (an INT as its int64 value). */
PyObject* tc_scalar_value(tsr_scalar s) {
  switch (s.kind) {
    case TSR_SCALAR_FLOAT: return PyFloat_FromDouble(s.f);
    case TSR_SCALAR_BOOL: return PyBool_FromLong(s.i != 0);
    case TSR_SCALAR_COMPLEX: {
      double imag;
      memcpy(&imag, &s.i, sizeof imag);
      return PyComplex_FromDoubles(s.f, imag);
    }
    default: return PyLong_FromLongLong(s.i);
  }
}

int tc_scalar(PyObject* o, void* out) {
  tsr_scalar* s = (tsr_scalar*)out;
  if (PyBool_Check(o)) {
    *s = tsr_scalar_bool(o == Py_True);
  } else if (PyLong_Check(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) return 0;
    if (overflow > 0) {
      /* [2^63, 2^64): a uint64 value, as its bits (tsr_fill_ wraps them
       * back, tessera.h); the Python side lets such ints through only where
       * a uint64 tensor takes them (_tensor.fill_scalar). */
      const unsigned long long u = PyLong_AsUnsignedLongLong(o);
      if (u == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");
        return 0;
      }
      *s = tsr_scalar_int((int64_t)u);
      s->f = (double)u;
    } else if (overflow < 0) {
      PyErr_SetString(PyExc_RuntimeError, "Overflow when unpacking long");  /* torch's words */
      return 0;
    } else {
      *s = tsr_scalar_int((int64_t)v);
    }
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

/* The out-parameters of one call as a tuple: a Tensor each, None where the
 * handle is NULL (a result not asked for); raised when st failed. Owns the
 * handles: released when building the tuple fails. */
PyObject* tc_results(tsr_status st, int n, tsr_tensor** outs) {
  if (st != TSR_OK) return tc_raise(st);
  PyObject* tuple = PyTuple_New(n);
  int i = 0;
  if (tuple != NULL) {
    for (; i < n; ++i) {
      PyObject* o;
      if (outs[i] == NULL) {
        Py_INCREF(Py_None);
        o = Py_None;
      } else {
        o = tc_wrap(outs[i]);  /* releases the handle when it fails */
        if (o == NULL) {
          ++i;
          break;
        }
      }
      PyTuple_SET_ITEM(tuple, i, o);
    }
    if (i == n) return tuple;
    Py_DECREF(tuple);
  }
  for (; i < n; ++i)
    if (outs[i] != NULL) tsr_tensor_release(outs[i]);
  return NULL;
}

/* The exception being raised, taken out of the interpreter (NULL: none). */
PyObject* tc_take_exception(void) {
#if PY_VERSION_HEX >= 0x030C0000
  return PyErr_GetRaisedException();
#else
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  if (type == NULL) return NULL;
  PyErr_NormalizeException(&type, &value, &tb);
  if (tb != NULL && value != NULL) PyException_SetTraceback(value, tb);
  Py_DECREF(type);
  Py_XDECREF(tb);
  return value;
#endif
}

/* Raises _lib.error(st)'s message as an exception of class cls (what
 * _lib.error gives, with another class: a status a function maps to
 * AssertionError, KeyError, ...). Returns NULL. */
PyObject* tc_raise_as(tsr_status st, PyObject* cls) {
  tc_raise(st);
  PyObject* exc = tc_take_exception();
  PyObject* message = exc == NULL ? NULL : PyObject_Str(exc);
  Py_XDECREF(exc);
  if (message != NULL) {
    PyErr_SetObject(cls, message);  /* cls(message), as _lib.error makes it */
    Py_DECREF(message);
  }
  return NULL;
}

/* A char* the C API gave (freed here, with tsr_string_free) as str; st raised when it failed. */
PyObject* tc_take_string(tsr_status st, char* text) {
  if (st != TSR_OK) return tc_raise(st);
  PyObject* r = PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
  tsr_string_free(text);
  return r;
}

/* Whether the interpreter is shutting down (callbacks from the runtime then do nothing). */
int tc_finalizing(void) {
#if PY_VERSION_HEX >= 0x030D0000
  return Py_IsFinalizing();
#else
  return _Py_IsFinalizing();
#endif
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

/* _C.devices(): [(type, index), ...] of the devices the config enabled that are available. */
static PyObject* py_devices(PyObject* m, PyObject* unused) {
  (void)m;
  (void)unused;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  const int32_t n = tsr_runtime_device_count(rt);
  PyObject* r = PyList_New(0);
  for (int32_t i = 0; r != NULL && i < n; ++i) {
    tsr_device d;
    const tsr_status st = tsr_runtime_device_at(rt, i, &d);
    if (st != TSR_OK) {
      Py_DECREF(r);
      return tc_raise(st);
    }
    PyObject* pair = Py_BuildValue("ii", (int)d.type, (int)d.index);
    if (pair == NULL || PyList_Append(r, pair) < 0) Py_CLEAR(r);
    Py_XDECREF(pair);
  }
  return r;
}

/* synchronize(device): waits for its queued work, without the GIL. */
static PyObject* py_synchronize(PyObject* m, PyObject* args) {
  (void)m;
  tsr_device d;
  if (!PyArg_ParseTuple(args, "O&:synchronize", tc_device, &d)) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_synchronize(rt, d);
  Py_END_ALLOW_THREADS
  return tc_none(st);
}

static PyObject* py_empty_cache(PyObject* m, PyObject* args) {
  (void)m;
  tsr_device d;
  if (!PyArg_ParseTuple(args, "O&:empty_cache", tc_device, &d)) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  return tc_none(tsr_empty_cache(rt, d));
}

/* get_memory_stats(device) -> (in_use, reserved) bytes. */
static PyObject* py_get_memory_stats(PyObject* m, PyObject* args) {
  (void)m;
  tsr_device d;
  if (!PyArg_ParseTuple(args, "O&:get_memory_stats", tc_device, &d)) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  tsr_memory_stats stats;
  memset(&stats, 0, sizeof stats);
  stats.struct_size = TSR_MEMORY_STATS_STRUCT_SIZE;
  const tsr_status st = tsr_get_memory_stats(rt, d, &stats);
  if (st != TSR_OK) return tc_raise(st);
  return Py_BuildValue("KK", (unsigned long long)stats.in_use, (unsigned long long)stats.reserved);
}

static PyObject* py_abi_version(PyObject* m, PyObject* unused) {
  (void)m;
  (void)unused;
  return PyLong_FromUnsignedLong(tsr_abi_version());
}

static PyObject* py_set_print_precision(PyObject* m, PyObject* args) {
  (void)m;
  int digits;
  if (!PyArg_ParseTuple(args, "i:set_print_precision", &digits)) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  return tc_none(tsr_set_print_precision(rt, digits));
}

static PyObject* py_set_float32_matmul_precision(PyObject* m, PyObject* args) {
  (void)m;
  int precision;
  if (!PyArg_ParseTuple(args, "i:set_float32_matmul_precision", &precision)) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  return tc_none(tsr_set_float32_matmul_precision(rt, precision));
}

static PyObject* py_get_float32_matmul_precision(PyObject* m, PyObject* unused) {
  (void)m;
  (void)unused;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  return PyLong_FromLong((long)tsr_get_float32_matmul_precision(rt));
}

/* runtime_describe(as_json): what `tessera info` prints. */
static PyObject* py_runtime_describe(PyObject* m, PyObject* args) {
  (void)m;
  int json;
  if (!PyArg_ParseTuple(args, "p:runtime_describe", &json)) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  char* text = NULL;
  const tsr_status st = tsr_runtime_describe(rt, json, &text);
  return tc_take_string(st, text);
}

/* The ops the library knows, by number: [name, ...] (tsr_op_get_name). */
static PyObject* py_op_names(PyObject* m, PyObject* unused) {
  (void)m;
  (void)unused;
  const int32_t n = tsr_op_count();
  PyObject* r = PyList_New(n);
  for (int32_t i = 0; r != NULL && i < n; ++i) {
    PyObject* name = PyUnicode_FromString(tsr_op_get_name(i));
    if (name == NULL) Py_CLEAR(r);
    else PyList_SET_ITEM(r, i, name);
  }
  return r;
}

/* last_error() -> (status name, message or None): this thread's last failure. */
static PyObject* py_last_error(PyObject* m, PyObject* args) {
  (void)m;
  int st;
  if (!PyArg_ParseTuple(args, "i:last_error", &st)) return NULL;
  const char* message = tsr_last_error_message();
  const char* name = tsr_status_name((tsr_status)st);
  if (message == NULL || message[0] == '\0') return Py_BuildValue("sO", name, Py_None);
  PyObject* text = PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace");
  if (text == NULL) return NULL;
  PyObject* r = Py_BuildValue("sN", name, text);
  return r;
}

PyMethodDef tc_runtime_methods[] = {
    {"devices", py_devices, METH_NOARGS, "[(type, index), ...] of the available devices, in the runtime's order"},
    {"synchronize", py_synchronize, METH_VARARGS, "synchronize(device)"},
    {"empty_cache", py_empty_cache, METH_VARARGS, "empty_cache(device)"},
    {"get_memory_stats", py_get_memory_stats, METH_VARARGS, "get_memory_stats(device) -> (in_use, reserved)"},
    {"abi_version", py_abi_version, METH_NOARGS, "the library's TSR_ABI_VERSION (major << 16 | minor)"},
    {"set_print_precision", py_set_print_precision, METH_VARARGS, "set_print_precision(digits)"},
    {"set_float32_matmul_precision", py_set_float32_matmul_precision, METH_VARARGS,
     "set_float32_matmul_precision(tsr_matmul_precision)"},
    {"get_float32_matmul_precision", py_get_float32_matmul_precision, METH_NOARGS, "the tsr_matmul_precision"},
    {"runtime_describe", py_runtime_describe, METH_VARARGS, "runtime_describe(as_json) -> text"},
    {"op_names", py_op_names, METH_NOARGS, "the library's op names, by number"},
    {"last_error", py_last_error, METH_VARARGS, "last_error(status) -> (status name, this thread's message)"},
    {"runtime", py_runtime, METH_NOARGS, "the process's tsr_runtime* as an int, created on first use"},
    {"default_device", py_default_device, METH_NOARGS, "(type, index, available) of the config's default device"},
    {"runtime_destroy", py_runtime_destroy, METH_NOARGS, "destroys the runtime; False while tensors are alive"},
    {"device_parse", py_device_parse, METH_VARARGS, "device_parse(text) -> (type, index)"},
    {"device_format", py_device_format, METH_VARARGS, "device_format(type, index) -> its name"},
    {NULL, NULL, 0, NULL},
};
