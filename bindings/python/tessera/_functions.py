# SPDX-License-Identifier: Apache-2.0
"""The torch-flavoured functions over tensors and numbers (tessera.add,
where, cat, eye, broadcast_shapes, ...), the devices and the runtime's
settings: the package's function layer, which tessera/__init__.py re-exports
(Note [Layers of the package] in _tensor.py)."""
import builtins as _builtins
import operator as _operator

from . import _C, _lib, _types
from ._types import device_arg as _device_arg
from ._types import Size, complex64, complex128, float16, float32, float64, int16, int32, int64
from ._tensor import Tensor, _binop, _binop_out, _rbinop, _tensor_only, _unop, _unop_out, late, scalar as _scalar
from ._creation import tensor
from ._sequences import (copysign, count_nonzero, cumprod, diff, hypot, isin, moveaxis, movedim, nextafter,
                         repeat_interleave, searchsorted, signbit, take_along_dim, tile)

half, double, long, short = float16, float64, int64, int16
cfloat, cdouble = complex64, complex128
float = float32  # noqa: A001  (torch.float)
int = int32  # noqa: A001  (torch.int)


def devices():
    """The devices the config enabled that are available here, in the
    runtime's order: [device(type='cpu'), device(type='cuda', index=0), ...]."""
    return [_types.device_from(t, i) for t, i in _C.devices()]


class cuda:  # noqa: N801  (torch.cuda)
    """torch.cuda's questions, answered from the loaded cuda plugin."""

    @staticmethod
    def device_count():
        return len([d for d in devices() if d.type == "cuda"])

    @staticmethod
    def is_available():
        return cuda.device_count() > 0


def synchronize(device=None):
    """Waits for the work queued on `device` (default: the default device)."""
    _C.synchronize(_device_arg(device))


def empty_cache(device=None):
    """Returns `device`'s cached, unused memory to the system (torch.cuda.empty_cache)."""
    _C.empty_cache(_device_arg(device))


def memory_stats(device=None):
    """{"in_use": bytes in live tensors, "reserved": bytes held, cached included}
    (torch.cuda.memory_allocated / memory_reserved); RuntimeError when the
    device's plugin does not report them."""
    in_use, reserved = _C.get_memory_stats(_device_arg(device))
    return {"in_use": in_use, "reserved": reserved}


def get_default_dtype():
    return float32


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(t):
    return t.numel()


def abi_version():
    """The library's ABI version as (major, minor)."""
    v = _C.abi_version()
    return (v >> 16, v & 0xFFFF)


# ---- functions over tensors and numbers -------------------------------------------


def _out_arg(name, out):
    if not isinstance(out, Tensor):
        raise TypeError("%s(): argument 'out' must be Tensor, not %s" % (name, type(out).__name__))
    return out


def _op2(name, op):
    def fn(input, other, *, out=None):
        if out is not None:
            return _binop_out(op, input, other, _out_arg(name, out))
        if isinstance(input, Tensor):
            return _binop(op, input, other)
        if isinstance(other, Tensor):
            return _rbinop(op, other, input)
        raise TypeError("%s(): argument 'input' must be Tensor, not %s" % (name, type(input).__name__))
    fn.__name__ = name
    fn.__doc__ = ("PyTorch's torch.%s with broadcasting and type promotion; out= writes into an existing "
                  "tensor, to whose shape the inputs broadcast (NumPy's rule: out is never resized)." % name)
    return fn


add = _op2("add", _lib.OP["add"])
sub = subtract = _op2("sub", _lib.OP["sub"])
mul = multiply = _op2("mul", _lib.OP["mul"])
div = divide = true_divide = _op2("div", _lib.OP["div"])


def maximum(input, other, *, out=None):
    a, b = _tensor_arg("maximum", input), _tensor_only("maximum", other, 2)
    return a.maximum(b) if out is None else _binop_out(_lib.OP["maximum"], a, b, _out_arg("maximum", out))


def minimum(input, other, *, out=None):
    a, b = _tensor_arg("minimum", input), _tensor_only("minimum", other, 2)
    return a.minimum(b) if out is None else _binop_out(_lib.OP["minimum"], a, b, _out_arg("minimum", out))


