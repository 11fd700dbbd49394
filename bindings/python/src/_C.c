/* SPDX-License-Identifier: Apache-2.0 */
/* tessera._C: the compiled half of the Python binding (issue 35). It is one
 * more client of the public C API (tessera/tessera.h), like the C99, Rust
 * and Fortran programs, and includes nothing of the runtime's.
 *
 * _C.TensorBase is the C type under tessera.Tensor (bindings/python/
 * tessera/_tensor.py, a Python subclass that adds the methods still written
 * in Python). It owns one reference to a tsr_tensor handle, and takes over
 * the calls that run most often:
 *   - the operators, through the number protocol's slots and rich
 *     comparison, with two tensors or a tensor and a Python float, int (in
 *     int64) or bool: one C call, no temporary tensor for the number, no
 *     ctypes marshalling;
 *   - basic indexing (ints, slices, None, ...) through the mapping
 *     protocol: one view call per index, no Python in between;
 *   - shape, ndim, dtype and device, read from the handle's record, with
 *     interned dtype and device objects.
 * Any other operand (a NumPy value or array, a list, an int beyond int64, a
 * complex) goes to the Python forms _tensor.py registers (_C.setup), which
 * know every rule; a foreign one gets NotImplemented there.
 *
 * Note [The GIL around kernels]
 *   An op on fewer than kReleaseGilElements elements keeps the GIL: taking
 *   it back costs more than such an op. A larger one releases it while the
 *   runtime works, so other Python threads run meanwhile. The runtime's
 *   messages are per thread, so the error read after re-taking the GIL is
 *   this thread's own.
 *
 * Note [One interpreter]
 *   The state below (the Tensor class, the Python fallbacks, the interned
 *   dtypes and devices) is set once by _tensor.py at import and read by every
 *   call; keeping it static rather than in per-module state saves a lookup
 *   on the hot path. The module refuses a second interpreter's import
 *   (m_size -1, as single-phase init means), so the state is never shared. */

#include "_C.h"

#include <dlfcn.h>
#include <stddef.h>

enum { kDeviceTypes = 16, kDeviceIndices = 16, kSpareTensors = 64 };

static struct {
  PyTypeObject* tensor; /* tessera.Tensor: the class of every result */
  PyObject* error;      /* _lib.error(status) -> the exception, with the C message */
  PyObject* binop;      /* _tensor._binop(op, tensor, other): tensor (op) other */
  PyObject* rbinop;     /* _tensor._rbinop(op, tensor, other): other (op) tensor */
  PyObject* inplace;    /* _tensor._inplace(op, tensor, other) */
  PyObject* getitem;    /* _tensor._getitem(tensor, key): every indexing rule */
  PyObject* dtypes[TSR_DTYPE_COUNT];               /* tessera.float32 ... by code */
  PyTypeObject* size;                               /* tessera.Size, a tuple subclass */
  PyObject* device_of;                              /* _types.device_from(type, index) */
  PyObject* devices[kDeviceTypes][kDeviceIndices];  /* its answers, interned */
  int releasing;                                    /* 0 once the runtime is gone (stop_releasing) */
  TensorObject* spare[kSpareTensors];               /* Note [Spare Tensor objects] */
  int spares;
} g = {.releasing = 1};

/* ---- helpers ----------------------------------------------------------------- */

static int is_tensor(PyObject* o) { return PyObject_TypeCheck(o, &TensorBaseType); }

static tsr_tensor* handle_of(PyObject* o) { return ((TensorObject*)o)->handle; }

/* Raises the exception _lib.error gives for `st`; returns NULL. */
static PyObject* raise_status(tsr_status st) {
  PyObject* exc = PyObject_CallFunction(g.error, "i", (int)st);
  if (exc != NULL) {
    PyErr_SetObject((PyObject*)Py_TYPE(exc), exc);
    Py_DECREF(exc);
  }
  return NULL;
}

static int ready(void) {
  if (g.tensor != NULL) return 1;
  PyErr_SetString(PyExc_RuntimeError, "tessera._C: setup() has not run (import tessera, not tessera._C)");
  return 0;
}

