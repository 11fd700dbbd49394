# SPDX-License-Identifier: Apache-2.0
"""DLPack both ways: Tensor.__dlpack__ / __dlpack_device__ and from_dlpack().

Note [DLPack ownership]
  Export: a DLManagedTensor built with ctypes, its shape and strides arrays
  beside it in one block, and the exported Tensor, are kept in _exports
  under the manager_ctx key until the consumer calls the deleter (after
  renaming the capsule "used_dltensor"), or until the capsule is collected
  unconsumed (its destructor then calls the deleter). The Tensor holds the
  storage alive.
  Import: the capsule is renamed "used_dltensor" (we own the managed tensor
  from then on) and its memory is wrapped by tsr_from_external, whose
  deleter calls the producer's deleter once the storage's last view goes.
  DLPack counts strides in elements, as tessera does.

Note [DLPack devices]
  DLPack's device types are a fixed list (kDLCPU 1, kDLCUDA 2, ..., kDLExt 12
  for "anything else"); tessera's cpu (1) and cuda (2) share those numbers,
  while a plugin's own device type gets a number >= TSR_DEVICE_DYNAMIC_BASE
  (64) at load time, which means nothing to DLPack. So:
    - the cpu, and any device whose memory the host can address
      (tsr_device_is_host_accessible): kDLCPU, device_id 0; its data pointer
      is a host address any CPU consumer (NumPy, PyTorch) may read;
    - cuda: kDLCUDA with the device's index;
    - any other plugin device: kDLExt with its index. __dlpack__ refuses
      such a tensor (no consumer could address its memory), and
      from_dlpack accepts kDLCPU and kDLCUDA only.

Note [DLPack streams]
  A CUDA tensor's memory may still be written by queued kernels: the
  producer's, when we import, and ours (on the plugin's own non-blocking
  stream, which the consumer's stream is not ordered with), when we export.
  Both directions wait for the device (tsr_synchronize, cudaDeviceSynchronize:
  every stream's queued work) before the memory changes hands, unless the
  consumer passes stream=-1 ("no synchronisation"). That costs a device
  synchronisation per exchange, and never hands over half-written data.
"""
import ctypes
import itertools
from ctypes import (POINTER, Structure, c_char_p, c_int32, c_int64, c_uint8, c_uint16, c_uint64,
                    c_void_p, py_object)

from ._lib import C, DELETER_FN, Device, error, runtime
from ._tensor import Tensor, i64_array, late, wrap
from ._types import DTYPES


class DLDevice(Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(Structure):
    _fields_ = [("data", c_void_p), ("device", DLDevice), ("ndim", c_int32), ("dtype", DLDataType),
                ("shape", POINTER(c_int64)), ("strides", POINTER(c_int64)), ("byte_offset", c_uint64)]


class DLManagedTensor(Structure):
    pass


DL_DELETER = ctypes.CFUNCTYPE(None, c_void_p)  # void (*)(DLManagedTensor*)
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", DL_DELETER)]

# DLDeviceType (Note [DLPack devices])
kDLCPU, kDLCUDA, kDLExt = 1, 2, 12
_TSR_DEVICE_CPU, _TSR_DEVICE_CUDA = 1, 2  # tessera/device.h

# DLDataTypeCode
_kDLInt, _kDLUInt, _kDLFloat, _kDLBfloat, _kDLComplex, _kDLBool = 0, 1, 2, 4, 5, 6
# tessera dtype code -> (DLPack code, bits)
_TO_DL = {0: (_kDLFloat, 32), 1: (_kDLFloat, 64), 2: (_kDLFloat, 16), 3: (_kDLBfloat, 16), 4: (_kDLInt, 8),
          5: (_kDLUInt, 8), 6: (_kDLInt, 16), 7: (_kDLInt, 32), 8: (_kDLInt, 64), 10: (_kDLUInt, 16),
          11: (_kDLUInt, 32), 12: (_kDLUInt, 64), 13: (_kDLComplex, 64), 14: (_kDLComplex, 128)}
_FROM_DL = {v: k for k, v in _TO_DL.items()}
_FROM_DL[(_kDLBool, 8)] = 9  # DLPack >= 0.8 spells bool this way

_USED = b"used_dltensor"
_NAME = b"dltensor"

# The CPython capsule functions; PyDLL keeps the GIL held during each call.
_api = ctypes.pythonapi
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, c_void_p)  # called with the capsule's PyObject*
_api.PyCapsule_New.restype = py_object
_api.PyCapsule_New.argtypes = [c_void_p, c_char_p, _CAPSULE_DESTRUCTOR]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [py_object, c_char_p]
_api.PyCapsule_GetPointer.restype = c_void_p
_api.PyCapsule_GetPointer.argtypes = [py_object, c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [py_object, c_char_p]
# The destructor sees a dying object: take it as a raw pointer, never as py_object.
_is_valid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, c_void_p, c_char_p)(("PyCapsule_IsValid", _api))
_get_pointer_raw = ctypes.PYFUNCTYPE(c_void_p, c_void_p, c_char_p)(("PyCapsule_GetPointer", _api))

