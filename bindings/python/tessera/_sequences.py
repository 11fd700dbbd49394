# SPDX-License-Identifier: Apache-2.0
"""PyTorch's functions over sequences and bits that the Array API 2023.12 to
2025.12 asks for too, built from tessera's ops on the tensor's device:
searchsorted (the SEARCHSORTED primitive), isin, repeat_interleave, tile,
diff, take_along_dim, count_nonzero, cumprod, movedim, and the elementwise
signbit, copysign, nextafter and hypot. tessera.array_api's functions of the
same meaning call these (with the standard's checks and dtypes on top);
Tensor's methods of these names reach them through `late.sequences` (Note
[Layers of the package])."""
import builtins
import math
import operator

from . import _C
from ._tensor import Tensor, late
from ._lib import MAX_DIMS
from ._types import as_dtype, bfloat16, bool_, float16, float32, float64, int16, int32, int64, promote_types


def _tensor(name, x, what="input"):
    if not isinstance(x, Tensor):
        raise TypeError("%s(): argument '%s' must be Tensor, not %s" % (name, what, type(x).__name__))
    return x


def _as_tensor(x, like):
    """A tensor, or a Python number as a 0-d tensor on like's device (its
    dtype by PyTorch's rule for a number beside a tensor)."""
    if isinstance(x, Tensor):
        return x
    return late.tensor(x, device=like.device)


def _promoted(a, b):
    d = promote_types(a.dtype, b.dtype)
    return (a if a.dtype is d else a.to(d)), (b if b.dtype is d else b.to(d))


def _dim(d, ndim, name):
    d = operator.index(d)
    n = builtins.max(ndim, 1)
    if not -n <= d < n:
        raise IndexError("%s(): Dimension out of range (expected to be in range of [%d, %d], but got %d)" %
                         (name, -n, n - 1, d))
    return d % n


def _along(t, dim, start, stop):
    """t[..., start:stop, ...] on dim: a view."""
    return t[(slice(None),) * dim + (slice(start, stop),)]


# ---- searching -------------------------------------------------------------------


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None, sorter=None):  # noqa: A002
    """torch.searchsorted: where each value of input goes in sorted_sequence's
    last dim to keep it sorted (one binary search per value, on the device)."""
    s = _tensor("searchsorted", sorted_sequence, "sorted_sequence")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError("torch.searchsorted(): side can only be 'left' or 'right' but got %s" % (side,))
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    v = _as_tensor(input, s)
    if sorter is not None:
        _tensor("searchsorted", sorter, "sorter")
    r = _C.searchsorted(s, v, builtins.bool(right), sorter)
    return r.to(int32) if out_int32 else r


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """torch.isin: whether each element is among test_elements, by value
    (NaN is in nothing): test_elements sorted once, then one search each."""
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): at least one of elements and test_elements must be a Tensor")
    e = _as_tensor(elements, test_elements if isinstance(test_elements, Tensor) else elements)
    t = _as_tensor(test_elements, e)
    e, t = _promoted(e, t)
    flat = t.reshape(-1)
    if flat.numel() == 0:
        return late.full(tuple(e.shape), builtins.bool(invert), dtype=bool_, device=e.device)
    if e.dtype.is_complex:  # no order: compare with every test element
        hit = (e.unsqueeze(-1) == flat).any(-1)
    else:
        u = flat.sort().values
        idx = _C.searchsorted(u, e, False, None).clamp(max=u.shape[0] - 1)
        hit = u.index_select(0, idx.reshape(-1)).reshape(tuple(e.shape)) == e
    return hit.bitwise_not() if invert else hit


def count_nonzero(input, dim=None):  # noqa: A002
    """torch.count_nonzero: int64 counts of the elements that are not 0 (a
    complex one where either part is not)."""
    x = _tensor("count_nonzero", input)
    nz = x != 0
    if dim is None:
        return nz.sum(dtype=int64)
    return nz.sum(dim if isinstance(dim, int) else tuple(dim), dtype=int64)


# ---- scans and differences ---------------------------------------------------------


def cumprod(input, dim, *, dtype=None):  # noqa: A002
    """torch.cumprod: products along dim (integers and bool in int64, as
    cumsum sums them)."""
    x = _tensor("cumprod", input)
    return _C.cumprod(x, operator.index(dim), None if dtype is None else as_dtype(dtype))


def diff(input, n=1, dim=-1, prepend=None, append=None):  # noqa: A002
    """torch.diff: the n-th forward difference along dim (bool: !=), after
    joining prepend and append."""
    x = _tensor("diff", input)
    if x.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    n = operator.index(n)
    if n < 0:
        raise RuntimeError("order must be non-negative but got %d" % n)
    d = _dim(dim, x.dim(), "diff")
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        shape = list(x.shape)
        shape[d] = 1
        parts = [p if isinstance(p, Tensor) else late.full(tuple(shape), p, device=x.device) for p in parts]
        d_all = parts[0].dtype
        for p in parts[1:]:
            d_all = promote_types(d_all, p.dtype)
        x = _C.concat([p if p.dtype is d_all else p.to(d_all) for p in parts], d)
    for _ in range(n):
        length = x.shape[d]
        if length == 0:
            break
        later, earlier = _along(x, d, 1, None), _along(x, d, 0, length - 1)
        x = (later != earlier) if x.dtype is bool_ else later - earlier
    return x


