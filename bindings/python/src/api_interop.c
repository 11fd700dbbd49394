/* SPDX-License-Identifier: Apache-2.0 */
/* The module functions over memory shared with others: external memory
 * (NumPy), DLPack, safetensors (tessera/safetensors.h) and collectives
 * (tessera/distributed.h) (Note [Module functions over the C API] in _C.h).
 *
 * Note [Owners of external memory]
 *   _C.from_external(data, ..., owner) wraps memory that a Python object
 *   owns (a NumPy array, a token that holds one): the storage keeps one
 *   reference to `owner`, which release_owner drops when the storage's last
 *   view goes, as tsr_from_external's deleter (also when the call fails:
 *   the deleter then runs within it). _C.to_dlpack and _C.from_dlpack hold
 *   their `owner` the same way, until the consumer's deleter, or the
 *   producer's memory is released. A deleter may run on any thread, with
 *   or without the GIL (a tensor released by the runtime's own threads, a
 *   consumer's deleter): it takes the GIL with PyGILState_Ensure. Once the
 *   interpreter is finalizing no deleter calls into Python or into a
 *   producer (whose deleter may need the interpreter) any more: what they
 *   hold leaks, as the process is ending (_lib._shutdown stops handle
 *   releases for the same reason).
 *
 * Note [DLPack in C]
 *   Export (_C.to_dlpack): one malloc'd block holds the DLManagedTensor and
 *   its shape and strides; manager_ctx is the `owner` (a Tensor on the
 *   exported handle), released by export_deleter, which frees the block.
 *   The capsule is named "dltensor"; a consumer renames it "used_dltensor"
 *   and calls the deleter when done; a capsule collected unconsumed (still
 *   "dltensor") calls the deleter from its destructor. The destructor
 *   leaves the interpreter's pending exception alone: a consumer that
 *   refuses the capsule (NumPy for device memory) drops it with its
 *   exception set, and that exception is what the caller sees.
 *   Import (_C.from_dlpack): the checks that refuse a capsule come first,
 *   while it is still the producer's (device, dtype, synchronising a CUDA
 *   producer's queued work: Note [DLPack streams] in _dlpack.py); then the
 *   capsule is renamed "used_dltensor" and its memory wrapped by
 *   tsr_from_external, whose deleter calls the producer's deleter. DLPack
 *   counts strides in elements, as tessera does. The dlpack header is
 *   Debian's libdlpack-dev (DLPack 0.6, as NumPy 1.24 and PyTorch 1.13);
 *   bool is 0.8's kDLBool (6), which that header does not have.
 *
 * Note [DLPack 1.x in C]
 *   The versioned capsule ("dltensor_versioned", renamed
 *   "used_dltensor_versioned" by its consumer) holds a
 *   tsr_dlpack_versioned (tessera/dlpack_exchange.h: DLManagedTensorVersioned
 *   under tessera names, since Debian's dlpack.h predates DLPack 1.0). Both
 *   directions go through the C API, tsr_to_dlpack_versioned and
 *   tsr_from_dlpack_versioned: the export's manager_ctx is a tensor
 *   reference (no Python object, so its deleter needs no GIL), and its
 *   deleter is swapped for one that does nothing once the package stopped
 *   releasing handles at exit. The capsule's destructor calls the deleter
 *   of an unconsumed capsule, as the 0.x one does. An import renames the
 *   capsule and hands the managed tensor to the runtime, which calls the
 *   producer's deleter itself when it refuses the tensor (another major
 *   version, a malformed tensor) or after copying it (read-only, negative
 *   strides: Note [Importing DLPack 1.x] in the header).
 *
 * Note [Handles of the interop objects]
 *   A tsr_safetensors*, tsr_comm* or tsr_work* is a small C object
 *   (tessera._C.safetensors / comm / work, not module attributes: only
 *   these functions make them) that ends its handle when collected
 *   (tsr_safetensors_free, tsr_comm_release, tsr_work_release, the last
 *   without the GIL: it waits for a work in flight), or earlier through
 *   _C.safetensors_free / comm_release / work_release, after which the
 *   object holds NULL, which the C API takes as it takes NULL. Calls that
 *   run without the GIL count themselves in `users`: a handle released
 *   meanwhile (from another thread) is ended by the last of them. A comm
 *   or work collected while the interpreter finalizes is left to the OS. */
#include "_C.h"

#include <dlpack/dlpack.h>
#include <stdlib.h>
#include <string.h>



/* Raises _lib.error(st) (tc_raise), as the class `errors` (a mapping of
 * status to exception class; None: none) names for st, with the same
 * message: what _lib.check(status, overrides) raises. Returns NULL. */
static PyObject* raise_mapped(tsr_status st, PyObject* errors) {
  if (errors == Py_None) return tc_raise(st);
  PyObject* key = PyLong_FromLong((long)st);
  if (key == NULL) return NULL;
  PyObject* cls = PyObject_GetItem(errors, key);
  Py_DECREF(key);
  if (cls == NULL) {
    if (!PyErr_ExceptionMatches(PyExc_KeyError)) return NULL;
    PyErr_Clear();
    return tc_raise(st);
  }
  tc_raise_as(st, cls);
  Py_DECREF(cls);
  return NULL;
}

/* A sequence of ints of any length a foreign array may have (NumPy: 64
 * dims at most), so that the runtime, not the binding, refuses more than
 * TSR_MAX_DIMS with its own message. */
enum { kForeignDims = 64 };
typedef struct {
  int32_t n;
  int64_t v[kForeignDims];
} foreign_ints;

static int foreign_ints_arg(PyObject* o, void* out) {
  foreign_ints* r = (foreign_ints*)out;
  PyObject* seq = PySequence_Fast(o, "expected a sequence of ints");
  if (seq == NULL) return 0;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n > kForeignDims) {
    Py_DECREF(seq);
    PyErr_Format(PyExc_RuntimeError, "tensors have at most %d dims, got %zd", TSR_MAX_DIMS, n);
    return 0;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* v = PyNumber_Index(PySequence_Fast_GET_ITEM(seq, i));
    const long long x = v == NULL ? -1 : PyLong_AsLongLong(v);
    Py_XDECREF(v);
    if (x == -1 && PyErr_Occurred()) {
      Py_DECREF(seq);
      return 0;
    }
    r->v[i] = (int64_t)x;
  }
  r->n = (int32_t)n;
  Py_DECREF(seq);
  return 1;
}

