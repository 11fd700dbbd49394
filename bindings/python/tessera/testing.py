# SPDX-License-Identifier: Apache-2.0
"""tessera.testing.assert_close: PyTorch's defaults and messages, from tsr_assert_close."""
from ._lib import C, ERR_INVALID_ARGUMENT, error
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
    st = C.assert_close(a._h, e._h, -1.0 if rtol is None else float(rtol), -1.0 if atol is None else float(atol),
                        1 if equal_nan else 0)
    if st == ERR_INVALID_ARGUMENT:
        text = str(error(st))
        if msg is not None:
            text = msg(text) if callable(msg) else msg
        raise AssertionError(text)
    if st:
        raise error(st)
