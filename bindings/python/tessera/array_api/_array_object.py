# SPDX-License-Identifier: Apache-2.0
"""Array: the Array API's array object, one tessera Tensor inside.

Operators check their operands' dtypes against the operator's category
(numeric, real numeric, integer, floating-point, ...: _dtypes.CATEGORIES)
and the standard's promotion table (Note [Array API promotion] in
_dtypes.py), then run the Tensor's op; a Python scalar becomes a 0-d tensor
of the array's dtype on its device.
"""
import builtins
import operator

from .. import _types
from .._tensor import Tensor, late
from . import _dtypes
from ._dtypes import CATEGORIES, promote


def _scalar_tensor(value, like):
    """A Python scalar beside an array of dtype `like.dtype`, as a 0-d tensor
    on its device (Note [Array API promotion])."""
    d = like.dtype
    if isinstance(value, builtins.bool):
        if d is not _dtypes.bool:
            raise TypeError("a Python bool is only allowed beside a bool array, not %s" % _dtypes.name(d))
    elif isinstance(value, builtins.int):
        if d is _dtypes.bool:
            raise TypeError("a Python int is not allowed beside a bool array")
        if d in _dtypes.integer_dtypes:
            info = iinfo_range(d)
            if not info[0] <= value <= info[1]:
                raise OverflowError("Python int %d is out of bounds for %s" % (value, _dtypes.name(d)))
    elif isinstance(value, builtins.float):
        if d not in _dtypes.floating_dtypes:
            raise TypeError("a Python float is only allowed beside a floating-point array, not %s" %
                            _dtypes.name(d))
    elif isinstance(value, builtins.complex):
        if d not in _dtypes.complex_floating_dtypes:
            raise TypeError("a Python complex is only allowed beside a complex floating-point array, not %s" %
                            _dtypes.name(d))
    else:
        return None
    return scalar_array(value, d, like.device)


def scalar_array(value, d, device):
    """A 0-d tensor holding a Python scalar in dtype d. A float (or complex)
    goes through float64 (complex128) so that float32 (complex64) rounds it
    (to inf beyond its range), as a cast does, where tessera's fill refuses
    a value out of range."""
    from .._creation import full
    if isinstance(value, builtins.float) and d is _dtypes.float32:
        return full((), value, dtype=_dtypes.float64, device=device).to(d)
    if isinstance(value, (builtins.float, builtins.complex)) and d is _dtypes.complex64:
        return full((), value, dtype=_dtypes.complex128, device=device).to(d)
    return full((), value, dtype=d, device=device)


def iinfo_range(d):
    bits = d.itemsize * 8
    if d in _dtypes._unsigned:
        return 0, 2 ** bits - 1
    return -2 ** (bits - 1), 2 ** (bits - 1) - 1


def _check_category(dtype, category, op):
    if dtype not in CATEGORIES[category]:
        if dtype in _dtypes.complex_floating_dtypes:  # say so: the function exists for real dtypes
            raise TypeError("%s is not defined for complex numbers (%s): the Array API gives it %s dtypes only" %
                            (op, _dtypes.name(dtype), category))
        raise TypeError("only %s dtypes are allowed in %s, not %s" % (category, op, _dtypes.name(dtype)))


def _extension_operand(x, category, name, extension):
    """x's tensor for function `name` of an extension ("linalg", "fft"):
    TypeError unless x is an Array of the dtype category."""
    if not isinstance(x, Array):
        raise TypeError("%s.%s: expected an Array, got %s" % (extension, name, type(x).__name__))
    _check_category(x.dtype, category, name)
    return x._t


def operands(x1, x2, category, op):
    """The two tensors of a binary op at their promoted dtype (one of them may
    be a Python scalar); NotImplemented for an unknown operand."""
    _check_category(x1.dtype, category, op)
    a = x1._t
    if isinstance(x2, Array):
        _check_category(x2.dtype, category, op)
        d = promote(x1.dtype, x2.dtype)
        b = x2._t
        if x1.device != x2.device:
            raise ValueError("%s: the arrays are on different devices (%s and %s)" % (op, x1.device, x2.device))
        return (a if a.dtype is d else a.to(d)), (b if b.dtype is d else b.to(d))
    b = _scalar_tensor(x2, a)
    if b is None:
        return NotImplemented, None
    return a, b