static PyObject* int64_tuple(const int64_t* v, int32_t n) {
  PyObject* r = PyTuple_New(n);
  for (int32_t i = 0; r != NULL && i < n; ++i) {
    PyObject* x = PyLong_FromLongLong(v[i]);
    if (x == NULL) {
      Py_CLEAR(r);
    } else {
      PyTuple_SET_ITEM(r, i, x);
    }
  }
  return r;
}

/* ---- external memory, metadata ------------------------------------------------------ */

/* tsr_from_external's deleter for memory a Python object owns (Note
 * [Owners of external memory]). */
static void release_owner(void* ctx, void* data) {
  (void)data;
  if (tc_finalizing()) return;
  const PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF((PyObject*)ctx);
  PyGILState_Release(gil);
}

/* from_external(data, shape, strides, offset, dtype, device, owner) -> Tensor:
 * `data` an address (int; None: NULL), strides None for row-major, `owner`
 * kept until the storage goes (None: the memory is borrowed for good). */
static PyObject* py_from_external(PyObject* m, PyObject* args) {
  (void)m;
  PyObject *data_arg, *strides_arg, *owner;
  foreign_ints shape, strides;
  long long offset;
  tsr_dtype dtype;
  tsr_device device;
  if (!PyArg_ParseTuple(args, "OO&OLO&O&O:from_external", &data_arg, foreign_ints_arg, &shape, &strides_arg, &offset,
                        tc_dtype, &dtype, tc_device, &device, &owner))
    return NULL;
  void* data = NULL;
  if (data_arg != Py_None) {
    data = PyLong_AsVoidPtr(data_arg);
    if (data == NULL && PyErr_Occurred()) return NULL;
  }
  const int64_t* strides_v = NULL;
  if (strides_arg != Py_None) {
    if (!foreign_ints_arg(strides_arg, &strides)) return NULL;
    if (strides.n != shape.n)
      return PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape (%d and %d)", (int)strides.n,
                          (int)shape.n);
    strides_v = strides.v;
  }
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  tsr_deleter_fn deleter = NULL;
  if (owner != Py_None) {
    Py_INCREF(owner);  /* the deleter's from here on, also on failure */
    deleter = release_owner;
  }
  tsr_tensor* out = NULL;
  const tsr_status st = tsr_from_external(rt, data, shape.n, shape.v, strides_v, offset, dtype, device, deleter,
                                          owner == Py_None ? NULL : owner, &out);
  return tc_result(st, out);
}

/* tensor_describe(x) -> (data, offset, dtype, (device type, index), shape, strides):
 * the storage's base address (0: none), offset and strides in elements. */
static PyObject* py_tensor_describe(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_tensor* t;
  if (!tc_tensor(arg, &t)) return NULL;
  tsr_tensor_desc d;
  memset(&d, 0, sizeof d);
  d.struct_size = TSR_TENSOR_DESC_STRUCT_SIZE;
  const tsr_status st = tsr_tensor_describe(t, &d);
  if (st != TSR_OK) return tc_raise(st);
  PyObject* data = PyLong_FromVoidPtr(d.data);
  PyObject* dtype = tc_dtype_object((tsr_dtype)d.dtype);
  PyObject* shape = int64_tuple(d.shape, d.ndim);
  PyObject* strides = int64_tuple(d.strides, d.ndim);
  PyObject* r = NULL;
  if (data != NULL && dtype != NULL && shape != NULL && strides != NULL)
    r = Py_BuildValue("(OLO(ii)OO)", data, (long long)d.offset, dtype, (int)d.device.type, (int)d.device.index, shape,
                      strides);
  Py_XDECREF(data);
  Py_XDECREF(dtype);
  Py_XDECREF(shape);
  Py_XDECREF(strides);
  return r;
}

/* device_is_host_accessible(device) -> bool. */
static PyObject* py_device_is_host_accessible(PyObject* m, PyObject* arg) {
  (void)m;
  tsr_device d;
  if (!tc_device(arg, &d)) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  return PyBool_FromLong(tsr_device_is_host_accessible(rt, d));
}

/* ---- DLPack (Note [DLPack in C]) ------------------------------------------------------ */

static const char kDLTensorName[] = "dltensor";
static const char kUsedDLTensorName[] = "used_dltensor";
static const char kVersionedName[] = "dltensor_versioned";
static const char kUsedVersionedName[] = "used_dltensor_versioned";
enum { kDLBoolCode = 6 }; /* DLPack 0.8's kDLBool */

/* tessera dtype code -> DLPack (code, bits); bool is DLPack 0.8's kDLBool,
 * which a 0.6/0.7 consumer (NumPy 1.24, torch 1.13) refuses itself. */
static const struct {
  uint8_t code, bits;
} kToDL[TSR_DTYPE_COUNT] = {
    [TSR_FLOAT32] = {kDLFloat, 32},   [TSR_FLOAT64] = {kDLFloat, 64},      [TSR_FLOAT16] = {kDLFloat, 16},
    [TSR_BFLOAT16] = {kDLBfloat, 16}, [TSR_INT8] = {kDLInt, 8},            [TSR_UINT8] = {kDLUInt, 8},
    [TSR_INT16] = {kDLInt, 16},       [TSR_INT32] = {kDLInt, 32},          [TSR_INT64] = {kDLInt, 64},
    [TSR_BOOL] = {kDLBoolCode, 8},    [TSR_UINT16] = {kDLUInt, 16},        [TSR_UINT32] = {kDLUInt, 32},
    [TSR_UINT64] = {kDLUInt, 64},     [TSR_COMPLEX64] = {kDLComplex, 64}, [TSR_COMPLEX128] = {kDLComplex, 128},
};

/* The tessera dtype of a DLPack type, or TSR_DTYPE_UNDEFINED. */
static tsr_dtype from_dl(DLDataType t) {
  for (int c = 0; c < TSR_DTYPE_COUNT; ++c)
    if (kToDL[c].bits != 0 && kToDL[c].code == t.code && kToDL[c].bits == t.bits) return (tsr_dtype)c;
  return TSR_DTYPE_UNDEFINED;
}

typedef struct {
  DLManagedTensor managed; /* first: the block's address is the managed tensor's */
  int64_t dims[];          /* shape[ndim], then strides[ndim] */
} export_block;

/* The export's deleter: the consumer's call, or the unconsumed capsule's. */
static void export_deleter(DLManagedTensor* self) {
  PyObject* owner = (PyObject*)self->manager_ctx;
  free(self);
  if (owner == NULL || tc_finalizing()) return;
  const PyGILState_STATE gil = PyGILState_Ensure();
  Py_DECREF(owner);
  PyGILState_Release(gil);
}

