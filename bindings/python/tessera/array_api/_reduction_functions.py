# SPDX-License-Identifier: Apache-2.0
"""The Array API's functions that reduce, search, sort or deduplicate:
statistical (max, mean, min, prod, std, sum, var), utility (all, any),
searching (argmax, argmin, nonzero, where), sorting (argsort, sort) and
sets (unique_all, unique_counts, unique_inverse, unique_values)."""
import operator
from collections import namedtuple

from .. import _C, _lib
from . import _dtypes
from ._array_object import Array, _check_category, operands

_SUM, _MAX, _MIN, _PROD = _lib.OP["sum"], _lib.OP["max"], _lib.OP["min"], _lib.OP["prod"]


def _dims(x, axis):
    """None for every dim, else the list of dims (each in range, none twice)."""
    if axis is None:
        return None
    axes = axis if isinstance(axis, tuple) else (axis,)
    n = x.ndim
    dims = []
    for a in axes:
        a = operator.index(a)
        if not -n <= a < (n if n else 1):
            raise IndexError("axis %d is out of range for an array of %d dims" % (a, n))
        dims.append(a % n if n else 0)
    if len(set(dims)) != len(dims):
        raise ValueError("an axis is given twice: %r" % (axis,))
    return dims


def _reduce(x, op, axis, keepdims):
    dims = _dims(x, axis)
    t = x._t if isinstance(x, Array) else x
    if dims == [] or (dims is None and t.dim() == 0 and op in (_MAX, _MIN)):
        return t.clone()
    return t._reduce(op, dims, keepdims)


def _sum_dtype(x, dtype):
    """sum's, prod's and trace's dtype (2022.12): the given one, else the
    default integer, unsigned, float or complex dtype of x's kind (complex64
    sums in complex128)."""
    if dtype is not None:
        dtype = _dtypes.check_dtype(dtype)
        _dtypes.check_cast(x.dtype, dtype, "the dtype argument")
        return dtype
    if x.dtype in _dtypes._signed:
        return _dtypes.default_int
    if x.dtype in _dtypes._unsigned:
        return _dtypes.default_uint
    if x.dtype in _dtypes.complex_floating_dtypes:
        return _dtypes.default_complex
    return _dtypes.default_float if x.dtype.itemsize <= _dtypes.default_float.itemsize else x.dtype


def _sum_like(op, name):
    def f(x, /, *, axis=None, dtype=None, keepdims=False):
        _check_category(x.dtype, "numeric", name)
        d = _sum_dtype(x, dtype)
        t = x._t if x.dtype is d else x._t.to(d)
        r = _reduce(t, op, axis, keepdims) if _dims(x, axis) != [] else t.clone()
        return Array._new(r if r.dtype is d else r.to(d))
    f.__name__ = name
    return f


sum = _sum_like(_SUM, "sum")  # noqa: A001
prod = _sum_like(_PROD, "prod")


def _extremum(op, name):
    def f(x, /, *, axis=None, keepdims=False):
        _check_category(x.dtype, "real numeric", name)
        dims = _dims(x, axis)
        shape = x.shape
        if x.size == 0 and (dims is None or any(shape[d] == 0 for d in dims)):
            raise ValueError("%s of an empty array (or along an axis of size 0) has no value" % name)
        return Array._new(_reduce(x, op, axis, keepdims))
    f.__name__ = name
    return f


max = _extremum(_MAX, "max")  # noqa: A001
min = _extremum(_MIN, "min")  # noqa: A001


def mean(x, /, *, axis=None, keepdims=False):
    """Of real and (beyond 2022.12, which asks real ones) complex arrays."""
    _check_category(x.dtype, "floating-point", "mean")
    dims = _dims(x, axis)
    if dims == []:
        return Array._new(x._t.clone())
    return Array._new(x._t.mean(dims, keepdims))


def _moment(which):
    def f(x, /, *, axis=None, correction=0.0, keepdims=False):
        _check_category(x.dtype, "real floating-point", which)
        dims = _dims(x, axis)
        t = x._t
        if dims == []:  # no reduction: each element is its own sample
            from .._creation import full
            n = 1 - correction
            v = (t - t) if n > 0 else full(x.shape, float("nan"), dtype=x.dtype, device=x.device)
            return Array._new(v)
        return Array._new(getattr(t, which)(dims, keepdim=keepdims, correction=correction))
    f.__name__ = which
    return f


var = _moment("var")
std = _moment("std")


def _truth(x):
    return x._t != 0 if x.dtype is not _dtypes.bool else x._t


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001
    b = _truth(x)
    if _dims(x, axis) == []:
        return Array._new(b.clone() if b is x._t else b)
    return Array._new(_reduce(b.to(_dtypes.int64), _SUM, axis, keepdims) > 0)


