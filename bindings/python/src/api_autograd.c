/* SPDX-License-Identifier: Apache-2.0 */
/* The module functions over autograd (tessera/autograd.h): grad mode, requires_grad, .grad, hooks, backward and grad
 * (Note [Module functions over the C API] in _C.h).
 *
 * Note [Python hooks in the C engine]
 *   _C.tensor_register_hook(t, hook) registers run_hook below with a
 *   hook_box as its user data: the Python callable, one reference, which
 *   release_hook drops when the runtime lets the hook go (removed, or t's
 *   record freed). run_hook wraps the gradient the engine lends it in a new
 *   Tensor (its own reference, taken first) and calls the hook; a Tensor
 *   returned replaces the gradient (the runtime takes over one reference to
 *   it). An exception the hook raises (any BaseException, KeyboardInterrupt
 *   too) is taken out of the interpreter into hook_error, this thread's
 *   slot, and run_hook fails with TSR_ERR_INVALID_ARGUMENT; the engine then
 *   stops, and _C.backward / _C.grad, seeing the slot filled when their
 *   call fails, re-raise the hook's own exception rather than the engine's
 *   message about it, as torch does. Hooks run on the thread that called
 *   tsr_backward (autograd.h), so a thread-local slot is the call's own.
 *
 *   backward and grad run the engine without the GIL (as the ctypes call
 *   did: it computes every formula of the graph, which may be long, and
 *   other Python threads go on meanwhile); run_hook and release_hook
 *   therefore take it with PyGILState_Ensure, which also serves a release
 *   that comes with the GIL held (a Tensor dropped from Python) or from a
 *   thread Python never saw. */
#include "_C.h"

#include <limits.h>

/* ---- grad mode ------------------------------------------------------------------------ */

static PyObject* py_is_grad_enabled(PyObject* m, PyObject* unused) {
  (void)m;
  (void)unused;
  return PyBool_FromLong(tsr_is_grad_enabled());
}

/* set_grad_enabled(enabled) -> the mode it replaces. */
static PyObject* py_set_grad_enabled(PyObject* m, PyObject* arg) {
  (void)m;
  const int enabled = PyObject_IsTrue(arg);
  if (enabled < 0) return NULL;
  return PyBool_FromLong(tsr_set_grad_enabled(enabled));
}

/* ---- flags and gradients ------------------------------------------------------------- */

/* f(t) -> bool for the C API's int32_t getters of one tensor. */
#define TC_TENSOR_FLAG(name)                               \
  static PyObject* py_##name(PyObject* m, PyObject* arg) { \
    (void)m;                                               \
    tsr_tensor* t;                                         \
    if (!tc_tensor(arg, &t)) return NULL;                  \
    return PyBool_FromLong(tsr_##name(t));                 \
  }
TC_TENSOR_FLAG(tensor_requires_grad)
TC_TENSOR_FLAG(tensor_is_leaf)
TC_TENSOR_FLAG(tensor_retains_grad)
#undef TC_TENSOR_FLAG

static PyObject* py_tensor_set_requires_grad(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor* t;
  int requires_grad;
  if (!PyArg_ParseTuple(args, "O&p:tensor_set_requires_grad", tc_tensor, &t, &requires_grad)) return NULL;
  return tc_none(tsr_tensor_set_requires_grad(t, requires_grad));
}

/* tensor_grad(t) -> .grad, or None. */
static PyObject* py_tensor_grad(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor *t, *out = NULL;
  if (!tc_tensor(arg, &t)) return NULL;
  const tsr_status st = tsr_tensor_grad(t, &out);
  if (st == TSR_OK && out == NULL) Py_RETURN_NONE;
  return tc_result(st, out);
}

static PyObject* py_tensor_set_grad(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor *t, *grad;
  if (!PyArg_ParseTuple(args, "O&O&:tensor_set_grad", tc_tensor, &t, tc_tensor_or_none, &grad)) return NULL;
  return tc_none(tsr_tensor_set_grad(t, grad));
}

static PyObject* py_tensor_retain_grad(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor* t;
  if (!tc_tensor(arg, &t)) return NULL;
  return tc_none(tsr_tensor_retain_grad(t));
}

/* tensor_grad_fn_name(t) -> "MulBackward0", or None for a leaf. */
static PyObject* py_tensor_grad_fn_name(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor* t;
  if (!tc_tensor(arg, &t)) return NULL;
  const char* name = tsr_tensor_grad_fn_name(t);
  if (name == NULL) Py_RETURN_NONE;
  return PyUnicode_FromString(name);
}

static PyObject* py_tensor_version(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor* t;
  if (!tc_tensor(arg, &t)) return NULL;
  return PyLong_FromLongLong(tsr_tensor_version(t));
}