/* Called with the GIL, possibly with an exception pending (left as it is:
 * nothing here sets or clears one). */
static void export_capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kDLTensorName)) return;  /* consumed ("used_dltensor"): the consumer's now */
  DLManagedTensor* managed = (DLManagedTensor*)PyCapsule_GetPointer(capsule, kDLTensorName);
  if (managed != NULL && managed->deleter != NULL) managed->deleter(managed);
}

/* Waits for the device's queued work, without the GIL (Note [DLPack streams]). */
static int synchronize(tsr_runtime* rt, tsr_device device) {
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_synchronize(rt, device);
  Py_END_ALLOW_THREADS
  if (st != TSR_OK) {
    tc_raise(st);
    return 0;
  }
  return 1;
}

/* to_dlpack(owner, device_type, device_id, synchronize) -> a "dltensor"
 * capsule over owner's memory (owner: a Tensor, kept until the deleter). */
static PyObject* py_to_dlpack(PyObject* m, PyObject* args) {
  (void)m;
  PyObject* owner;
  tsr_tensor* t;
  int dl_type, dl_id, sync;
  if (!PyArg_ParseTuple(args, "Oiip:to_dlpack", &owner, &dl_type, &dl_id, &sync)) return NULL;
  if (!tc_tensor(owner, &t)) return NULL;
  const tsr_dtype code = tsr_tensor_dtype(t);
  if (code < 0 || code >= TSR_DTYPE_COUNT || kToDL[code].bits == 0)
    return PyErr_Format(PyExc_BufferError, "to_dlpack: dtype %s has no DLPack type", tsr_dtype_get_name(code));
  if (sync) {
    tsr_runtime* rt = tc_runtime();
    if (rt == NULL || !synchronize(rt, tsr_tensor_device(t))) return NULL;
  }
  const int32_t n = tsr_tensor_ndim(t);
  export_block* block = (export_block*)malloc(sizeof(export_block) + 2 * (size_t)n * sizeof(int64_t));
  if (block == NULL) return PyErr_NoMemory();
  memcpy(block->dims, tsr_tensor_shape(t), (size_t)n * sizeof(int64_t));
  memcpy(block->dims + n, tsr_tensor_strides(t), (size_t)n * sizeof(int64_t));
  DLTensor* dl = &block->managed.dl_tensor;
  char* base = (char*)tsr_tensor_storage_data(t);
  /* The data pointer includes the offset (byte_offset 0), as PyTorch exports. */
  dl->data = base == NULL ? NULL : base + tsr_tensor_storage_offset(t) * (int64_t)tsr_tensor_element_size(t);
  dl->device.device_type = (DLDeviceType)dl_type;
  dl->device.device_id = dl_id;
  dl->ndim = n;
  dl->dtype.code = kToDL[code].code;
  dl->dtype.bits = kToDL[code].bits;
  dl->dtype.lanes = 1;
  dl->shape = block->dims;
  dl->strides = block->dims + n;
  dl->byte_offset = 0;
  Py_INCREF(owner);
  block->managed.manager_ctx = owner;
  block->managed.deleter = export_deleter;
  PyObject* capsule = PyCapsule_New(&block->managed, kDLTensorName, export_capsule_destructor);
  if (capsule == NULL) export_deleter(&block->managed);
  return capsule;
}

typedef struct {
  DLManagedTensor* managed; /* the producer's, ours since the rename */
  PyObject* owner;          /* one reference, or NULL */
} import_ctx;

/* tsr_from_external's deleter for imported memory: the producer's deleter
 * (called as the thread is: a producer's deleter takes the GIL itself when
 * it needs it), then the owner. */
static void import_deleter(void* ctx, void* data) {
  (void)data;
  import_ctx* c = (import_ctx*)ctx;
  if (tc_finalizing()) return;
  if (c->managed->deleter != NULL) c->managed->deleter(c->managed);
  if (c->owner != NULL) {
    const PyGILState_STATE gil = PyGILState_Ensure();
    Py_DECREF(c->owner);
    PyGILState_Release(gil);
  }
  free(c);
}

static PyObject* from_dlpack_versioned(PyObject* capsule, PyObject* errors);

/* from_dlpack(capsule, owner, errors=None) -> Tensor over an unused
 * "dltensor" capsule's memory; owner (None: nothing) is kept until the
 * producer's memory is released. An unused "dltensor_versioned" capsule
 * goes to tsr_from_dlpack_versioned (Note [DLPack 1.x in C]; owner unused),
 * whose failures raise as `errors` maps them (raise_mapped). */
static PyObject* py_from_dlpack(PyObject* m, PyObject* args) {
  (void)m;
  PyObject *capsule, *owner, *errors = Py_None;
  if (!PyArg_ParseTuple(args, "OO|O:from_dlpack", &capsule, &owner, &errors)) return NULL;
  if (PyCapsule_CheckExact(capsule) && PyCapsule_IsValid(capsule, kVersionedName))
    return from_dlpack_versioned(capsule, errors);
  if (!PyCapsule_CheckExact(capsule) || !PyCapsule_IsValid(capsule, kDLTensorName)) {
    PyErr_SetString(PyExc_RuntimeError,
                    "from_dlpack: expected an object with __dlpack__, or an unused \"dltensor\" or "
                    "\"dltensor_versioned\" capsule");
    return NULL;
  }
  DLManagedTensor* managed = (DLManagedTensor*)PyCapsule_GetPointer(capsule, kDLTensorName);
  if (managed == NULL) return NULL;
  const DLTensor* dl = &managed->dl_tensor;
  const int dl_type = (int)dl->device.device_type;
  if (dl_type != kDLCPU && dl_type != kDLCUDA)
    return PyErr_Format(PyExc_BufferError,
                        "from_dlpack: DLPack device type %d is not supported: tessera imports kDLCPU (1) and kDLCUDA "
                        "(2) memory",
                        dl_type);
  const tsr_dtype code = from_dl(dl->dtype);
  if (code == TSR_DTYPE_UNDEFINED || dl->dtype.lanes != 1)
    return PyErr_Format(PyExc_RuntimeError, "Unsupported DLPack dtype (code %d, bits %d, lanes %d)",
                        (int)dl->dtype.code, (int)dl->dtype.bits, (int)dl->dtype.lanes);
  const uintptr_t address = (uintptr_t)dl->data + (uintptr_t)dl->byte_offset;
  tsr_device device;
  device.type = dl_type == kDLCPU ? TSR_DEVICE_CPU : TSR_DEVICE_CUDA;
  device.index = dl_type == kDLCPU ? 0 : dl->device.device_id;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  if (device.type != TSR_DEVICE_CPU && !synchronize(rt, device)) return NULL;
  /* From here on the managed tensor is ours: the producer must not free it. */
  if (PyCapsule_SetName(capsule, kUsedDLTensorName) < 0) return NULL;
  if (address % tsr_dtype_size(code) != 0) {
    if (managed->deleter != NULL) managed->deleter(managed);
    PyErr_SetString(PyExc_RuntimeError, "from_dlpack: data address is not aligned to the element size");
    return NULL;
  }
  import_ctx* ctx = (import_ctx*)malloc(sizeof(import_ctx));
  if (ctx == NULL) {
    if (managed->deleter != NULL) managed->deleter(managed);
    return PyErr_NoMemory();
  }
  ctx->managed = managed;
  ctx->owner = NULL;
  if (owner != Py_None) {
    Py_INCREF(owner);
    ctx->owner = owner;
  }
  tsr_tensor* out = NULL;
  /* The deleter runs within the call when it fails (tsr_from_external's contract). */
  const tsr_status st = tsr_from_external(rt, (void*)address, dl->ndim, dl->shape, dl->strides, 0, code, device,
                                          import_deleter, ctx, &out);
  return tc_result(st, out);
}

