# SPDX-License-Identifier: Apache-2.0
"""tessera.fft: torch.fft's functions (PyTorch 1.13's names, arguments and
dtypes) over tsr_fft (tessera/fft.h, ABI 1.11): fft, ifft, fft2, ifft2,
fftn, ifftn, rfft, irfft, rfft2, irfft2, rfftn, irfftn, hfft, ihfft, and
the helpers fftfreq, rfftfreq, fftshift and ifftshift.

Each transform is one C call, which runs the FFT kind's kernels on the
input's device (one dim at a time; a device without them runs them on the
CPU fallback). Integers, bool and the half types are promoted to float32
(complex64), as torch does; float64 and complex128 keep their precision.
hfft and ihfft are irfft and rfft of the conjugate with the norm's
direction swapped, as torch writes them.
"""
import operator

from . import _C, _creation
from ._functions import roll as _roll
from ._tensor import Tensor
from ._types import float32

_C2C, _R2C, _C2R = 0, 1, 2
_NORMS = {None: 0, "backward": 0, "ortho": 1, "forward": 2}
# hfft and ihfft scale as the opposite direction (torch's forward=True c2r / r2c).
_SWAPPED = {0: 2, 1: 1, 2: 0}

__all__ = ["fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2", "rfftn", "irfftn",
           "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _tensor(name, x):
    if not isinstance(x, Tensor):
        raise TypeError("fft_%s(): argument 'input' (position 1) must be Tensor, not %s" % (name, type(x).__name__))
    return x


def _norm(norm):
    try:
        return _NORMS[norm]
    except (KeyError, TypeError):
        raise RuntimeError('Invalid normalization mode: "%s"' % (norm,)) from None


def _one(name, x, n, dim, norm, kind, inverse, swap=False):
    x = _tensor(name, x)
    code = _norm(norm)
    if swap:
        code = _SWAPPED[code]
    lengths = None if n is None else [operator.index(n)]
    return _C.fft(x, kind, inverse, code, [operator.index(dim)], lengths)


def _plan(x, s, dim):
    """torch.fft's rule for s and dim: (dims, lengths or None)."""
    ndim = x.dim()
    if s is not None:
        s = [operator.index(v) for v in s]
    if dim is not None:
        dim = [operator.index(dim)] if hasattr(dim, "__index__") else [operator.index(d) for d in dim]
        if s is not None and len(s) != len(dim):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        return dim, s
    if s is None:
        return list(range(ndim)), None
    if len(s) > ndim:
        raise RuntimeError("Got shape with %d values but input tensor only has %d dimensions." % (len(s), ndim))
    return list(range(ndim - len(s), ndim)), s


def _many(name, x, s, dim, norm, kind, inverse):
    x = _tensor(name, x)
    dims, lengths = _plan(x, s, dim)
    return _C.fft(x, kind, inverse, _norm(norm), dims, lengths)


def fft(input, n=None, dim=-1, norm=None):
    return _one("fft", input, n, dim, norm, _C2C, 0)


def ifft(input, n=None, dim=-1, norm=None):
    return _one("ifft", input, n, dim, norm, _C2C, 1)


def rfft(input, n=None, dim=-1, norm=None):
    return _one("rfft", input, n, dim, norm, _R2C, 0)


def irfft(input, n=None, dim=-1, norm=None):
    return _one("irfft", input, n, dim, norm, _C2R, 1)


def hfft(input, n=None, dim=-1, norm=None):
    return _one("hfft", _tensor("hfft", input).conj(), n, dim, norm, _C2R, 1, swap=True)


def ihfft(input, n=None, dim=-1, norm=None):
    return _one("ihfft", input, n, dim, norm, _R2C, 0, swap=True).conj()


def fftn(input, s=None, dim=None, norm=None):
    return _many("fftn", input, s, dim, norm, _C2C, 0)


def ifftn(input, s=None, dim=None, norm=None):
    return _many("ifftn", input, s, dim, norm, _C2C, 1)


def rfftn(input, s=None, dim=None, norm=None):
    return _many("rfftn", input, s, dim, norm, _R2C, 0)


def irfftn(input, s=None, dim=None, norm=None):
    return _many("irfftn", input, s, dim, norm, _C2R, 1)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    return _many("fft2", input, s, dim, norm, _C2C, 0)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    return _many("ifft2", input, s, dim, norm, _C2C, 1)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    return _many("rfft2", input, s, dim, norm, _R2C, 0)


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    return _many("irfft2", input, s, dim, norm, _C2R, 1)


def _freq(n, d, values, dtype, device, requires_grad):
    scale = n * d
    out = _creation.tensor([v / scale for v in values], dtype=float32 if dtype is None else dtype, device=device)
    if requires_grad:
        out.requires_grad_(True)
    return out


def fftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The sample frequencies of fft's result: [0, 1, ..., -(n // 2), ..., -1] / (d n)."""
    n = operator.index(n)
    values = [float(k) for k in range((n - 1) // 2 + 1)] + [float(k) for k in range(-(n // 2), 0)]
    return _freq(n, d, values, dtype, device, requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, device=None, requires_grad=False):
    """The sample frequencies of rfft's result: [0, 1, ..., n // 2] / (d n)."""
    n = operator.index(n)
    return _freq(n, d, [float(k) for k in range(n // 2 + 1)], dtype, device, requires_grad)


def _shift(name, input, dim, sign):
    x = _tensor(name, input)
    if dim is None:
        dim = list(range(x.dim()))
    elif hasattr(dim, "__index__"):
        dim = [operator.index(dim)]
    else:
        dim = [operator.index(d) for d in dim]
    if not dim:
        return x.clone()
    shape = tuple(x.shape)
    return _roll(x, [sign * (shape[d] // 2) for d in dim], dim)


def fftshift(input, dim=None):
    """The zero frequency moved to the middle: a roll by n // 2 on each dim."""
    return _shift("fftshift", input, dim, 1)


def ifftshift(input, dim=None):
    """fftshift's inverse: a roll by -(n // 2) on each dim."""
    return _shift("ifftshift", input, dim, -1)

