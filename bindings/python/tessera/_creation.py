# SPDX-License-Identifier: Apache-2.0
"""Creation: tensor(), as_tensor(), zeros(), ones(), full(), arange(), rand(), ..."""
import operator
from array import array

from . import _C
from ._tensor import Tensor, fill_scalar, late, scalar, shape_args
from ._types import (as_dtype, bool_, complex64, complex128, device_arg, float32, float64, int64, promote_types,
                     uint64)


def _dt(dtype, default=None):
    """The dtype argument the extension takes: None lets the C function choose (TSR_DTYPE_UNDEFINED)."""
    return default if dtype is None else as_dtype(dtype)


def _requiring(t, requires_grad):
    """t with torch's requires_grad= keyword applied; an integer dtype raises
    the creation functions' message, which is not requires_grad_'s."""
    if requires_grad:
        if not (t.is_floating_point() or t.is_complex()):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t.requires_grad_(True)
    return t


def _unsupported(fn, **given):
    """torch's keywords that Tessera does not implement: their default is
    accepted, any other value raises, naming it."""
    for name, (value, default) in given.items():
        if value is not default and value != default:
            raise NotImplementedError("%s(): %s=%r is not supported (only %r)" % (fn, name, value, default))


def _sized(fn, size, dtype, device, default=float32):
    s = shape_args(size, "%s(): argument 'size'" % fn.__name__)
    return fn(s, _dt(dtype, default), device_arg(device))


def empty(*size, dtype=None, device=None, requires_grad=False, pin_memory=False):
    _unsupported("empty", pin_memory=(pin_memory, False))
    return _requiring(_sized(_C.empty, size, dtype, device), requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad=False, pin_memory=False):
    _unsupported("zeros", pin_memory=(pin_memory, False))
    return _requiring(_sized(_C.zeros, size, dtype, device), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, pin_memory=False):
    _unsupported("ones", pin_memory=(pin_memory, False))
    return _requiring(_sized(_C.ones, size, dtype, device), requires_grad)


def rand(*size, dtype=None, device=None, generator=None, requires_grad=False):
    _unsupported("rand", generator=(generator, None))
    return _requiring(_sized(_C.rand, size, dtype, device, None), requires_grad)


def randn(*size, dtype=None, device=None, generator=None, requires_grad=False):
    _unsupported("randn", generator=(generator, None))
    return _requiring(_sized(_C.randn, size, dtype, device, None), requires_grad)


def _number(v, what, code=None):
    if isinstance(v, Tensor):
        v = v.item()
    s = fill_scalar(v, code)
    if s is None:
        raise TypeError("%s must be Number, not %s" % (what, type(v).__name__))
    return s


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    s = shape_args((size,) if not isinstance(size, (tuple, list)) else (tuple(size),))
    code = None if dtype is None else as_dtype(dtype)._code
    return _requiring(_C.full(s, _number(fill_value, "fill_value", code), _dt(dtype), device_arg(device)),
                      requires_grad)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    if end is None:
        start, end = 0, start
    return _requiring(_C.arange(_number(start, "start"), _number(end, "end"), _number(step, "step"), _dt(dtype),
                                device_arg(device)), requires_grad)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    if isinstance(start, Tensor):
        start = start.item()
    if isinstance(end, Tensor):
        end = end.item()
    return _requiring(_C.linspace(float(start), float(end), operator.index(steps), _dt(dtype), device_arg(device)),
                      requires_grad)


def _like(t, dtype, device):
    return t.shape, (t.dtype if dtype is None else dtype), (t.device if device is None else device)


def empty_like(t, dtype=None, device=None, requires_grad=False):
    s, d, dev = _like(t, dtype, device)
    return _requiring(empty(s, dtype=d, device=dev), requires_grad)


def zeros_like(t, dtype=None, device=None, requires_grad=False):
    s, d, dev = _like(t, dtype, device)
    return _requiring(zeros(s, dtype=d, device=dev), requires_grad)


def ones_like(t, dtype=None, device=None, requires_grad=False):
    s, d, dev = _like(t, dtype, device)
    return _requiring(ones(s, dtype=d, device=dev), requires_grad)


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False):
    s, d, dev = _like(t, dtype, device)
    return _requiring(full(s, fill_value, dtype=d, device=dev), requires_grad)


def rand_like(t, dtype=None, device=None, requires_grad=False):
    s, d, dev = _like(t, dtype, device)
    return _requiring(rand(s, dtype=d, device=dev), requires_grad)


def randn_like(t, dtype=None, device=None, requires_grad=False):
    s, d, dev = _like(t, dtype, device)
    return _requiring(randn(s, dtype=d, device=dev), requires_grad)


def manual_seed(seed):
    """Seeds the runtime's generator (PyTorch accepts negative seeds too)."""
    seed = operator.index(seed)
    if not -(2 ** 63) <= seed < 2 ** 64:
        raise RuntimeError("Overflow when unpacking long")
    _C.manual_seed(seed % (2 ** 64))


# ---- from Python data ------------------------------------------------------------