# ---- repetition and reordering ---------------------------------------------------------


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):  # noqa: A002
    """torch.repeat_interleave: each element (dim None: of the flattened
    input) repeated; repeats an int or a 1-d tensor (one count per element,
    or one for all). With a tensor, the source of each output element is
    found by a search in the counts' running sum."""
    if repeats is None:  # torch.repeat_interleave(repeats): the indices 0, 0, 1, ...
        r = _tensor("repeat_interleave", input, "repeats")
        return repeat_interleave(_arange_like(r.reshape(-1).shape[0], r), r, 0)
    x = _tensor("repeat_interleave", input)
    if dim is None:
        x, d = x.reshape(-1), 0
    else:
        d = _dim(dim, x.dim(), "repeat_interleave")
        if x.dim() == 0:
            x = x.reshape(1)
    size = x.shape[d]
    if not isinstance(repeats, Tensor):
        r = operator.index(repeats)
        if r < 0:
            raise RuntimeError("repeats can not be negative")
        shape = list(x.shape)
        t = x.unsqueeze(d + 1).expand(*shape[:d + 1], r, *shape[d + 1:])
        return t.reshape(*shape[:d], size * r, *shape[d + 1:])
    if repeats.dim() > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if repeats.dtype.is_floating_point or repeats.dtype.is_complex or repeats.dtype is bool_:
        raise RuntimeError("repeats has to be Long or Int tensor")
    r = repeats.reshape(-1).to(int64)
    if r.shape[0] == 1 and size != 1:
        r = r.expand(size)
    if r.shape[0] != size:
        raise RuntimeError("repeats must have the same size as input along dim")
    if size == 0:
        return x
    if builtins.bool((r < 0).any()):
        raise RuntimeError("repeats can not be negative")
    ends = r.cumsum(0)
    total = int(ends[-1]) if output_size is None else operator.index(output_size)
    source = _C.searchsorted(ends, _arange_like(total, x), True, None)
    return x.index_select(d, source)


def _arange_like(n, like):
    from ._creation import arange
    return arange(n, dtype=int64, device=like.device)


def tile(input, dims):  # noqa: A002
    """torch.tile: input repeated dims[i] times along each dim (dims padded
    with 1s in front to input's ndim, or input with 1-sized dims in front)."""
    x = _tensor("tile", input)
    reps = tuple(operator.index(r) for r in dims)
    if builtins.any(r < 0 for r in reps):
        raise RuntimeError("Trying to create tensor with negative dimension %d: %r" %
                           (builtins.min(reps), list(reps)))
    nd = builtins.max(len(reps), x.dim())
    reps = (1,) * (nd - len(reps)) + reps
    x = x.reshape((1,) * (nd - x.dim()) + tuple(x.shape))
    sizes = tuple(x.shape)
    if builtins.all(r == 1 for r in reps):
        return x.clone()
    if 2 * nd <= MAX_DIMS:  # one expanded view, one copy: (1, s0, 1, s1, ...) -> (r0, s0, r1, s1, ...)
        inter = [v for s in sizes for v in (1, s)]
        wide = [v for r, s in zip(reps, sizes) for v in (r, s)]
        return x.reshape(inter).expand(*wide).reshape(tuple(r * s for r, s in zip(reps, sizes)))
    for k, r in enumerate(reps):  # one dim at a time
        if r != 1:
            shape = list(x.shape)
            x = x.unsqueeze(k).expand(*shape[:k], r, *shape[k:]).reshape(*shape[:k], r * shape[k], *shape[k + 1:])
    return x


def take_along_dim(input, indices, dim=None):  # noqa: A002
    """torch.take_along_dim: input's values at indices along dim, the other
    dims broadcast (dim None: both flattened)."""
    x = _tensor("take_along_dim", input)
    idx = _tensor("take_along_dim", indices, "indices")
    if dim is None:
        return x.reshape(-1).gather(0, idx.reshape(-1))
    if x.dim() != idx.dim():
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           "but got %d dimensions for input, and %d dimensions for indices" % (x.dim(), idx.dim()))
    d = _dim(dim, x.dim(), "take_along_dim")
    if x.dim() == 0:
        return x.reshape(1).gather(0, idx.reshape(1)).reshape(())
    sx, si = list(x.shape), list(idx.shape)
    sx[d] = si[d] = 1
    b = list(_C.broadcast_shapes(tuple(sx), tuple(si)))
    bx, bi = list(b), list(b)
    bx[d], bi[d] = x.shape[d], idx.shape[d]
    return x.expand(*bx).gather(d, idx.expand(*bi))