/* A new tessera.Tensor owning `h`'s reference (released on failure). */
/* Note [Spare Tensor objects]
 *   A tessera.Tensor freed while fewer than kSpareTensors are kept is kept
 *   (its memory, not the object): wrap() initialises it again with
 *   PyObject_Init (the type's reference taken back, as a fresh object's),
 *   so that the views and results made by the million skip the allocator,
 *   as NumPy's and CPython's own free lists do. Only exact Tensors are
 *   kept (a subclass may be larger and is collected by the GC), and only
 *   while the runtime is up. All of it runs with the GIL held. */
static PyObject* wrap(tsr_tensor* h) {
  TensorObject* t;
  if (g.spares > 0) {
    t = g.spare[--g.spares];
    PyObject_Init((PyObject*)t, g.tensor);
    t->weakrefs = NULL;
  } else {
    t = (TensorObject*)g.tensor->tp_alloc(g.tensor, 0);
    if (t == NULL) {
      tsr_tensor_release(h);
      return NULL;
    }
  }
  t->handle = h;
  return (PyObject*)t;
}

int tc_ready(void) { return ready(); }
int tc_releasing(void) { return g.releasing; }
PyObject* tc_wrap(tsr_tensor* h) { return wrap(h); }
PyObject* tc_raise(tsr_status st) { return raise_status(st); }
PyObject* tc_result(tsr_status st, tsr_tensor* out) { return st == TSR_OK ? wrap(out) : raise_status(st); }

PyObject* tc_none(tsr_status st) {
  if (st != TSR_OK) return raise_status(st);
  Py_RETURN_NONE;
}

PyObject* tc_dtype_object(tsr_dtype code) {
  if (!ready()) return NULL;
  if (code < 0 || code >= TSR_DTYPE_COUNT || g.dtypes[code] == NULL)
    return PyErr_Format(PyExc_RuntimeError, "tessera._C: dtype code %d is not one this binding knows", (int)code);
  Py_INCREF(g.dtypes[code]);
  return g.dtypes[code];
}

/* A Python float, bool or int in int64 as a tsr_scalar: 1 when v is one of
 * those exactly (subclasses and NumPy numbers go the Python way), else 0. */
static int fast_scalar(PyObject* v, tsr_scalar* s) {
  if (PyFloat_CheckExact(v)) {
    *s = tsr_scalar_float(PyFloat_AS_DOUBLE(v));
    return 1;
  }
  if (PyBool_Check(v)) {
    *s = tsr_scalar_bool(v == Py_True);
    return 1;
  }
  if (PyLong_CheckExact(v)) {
    int overflow = 0;
    const long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow != 0 || (x == -1 && PyErr_Occurred())) {
      PyErr_Clear();
      return 0;  /* Python's rules: a uint64 beside a uint64 tensor, else PyTorch's overflow error */
    }
    *s = tsr_scalar_int((int64_t)x);
    return 1;
  }
  return 0;
}


/* ---- the operators ------------------------------------------------------------- */

/* a (op) b where one of them is a tensor: the number protocol's calling
 * convention (a reflected call comes with the number first). */
static PyObject* binary(tsr_op op, PyObject* a, PyObject* b) {
  if (!ready()) return NULL;
  const int a_is_tensor = is_tensor(a);
  PyObject* self = a_is_tensor ? a : b;
  PyObject* other = a_is_tensor ? b : a;
  tsr_tensor* out = NULL;
  tsr_status st;
  tsr_scalar s;
  if (is_tensor(other)) {
    tsr_tensor *x = handle_of(a), *y = handle_of(b);
    if (tc_elements(x, y) < kReleaseGilElements) {
      st = tsr_binary(op, x, y, &out);
    } else {  /* Note [The GIL around kernels] */
      Py_BEGIN_ALLOW_THREADS st = tsr_binary(op, x, y, &out);
      Py_END_ALLOW_THREADS
    }
  } else if (fast_scalar(other, &s)) {
    tsr_tensor* x = handle_of(self);
    if (tc_elements(x, NULL) < kReleaseGilElements) {
      st = tsr_binary_scalar(op, x, s, !a_is_tensor, &out);
    } else {
      Py_BEGIN_ALLOW_THREADS st = tsr_binary_scalar(op, x, s, !a_is_tensor, &out);
      Py_END_ALLOW_THREADS
    }
  } else {
    return PyObject_CallFunction(a_is_tensor ? g.binop : g.rbinop, "iOO", (int)op, self, other);
  }
  if (st != TSR_OK) return raise_status(st);
  return wrap(out);
}

