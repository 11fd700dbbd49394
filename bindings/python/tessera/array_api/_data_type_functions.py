# SPDX-License-Identifier: Apache-2.0
"""The Array API's data type functions: astype .. result_type, isdtype."""
from dataclasses import dataclass

from .. import _types
from . import _dtypes
from ._array_object import Array, iinfo_range


def astype(x, dtype, /, *, copy=True, device=None):
    """x in dtype, on `device` (2023.12; None: x's). A complex array casts to
    complex dtypes and to bool (nonzero), not to a real number dtype
    (_dtypes.check_cast)."""
    dtype = _dtypes.check_dtype(dtype)
    _dtypes.check_cast(x.dtype, dtype, "astype")
    if device is not None and device != x.device:
        x = x.to_device(device)
        copy = False  # the move made a new array
    if dtype is x.dtype:
        return Array._new(x._t.clone()) if copy else x
    return Array._new(x._t.to(dtype))


def broadcast_arrays(*arrays):
    from .._functions import broadcast_shapes
    shape = tuple(broadcast_shapes(*[a.shape for a in arrays]))
    return tuple(Array._new(a._t.expand(shape)) for a in arrays)  # 2025.12: a tuple


def broadcast_to(x, /, shape):
    from .._functions import broadcast_shapes
    shape = tuple(shape)
    try:
        if tuple(broadcast_shapes(x.shape, shape)) != shape:
            raise RuntimeError
    except RuntimeError:
        raise ValueError("broadcast_to: shape %s cannot be broadcast to %s" % (x.shape, shape)) from None
    return Array._new(x._t.expand(shape))


def can_cast(from_, to, /):
    if isinstance(from_, Array):
        from_ = from_.dtype
    from_ = _dtypes.check_dtype(from_, "can_cast's from_")
    to = _dtypes.check_dtype(to, "can_cast's to")
    return _dtypes.PROMOTION.get((from_, to)) is to


@dataclass
class finfo_object:
    bits: int
    eps: float
    max: float
    min: float
    smallest_normal: float
    dtype: object


@dataclass
class iinfo_object:
    bits: int
    max: int
    min: int
    dtype: object


def finfo(type, /):  # noqa: A002
    """Of a complex dtype, its parts' (2022.12: bits 32 and dtype float32 for
    complex64)."""
    if isinstance(type, Array):
        type = type.dtype
    if type not in _dtypes.floating_dtypes:
        raise TypeError("finfo needs a floating-point dtype, not %r" % (type,))
    part = _dtypes.REAL_OF.get(type, type)
    f = _types.finfo(part)
    return finfo_object(f.bits, float(f.eps), float(f.max), float(f.min), float(f.tiny), part)


def iinfo(type, /):  # noqa: A002
    if isinstance(type, Array):
        type = type.dtype
    if type not in _dtypes.integer_dtypes:
        raise TypeError("iinfo needs an integer dtype, not %r" % (type,))
    lo, hi = iinfo_range(type)
    return iinfo_object(type.itemsize * 8, hi, lo, type)


def result_type(*arrays_and_dtypes):
    """The promoted dtype of the arrays and dtypes; Python scalars (2024.12)
    take it, as beside an array (Note [Array API promotion])."""
    ds, scalars = [], []
    for a in arrays_and_dtypes:
        if type(a) in (bool, int, float, complex):
            scalars.append(a)
            continue
        d = a.dtype if isinstance(a, Array) else a
        ds.append(_dtypes.check_dtype(d))
    if not ds:
        raise ValueError("result_type needs at least one array or dtype")
    r = ds[0]
    for d in ds[1:]:
        r = _dtypes.promote(r, d)
    for v in scalars:
        ok = (r is _dtypes.bool) if type(v) is bool else (
            r is not _dtypes.bool and (type(v) is int or r in _dtypes.floating_dtypes) and
            (type(v) is not complex or r in _dtypes.complex_floating_dtypes))
        if not ok:
            raise TypeError("result_type: a Python %s cannot go beside %s" % (type(v).__name__, _dtypes.name(r)))
    return r


_KINDS = {
    "bool": _dtypes.boolean_dtypes,
    "signed integer": _dtypes._signed,
    "unsigned integer": _dtypes._unsigned,
    "integral": _dtypes.integer_dtypes,
    "real floating": _dtypes.real_floating_dtypes,
    "complex floating": _dtypes.complex_floating_dtypes,
    "numeric": _dtypes.numeric_dtypes,
}


def isdtype(dtype, kind):
    """The 2022.12 standard's isdtype: whether dtype is kind (a dtype, one of
    the kind names, or a tuple of them)."""
    dtype = _dtypes.check_dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KINDS:
            raise ValueError("isdtype: unknown kind %r" % kind)
        return dtype in _KINDS[kind]
    if kind in _dtypes.all_dtypes:
        return dtype is kind
    raise TypeError("isdtype: kind must be a dtype, a str or a tuple of them, not %r" % (kind,))