# ---- export ------------------------------------------------------------------------

_exports = {}  # manager_ctx -> (block, tensor): alive until the deleter runs
_keys = itertools.count(1)


@DL_DELETER
def _export_deleter(managed):
    m = DLManagedTensor.from_address(managed)
    _exports.pop(m.manager_ctx, None)


# A consumer that refuses a capsule (NumPy 1.24 for CUDA memory) drops it
# with its own exception still set, and a ctypes callback cannot run with an
# exception set: its first call fails, and the export (a tensor, device
# memory) was never freed. So the destructor takes the exception off first,
# with nothing allocated before (the refs below are made once), and drops
# it: a Python callback cannot hand it back (ctypes reports and clears what
# a callback leaves set). NumPy 1.24 then raises SystemError for its refusal,
# as it does for any producer whose capsule destructor is Python code.
_err_fetch = ctypes.pythonapi.PyErr_Fetch
_err_fetch.argtypes = None  # no conversion: the byref objects pass without running Python code
_err_fetch.restype = None
_decref = ctypes.pythonapi.Py_DecRef
_decref.argtypes = [c_void_p]
_decref.restype = None
_pending = (c_void_p(), c_void_p(), c_void_p())
_pending_refs = tuple(ctypes.byref(v) for v in _pending)


@_CAPSULE_DESTRUCTOR
def _capsule_destructor(capsule):
    # A capsule never consumed still names "dltensor": free what it holds.
    _err_fetch(*_pending_refs)
    dropped = [v.value for v in _pending if v.value]
    if _is_valid_raw(capsule, _NAME):
        p = _get_pointer_raw(capsule, _NAME)
        if p:
            _export_deleter(p)
    for obj in dropped:
        _decref(obj)


def _block_type(ndim):
    class Block(Structure):
        _fields_ = [("managed", DLManagedTensor), ("shape", c_int64 * max(ndim, 1)),
                    ("strides", c_int64 * max(ndim, 1))]
    return Block


_BLOCKS = {}


def dlpack_device(dev):
    """(DLPack device type, device id) for a tsr_device (Note [DLPack devices])."""
    if dev.type == _TSR_DEVICE_CPU or C.device_is_host_accessible(runtime(), dev):
        return (kDLCPU, 0)
    if dev.type == _TSR_DEVICE_CUDA:
        return (kDLCUDA, dev.index)
    return (kDLExt, dev.index)


class _UnsupportedBool(BufferError, RuntimeError):
    """PyTorch raises RuntimeError here; the Array API asks BufferError."""


def to_dlpack(t, stream=None):
    """A "dltensor" capsule over t's memory (no copy)."""
    h = t._h
    code = C.tensor_dtype(h)
    if code == 9:
        # DLPack before 0.8, which PyTorch 1.13 and NumPy 1.24 speak, has no
        # bool (kDLBool is 0.8's, which NumPy 1.24 cannot import: it fails
        # with the capsule in hand); said as PyTorch says it, and as the
        # Array API asks (BufferError).
        raise _UnsupportedBool("Bool type is not supported by dlpack")
    dev = C.tensor_device(h)
    dl_type, dl_id = dlpack_device(dev)
    if dl_type == kDLExt:
        # A plugin's own device whose memory the host cannot address (such as
        # "arena"): no consumer could read it.
        raise BufferError(f"a tensor on {t.device} cannot be shared through DLPack: its memory is not "
                          "host-accessible and DLPack has no device type for it but kDLExt; copy it with "
                          ".cpu() first")
    if dev.type != 1 and stream != -1:
        st = C.synchronize(runtime(), dev)  # Note [DLPack streams]
        if st:
            raise error(st)
    n = C.tensor_ndim(h)
    Block = _BLOCKS.get(n)
    if Block is None:
        Block = _BLOCKS[n] = _block_type(n)
    block = Block()
    item = DTYPES[code].itemsize
    shape, strides = C.tensor_shape(h), C.tensor_strides(h)
    for i in range(n):
        block.shape[i] = shape[i]
        block.strides[i] = strides[i]
    m = block.managed
    dl = m.dl_tensor
    base = C.tensor_storage_data(h) or 0
    # The data pointer includes the offset (byte_offset 0), as PyTorch exports.
    dl.data = base + C.tensor_storage_offset(h) * item if base else None
    dl.device = DLDevice(dl_type, dl_id)
    dl.ndim = n
    dl.dtype = DLDataType(_TO_DL[code][0], _TO_DL[code][1], 1)
    dl.shape = ctypes.cast(block.shape, POINTER(c_int64))
    dl.strides = ctypes.cast(block.strides, POINTER(c_int64))
    dl.byte_offset = 0
    key = next(_keys)
    m.manager_ctx = key
    m.deleter = _export_deleter
    _exports[key] = (block, t)
    return _api.PyCapsule_New(ctypes.addressof(m), _NAME, _capsule_destructor)


