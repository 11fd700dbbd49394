# SPDX-License-Identifier: Apache-2.0
"""Tessera from Python: a package over libtessera's C API.

The names and behaviour are PyTorch's: tessera.tensor, zeros, arange, ...,
Tensor views and indexing, broadcasting arithmetic with Python scalars,
NumPy and DLPack sharing, and tessera.testing.assert_close.

The package's one binding is its compiled extension, tessera._C, linked to
libtessera: in the package directory once installed, else in the build tree
beside the libtessera found from $TESSERA_LIBRARY or by walking up from this
package (_lib.py). The runtime is created on first use from $TESSERA_CONFIG
or the default config beside the library.
"""
# Note [Layers of the package] (in _tensor.py) orders these imports: each
# module imports only from the layers below it.
from . import _lib, _types  # noqa: F401
from . import _C  # the extension (tessera._C), which _lib has loaded  # noqa: F401
from ._types import (Size, bfloat16, complex64, complex128, device, dtype, finfo, float16, float32, float64, int8,
                     int16, int32, int64, promote_types, uint8, uint16, uint32, uint64)
from ._types import bool_ as bool  # noqa: A001  (tessera.bool, as torch.bool)
from ._tensor import Tensor
from ._creation import (arange, as_tensor, empty, empty_like, full, full_like, linspace, manual_seed, ones,
                        ones_like, rand, rand_like, randn, randn_like, tensor, zeros, zeros_like)
from ._numpy import from_numpy
from ._dlpack import from_dlpack
from ._functions import *  # noqa: F401,F403  (add, where, cat, eye, devices, ...: _functions.__all__)
from . import _advanced, _grad  # noqa: F401  (indexing by tensors, backward and hooks)
from . import autograd, linalg, testing
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .linalg import outer, tensordot  # torch.outer, torch.tensordot
from . import optim  # tessera.optim: SGD, Adam, AdamW and their schedulers (tessera/optim.h)
from . import nn  # tessera.nn: torch.nn's Module, layers, losses, functional and init
from . import safetensors  # tessera.safetensors: save_file, load_file (tessera/safetensors.h)
from . import fft  # tessera.fft: torch.fft's transforms and helpers (tessera/fft.h)
from . import array_api  # tessera.array_api, the namespace Tensor.__array_namespace__ returns

__version__ = "0.1.0"

__all__ = [
    "Tensor", "Size", "device", "dtype", "finfo", "linalg", "testing", "tensor", "as_tensor", "zeros", "ones", "full",
    "empty", "arange", "linspace", "rand", "randn", "manual_seed", "from_numpy", "from_dlpack",
    "broadcast_shapes", "set_printoptions", "add", "sub", "mul", "div", "maximum", "minimum", "where", "relu",
    "sigmoid", "exp", "log", "sqrt", "tanh", "abs", "neg", "pow", "matmul", "sum", "mean", "max", "min",
    "argmax", "float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool",
    "uint16", "uint32", "uint64", "complex64", "complex128", "cfloat", "cdouble", "real", "imag", "conj",
    "conj_physical", "is_complex", "is_floating_point",
    "promote_types", "get_default_dtype", "is_tensor", "zeros_like", "ones_like", "full_like", "empty_like",
    "rand_like", "randn_like", "clone", "reshape", "transpose", "permute", "flatten", "unsqueeze", "squeeze",
    "eq", "ne", "lt", "le", "gt", "ge", "describe", "devices", "cuda", "synchronize", "empty_cache", "memory_stats",
    "set_float32_matmul_precision", "get_float32_matmul_precision", "backends",
    "atan2", "floor_divide", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "bitwise_left_shift", "bitwise_right_shift", "logaddexp", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
    "cosh", "asinh", "acosh", "atanh", "expm1", "log1p", "erf", "log2", "log10", "floor", "ceil", "trunc", "round",
    "sign", "argmin", "prod", "var", "std", "cumsum", "gather", "index_select", "take", "scatter", "scatter_add",
    "nonzero", "sort", "argsort", "msort", "flip", "cat", "concat", "stack", "roll", "tril", "triu", "eye", "unique",
    "clamp", "clip", "outer", "tensordot", "diagonal", "logsumexp", "softmax", "log_softmax", "amax", "amin", "all", "any", "equal", "autograd", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
]
