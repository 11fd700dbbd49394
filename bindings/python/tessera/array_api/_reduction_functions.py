# SPDX-License-Identifier: Apache-2.0
"""The Array API's functions that reduce, search, sort or deduplicate:
statistical (max, mean, min, prod, std, sum, var; cumulative_sum 2023.12,
cumulative_prod 2024.12), utility (all, any; diff 2024.12), searching
(argmax, argmin, nonzero, where; searchsorted 2023.12, count_nonzero
2024.12), sorting (argsort, sort) and sets (unique_all, unique_counts,
unique_inverse, unique_values; isin 2025.12)."""
import builtins
import operator
from collections import namedtuple

from .. import _C, _lib, _sequences
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


def _sum_dtype(x, dtype, widen_floats=False):
    """sum's, prod's, trace's and the cumulative functions' dtype: the given
    one, else the default integer or unsigned dtype of an integer x's kind,
    else x's own (2023.12 on); widen_floats: 2022.12's rule, which gives
    float32 and complex64 the default float and complex dtypes."""
    if dtype is not None:
        dtype = _dtypes.check_dtype(dtype)
        _dtypes.check_cast(x.dtype, dtype, "the dtype argument")
        return dtype
    if x.dtype in _dtypes._signed or x.dtype is _dtypes.bool:
        return _dtypes.default_int
    if x.dtype in _dtypes._unsigned:
        return _dtypes.default_uint
    if not widen_floats:
        return x.dtype
    if x.dtype in _dtypes.complex_floating_dtypes:
        return _dtypes.default_complex
    return _dtypes.default_float if x.dtype.itemsize <= _dtypes.default_float.itemsize else x.dtype


def _sum_like(op, name, widen_floats=False):
    def f(x, /, *, axis=None, dtype=None, keepdims=False):
        _check_category(x.dtype, "numeric", name)
        d = _sum_dtype(x, dtype, widen_floats)
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


def _cumulative(name, scan):
    def f(x, /, *, axis=None, dtype=None, include_initial=False):
        """2023.12 (cumulative_prod: 2024.12): the running sum (product)
        along axis (optional for 1-d x), in sum's dtype; include_initial puts
        the identity first, one longer along axis."""
        _check_category(x.dtype, "all", name)  # bool counts as int64, as sum's does
        if axis is None:
            if x.ndim > 1:
                raise ValueError("%s: axis is required for an array of %d dims" % (name, x.ndim))
            axis = 0
        if x.ndim == 0:
            raise ValueError("%s: x must have at least one dimension" % name)
        d = _dims(x, axis)[0]
        out = _sum_dtype(x, dtype)
        t = x._t if x.dtype is out else x._t.to(out)
        r = scan(t, d)
        if r.dtype is not out:
            r = r.to(out)
        if include_initial:
            from .._creation import full
            shape = list(x.shape)
            shape[d] = 1
            first = full(tuple(shape), 0 if scan is _cumsum else 1, dtype=out, device=x.device)
            r = _C.concat([first, r], d)
        return Array._new(r)
    f.__name__ = name
    return f


def _cumsum(t, d):
    return _C.cumsum(t, d, None)


def _cumprod(t, d):
    return _C.cumprod(t, d, None)