def _binary(category, fn, op, reflected=False):
    def method(self, other):
        a, b = operands(self, other, category, op)
        if a is NotImplemented:
            return NotImplemented
        return Array._new(fn(b, a) if reflected else fn(a, b))
    method.__name__ = op
    return method


def _inplace(category, fn, op):
    def method(self, other):
        a, b = operands(self, other, category, op)
        if a is NotImplemented:
            return NotImplemented
        r = fn(a, b)
        if r.dtype is not self.dtype:
            raise TypeError("%s: the result's dtype %s differs from the array's %s" %
                            (op, _dtypes.name(r.dtype), _dtypes.name(self.dtype)))
        if tuple(r.shape) != self.shape:
            raise ValueError("%s: the result's shape %s differs from the array's %s" %
                             (op, tuple(r.shape), self.shape))
        self._t.copy_(r)
        return self
    method.__name__ = op
    return method


def _floor_divide(a, b):
    """floor_divide with the standard's special cases: where either operand
    is infinite, floor(a / b) (the C op gives NaN for inf // 1)."""
    r = a.floor_divide(b)
    if a.dtype not in _dtypes.real_floating_dtypes:
        return r
    inf = float("inf")
    return _where((a.abs() == inf) | (b.abs() == inf), (a / b)._math("floor"), r)


def _truediv(a, b):
    return a / b


# Shifts by the bit width or more give NumPy's results (0, or -1 for a
# negative number shifted right); the C ops leave them to the platform.
def _lshift(a, b):
    bits = a.dtype.itemsize * 8
    return _where(b >= bits, 0, a << b)


def _rshift(a, b):
    bits = a.dtype.itemsize * 8
    r = a >> b
    if a.dtype in _dtypes._unsigned:
        return _where(b >= bits, 0, r)
    return _where(b >= bits, _where(a < 0, -1, 0, a), r)


def _where(cond, x, y, like=None):
    """where(cond, x, y) where x or y may be a Python number, made a 0-d
    tensor of `like`'s dtype (default: the tensor operand's)."""
    from .._functions import where
    like = like if like is not None else (y if isinstance(y, Tensor) else x)
    if not isinstance(x, Tensor):
        x = scalar_array(x, like.dtype, like.device)
    if not isinstance(y, Tensor):
        y = scalar_array(y, like.dtype, like.device)
    return where(cond, x, y)


def _pow(a, b):
    return a ** b


def _matmul(a, b):
    if a.dim() == 0 or b.dim() == 0:
        raise ValueError("matmul: 0-d arrays are not allowed")
    return a @ b


