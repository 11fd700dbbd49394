# SPDX-License-Identifier: Apache-2.0
"""NumPy both ways without copies: from_numpy() wraps an array's memory,
Tensor.numpy() wraps a CPU tensor's storage.

Ownership: from_numpy hands the array, in a small _Owner, to
tsr_from_external (_C.from_external), whose deleter drops it when the C side
frees the storage (its last view goes), exactly once (Note [Owners of
external memory] in src/api_interop.c). _owners names the owners alive,
weakly, for inspection. numpy() gives an array whose base is a small holder
object referencing the Tensor, so the storage lives as long as the array
does.
"""
import itertools
import weakref

from . import _C
from ._tensor import late
from ._types import DTYPES, device, device_arg

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

_owners = weakref.WeakValueDictionary()  # key -> the _Owner of an array whose memory a storage wraps
_keys = itertools.count(1)
_CPU = device("cpu")


class _Owner:
    """What a storage over an array's memory holds: the array."""
    __slots__ = ("array", "__weakref__")

    def __init__(self, array):
        self.array = array


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
    owner = _Owner(a)
    # The storage holds the owner from this call on (also on failure: the deleter has then run).
    t = _C.from_external(a.__array_interface__["data"][0], a.shape, strides, 0, d, _CPU, owner)
    _owners[next(_keys)] = owner
    return t


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
    a = np.require(a, requirements="C")  # ascontiguousarray would make a 0-d array 1-d; from_host reads its buffer
    t = _C.from_host(a, a.shape, d, device_arg(device))
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
    dev = t.device
    if not _C.device_is_host_accessible(dev):
        if force:
            return to_numpy(t.to("cpu"))
        raise TypeError("can't convert %s device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
                        "to host memory first." % dev)
    base, offset, dt, _, shape, strides = _C.tensor_describe(t)
    typestr = _TYPESTR.get(dt._code)
    if typestr is None:
        raise TypeError("Got unsupported ScalarType BFloat16")
    item = dt.itemsize
    strides = tuple(s * item for s in strides)
    if not base:  # no storage memory (zero elements): nothing to share
        return np.empty(shape, dtype=typestr)
    holder = _Holder()
    holder.tensor = t
    holder.__array_interface__ = {
        "version": 3, "typestr": typestr, "shape": shape, "strides": strides,
        "data": (base + offset * item, False),
    }
    return np.asarray(holder)


late.to_numpy = to_numpy  # Note [Layers of the package]