/* ---- DLPack 1.x (Note [DLPack 1.x in C]) ---------------------------------------------- */

/* libtessera's export deleter (one function for every export), which
 * versioned_export_deleter calls. */
static void (*g_runtime_export_deleter)(tsr_dlpack_versioned*) = NULL;

/* Set in place of the runtime's deleter: once the package stopped
 * releasing handles (exit), the export's tensor is left to the OS. */
static void versioned_export_deleter(tsr_dlpack_versioned* self) {
  if (!tc_releasing()) return;
  g_runtime_export_deleter(self);
}

/* Called with the GIL, possibly with an exception pending (left as it is). */
static void versioned_capsule_destructor(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kVersionedName)) return; /* consumed: the consumer's now */
  tsr_dlpack_versioned* managed = (tsr_dlpack_versioned*)PyCapsule_GetPointer(capsule, kVersionedName);
  if (managed != NULL && managed->deleter != NULL) managed->deleter(managed);
}

/* to_dlpack_versioned(tensor, copy, synchronize, read_only, device, errors)
 * -> a "dltensor_versioned" capsule (tsr_to_dlpack_versioned): copy a
 * tsr_dlpack_copy, device a tessera.device to export on (None: the
 * tensor's); failures raise as `errors` maps them. */
static PyObject* py_to_dlpack_versioned(PyObject* m, PyObject* args) {
  (void)m;
  tsr_tensor* t;
  int copy, sync, read_only;
  PyObject *device_arg, *errors;
  if (!PyArg_ParseTuple(args, "O&ippOO:to_dlpack_versioned", tc_tensor, &t, &copy, &sync, &read_only, &device_arg,
                        &errors))
    return NULL;
  tsr_dlpack_options options = TSR_DLPACK_OPTIONS_INIT;
  options.copy = copy;
  options.synchronize = sync;
  options.flags = read_only ? TSR_DLPACK_FLAG_READ_ONLY : 0;
  if (device_arg != Py_None) {
    if (!tc_device(device_arg, &options.device)) return NULL;
    options.to_device = 1;
  }
  tsr_dlpack_versioned* managed = NULL;
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_to_dlpack_versioned(t, &options, &managed);  /* may copy, synchronise */
  Py_END_ALLOW_THREADS
  if (st != TSR_OK) return raise_mapped(st, errors);
  g_runtime_export_deleter = managed->deleter;
  managed->deleter = versioned_export_deleter;
  PyObject* capsule = PyCapsule_New(managed, kVersionedName, versioned_capsule_destructor);
  if (capsule == NULL) managed->deleter(managed);
  return capsule;
}

/* The versioned half of from_dlpack: a CUDA producer's queued work is waited
 * for first (Note [DLPack streams]), while the capsule is still the
 * producer's; then it is renamed and tsr_from_dlpack_versioned owns the
 * managed tensor, calling its deleter itself when it refuses it. */
static PyObject* from_dlpack_versioned(PyObject* capsule, PyObject* errors) {
  tsr_dlpack_versioned* managed = (tsr_dlpack_versioned*)PyCapsule_GetPointer(capsule, kVersionedName);
  if (managed == NULL) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  /* Nothing past the deleter is read unless the major version is ours. */
  if (managed->version.major == TSR_DLPACK_MAJOR_VERSION &&
      managed->dl_tensor.device.device_type == TSR_DLPACK_DEVICE_CUDA) {
    tsr_device device;
    device.type = TSR_DEVICE_CUDA;
    device.index = managed->dl_tensor.device.device_id;
    tsr_status st;
    Py_BEGIN_ALLOW_THREADS st = tsr_synchronize(rt, device);  /* refuses a device the runtime lacks */
    Py_END_ALLOW_THREADS
    if (st != TSR_OK) return raise_mapped(st, errors);
  }
  if (PyCapsule_SetName(capsule, kUsedVersionedName) < 0) return NULL;
  tsr_tensor* out = NULL;
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_from_dlpack_versioned(rt, managed, &out);  /* may copy; a deleter takes the GIL */
  Py_END_ALLOW_THREADS
  if (st != TSR_OK) return raise_mapped(st, errors);
  return tc_wrap(out);
}

/* ---- the handle objects (Note [Handles of the interop objects]) ------------------------ */

typedef struct {
  PyObject_HEAD
  void* p;        /* the handle; NULL once released */
  void* deferred; /* released while in use: ended by the last user */
  int users;      /* calls on the handle running without the GIL */
} handle_object;

static void handle_dealloc(PyObject* self);

/* Only the functions below make them. */
#ifdef Py_TPFLAGS_DISALLOW_INSTANTIATION
#define kNoInstances Py_TPFLAGS_DISALLOW_INSTANTIATION
#else
#define kNoInstances 0
#endif

#define TC_HANDLE_TYPE(var, name, doc)                   \
  static PyTypeObject var = {                            \
      PyVarObject_HEAD_INIT(NULL, 0)                     \
      .tp_name = "tessera._C." name,                     \
      .tp_basicsize = sizeof(handle_object),             \
      .tp_dealloc = handle_dealloc,                      \
      .tp_flags = Py_TPFLAGS_DEFAULT | kNoInstances,     \
      .tp_doc = doc,                                     \
  }
