# SPDX-License-Identifier: Apache-2.0
"""tessera.testing.assert_close: PyTorch's defaults and messages, from tsr_assert_close."""
from . import _C
from ._tensor import Tensor

__all__ = ["assert_close"]


def _as_tensor(x):
    if isinstance(x, Tensor):
        return x
    from ._creation import as_tensor
    return as_tensor(x)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """Raises AssertionError unless actual and expected have the same shape,
    dtype and device and |actual - expected| <= atol + rtol * |expected|
    everywhere. rtol and atol default per dtype (float32: 1.3e-6 and 1e-5;
    float64: 1e-7 and 1e-7; exact for integers)."""
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got no %s." %
                         ("atol" if atol is None else "rtol"))
    a, e = _as_tensor(actual), _as_tensor(expected)
    if not check_dtype and a.dtype is not e.dtype:
        from ._types import promote_types
        common = promote_types(a.dtype, e.dtype)
        a, e = a.to(common), e.to(common)
    if not check_device and a.device != e.device:
        e = e.to(a.device)
    if check_stride and a.shape == e.shape and a.stride() != e.stride():
        raise AssertionError(msg if isinstance(msg, str) else "The values for attribute 'stride()' do not match: %s != %s." %
                             (a.stride(), e.stride()))
    try:
        # A mismatch raises AssertionError with the C message naming the worst element.
        _C.assert_close(a, e, -1.0 if rtol is None else float(rtol), -1.0 if atol is None else float(atol),
                        bool(equal_nan))
        return
    except AssertionError as mismatch:
        if msg is None:
            raise
        text = str(mismatch)
    raise AssertionError(msg(text) if callable(msg) else msg)
