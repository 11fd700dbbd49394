# SPDX-License-Identifier: Apache-2.0
"""The Array API's 59 elementwise functions (2022.12's: the 56 of 2021.12
and real, imag, conj). Each checks its arguments' dtype category and
promotion (Note [Array API promotion]) and runs tessera ops on the arrays'
device; the special cases (NaN, infinities, signed zeros) are those of the
C ops (C99's functions, Annex G's for complex numbers), with isnan, isinf
and isfinite composed from comparisons (of the real and imaginary parts
for complex numbers). The functions the standard gives real dtypes only
(ceil, floor, trunc, the orderings, atan2, logaddexp, floor_divide,
remainder) refuse complex arrays with TypeError."""
import math
import operator

from .. import _C, _sequences, _tensor
from .._lib import OP
from . import _dtypes
from ._array_object import (Array, _check_category, _floor_divide, _lshift, _rshift, _scalar_tensor, iinfo_range,
                            operands)
from ._dtypes import CATEGORIES

_Tensor = _tensor.Tensor
_object_new = object.__new__

_INF = math.inf


def _array(x, fn):
    if not isinstance(x, Array):
        raise TypeError("%s: expected an Array, got %s" % (fn, type(x).__name__))
    return x


def _unary(name, category, fn):
    def f(x, /):
        _check_category(_array(x, name).dtype, category, name)
        return Array._new(fn(x._t))
    f.__name__ = name
    return f


def _tensor_of(x):
    """The tensor of an Array, or a Tensor itself (the namespace takes both:
    Tensor.__array_namespace__); None for anything else."""
    if type(x) is Array:
        return x._t
    return x if isinstance(x, _Tensor) else None


# Note [The Array API's fast path]
# Most calls pass two arrays of one dtype on one device: no promotion, no
# scalar, nothing to convert. Those are checked here in a few comparisons
# and run the Tensor's operator (the C number slot); anything else takes the
# full path (operands: categories, promotion, scalars, devices). The result
# of an op on Array API dtypes has one, so it is wrapped without Array._new's
# checks. The functions take Tensors themselves, so the namespace does not
# wrap them again (_accepting_tensors in __init__.py).
def _binary(name, category, fn):
    allowed = frozenset(CATEGORIES[category])

    def f(x1, x2, /):
        a, b = _tensor_of(x1), _tensor_of(x2)
        if a is not None and b is not None:
            d, dev = a.dtype, a.device
            if d is b.dtype and d in allowed and (dev is b.device or dev == b.device):
                r = _object_new(Array)
                r._t = fn(a, b)
                return r
        x1 = x1 if a is None or type(x1) is Array else Array._new(a)
        x2 = x2 if b is None or type(x2) is Array else Array._new(b)
        if a is None and b is not None and _is_scalar(x1):  # 2024.12: a Python scalar on either side
            b, a = operands(x2, x1, category, name)
        else:
            a, b = operands(_array(x1, name), x2 if b is None and _is_scalar(x2) else _array(x2, name), category,
                            name)
        if a is NotImplemented or b is NotImplemented:
            raise TypeError("%s: expected arrays or Python scalars, got %s and %s" %
                            (name, type(x1).__name__, type(x2).__name__))
        return Array._new(fn(a, b))
    f.__name__ = name
    f.takes_tensors = True
    return f


def _is_scalar(v):
    return type(v) in (bool, int, float, complex)


def _math(fn_name):
    return lambda t: t._math(fn_name)


# The ops with a Python operator run it: the C type's number slot.
_OPERATORS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul, "div": operator.truediv,
              "pow": operator.pow, "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
              "gt": operator.gt, "ge": operator.ge, "bitwise_and": operator.and_, "bitwise_or": operator.or_,
              "bitwise_xor": operator.xor}


def _op(op_name):
    if op_name in _OPERATORS:
        return _OPERATORS[op_name]
    code = OP[op_name]
    return lambda a, b: _tensor._binop(code, a, b)


def _unop(code):
    return lambda t: _tensor._unop(code, t)


def _same_if_int(fn):
    """floor, ceil, trunc, round of an integer array: the array itself (copied)."""
    return lambda t: t.clone() if t.dtype in _dtypes.integer_dtypes else fn(t)


# A complex number is NaN where either part is, infinite where either part
# is (even with a NaN beside it, as the standard says), finite where both
# parts are.
def _isnan(t):
    if t.dtype in _dtypes.complex_floating_dtypes:
        return _isnan(t.real) | _isnan(t.imag)
    if t.dtype not in _dtypes.real_floating_dtypes:
        return _bools(t, False)
    return t != t