TC_HANDLE_TYPE(SafetensorsType, "safetensors", "An opened safetensors file (tsr_safetensors*).");
TC_HANDLE_TYPE(CommType, "comm", "A communicator (tsr_comm*).");
TC_HANDLE_TYPE(WorkType, "work", "A collective in flight (tsr_work*).");
#undef TC_HANDLE_TYPE

/* Ends a handle of the object's type; a work without the GIL (it may wait). */
static void end_handle(PyTypeObject* type, void* p) {
  if (p == NULL) return;
  if (type == &WorkType) {
    Py_BEGIN_ALLOW_THREADS tsr_work_release((tsr_work*)p);
    Py_END_ALLOW_THREADS
  } else if (type == &CommType) {
    tsr_comm_release((tsr_comm*)p);
  } else {
    tsr_safetensors_free((tsr_safetensors*)p);
  }
}

static void handle_dealloc(PyObject* self) {
  handle_object* h = (handle_object*)self;
  PyTypeObject* type = Py_TYPE(self);
  void* p = h->p;
  void* deferred = h->deferred;
  h->p = h->deferred = NULL;
  /* While finalizing, a communicator's plugin may be gone: the OS frees them. */
  if (type == &SafetensorsType || !tc_finalizing()) {
    end_handle(type, p);
    end_handle(type, deferred);
  }
  PyObject_Free(self);
}

/* A new object of `type` owning `p` (ended on failure). */
static PyObject* new_handle(PyTypeObject* type, void* p) {
  if (PyType_Ready(type) < 0) {
    end_handle(type, p);
    return NULL;
  }
  handle_object* h = PyObject_New(handle_object, type);
  if (h == NULL) {
    end_handle(type, p);
    return NULL;
  }
  h->p = p;
  h->deferred = NULL;
  h->users = 0;
  return (PyObject*)h;
}

/* "O&" converters: an object of the type, or None (the NULL handle), into
 * a handle_object* (NULL for None). */
static int handle_arg(PyObject* o, void* out, PyTypeObject* type, const char* what) {
  if (o == Py_None) {
    *(handle_object**)out = NULL;
    return 1;
  }
  if (Py_TYPE(o) != type) {
    PyErr_Format(PyExc_TypeError, "expected %s, got %s", what, Py_TYPE(o)->tp_name);
    return 0;
  }
  *(handle_object**)out = (handle_object*)o;
  return 1;
}
static int safetensors_arg(PyObject* o, void* out) {
  return handle_arg(o, out, &SafetensorsType, "an opened safetensors file");
}
static int comm_arg(PyObject* o, void* out) { return handle_arg(o, out, &CommType, "a communicator"); }
static int work_arg(PyObject* o, void* out) { return handle_arg(o, out, &WorkType, "a work"); }

static void* handle_of(handle_object* h) { return h == NULL ? NULL : h->p; }

/* Around a call without the GIL on the handle (called with the GIL). */
static void* begin_use(handle_object* h) {
  if (h == NULL) return NULL;
  ++h->users;
  return h->p;
}
static void end_use(handle_object* h) {
  if (h == NULL || --h->users > 0 || h->deferred == NULL) return;
  void* p = h->deferred;
  h->deferred = NULL;
  end_handle(Py_TYPE(h), p);
}

/* The handle released now, or by its last user. */
static PyObject* release_handle(handle_object* h) {
  if (h != NULL && h->p != NULL) {
    void* p = h->p;
    h->p = NULL;
    if (h->users > 0) {
      h->deferred = p;
    } else {
      end_handle(Py_TYPE(h), p);
    }
  }
  Py_RETURN_NONE;
}

static PyObject* str_or_none(const char* s) {
  if (s == NULL) Py_RETURN_NONE;
  return PyUnicode_FromString(s);
}

/* ---- safetensors ------------------------------------------------------------------------- */

/* safetensors_save(path, names, tensors, metadata_keys, metadata_values, errors=None) -> None. */
static PyObject* py_safetensors_save(PyObject* m, PyObject* args) {
  (void)m;
  PyObject *path, *names_arg, *tensors_arg, *keys_arg, *values_arg, *errors = Py_None;
  if (!PyArg_ParseTuple(args, "O&OOOO|O:safetensors_save", PyUnicode_FSConverter, &path, &names_arg, &tensors_arg,
                        &keys_arg, &values_arg, &errors))
    return NULL;
  /* Tuples of our own: the strings' UTF-8 stays valid while the GIL is released. */
  PyObject* seqs[4] = {PySequence_Tuple(names_arg), NULL, NULL, NULL};
  if (seqs[0] != NULL) seqs[1] = PySequence_Tuple(tensors_arg);
  if (seqs[1] != NULL) seqs[2] = PySequence_Tuple(keys_arg);
  if (seqs[2] != NULL) seqs[3] = PySequence_Tuple(values_arg);
  PyObject* result = NULL;
  const char** strings = NULL;
  tsr_tensor** handles = NULL;
  Py_ssize_t count = 0, retained = 0, meta = 0;
  tsr_status st;
  if (seqs[3] == NULL) goto done;
  count = PyTuple_GET_SIZE(seqs[0]);
  meta = PyTuple_GET_SIZE(seqs[2]);
  if (PyTuple_GET_SIZE(seqs[1]) != count || PyTuple_GET_SIZE(seqs[3]) != meta) {
    PyErr_SetString(PyExc_ValueError, "safetensors_save: names and tensors, keys and values must pair up");
    goto done;
  }
  strings = (const char**)PyMem_Malloc((size_t)(count + 2 * meta + 1) * sizeof(char*));
  handles = (tsr_tensor**)PyMem_Malloc((size_t)(count + 1) * sizeof(tsr_tensor*));
  if (strings == NULL || handles == NULL) {
    PyErr_NoMemory();
    goto done;
  }
  for (Py_ssize_t i = 0; i < count; ++i) {
    if ((strings[i] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(seqs[0], i))) == NULL) goto done;
  }
  for (Py_ssize_t i = 0; i < meta; ++i) {
    if ((strings[count + i] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(seqs[2], i))) == NULL) goto done;
    if ((strings[count + meta + i] = PyUnicode_AsUTF8(PyTuple_GET_ITEM(seqs[3], i))) == NULL) goto done;
  }
  for (; retained < count; ++retained) {
    if (!tc_tensor(PyTuple_GET_ITEM(seqs[1], retained), &handles[retained])) goto done;
    tsr_tensor_retain(handles[retained]);  /* ours while the GIL is released */
  }
  const char* path_c = PyBytes_AS_STRING(path);
  Py_BEGIN_ALLOW_THREADS st = tsr_safetensors_save(path_c, count, strings, handles, meta, strings + count,
                                                   strings + count + meta);
  Py_END_ALLOW_THREADS
  result = st == TSR_OK ? Py_NewRef(Py_None) : raise_mapped(st, errors);