static PyObject* py_detach_(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor* t;
  if (!tc_tensor(arg, &t)) return NULL;
  return tc_none(tsr_detach_(t));
}

/* ---- hooks (Note [Python hooks in the C engine]) ---------------------------------------- */

/* The exception of the hook that failed on this thread, until the backward
 * or grad call that ran it re-raises it. */
static _Thread_local PyObject* hook_error;


/* Raises e again (stealing the reference); returns NULL. */
static PyObject* raise_again(PyObject* e) {
#if PY_VERSION_HEX >= 0x030C0000
  PyErr_SetRaisedException(e);
#else
  PyErr_Restore(Py_NewRef((PyObject*)Py_TYPE(e)), e, PyException_GetTraceback(e));
#endif
  return NULL;
}


/* A hook's user data. `registering` is 1 while tsr_tensor_register_hook
 * runs: a release then (the runtime failing after it took the hook over)
 * only drops the callable and says so in `released`, and the caller frees
 * the box; a later release frees it. Read and written with the GIL held. */
typedef struct {
  PyObject* fn; /* the Python callable, one reference; NULL once released */
  int registering;
  int released;
} hook_box;

static tsr_status run_hook(void* user_data, tsr_tensor* grad, tsr_tensor** replacement) {
  hook_box* box = (hook_box*)user_data;
  const PyGILState_STATE gil = PyGILState_Ensure();
  tsr_status st = TSR_OK;
  PyObject* result = NULL;
  tsr_tensor_retain(grad); /* borrowed for the call: the Tensor holds a reference of its own */
  PyObject* g = tc_wrap(grad);
  if (g != NULL) {
    result = PyObject_CallOneArg(box->fn, g);
    Py_DECREF(g);
  }
  if (result != NULL && result != Py_None) {
    tsr_tensor* h;
    if (!PyObject_TypeCheck(result, &TensorBaseType)) {
      PyObject* type_name = PyObject_GetAttrString((PyObject*)Py_TYPE(result), "__name__");
      if (type_name != NULL) {
        PyErr_Format(PyExc_TypeError, "a tensor hook must return a Tensor or None, not %U", type_name);
        Py_DECREF(type_name);
      }
      Py_CLEAR(result);
    } else if (!tc_tensor(result, &h)) {
      Py_CLEAR(result);
    } else {
      tsr_tensor_retain(h); /* the runtime takes this reference over */
      *replacement = h;
    }
  }
  if (result == NULL) {
    Py_XSETREF(hook_error, tc_take_exception());
    st = TSR_ERR_INVALID_ARGUMENT;
  }
  Py_XDECREF(result);
  PyGILState_Release(gil);
  return st;
}

static void release_hook(void* user_data) {
  hook_box* box = (hook_box*)user_data;
  if (tc_finalizing()) return; /* the interpreter is going: no Python call is safe any more (the box leaks) */
  const PyGILState_STATE gil = PyGILState_Ensure();
  Py_CLEAR(box->fn);
  if (box->registering) {
    box->released = 1;
  } else {
    PyMem_RawFree(box);
  }
  PyGILState_Release(gil);
}

/* tensor_register_hook(t, hook) -> the hook's handle (an int > 0). */
static PyObject* py_tensor_register_hook(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor* t;
  PyObject* fn;
  if (!PyArg_ParseTuple(args, "O&O:tensor_register_hook", tc_tensor, &t, &fn)) return NULL;
  hook_box* box = (hook_box*)PyMem_RawMalloc(sizeof *box);
  if (box == NULL) return PyErr_NoMemory();
  box->fn = Py_NewRef(fn);
  box->registering = 1;
  box->released = 0;
  int64_t handle = 0;
  const tsr_status st = tsr_tensor_register_hook(t, run_hook, box, release_hook, &handle);
  box->registering = 0;
  if (st != TSR_OK) {
    tc_raise(st); /* the message is read before anything else can run */
    if (!box->released) Py_CLEAR(box->fn);
    PyMem_RawFree(box);
    return NULL;
  }
  return PyLong_FromLongLong(handle);
}

static PyObject* py_tensor_remove_hook(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor* t;
  long long handle;
  if (!PyArg_ParseTuple(args, "O&L:tensor_remove_hook", tc_tensor, &t, &handle)) return NULL;
  return tc_none(tsr_tensor_remove_hook(t, handle));
}

/* ---- backward and grad ---------------------------------------------------------------- */

/* A list or tuple as a new tuple (its items then stay alive whatever a hook
 * does to the caller's list); NULL with TypeError for anything else. */