/* a (op)= b: a is the tensor written; the result is a itself. */
static PyObject* inplace(tsr_op op, PyObject* a, PyObject* b) {
  if (!is_tensor(a)) Py_RETURN_NOTIMPLEMENTED;
  if (!ready()) return NULL;
  tsr_tensor* x = handle_of(a);
  tsr_status st;
  tsr_scalar s;
  if (is_tensor(b)) {
    tsr_tensor* y = handle_of(b);
    if (tc_elements(x, y) < kReleaseGilElements) {
      st = tsr_binary_(op, x, y);
    } else {
      Py_BEGIN_ALLOW_THREADS st = tsr_binary_(op, x, y);
      Py_END_ALLOW_THREADS
    }
  } else if (fast_scalar(b, &s)) {
    if (tc_elements(x, NULL) < kReleaseGilElements) {
      st = tsr_binary_scalar_(op, x, s);
    } else {
      Py_BEGIN_ALLOW_THREADS st = tsr_binary_scalar_(op, x, s);
      Py_END_ALLOW_THREADS
    }
  } else {
    return PyObject_CallFunction(g.inplace, "iOO", (int)op, a, b);
  }
  if (st != TSR_OK) return raise_status(st);
  Py_INCREF(a);
  return a;
}

#define TSR_BINARY_SLOTS_(name, op)                                                         \
  static PyObject* nb_##name(PyObject* a, PyObject* b) { return binary(op, a, b); }        \
  static PyObject* nb_inplace_##name(PyObject* a, PyObject* b) { return inplace(op, a, b); }
TSR_BINARY_SLOTS_(add, TSR_OP_ADD)
TSR_BINARY_SLOTS_(subtract, TSR_OP_SUB)
TSR_BINARY_SLOTS_(multiply, TSR_OP_MUL)
TSR_BINARY_SLOTS_(true_divide, TSR_OP_DIV)
TSR_BINARY_SLOTS_(floor_divide, TSR_OP_FLOOR_DIVIDE)
TSR_BINARY_SLOTS_(remainder, TSR_OP_REMAINDER)
TSR_BINARY_SLOTS_(and, TSR_OP_BITWISE_AND)
TSR_BINARY_SLOTS_(or, TSR_OP_BITWISE_OR)
TSR_BINARY_SLOTS_(xor, TSR_OP_BITWISE_XOR)
TSR_BINARY_SLOTS_(lshift, TSR_OP_SHIFT_LEFT)
TSR_BINARY_SLOTS_(rshift, TSR_OP_SHIFT_RIGHT)
#undef TSR_BINARY_SLOTS_

/* pow(a, b) only: a modulus is not PyTorch's (TypeError, as before). */
static PyObject* nb_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return binary(TSR_OP_POW, a, b);
}

static PyObject* nb_inplace_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return inplace(TSR_OP_POW, a, b);
}

/* ==, !=, <, <=, >, >=: elementwise, a bool tensor (Python swaps a reflected
 * comparison, so self is always the tensor). */
static PyObject* richcompare(PyObject* self, PyObject* other, int cmp) {
  static const tsr_op ops[] = {[Py_LT] = TSR_OP_LT, [Py_LE] = TSR_OP_LE, [Py_EQ] = TSR_OP_EQ,
                               [Py_NE] = TSR_OP_NE, [Py_GT] = TSR_OP_GT, [Py_GE] = TSR_OP_GE};
  return binary(ops[cmp], self, other);
}

static PyNumberMethods tensor_as_number = {
    .nb_add = nb_add,
    .nb_subtract = nb_subtract,
    .nb_multiply = nb_multiply,
    .nb_remainder = nb_remainder,
    .nb_power = nb_power,
    .nb_lshift = nb_lshift,
    .nb_rshift = nb_rshift,
    .nb_and = nb_and,
    .nb_xor = nb_xor,
    .nb_or = nb_or,
    .nb_inplace_add = nb_inplace_add,
    .nb_inplace_subtract = nb_inplace_subtract,
    .nb_inplace_multiply = nb_inplace_multiply,
    .nb_inplace_remainder = nb_inplace_remainder,
    .nb_inplace_power = nb_inplace_power,
    .nb_inplace_lshift = nb_inplace_lshift,
    .nb_inplace_rshift = nb_inplace_rshift,
    .nb_inplace_and = nb_inplace_and,
    .nb_inplace_xor = nb_inplace_xor,
    .nb_inplace_or = nb_inplace_or,
    .nb_floor_divide = nb_floor_divide,
    .nb_true_divide = nb_true_divide,
    .nb_inplace_floor_divide = nb_inplace_floor_divide,
    .nb_inplace_true_divide = nb_inplace_true_divide,
};

