# SPDX-License-Identifier: Apache-2.0
"""tessera.array_api: the Python Array API standard, version 2025.12, with
its complex dtypes and its linalg and fft extensions, on every tessera
device.

    import tessera.array_api as xp
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]], device="cuda")
    xp.sum(x, axis=0)
    z = xp.asarray([1 + 2j, -1j])  # complex128, the default complex dtype
    xp.abs(z), xp.real(z), xp.vecdot(z, z)

Arrays are Array objects around a tessera Tensor (Array._t); every function
runs tessera's ops on its arguments' device. Promotion is the standard's
table only (Note [Array API promotion] in _dtypes.py). The default dtypes are
int64, float64 and complex128; the default device is
$TESSERA_ARRAY_API_DEVICE when set, else the runtime's default.
x.__array_namespace__(api_version=...) gives an older version's namespace
(2021.12 to 2024.12), whose few differing semantics it keeps (Note [Older
versions of the standard] in _versions.py).

Complex arrays (complex64, complex128) go through the elementwise
functions the standard defines on them (real, imag and conj among them;
abs gives the real dtype), sum, prod and mean, matmul, tensordot, vecdot
(conjugating x1) and all of linalg. The functions the standard gives real
dtypes only (ceil, floor, trunc, the comparisons of order, max, min,
argmax, argmin, sort, argsort, std, var, ...) refuse them with TypeError.

__array_namespace_info__() answers the inspection API; "max dimensions" is
16 (TSR_MAX_DIMS, which reshape and every view refuse to exceed).
"""
import builtins as _builtins
import functools as _functools
import sys as _sys

from .._tensor import Tensor as _Tensor, late as _late
from ._array_object import Array
from ._creation_functions import (arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like, linspace,
                                  meshgrid, ones, ones_like, tril, triu, zeros, zeros_like)
from ._data_type_functions import (astype, broadcast_arrays, broadcast_to, can_cast, finfo, iinfo, isdtype,
                                   result_type)
from ._dtypes import (bool, complex64, complex128, float32, float64, int8, int16, int32, int64,  # noqa: A004
                      uint8, uint16, uint32, uint64)
from ._elementwise_functions import *  # noqa: F401,F403
from ._elementwise_functions import NAMES as _ELEMENTWISE
from ._manipulation_functions import (broadcast_shapes, concat, expand_dims, flip, matmul, matrix_transpose,
                                      moveaxis, permute_dims, repeat, reshape, roll, squeeze, stack, tensordot, tile,
                                      unstack, vecdot)
from ._reduction_functions import (all, any, argmax, argmin, argsort, count_nonzero, cumulative_prod, cumulative_sum,
                                   diff, isin, max, mean, min, nonzero, prod, searchsorted, sort, std, sum,
                                   unique_all, unique_counts, unique_inverse, unique_values, var, where)
from ._take import take, take_along_axis
from ._info import __array_namespace_info__
from . import linalg  # the extension, found as an attribute: hasattr(xp, "linalg")
from . import fft  # the fft extension (2025.12): hasattr(xp, "fft")
from . import _versions  # older versions' namespaces (Note [Older versions of the standard])

__array_api_version__ = "2025.12"


# Tensor.__array_namespace__() returns this namespace, so its functions take
# tessera Tensors too (alone, or in the lists of concat, stack, meshgrid and
# broadcast_arrays): each is read as the Array around it, without a copy,
# and results are Arrays.
def _as_array(v):
    if isinstance(v, _Tensor):
        return Array._new(v)
    if type(v) in (list, tuple) and _builtins.any(isinstance(e, _Tensor) for e in v):  # `any` is ours here
        return type(v)(_as_array(e) for e in v)
    return v


def _accepting_tensors(fn):
    @_functools.wraps(fn)
    def f(*args, **kwargs):
        return fn(*[_as_array(a) for a in args], **{k: _as_array(v) for k, v in kwargs.items()})
    return f

e = 2.718281828459045
inf = float("inf")
nan = float("nan")
pi = 3.141592653589793
newaxis = None  # x[newaxis] inserts an axis of size one

__all__ = [
    "__array_api_version__", "__array_namespace_info__", "Array", "e", "inf", "nan", "newaxis", "pi",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
    "complex64", "complex128",
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like", "linspace", "meshgrid",
    "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
    "astype", "broadcast_arrays", "broadcast_to", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    "concat", "expand_dims", "flip", "permute_dims", "reshape", "roll", "squeeze", "stack",
    "broadcast_shapes", "moveaxis", "repeat", "tile", "unstack",
    "matmul", "matrix_transpose", "tensordot", "vecdot",
    "all", "any", "argmax", "argmin", "argsort", "max", "mean", "min", "nonzero", "prod", "sort", "std", "sum",
    "unique_all", "unique_counts", "unique_inverse", "unique_values", "var", "where", "take",
    "count_nonzero", "cumulative_prod", "cumulative_sum", "diff", "isin", "searchsorted", "take_along_axis",
] + _ELEMENTWISE

_CONSTANTS = {"__array_api_version__", "__array_namespace_info__", "Array", "e", "inf", "nan", "newaxis", "pi",
              "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
              "complex64", "complex128"}
for _name in __all__:
    if _name not in _CONSTANTS and not getattr(globals()[_name], "takes_tensors", False):
        globals()[_name] = _accepting_tensors(globals()[_name])
for _name in linalg.__all__:
    setattr(linalg, _name, _accepting_tensors(getattr(linalg, _name)))
__all__.append("linalg")
for _name in fft.__all__:  # the fft extension, as linalg above
    setattr(fft, _name, _accepting_tensors(getattr(fft, _name)))
__all__.append("fft")
del _name


_late.array_api = _sys.modules[__name__]  # what Tensor.__array_namespace__() returns