done:
  for (Py_ssize_t i = 0; i < retained; ++i) tsr_tensor_release(handles[i]);
  PyMem_Free(strings);
  PyMem_Free(handles);
  for (int i = 0; i < 4; ++i) Py_XDECREF(seqs[i]);
  Py_DECREF(path);
  return result;
}

/* safetensors_open(path, errors=None) -> the opened file. */
static PyObject* py_safetensors_open(PyObject* m, PyObject* args) {
  (void)m;
  PyObject *path, *errors = Py_None;
  if (!PyArg_ParseTuple(args, "O&|O:safetensors_open", PyUnicode_FSConverter, &path, &errors)) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) {
    Py_DECREF(path);
    return NULL;
  }
  const char* path_c = PyBytes_AS_STRING(path);
  tsr_safetensors* out = NULL;
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_safetensors_open(rt, path_c, &out);
  Py_END_ALLOW_THREADS
  Py_DECREF(path);
  if (st != TSR_OK) return raise_mapped(st, errors);
  return new_handle(&SafetensorsType, out);
}

/* safetensors_open_memory(data, label, errors=None) -> the opened file (the bytes copied). */
static PyObject* py_safetensors_open_memory(PyObject* m, PyObject* args) {
  (void)m;
  Py_buffer data;
  const char* label;
  PyObject* errors = Py_None;
  if (!PyArg_ParseTuple(args, "y*z|O:safetensors_open_memory", &data, &label, &errors)) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) {
    PyBuffer_Release(&data);
    return NULL;
  }
  tsr_safetensors* out = NULL;
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_safetensors_open_memory(rt, data.buf, (size_t)data.len, label, &out);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&data);
  if (st != TSR_OK) return raise_mapped(st, errors);
  return new_handle(&SafetensorsType, out);
}

/* safetensors_free(file) -> None: the file's bytes freed now (idempotent). */
static PyObject* py_safetensors_free(PyObject* m, PyObject* arg) {
  (void)m;
  handle_object* h;
  if (!safetensors_arg(arg, &h)) return NULL;
  return release_handle(h);
}

static PyObject* py_safetensors_count(PyObject* m, PyObject* arg) {
  (void)m;
  handle_object* h;
  if (!safetensors_arg(arg, &h)) return NULL;
  return PyLong_FromLongLong(tsr_safetensors_count((tsr_safetensors*)handle_of(h)));
}

/* safetensors_name_at(file, i) -> str, or None out of range. */
static PyObject* py_safetensors_name_at(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  long long i;
  if (!PyArg_ParseTuple(args, "O&L:safetensors_name_at", safetensors_arg, &h, &i)) return NULL;
  return str_or_none(tsr_safetensors_name_at((tsr_safetensors*)handle_of(h), i));
}

/* safetensors_find(file, name) -> the index, or -1. */
static PyObject* py_safetensors_find(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  const char* name;
  if (!PyArg_ParseTuple(args, "O&s:safetensors_find", safetensors_arg, &h, &name)) return NULL;
  return PyLong_FromLongLong(tsr_safetensors_find((tsr_safetensors*)handle_of(h), name));
}

/* safetensors_info(file, i, errors=None) -> (dtype, shape). */
static PyObject* py_safetensors_info(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  long long i;
  PyObject* errors = Py_None;
  if (!PyArg_ParseTuple(args, "O&L|O:safetensors_info", safetensors_arg, &h, &i, &errors)) return NULL;
  int32_t dtype = 0, ndim = 0;
  int64_t shape[TSR_MAX_DIMS];
  const tsr_status st = tsr_safetensors_info((tsr_safetensors*)handle_of(h), i, &dtype, &ndim, shape);
  if (st != TSR_OK) return raise_mapped(st, errors);
  PyObject* d = tc_dtype_object((tsr_dtype)dtype);
  if (d == NULL) return NULL;
  PyObject* s = int64_tuple(shape, ndim);
  if (s == NULL) {
    Py_DECREF(d);
    return NULL;
  }
  return Py_BuildValue("(NN)", d, s);
}

/* safetensors_get(file, name, device, errors=None) -> a new Tensor on device. */
static PyObject* py_safetensors_get(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  const char* name;
  tsr_device device;
  PyObject* errors = Py_None;
  if (!PyArg_ParseTuple(args, "O&sO&|O:safetensors_get", safetensors_arg, &h, &name, tc_device, &device, &errors))
    return NULL;
  tsr_safetensors* file = (tsr_safetensors*)begin_use(h);
  tsr_tensor* out = NULL;
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_safetensors_get(file, name, device, &out);
  Py_END_ALLOW_THREADS
  end_use(h);
  if (st != TSR_OK) return raise_mapped(st, errors);
  return tc_wrap(out);
}

static PyObject* py_safetensors_metadata_count(PyObject* m, PyObject* arg) {
  (void)m;
  handle_object* h;
  if (!safetensors_arg(arg, &h)) return NULL;
  return PyLong_FromLongLong(tsr_safetensors_metadata_count((tsr_safetensors*)handle_of(h)));
}

/* safetensors_metadata_key_at(file, i) -> str, or None out of range. */
static PyObject* py_safetensors_metadata_key_at(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  long long i;
  if (!PyArg_ParseTuple(args, "O&L:safetensors_metadata_key_at", safetensors_arg, &h, &i)) return NULL;
  return str_or_none(tsr_safetensors_metadata_key_at((tsr_safetensors*)handle_of(h), i));
}

/* safetensors_metadata_get(file, key) -> str, or None when absent. */
static PyObject* py_safetensors_metadata_get(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  const char* key;
  if (!PyArg_ParseTuple(args, "O&s:safetensors_metadata_get", safetensors_arg, &h, &key)) return NULL;
  return str_or_none(tsr_safetensors_metadata_get((tsr_safetensors*)handle_of(h), key));
}

/* ---- collectives ------------------------------------------------------------------------- */

