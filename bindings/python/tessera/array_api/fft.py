# SPDX-License-Identifier: Apache-2.0
"""The Array API's fft extension, 2025.12 (xp.fft): its 14 functions over
tessera.fft (tsr_fft), on the input's device.

The dtypes are the standard's: fft, ifft, fftn, ifftn, irfft, irfftn and
hfft take complex floating-point arrays, rfft, rfftn and ihfft real
floating-point ones (anything else: TypeError, as the standard's other
functions refuse a dtype outside their category); complex results keep the
input's precision (complex64 for float32), and so do real ones (float32 for
complex64). A length below 1 or a repeated axis is a ValueError, an axis out
of range an IndexError. fftfreq and rfftfreq make the default real
floating-point dtype (float64) unless dtype says otherwise.
"""
import operator

from .. import fft as _fft
from . import _dtypes
from ._array_object import Array, _check_category, _extension_operand
from ._creation_functions import _device

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft", "fftfreq",
           "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")


def _tensor(x, category, name):
    return _extension_operand(x, category, name, "fft")


def _norm(norm, name):
    if norm not in _NORMS:
        raise ValueError("fft.%s: norm must be 'backward', 'ortho' or 'forward', not %r" % (name, norm))
    return norm


def _run(fn, name, *args, **kwargs):
    """tessera.fft's function; its RuntimeErrors (lengths, repeated axes) as ValueError."""
    try:
        return Array._new(fn(*args, **kwargs))
    except RuntimeError as e:
        raise ValueError("fft.%s: %s" % (name, e)) from None


def _one(name, fn, category, x, n, axis, norm):
    t = _tensor(x, category, name)
    n = None if n is None else operator.index(n)
    if n is not None and n < 1:
        raise ValueError("fft.%s: n must be at least 1, not %d" % (name, n))
    return _run(fn, name, t, n=n, dim=operator.index(axis), norm=_norm(norm, name))


def _many(name, fn, category, x, s, axes, norm):
    t = _tensor(x, category, name)
    if s is not None:
        s = [operator.index(v) for v in s]
        for v in s:
            if v < 1 and v != -1:
                raise ValueError("fft.%s: every length in s must be at least 1 (or -1), not %d" % (name, v))
    if axes is not None:
        axes = [operator.index(a) for a in axes]
        if s is not None and len(s) != len(axes):
            raise ValueError("fft.%s: s and axes must have the same number of elements (%d and %d)" %
                             (name, len(s), len(axes)))
    return _run(fn, name, t, s=s, dim=axes, norm=_norm(norm, name))


def fft(x, /, *, n=None, axis=-1, norm="backward"):
    return _one("fft", _fft.fft, "complex floating-point", x, n, axis, norm)


def ifft(x, /, *, n=None, axis=-1, norm="backward"):
    return _one("ifft", _fft.ifft, "complex floating-point", x, n, axis, norm)


def fftn(x, /, *, s=None, axes=None, norm="backward"):
    return _many("fftn", _fft.fftn, "complex floating-point", x, s, axes, norm)


def ifftn(x, /, *, s=None, axes=None, norm="backward"):
    return _many("ifftn", _fft.ifftn, "complex floating-point", x, s, axes, norm)


def rfft(x, /, *, n=None, axis=-1, norm="backward"):
    return _one("rfft", _fft.rfft, "real floating-point", x, n, axis, norm)


def irfft(x, /, *, n=None, axis=-1, norm="backward"):
    return _one("irfft", _fft.irfft, "complex floating-point", x, n, axis, norm)


def rfftn(x, /, *, s=None, axes=None, norm="backward"):
    return _many("rfftn", _fft.rfftn, "real floating-point", x, s, axes, norm)


def irfftn(x, /, *, s=None, axes=None, norm="backward"):
    return _many("irfftn", _fft.irfftn, "complex floating-point", x, s, axes, norm)


def hfft(x, /, *, n=None, axis=-1, norm="backward"):
    return _one("hfft", _fft.hfft, "complex floating-point", x, n, axis, norm)


def ihfft(x, /, *, n=None, axis=-1, norm="backward"):
    return _one("ihfft", _fft.ihfft, "real floating-point", x, n, axis, norm)


def _freq_dtype(dtype, name):
    if dtype is None:
        return _dtypes.default_float
    dtype = _dtypes.check_dtype(dtype)
    _check_category(dtype, "real floating-point", name)
    return dtype


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    n = operator.index(n)
    if n < 1:
        raise ValueError("fft.fftfreq: n must be at least 1, not %d" % n)
    return Array._new(_fft.fftfreq(n, d, dtype=_freq_dtype(dtype, "fftfreq"), device=_device(device)))


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    n = operator.index(n)
    if n < 1:
        raise ValueError("fft.rfftfreq: n must be at least 1, not %d" % n)
    return Array._new(_fft.rfftfreq(n, d, dtype=_freq_dtype(dtype, "rfftfreq"), device=_device(device)))


def _shift(name, fn, x, axes):
    t = _tensor(x, "all", name)
    if axes is not None:
        axes = [operator.index(axes)] if hasattr(axes, "__index__") else [operator.index(a) for a in axes]
    return Array._new(fn(t, dim=axes))


def fftshift(x, /, *, axes=None):
    return _shift("fftshift", _fft.fftshift, x, axes)


def ifftshift(x, /, *, axes=None):
    return _shift("ifftshift", _fft.ifftshift, x, axes)