static PyObject* tensor_tuple(PyObject* o, const char* what) {
  if (!PyList_Check(o) && !PyTuple_Check(o)) {
    PyErr_Format(PyExc_TypeError, "%s: expected a list or tuple of Tensors, got %s", what, Py_TYPE(o)->tp_name);
    return NULL;
  }
  PyObject* tuple = PySequence_Tuple(o);
  if (tuple != NULL && PyTuple_GET_SIZE(tuple) > INT32_MAX) {
    PyErr_Format(PyExc_OverflowError, "%s: too many tensors", what);
    Py_CLEAR(tuple);
  }
  return tuple;
}

/* The handles of the first n items of `tuple` (None: NULL), in a new array
 * of at least one entry (PyMem_Free it); NULL with the error set. */
static tsr_tensor** handle_array(PyObject* tuple, Py_ssize_t n) {
  tsr_tensor** v = (tsr_tensor**)PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof *v);
  if (v == NULL) {
    PyErr_NoMemory();
    return NULL;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (!tc_tensor_or_none(PyTuple_GET_ITEM(tuple, i), &v[i])) {
      PyMem_Free(v);
      return NULL;
    }
  }
  return v;
}

/* The arguments backward and grad share, converted. */
typedef struct {
  PyObject *outs, *grads, *ins; /* tuples; grads NULL for None */
  tsr_tensor **out_h, **grad_h, **in_h;
  int32_t num_outputs, num_inputs;
  tsr_autograd_options options;
} run_args;

static void run_args_free(run_args* a) {
  PyMem_Free(a->out_h);
  PyMem_Free(a->grad_h);
  PyMem_Free(a->in_h);
  Py_XDECREF(a->outs);
  Py_XDECREF(a->grads);
  Py_XDECREF(a->ins);
}

/* 1, or 0 with the error set (run_args_free either way). */
static int run_args_from(run_args* a, PyObject* outputs, PyObject* grad_outputs, PyObject* inputs,
                         PyObject* retain_graph, int create_graph, int allow_unused) {
  *a = (run_args){.options = {.struct_size = TSR_AUTOGRAD_OPTIONS_STRUCT_SIZE}};
  int retain = -1; /* None: as create_graph */
  if (retain_graph != Py_None && (retain = PyObject_IsTrue(retain_graph)) < 0) return 0;
  a->options.retain_graph = retain;
  a->options.create_graph = create_graph;
  a->options.allow_unused = allow_unused;
  if ((a->outs = tensor_tuple(outputs, "outputs")) == NULL) return 0;
  if ((a->ins = tensor_tuple(inputs, "inputs")) == NULL) return 0;
  const Py_ssize_t n_out = PyTuple_GET_SIZE(a->outs), n_in = PyTuple_GET_SIZE(a->ins);
  if (grad_outputs != Py_None) {
    if ((a->grads = tensor_tuple(grad_outputs, "grad_outputs")) == NULL) return 0;
    if (PyTuple_GET_SIZE(a->grads) < n_out) { /* the C API reads one per output; extras are ignored */
      PyErr_Format(PyExc_ValueError, "grad_outputs: %zd gradients for %zd outputs", PyTuple_GET_SIZE(a->grads),
                   n_out);
      return 0;
    }
    if ((a->grad_h = handle_array(a->grads, n_out)) == NULL) return 0;
  }
  if ((a->out_h = handle_array(a->outs, n_out)) == NULL) return 0;
  if ((a->in_h = handle_array(a->ins, n_in)) == NULL) return 0;
  a->num_outputs = (int32_t)n_out;
  a->num_inputs = (int32_t)n_in;
  return 1;
}

/* After the engine ran: 1 with the hook's exception (or else the engine's
 * error) raised when st failed, else 0 (a hook's exception from a call that
 * succeeded anyway is dropped). Called first, so that nothing can replace
 * the thread's last error message before it is read. */
static int run_failed(tsr_status st) {
  PyObject* e = hook_error;
  hook_error = NULL;
  if (st == TSR_OK) {
    Py_XDECREF(e);
    return 0;
  }
  if (e != NULL)
    raise_again(e);
  else
    tc_raise(st);
  return 1;
}

/* backward(outputs, grad_outputs, inputs, retain_graph=None, create_graph=False) -> None. */
static PyObject* py_backward(PyObject* m, PyObject* args) {
  (void)m;
  PyObject *outputs, *grad_outputs, *inputs, *retain_graph = Py_None;
  int create_graph = 0;
  if (!PyArg_ParseTuple(args, "OOO|Op:backward", &outputs, &grad_outputs, &inputs, &retain_graph, &create_graph))
    return NULL;
  run_args a;
  if (!run_args_from(&a, outputs, grad_outputs, inputs, retain_graph, create_graph, 0)) {
    run_args_free(&a);
    return NULL;
  }
  Py_CLEAR(hook_error);
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_backward(a.num_outputs, a.out_h, a.grad_h, a.num_inputs, a.in_h, &a.options);
  Py_END_ALLOW_THREADS
  const int failed = run_failed(st); /* before anything else may run */
  run_args_free(&a);
  if (failed) return NULL;
  Py_RETURN_NONE;
}