/* comm_world(device_type) -> the world's communicator (device_type: "cpu", "cuda" or None). */
static PyObject* py_comm_world(PyObject* m, PyObject* arg) {
  (void)m;
  const char* device_type = NULL;
  if (arg != Py_None && (device_type = PyUnicode_AsUTF8(arg)) == NULL) return NULL;
  tsr_runtime* rt = tc_runtime();
  if (rt == NULL) return NULL;
  tsr_comm* out = NULL;
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_comm_world(rt, device_type, &out);  /* may start the launcher's world */
  Py_END_ALLOW_THREADS
  if (st != TSR_OK) return tc_raise(st);
  return new_handle(&CommType, out);
}

/* comm_split(comm, color, key) -> a communicator, or None (a negative color). */
static PyObject* py_comm_split(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  int color, key;
  if (!PyArg_ParseTuple(args, "O&ii:comm_split", comm_arg, &h, &color, &key)) return NULL;
  tsr_comm* comm = (tsr_comm*)begin_use(h);
  tsr_comm* out = NULL;
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_comm_split(comm, color, key, &out);
  Py_END_ALLOW_THREADS
  end_use(h);
  if (st != TSR_OK) return tc_raise(st);
  if (out == NULL) Py_RETURN_NONE;
  return new_handle(&CommType, out);
}

static PyObject* py_comm_rank(PyObject* m, PyObject* arg) {
  (void)m;
  handle_object* h;
  if (!comm_arg(arg, &h)) return NULL;
  return PyLong_FromLong(tsr_comm_rank((tsr_comm*)handle_of(h)));
}

static PyObject* py_comm_size(PyObject* m, PyObject* arg) {
  (void)m;
  handle_object* h;
  if (!comm_arg(arg, &h)) return NULL;
  return PyLong_FromLong(tsr_comm_size((tsr_comm*)handle_of(h)));
}

static PyObject* py_comm_release(PyObject* m, PyObject* arg) {
  (void)m;
  handle_object* h;
  if (!comm_arg(arg, &h)) return NULL;
  return release_handle(h);
}

/* The end of a collective: a work when asked for one, else None. */
static PyObject* collective_result(tsr_status st, int async, tsr_work* work) {
  if (st != TSR_OK) return tc_raise(st);
  if (!async) Py_RETURN_NONE;
  return new_handle(&WorkType, work);
}

/* A collective without the GIL: it blocks, or starts and returns a work. */
#define TC_COLLECTIVE(comm_object, async, call)              \
  do {                                                       \
    tsr_comm* comm = (tsr_comm*)begin_use(comm_object);      \
    tsr_work* work = NULL;                                   \
    tsr_work** work_out = (async) ? &work : NULL;            \
    tsr_status st;                                           \
    Py_BEGIN_ALLOW_THREADS st = (call);                      \
    Py_END_ALLOW_THREADS                                     \
    end_use(comm_object);                                    \
    return collective_result(st, (async), work);             \
  } while (0)

/* all_reduce(comm, tensor, op, async) -> work or None. */
static PyObject* py_all_reduce(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  tsr_tensor* t;
  int op, async;
  if (!PyArg_ParseTuple(args, "O&O&ip:all_reduce", comm_arg, &h, tc_tensor, &t, &op, &async)) return NULL;
  TC_COLLECTIVE(h, async, tsr_all_reduce(comm, t, op, NULL, work_out));
}

/* broadcast(comm, tensor, root, async) -> work or None. */
static PyObject* py_broadcast(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  tsr_tensor* t;
  int root, async;
  if (!PyArg_ParseTuple(args, "O&O&ip:broadcast", comm_arg, &h, tc_tensor, &t, &root, &async)) return NULL;
  TC_COLLECTIVE(h, async, tsr_broadcast(comm, t, root, NULL, work_out));
}

/* comm_reduce(comm, tensor, root, op, async) -> work or None. */
static PyObject* py_comm_reduce(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  tsr_tensor* t;
  int root, op, async;
  if (!PyArg_ParseTuple(args, "O&O&iip:comm_reduce", comm_arg, &h, tc_tensor, &t, &root, &op, &async)) return NULL;
  TC_COLLECTIVE(h, async, tsr_comm_reduce(comm, t, root, op, NULL, work_out));
}

/* all_gather(comm, output, input, async) -> work or None. */
static PyObject* py_all_gather(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  tsr_tensor *o, *i;
  int async;
  if (!PyArg_ParseTuple(args, "O&O&O&p:all_gather", comm_arg, &h, tc_tensor, &o, tc_tensor, &i, &async)) return NULL;
  TC_COLLECTIVE(h, async, tsr_all_gather(comm, o, i, NULL, work_out));
}

/* reduce_scatter(comm, output, input, op, async) -> work or None. */
static PyObject* py_reduce_scatter(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  tsr_tensor *o, *i;
  int op, async;
  if (!PyArg_ParseTuple(args, "O&O&O&ip:reduce_scatter", comm_arg, &h, tc_tensor, &o, tc_tensor, &i, &op, &async))
    return NULL;
  TC_COLLECTIVE(h, async, tsr_reduce_scatter(comm, o, i, op, NULL, work_out));
}

/* all_to_all(comm, output, input, async) -> work or None. */
static PyObject* py_all_to_all(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  tsr_tensor *o, *i;
  int async;
  if (!PyArg_ParseTuple(args, "O&O&O&p:all_to_all", comm_arg, &h, tc_tensor, &o, tc_tensor, &i, &async)) return NULL;
  TC_COLLECTIVE(h, async, tsr_all_to_all(comm, o, i, NULL, work_out));
}

/* send(comm, tensor, dst, tag, async) -> work or None. */
static PyObject* py_send(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  tsr_tensor* t;
  int peer, tag, async;
  if (!PyArg_ParseTuple(args, "O&O&iip:send", comm_arg, &h, tc_tensor, &t, &peer, &tag, &async)) return NULL;
  TC_COLLECTIVE(h, async, tsr_send(comm, t, peer, tag, NULL, work_out));
}

/* recv(comm, tensor, src, tag, async) -> work or None. */
static PyObject* py_recv(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  tsr_tensor* t;
  int peer, tag, async;
  if (!PyArg_ParseTuple(args, "O&O&iip:recv", comm_arg, &h, tc_tensor, &t, &peer, &tag, &async)) return NULL;
  TC_COLLECTIVE(h, async, tsr_recv(comm, t, peer, tag, NULL, work_out));
}

