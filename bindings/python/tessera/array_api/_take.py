# SPDX-License-Identifier: Apache-2.0
"""take (the 2022.12 standard's): x's elements at 1-d integer `indices`
along axis (None only for 1-d x)."""
import operator

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