# ---- import ------------------------------------------------------------------------

_imports = {}  # deleter context -> DLManagedTensor address (ours since the rename)
_import_keys = itertools.count(1)


@DELETER_FN
def _import_deleter(ctx, data):
    managed = _imports.pop(ctx, None)
    if managed:
        m = DLManagedTensor.from_address(managed)
        if m.deleter:
            m.deleter(managed)


def _check_import_device(dl_type):
    """Refuses, before the capsule changes hands, a DLPack device tessera has
    no device for (Note [DLPack devices])."""
    if dl_type not in (kDLCPU, kDLCUDA):
        raise BufferError("from_dlpack: DLPack device type %d is not supported: tessera imports kDLCPU (1) "
                          "and kDLCUDA (2) memory" % dl_type)


def from_dlpack(ext):
    """A tensor sharing the memory of any DLPack producer (an object with
    __dlpack__, or a legacy "dltensor" capsule)."""
    if hasattr(ext, "__dlpack__"):
        if isinstance(ext, Tensor):
            return ext._alias()
        dev_type, _ = ext.__dlpack_device__()
        _check_import_device(dev_type)
        capsule = ext.__dlpack__(stream=None) if dev_type != kDLCUDA else ext.__dlpack__(stream=1)
    else:
        capsule = ext
    if type(capsule).__name__ != "PyCapsule" or not _api.PyCapsule_IsValid(capsule, _NAME):
        raise RuntimeError("from_dlpack: expected an object with __dlpack__ or an unused \"dltensor\" capsule")
    managed = _api.PyCapsule_GetPointer(capsule, _NAME)
    dl = DLManagedTensor.from_address(managed).dl_tensor
    _check_import_device(dl.device.device_type)
    key_dt = (dl.dtype.code, dl.dtype.bits)
    code = _FROM_DL.get(key_dt)
    if code is None or dl.dtype.lanes != 1:
        raise RuntimeError("Unsupported DLPack dtype (code %d, bits %d, lanes %d)" %
                           (dl.dtype.code, dl.dtype.bits, dl.dtype.lanes))
    n = dl.ndim
    shape = [dl.shape[i] for i in range(n)]
    if dl.strides:
        strides = [dl.strides[i] for i in range(n)]
    else:
        strides = None  # row-major
    item = DTYPES[code].itemsize
    data = (dl.data or 0) + dl.byte_offset
    if dl.device.device_type == kDLCPU:
        device = Device(_TSR_DEVICE_CPU, 0)
    else:
        device = Device(_TSR_DEVICE_CUDA, dl.device.device_id)
    if device.type != _TSR_DEVICE_CPU:
        st = C.synchronize(runtime(), device)  # Note [DLPack streams]
        if st:
            raise error(st)
    # From here on the managed tensor is ours: the producer must not free it.
    _api.PyCapsule_SetName(capsule, _USED)
    key = next(_import_keys)
    _imports[key] = managed
    offset = 0
    if data % item:
        # Not aligned to the element: keep the base aligned, express the rest as an offset.
        _import_deleter(key, None)
        raise RuntimeError("from_dlpack: data address is not aligned to the element size")
    out = c_void_p()
    st = C.from_external(runtime(), data or None, n, i64_array(shape),
                         None if strides is None else i64_array(strides), offset, code, device,
                         _import_deleter, key, out)
    if st:
        raise error(st)  # the deleter already ran (tsr_from_external's contract)
    return wrap(out.value)


late.to_dlpack, late.dlpack_device = to_dlpack, dlpack_device  # Note [Layers of the package]