/* barrier(comm, async) -> work or None. */
static PyObject* py_barrier(PyObject* m, PyObject* args) {
  (void)m;
  handle_object* h;
  int async;
  if (!PyArg_ParseTuple(args, "O&p:barrier", comm_arg, &h, &async)) return NULL;
  TC_COLLECTIVE(h, async, tsr_barrier(comm, NULL, work_out));
}
#undef TC_COLLECTIVE

/* work_wait(work) -> None once done; raises the operation's failure. */
static PyObject* py_work_wait(PyObject* m, PyObject* arg) {
  (void)m;
  handle_object* h;
  if (!work_arg(arg, &h)) return NULL;
  tsr_work* work = (tsr_work*)begin_use(h);
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_work_wait(work);
  Py_END_ALLOW_THREADS
  end_use(h);
  return tc_none(st);
}

/* work_test(work) -> whether it completed (never blocks). */
static PyObject* py_work_test(PyObject* m, PyObject* arg) {
  (void)m;
  handle_object* h;
  if (!work_arg(arg, &h)) return NULL;
  tsr_work* work = (tsr_work*)begin_use(h);
  int32_t done = 0;
  tsr_status st;
  Py_BEGIN_ALLOW_THREADS st = tsr_work_test(work, &done);  /* may finish the work: copies back */
  Py_END_ALLOW_THREADS
  end_use(h);
  if (st != TSR_OK) return tc_raise(st);
  return PyBool_FromLong(done != 0);
}

/* work_release(work) -> None: ended now (waiting for it first, without the GIL). */
static PyObject* py_work_release(PyObject* m, PyObject* arg) {
  (void)m;
  handle_object* h;
  if (!work_arg(arg, &h)) return NULL;
  return release_handle(h);
}

PyMethodDef tc_interop_methods[] = {
    {"from_external", py_from_external, METH_VARARGS,
     "from_external(data, shape, strides, offset, dtype, device, owner): a Tensor over memory at the address `data`, "
     "owner kept until its storage goes"},
    {"tensor_describe", py_tensor_describe, METH_O,
     "tensor_describe(x) -> (data, offset, dtype, (device type, index), shape, strides)"},
    {"device_is_host_accessible", py_device_is_host_accessible, METH_O,
     "device_is_host_accessible(device): whether the host may address its memory"},
    {"to_dlpack", py_to_dlpack, METH_VARARGS,
     "to_dlpack(owner, device_type, device_id, synchronize): a \"dltensor\" capsule over owner's memory"},
    {"from_dlpack", py_from_dlpack, METH_VARARGS,
     "from_dlpack(capsule, owner, errors=None): a Tensor over an unused \"dltensor\" or \"dltensor_versioned\" "
     "capsule's memory"},
    {"to_dlpack_versioned", py_to_dlpack_versioned, METH_VARARGS,
     "to_dlpack_versioned(tensor, copy, synchronize, read_only, device, errors): a \"dltensor_versioned\" capsule "
     "(DLPack 1.x)"},
    {"safetensors_save", py_safetensors_save, METH_VARARGS,
     "safetensors_save(path, names, tensors, metadata_keys, metadata_values, errors=None)"},
    {"safetensors_open", py_safetensors_open, METH_VARARGS, "safetensors_open(path, errors=None): the checked file"},
    {"safetensors_open_memory", py_safetensors_open_memory, METH_VARARGS,
     "safetensors_open_memory(data, label, errors=None): the checked file, from its bytes"},
    {"safetensors_free", py_safetensors_free, METH_O, "safetensors_free(file): frees it now"},
    {"safetensors_count", py_safetensors_count, METH_O, "safetensors_count(file): how many tensors"},
    {"safetensors_name_at", py_safetensors_name_at, METH_VARARGS, "safetensors_name_at(file, i): a name, or None"},
    {"safetensors_find", py_safetensors_find, METH_VARARGS, "safetensors_find(file, name): its index, or -1"},
    {"safetensors_info", py_safetensors_info, METH_VARARGS,
     "safetensors_info(file, i, errors=None) -> (dtype, shape)"},
    {"safetensors_get", py_safetensors_get, METH_VARARGS,
     "safetensors_get(file, name, device, errors=None): a new Tensor"},
    {"safetensors_metadata_count", py_safetensors_metadata_count, METH_O, "safetensors_metadata_count(file)"},
    {"safetensors_metadata_key_at", py_safetensors_metadata_key_at, METH_VARARGS,
     "safetensors_metadata_key_at(file, i): a key, or None"},
    {"safetensors_metadata_get", py_safetensors_metadata_get, METH_VARARGS,
     "safetensors_metadata_get(file, key): its value, or None"},
    {"comm_world", py_comm_world, METH_O, "comm_world(device_type): the launch's world (device_type str or None)"},
    {"comm_split", py_comm_split, METH_VARARGS, "comm_split(comm, color, key): a communicator, or None"},
    {"comm_rank", py_comm_rank, METH_O, "comm_rank(comm): this process's rank (-1 for None)"},
    {"comm_size", py_comm_size, METH_O, "comm_size(comm): the number of ranks (-1 for None)"},
    {"comm_release", py_comm_release, METH_O, "comm_release(comm): ends the handle now"},
    {"all_reduce", py_all_reduce, METH_VARARGS, "all_reduce(comm, tensor, op, async) -> work or None"},
    {"broadcast", py_broadcast, METH_VARARGS, "broadcast(comm, tensor, root, async) -> work or None"},
    {"comm_reduce", py_comm_reduce, METH_VARARGS, "comm_reduce(comm, tensor, root, op, async) -> work or None"},
    {"all_gather", py_all_gather, METH_VARARGS, "all_gather(comm, output, input, async) -> work or None"},
    {"reduce_scatter", py_reduce_scatter, METH_VARARGS,
     "reduce_scatter(comm, output, input, op, async) -> work or None"},
    {"all_to_all", py_all_to_all, METH_VARARGS, "all_to_all(comm, output, input, async) -> work or None"},
    {"send", py_send, METH_VARARGS, "send(comm, tensor, dst, tag, async) -> work or None"},
    {"recv", py_recv, METH_VARARGS, "recv(comm, tensor, src, tag, async) -> work or None"},
    {"barrier", py_barrier, METH_VARARGS, "barrier(comm, async) -> work or None"},
    {"work_wait", py_work_wait, METH_O, "work_wait(work): blocks until done; raises its failure"},
    {"work_test", py_work_test, METH_O, "work_test(work): whether it completed (never blocks)"},
    {"work_release", py_work_release, METH_O, "work_release(work): ends the handle now (after the work completes)"},
    {NULL, NULL, 0, NULL},
};