/* ---- indexing ------------------------------------------------------------------------ */

/* An exact Python int in int64 into *v; 0 when k is not one. */
static int int64_of(PyObject* k, int64_t* v) {
  if (!PyLong_CheckExact(k)) return 0;
  int overflow = 0;
  const long long x = PyLong_AsLongLongAndOverflow(k, &overflow);
  if (overflow != 0 || (x == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return 0;
  }
  *v = (int64_t)x;
  return 1;
}

/* A basic key's items, parsed once: None, Ellipsis, a slice's bounds as
 * tsr_slice takes them, an int index. */
typedef enum { kNewAxis, kEllipsis, kSlice, kIndex } item_kind;
typedef struct {
  item_kind kind;
  int64_t start, stop, step; /* kSlice: TSR_SLICE_NONE for absent bounds; kIndex: start */
} index_item;
enum { kMaxIndexItems = 2 * TSR_MAX_DIMS + 1 }; /* longer keys take the Python form */

/* The key's items into `items`, with the number of dims they consume; 0
 * when the key is not a basic one this file takes (any other item, an int
 * or bound beyond int64, a step <= 0, two ellipses, too many items): the
 * Python form has every rule and message for those. */
static int parse_key(PyObject* key, index_item* items, Py_ssize_t* count, int* consumed) {
  PyObject* const* keys = &key;
  Py_ssize_t n = 1;
  if (PyTuple_CheckExact(key)) {
    keys = &PyTuple_GET_ITEM(key, 0);
    n = PyTuple_GET_SIZE(key);
  }
  if (n > kMaxIndexItems) return 0;
  int ellipsis = 0;
  *consumed = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* k = keys[i];
    index_item* it = &items[i];
    if (k == Py_None) {
      it->kind = kNewAxis;
    } else if (k == Py_Ellipsis) {
      if (ellipsis++) return 0;
      it->kind = kEllipsis;
    } else if (PySlice_Check(k)) {
      PySliceObject* sl = (PySliceObject*)k;
      it->kind = kSlice;
      it->start = it->stop = TSR_SLICE_NONE;
      it->step = 1;
      if (sl->start != Py_None && !int64_of(sl->start, &it->start)) return 0;
      if (sl->stop != Py_None && !int64_of(sl->stop, &it->stop)) return 0;
      if (sl->step != Py_None && (!int64_of(sl->step, &it->step) || it->step <= 0)) return 0;
      ++*consumed;
    } else {
      it->kind = kIndex;
      if (!int64_of(k, &it->start)) return 0;
      ++*consumed;
    }
  }
  *count = n;
  return 1;
}

static int full_slice(const index_item* it) {
  return it->start == TSR_SLICE_NONE && it->stop == TSR_SLICE_NONE && it->step == 1;
}

/* Note [Basic indexing in one view]
 *   Where nothing is recorded for autograd, x[key] is one tsr_as_strided
 *   call: the layout that tsr_slice, tsr_select and tsr_unsqueeze would make
 *   one after another is computed here (shape.cpp's rules: bounds clamped
 *   as Python's, an unsqueezed dim's stride steps over the dim it precedes)
 *   and made in one view, the cost of one runtime call instead of one per
 *   index. Where a tensor records (requires_grad under grad mode), the calls
 *   are made one by one, so that grad_fn is PyTorch's (SliceBackward0, ...),
 *   and so is an index the runtime refuses (out of range, too many dims),
 *   which raises its message. Returns None for those. */