pow = _op2("pow", _lib.OP["pow"])  # noqa: A001
eq = _op2("eq", _lib.OP["eq"])
ne = _op2("ne", _lib.OP["ne"])
lt = _op2("lt", _lib.OP["lt"])
le = _op2("le", _lib.OP["le"])
gt = _op2("gt", _lib.OP["gt"])
ge = _op2("ge", _lib.OP["ge"])


def _tensor_arg(name, x):
    if not isinstance(x, Tensor):
        raise TypeError("%s(): argument 'input' (position 1) must be Tensor, not %s" % (name, type(x).__name__))
    return x


def _op1(name):
    code = _lib.OP[name]

    def fn(input, *, out=None):
        if out is not None:
            return _unop_out(code, _tensor_arg(name, input), _out_arg(name, out))
        return _unop(code, _tensor_arg(name, input))
    fn.__name__ = name
    return fn


neg = negative = _op1("neg")
abs = _op1("abs")  # noqa: A001
exp = _op1("exp")
log = _op1("log")
sqrt = _op1("sqrt")
relu = _op1("relu")
sigmoid = _op1("sigmoid")
tanh = _op1("tanh")

atan2 = arctan2 = _op2("atan2", _lib.OP["atan2"])
floor_divide = _op2("floor_divide", _lib.OP["floor_divide"])
remainder = _op2("remainder", _lib.OP["remainder"])
bitwise_and = _op2("bitwise_and", _lib.OP["bitwise_and"])
bitwise_or = _op2("bitwise_or", _lib.OP["bitwise_or"])
bitwise_xor = _op2("bitwise_xor", _lib.OP["bitwise_xor"])
bitwise_left_shift = _op2("bitwise_left_shift", _lib.OP["bitwise_left_shift"])
bitwise_right_shift = _op2("bitwise_right_shift", _lib.OP["bitwise_right_shift"])
logaddexp = _op2("logaddexp", _lib.OP["logaddexp"])


def _math1(name):
    code = _lib.MATH_FN[name]

    def fn(input, *, out=None):
        a = _tensor_arg(name, input)
        if out is None:
            return a._math(name)
        _C.math_out(code, a, _out_arg(name, out))
        return out
    fn.__name__ = name
    fn.__doc__ = "PyTorch's torch.%s (the Array API's, for integer input too); out= as the other ops." % name
    return fn


sin = _math1("sin")
cos = _math1("cos")
tan = _math1("tan")
asin = arcsin = _math1("asin")
acos = arccos = _math1("acos")
atan = arctan = _math1("atan")
sinh = _math1("sinh")
cosh = _math1("cosh")
asinh = arcsinh = _math1("asinh")
acosh = arccosh = _math1("acosh")
atanh = arctanh = _math1("atanh")
expm1 = _math1("expm1")
log1p = _math1("log1p")
erf = _math1("erf")
log2 = _math1("log2")
log10 = _math1("log10")
floor = _math1("floor")
ceil = _math1("ceil")
trunc = _math1("trunc")
round = _math1("round")  # noqa: A001
sign = _math1("sign")
conj = conj_physical = _math1("conj")


def real(input):
    """torch.real: the real part, a view of a complex tensor's storage."""
    return _tensor_arg("real", input).real


def imag(input):
    """torch.imag: the imaginary part of a complex tensor, a view of its storage."""
    return _tensor_arg("imag", input).imag


def is_complex(input):
    return _tensor_arg("is_complex", input).is_complex()


def is_floating_point(input):
    return _tensor_arg("is_floating_point", input).is_floating_point()


def bitwise_not(input):
    return _tensor_arg("bitwise_not", input).bitwise_not()


def _where_operand(x, like):
    if isinstance(x, Tensor):
        return x
    s = _scalar(x)
    if s is None:
        raise TypeError("where(): expected a Tensor or a number, got %s" % type(x).__name__)
    # A Python number joins the promotion as a 0-dim tensor of its kind.
    return tensor(x, device=like.device)


def logsumexp(input, dim, keepdim=False):
    return _tensor_arg("logsumexp", input).logsumexp(dim, keepdim)


def softmax(input, dim, dtype=None):
    return _tensor_arg("softmax", input).softmax(dim, dtype)


