# SPDX-License-Identifier: Apache-2.0
"""Loading libtessera.so, the C signatures, errors and the one runtime.

Everything that knows the C ABI's layout lives here: the ctypes mirrors of
the public structs, the argtypes/restype of every function (set once, so a
call costs one ctypes dispatch), the mapping of tsr_status to Python
exceptions, and the lazily created runtime that is shut down at exit.
"""
import atexit
import ctypes
import ctypes.util
import os
import threading
from ctypes import (POINTER, Structure, c_char_p, c_double, c_int32, c_int64, c_size_t, c_uint32,
                    c_uint64, c_void_p)

# ---- finding the library ----------------------------------------------------


def _candidates():
    """Where libtessera.so may be, in the order tried (Note: the build tree
    mirrors the install tree, so one upward walk covers both)."""
    env = os.environ.get("TESSERA_LIBRARY")
    if env:
        yield env
        return
    try:  # a wheel: the library it was built and linked against (bindings/python/setup.py)
        from ._installed import LIBRARY
        yield LIBRARY
        return
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    d = here
    while True:
        # A source checkout: <repo>/bindings/python/tessera -> <repo>/build/lib.
        yield os.path.join(d, "build", "lib", "libtessera.so")
        # An install tree: <prefix>/lib/python3/dist-packages/tessera -> <prefix>/lib.
        yield os.path.join(d, "lib", "libtessera.so")
        # ... or with a multiarch libdir: <prefix>/lib/x86_64-linux-gnu/python3/... -> that libdir.
        yield os.path.join(d, "libtessera.so")
        parent = os.path.dirname(d)
        if parent == d:
            break
        d = parent
    found = ctypes.util.find_library("tessera")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (not found)")
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("tessera: cannot find libtessera.so; set TESSERA_LIBRARY to its path. Tried:\n  "
                      + "\n  ".join(tried))


lib, library_path = _load()


