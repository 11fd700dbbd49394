# SPDX-License-Identifier: Apache-2.0
"""The Array API's dtypes (tessera's dtype objects), their categories and the
standard's type promotion table (Note [Array API promotion]), and the
default device.

Note [Array API promotion]
  Only the pairs in the standard's table (2022.12's) promote: within the
  signed integers, within the unsigned integers, an unsigned with a wider
  signed integer (uint8 with int8 gives int16; uint64 with any signed
  integer is not in the table), within the floating-point dtypes, real and
  complex (a complex dtype with a float gives the complex dtype whose parts
  are the wider of the two: float64 with complex64 gives complex128), bool
  with bool. Anything else (an integer with a float or a complex, bool with
  a number) raises TypeError, even where tessera's PyTorch-style promotion
  would give an answer. A Python scalar beside an array takes the array's
  dtype: bool beside bool arrays, int beside integer and floating-point
  arrays, float beside floating-point ones (real or complex), complex
  beside complex ones only (an int out of the integer dtype's range raises
  OverflowError).
"""
import builtins
import os

from .. import _types

bool = _types.bool_  # noqa: A001
int8, int16, int32, int64 = _types.int8, _types.int16, _types.int32, _types.int64
uint8, uint16, uint32, uint64 = _types.uint8, _types.uint16, _types.uint32, _types.uint64
float32, float64 = _types.float32, _types.float64
complex64, complex128 = _types.complex64, _types.complex128

default_int = int64
default_uint = uint64
default_float = float64
default_complex = complex128  # the standard's: the complex dtype of the default float

_signed = (int8, int16, int32, int64)
_unsigned = (uint8, uint16, uint32, uint64)
integer_dtypes = _signed + _unsigned
real_floating_dtypes = (float32, float64)
complex_floating_dtypes = (complex64, complex128)
floating_dtypes = real_floating_dtypes + complex_floating_dtypes  # the standard's "floating-point"
real_numeric_dtypes = integer_dtypes + real_floating_dtypes
numeric_dtypes = real_numeric_dtypes + complex_floating_dtypes
all_dtypes = (bool,) + numeric_dtypes
boolean_dtypes = (bool,)

# The dtype categories of the standard's function signatures (2022.12):
# "floating-point" and "numeric" include the complex dtypes, the "real"
# categories do not.
CATEGORIES = {
    "all": all_dtypes,
    "numeric": numeric_dtypes,
    "real numeric": real_numeric_dtypes,
    "integer": integer_dtypes,
    "integer or boolean": integer_dtypes + boolean_dtypes,
    "boolean": boolean_dtypes,
    "floating-point": floating_dtypes,
    "real floating-point": real_floating_dtypes,
    "complex floating-point": complex_floating_dtypes,
}

REAL_OF = {complex64: float32, complex128: float64}  # a complex dtype's parts
COMPLEX_OF = {float32: complex64, float64: complex128}

# Bits of a dtype's values, of each part for a complex one.
_BITS = {d: REAL_OF.get(d, d).itemsize * 8 for d in all_dtypes}


def _promote(a, b):
    if a is b:
        return a
    if a in _signed and b in _signed or a in _unsigned and b in _unsigned or \
            a in real_floating_dtypes and b in real_floating_dtypes:
        return a if _BITS[a] >= _BITS[b] else b
    if a in floating_dtypes and b in floating_dtypes:  # one complex at least
        return COMPLEX_OF[float32 if max(_BITS[a], _BITS[b]) == 32 else float64]
    if a in _unsigned and b in _signed:
        a, b = b, a
    if a in _signed and b in _unsigned:  # a signed, b unsigned
        bits = max(_BITS[a], 2 * _BITS[b])
        if bits <= 64:
            return {8: int8, 16: int16, 32: int32, 64: int64}[bits]
    return None


PROMOTION = {(a, b): _promote(a, b) for a in all_dtypes for b in all_dtypes if _promote(a, b) is not None}


def promote(a, b):
    """The standard's promotion of two dtypes; TypeError outside its table."""
    r = PROMOTION.get((a, b))
    if r is None:
        raise TypeError("%s and %s cannot be type promoted together (the Array API's promotion table "
                        "has no such pair)" % (name(a), name(b)))
    return r


def name(d):
    return getattr(d, "_name", repr(d))


# Python's scalar types as dtypes, as NumPy takes them (np.dtype(int) is int64
# here) and code written for NumPy passes them (scikit-learn's
# xp.astype(scores > 0, int)): each names the standard's default of its kind.
_PYTHON_TYPES = {int: default_int, float: default_float, complex: default_complex}


def check_dtype(d, what="dtype"):
    """The Array API dtype d names: one of all_dtypes, Python's bool, int,
    float or complex, or a NumPy dtype (or scalar type) of one of their names."""
    if type(d) is _types.dtype:  # by identity: a NumPy dtype equals ours of its name (np.dtype reads our .dtype)
        if d in all_dtypes:
            return d
    elif d is builtins.bool:
        return bool
    elif isinstance(d, type) and d in _PYTHON_TYPES:
        return _PYTHON_TYPES[d]
    elif type(d).__module__ == "numpy" or (isinstance(d, type) and d.__module__ == "numpy"):
        import numpy
        try:
            n = numpy.dtype(d).name
        except TypeError:
            n = None
        for a in all_dtypes:
            if a._name == n:
                return a
    raise ValueError("%s must be one of the Array API's dtypes, not %r" % (what, d))


def check_cast(src, dst, what):
    """TypeError for a cast from a complex dtype to a real number dtype: the
    standard (2022.12, astype) wants the part to keep said explicitly, with
    real() or imag(). To bool (nonzero) and to complex dtypes is fine."""
    if src in complex_floating_dtypes and dst in real_numeric_dtypes:
        raise TypeError("%s: casting %s to %s would drop the imaginary part; cast real(x) or imag(x) instead" %
                        (what, name(src), name(dst)))


_default_device = []


def default_device():
    """The device arrays are created on when none is given: the device
    named by $TESSERA_ARRAY_API_DEVICE ("cpu", "cuda", "cuda:1", ...) when
    set, else the runtime's default device."""
    if not _default_device:
        text = os.environ.get("TESSERA_ARRAY_API_DEVICE")
        if text:
            _default_device.append(_types.device(text))
        else:
            from .. import _lib
            _default_device.append(_types.device_from(*_lib.default_device()))
    return _default_device[0]