def movedim(input, source, destination):  # noqa: A002
    """torch.movedim (moveaxis): source dims moved to destination, the
    others keeping their order."""
    x = _tensor("movedim", input)
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise RuntimeError("movedim: Invalid source or destination dims: source (%r dims) should contain the same "
                           "number of dims as destination (%r dims)" % (list(src), list(dst)))
    n = x.dim()
    src = [_dim(s, n, "movedim") for s in src]
    dst = [_dim(s, n, "movedim") for s in dst]
    if len(set(src)) != len(src):
        raise RuntimeError("movedim: repeated dim in `source` (%r)" % (list(source),))
    if len(set(dst)) != len(dst):
        raise RuntimeError("movedim: repeated dim in `destination` (%r)" % (list(destination),))
    order = [None] * n
    for s, t in zip(src, dst):
        order[t] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [o if o is not None else next(rest) for o in order]
    return x.permute(*order) if n else x._alias()


# ---- bits of floating-point numbers --------------------------------------------------------

# The integer dtype of each float's size: a view of the float's bits.
_BITS = {float16: int16, bfloat16: int16, float32: int32, float64: int64}


def _floating(name, x):
    if x.dtype.is_complex:
        raise RuntimeError("%s is not implemented for complex tensors." % name)
    return x if x.dtype.is_floating_point else x.to(float32)


def signbit(input):  # noqa: A002
    """torch.signbit: whether the sign bit is set (-0.0 and a negative NaN
    included), read from the float's bits."""
    x = _tensor("signbit", input)
    if x.dtype.is_complex:
        raise RuntimeError("signbit is not implemented for complex tensors.")
    if x.dtype in _BITS:
        return _C.view_dtype(x, _BITS[x.dtype]) < 0
    if x.dtype is bool_ or not x.dtype.is_signed:
        return late.full(tuple(x.shape), False, dtype=bool_, device=x.device)
    return x < 0


def _float_pair(name, x, other):
    x = _tensor(name, x)
    o = _as_tensor(other, x)
    x, o = _promoted(x, o)
    if x.dtype.is_complex:
        raise RuntimeError("%s is not implemented for complex tensors." % name)
    if not x.dtype.is_floating_point:
        x, o = x.to(float32), o.to(float32)
    return x, o


def copysign(input, other):  # noqa: A002
    """torch.copysign: |input| with other's sign bit (integers in float32)."""
    x, o = _float_pair("copysign", input, other)
    a = x.abs()
    return late.where(signbit(o), -a, a)


def nextafter(input, other):  # noqa: A002
    """torch.nextafter: the float after input towards other, one step of its
    bits (the smallest subnormal from 0; other itself where they are equal,
    so -0 towards +0 is +0; NaN where either is)."""
    x, o = _float_pair("nextafter", input, other)
    shape = tuple(_C.broadcast_shapes(tuple(x.shape), tuple(o.shape)))
    x, o = x.expand(shape), o.expand(shape)
    bits = _BITS[x.dtype]
    away = (o > x) == (x > 0)  # the magnitude grows: one more in the bits, whatever the sign
    step = late.where(away, late.tensor(1, dtype=bits, device=x.device), late.tensor(-1, dtype=bits, device=x.device))
    moved = _C.view_dtype(_C.view_dtype(x, bits) + step, x.dtype)
    tiny = _C.view_dtype(late.tensor(1, dtype=bits, device=x.device), x.dtype)
    r = late.where(x == 0, late.where(o > 0, tiny, -tiny), moved)
    r = late.where(x == o, o, r)
    return late.where((x != x) | (o != o), late.tensor(math.nan, dtype=x.dtype, device=x.device), r)


def hypot(input, other):  # noqa: A002
    """torch.hypot: sqrt(input^2 + other^2) without overflow or underflow:
    float32 and the half types in float64 (exact before the one rounding),
    float64 scaled by the larger magnitude; an infinity wins over NaN."""
    x, o = _float_pair("hypot", input, other)
    a, b = x.abs(), o.abs()
    if x.dtype is not float64:
        wa, wb = a.to(float64), b.to(float64)
        r = (wa * wa + wb * wb).sqrt().to(x.dtype)
    else:
        big, small = a.maximum(b), a.minimum(b)
        q = small / big
        r = late.where(big == 0, big, big * (q * q + 1.0).sqrt())
    inf = math.inf
    return late.where((a == inf) | (b == inf), late.tensor(inf, dtype=x.dtype, device=x.device), r)


__all__ = ["searchsorted", "isin", "count_nonzero", "cumprod", "diff", "repeat_interleave", "tile", "take_along_dim",
           "movedim", "moveaxis", "signbit", "copysign", "nextafter", "hypot"]
moveaxis = movedim

late.sequences = __import__(__name__, fromlist=["_"])  # Note [Layers of the package]
