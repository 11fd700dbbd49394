# SPDX-License-Identifier: Apache-2.0
"""The Array API's manipulation functions (concat .. stack) and its linear
algebra in the main namespace (matmul, matrix_transpose, tensordot,
vecdot)."""
import operator

from .. import _C
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
    axis = operator.index(axis)
    n = x.ndim + 1
    if not -n <= axis < n:
        raise IndexError("expand_dims: axis %d is out of range for a result of %d dims" % (axis, n))
    return Array._new(x._t.unsqueeze(axis % n))


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
    return Array._new(x._t.permute(_ints(axes)))


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