def _flatten(data):
    """Nested sequences of numbers -> (flat values, shape, inferred dtype,
    host kind). The dtype follows PyTorch: Python floats are float32, ints
    int64, bools bool, NumPy scalars and tensors keep theirs, all promoted.
    The host kind (0 bool, 1 int, 2 float, 3 complex) is what the values
    must be packed as to stay exact."""
    shape = []
    probe = data
    while _is_sequence(probe):
        n = len(probe)
        shape.append(n)
        if n == 0:
            break
        probe = probe[0]
    flat = []
    state = [None, 0]  # inferred dtype, host kind

    def walk(seq, dim):
        if dim == len(shape):
            if _is_sequence(seq):
                raise TypeError("'%s' object cannot be interpreted as an integer" % type(seq).__name__)
            flat.append(_element(seq, state))
            return
        if not _is_sequence(seq):
            raise TypeError("not a sequence")
        if len(seq) != shape[dim]:
            raise ValueError("expected sequence of length %d at dim %d (got %d)" % (shape[dim], dim, len(seq)))
        for item in seq:
            walk(item, dim + 1)

    walk(data, 0)
    return flat, shape, state[0], state[1]


def _is_sequence(x):
    if isinstance(x, (list, tuple)):
        return True
    if isinstance(x, Tensor):
        return x.dim() > 0
    return type(x).__module__ == "numpy" and getattr(x, "ndim", 0) > 0


def _element(v, state):
    """One number: its value as a Python number, folding its dtype into
    state[0] and its host kind into state[1]."""
    if isinstance(v, Tensor):
        if v.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        d = v.dtype
        v = v.item()
    elif type(v).__module__ == "numpy":
        from ._numpy import numpy_dtype_to_tessera
        d = numpy_dtype_to_tessera(v.dtype)
        if d is None:
            raise TypeError("can't convert np.%s to a tessera dtype" % v.dtype.name)
        v = v.item()
    elif isinstance(v, bool):
        d = bool_
    elif isinstance(v, int):
        d = int64
    elif isinstance(v, float):
        d = float32
    elif isinstance(v, complex):
        d = complex64  # the default complex dtype, as torch's
    else:
        raise TypeError("new(): invalid data type '%s'" % type(v).__name__)
    state[0] = d if state[0] is None else promote_types(state[0], d)
    if isinstance(v, complex):
        state[1] = 3
    elif isinstance(v, float):
        state[1] = max(state[1], 2)
    elif not isinstance(v, bool) and state[1] < 1:
        state[1] = 1
    return v


def _from_sequence(data, dtype, device):
    flat, shape, inferred, kind = _flatten(data)
    target = dtype or inferred or float32  # torch.tensor([]) is float32
    if kind == 3 or target.is_complex:  # (real, imaginary) pairs of doubles
        pairs = []
        for v in flat:
            v = complex(v)
            pairs += (v.real, v.imag)
        buf, host = array("d", pairs), complex128
    elif kind == 2 or (kind == 1 and target.is_floating_point):
        buf, host = array("d", flat), float64
    elif kind == 1:
        try:
            buf, host = array("q", flat), int64
        except OverflowError:
            # Values from 2^63 on fit a uint64 tensor only (negatives wrap into it, as into uint8).
            if target is not uint64 or not all(-2 ** 63 <= v < 2 ** 64 for v in flat):
                raise RuntimeError("Overflow when unpacking long") from None
            buf, host = array("Q", [v % 2 ** 64 for v in flat]), uint64
    else:
        buf, host = array("B", flat), bool_
    t = _host(buf, shape, host, device)
    return t if host is target else t.to(target)


def _host(buf, shape, host_dtype, device):
    return _C.from_host(buf, shape, host_dtype, device_arg(device))


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of `data` (numbers, nested sequences,
    NumPy arrays, tensors). Decimals become float32, whole numbers int64."""
    _unsupported("tensor", pin_memory=(pin_memory, False))
    return _requiring(_copied(data, dtype, device), requires_grad)


def _copied(data, dtype, device):
    if dtype is not None:
        as_dtype(dtype)
    if isinstance(data, Tensor):
        t = data.detach().clone() if dtype is None or dtype is data.dtype else data.detach().to(dtype)
        return t if device is None else t.to(device)
    if type(data).__module__ == "numpy" and hasattr(data, "dtype"):
        from ._numpy import from_numpy_copy
        return from_numpy_copy(data, dtype, device)
    if isinstance(data, (list, tuple)):
        return _from_sequence(data, dtype, device)
    if scalar(data) is None:
        raise TypeError("Could not infer dtype of %s" % type(data).__name__)
    return _from_sequence(data, dtype, device)  # a number: shape ()


def as_tensor(data, dtype=None, device=None):
    """Like tensor(), but shares memory with a Tensor or a CPU NumPy array
    when no conversion is needed."""
    if isinstance(data, Tensor):
        return data.to(dtype=dtype, device=device)
    if type(data).__module__ == "numpy" and hasattr(data, "dtype") and hasattr(data, "strides"):
        from ._numpy import from_numpy, numpy_dtype_to_tessera
        src = numpy_dtype_to_tessera(data.dtype)
        on_cpu = _C.default_device()[0] == 1 if device is None else device_arg(device).type == "cpu"
        if src is not None and on_cpu and all(s >= 0 for s in data.strides):
            t = from_numpy(data)
            return t if dtype is None else t.to(dtype=dtype, device=device)
    return tensor(data, dtype=dtype, device=device)


late.tensor, late.full = tensor, full  # Note [Layers of the package]
