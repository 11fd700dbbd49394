# SPDX-License-Identifier: Apache-2.0
"""The Array API's creation functions: arange .. zeros_like."""
import builtins
import operator

from .. import _creation, _types
from .._tensor import Tensor
from . import _dtypes
from ._array_object import Array


def _device(device):
    """A device argument as a tessera device (None: the namespace's default)."""
    if device is None:
        return _dtypes.default_device()
    if isinstance(device, _types.device):
        return device
    if isinstance(device, str):
        return _types.device(device)
    raise ValueError("unknown device %r" % (device,))


def _dtype(dtype, default=None):
    if dtype is None:
        return default
    return _dtypes.check_dtype(dtype)


def _shape(shape):
    if isinstance(shape, (tuple, list)):
        return tuple(operator.index(s) for s in shape)
    return (operator.index(shape),)


def _infer(obj):
    """The dtype a Python scalar or nested sequence of them gets, and whether
    it holds an Array (then the elements are read from their tensors)."""
    kinds = set()

    def walk(o):
        if isinstance(o, Array):
            kinds.add(o.dtype)
            return
        if isinstance(o, (list, tuple)):
            for e in o:
                walk(e)
            return
        if isinstance(o, builtins.bool):
            kinds.add("bool")
        elif isinstance(o, builtins.int):
            kinds.add("int")
        elif isinstance(o, builtins.float):
            kinds.add("float")
        elif isinstance(o, builtins.complex):
            kinds.add("complex")
        elif type(o).__module__ == "numpy" and hasattr(o, "dtype"):
            kinds.add("numpy")
        else:
            raise TypeError("asarray: cannot make an array of %s" % type(o).__name__)
    walk(obj)
    dts = [k for k in kinds if not isinstance(k, str)]
    if "complex" in kinds or builtins.any(d in _dtypes.complex_floating_dtypes for d in dts):
        if not dts:
            return _dtypes.default_complex
        r = _widest(dts, _dtypes.default_complex)  # a float array beside Python complex numbers: its complex
        return _dtypes.COMPLEX_OF.get(r, r) if r in _dtypes.floating_dtypes else _dtypes.default_complex
    if "float" in kinds or builtins.any(d in _dtypes.floating_dtypes for d in dts):
        return _dtypes.default_float if not dts else _widest(dts, _dtypes.default_float)
    if "int" in kinds or builtins.any(d in _dtypes.integer_dtypes for d in dts):
        return _dtypes.default_int if not dts else _widest(dts, _dtypes.default_int)
    if "numpy" in kinds:
        return None
    return _dtypes.bool


def _widest(dts, default):
    r = dts[0]
    for d in dts[1:]:
        r = _dtypes.PROMOTION.get((r, d), default)
    return r


def _unwrap(obj):
    if isinstance(obj, Array):
        return obj._t
    if isinstance(obj, (list, tuple)):
        return [_unwrap(o) for o in obj]
    return obj