static PyObject* one_view(tsr_tensor* h, const index_item* items, Py_ssize_t n, int32_t ndim, int consumed) {
  const int64_t* shape = tsr_tensor_shape(h);
  const int64_t* strides = tsr_tensor_strides(h);
  int64_t offset = tsr_tensor_storage_offset(h);
  int64_t vshape[TSR_MAX_DIMS], vstrides[TSR_MAX_DIMS];
  int32_t nd = 0, d = 0, changed = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    const index_item* it = &items[i];
    if (it->kind == kEllipsis) {
      for (const int32_t end = d + ndim - consumed; d < end; ++d, ++nd) {
        if (nd == TSR_MAX_DIMS) Py_RETURN_NONE;
        vshape[nd] = shape[d];
        vstrides[nd] = strides[d];
      }
      continue;
    }
    if (nd == TSR_MAX_DIMS && it->kind != kIndex) Py_RETURN_NONE;
    if (it->kind == kNewAxis) {
      changed = 1;
      vshape[nd] = 1;
      vstrides[nd++] = d < ndim ? shape[d] * strides[d] : 1;
    } else if (it->kind == kSlice) {
      const int64_t size = shape[d], step = it->step;
      int64_t start = it->start == TSR_SLICE_NONE ? 0 : it->start;
      int64_t stop = it->stop == TSR_SLICE_NONE ? INT64_MAX : it->stop;
      changed |= !full_slice(it);
      if (start < 0) start = start < -size ? 0 : start + size;
      if (stop < 0) stop = stop < -size ? 0 : stop + size;
      if (start > size) start = size;
      if (stop < start) stop = start;
      if (stop > size) stop = size;
      const int64_t len = stop - start;
      vshape[nd] = step == 1 ? len : len == 0 ? 0 : (len - 1) / step + 1;
      if (__builtin_mul_overflow(strides[d], step, &vstrides[nd])) Py_RETURN_NONE;
      offset += start * strides[d];
      ++nd;
      ++d;
    } else {
      const int64_t size = shape[d], index = it->start;
      if (index < -size || index >= size) Py_RETURN_NONE;
      changed = 1;
      offset += (index < 0 ? index + size : index) * strides[d];
      ++d;
    }
  }
  for (; d < ndim; ++d, ++nd) {
    if (nd == TSR_MAX_DIMS) Py_RETURN_NONE;
    vshape[nd] = shape[d];
    vstrides[nd] = strides[d];
  }
  if (!changed) {
    tsr_tensor_retain(h);  /* x[...], x[:]: a new Tensor over the same view */
    return wrap(h);
  }
  tsr_tensor* out = NULL;
  if (tsr_as_strided(h, nd, vshape, vstrides, offset, &out) != TSR_OK) Py_RETURN_NONE;
  return wrap(out);
}

/* x[key] for a basic key (an int, a slice, None, Ellipsis, or a tuple of
 * them): one view (Note [Basic indexing in one view]), or where autograd
 * records, the view calls _tensor._index makes, from C. Any other key, and
 * any key the Python form would refuse before calling the runtime (too
 * many indices, two ellipses, a step <= 0, a bound beyond int64), goes to
 * _tensor._getitem, which has every rule and message. */
static PyObject* subscript(PyObject* self, PyObject* key) {
  if (!ready()) return NULL;
  tsr_tensor* h = handle_of(self);
  index_item items[kMaxIndexItems];
  Py_ssize_t n = 0;
  int consumed = 0;
  const int basic = h != NULL && parse_key(key, items, &n, &consumed);
  const int32_t ndim = basic ? tsr_tensor_ndim(h) : 0;
  if (!basic || consumed > ndim) return PyObject_CallFunctionObjArgs(g.getitem, self, key, NULL);
  if (!(tsr_tensor_requires_grad(h) && tsr_is_grad_enabled())) {
    PyObject* view = one_view(h, items, n, ndim, consumed);
    if (view != Py_None) return view;
    Py_DECREF(view);  /* an index the runtime refuses: the calls below raise its error */
  }
  tsr_tensor* cur = h;
  int owned = 0;
  int32_t d = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    const index_item* it = &items[i];
    tsr_tensor* out = NULL;
    tsr_status st;
    if (it->kind == kEllipsis) {
      d += ndim - consumed;
      continue;
    }
    if (it->kind == kNewAxis) {
      st = tsr_unsqueeze(cur, d++, &out);
    } else if (it->kind == kSlice) {
      if (full_slice(it)) {
        ++d;  /* x[:] on this dim: nothing to do */
        continue;
      }
      st = tsr_slice(cur, d++, it->start, it->stop, it->step, &out);
    } else {
      st = tsr_select(cur, d, it->start, &out);  /* the dim goes: d stays */
    }
    if (owned) tsr_tensor_release(cur);
    if (st != TSR_OK) return raise_status(st);
    cur = out;
    owned = 1;
  }
  if (!owned) tsr_tensor_retain(h);  /* x[...], x[:]: a new Tensor over the same view */
  return wrap(cur);
}