/* grad(outputs, grad_outputs, inputs, retain_graph=None, create_graph=False, allow_unused=False) -> a tuple
 * of one gradient (or None, where unused) per input. */
static PyObject* py_grad(PyObject* m, PyObject* args) {
  (void)m;
  PyObject *outputs, *grad_outputs, *inputs, *retain_graph = Py_None;
  int create_graph = 0, allow_unused = 0;
  if (!PyArg_ParseTuple(args, "OOO|Opp:grad", &outputs, &grad_outputs, &inputs, &retain_graph, &create_graph,
                        &allow_unused))
    return NULL;
  run_args a;
  if (!run_args_from(&a, outputs, grad_outputs, inputs, retain_graph, create_graph, allow_unused)) {
    run_args_free(&a);
    return NULL;
  }
  const int32_t n = a.num_inputs;
  tsr_tensor** out = (tsr_tensor**)PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof *out);
  if (out == NULL) {
    run_args_free(&a);
    return PyErr_NoMemory();
  }
  Py_CLEAR(hook_error);
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_grad(a.num_outputs, a.out_h, a.grad_h, n, a.in_h, &a.options, out);
  Py_END_ALLOW_THREADS
  PyObject* result = NULL;
  if (!run_failed(st)) { /* every out[i] is NULL on failure */
    result = PyTuple_New(n);
    for (int32_t i = 0; i < n; ++i) {
      PyObject* g = result == NULL ? NULL : out[i] == NULL ? Py_NewRef(Py_None) : tc_wrap(out[i]);
      if (g == NULL) {
        if (result == NULL && out[i] != NULL) tsr_tensor_release(out[i]); /* tc_wrap released its own */
        Py_CLEAR(result);
        continue;
      }
      PyTuple_SET_ITEM(result, i, g);
    }
  }
  PyMem_Free(out);
  run_args_free(&a);
  return result;
}

PyMethodDef tc_autograd_methods[] = {
    {"is_grad_enabled", py_is_grad_enabled, METH_NOARGS, "is_grad_enabled(): the calling thread's grad mode"},
    {"set_grad_enabled", py_set_grad_enabled, METH_O,
     "set_grad_enabled(enabled): sets the calling thread's grad mode; returns the one it replaces"},
    {"tensor_requires_grad", py_tensor_requires_grad, METH_O, "tensor_requires_grad(t): t.requires_grad"},
    {"tensor_set_requires_grad", py_tensor_set_requires_grad, METH_VARARGS,
     "tensor_set_requires_grad(t, requires_grad): requires_grad_ on a leaf"},
    {"tensor_is_leaf", py_tensor_is_leaf, METH_O, "tensor_is_leaf(t): no grad_fn"},
    {"tensor_grad", py_tensor_grad, METH_O, "tensor_grad(t): .grad, or None"},
    {"tensor_set_grad", py_tensor_set_grad, METH_VARARGS, "tensor_set_grad(t, grad): replaces .grad (None drops it)"},
    {"tensor_retain_grad", py_tensor_retain_grad, METH_O, "tensor_retain_grad(t): a non-leaf keeps its .grad"},
    {"tensor_retains_grad", py_tensor_retains_grad, METH_O, "tensor_retains_grad(t)"},
    {"tensor_grad_fn_name", py_tensor_grad_fn_name, METH_O,
     "tensor_grad_fn_name(t): the name of the node that made t (\"MulBackward0\"), or None for a leaf"},
    {"tensor_version", py_tensor_version, METH_O, "tensor_version(t): the storage's version counter (_version)"},
    {"detach_", py_detach_, METH_O, "detach_(t): t loses its grad_fn and requires_grad"},
    {"tensor_register_hook", py_tensor_register_hook, METH_VARARGS,
     "tensor_register_hook(t, hook): hook(grad) -> None or a replacement Tensor; returns its handle"},
    {"tensor_remove_hook", py_tensor_remove_hook, METH_VARARGS, "tensor_remove_hook(t, handle)"},
    {"backward", py_backward, METH_VARARGS,
     "backward(outputs, grad_outputs, inputs, retain_graph=None, create_graph=False): accumulates into .grad"},
    {"grad", py_grad, METH_VARARGS,
     "grad(outputs, grad_outputs, inputs, retain_graph=None, create_graph=False, allow_unused=False): a tuple "
     "of gradients, None where unused"},
    {NULL, NULL, 0, NULL},
};
