# SPDX-License-Identifier: Apache-2.0
"""take (the 2022.12 standard's): x's elements at 1-d integer `indices`
along axis (None only for 1-d x); take_along_axis (2024.12)."""
import operator

from .. import _sequences
from . import _dtypes
from ._array_object import Array


def take(x, indices, /, *, axis=None):
    if axis is None:
        if x.ndim != 1:
            raise ValueError("take: axis is required for an array of %d dims" % x.ndim)
        axis = 0
    if not isinstance(indices, Array) or indices.dtype not in _dtypes.integer_dtypes or indices.ndim != 1:
        raise TypeError("take: indices must be a 1-d integer array")
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise IndexError("take: axis %d is out of range for an array of %d dims" % (axis, x.ndim))
    return Array._new(x._t.index_select(axis, indices._t))


def take_along_axis(x, indices, /, *, axis=-1):
    """2024.12: x's elements at `indices` (an integer array of x's ndim,
    negative ones from the end) along axis, the other axes broadcast."""
    if not isinstance(indices, Array) or indices.dtype not in _dtypes.integer_dtypes:
        raise TypeError("take_along_axis: indices must be an integer array")
    if indices.ndim != x.ndim:
        raise ValueError("take_along_axis: indices have %d dims, x %d" % (indices.ndim, x.ndim))
    if x.ndim == 0:
        raise ValueError("take_along_axis: x must have at least one dimension")
    axis = operator.index(axis)
    if not -x.ndim <= axis < x.ndim:
        raise IndexError("take_along_axis: axis %d is out of range for an array of %d dims" % (axis, x.ndim))
    try:
        return Array._new(_sequences.take_along_dim(x._t, indices._t, axis))
    except RuntimeError as e:
        raise IndexError("take_along_axis: %s" % e) from None