cumulative_sum = _cumulative("cumulative_sum", _cumsum)
cumulative_prod = _cumulative("cumulative_prod", _cumprod)


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


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """2024.12: how many elements are not zero (a complex one where either
    part is not), in the default index dtype."""
    dims = _dims(x, axis)
    nz = _truth(x)
    if dims == []:
        return Array._new(nz.to(_dtypes.int64))
    return Array._new(nz.to(_dtypes.int64)._reduce(_SUM, dims, keepdims))


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """2023.12: the indices that keep 1-d x1 sorted with x2's values put
    before them (side "left") or after equal ones ("right"), found by a
    binary search per value on the device; x2 may be a Python scalar."""
    if not isinstance(x1, Array):
        raise TypeError("searchsorted: x1 must be an array, not %s" % type(x1).__name__)
    if x1.ndim != 1:
        raise ValueError("searchsorted: x1 must be 1-d, not %d-d" % x1.ndim)
    if side not in ("left", "right"):
        raise ValueError("searchsorted: side must be 'left' or 'right', not %r" % (side,))
    _check_category(x1.dtype, "real numeric", "searchsorted")
    a, b = operands(x1, x2, "real numeric", "searchsorted")
    if a is NotImplemented:
        raise TypeError("searchsorted: x2 must be an array or a Python scalar, not %s" % type(x2).__name__)
    s = None
    if sorter is not None:
        if not isinstance(sorter, Array) or sorter.dtype not in _dtypes.integer_dtypes:
            raise TypeError("searchsorted: sorter must be an integer array")
        if sorter.shape != x1.shape:
            raise ValueError("searchsorted: sorter's shape %s differs from x1's %s" % (sorter.shape, x1.shape))
        s = sorter._t
    return Array._new(_C.searchsorted(a, b, side == "right", s))


def nonzero(x, /):
    if x.ndim == 0:  # the standard (2022.12): "must raise an exception"
        raise ValueError("nonzero: a zero-dimensional array has no indices to give; reshape it to 1 dim first")
    rows = x._t.nonzero()
    return tuple(Array._new(rows[:, d].contiguous()) for d in range(x.ndim))


def where(condition, x1, x2, /):
    """x1 or x2, either of which may be a Python scalar (2024.12)."""
    from .._functions import where as _where
    if condition.dtype is not _dtypes.bool:
        raise TypeError("where: the condition must be a bool array, not %s" % _dtypes.name(condition.dtype))
    if isinstance(x1, Array):
        a, b = operands(x1, x2, "all", "where")
    elif isinstance(x2, Array):
        b, a = operands(x2, x1, "all", "where")
    else:
        raise TypeError("where: at least one of x1 and x2 must be an array")
    if a is NotImplemented or b is NotImplemented:
        raise TypeError("where: x1 and x2 must be arrays or Python scalars, not %s and %s" %
                        (type(x1).__name__, type(x2).__name__))
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


def isin(x1, x2, /, *, invert=False):
    """2025.12: whether each element of x1 is among x2's, by value (NaN in
    nothing); either may be a Python int (a 0-d result for an int x1)."""
    if not isinstance(x1, Array) and not isinstance(x2, Array):
        raise TypeError("isin: at least one of x1 and x2 must be an array")
    if isinstance(x1, Array) and isinstance(x2, Array):
        a, b = operands(x1, x2, "all", "isin")
    elif isinstance(x1, Array):
        a, b = operands(x1, x2, "all", "isin")
    else:
        b, a = operands(x2, x1, "all", "isin")
    if a is NotImplemented or b is NotImplemented:
        raise TypeError("isin: expected arrays or Python ints, got %s and %s" % (type(x1).__name__, type(x2).__name__))
    return Array._new(_sequences.isin(a, b, invert=bool(invert)))


# ---- utility ------------------------------------------------------------------------------


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """2024.12: the n-th forward difference along axis, after prepend and
    append (arrays of x's shape but on axis) are joined to x; x's dtype
    (bool: not_equal)."""
    _check_category(x.dtype, "all", "diff")
    if x.ndim == 0:
        raise ValueError("diff: x must have at least one dimension")
    d = _dims(x, axis)[0]
    n = operator.index(n)
    if n < 0:
        raise ValueError("diff: n must not be negative, got %d" % n)
    parts = []
    for p, what in ((prepend, "prepend"), (append, "append")):
        if p is None:
            parts.append(None)
            continue
        if not isinstance(p, Array):
            raise TypeError("diff: %s must be an array, not %s" % (what, type(p).__name__))
        if p.ndim != x.ndim or builtins.any(p.shape[k] != x.shape[k] for k in range(x.ndim) if k != d):
            raise ValueError("diff: %s's shape %s does not match x's %s off axis %d" % (what, p.shape, x.shape, d))
        parts.append(p._t if p.dtype is x.dtype else p._t.to(x.dtype))
    return Array._new(_sequences.diff(x._t, n, d, parts[0], parts[1]))