# Note [The extension beside the library]
# tessera._C, the compiled half of the binding (bindings/python/src/_C.c), is
# linked to libtessera. An installed package holds it in its own directory.
# A source checkout's package (PYTHONPATH=bindings/python) has none: the
# build tree puts it in lib/python3/dist-packages/tessera beside the
# libtessera it built, the layout of an install tree, so it is looked for
# there, beside the library loaded above. Either way it must be linked to
# that same library (one runtime, one handle space): _C.library_address is
# compared with the library's own tsr_tensor_release.
def _load_extension():
    import importlib.machinery
    import importlib.util
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    beside = os.path.join(os.path.dirname(os.path.realpath(library_path)), "python3", "dist-packages", "tessera")
    names = ["_C" + suffix for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    tried = []
    for d in (here, beside):
        for name in names:
            path = os.path.join(d, name)
            if not os.path.exists(path):
                tried.append(path)
                continue
            spec = importlib.util.spec_from_file_location("tessera._C", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            mine = ctypes.cast(lib.tsr_tensor_release, c_void_p).value
            if module.library_address() != mine:
                raise ImportError("tessera: %s is linked to another libtessera than %s (its tsr_tensor_release is "
                                  "at %#x, the loaded one's at %#x); use the extension built with that library"
                                  % (path, library_path, module.library_address(), mine))
            sys.modules["tessera._C"] = module
            return module
    raise ImportError("tessera: cannot find the extension tessera._C for %s; build the target tessera_python_C "
                      "(make), or install the package. Tried:\n  %s" % (library_path, "\n  ".join(tried)))


_C = _load_extension()

# The same library again, through PyDLL: calls that only read or write a
# handle's record (getters, retain/release, views) keep the GIL instead of
# releasing and re-taking it, which is a third of their cost. Calls that
# compute or copy go through `lib` and let other threads run meanwhile.
quick_lib = ctypes.PyDLL(library_path)

# ---- the structs (ctypes mirrors of the headers) ------------------------------

MAX_DIMS = 16  # TSR_MAX_DIMS
SLICE_NONE = -(2 ** 63)  # TSR_SLICE_NONE


class Device(Structure):  # tsr_device, a frozen value type
    _fields_ = [("type", c_int32), ("index", c_int32)]


class Scalar(Structure):  # tsr_scalar, a frozen value type
    _fields_ = [("kind", c_int32), ("reserved", c_int32), ("f", c_double), ("i", c_int64)]


SCALAR_FLOAT, SCALAR_INT, SCALAR_BOOL = 0, 1, 2


class TensorDesc(Structure):  # tsr_tensor_desc
    _fields_ = [("struct_size", c_size_t), ("data", c_void_p), ("offset", c_int64), ("ndim", c_int32),
                ("dtype", c_int32), ("device", Device), ("shape", c_int64 * MAX_DIMS),
                ("strides", c_int64 * MAX_DIMS)]


class SortOptions(Structure):  # tsr_sort_options (ABI 1.5)
    _fields_ = [("struct_size", c_size_t), ("dim", c_int64), ("descending", c_int32), ("stable", c_int32)]


class AutogradOptions(Structure):  # tsr_autograd_options (ABI 1.8)
    _fields_ = [("struct_size", c_size_t), ("retain_graph", c_int32), ("create_graph", c_int32),
                ("allow_unused", c_int32), ("reserved", c_int32)]


class LossOptions(Structure):  # tsr_loss_options (ABI 1.10, tessera/nn.h)
    _fields_ = [("struct_size", c_size_t), ("reduction", c_int32), ("reserved", c_int32),
                ("ignore_index", c_int64), ("label_smoothing", c_double), ("weight", c_void_p),
                ("pos_weight", c_void_p)]


class OptimizerOptions(Structure):  # tsr_optimizer_options (ABI 1.10, tessera/optim.h)
    _fields_ = [("struct_size", c_size_t), ("kind", c_int32), ("maximize", c_int32), ("lr", c_double),
                ("weight_decay", c_double), ("momentum", c_double), ("dampening", c_double),
                ("nesterov", c_int32), ("amsgrad", c_int32), ("beta1", c_double), ("beta2", c_double),
                ("eps", c_double)]


# tsr_grad_hook_fn: tsr_status (*)(void* user_data, tsr_tensor* grad, tsr_tensor** replacement)
GRAD_HOOK_FN = ctypes.CFUNCTYPE(c_int32, c_void_p, c_void_p, POINTER(c_void_p))
RELEASE_FN = ctypes.CFUNCTYPE(None, c_void_p)


class ReduceOptions(Structure):  # tsr_reduce_options (ABI 1.5)
    _fields_ = [("struct_size", c_size_t), ("dims", POINTER(c_int32)), ("num_dims", c_int32),
                ("keepdim", c_int32), ("correction", c_double)]


# MATH's functions (enum tsr_math_fn, tessera/ops.h), name to number.
MATH_FN = {name: i for i, name in enumerate(
    ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "log1p",
     "log2", "log10", "floor", "ceil", "trunc", "round", "sign", "conj", "erf"))}


class Finfo(Structure):  # tsr_finfo
    _fields_ = [("struct_size", c_size_t), ("bits", c_int32), ("reserved", c_int32), ("eps", c_double),
                ("max", c_double), ("min", c_double), ("tiny", c_double)]


# The ABI these mirrors were written against (tessera/version.h): a library of
# another major is refused at tsr_runtime_create.
ABI_VERSION = (1 << 16) | 6


class RuntimeOptions(Structure):  # tsr_runtime_options
    _fields_ = [("struct_size", c_size_t), ("config_path", c_char_p), ("config_json", c_char_p),
                ("config_base_dir", c_char_p), ("strict_plugins", c_int32), ("reserved", c_int32),
                ("abi_version", c_uint32), ("reserved2", c_uint32)]


def struct_size(cls, last_field):
    """TSR_STRUCT_SIZE: derived from the layout, never written by hand."""
    f = getattr(cls, last_field)
    return f.offset + f.size


class MemoryStats(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("in_use", c_uint64), ("reserved", c_uint64)]


# tsr_deleter_fn: void (*)(void* ctx, void* data)
DELETER_FN = ctypes.CFUNCTYPE(None, c_void_p, c_void_p)

# ---- the signatures -------------------------------------------------------------

T = c_void_p  # tsr_tensor* and tsr_runtime*, kept as plain ints on the Python side
OUT = POINTER(c_void_p)  # tsr_tensor** (a c_void_p instance is passed by reference)
I64P = POINTER(c_int64)
I32 = c_int32
ST = c_int32  # tsr_status

_SIGNATURES = {
    "tsr_last_error_message": (c_char_p, []),
    "tsr_last_error_status": (ST, []),
    "tsr_status_name": (c_char_p, [ST]),
    "tsr_abi_version": (c_uint32, []),
    "tsr_op_count": (I32, []),
    "tsr_op_get_name": (c_char_p, [I32]),
    "tsr_runtime_create": (ST, [POINTER(RuntimeOptions), OUT]),
    "tsr_runtime_destroy": (ST, [T]),
    "tsr_runtime_describe": (ST, [T, I32, POINTER(c_void_p)]),
    "tsr_string_free": (None, [c_void_p]),
    "tsr_runtime_default_device": (ST, [T, POINTER(Device), POINTER(c_int32)]),
    "tsr_device_parse": (ST, [T, c_char_p, POINTER(Device)]),
    "tsr_device_format": (c_size_t, [T, Device, ctypes.c_char_p, c_size_t]),
    "tsr_runtime_device_count": (I32, [T]),
    "tsr_runtime_device_at": (ST, [T, I32, POINTER(Device)]),
    "tsr_synchronize": (ST, [T, Device]),
    "tsr_device_is_host_accessible": (I32, [T, Device]),
    "tsr_empty_cache": (ST, [T, Device]),
    "tsr_get_memory_stats": (ST, [T, Device, POINTER(MemoryStats)]),
    "tsr_manual_seed": (None, [T, c_uint64]),
    "tsr_set_print_precision": (ST, [T, I32]),
    "tsr_set_float32_matmul_precision": (ST, [T, I32]),
    "tsr_get_float32_matmul_precision": (I32, [T]),
    "tsr_empty": (ST, [T, I32, I64P, I32, Device, OUT]),
    "tsr_zeros": (ST, [T, I32, I64P, I32, Device, OUT]),
    "tsr_ones": (ST, [T, I32, I64P, I32, Device, OUT]),
    "tsr_full": (ST, [T, I32, I64P, Scalar, I32, Device, OUT]),
    "tsr_arange": (ST, [T, Scalar, Scalar, Scalar, I32, Device, OUT]),
    "tsr_linspace": (ST, [T, c_double, c_double, c_int64, I32, Device, OUT]),
    "tsr_rand": (ST, [T, I32, I64P, I32, Device, OUT]),
    "tsr_randn": (ST, [T, I32, I64P, I32, Device, OUT]),
    "tsr_from_host": (ST, [T, c_void_p, I32, I64P, I32, Device, OUT]),
    "tsr_from_external": (ST, [T, c_void_p, I32, I64P, I64P, c_int64, I32, Device, DELETER_FN, c_void_p,
                               OUT]),
    "tsr_tensor_retain": (None, [T]),
    "tsr_tensor_release": (None, [T]),
    "tsr_tensor_ndim": (I32, [T]),
    "tsr_tensor_shape": (I64P, [T]),
    "tsr_tensor_strides": (I64P, [T]),
    "tsr_tensor_storage_offset": (c_int64, [T]),
    "tsr_tensor_dtype": (I32, [T]),
    "tsr_tensor_device": (Device, [T]),
    "tsr_tensor_numel": (c_int64, [T]),
    "tsr_tensor_element_size": (c_size_t, [T]),
    "tsr_tensor_is_contiguous": (I32, [T]),
    "tsr_tensor_storage_data": (c_void_p, [T]),
    "tsr_tensor_storage_nbytes": (c_size_t, [T]),
    "tsr_tensor_describe": (ST, [T, POINTER(TensorDesc)]),
    "tsr_view": (ST, [T, I32, I64P, OUT]),
    "tsr_reshape": (ST, [T, I32, I64P, OUT]),
    "tsr_transpose": (ST, [T, I32, I32, OUT]),
    "tsr_real": (ST, [T, OUT]),
    "tsr_imag": (ST, [T, OUT]),
    "tsr_t": (ST, [T, OUT]),
    "tsr_permute": (ST, [T, I32, POINTER(c_int32), OUT]),
    "tsr_slice": (ST, [T, I32, c_int64, c_int64, c_int64, OUT]),
    "tsr_select": (ST, [T, I32, c_int64, OUT]),
    "tsr_unsqueeze": (ST, [T, I32, OUT]),
    "tsr_squeeze": (ST, [T, I32, OUT]),
    "tsr_squeeze_all": (ST, [T, OUT]),
    "tsr_expand": (ST, [T, I32, I64P, OUT]),
    "tsr_flatten": (ST, [T, I32, I32, OUT]),
    "tsr_as_strided": (ST, [T, I32, I64P, I64P, c_int64, OUT]),
    "tsr_contiguous": (ST, [T, OUT]),
    "tsr_clone": (ST, [T, OUT]),
    # tessera/autograd.h (ABI 1.8)
    "tsr_is_grad_enabled": (I32, []),
    "tsr_set_grad_enabled": (I32, [I32]),
    "tsr_tensor_requires_grad": (I32, [T]),
    "tsr_tensor_set_requires_grad": (ST, [T, I32]),
    "tsr_tensor_is_leaf": (I32, [T]),
    "tsr_tensor_grad": (ST, [T, OUT]),
    "tsr_tensor_set_grad": (ST, [T, T]),
    "tsr_tensor_retain_grad": (ST, [T]),
    "tsr_tensor_retains_grad": (I32, [T]),
    "tsr_tensor_grad_fn_name": (c_char_p, [T]),
    "tsr_tensor_version": (c_int64, [T]),
    "tsr_detach": (ST, [T, OUT]),
    "tsr_detach_": (ST, [T]),
    "tsr_tensor_register_hook": (ST, [T, GRAD_HOOK_FN, c_void_p, RELEASE_FN, I64P]),
    "tsr_tensor_remove_hook": (ST, [T, c_int64]),
    "tsr_backward": (ST, [I32, POINTER(c_void_p), POINTER(c_void_p), I32, POINTER(c_void_p),
                          POINTER(AutogradOptions)]),
    "tsr_grad": (ST, [I32, POINTER(c_void_p), POINTER(c_void_p), I32, POINTER(c_void_p), POINTER(AutogradOptions),
                      POINTER(c_void_p)]),
    "tsr_to": (ST, [T, I32, Device, OUT]),
    "tsr_to_dtype": (ST, [T, I32, OUT]),
    "tsr_to_device": (ST, [T, Device, OUT]),
    "tsr_binary": (ST, [I32, T, T, OUT]),
    "tsr_binary_scalar": (ST, [I32, T, Scalar, I32, OUT]),
    "tsr_binary_": (ST, [I32, T, T]),
    "tsr_binary_scalar_": (ST, [I32, T, Scalar]),
    "tsr_unary": (ST, [I32, T, OUT]),
    "tsr_unary_": (ST, [I32, T]),
    "tsr_binary_out": (ST, [I32, T, T, T]),
    "tsr_binary_scalar_out": (ST, [I32, T, Scalar, I32, T]),
    "tsr_unary_out": (ST, [I32, T, T]),
    "tsr_where": (ST, [T, T, T, OUT]),
    "tsr_reduce": (ST, [I32, T, I32, POINTER(c_int32), I32, OUT]),
    "tsr_reduce_ex": (ST, [I32, T, c_void_p, OUT]),
    "tsr_math": (ST, [I32, T, OUT]),
    "tsr_math_out": (ST, [I32, T, T]),
    "tsr_cumsum": (ST, [T, c_int64, I32, OUT]),
    "tsr_gather": (ST, [T, c_int64, T, OUT]),
    "tsr_take": (ST, [T, T, c_int64, OUT]),
    "tsr_scatter_": (ST, [T, c_int64, T, T, I32]),
    "tsr_nonzero": (ST, [T, OUT]),
    "tsr_sort": (ST, [T, c_void_p, OUT, OUT]),
    "tsr_unique": (ST, [T, OUT, OUT, OUT, OUT]),
    "tsr_concat": (ST, [POINTER(c_void_p), I32, c_int64, OUT]),
    "tsr_stack": (ST, [POINTER(c_void_p), I32, c_int64, OUT]),
    "tsr_roll": (ST, [T, I32, I64P, I64P, OUT]),
    "tsr_flip": (ST, [T, I32, I64P, OUT]),
    "tsr_tril": (ST, [T, c_int64, OUT]),
    "tsr_triu": (ST, [T, c_int64, OUT]),
    "tsr_eye": (ST, [c_void_p, c_int64, c_int64, c_int64, I32, Device, OUT]),
    "tsr_matmul": (ST, [T, T, OUT]),
    "tsr_matmul_out": (ST, [T, T, T]),
    # linear algebra (ABI 1.6)
    "tsr_linalg_cholesky": (ST, [T, I32, OUT]),
    "tsr_linalg_lu_factor": (ST, [T, OUT, OUT]),
    "tsr_linalg_solve": (ST, [T, T, OUT]),
    "tsr_linalg_inv": (ST, [T, OUT]),
    "tsr_linalg_det": (ST, [T, OUT]),
    "tsr_linalg_slogdet": (ST, [T, OUT, OUT]),
    "tsr_linalg_qr": (ST, [T, I32, OUT, OUT]),
    "tsr_linalg_svd": (ST, [T, I32, OUT, OUT, OUT]),
    "tsr_linalg_eigh": (ST, [T, OUT, OUT]),
    # ABI 1.9: fused gradients
    "tsr_linalg_vector_norm": (ST, [T, c_double, I32, POINTER(c_int32), I32, OUT]),
    "tsr_linalg_pinv": (ST, [T, T, T, I32, OUT]),
    "tsr_softmax": (ST, [T, c_int64, OUT]),
    "tsr_log_softmax": (ST, [T, c_int64, OUT]),
    "tsr_logsumexp": (ST, [T, I32, POINTER(c_int32), I32, OUT]),
    "tsr_diagonal": (ST, [T, c_int64, I32, I32, OUT]),
    # ABI 1.10: tessera/nn.h and tessera/optim.h
    "tsr_linear": (ST, [T, T, T, OUT]),
    "tsr_layer_norm": (ST, [T, I32, T, T, c_double, OUT]),
    "tsr_embedding": (ST, [T, T, c_int64, I32, OUT]),
    "tsr_embedding_renorm_": (ST, [T, T, c_double, c_double]),
    "tsr_dropout": (ST, [T, c_double, I32, OUT]),
    "tsr_gelu": (ST, [T, I32, OUT]),
    "tsr_silu": (ST, [T, OUT]),
    "tsr_softplus": (ST, [T, c_double, c_double, OUT]),
    "tsr_cross_entropy": (ST, [T, T, POINTER(LossOptions), OUT]),
    "tsr_nll_loss": (ST, [T, T, POINTER(LossOptions), OUT]),
    "tsr_mse_loss": (ST, [T, T, POINTER(LossOptions), OUT]),
    "tsr_l1_loss": (ST, [T, T, POINTER(LossOptions), OUT]),
    "tsr_binary_cross_entropy": (ST, [T, T, POINTER(LossOptions), OUT]),
    "tsr_binary_cross_entropy_with_logits": (ST, [T, T, POINTER(LossOptions), OUT]),
    "tsr_optimizer_defaults": (ST, [I32, POINTER(OptimizerOptions)]),
    "tsr_optimizer_create": (ST, [I32, POINTER(c_void_p), POINTER(OptimizerOptions), POINTER(c_void_p)]),
    "tsr_optimizer_destroy": (None, [c_void_p]),
    "tsr_optimizer_step": (ST, [c_void_p]),
    "tsr_optimizer_zero_grad": (ST, [c_void_p, I32]),
    "tsr_optimizer_get_options": (ST, [c_void_p, POINTER(OptimizerOptions)]),
    "tsr_optimizer_set_options": (ST, [c_void_p, POINTER(OptimizerOptions)]),
    "tsr_optimizer_set_lr": (ST, [c_void_p, c_double]),
    "tsr_optimizer_num_params": (I32, [c_void_p]),
    "tsr_optimizer_param": (ST, [c_void_p, I32, OUT]),
    "tsr_optimizer_get_state": (ST, [c_void_p, I32, c_char_p, OUT]),
    "tsr_optimizer_set_state": (ST, [c_void_p, I32, c_char_p, T]),
    "tsr_copy_": (ST, [T, T]),
    "tsr_fill_": (ST, [T, Scalar]),
    "tsr_broadcast_shapes": (ST, [I32, I64P, I32, I64P, POINTER(c_int32), I64P]),
    "tsr_promote_types": (I32, [I32, I32]),
    "tsr_read": (ST, [T, c_void_p, c_size_t]),
    "tsr_item": (ST, [T, POINTER(Scalar)]),
    "tsr_format": (ST, [T, POINTER(c_void_p)]),
    "tsr_format_layout": (ST, [T, POINTER(c_void_p)]),
    "tsr_get_finfo": (ST, [I32, POINTER(Finfo)]),
    "tsr_assert_close": (ST, [T, T, c_double, c_double, I32]),
    # tessera/distributed.h (ABI 1.5): tsr_comm* and tsr_work* as plain ints.
    "tsr_comm_world": (ST, [T, c_char_p, OUT]),
    "tsr_comm_split": (ST, [T, I32, I32, OUT]),
    "tsr_comm_rank": (I32, [T]),
    "tsr_comm_size": (I32, [T]),
    "tsr_comm_release": (None, [T]),
    "tsr_all_reduce": (ST, [T, T, I32, c_void_p, OUT]),
    "tsr_broadcast": (ST, [T, T, I32, c_void_p, OUT]),
    "tsr_comm_reduce": (ST, [T, T, I32, I32, c_void_p, OUT]),
    "tsr_all_gather": (ST, [T, T, T, c_void_p, OUT]),
    "tsr_reduce_scatter": (ST, [T, T, T, I32, c_void_p, OUT]),
    "tsr_all_to_all": (ST, [T, T, T, c_void_p, OUT]),
    "tsr_send": (ST, [T, T, I32, I32, c_void_p, OUT]),
    "tsr_recv": (ST, [T, T, I32, I32, c_void_p, OUT]),
    "tsr_barrier": (ST, [T, c_void_p, OUT]),
    "tsr_work_wait": (ST, [T]),
    "tsr_work_test": (ST, [T, POINTER(c_int32)]),
    "tsr_work_release": (None, [T]),
}

# tessera/safetensors.h (ABI 1.10): weights on disk. ST_FILE is a tsr_safetensors*.
ST_FILE = c_void_p
STRS = POINTER(c_char_p)
_SIGNATURES.update({
    "tsr_safetensors_save": (ST, [c_char_p, c_int64, STRS, POINTER(c_void_p), c_int64, STRS, STRS]),
    "tsr_safetensors_open": (ST, [T, c_char_p, OUT]),
    "tsr_safetensors_open_memory": (ST, [T, c_char_p, c_size_t, c_char_p, OUT]),
    "tsr_safetensors_free": (None, [ST_FILE]),
    "tsr_safetensors_count": (c_int64, [ST_FILE]),
    "tsr_safetensors_name_at": (c_char_p, [ST_FILE, c_int64]),
    "tsr_safetensors_find": (c_int64, [ST_FILE, c_char_p]),
    "tsr_safetensors_info": (ST, [ST_FILE, c_int64, POINTER(c_int32), POINTER(c_int32), I64P]),
    "tsr_safetensors_get": (ST, [ST_FILE, c_char_p, Device, OUT]),
    "tsr_safetensors_metadata_count": (c_int64, [ST_FILE]),
    "tsr_safetensors_metadata_key_at": (c_char_p, [ST_FILE, c_int64]),
    "tsr_safetensors_metadata_get": (c_char_p, [ST_FILE, c_char_p]),
})


# Constant-time calls on handles: they never block, run kernels or call back
# into Python (tsr_tensor_release may run a from_numpy deleter, which takes
# the GIL it already holds: fine).
_QUICK = {
    "tsr_last_error_message", "tsr_last_error_status", "tsr_status_name", "tsr_abi_version",
    "tsr_op_count", "tsr_op_get_name",
    "tsr_tensor_retain", "tsr_tensor_release", "tsr_tensor_ndim", "tsr_tensor_shape", "tsr_tensor_strides",
    "tsr_tensor_storage_offset", "tsr_tensor_dtype", "tsr_tensor_device", "tsr_tensor_numel",
    "tsr_tensor_element_size", "tsr_tensor_is_contiguous", "tsr_tensor_storage_data",
    "tsr_tensor_storage_nbytes", "tsr_tensor_describe", "tsr_promote_types", "tsr_view", "tsr_transpose",
    "tsr_real", "tsr_imag",
    "tsr_t", "tsr_permute", "tsr_slice", "tsr_select", "tsr_unsqueeze", "tsr_squeeze", "tsr_squeeze_all",
    "tsr_expand", "tsr_flatten", "tsr_as_strided", "tsr_diagonal", "tsr_device_is_host_accessible",
    "tsr_is_grad_enabled", "tsr_set_grad_enabled", "tsr_tensor_requires_grad", "tsr_tensor_set_requires_grad",
    "tsr_tensor_is_leaf", "tsr_tensor_grad", "tsr_tensor_set_grad", "tsr_tensor_retains_grad",
    "tsr_tensor_grad_fn_name", "tsr_tensor_version", "tsr_detach", "tsr_detach_",
}


class _Functions:
    """The C functions by their name without the tsr_ prefix (C.binary, C.slice, ...)."""


C = _Functions()
for _name, (_restype, _argtypes) in _SIGNATURES.items():
    _fn = getattr(quick_lib if _name in _QUICK else lib, _name)
    _fn.restype = _restype
    _fn.argtypes = _argtypes
    setattr(C, _name[4:], _fn)
del _name, _restype, _argtypes, _fn

# The C API's ops (tessera/ops.h's TSR_OP_LIST), name to number, as the
# library knows them.
OP = {C.op_get_name(i).decode(): i for i in range(C.op_count())}

# ---- errors ---------------------------------------------------------------------

OK, ERR_INVALID_ARGUMENT, ERR_INDEX, ERR_SHAPE, ERR_TYPE = 0, 1, 2, 3, 4
ERR_LINALG = 13


class LinAlgError(RuntimeError):
    """A matrix its factorisation cannot take (TSR_ERR_LINALG: singular, not
    positive-definite, no convergence), as torch.linalg.LinAlgError."""


# What PyTorch raises for each kind of failure; a call that differs (finfo
# raises TypeError for TSR_ERR_TYPE) passes its own mapping.
_EXCEPTIONS = {ERR_INDEX: IndexError, ERR_LINALG: LinAlgError}


def error(status, overrides=None):
    """The Python exception for a failed call, carrying the C message."""
    message = C.last_error_message()
    message = message.decode("utf-8", "replace") if message else C.status_name(status).decode()
    cls = None
    if overrides:
        cls = overrides.get(status)
    if cls is None:
        cls = _EXCEPTIONS.get(status, RuntimeError)
    return cls(message)


def check(status, overrides=None):
    if status:
        raise error(status, overrides)


def take_string(ptr):
    """A char* the C API gave us (freed with tsr_string_free) as str."""
    try:
        return ctypes.string_at(ptr).decode("utf-8", "replace")
    finally:
        C.string_free(ptr)


# ---- the runtime ----------------------------------------------------------------

_runtime = None  # the tsr_runtime* as an int, created on first use
_default_device = None  # its default tsr_device
_default_available = False  # whether that device can run (tsr_runtime_default_device)
_lock = threading.Lock()


def runtime():
    """The process's runtime (its address), created on first use by the
    extension ($TESSERA_CONFIG, else the default config beside the library)."""
    global _runtime, _default_device, _default_available
    if _runtime is not None:
        return _runtime
    with _lock:
        if _runtime is None:
            rt = _C.runtime()
            type_code, index, available = _C.default_device()
            _default_device = Device(type_code, index)
            _default_available = available
            _runtime = rt
            atexit.register(_shutdown)
    return _runtime


def default_device():
    if _runtime is None:
        runtime()
    return _default_device


def _shutdown():
    """At exit: destroy the runtime when no tensor is left. Tensors still
    referenced (module globals) keep it alive; tsr_runtime_destroy then
    refuses, and we stop releasing handles so that nothing calls into
    plugins or deleters while the interpreter tears down."""
    import gc
    gc.collect()
    rt = _runtime
    if rt is None:
        return
    # tsr_runtime_destroy refuses (safely) while tensors are alive.
    _C.runtime_destroy()
    # Either way later releases must not run: a destroyed runtime has no
    # plugins, a kept one may call back into a finalizing interpreter
    # through external deleters. The process is ending; the OS frees it all.
    _C.stop_releasing()