def all(x, /, *, axis=None, keepdims=False):  # noqa: A001
    b = _truth(x)
    if _dims(x, axis) == []:
        return Array._new(b.clone() if b is x._t else b)
    return Array._new(_reduce((~b).to(_dtypes.int64), _SUM, axis, keepdims) == 0)


# ---- searching ----------------------------------------------------------------------


def _arg(name):
    def f(x, /, *, axis=None, keepdims=False):
        _check_category(x.dtype, "real numeric", name)
        t = x._t
        if axis is None:
            if x.size == 0:
                raise ValueError("%s of an empty array has no value" % name)
            r = getattr(t.reshape(-1), name)(0)
            if keepdims:
                r = r.reshape([1] * x.ndim)
            return Array._new(r)
        d = _dims(x, axis)[0]
        if x.shape[d] == 0:
            raise ValueError("%s along an axis of size 0 has no value" % name)
        return Array._new(getattr(t, name)(d, keepdims))
    f.__name__ = name
    return f


argmax = _arg("argmax")
argmin = _arg("argmin")


def nonzero(x, /):
    if x.ndim == 0:  # the standard (2022.12): "must raise an exception"
        raise ValueError("nonzero: a zero-dimensional array has no indices to give; reshape it to 1 dim first")
    rows = x._t.nonzero()
    return tuple(Array._new(rows[:, d].contiguous()) for d in range(x.ndim))


def where(condition, x1, x2, /):
    from .._functions import where as _where
    if condition.dtype is not _dtypes.bool:
        raise TypeError("where: the condition must be a bool array, not %s" % _dtypes.name(condition.dtype))
    a, b = operands(x1, x2, "all", "where")
    return Array._new(_where(condition._t, a, b))


# ---- sorting ---------------------------------------------------------------------------


def _orderable(x, name):
    """bool and the real numbers sort; complex numbers have no order."""
    if x.dtype in _dtypes.complex_floating_dtypes:
        _check_category(x.dtype, "real numeric", name)


def sort(x, /, *, axis=-1, descending=False, stable=True):
    _orderable(x, "sort")
    if x.ndim == 0:
        return Array._new(x._t.clone())
    return Array._new(x._t.sort(axis, descending, stable)[0])


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    _orderable(x, "argsort")
    if x.ndim == 0:
        from .._creation import zeros
        return Array._new(zeros((), dtype=_dtypes.int64, device=x.device))
    return Array._new(x._t.argsort(axis, descending, stable))


# ---- sets -------------------------------------------------------------------------------

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _unique_complex(x, indices, inverse, counts):
    """tsr_unique's steps (runtime/sets.cpp) for a complex array, which its
    sort refuses: the order is the real part, then the imaginary part
    (NumPy's), from two stable argsorts; a value with a NaN part differs
    from every value, itself included, as the standard asks."""
    from .._functions import cumsum
    from .._creation import empty, full, ones
    flat = x._t.reshape(-1)
    n = flat.numel()
    by_imag = flat.imag.argsort(0, False, True)
    perm = by_imag.index_select(0, flat.real.index_select(0, by_imag).argsort(0, False, True))
    ordered = flat.index_select(0, perm)
    first = ones(n, dtype=_dtypes.bool, device=x.device)  # where each run of equal values starts
    if n > 1:
        first[1:] = ordered[1:] != ordered[:-1]
    starts = first.nonzero()[:, 0].contiguous()
    out = [Array._new(ordered.index_select(0, starts))]
    if indices:
        out.append(Array._new(perm.index_select(0, starts)))
    if inverse:
        inv = empty(n, dtype=_dtypes.int64, device=x.device)
        if n:
            inv.scatter_(0, perm, cumsum(first, 0) - 1)
        out.append(Array._new(inv.reshape(x.shape)))
    if counts:
        ends = full((starts.numel(),), n, dtype=_dtypes.int64, device=x.device)
        if starts.numel() > 1:
            ends[:-1] = starts[1:]
        out.append(Array._new(ends - starts))
    return out


def _unique(x, indices, inverse, counts):
    if x.dtype in _dtypes.complex_floating_dtypes:
        return _unique_complex(x, indices, inverse, counts)
    results = _C.unique(x._t, indices, inverse, counts)
    return [Array._new(results[0])] + [Array._new(r) for want, r in zip((indices, inverse, counts), results[1:]) if want]


def unique_all(x, /):
    return UniqueAllResult(*_unique(x, True, True, True))


def unique_counts(x, /):
    return UniqueCountsResult(*_unique(x, False, False, True))


def unique_inverse(x, /):
    return UniqueInverseResult(*_unique(x, False, True, False))


def unique_values(x, /):
    return _unique(x, False, False, False)[0]