def log_softmax(input, dim, dtype=None):
    return _tensor_arg("log_softmax", input).log_softmax(dim, dtype)


def all(input, dim=None, keepdim=False):  # noqa: A001  (torch.all)
    return _tensor_arg("all", input).all(dim, keepdim)


def any(input, dim=None, keepdim=False):  # noqa: A001  (torch.any)
    return _tensor_arg("any", input).any(dim, keepdim)


def equal(input, other):
    """torch.equal: the same shape and the same values (a Python bool)."""
    a, b = _tensor_arg("equal", input), _tensor_arg("equal", other)
    return tuple(a.shape) == tuple(b.shape) and (a.numel() == 0 or _builtins.bool((a == b).all().item()))


def amax(input, dim=(), keepdim=False):
    return _tensor_arg("amax", input).amax(dim, keepdim)


def amin(input, dim=(), keepdim=False):
    return _tensor_arg("amin", input).amin(dim, keepdim)


def diagonal(input, offset=0, dim1=0, dim2=1):
    return _tensor_arg("diagonal", input).diagonal(offset, dim1, dim2)


def clamp(input, min=None, max=None):  # noqa: A002  (torch's names)
    return _tensor_arg("clamp", input).clamp(min, max)


clip = clamp


def where(condition, input, other):
    condition = _tensor_arg("where", condition)
    a, b = _where_operand(input, condition), _where_operand(other, condition)
    return _C.where(condition, a, b)


def matmul(input, other, *, out=None):
    if out is None:
        return _tensor_arg("matmul", input).__matmul__(other)
    _C.matmul_out(_tensor_arg("matmul", input), _tensor_only("matmul", other, 2), _out_arg("matmul", out))
    return out


def sum(input, dim=None, keepdim=False, dtype=None):  # noqa: A001
    return _tensor_arg("sum", input).sum(dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, dtype=None):
    return _tensor_arg("mean", input).mean(dim, keepdim, dtype=dtype)


def max(input, dim=None, keepdim=False):  # noqa: A001
    return _tensor_arg("max", input).max(dim, keepdim)


