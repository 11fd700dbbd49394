# SPDX-License-Identifier: Apache-2.0
"""Advanced indexing of a Tensor (PyTorch 1.13's rules), from the C API's
index ops: no loop over elements runs in Python.

Note [Advanced indexing]
  A key is advanced when one of its entries is an index tensor (an integer
  Tensor of one dim or more, a list, a NumPy array) or a mask (a bool or
  uint8 Tensor, a list of bools, Python's False, a 0-d bool Tensor). The
  key is read in two passes:
  1. basic: every advanced entry becomes `:` (a mask over k dims, k of them;
     False a new dim of size 1, as None) and the rest is tessera's basic
     indexing, a view `v`. Ints select first, as in PyTorch, so they do not
     separate the advanced entries.
  2. advanced: each advanced entry now names one dim of `v` and holds an
     index tensor (a mask's come from nonzero, one per masked dim; False's
     is empty). They broadcast together to B. `v` is permuted so those dims
     come first; their indices (range-checked and made non-negative by
     taking from an arange, which raises IndexError naming the index and
     the size) fold into one linear index over the product of their sizes,
     and one tsr_take along dim 0 gathers the rows: a copy of shape
     B + (v's other sizes). When the advanced dims of `v` were adjacent the
     B dims go back where the first of them was; otherwise they stay in
     front (PyTorch's and NumPy's rule).
  Writing (x[key] = value) does the same up to the linear index, then
  scatters the value, broadcast to the result's shape and brought to the
  front order, into the permuted view of x (through a contiguous copy
  written back when the view is not contiguous). When an element is named
  twice, which write wins is unspecified, as in PyTorch.
"""
import re

from ._tensor import Tensor, _index, fill_scalar, late
from ._types import bool_, int64, uint8

_BOOL, _UINT8 = bool_._code, uint8._code
_INTEGRAL = (4, 5, 6, 7, 8, 10, 11, 12)


def _numpy_array(k):
    return type(k).__module__ == "numpy" and hasattr(k, "dtype") and getattr(k, "ndim", 0) > 0


def is_advanced(key):
    """True when some entry of the key needs advanced indexing."""
    for k in as_tuple(key):
        if k is False or isinstance(k, list):
            return True
        if isinstance(k, Tensor):
            if k.dim() > 0 or k.dtype._code in (_BOOL, _UINT8):
                return True
        elif type(k).__module__ == "numpy":
            if type(k).__name__ == "bool_":
                if not bool(k):
                    return True
            elif hasattr(k, "ndim") and k.ndim > 0:
                return True
    return False


def _as_index_tensor(k, device):
    """An entry as ("mask", Tensor), ("index", Tensor), ("false", None) or
    ("basic", k)."""
    from ._creation import tensor
    if k is False:
        return "false", None
    if type(k).__module__ == "numpy" and type(k).__name__ == "bool_":
        return ("basic", None) if bool(k) else ("false", None)
    if isinstance(k, list) or _numpy_array(k):
        k = tensor(k, device=device) if not (isinstance(k, list) and len(k) == 0) else \
            tensor([], dtype=int64, device=device)
    if not isinstance(k, Tensor):
        return "basic", k
    code = k.dtype._code
    if code in (_BOOL, _UINT8):
        if k.dim() == 0:
            return ("basic", None) if k.item() else ("false", None)
        return "mask", k.to(device=device, dtype=bool_)
    if code not in _INTEGRAL:
        raise IndexError("tensors used as indices must be long, byte or bool tensors")
    if k.dim() == 0:
        return "basic", k
    return "index", k.to(device=device)


def as_tuple(key):
    """The key as a tuple of entries. A list of fewer than 32 entries holding
    a sequence, slice, tensor, None or ... is read as a tuple (PyTorch's and
    NumPy's legacy rule: x[[[0, 1], [1, 0]]] is x[[0, 1], [1, 0]])."""
    if type(key) is tuple:
        return key
    if isinstance(key, list) and len(key) < 32:
        for k in key:
            if k is None or k is Ellipsis or isinstance(k, (list, tuple, slice, Tensor)) or _numpy_array(k):
                return tuple(key)
    return (key,)


