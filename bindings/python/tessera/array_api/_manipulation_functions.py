# SPDX-License-Identifier: Apache-2.0
"""The Array API's manipulation functions (concat .. stack; 2023.12's
moveaxis, repeat, tile, unstack; 2025.12's broadcast_shapes) and its linear
algebra in the main namespace (matmul, matrix_transpose, tensordot,
vecdot)."""
import operator

from .. import _C, _sequences
from ._array_object import Array, _matmul, operands
from ._data_type_functions import result_type


def _axis(axis, ndim, what):
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise IndexError("%s: axis %d is out of range for an array of %d dims" % (what, axis, ndim))
    return axis % ndim if ndim else 0


def _joined(arrays, what):
    arrays = list(arrays)
    if not arrays:
        raise ValueError("%s needs at least one array" % what)
    d = result_type(*arrays)
    return [a._t if a.dtype is d else a._t.to(d) for a in arrays]


def concat(arrays, /, *, axis=0):
    ts = _joined(arrays, "concat")
    if axis is None:
        ts = [t.reshape(-1) for t in ts]
        axis = 0
    return Array._new(_C.concat(ts, operator.index(axis)))


def stack(arrays, /, *, axis=0):
    ts = _joined(arrays, "stack")
    return Array._new(_C.stack(ts, operator.index(axis)))


def expand_dims(x, /, axis=0):
    """A size-one axis inserted at each of `axis` (an int, or 2025.12's tuple:
    positions in the result, of N + len(axis) dims, none twice)."""
    axes = axis if isinstance(axis, tuple) else (operator.index(axis),)
    n = x.ndim + len(axes)
    where = []
    for a in axes:
        a = operator.index(a)
        if not -n <= a < n:
            raise IndexError("expand_dims: axis %d is out of range for a result of %d dims" % (a, n))
        where.append(a % n)
    if len(set(where)) != len(where):
        raise ValueError("expand_dims: axis %r names a position twice" % (axis,))
    shape, it = [], iter(x.shape)
    for k in range(n):
        shape.append(1 if k in where else next(it))
    return Array._new(x._t.reshape(tuple(shape)) if axes else x._t._alias())


def flip(x, /, *, axis=None):
    if axis is None:
        dims = list(range(x.ndim))
    elif isinstance(axis, tuple):
        dims = [_axis(a, x.ndim, "flip") for a in axis]
    else:
        dims = [_axis(axis, x.ndim, "flip")]
    return Array._new(x._t.flip(dims) if dims else x._t.clone())


def _ints(v):
    """A tuple of ints, from a tuple or (as NumPy accepts, and code written
    for NumPy passes: scikit-learn's reshape(y, -1)) a single int."""
    if hasattr(v, "__index__"):
        return (operator.index(v),)
    return tuple(operator.index(s) for s in v)


def permute_dims(x, /, axes):
    """axes may count from the end (2025.12)."""
    axes = _ints(axes)
    if len(axes) != x.ndim:
        raise ValueError("permute_dims: axes %r do not name each of the %d dims once" % (axes, x.ndim))
    dims = [_axis(a, x.ndim, "permute_dims") for a in axes]
    if len(set(dims)) != len(dims):
        raise ValueError("permute_dims: axes %r name a dim twice" % (axes,))
    return Array._new(x._t.permute(dims) if dims else x._t._alias())


# ---- 2023.12 and 2025.12 ----------------------------------------------------------------