def min(input, dim=None, keepdim=False):  # noqa: A001
    return _tensor_arg("min", input).min(dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    return _tensor_arg("argmax", input).argmax(dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    return _tensor_arg("argmin", input).argmin(dim, keepdim)


def cumsum(input, dim, dtype=None):
    return _tensor_arg("cumsum", input).cumsum(dim, dtype=dtype)


def gather(input, dim, index):
    return _tensor_arg("gather", input).gather(dim, index)


def index_select(input, dim, index):
    return _tensor_arg("index_select", input).index_select(dim, index)


def take(input, index):
    return _tensor_arg("take", input).take(index)


def scatter(input, dim, index, src, reduce=None):
    return _tensor_arg("scatter", input).scatter(dim, index, src, reduce)


def scatter_add(input, dim, index, src):
    return _tensor_arg("scatter_add", input).scatter_add(dim, index, src)


def nonzero(input, *, as_tuple=False):
    return _tensor_arg("nonzero", input).nonzero(as_tuple=as_tuple)


def sort(input, dim=-1, descending=False, stable=False):
    return _tensor_arg("sort", input).sort(dim, descending, stable)


def argsort(input, dim=-1, descending=False, stable=False):
    return _tensor_arg("argsort", input).argsort(dim, descending, stable)


def msort(input):
    return _tensor_arg("msort", input).msort()


def flip(input, dims):
    return _tensor_arg("flip", input).flip(dims)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """torch.unique over the flattened tensor (dim=None only): the sorted
    distinct values, and the inverse indices and counts when asked."""
    if dim is not None:
        raise NotImplementedError("unique(dim=...) is not implemented; Tessera's unique works on the flattened tensor")
    a = _tensor_arg("unique", input)
    values, _, inverse, counts = _C.unique(a, False, return_inverse, return_counts)
    out = [values]
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


def _tensors(name, tensors):
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError("%s(): expected a sequence of Tensors, but element %d is %s" % (name, i, type(t).__name__))
    return tensors


def cat(tensors, dim=0):
    """torch.cat (the Array API's concat): the tensors joined along dim."""
    return _C.concat(_tensors("cat", tensors), _operator.index(dim))


concat = concatenate = cat


def stack(tensors, dim=0):
    return _C.stack(_tensors("stack", tensors), _operator.index(dim))


def _cyclic(shift, size):
    """A roll's shift taken modulo the size it turns over, so that any Python
    int (2**64 + 1 included) reaches C as the same roll in int64."""
    shift = _operator.index(shift)
    return shift % size if size > 0 else 0


def _clamped_diagonal(k, rows, cols):
    """A diagonal offset beyond the matrix means the same as its edge; clamped
    so that any Python int reaches C in int64 with its meaning."""
    return _builtins.max(-rows - 1, _builtins.min(cols + 1, _operator.index(k)))


def roll(input, shifts, dims=None):
    a = _tensor_arg("roll", input)
    shifts = [shifts] if hasattr(shifts, "__index__") else list(shifts)
    shape = tuple(a.shape)
    if dims is None:
        numel = 1
        for s in shape:
            numel *= s
        return _C.roll(a, [_cyclic(s, numel) for s in shifts[:1]], None)
    dims = [dims] if hasattr(dims, "__index__") else list(dims)
    if len(dims) != len(shifts):
        raise RuntimeError("shifts and dimensions must align. shifts: %d, dims:%d" % (len(shifts), len(dims)))
    shifts = [_cyclic(s, shape[d]) if -len(shape) <= _operator.index(d) < len(shape) else s
              for s, d in zip(shifts, dims)]
    return _C.roll(a, shifts, dims)


def _triangle(fn, name, input, diagonal):
    a = _tensor_arg(name, input)
    shape = tuple(a.shape)
    if len(shape) >= 2:
        diagonal = _clamped_diagonal(diagonal, shape[-2], shape[-1])
    return fn(a, _operator.index(diagonal))


def tril(input, diagonal=0):
    return _triangle(_C.tril, "tril", input, diagonal)


def triu(input, diagonal=0):
    return _triangle(_C.triu, "triu", input, diagonal)


def eye(n, m=None, *, dtype=None, device=None, k=0, requires_grad=False):
    from ._creation import _requiring
    dt = None if dtype is None else _types.as_dtype(dtype)
    n = _operator.index(n)
    m = n if m is None else _operator.index(m)
    k = _clamped_diagonal(k, _builtins.max(n, 0), _builtins.max(m, 0))
    return _requiring(_C.eye(n, m, k, dt, _device_arg(device)), requires_grad)


def prod(input, dim=None, keepdim=False, dtype=None):
    return _tensor_arg("prod", input).prod(dim, keepdim, dtype=dtype)


def var(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    return _tensor_arg("var", input).var(dim, unbiased, keepdim, correction=correction)


def std(input, dim=None, unbiased=True, keepdim=False, *, correction=None):
    return _tensor_arg("std", input).std(dim, unbiased, keepdim, correction=correction)


def clone(input):
    return _tensor_arg("clone", input).clone()


def reshape(input, shape):
    return _tensor_arg("reshape", input).reshape(shape)


def transpose(input, dim0, dim1):
    return _tensor_arg("transpose", input).transpose(dim0, dim1)


def permute(input, dims):
    return _tensor_arg("permute", input).permute(dims)


def flatten(input, start_dim=0, end_dim=-1):
    return _tensor_arg("flatten", input).flatten(start_dim, end_dim)


def unsqueeze(input, dim):
    return _tensor_arg("unsqueeze", input).unsqueeze(dim)


def squeeze(input, dim=None):
    return _tensor_arg("squeeze", input).squeeze(dim)


def broadcast_shapes(*shapes):
    """The shape all given shapes broadcast to (NumPy's rule)."""
    from ._tensor import shape_args
    result = ()
    for s in shapes:
        s = shape_args((s,) if isinstance(s, (tuple, list)) else (_operator.index(s),))
        result = _C.broadcast_shapes(result, s)
    return Size(result)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """Digits after the point when printing (PyTorch's default is 4). Only
    precision and profile are supported; the C formatter owns the rest."""
    if profile is not None:
        presets = {"default": 4, "short": 2, "full": 4}
        if profile not in presets:
            raise ValueError("unknown print profile %r" % profile)
        if precision is None:
            precision = presets[profile]
    unsupported = [n for n, v in (("threshold", threshold), ("edgeitems", edgeitems), ("linewidth", linewidth),
                                  ("sci_mode", sci_mode)) if v is not None]
    if unsupported:
        raise NotImplementedError("tessera.set_printoptions supports precision and profile only, not " +
                                  ", ".join(unsupported))
    if precision is not None:
        _C.set_print_precision(_operator.index(precision))


_MATMUL_PRECISIONS = ("highest", "high", "medium")  # tsr_matmul_precision's values, in order


def set_float32_matmul_precision(precision):
    """As torch.set_float32_matmul_precision: "highest" (the default) keeps
    float32 matmuls in float32; "high" lets a device use TF32 tensor cores;
    "medium" also a bfloat16-based mode where one exists ("high" elsewhere).
    Unlike PyTorch, which warns and ignores it, an unknown value raises."""
    if not isinstance(precision, str):
        raise TypeError("set_float32_matmul_precision expects a str, but got " + type(precision).__name__)
    if precision not in _MATMUL_PRECISIONS:
        raise ValueError("%r is not one of 'highest', 'high' or 'medium'" % precision)
    _C.set_float32_matmul_precision(_MATMUL_PRECISIONS.index(precision))


def get_float32_matmul_precision():
    """The current float32 matmul precision: "highest", "high" or "medium"."""
    return _MATMUL_PRECISIONS[_C.get_float32_matmul_precision()]


class _CudaMatmul:
    """torch.backends.cuda.matmul: allow_tf32 is another spelling of the
    float32 matmul precision (True: "high", False: "highest"), as in PyTorch."""

    @property
    def allow_tf32(self):
        return get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        set_float32_matmul_precision("high" if value else "highest")


class backends:  # noqa: N801  (torch.backends)
    class cuda:  # noqa: N801
        matmul = _CudaMatmul()


def describe(as_json=False):
    """What the runtime loaded, from where, and its devices (tessera info)."""
    return _C.runtime_describe(bool(as_json))


late.where = where  # Note [Layers of the package]

__all__ = [
    "half", "double", "long", "short", "cfloat", "cdouble", "float", "int",
    "devices", "cuda", "synchronize", "empty_cache", "memory_stats", "get_default_dtype", "is_tensor", "numel",
    "abi_version", "add", "sub", "subtract", "mul", "multiply", "div", "divide",
    "true_divide", "maximum", "minimum", "pow", "eq", "ne", "lt", "le",
    "gt", "ge", "neg", "negative", "abs", "exp", "log", "sqrt",
    "relu", "sigmoid", "tanh", "atan2", "arctan2", "floor_divide", "remainder", "bitwise_and",
    "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "logaddexp", "sin", "cos", "tan",
    "asin", "arcsin", "acos", "arccos", "atan", "arctan", "sinh", "cosh",
    "asinh", "arcsinh", "acosh", "arccosh", "atanh", "arctanh", "expm1", "log1p",
    "erf", "log2", "log10", "floor", "ceil", "trunc", "round", "sign",
    "conj", "conj_physical", "real", "imag", "is_complex", "is_floating_point", "bitwise_not", "logsumexp",
    "softmax", "log_softmax", "all", "any", "equal", "amax", "amin", "diagonal",
    "clamp", "clip", "where", "matmul", "sum", "mean", "max", "min",
    "argmax", "argmin", "cumsum", "gather", "index_select", "take", "scatter", "scatter_add",
    "nonzero", "sort", "argsort", "msort", "flip", "unique", "cat", "concat",
    "concatenate", "stack", "roll", "tril", "triu", "eye", "prod", "var",
    "std", "clone", "reshape", "transpose", "permute", "flatten", "unsqueeze", "squeeze",
    "copysign", "count_nonzero", "cumprod", "diff", "hypot", "isin", "moveaxis", "movedim", "nextafter",
    "repeat_interleave", "searchsorted", "signbit", "take_along_dim", "tile",
    "broadcast_shapes", "set_printoptions", "set_float32_matmul_precision", "get_float32_matmul_precision", "backends", "describe",
]