def _check_int_range(obj, dtype):
    if dtype in _dtypes.integer_dtypes:
        from ._array_object import iinfo_range
        lo, hi = iinfo_range(dtype)

        def walk(o):
            if isinstance(o, (list, tuple)):
                for e in o:
                    walk(e)
            elif isinstance(o, builtins.int) and not isinstance(o, builtins.bool) and not lo <= o <= hi:
                raise OverflowError("Python int %d is out of bounds for %s" % (o, _dtypes.name(dtype)))
        walk(obj)
    elif dtype is None:
        def walk64(o):
            if isinstance(o, (list, tuple)):
                for e in o:
                    walk64(e)
            elif isinstance(o, builtins.int) and not isinstance(o, builtins.bool) and \
                    not -2 ** 63 <= o < 2 ** 63:
                raise OverflowError("Python int %d does not fit the default integer dtype int64" % o)
        walk64(obj)


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """An array from an array, a Python scalar, a nested sequence of them,
    a NumPy array or an object with __dlpack__. copy=None copies only when
    needed; copy=False raises ValueError when a copy would be needed."""
    dtype = _dtype(dtype)
    if isinstance(obj, Array):
        t = obj._t
        want_dev = _device(device) if device is not None else t.device
        if (dtype is None or dtype is t.dtype) and want_dev == t.device:
            return Array._new(t.clone() if copy else t._alias())
        if dtype is not None:
            _dtypes.check_cast(t.dtype, dtype, "asarray")
        if copy is False:
            raise ValueError("asarray(copy=False): converting the array needs a copy")
        return Array._new(t.to(dtype=dtype or t.dtype, device=want_dev))
    if isinstance(obj, Tensor):  # its data, without its history: arrays do not record
        return asarray(Array._new(obj.detach()), dtype=dtype, device=device, copy=copy)
    if copy is False:
        raise ValueError("asarray(copy=False) is only possible for an existing array")
    if type(obj).__module__ == "numpy" and hasattr(obj, "dtype") and getattr(obj, "ndim", 0) > 0:
        t = _creation.tensor(obj, device=_device(device))
        if dtype is not None:
            _dtypes.check_cast(t.dtype, dtype, "asarray")
        return Array._new(t if dtype is None else t.to(dtype))
    if hasattr(obj, "__dlpack__") and not isinstance(obj, (list, tuple)):
        from .._dlpack import from_dlpack as _from_dlpack
        t = _from_dlpack(obj).clone()
        if dtype is not None:
            _dtypes.check_cast(t.dtype, dtype, "asarray")
        t = t.to(dtype=dtype or t.dtype, device=_device(device))
        return Array._new(t)
    if not isinstance(obj, (list, tuple, builtins.bool, builtins.int, builtins.float, builtins.complex)) and \
            type(obj).__module__ != "numpy":
        try:
            memoryview(obj)
        except TypeError:
            raise TypeError("asarray: cannot make an array of %s" % type(obj).__name__) from None
        import numpy
        return asarray(numpy.asarray(obj), dtype=dtype, device=device)
    inferred = _infer(obj)
    if dtype is not None and inferred is not None:
        _dtypes.check_cast(inferred, dtype, "asarray")
    _check_int_range(obj, dtype if dtype is not None else (None if inferred is _dtypes.default_int else inferred))
    target = dtype or inferred
    data = _unwrap(obj)
    if not isinstance(data, (list, tuple)):  # a scalar, as one element (tensor() takes int64 scalars only)
        return Array._new(_creation.tensor([data], dtype=target, device=_device(device)).reshape(()))
    return Array._new(_creation.tensor(data, dtype=target, device=_device(device)))


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    if stop is None:
        start, stop = 0, start
    floats = builtins.any(isinstance(v, builtins.float) for v in (start, stop, step))
    dtype = _dtype(dtype, _dtypes.default_float if floats else _dtypes.default_int)
    if step == 0:
        raise ValueError("arange: step must not be zero")
    import math
    n = builtins.max(0, math.ceil((stop - start) / step))
    if dtype in _dtypes.floating_dtypes or floats:
        # start + i * step, computed in float64 as the standard's count says.
        t = _creation.arange(0, n, 1, dtype=_dtypes.float64, device=_device(device)) * builtins.float(step) + \
            builtins.float(start)
        return Array._new(t.to(dtype))
    # start + i * step in 64 bits; unsigned in uint64, whose wrapping keeps a
    # negative step and a step from 2^63 on right modulo 2^64.
    work = _dtypes.uint64 if dtype in _dtypes._unsigned else _dtypes.int64
    t = _creation.arange(0, n, 1, dtype=work, device=_device(device)) * step + start \
        if n else _creation.empty(0, dtype=work, device=_device(device))
    return Array._new(t.to(dtype))


def empty(shape, *, dtype=None, device=None):
    return Array._new(_creation.empty(_shape(shape), dtype=_dtype(dtype, _dtypes.default_float),
                                      device=_device(device)))


def zeros(shape, *, dtype=None, device=None):
    return Array._new(_creation.zeros(_shape(shape), dtype=_dtype(dtype, _dtypes.default_float),
                                      device=_device(device)))


def ones(shape, *, dtype=None, device=None):
    return Array._new(_creation.ones(_shape(shape), dtype=_dtype(dtype, _dtypes.default_float),
                                     device=_device(device)))


def _fill_dtype(fill_value):
    if isinstance(fill_value, Array):
        return fill_value.dtype
    if isinstance(fill_value, builtins.bool):
        return _dtypes.bool
    if isinstance(fill_value, builtins.int):
        return _dtypes.default_int
    if isinstance(fill_value, builtins.float):
        return _dtypes.default_float
    if isinstance(fill_value, builtins.complex):
        return _dtypes.default_complex
    raise TypeError("full: fill_value must be a Python scalar, not %s" % type(fill_value).__name__)


def full(shape, fill_value, *, dtype=None, device=None):
    dtype = _dtype(dtype, _fill_dtype(fill_value))
    if isinstance(fill_value, Array):
        fill_value = fill_value._t.item()
    if dtype in _dtypes.integer_dtypes and isinstance(fill_value, builtins.int):
        _check_int_range(fill_value, dtype)
    if isinstance(fill_value, builtins.float) and dtype not in _dtypes.floating_dtypes:
        raise TypeError("full: a float fill_value needs a floating-point dtype, not %s" % _dtypes.name(dtype))
    if isinstance(fill_value, builtins.complex) and dtype not in _dtypes.complex_floating_dtypes:
        raise TypeError("full: a complex fill_value needs a complex floating-point dtype, not %s" %
                        _dtypes.name(dtype))
    wide = {_dtypes.float32: _dtypes.float64, _dtypes.complex64: _dtypes.complex128}.get(dtype)
    if isinstance(fill_value, (builtins.float, builtins.complex)) and wide is not None:  # rounds, as scalar_array
        return Array._new(_creation.full(_shape(shape), fill_value, dtype=wide, device=_device(device)).to(dtype))
    return Array._new(_creation.full(_shape(shape), fill_value, dtype=dtype, device=_device(device)))