static PyMappingMethods tensor_as_mapping = {.mp_subscript = subscript};

/* ---- metadata ---------------------------------------------------------------------- */

/* The handle, or NULL with AttributeError set (a Tensor whose `_h` was
 * deleted, as a slot that was never set). */
static tsr_tensor* live_handle(PyObject* self) {
  tsr_tensor* h = handle_of(self);
  if (h == NULL) PyErr_SetString(PyExc_AttributeError, "_h");
  return h;
}

static PyObject* get_shape(PyObject* self, void* closure) {
  (void)closure;
  tsr_tensor* h = live_handle(self);
  if (h == NULL || !ready()) return NULL;
  const int32_t n = tsr_tensor_ndim(h);
  const int64_t* shape = tsr_tensor_shape(h);
  /* A tessera.Size filled as tuple_subtype_new fills one. */
  PyObject* size = g.size->tp_alloc(g.size, n);
  if (size == NULL) return NULL;
  for (int32_t i = 0; i < n; ++i) {
    PyObject* v = PyLong_FromLongLong(shape[i]);
    if (v == NULL) {
      Py_DECREF(size);
      return NULL;
    }
    PyTuple_SET_ITEM(size, i, v);
  }
  return size;
}

static PyObject* get_ndim(PyObject* self, void* closure) {
  (void)closure;
  tsr_tensor* h = live_handle(self);
  return h == NULL ? NULL : PyLong_FromLong(tsr_tensor_ndim(h));
}

static PyObject* get_dtype(PyObject* self, void* closure) {
  (void)closure;
  tsr_tensor* h = live_handle(self);
  if (h == NULL || !ready()) return NULL;
  const tsr_dtype code = tsr_tensor_dtype(h);
  if (code < 0 || code >= TSR_DTYPE_COUNT || g.dtypes[code] == NULL)
    return PyErr_Format(PyExc_RuntimeError, "tessera._C: dtype code %d is not one this binding knows", (int)code);
  Py_INCREF(g.dtypes[code]);
  return g.dtypes[code];
}

static PyObject* get_device(PyObject* self, void* closure) {
  (void)closure;
  tsr_tensor* h = live_handle(self);
  if (h == NULL || !ready()) return NULL;
  const tsr_device d = tsr_tensor_device(h);
  const int interned = d.type >= 0 && d.type < kDeviceTypes && d.index >= 0 && d.index < kDeviceIndices;
  if (interned && g.devices[d.type][d.index] != NULL) {
    Py_INCREF(g.devices[d.type][d.index]);
    return g.devices[d.type][d.index];
  }
  PyObject* dev = PyObject_CallFunction(g.device_of, "ii", (int)d.type, (int)d.index);
  if (dev != NULL && interned) {
    Py_INCREF(dev);
    g.devices[d.type][d.index] = dev;
  }
  return dev;
}

/* `_h`: the handle as an int, for the calls _tensor.py still makes through
 * ctypes. Assigning stores a handle whose one reference the tensor takes
 * over (the old one is the assigner's to release: handles are swapped and
 * moved between tensors); `del t._h` forgets it without releasing. */
static PyObject* get_h(PyObject* self, void* closure) {
  (void)closure;
  tsr_tensor* h = live_handle(self);
  return h == NULL ? NULL : PyLong_FromVoidPtr(h);
}

static int set_h(PyObject* self, PyObject* value, void* closure) {
  (void)closure;
  if (value == NULL || value == Py_None) {
    ((TensorObject*)self)->handle = NULL;
    return 0;
  }
  void* h = PyLong_AsVoidPtr(value);
  if (h == NULL && PyErr_Occurred()) return -1;
  ((TensorObject*)self)->handle = (tsr_tensor*)h;
  return 0;
}

