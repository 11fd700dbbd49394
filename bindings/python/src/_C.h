/* SPDX-License-Identifier: Apache-2.0 */
/* What the files of tessera._C share (internal to the extension; nothing
 * here is installed or seen by Python). _C.c holds the module, its state and
 * TensorBase; args.c the conversions between Python values and the C API's
 * arguments and results; each api_*.c file a table of module functions over
 * one part of the C API, which PyInit__C adds to the module.
 *
 * Note [Module functions over the C API]
 *   Each function of the C API that Python calls has one module function
 *   of the same name without the tsr_ prefix (_C.slice for tsr_slice).
 *   Its arguments are Python values: Tensors for tsr_tensor*, sequences of
 *   ints for (n, int64_t*) pairs, tessera.dtype and tessera.device objects,
 *   Python numbers for tsr_scalar. Out-parameters come back as the return
 *   value (a tuple when there are several); a failed status raises the
 *   exception _lib.error gives, with the C message. Argument checking with
 *   PyTorch's messages stays in the Python methods that call these: the
 *   module functions take what those pass, and refuse anything else with
 *   TypeError. */
#ifndef TESSERA_PYTHON_C_H
#define TESSERA_PYTHON_C_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

#include "tessera/tessera.h"

enum { kReleaseGilElements = 32768 };

typedef struct {
  PyObject_HEAD
  tsr_tensor* handle; /* one reference, released with the object; NULL after `del t._h` */
  PyObject* weakrefs; /* weakref.ref(tensor) support, here rather than in the subclass (Note [No GC] in _C.c) */
} TensorObject;

extern PyTypeObject TensorBaseType;

/* ---- results ---------------------------------------------------------------- */

int tc_ready(void);                    /* 0 with RuntimeError before setup() ran */
PyObject* tc_wrap(tsr_tensor* h);      /* a new tessera.Tensor owning h's reference */
PyObject* tc_raise(tsr_status st);     /* raises _lib.error(st); returns NULL */
/* The usual ending: `out` wrapped when st is TSR_OK, else raised (out is
 * then NULL, as the C API leaves it). Call the C function in a statement
 * of its own first (`st = tsr_x(..., &out); return tc_result(st, out);`):
 * within one call's arguments C does not order the call before `out` is read. */
PyObject* tc_result(tsr_status st, tsr_tensor* out);
PyObject* tc_none(tsr_status st);      /* None, or raised */
/* Several out-parameters as a tuple: a Tensor each, None where the handle
 * is NULL (a result not asked for); raised when st failed. Owns the
 * handles: released when building the tuple fails. */
PyObject* tc_results(tsr_status st, int n, tsr_tensor** outs);
PyObject* tc_take_exception(void);     /* the exception being raised, taken out (NULL: none) */
PyObject* tc_raise_as(tsr_status st, PyObject* cls);  /* _lib.error(st)'s message as cls; NULL */
PyObject* tc_take_string(tsr_status st, char* text);  /* a char* of the C API (freed) as str, or st raised */
/* The elements an op touches (a and b may be NULL): Note [The GIL around kernels] in _C.c. */
static inline int64_t tc_elements(tsr_tensor* a, tsr_tensor* b) {
  return (a != NULL ? tsr_tensor_numel(a) : 0) + (b != NULL ? tsr_tensor_numel(b) : 0);
}
int tc_finalizing(void);               /* the interpreter is shutting down */
int tc_releasing(void);                /* 0 once stop_releasing() ran (exit): handles are left to the OS */
PyObject* tc_dtype_object(tsr_dtype code);
PyObject* tc_device_object(tsr_device d);

/* ---- arguments: PyArg_ParseTuple's "O&" converters (1: ok; 0: error set) ---- */

int tc_tensor(PyObject* o, void* out);          /* tsr_tensor**: a Tensor with a handle */
int tc_tensor_or_none(PyObject* o, void* out);  /* the same, None: NULL */
typedef struct {
  int32_t n;
  int64_t v[TSR_MAX_DIMS];
} tc_i64s;
int tc_ints64(PyObject* o, void* out);  /* tc_i64s*: a sequence of at most TSR_MAX_DIMS ints in int64 */
typedef struct {
  int32_t n;
  int32_t v[TSR_MAX_DIMS];
} tc_i32s;
int tc_ints32(PyObject* o, void* out);   /* tc_i32s*: the same in int32 */
int tc_dtype(PyObject* o, void* out);    /* tsr_dtype*: a tessera.dtype; None: TSR_DTYPE_UNDEFINED */
int tc_device(PyObject* o, void* out);   /* tsr_device*: a tessera.device, or None: the default device */
int tc_scalar(PyObject* o, void* out);   /* tsr_scalar*: a Python bool, int (int64, or uint64 bits), float or complex */
PyObject* tc_scalar_value(tsr_scalar s); /* the Python number a tsr_scalar holds (an INT as int64) */
int tc_op(PyObject* o, void* out);       /* tsr_op*: an int below tsr_op_count() */

/* METH_FASTCALL arguments by a format of one letter each (Note [Fast calls]
 * in args.c); 1: ok; 0: error set. */
int tc_parse(PyObject* const* args, Py_ssize_t nargs, const char* fn, const char* format, ...);

/* The process's runtime, created on first use ($TESSERA_CONFIG, else the
 * default config beside the library); NULL with the error raised. */
tsr_runtime* tc_runtime(void);

/* Runs `call` (an assignment of a tsr_status) without the GIL when the work
 * touches kReleaseGilElements elements or more (Note [The GIL around
 * kernels] in _C.c). */
#define TC_MAYBE_WITHOUT_GIL(elements, call)       \
  do {                                              \
    if ((elements) < kReleaseGilElements) {         \
      call;                                         \
    } else {                                        \
      Py_BEGIN_ALLOW_THREADS call;                  \
      Py_END_ALLOW_THREADS                          \
    }                                               \
  } while (0)

/* ---- the tables PyInit__C adds ------------------------------------------------ */

extern PyMethodDef tc_runtime_methods[];    /* args.c: the runtime, devices */
extern PyMethodDef tc_tensor_methods[];     /* api_tensor.c: creation, metadata, views, ops, reductions */
extern PyMethodDef tc_linalg_nn_methods[];  /* api_linalg_nn.c: linalg, nn functions, losses, optimizers */
extern PyMethodDef tc_autograd_methods[];   /* api_autograd.c: grad mode, .grad, hooks, backward, grad */
extern PyMethodDef tc_interop_methods[];    /* api_interop.c: host memory, NumPy, DLPack, safetensors, collectives */
extern PyMethodDef tc_fft_methods[];        /* api_fft.c: Fourier transforms (tsr_fft) */

#endif