def _like_device(x, device):
    return x.device if device is None else _device(device)


def empty_like(x, /, *, dtype=None, device=None):
    return empty(x.shape, dtype=dtype or x.dtype, device=_like_device(x, device))


def zeros_like(x, /, *, dtype=None, device=None):
    return zeros(x.shape, dtype=dtype or x.dtype, device=_like_device(x, device))


def ones_like(x, /, *, dtype=None, device=None):
    return ones(x.shape, dtype=dtype or x.dtype, device=_like_device(x, device))


def full_like(x, /, fill_value, *, dtype=None, device=None):
    return full(x.shape, fill_value, dtype=dtype or x.dtype, device=_like_device(x, device))


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    from .._functions import eye as _eye
    return Array._new(_eye(n_rows, n_cols, k=k, dtype=_dtype(dtype, _dtypes.default_float),
                           device=_device(device)))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """Complex start or stop (2022.12): the real and the imaginary parts
    spaced alike, in the default complex dtype unless dtype says."""
    if isinstance(start, builtins.complex) or isinstance(stop, builtins.complex):
        dtype = _dtype(dtype, _dtypes.default_complex)
        if dtype not in _dtypes.complex_floating_dtypes:
            raise TypeError("linspace: complex start or stop needs a complex dtype, not %s" % _dtypes.name(dtype))
        start, stop = builtins.complex(start), builtins.complex(stop)
        parts = [linspace(a, b, num, dtype=_dtypes.float64, device=device, endpoint=endpoint)._t
                 for a, b in ((start.real, stop.real), (start.imag, stop.imag))]
        out = _creation.empty(tuple(parts[0].shape), dtype=_dtypes.complex128, device=parts[0].device)
        out.real.copy_(parts[0])
        out.imag.copy_(parts[1])
        return Array._new(out if dtype is _dtypes.complex128 else out.to(dtype))
    dtype = _dtype(dtype, _dtypes.default_float)
    num = operator.index(num)
    if num < 0:
        raise ValueError("linspace: num must be >= 0, got %d" % num)
    dev = _device(device)
    if endpoint:
        if num == 1:
            t = _creation.full((1,), builtins.float(start), dtype=_dtypes.float64, device=dev)
        else:
            t = _creation.linspace(start, stop, num, dtype=_dtypes.float64, device=dev)
    else:
        t = _creation.linspace(start, stop, num + 1, dtype=_dtypes.float64, device=dev)[:num]
    return Array._new(t.to(dtype))


def meshgrid(*arrays, indexing="xy"):
    if indexing not in ("xy", "ij"):
        raise ValueError("meshgrid: indexing must be 'xy' or 'ij', not %r" % (indexing,))
    if not arrays:
        return ()
    dtypes = {a.dtype for a in arrays}
    if len(dtypes) > 1:
        raise ValueError("meshgrid: the arrays must share one dtype")
    sizes = [a.size for a in arrays]
    n = len(arrays)
    if indexing == "xy" and n >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for i, a in enumerate(arrays):
        pos = i
        if indexing == "xy" and n >= 2 and i < 2:
            pos = 1 - i
        view = [1] * n
        view[pos] = a.size
        out.append(Array._new(a._t.reshape(view).expand(sizes).contiguous()))
    return tuple(out)  # 2025.12: a tuple (a list before; _versions.py gives older versions theirs)


def tril(x, /, *, k=0):
    from .._functions import tril as _tril
    if x.ndim < 2:
        raise ValueError("tril needs an array of at least 2 dims")
    return Array._new(_tril(x._t, k))


def triu(x, /, *, k=0):
    from .._functions import triu as _triu
    if x.ndim < 2:
        raise ValueError("triu needs an array of at least 2 dims")
    return Array._new(_triu(x._t, k))


def from_dlpack(x, /, *, device=None, copy=None):
    """The producer's memory, shared; device and copy are 2023.12's: another
    device, or copy=True, copy it (copy=False then refuses with BufferError).
    A versioned capsule is asked for first (Note [DLPack versions] in
    tessera/_dlpack.py)."""
    from .._dlpack import from_dlpack as _from_dlpack
    return Array._new(_from_dlpack(x._t if isinstance(x, Array) else x,
                                   device=None if device is None else _device(device), copy=copy))
