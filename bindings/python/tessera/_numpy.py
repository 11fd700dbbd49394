# SPDX-License-Identifier: Apache-2.0
"""NumPy both ways without copies: from_numpy() wraps an array's memory,
Tensor.numpy() wraps a CPU tensor's storage.

Ownership: from_numpy hands the array to tsr_from_external with a deleter;
the array is kept in _owners until the C side frees the storage (its last
view goes), which runs the deleter exactly once. numpy() gives an array whose
base is a small holder object referencing the Tensor, so the storage lives
as long as the array does.
"""
import itertools
from ctypes import c_void_p

from ._lib import C, DELETER_FN, Device, error, runtime
from ._tensor import _call, i64_array, late, wrap
from ._types import DTYPES, as_device, device_of

# NumPy dtype name -> tessera dtype code (no bfloat16 in NumPy).
_FROM_NUMPY = {"float32": 0, "float64": 1, "float16": 2, "int8": 4, "uint8": 5, "int16": 6, "int32": 7,
               "int64": 8, "bool": 9, "uint16": 10, "uint32": 11, "uint64": 12, "complex64": 13, "complex128": 14}
# tessera dtype code -> the array interface's typestr (little-endian host).
_TYPESTR = {0: "<f4", 1: "<f8", 2: "<f2", 4: "|i1", 5: "|u1", 6: "<i2", 7: "<i4", 8: "<i8", 9: "|b1", 10: "<u2",
            11: "<u4", 12: "<u8", 13: "<c8", 14: "<c16"}

_UNSUPPORTED = ("can't convert np.ndarray of type numpy.%s. The only supported types are: float64, float32, "
                "float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, uint8, and bool.")
_NEGATIVE = ("At least one stride in the given numpy array is negative, and tensors with negative strides "
             "are not currently supported. (You can probably work around this by making a copy of your array "
             " with array.copy().) ")

_owners = {}  # deleter context -> the array whose memory a storage wraps
_keys = itertools.count(1)


@DELETER_FN
def _release_owner(ctx, data):
    # Runs when the storage's last view goes (any thread; ctypes takes the GIL).
    _owners.pop(ctx, None)


def numpy_dtype_to_tessera(np_dtype):
    code = _FROM_NUMPY.get(np_dtype.name)
    if code is None or not np_dtype.isnative:
        return None
    return DTYPES[code]


def from_numpy(a):
    """A tensor over the array's memory, keeping its dtype: writes on either
    side are seen by the other."""
    import numpy as np
    if not isinstance(a, np.ndarray):
        raise TypeError("expected np.ndarray (got %s)" % type(a).__name__)
    d = numpy_dtype_to_tessera(a.dtype)
    if d is None:
        raise TypeError(_UNSUPPORTED % a.dtype.name)
    item = a.itemsize
    strides = []
    for s in a.strides:
        if s < 0:
            raise ValueError(_NEGATIVE)
        if s % item:
            raise ValueError("given numpy array strides not a multiple of the element byte size. "
                             "Copy the numpy array to reallocate the memory.")
        strides.append(s // item)
    key = next(_keys)
    _owners[key] = a
    out = c_void_p()
    # From this call on the deleter owns the reference in _owners, also on failure.
    st = C.from_external(runtime(), a.__array_interface__["data"][0], a.ndim, i64_array(a.shape),
                         i64_array(strides), 0, d._code, Device(1, 0), _release_owner, key, out)
    if st:
        raise error(st)
    return wrap(out.value)


def from_numpy_copy(a, dtype, device):
    """tensor(ndarray): a copy, keeping NumPy's dtype unless one is given."""
    import numpy as np
    a = np.asarray(a)
    d = numpy_dtype_to_tessera(a.dtype)
    if d is None:
        if a.dtype.kind in "biufc" and not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
            d = numpy_dtype_to_tessera(a.dtype)
        if d is None:
            raise TypeError(_UNSUPPORTED % a.dtype.name)
    a = np.require(a, requirements="C")  # ascontiguousarray would make a 0-d array 1-d
    t = _call(C.from_host, runtime(), a.__array_interface__["data"][0] if a.size else None, a.ndim,
              i64_array(a.shape), d._code, as_device(device))
    return t if dtype is None or dtype is d else t.to(dtype)


class _Holder:
    """The base of an array made by Tensor.numpy(): keeps the tensor alive."""
    __slots__ = ("tensor", "__array_interface__")


def to_numpy(t, force=False):
    """The tensor's memory as an ndarray (shared, writable), for a device whose
    memory the host can address (the cpu, and plugin devices whose properties
    say host_accessible: tsr_device_is_host_accessible). Others refuse, or
    copy to the cpu when force is true."""
    import numpy as np
    h = t._h
    dev = C.tensor_device(h)
    if not C.device_is_host_accessible(runtime(), dev):
        if force:
            return to_numpy(t.to("cpu"))
        raise TypeError("can't convert %s device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
                        "to host memory first." % device_of(dev))
    code = C.tensor_dtype(h)
    typestr = _TYPESTR.get(code)
    if typestr is None:
        raise TypeError("Got unsupported ScalarType BFloat16")
    item = DTYPES[code].itemsize
    n = C.tensor_ndim(h)
    shape = tuple(C.tensor_shape(h)[:n])
    strides = tuple(s * item for s in C.tensor_strides(h)[:n])
    base = C.tensor_storage_data(h) or 0
    if not base:  # no storage memory (zero elements): nothing to share
        return np.empty(shape, dtype=typestr)
    holder = _Holder()
    holder.tensor = t
    holder.__array_interface__ = {
        "version": 3, "typestr": typestr, "shape": shape, "strides": strides,
        "data": (base + C.tensor_storage_offset(h) * item, False),
    }
    return np.asarray(holder)


late.to_numpy = to_numpy  # Note [Layers of the package]