class Array:
    """An n-dimensional array of the Array API standard, held by one tessera
    Tensor (self._t). Build one with the namespace's functions (asarray,
    zeros, ...), not with Array()."""
    __slots__ = ("_t", "__weakref__")

    def __new__(cls, *args, **kwargs):
        raise TypeError("Array cannot be constructed directly; use tessera.array_api.asarray()")

    @classmethod
    def _new(cls, t):
        if not isinstance(t, Tensor):
            raise TypeError("Array._new needs a tessera Tensor, not %s" % type(t).__name__)
        if t.dtype not in _dtypes.all_dtypes:
            raise TypeError("%s is not one of the Array API's dtypes" % t.dtype)
        obj = object.__new__(cls)
        obj._t = t
        return obj

    # ---- attributes ---------------------------------------------------------------

    @property
    def dtype(self):
        return self._t.dtype

    @property
    def device(self):
        return self._t.device

    @property
    def ndim(self):
        return self._t.dim()

    @property
    def shape(self):
        return tuple(self._t.shape)

    @property
    def size(self):
        return self._t.numel()

    @property
    def T(self):
        if self.ndim != 2:
            raise ValueError("x.T is only defined for 2-D arrays; use permute_dims or matrix_transpose")
        return Array._new(self._t.T)

    @property
    def mT(self):
        if self.ndim < 2:
            raise ValueError("x.mT needs an array of at least 2 dims")
        return Array._new(self._t.transpose(-1, -2))

    # Beyond the standard (which has xp.real and xp.imag), as NumPy's arrays:
    # the consortium's suite reads a complex element's parts this way.
    @property
    def real(self):
        return Array._new(self._t.real)

    @property
    def imag(self):
        if self._t.is_complex():
            return Array._new(self._t.imag)
        from .._creation import zeros_like  # a real array's imaginary part: zeros, as NumPy's
        return Array._new(zeros_like(self._t))

    def to_device(self, device, /, stream=None):
        if stream is not None:
            raise ValueError("to_device: streams are not supported")
        return Array._new(self._t.to(_types.device(device) if isinstance(device, str) else device))

    def __array_namespace__(self, /, *, api_version=None):
        """This package (Note [Layers of the package] in _tensor.py), or its
        namespace for an older version (Note [Older versions of the
        standard] in _versions.py)."""
        if api_version is None:
            return late.array_api
        return late.array_api._versions.namespace(late.array_api, api_version)

    def __repr__(self):
        body = repr(self._t)
        if body.startswith("tensor("):
            body = body[len("tensor("):-1]
        if "dtype=" not in body:
            body += ", dtype=%r" % self.dtype
        return "Array(%s)" % body

    __str__ = __repr__

    def __array__(self, dtype=None):
        a = self._t.cpu().numpy() if self._t.device.type != "cpu" else self._t.numpy()
        return a if dtype is None else a.astype(dtype)

    def __dlpack__(self, /, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule, as 2023.12 asks (Note [DLPack versions] in
        tessera/_dlpack.py): "dltensor_versioned" (DLPack 1.x) when
        max_version's major is >= 1, else the legacy "dltensor"; copy=True
        exports a copy, copy=False refuses one (BufferError); dl_device
        another device than the array's: a copy to it (kDLCPU, or a loaded
        kDLCUDA device), else BufferError. bool: in versioned capsules only
        (BufferError in a 0.x one)."""
        return self._t.__dlpack__(stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self):
        return self._t.__dlpack_device__()

    # ---- conversions to Python ------------------------------------------------------

    def _zero_d(self, what):
        if self.ndim != 0:
            raise TypeError("%s is only allowed on 0-d arrays, not on one of shape %s" % (what, self.shape))
        return self._t.item()

    def __bool__(self):
        return builtins.bool(self._zero_d("bool()"))

    def _real_only(self, what):
        if self.dtype in _dtypes.complex_floating_dtypes:
            raise TypeError("%s of a complex array (%s) is not defined; take real() or imag() first" %
                            (what, _dtypes.name(self.dtype)))

    def __int__(self):
        self._real_only("int()")
        return builtins.int(self._zero_d("int()"))

    def __float__(self):
        self._real_only("float()")
        return builtins.float(self._zero_d("float()"))

    def __complex__(self):
        return builtins.complex(self._zero_d("complex()"))

    def __index__(self):
        if self.dtype not in _dtypes.integer_dtypes:
            raise TypeError("only integer arrays can be used as an index, not %s" % _dtypes.name(self.dtype))
        return operator.index(self._zero_d("__index__"))

    # ---- indexing -----------------------------------------------------------------------

    def _key(self, key):
        """The key for the Tensor (masks and index arrays as tensors, negative
        steps as positive ones) and the result dims to flip."""
        from .._advanced import as_tuple
        key = as_tuple(key) if not isinstance(key, Array) else (key,)
        shape = self.shape
        ndim = len(shape)
        consumed = 0
        for k in key:
            if isinstance(k, Array) and k.dtype is _dtypes.bool:
                consumed += k.ndim
            elif k is not None and k is not Ellipsis:
                consumed += 1
        if consumed > ndim:
            raise IndexError("too many indices (%d) for an array of %d dims" % (consumed, ndim))
        out, flips = [], []
        d = od = 0  # the dim in the result, in self
        for k in key:
            if isinstance(k, Array):
                if k.dtype is _dtypes.bool:
                    m = k._t
                    span = shape[od:od + k.ndim]
                    if k.shape != span and 0 in k.shape and len(span) == k.ndim and \
                            builtins.all(s in (n, 0) for s, n in zip(k.shape, span)):
                        from .._creation import zeros
                        m = zeros(span, dtype=_dtypes.bool, device=m.device)  # selects nothing, as NumPy
                    out.append(m)
                    od += k.ndim
                    d += 1
                    continue
                if k.ndim == 0:
                    k = operator.index(k)
                else:
                    out.append(k._t)
                    od += 1
                    d += 1
                    continue
            if k is None:
                out.append(None)
                d += 1
            elif k is Ellipsis:
                out.append(k)
                d += ndim - consumed
                od += ndim - consumed
            elif type(k) is slice:
                step = 1 if k.step is None else operator.index(k.step)
                if step < 0:
                    start, stop, step = k.indices(shape[od])
                    n = len(range(start, stop, step))
                    if n == 0:
                        k = slice(0, 0)
                    else:
                        last = start + (n - 1) * step
                        k = slice(last, start + 1, -step)
                        flips.append(d)
                out.append(k)
                d += 1
                od += 1
            elif isinstance(k, builtins.bool):
                out.append(k)
                d += 1
            else:
                i = operator.index(k)
                if not -shape[od] <= i < shape[od]:
                    raise IndexError("index %d is out of bounds for axis %d with size %d" % (i, od, shape[od]))
                out.append(i)
                od += 1
        return tuple(out), flips

    def __getitem__(self, key, /):
        k, flips = self._key(key)
        r = self._t[k]
        if flips:
            r = r.flip(flips)
        elif r is self._t or r._h == self._t._h:
            r = r._alias()
        return Array._new(r)

    def __setitem__(self, key, value, /):
        k, flips = self._key(key)
        if isinstance(value, Array):
            v = value._t
            if v.dtype in _dtypes.complex_floating_dtypes and self.dtype not in _dtypes.complex_floating_dtypes:
                raise TypeError("setitem: a complex value (%s) would lose its imaginary part in a %s array" %
                                (_dtypes.name(v.dtype), _dtypes.name(self.dtype)))
            if v.dtype is not self.dtype:
                v = v.to(self.dtype)
        else:
            v = _scalar_tensor(value, self._t)
            if v is None:
                raise TypeError("setitem: the value must be an array or a Python scalar, not %s" %
                                type(value).__name__)
        if flips:
            target = self._t[k].shape
            v = v.expand(target).flip(flips)
        self._t[k] = v

    # ---- operators ------------------------------------------------------------------------

    __hash__ = None

    def __matmul__(self, other):
        if not isinstance(other, Array):
            return NotImplemented
        a, b = operands(self, other, "numeric", "__matmul__")
        return Array._new(_matmul(a, b))

    def __rmatmul__(self, other):
        if not isinstance(other, Array):
            return NotImplemented
        a, b = operands(self, other, "numeric", "__rmatmul__")
        return Array._new(_matmul(b, a))

    def __imatmul__(self, other):
        r = self.__matmul__(other)
        if r is NotImplemented:
            return r
        if r.shape != self.shape or r.dtype is not self.dtype:
            raise ValueError("__imatmul__: the result's shape or dtype differs from the array's")
        self._t.copy_(r._t)
        return self

    def __neg__(self):
        _check_category(self.dtype, "numeric", "__neg__")
        return Array._new(-self._t)

    def __pos__(self):
        _check_category(self.dtype, "numeric", "__pos__")
        return Array._new(self._t.clone())

    def __abs__(self):
        _check_category(self.dtype, "numeric", "__abs__")
        return Array._new(self._t.abs())  # of a complex array, its magnitudes in the real dtype

    def __invert__(self):
        _check_category(self.dtype, "integer or boolean", "__invert__")
        return Array._new(~self._t)


# The operators with a reflected and an in-place form: (name, category, op).
_ARITHMETIC = [
    ("add", "numeric", Tensor.__add__), ("sub", "numeric", Tensor.__sub__), ("mul", "numeric", Tensor.__mul__),
    ("truediv", "floating-point", _truediv), ("floordiv", "real numeric", _floor_divide),
    ("mod", "real numeric", Tensor.__mod__), ("pow", "numeric", _pow),
    ("and", "integer or boolean", Tensor.__and__), ("or", "integer or boolean", Tensor.__or__),
    ("xor", "integer or boolean", Tensor.__xor__), ("lshift", "integer", _lshift), ("rshift", "integer", _rshift),
]
_COMPARISONS = [("lt", "real numeric", Tensor.__lt__), ("le", "real numeric", Tensor.__le__),
                ("gt", "real numeric", Tensor.__gt__), ("ge", "real numeric", Tensor.__ge__),
                ("eq", "all", Tensor.__eq__), ("ne", "all", Tensor.__ne__)]

for _name, _category, _fn in _ARITHMETIC + _COMPARISONS:
    setattr(Array, "__%s__" % _name, _binary(_category, _fn, "__%s__" % _name))
for _name, _category, _fn in _ARITHMETIC:
    setattr(Array, "__r%s__" % _name, _binary(_category, _fn, "__r%s__" % _name, True))
    setattr(Array, "__i%s__" % _name, _inplace(_category, _fn, "__i%s__" % _name))
del _name, _category, _fn