def _isinf(t):
    if t.dtype in _dtypes.complex_floating_dtypes:
        return _isinf(t.real) | _isinf(t.imag)
    if t.dtype not in _dtypes.real_floating_dtypes:
        return _bools(t, False)
    return t.abs() == _INF


def _isfinite(t):
    if t.dtype in _dtypes.complex_floating_dtypes:
        return _isfinite(t.real) & _isfinite(t.imag)
    if t.dtype not in _dtypes.real_floating_dtypes:
        return _bools(t, True)
    return t.abs() < _INF


def _bools(t, value):
    from .._creation import full
    return full(tuple(t.shape), value, dtype=_dtypes.bool, device=t.device)


def _sign(t):
    if t.dtype in _dtypes._unsigned:
        return (t > 0).to(t.dtype)
    return t._math("sign")


def _abs(t):
    return t.clone() if t.dtype in _dtypes._unsigned else t.abs()  # complex: |z| in the real dtype


def _negative(t):
    return -t


def _not(t):
    return t.bitwise_not()


# real and imag are views of the complex array's storage (the standard
# leaves copy or view to the library), as Tensor.real and Tensor.imag.
def _real(t):
    return t.real


def _imag(t):
    return t.imag


def _conj(t):
    return t.conj()


abs = _unary("abs", "numeric", _abs)  # noqa: A001
acos = _unary("acos", "floating-point", _math("acos"))
acosh = _unary("acosh", "floating-point", _math("acosh"))
asin = _unary("asin", "floating-point", _math("asin"))
asinh = _unary("asinh", "floating-point", _math("asinh"))
atan = _unary("atan", "floating-point", _math("atan"))
atanh = _unary("atanh", "floating-point", _math("atanh"))
bitwise_invert = _unary("bitwise_invert", "integer or boolean", _not)
ceil = _unary("ceil", "real numeric", _same_if_int(_math("ceil")))
# conj: numeric dtypes (the standard since 2024.12, NumPy and PyTorch); of a
# real array, a copy.
conj = _unary("conj", "numeric", _conj)
cos = _unary("cos", "floating-point", _math("cos"))
cosh = _unary("cosh", "floating-point", _math("cosh"))
exp = _unary("exp", "floating-point", _unop(OP["exp"]))
expm1 = _unary("expm1", "floating-point", _math("expm1"))
floor = _unary("floor", "real numeric", _same_if_int(_math("floor")))
imag = _unary("imag", "complex floating-point", _imag)
isfinite = _unary("isfinite", "numeric", _isfinite)
isinf = _unary("isinf", "numeric", _isinf)
isnan = _unary("isnan", "numeric", _isnan)
log = _unary("log", "floating-point", _unop(OP["log"]))
log1p = _unary("log1p", "floating-point", _math("log1p"))
log2 = _unary("log2", "floating-point", _math("log2"))
log10 = _unary("log10", "floating-point", _math("log10"))
logical_not = _unary("logical_not", "boolean", _not)
negative = _unary("negative", "numeric", _negative)
positive = _unary("positive", "numeric", lambda t: t.clone())
real = _unary("real", "complex floating-point", _real)
round = _unary("round", "numeric", _same_if_int(_math("round")))  # noqa: A001  (complex: each part)
sign = _unary("sign", "numeric", _sign)  # complex: z / |z|, 0 at 0
sin = _unary("sin", "floating-point", _math("sin"))
sinh = _unary("sinh", "floating-point", _math("sinh"))
square = _unary("square", "numeric", lambda t: t * t)
sqrt = _unary("sqrt", "floating-point", _unop(OP["sqrt"]))
tan = _unary("tan", "floating-point", _math("tan"))
tanh = _unary("tanh", "floating-point", _unop(OP["tanh"]))
trunc = _unary("trunc", "real numeric", _same_if_int(_math("trunc")))