def _prepare(t, key):
    """The basic view of t and its advanced entries [(dim of the view, index tensor)]."""
    key = as_tuple(key)
    dev = t.device
    entries = [_as_index_tensor(k, dev) for k in key]
    ndim = t.dim()
    consumed = 0
    for kind, k in entries:
        if kind == "mask":
            consumed += k.dim()
        elif kind == "index" or (kind == "basic" and k is not None and k is not Ellipsis and k is not True):
            consumed += 1
    if consumed > ndim:
        raise IndexError("too many indices for tensor of dimension %d" % ndim)
    basic, adv = [], []
    d = od = 0  # the dim in the view, the dim in t
    shape = tuple(t.shape)
    for kind, k in entries:
        if kind == "basic":
            basic.append(k)
            if k is None or k is True:
                d += 1
            elif k is Ellipsis:
                d += ndim - consumed
                od += ndim - consumed
            elif type(k) is slice:
                d += 1
                od += 1
            else:
                od += 1
        elif kind == "false":
            basic.append(None)
            from ._creation import zeros
            adv.append((d, zeros(0, dtype=int64, device=dev)))
            d += 1
        elif kind == "index":
            basic.append(slice(None))
            adv.append((d, k))
            d += 1
            od += 1
        else:  # mask
            n = k.dim()
            if tuple(k.shape) != shape[od:od + n]:
                raise IndexError("The shape of the mask %s at index %d does not match the shape of the indexed "
                                 "tensor %s at index %d" % (list(k.shape), len(basic), list(shape), od))
            basic.extend([slice(None)] * n)
            rows = k.nonzero()
            adv.extend((d + j, rows[:, j]) for j in range(n))
            d += n
            od += n
    return _index(t, tuple(basic)), adv


def _broadcast(indices):
    from ._functions import broadcast_shapes
    try:
        b = broadcast_shapes(*[tuple(i.shape) for i in indices])
    except RuntimeError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes " +
                         ", ".join(str(list(i.shape)) for i in indices)) from None
    return tuple(b)


_OUT_OF_RANGE = re.compile(r"index (-?\d+) is out of bounds")


def _checked(index, size, dim):
    """index (any shape) made non-negative, as int64; IndexError naming the
    first index out of [-size, size)."""
    from ._creation import arange
    flat = index.reshape(-1)
    try:
        return arange(size, dtype=int64, device=index.device).take(flat)
    except IndexError as e:
        m = _OUT_OF_RANGE.search(str(e))
        bad = m.group(1) if m else "?"
        raise IndexError("index %s is out of bounds for dimension %d with size %d" % (bad, dim, size)) from None


def _plan(t, key):
    """What reading or writing t[key] needs: the permuted view, the flat
    linear index, B, the other sizes and where B goes in the result."""
    v, adv = _prepare(t, key)
    if not adv:  # only 0-d True masks: a view
        return v
    dims = [d for d, _ in adv]
    b = _broadcast([i for _, i in adv])
    vshape = tuple(v.shape)
    rest = [d for d in range(v.dim()) if d not in dims]
    p = v.permute(dims + rest) if dims + rest != list(range(v.dim())) else v
    lin = None
    for d, i in adv:
        n = vshape[d]
        j = _checked(i.expand(b) if tuple(i.shape) != b else i, n, d)
        lin = j if lin is None else lin * n + j
    rest_shape = tuple(vshape[d] for d in rest)
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    at = dims[0] if adjacent else 0
    return p, lin, b, rest_shape, at, [vshape[d] for d in dims]


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _front_to_final(nb, nrest, at):
    """The permutation taking (B..., rest...) to the result's order."""
    b = list(range(nb))
    r = list(range(nb, nb + nrest))
    return r[:at] + b + r[at:]


def getitem(t, key):
    plan = _plan(t, key)
    if isinstance(plan, Tensor):
        return plan
    p, lin, b, rest_shape, at, sizes = plan
    flat = p.reshape((_numel(sizes),) + rest_shape) if len(sizes) != 1 else p
    r = flat.index_select(0, lin).reshape(b + rest_shape)
    if at:
        r = r.permute(_front_to_final(len(b), len(rest_shape), at))
    return r


def setitem(t, key, value):
    from ._creation import full, tensor
    plan = _plan(t, key)
    if isinstance(plan, Tensor):
        plan[...] = value
        return
    p, lin, b, rest_shape, at, sizes = plan
    perm = _front_to_final(len(b), len(rest_shape), at)
    final = tuple((rest_shape[:at] + b + rest_shape[at:]))
    if isinstance(value, Tensor):
        val = value.to(device=t.device, dtype=t.dtype)
    elif fill_scalar(value, t.dtype._code) is not None:
        val = full((), value, dtype=t.dtype, device=t.device)
    else:
        val = tensor(value, dtype=t.dtype, device=t.device)
    val = val.expand(final) if tuple(val.shape) != final else val
    if at:
        inverse = [0] * len(perm)
        for i, q in enumerate(perm):
            inverse[q] = i
        val = val.permute(inverse)
    n, r = _numel(b), _numel(rest_shape)
    if n == 0 or r == 0:
        return
    w = p.contiguous()
    rows = w.reshape(_numel(sizes), r)
    src = val.reshape(n, r)
    rows.scatter_(0, lin.reshape(n, 1).expand(n, r), src)
    if w is not p:
        p.copy_(w)


late.getitem, late.setitem, late.is_advanced = getitem, setitem, is_advanced  # Note [Layers of the package]