def moveaxis(x, source, destination, /):
    """2023.12: source axes moved to destination, the others in order."""
    src = source if isinstance(source, tuple) else (source,)
    dst = destination if isinstance(destination, tuple) else (destination,)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source %r and destination %r differ in length" % (source, destination))
    src = [_axis(a, x.ndim, "moveaxis") for a in src]
    dst = [_axis(a, x.ndim, "moveaxis") for a in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise ValueError("moveaxis: an axis is given twice")
    return Array._new(_sequences.movedim(x._t, src, dst))


def repeat(x, repeats, /, *, axis=None):
    """2023.12: each element repeated (axis None: of the flattened array);
    repeats an int or a 1-d integer array of one count or one per element."""
    from . import _dtypes
    if isinstance(repeats, Array):
        if repeats.dtype not in _dtypes.integer_dtypes:
            raise TypeError("repeat: repeats must have an integer dtype, not %s" % _dtypes.name(repeats.dtype))
        if repeats.ndim != 1:
            raise ValueError("repeat: repeats must be 1-d, not %d-d" % repeats.ndim)
        n = x.size if axis is None else x.shape[_axis(axis, x.ndim, "repeat")]
        if repeats.shape[0] not in (1, n):
            raise ValueError("repeat: %d repeats for %d elements" % (repeats.shape[0], n))
        r = repeats._t
        if x.device != repeats.device:
            raise ValueError("repeat: the arrays are on different devices (%s and %s)" % (x.device, repeats.device))
    else:
        r = operator.index(repeats)
        if r < 0:
            raise ValueError("repeat: repeats must not be negative, got %d" % r)
    if axis is not None:
        axis = _axis(axis, x.ndim, "repeat")
    try:
        return Array._new(_sequences.repeat_interleave(x._t, r, axis))
    except RuntimeError as e:
        raise ValueError("repeat: %s" % e) from None


def tile(x, repetitions, /):
    """2023.12: x repeated along each axis (repetitions padded with ones in
    front to x's ndim, or x with size-one axes in front)."""
    reps = _ints(repetitions)
    if any(r < 0 for r in reps):
        raise ValueError("tile: repetitions must not be negative, got %r" % (reps,))
    return Array._new(_sequences.tile(x._t, reps))


def unstack(x, /, *, axis=0):
    """2023.12: the views of x at each index of axis, as a tuple."""
    if x.ndim == 0:
        raise ValueError("unstack: x must have at least one dimension")
    a = _axis(axis, x.ndim, "unstack")
    t = x._t
    return tuple(Array._new(t[(slice(None),) * a + (i,)]) for i in range(x.shape[a]))


def broadcast_shapes(*shapes):
    """2025.12: the shape the given shapes broadcast to (ValueError where
    they do not); () for none."""
    result = ()
    for s in shapes:
        try:
            result = _C.broadcast_shapes(result, _ints(s))
        except RuntimeError as e:
            raise ValueError("broadcast_shapes: %s" % e) from None
    return tuple(result)


def reshape(x, /, shape, *, copy=None):
    shape = _ints(shape)
    if copy is False:
        try:
            return Array._new(x._t.view(shape))
        except RuntimeError as e:
            raise ValueError("reshape(copy=False): %s" % e) from None
    try:
        r = x._t.reshape(shape)
    except RuntimeError as e:
        raise ValueError("reshape: %s" % e) from None
    return Array._new(r.clone() if copy else r)


def roll(x, /, shift, *, axis=None):
    from .._functions import roll as _roll
    if axis is None:
        if isinstance(shift, tuple):
            shift = sum(shift)
        return Array._new(_roll(x._t, operator.index(shift)))
    if isinstance(axis, tuple):
        shifts = list(shift) if isinstance(shift, tuple) else [shift] * len(axis)
        return Array._new(_roll(x._t, shifts, list(axis)))
    return Array._new(_roll(x._t, shift, axis))


def squeeze(x, /, axis):
    axes = axis if isinstance(axis, tuple) else (axis,)
    dims = sorted({_axis(a, x.ndim, "squeeze") for a in axes}, reverse=True)
    if len(dims) != len(axes):
        raise ValueError("squeeze: an axis is given twice")
    t = x._t
    for d in dims:
        if x.shape[d] != 1:
            raise ValueError("squeeze: axis %d has size %d, not 1" % (d, x.shape[d]))
        t = t.squeeze(d)
    return Array._new(t if dims else t._alias())


# ---- linear algebra --------------------------------------------------------------------


def matmul(x1, x2, /):
    a, b = operands(x1, x2, "numeric", "matmul")
    try:
        return Array._new(_matmul(a, b))
    except RuntimeError as e:
        raise ValueError("matmul: %s" % e) from None


def matrix_transpose(x, /):
    if x.ndim < 2:
        raise ValueError("matrix_transpose needs an array of at least 2 dims")
    return Array._new(x._t.transpose(-1, -2))


def tensordot(x1, x2, /, *, axes=2):
    a, b = operands(x1, x2, "numeric", "tensordot")
    if isinstance(axes, tuple) or isinstance(axes, list):
        ax1 = [_axis(i, a.dim(), "tensordot") for i in axes[0]]
        ax2 = [_axis(i, b.dim(), "tensordot") for i in axes[1]]
    else:
        n = operator.index(axes)
        if n < 0 or n > min(a.dim(), b.dim()):
            raise ValueError("tensordot: axes=%d is out of range" % n)
        ax1 = list(range(a.dim() - n, a.dim()))
        ax2 = list(range(n))
    if len(ax1) != len(ax2) or any(a.shape[i] != b.shape[j] for i, j in zip(ax1, ax2)):
        raise ValueError("tensordot: the contracted axes differ in size")
    free1 = [i for i in range(a.dim()) if i not in ax1]
    free2 = [j for j in range(b.dim()) if j not in ax2]
    k = 1
    for i in ax1:
        k *= a.shape[i]
    m = 1
    for i in free1:
        m *= a.shape[i]
    n = 1
    for j in free2:
        n *= b.shape[j]
    am = a.permute(free1 + ax1).reshape(m, k)
    bm = b.permute(ax2 + free2).reshape(k, n)
    r = am @ bm if k else _zeros((m, n), a)
    return Array._new(r.reshape([a.shape[i] for i in free1] + [b.shape[j] for j in free2]))


def _zeros(shape, like):
    from .._creation import zeros
    return zeros(shape, dtype=like.dtype, device=like.device)


def vecdot(x1, x2, /, *, axis=-1):
    a, b = operands(x1, x2, "numeric", "vecdot")
    from .._functions import broadcast_shapes
    try:
        shape = tuple(broadcast_shapes(a.shape, b.shape))
    except RuntimeError as e:
        raise ValueError("vecdot: %s" % e) from None
    axis = _axis(axis, len(shape), "vecdot")
    back = axis - len(shape)  # the axis counted from the end

    def size(t):
        return t.shape[back] if t.dim() >= -back else 1
    if size(a) != size(b):
        raise ValueError("vecdot: the arrays' sizes along axis %d differ (%d and %d)" % (axis, size(a), size(b)))
    if a.is_complex():  # 2022.12: sum(conj(x1) * x2), the inner product of complex vectors
        a = a.conj()
    p = a * b
    return Array._new(p.sum(back).to(p.dtype))