static PyGetSetDef tensor_getset[] = {
    {"_h", get_h, set_h, "the tsr_tensor handle as an int (one reference, owned)", NULL},
    {"shape", get_shape, NULL, "the sizes, a tessera.Size", NULL},
    {"ndim", get_ndim, NULL, "the number of dimensions", NULL},
    {"dtype", get_dtype, NULL, "the element type, a tessera.dtype", NULL},
    {"device", get_device, NULL, "where the storage lives, a tessera.device", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- life ---------------------------------------------------------------------------- */

static PyObject* tensor_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  (void)args;
  (void)kwargs;
  return type->tp_alloc(type, 0);  /* handle NULL until the creator stores one */
}

/* Weak references: Note [No GC]. */
static void tensor_dealloc(PyObject* self) {
  if (((TensorObject*)self)->weakrefs != NULL) PyObject_ClearWeakRefs(self);
  tsr_tensor* h = handle_of(self);
  ((TensorObject*)self)->handle = NULL;
  /* After stop_releasing the runtime is gone (or kept for live tensors at
   * exit): nothing may call into it or its plugins' deleters any more. */
  if (h != NULL && g.releasing) tsr_tensor_release(h);
  if (Py_TYPE(self) == g.tensor && g.spares < kSpareTensors && g.releasing) {
    g.spare[g.spares++] = (TensorObject*)self;  /* Note [Spare Tensor objects]: subtype_dealloc drops the type */
    return;
  }
  Py_TYPE(self)->tp_free(self);
}

PyTypeObject TensorBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "tessera._C.TensorBase",
    .tp_basicsize = sizeof(TensorObject),
    .tp_dealloc = tensor_dealloc,
    .tp_as_number = &tensor_as_number,
    .tp_as_mapping = &tensor_as_mapping,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The C base of tessera.Tensor: one tsr_tensor handle, the operators and the metadata.",
    .tp_richcompare = richcompare,
    .tp_weaklistoffset = offsetof(TensorObject, weakrefs),
    .tp_getset = tensor_getset,
    .tp_new = tensor_new,
};

/* ---- the module -------------------------------------------------------------------------- */

/* Note [No GC]
 *   A Tensor references no Python object: it cannot be part of a reference
 *   cycle, so the cycle collector need not track it. CPython makes every
 *   class statement's instances tracked, which costs a tenth of `x[1:]`
 *   (allocating, tracking, untracking and freeing the object); so setup()
 *   turns that off for tessera.Tensor, as a C heap type made without
 *   Py_TPFLAGS_HAVE_GC is (PyType_FromSpec). This holds because Tensor
 *   declares `__slots__ = ()` (no __dict__: nothing can be stored on an
 *   instance) and TensorBase has the weak-reference list itself. A subclass
 *   that adds attributes (nn.Parameter) is tracked as Python made it. */
static int untrack_instances(PyTypeObject* tensor) {
  if (tensor->tp_dictoffset != 0 || tensor->tp_basicsize != TensorBaseType.tp_basicsize) {
    PyErr_Format(PyExc_TypeError, "setup: %R must declare __slots__ = () (Note [No GC] in _C.c)", tensor);
    return 0;
  }
  if (PyType_IS_GC(tensor)) {
    tensor->tp_flags &= ~Py_TPFLAGS_HAVE_GC;
    tensor->tp_free = PyObject_Free;
    tensor->tp_traverse = NULL;
    tensor->tp_clear = NULL;
  }
  return 1;
}