add = _binary("add", "numeric", _op("add"))
atan2 = _binary("atan2", "real floating-point", _op("atan2"))
bitwise_and = _binary("bitwise_and", "integer or boolean", _op("bitwise_and"))
bitwise_left_shift = _binary("bitwise_left_shift", "integer", _lshift)
bitwise_or = _binary("bitwise_or", "integer or boolean", _op("bitwise_or"))
bitwise_right_shift = _binary("bitwise_right_shift", "integer", _rshift)
bitwise_xor = _binary("bitwise_xor", "integer or boolean", _op("bitwise_xor"))
divide = _binary("divide", "floating-point", _op("div"))
equal = _binary("equal", "all", _op("eq"))
floor_divide = _binary("floor_divide", "real numeric", _floor_divide)
greater = _binary("greater", "real numeric", _op("gt"))
greater_equal = _binary("greater_equal", "real numeric", _op("ge"))
less = _binary("less", "real numeric", _op("lt"))
less_equal = _binary("less_equal", "real numeric", _op("le"))
logaddexp = _binary("logaddexp", "real floating-point", _op("logaddexp"))
logical_and = _binary("logical_and", "boolean", _op("bitwise_and"))
logical_or = _binary("logical_or", "boolean", _op("bitwise_or"))
logical_xor = _binary("logical_xor", "boolean", _op("bitwise_xor"))
multiply = _binary("multiply", "numeric", _op("mul"))
not_equal = _binary("not_equal", "all", _op("ne"))
pow = _binary("pow", "numeric", _op("pow"))  # noqa: A001
remainder = _binary("remainder", "real numeric", _op("remainder"))
subtract = _binary("subtract", "numeric", _op("sub"))

# ---- 2023.12 and 2024.12 -------------------------------------------------------------

copysign = _binary("copysign", "real floating-point", _sequences.copysign)
hypot = _binary("hypot", "real floating-point", _sequences.hypot)
maximum = _binary("maximum", "real numeric", _op("maximum"))
minimum = _binary("minimum", "real numeric", _op("minimum"))
nextafter = _binary("nextafter", "real floating-point", _sequences.nextafter)
reciprocal = _unary("reciprocal", "floating-point", lambda t: 1.0 / t)
signbit = _unary("signbit", "real floating-point", _sequences.signbit)


def clip(x, /, min=None, max=None):  # noqa: A002  (the standard's names)
    """2023.12: x clamped to [min, max] (maximum, then minimum: NaN in x or
    in a bound gives NaN), in x's dtype; bounds are arrays or Python
    scalars, broadcast with x. An integer bound beyond x's integer dtype is
    clamped to its range first (the standard leaves it unspecified)."""
    _check_category(_array(x, "clip").dtype, "real numeric", "clip")
    bounds = []
    for bound, op in ((min, "maximum"), (max, "minimum")):
        if bound is None:
            bounds.append(None)
            continue
        if isinstance(bound, Array):
            _check_category(bound.dtype, "real numeric", "clip")
            if x.device != bound.device:
                raise ValueError("clip: the arrays are on different devices (%s and %s)" % (x.device, bound.device))
            b = bound._t if bound.dtype is x.dtype else bound._t.to(x.dtype)
        elif _is_scalar(bound) and not isinstance(bound, (bool, complex)):
            if isinstance(bound, int) and x.dtype in _dtypes.integer_dtypes:
                lo, hi = iinfo_range(x.dtype)
                bound = lo if bound < lo else hi if bound > hi else bound
            b = _scalar_tensor(bound, x._t)
        else:
            raise TypeError("clip: %s must be an array, an int or a float, not %s" %
                            ("min" if op == "maximum" else "max", type(bound).__name__))
        bounds.append(b)
    if bounds == [None, None]:
        return Array._new(x._t.clone())
    return Array._new(_C.clamp(x._t, bounds[0], bounds[1]))  # one pass (CLAMP)


NAMES = [
    "abs", "acos", "acosh", "add", "asin", "asinh", "atan", "atan2", "atanh", "bitwise_and",
    "bitwise_left_shift", "bitwise_invert", "bitwise_or", "bitwise_right_shift", "bitwise_xor", "ceil", "conj",
    "cos", "cosh", "divide", "equal", "exp", "expm1", "floor", "floor_divide", "greater", "greater_equal", "imag",
    "isfinite", "isinf", "isnan", "less", "less_equal", "log", "log1p", "log2", "log10", "logaddexp",
    "logical_and", "logical_not", "logical_or", "logical_xor", "multiply", "negative", "not_equal", "positive",
    "pow", "real", "remainder", "round", "sign", "sin", "sinh", "square", "sqrt", "subtract", "tan", "tanh",
    "trunc",
    "clip", "copysign", "hypot", "maximum", "minimum", "nextafter", "reciprocal", "signbit",
]
__all__ = NAMES