static PyObject* setup(PyObject* module, PyObject* args) {
  (void)module;
  PyObject *tensor, *error, *binop, *rbinop, *inplace_fn, *getitem, *dtypes, *size, *device_of;
  if (!PyArg_ParseTuple(args, "O!OOOOOOO!O:setup", &PyType_Type, &tensor, &error, &binop, &rbinop, &inplace_fn,
                        &getitem, &dtypes, &PyType_Type, &size, &device_of))
    return NULL;
  if (!PyType_IsSubtype((PyTypeObject*)tensor, &TensorBaseType))
    return PyErr_Format(PyExc_TypeError, "setup: %R is not a subclass of TensorBase", tensor);
  if (!PyType_IsSubtype((PyTypeObject*)size, &PyTuple_Type))
    return PyErr_Format(PyExc_TypeError, "setup: %R is not a tuple subclass", size);
  PyObject* seq = PySequence_Fast(dtypes, "setup: dtypes must be a sequence");
  if (seq == NULL) return NULL;
  if (PySequence_Fast_GET_SIZE(seq) != TSR_DTYPE_COUNT) {
    Py_DECREF(seq);
    return PyErr_Format(PyExc_ValueError, "setup: %d dtypes expected (TSR_DTYPE_COUNT)", TSR_DTYPE_COUNT);
  }
  for (int i = 0; i < TSR_DTYPE_COUNT; ++i) {
    PyObject* d = PySequence_Fast_GET_ITEM(seq, i);
    Py_INCREF(d);
    Py_XSETREF(g.dtypes[i], d);
  }
  Py_DECREF(seq);
  if (!untrack_instances((PyTypeObject*)tensor)) return NULL;
  Py_INCREF(tensor);
  Py_XSETREF(g.tensor, (PyTypeObject*)tensor);
  Py_INCREF(error);
  Py_XSETREF(g.error, error);
  Py_INCREF(binop);
  Py_XSETREF(g.binop, binop);
  Py_INCREF(rbinop);
  Py_XSETREF(g.rbinop, rbinop);
  Py_INCREF(inplace_fn);
  Py_XSETREF(g.inplace, inplace_fn);
  Py_INCREF(getitem);
  Py_XSETREF(g.getitem, getitem);
  Py_INCREF(size);
  Py_XSETREF(g.size, (PyTypeObject*)size);
  Py_INCREF(device_of);
  Py_XSETREF(g.device_of, device_of);
  for (int t = 0; t < kDeviceTypes; ++t)
    for (int i = 0; i < kDeviceIndices; ++i) Py_CLEAR(g.devices[t][i]);
  Py_RETURN_NONE;
}

static PyObject* stop_releasing(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  g.releasing = 0;
  Py_RETURN_NONE;
}

/* The file of the libtessera this module is linked to (dladdr of one of
 * its functions): _lib compares it with the library it was asked for
 * (TESSERA_LIBRARY), and reports it as tessera._lib.library_path. */
static PyObject* library_path(PyObject* module, PyObject* unused) {
  (void)module;
  (void)unused;
  Dl_info info;
  if (dladdr((void*)(uintptr_t)&tsr_tensor_release, &info) == 0 || info.dli_fname == NULL)
    return PyErr_Format(PyExc_ImportError, "tessera._C: dladdr cannot name the libtessera it is linked to");
  return PyUnicode_DecodeFSDefault(info.dli_fname);
}

static PyMethodDef module_methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(Tensor, error, binop, rbinop, inplace, getitem, dtypes, Size, device_of): the Python half, once at "
     "import"},
    {"stop_releasing", stop_releasing, METH_NOARGS, "at exit: handles are no longer released (the runtime is gone)"},
    {"library_path", library_path, METH_NOARGS, "the file of the libtessera this module is linked to"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "tessera._C", "Tessera's Python binding, its compiled half (over the public C API).",
    -1, module_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__C(void) {
#ifndef Py_REF_DEBUG
  /* A debug interpreter counts references in Py_INCREF: an extension built
   * without its headers would unbalance the count (tests/python/
   * refcount_check.py would see it drift), so refuse to load. */
  if (PySys_GetObject("gettotalrefcount") != NULL) {
    PyErr_SetString(PyExc_ImportError,
                    "tessera._C: built with a release interpreter's headers, imported by a debug one (Py_DEBUG)");
    return NULL;
  }
#endif
  if (PyType_Ready(&TensorBaseType) < 0) return NULL;
  PyObject* m = PyModule_Create(&module_def);
  if (m == NULL) return NULL;
  Py_INCREF(&TensorBaseType);
  if (PyModule_AddObject(m, "TensorBase", (PyObject*)&TensorBaseType) < 0) {
    Py_DECREF(&TensorBaseType);
    Py_DECREF(m);
    return NULL;
  }
  /* Note [Module functions over the C API] in _C.h: one table per file. */
  PyMethodDef* const tables[] = {tc_runtime_methods, tc_tensor_methods, tc_linalg_nn_methods, tc_autograd_methods,
                                 tc_interop_methods, tc_fft_methods};
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; ++i) {
    if (PyModule_AddFunctions(m, tables[i]) < 0) {
      Py_DECREF(m);
      return NULL;
    }
  }
  if (PyModule_AddIntConstant(m, "RELEASE_GIL_ELEMENTS", kReleaseGilElements) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
