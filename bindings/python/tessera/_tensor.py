# SPDX-License-Identifier: Apache-2.0
"""Tensor: one tsr_tensor handle, with PyTorch's methods and operators.

A Tensor owns one reference to its handle, which its C base type
(tessera._C.TensorBase) releases with the object. A handle's record never
changes (views are new handles), so nothing about a Tensor is cached here
except the handle itself.

Note [The hot path]
  An operator on two tensors, or on a tensor and a Python float, int or
  bool, is the C type's number slot: one call of the C API and one object
  allocated (bindings/python/src/_C.c). So are shape, ndim,
  dtype and device. Other operands come to _binop and friends here, and the
  methods written in Python call the extension's module functions over the
  C API (Note [Module functions over the C API] in src/_C.h).

Note [Layers of the package]
  The package's modules import in layers, each only from those below it,
  with no circle (tests/python/test_imports.py; the table of modules is in
  bindings/python/README.md):
    1. _C, the extension; _lib, the library and the C API; _types.
    2. _tensor, the Tensor type.
    3. the functions: _creation, _numpy, _dlpack, _grad, _functions, _advanced.
    4. autograd, linalg, testing, safetensors, distributed, nn, optim, array_api.
    5. tessera/__init__.py, the namespace, which imports them all.
  A few Tensor methods are built from functions of layer 3 or 4 (x.numpy(),
  x.backward(), x[mask], x + [1, 2], x.__array_namespace__()). They call them
  through `late`, which each of those modules fills with what it defines
  when it is imported; `import tessera` imports them all before any Tensor
  can exist. Upward calls, never upward imports.
"""
import operator
import struct

from . import _C  # the extension, which _lib has loaded (Note [The extension beside the library]); typed by _C.pyi
from ._lib import MATH_FN, OP, SLICE_NONE, error
from ._types import DTYPES, Size, as_dtype, bool_, device_arg, device_from, dtype, float32, float64

# torch 1.13's warning on reading .grad of a non-leaf that does not retain it.
_NON_LEAF_GRAD = ("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                  "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                  "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
                  "Tensor by mistake, make sure you access the leaf Tensor instead.")



class _Late:
    """Functions of the layers above that Tensor's methods call (Note [Layers
    of the package]), set by the module that defines each."""
    __slots__ = ("tensor", "full", "where", "to_numpy", "to_dlpack", "dlpack_device", "Node", "register_hook",
                 "run_backward", "getitem", "setitem", "is_advanced", "array_api", "sequences")


late = _Late()

_binary = _C.binary
_binary_scalar = _C.binary_scalar
_binary_ = _C.binary_
_binary_scalar_ = _C.binary_scalar_
_unary = _C.unary
_matmul = _C.matmul
_dtype = _C.tensor_dtype
_numel = _C.tensor_numel

_ADD, _SUB, _MUL, _DIV = OP["add"], OP["sub"], OP["mul"], OP["div"]
_MAXIMUM, _MINIMUM, _POW = OP["maximum"], OP["minimum"], OP["pow"]
_EQ, _NE, _LT, _LE, _GT, _GE = OP["eq"], OP["ne"], OP["lt"], OP["le"], OP["gt"], OP["ge"]

_I64_MIN, _I64_MAX = -(2 ** 63), 2 ** 63 - 1
_STRUCT_FORMATS = ("f", "d", None, None, "b", "B", "h", "i", "q", "?", "H", "I", "Q", "ff", "dd")  # by dtype code


def _int_list(values, what):
    out = []
    for i, v in enumerate(values):
        try:
            out.append(operator.index(v))
        except TypeError:
            raise TypeError("%s must be tuple of ints, but found element of type %s at pos %d" %
                            (what, type(v).__name__, i)) from None
    return out


def _sizes(args):
    """f(2, 3), f((2, 3)) and f([2, 3]) as the sequence the extension takes
    (which converts each with __index__); anything it refuses raises
    TypeError, and the caller then asks shape_args for PyTorch's message."""
    if len(args) == 1:
        s = args[0]
        if isinstance(s, (tuple, list)):
            return s
    elif not args:
        raise TypeError("no sizes")
    return args


def shape_args(args, what="size"):
    """f(2, 3), f((2, 3)) and f([2, 3]) as a list of ints; f() is a
    TypeError, as in PyTorch (a 0-dim shape is written f(()))."""
    if not args:
        name, _, arg = what.partition(": argument ")
        raise TypeError("%s missing 1 required positional arguments: \"%s\"" % (name, arg.strip("'") or "size"))
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    return _int_list(args, what)


def scalar(v):
    """A Python (or NumPy) number as the Python number the extension passes
    as a tsr_scalar (bool, int, float or complex); None when v is not one.
    An int beyond int64 raises PyTorch's overflow error."""
    tv = type(v)
    if tv is float or tv is bool:
        return v
    if tv is int:
        if _I64_MIN <= v <= _I64_MAX:
            return v
        raise RuntimeError("Overflow when unpacking long")
    return _other_scalar(v)


_UINT64 = 12


def fill_scalar(v, code):
    """scalar(v) for writing into a tensor of dtype `code`: a Python int in
    [2^63, 2^64) goes into a uint64 tensor as its bits, which tsr_fill_
    wraps back (tessera.h); anywhere else it overflows, as in PyTorch."""
    if code == _UINT64 and isinstance(v, int) and not isinstance(v, bool) and 2 ** 63 <= int(v) < 2 ** 64:
        return int(v)
    return scalar(v)


def _other_scalar(v):
    """scalar() of subclasses and NumPy numbers: the Python number they act as."""
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, float):
        return float(v)
    if isinstance(v, int):
        return scalar(int(v))
    if isinstance(v, complex):
        return complex(v)
    mod = type(v).__module__
    if mod == "numpy":  # NumPy scalars act as the Python number they hold
        import numpy as np
        if isinstance(v, np.bool_):
            return bool(v)
        if isinstance(v, np.integer):
            return scalar(int(v))
        if isinstance(v, np.floating):
            return float(v)
        if isinstance(v, np.complexfloating):
            return complex(v)
    return None


def as_tensor_operand(v, like=None):
    """A Tensor for an operand that is not a number (NumPy array, list)."""
    if isinstance(v, Tensor):
        return v
    if type(v).__module__ == "numpy" or isinstance(v, (list, tuple)):
        return late.tensor(v, device=None if like is None else like.device)
    return None


def _scalar_with(b, t):
    """scalar(b) as an operand of tensor t: a Python int from 2^63 on is
    refused as PyTorch does, except beside a uint64 tensor (fill_scalar)."""
    try:
        return scalar(b)
    except RuntimeError:
        return fill_scalar(b, _dtype(t))


def _binop(op, a, b):
    if type(b) is Tensor:
        return _binary(op, a, b)
    s = _scalar_with(b, a)
    if s is not None:
        return _binary_scalar(op, a, s, False)
    bt = as_tensor_operand(b, a)
    if bt is None:
        return NotImplemented
    return _binary(op, a, bt)


def _rbinop(op, a, b):
    """b (op) a, for a number or array b on the left."""
    s = _scalar_with(b, a)
    if s is not None:
        return _binary_scalar(op, a, s, True)
    bt = as_tensor_operand(b, a)
    if bt is None:
        return NotImplemented
    return _binary(op, bt, a)


def _inplace(op, a, b):
    if type(b) is Tensor:
        _binary_(op, a, b)
        return a
    s = _scalar_with(b, a)
    if s is not None:
        _binary_scalar_(op, a, s)
        return a
    bt = as_tensor_operand(b, a)
    if bt is None:
        return NotImplemented
    _binary_(op, a, bt)
    return a


def _binop_out(op, a, b, out):
    """out = a (op) b into an existing tensor (a or b may be a number)."""
    if type(a) is not Tensor and type(b) is not Tensor:
        raise TypeError("argument 'input' must be Tensor, not %s" % type(a).__name__)
    reversed_ = type(a) is not Tensor  # the number or array is on the left
    t, other = (b, a) if reversed_ else (a, b)
    s = None if type(other) is Tensor else scalar(other)
    if type(other) is Tensor:
        _C.binary_out(op, a, b, out)
    elif s is not None:
        _C.binary_scalar_out(op, t, s, reversed_, out)
    else:
        operand = as_tensor_operand(other, t)
        if operand is None:
            raise TypeError("unsupported operand for an op with out=: %s" % type(other).__name__)
        if reversed_:
            _C.binary_out(op, operand, t, out)
        else:
            _C.binary_out(op, t, operand, out)
    return out


def _unop_out(op, a, out):
    _C.unary_out(op, a, out)
    return out


def _tensor_only(name, x, position):
    """PyTorch's ops that take tensors only (maximum, minimum) refuse numbers."""
    if not isinstance(x, Tensor):
        raise TypeError("%s(): argument 'other' (position %d) must be Tensor, not %s" %
                        (name, position, type(x).__name__))
    return x


def _unop(op, a):
    return _unary(op, a)


def _dim_error(dim, n):
    lo, hi = (-n, n - 1) if n > 0 else (-1, 0)
    return IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)" %
                      (lo, hi, dim))


class _ReturnTypes(tuple):
    """As torch.return_types.max / min: (values, indices)."""
    __slots__ = ()
    _name = "max"

    values = property(operator.itemgetter(0))
    indices = property(operator.itemgetter(1))

    def __repr__(self):
        return "tessera.return_types.%s(\nvalues=%r,\nindices=%r)" % (self._name, self[0], self[1])


class _MaxResult(_ReturnTypes):
    __slots__ = ()
    _name = "max"


class _MinResult(_ReturnTypes):
    __slots__ = ()
    _name = "min"


class _SortResult(_ReturnTypes):
    __slots__ = ()
    _name = "sort"


class UntypedStorage:
    """What untyped_storage() gives: the storage's address and size."""
    __slots__ = ("_t",)

    def __init__(self, t):
        self._t = t

    def data_ptr(self):
        return _C.tensor_storage_data(self._t) or 0

    def nbytes(self):
        return _C.tensor_storage_nbytes(self._t)

    size = nbytes

    def __len__(self):
        return self.nbytes()

    @property
    def device(self):
        return self._t.device


class Tensor(_C.TensorBase):
    """A view record over a reference-counted storage (see tessera.h).

    Its handle (`_h`), its release, the operators (+ - * / // % ** & | ^
    << >>, their reflected and in-place forms, the comparisons), basic
    indexing and shape, ndim, dtype and device are _C.TensorBase's, in C
    (bindings/python/src/_C.c); operands and keys it does not take come back
    to _binop, _rbinop, _inplace and _getitem below."""
    __slots__ = ()  # weak references are TensorBase's (Note [No GC] in _C.c)
    __array_priority__ = 1000  # NumPy defers to our reflected operators

    def __init__(self, *args, **kwargs):
        raise TypeError("tessera.Tensor cannot be constructed directly; use tessera.tensor(), zeros(), ...")

    # ---- metadata ------------------------------------------------------------

    def size(self, dim=None):
        shape = self.shape
        if dim is None:
            return shape
        return shape[self._wrap_dim(dim, len(shape))]

    def stride(self, dim=None):
        strides = _C.tensor_strides(self)
        if dim is None:
            return strides
        return strides[self._wrap_dim(dim, len(strides))]

    @staticmethod
    def _wrap_dim(dim, n):
        dim = operator.index(dim)
        m = max(n, 1)
        if dim < -m or dim >= m:
            raise _dim_error(dim, n)
        return dim + m if dim < 0 else dim

    def storage_offset(self):
        return _C.tensor_storage_offset(self)

    def is_contiguous(self):
        return _C.tensor_is_contiguous(self) != 0

    def numel(self):
        return _numel(self)

    nelement = numel

    def dim(self):
        return self.ndim

    ndimension = dim

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    @property
    def is_cpu(self):
        return self.device.type == "cpu"

    # ---- autograd (tessera/autograd.h; the engine's glue is _grad.py) ---------

    @property
    def requires_grad(self):
        return bool(_C.tensor_requires_grad(self))

    @requires_grad.setter
    def requires_grad(self, value):
        if value and not (self.is_floating_point() or self.is_complex()):  # torch words the setter's own way
            raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
        _C.tensor_set_requires_grad(self, bool(value))

    def requires_grad_(self, requires_grad=True):
        _C.tensor_set_requires_grad(self, bool(requires_grad))
        return self

    @property
    def is_leaf(self):
        return bool(_C.tensor_is_leaf(self))

    @property
    def grad(self):
        if not _C.tensor_is_leaf(self) and not _C.tensor_retains_grad(self):
            import warnings
            warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return _C.tensor_grad(self)

    @grad.setter
    def grad(self, value):
        if value is not None and not isinstance(value, Tensor):
            raise TypeError("assigned grad expected to be a Tensor or None but got grad of type"  # sic, torch's
                            + type(value).__name__)
        _C.tensor_set_grad(self, None if value is None else value)

    @grad.deleter
    def grad(self):
        _C.tensor_set_grad(self, None)

    @property
    def grad_fn(self):
        name = _C.tensor_grad_fn_name(self)
        if name is None:
            return None
        return late.Node(name)

    def retain_grad(self):
        _C.tensor_retain_grad(self)

    @property
    def retains_grad(self):
        return bool(_C.tensor_retains_grad(self))

    @property
    def _version(self):
        return _C.tensor_version(self)

    def detach(self):
        return _C.detach(self)

    def detach_(self):
        _C.detach_(self)
        return self

    @property
    def data(self):
        """torch's .data: a new view of the same storage that requires no grad."""
        return _C.detach(self)

    @data.setter
    def data(self, value):
        """torch's `x.data = y` (what nn.Module.to does to its parameters):
        x reads y's storage, shape, dtype and device from now on, and stays
        the same object with its requires_grad. Its .grad stays when it
        still fits (same shape, dtype and device: a grad record takes no
        other), else it is dropped; a non-leaf becomes a leaf."""
        if not isinstance(value, Tensor):
            raise TypeError("Variable data has to be a tensor, but got %s" % type(value).__name__)
        new = _C.detach(value)
        if _C.tensor_is_leaf(self) and _C.tensor_requires_grad(self):
            _C.tensor_set_requires_grad(new, True)
        grad = _C.tensor_grad(self)
        if grad is not None:
            if grad.shape == new.shape and grad.dtype == new.dtype and grad.device == new.device:
                _C.tensor_set_grad(new, grad)
        self._h, new._h = new._h, self._h  # `new` releases the old handle

    def register_hook(self, hook):
        return late.register_hook(self, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        late.run_backward((self,), None if gradient is None else (gradient,), retain_graph, create_graph, inputs)

    def element_size(self):
        return _C.tensor_element_size(self)

    def is_floating_point(self):
        return DTYPES[_dtype(self)].is_floating_point

    def is_complex(self):
        return DTYPES[_dtype(self)].is_complex

    @property
    def real(self):
        """The real part: a view of a complex tensor's storage (torch.real),
        the tensor itself for a real one."""
        return _C.real(self)

    @property
    def imag(self):
        """The imaginary part of a complex tensor: a view of its storage."""
        return _C.imag(self)

    def conj(self):
        """The complex conjugate (a copy; of a real tensor, a copy of it)."""
        return self._math("conj")

    conj_physical = conj

    def resolve_conj(self):
        return self

    def is_conj(self):
        return False

    def untyped_storage(self):
        return UntypedStorage(self)

    def data_ptr(self):
        return _C.tensor_storage_data(self) + _C.tensor_storage_offset(self) * _C.tensor_element_size(self)

    def _alias(self):
        """A new Tensor object on the same handle (x[...], detach)."""
        return _C.alias(self)

    # ---- printing ------------------------------------------------------------

    def __repr__(self):
        return _C.format(self)

    __str__ = __repr__

    def layout_picture(self):
        """The storage strip, the cells this view reads and their order."""
        return _C.format_layout(self)

    def __format__(self, spec):
        if self.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    # ---- values ----------------------------------------------------------------

    def item(self):
        return _C.item(self)

    def _one_value(self):
        if _numel(self) != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __float__(self):
        return float(self._one_value())

    def __complex__(self):
        return complex(self._one_value())

    def __int__(self):
        return int(self._one_value())

    def __index__(self):
        if _dtype(self) not in (4, 5, 6, 7, 8, 9, 10, 11, 12) or _numel(self) != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        n = _numel(self)
        if n != 1:
            if n == 0:
                raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __len__(self):
        shape = self.shape
        if not shape:
            raise TypeError("len() of a 0-d tensor")
        return shape[0]

    def __iter__(self):
        shape = self.shape
        if not shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(shape[0]))

    __hash__ = object.__hash__

    def tolist(self):
        code = _dtype(self)
        t = self
        if code in (2, 3):  # float16, bfloat16: exact in float32
            t = self.to(float32)
            code = 0
        n = _numel(self)
        fmt = _STRUCT_FORMATS[code]
        raw = _C.read(t)
        if len(fmt) == 2:  # complex: (real, imaginary) pairs
            parts = struct.unpack("<%d%s" % (2 * n, fmt[0]), raw)
            flat = [complex(parts[2 * i], parts[2 * i + 1]) for i in range(n)]
        else:
            flat = list(struct.unpack("<%d%s" % (n, fmt), raw))
        return _nest(flat, list(self.shape))

    def numpy(self, force=False):
        to_numpy = late.to_numpy
        if _C.tensor_requires_grad(self):
            if not force:
                raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                                   "instead.")
            return to_numpy(self.detach(), force)
        return to_numpy(self, force)

    def __array__(self, dtype=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype, copy=False)

    def __dlpack__(self, stream=None, *, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule (Note [DLPack versions] in _dlpack.py): DLPack
        1.x's "dltensor_versioned" when max_version's major is >= 1, else
        0.x's "dltensor"; copy and dl_device as the Array API 2023.12 says."""
        if _C.tensor_requires_grad(self):
            raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
        return late.to_dlpack(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        return late.dlpack_device(self.device)

    # ---- views -------------------------------------------------------------------

    def view(self, *shape):
        try:
            return _C.view(self, _sizes(shape))
        except TypeError:
            if len(shape) == 1 and isinstance(shape[0], dtype):  # the bits as another dtype of the same size
                return _C.view_dtype(self, shape[0])
            shape_args(shape, "view(): argument 'size'")  # PyTorch's message for what is wrong
            raise

    def view_as(self, other):
        return self.view(other.shape)

    def reshape(self, *shape):
        try:
            return _C.reshape(self, _sizes(shape))
        except TypeError:
            shape_args(shape, "reshape(): argument 'shape'")
            raise

    def reshape_as(self, other):
        return self.reshape(other.shape)

    @property
    def T(self):
        """All dims reversed: a permute, as PyTorch 1.13's (PermuteBackward0)."""
        return _C.permute(self, range(self.ndim - 1, -1, -1))

    @property
    def mT(self):
        """The last two dims swapped (a view), as torch's Tensor.mT."""
        if self.ndim < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. Got %d-D tensor."
                               % self.ndim)
        return self.transpose(-2, -1)

    @property
    def mH(self):
        """The conjugate transpose of the last two dims: mT, conjugated (a
        copy) where the dtype is complex."""
        if self.ndim < 2:
            raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. Got %d-D tensor."
                               % self.ndim)
        return self.conj().transpose(-2, -1) if self.is_complex() else self.transpose(-2, -1)

    def adjoint(self):
        return self.mH

    @property
    def H(self):
        """The conjugate transpose of a matrix (2-D only, as torch's)."""
        if self.ndim != 2:
            raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got %d-D tensor."
                               % self.ndim)
        return self.mH

    def t(self):
        n = self.ndim
        if n > 2:
            raise RuntimeError("t() expects a tensor with <= 2 dimensions, but self is %dD" % n)
        return _C.t(self)

    def transpose(self, dim0, dim1):
        return _C.transpose(self, operator.index(dim0), operator.index(dim1))

    swapaxes = transpose

    def permute(self, *dims):
        try:
            return _C.permute(self, _sizes(dims))
        except TypeError:
            shape_args(dims, "permute(): argument 'dims'")
            raise

    def unsqueeze(self, dim):
        return _C.unsqueeze(self, operator.index(dim))

    def squeeze(self, dim=None):
        if dim is None:
            return _C.squeeze_all(self)
        return _C.squeeze(self, operator.index(dim))

    def expand(self, *sizes):
        try:
            return _C.expand(self, _sizes(sizes))
        except TypeError:
            shape_args(sizes, "expand(): argument 'size'")
            raise

    def expand_as(self, other):
        return self.expand(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        return _C.flatten(self, operator.index(start_dim), operator.index(end_dim))

    def as_strided(self, size, stride, storage_offset=None):
        size, stride = _int_list(size, "size"), _int_list(stride, "stride")
        if len(size) != len(stride):
            raise RuntimeError("mismatch in length of strides and shape")
        off = self.storage_offset() if storage_offset is None else operator.index(storage_offset)
        return _C.as_strided(self, size, stride, off)

    # ---- copies ----------------------------------------------------------------

    def _same_or_new(self, out):
        """PyTorch returns self (not a new object) when nothing changed: a
        result on self's own handle is dropped (releasing its reference)."""
        return self if out._h == self._h else out

    def contiguous(self):
        return self._same_or_new(_C.contiguous(self))

    def clone(self):
        return _C.clone(self)

    def to(self, *args, **kwargs):
        dt, dev, copy = _parse_to(args, kwargs)
        out = _C.to(self, self.dtype if dt is None else dt, self.device if dev is None else device_arg(dev))
        r = self._same_or_new(out)
        if copy and r is self:
            return self.clone()
        return r

    def _cast(self, d):
        if self.dtype is d:
            return self
        return _C.to_dtype(self, d)

    def float(self):
        return self._cast(float32)

    def double(self):
        return self._cast(float64)

    def half(self):
        return self._cast(DTYPES[2])

    def bfloat16(self):
        return self._cast(DTYPES[3])

    def int(self):
        return self._cast(DTYPES[7])

    def long(self):
        return self._cast(DTYPES[8])

    def bool(self):
        return self._cast(bool_)

    def type_as(self, other):
        return self._cast(other.dtype)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device)

    # ---- indexing --------------------------------------------------------------

    def __array_namespace__(self, *, api_version=None):
        """The Array API namespace for tensors: tessera.array_api, whose
        functions take Tensors as they take its Arrays."""
        if api_version is None:
            return late.array_api
        return late.array_api._versions.namespace(late.array_api, api_version)

    def __setitem__(self, key, value):
        if _advanced_key(key):
            late.setitem(self, key, value)
            return
        view = self[key]
        if isinstance(value, Tensor):
            if _same_layout(view, value):
                return  # x[k] op= v hands back the view itself: already written
            _C.copy_(view, value)
            return
        s = fill_scalar(value, _dtype(view))
        if s is not None:
            _C.fill_(view, s)
            return
        src = late.tensor(value, dtype=view.dtype, device=view.device)
        _C.copy_(view, src)

    # ---- in-place ----------------------------------------------------------------

    def copy_(self, src, non_blocking=False):
        if not isinstance(src, Tensor):
            raise TypeError("copy_(): argument 'src' must be Tensor, not %s" % type(src).__name__)
        _C.copy_(self, src)
        return self

    def fill_(self, value):
        if isinstance(value, Tensor):
            value = value.item()
        s = fill_scalar(value, _dtype(self))
        if s is None:
            raise TypeError("fill_(): argument 'value' must be Number, not %s" % type(value).__name__)
        _C.fill_(self, s)
        return self

    def zero_(self):
        return self.fill_(0)

    def add_(self, other, alpha=1):
        return _inplace(_ADD, self, other if alpha == 1 else other * alpha)

    def sub_(self, other, alpha=1):
        return _inplace(_SUB, self, other if alpha == 1 else other * alpha)

    def mul_(self, other):
        return _inplace(_MUL, self, other)

    def div_(self, other):
        return _inplace(_DIV, self, other)

    def pow_(self, other):
        return _inplace(_POW, self, other)

    # Comparisons in place (torch's eq_, lt_, ...): 1 or 0 in self's dtype.
    def eq_(self, other):
        return _inplace(_EQ, self, other)

    def ne_(self, other):
        return _inplace(_NE, self, other)

    def lt_(self, other):
        return _inplace(_LT, self, other)

    def le_(self, other):
        return _inplace(_LE, self, other)

    def gt_(self, other):
        return _inplace(_GT, self, other)

    def ge_(self, other):
        return _inplace(_GE, self, other)

    def _unary_(self, name):
        _C.unary_(OP[name], self)
        return self

    def neg_(self):
        return self._unary_("neg")

    def abs_(self):
        return self._unary_("abs")

    def exp_(self):
        return self._unary_("exp")

    def log_(self):
        return self._unary_("log")

    def sqrt_(self):
        return self._unary_("sqrt")

    def relu_(self):
        return self._unary_("relu")

    def sigmoid_(self):
        return self._unary_("sigmoid")

    def tanh_(self):
        return self._unary_("tanh")

    # ---- operators --------------------------------------------------------------

    def __matmul__(self, other):
        if not isinstance(other, Tensor):
            other = as_tensor_operand(other, self)
            if other is None:
                return NotImplemented
        return _matmul(self, other)

    def __rmatmul__(self, other):
        other = as_tensor_operand(other, self)
        if other is None:
            return NotImplemented
        return other.__matmul__(self)

    def __invert__(self):
        return self.bitwise_not()

    def __neg__(self):
        return _unop(15, self)

    def __abs__(self):
        return _unop(16, self)

    def __pos__(self):
        return self

    # ---- math methods -------------------------------------------------------------

    def add(self, other, alpha=1):
        return _binop(_ADD, self, other if alpha == 1 else other * alpha)

    def sub(self, other, alpha=1):
        return _binop(_SUB, self, other if alpha == 1 else other * alpha)

    def mul(self, other):
        return _binop(_MUL, self, other)

    def div(self, other):
        return _binop(_DIV, self, other)

    def pow(self, other):
        return _binop(_POW, self, other)

    def maximum(self, other):
        return _binop(_MAXIMUM, self, _tensor_only("maximum", other, 1))

    def minimum(self, other):
        return _binop(_MINIMUM, self, _tensor_only("minimum", other, 1))

    def eq(self, other):
        return _binop(_EQ, self, other)

    def ne(self, other):
        return _binop(_NE, self, other)

    def lt(self, other):
        return _binop(_LT, self, other)

    def le(self, other):
        return _binop(_LE, self, other)

    def gt(self, other):
        return _binop(_GT, self, other)

    def ge(self, other):
        return _binop(_GE, self, other)

    def matmul(self, other):
        return self.__matmul__(other)

    def neg(self):
        return _unop(15, self)

    def abs(self):
        return _unop(16, self)

    def exp(self):
        return _unop(17, self)

    def log(self):
        return _unop(18, self)

    def sqrt(self):
        return _unop(19, self)

    def relu(self):
        return _unop(20, self)

    def clamp(self, min=None, max=None):  # noqa: A002  (torch's names)
        """torch.clamp: min(max(x, min), max) elementwise, min and max numbers
        or tensors; NaN stays NaN. Built from where: the gradient passes
        where min <= x <= max, bounds included, 0 at NaN, as PyTorch's (a
        bound that requires grad gets it where it wins)."""
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        where = late.where

        def chain(x):
            if min is not None:
                x = where(x < min, min, x)
            if max is not None:
                x = where(x > max, max, x)
            return x
        if not _C.tensor_requires_grad(self) or any(isinstance(b, Tensor) and b.requires_grad for b in (min, max)):
            return chain(self)
        inside = None
        for keep in ((self >= min) if min is not None else None, (self <= max) if max is not None else None):
            if keep is not None:
                inside = keep if inside is None else inside & keep
        return where(inside, self, chain(self.detach()))

    clip = clamp

    # ---- softmax family (composites of recorded ops: their gradients are
    # the ops'; the shift by the detached max keeps them finite) ----------

    def logsumexp(self, dim, keepdim=False):
        """torch.logsumexp: log(sum(exp(x))) over dim (an int or a tuple),
        computed stably (the max subtracted first; tsr_logsumexp). Integer
        input computes in float32, as torch's."""
        x = self if self.is_floating_point() else self.float()
        dims = _int_list([dim] if not isinstance(dim, (tuple, list)) else list(dim), "dim")
        return _C.logsumexp(x, dims, keepdim)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        """torch's Tensor.diagonal: a view (tsr_diagonal)."""
        return _C.diagonal(self, operator.index(offset), operator.index(dim1), operator.index(dim2))

    def softmax(self, dim, dtype=None):
        x = self if dtype is None else self.to(dtype)
        return _C.softmax(x, operator.index(dim))

    def log_softmax(self, dim, dtype=None):
        x = self if dtype is None else self.to(dtype)
        return _C.log_softmax(x, operator.index(dim))

    def amax(self, dim=(), keepdim=False):
        """torch.amax: the max over dim (all dims for ()), ties sharing the gradient."""
        return self._reduce(26, None if dim in ((), []) else dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        return self._reduce(27, None if dim in ((), []) else dim, keepdim)

    def all(self, dim=None, keepdim=False):
        """torch.all: whether every element (along dim) is nonzero, as bool."""
        return (self == 0)._reduce(24, dim, keepdim) == 0  # a count: empty is True

    def any(self, dim=None, keepdim=False):
        """torch.any: whether some element (along dim) is nonzero, as bool."""
        return (self != 0)._reduce(24, dim, keepdim) > 0

    def sigmoid(self):
        return _unop(21, self)

    def tanh(self):
        return _unop(22, self)

    def _math(self, name):
        return _C.math(MATH_FN[name], self)

    def sin(self):
        return self._math("sin")

    def cos(self):
        return self._math("cos")

    def tan(self):
        return self._math("tan")

    def asin(self):
        return self._math("asin")

    def acos(self):
        return self._math("acos")

    def atan(self):
        return self._math("atan")

    def sinh(self):
        return self._math("sinh")

    def cosh(self):
        return self._math("cosh")

    def asinh(self):
        return self._math("asinh")

    def acosh(self):
        return self._math("acosh")

    def atanh(self):
        return self._math("atanh")

    def expm1(self):
        return self._math("expm1")

    def log1p(self):
        return self._math("log1p")

    def erf(self):
        return self._math("erf")

    def log2(self):
        return self._math("log2")

    def log10(self):
        return self._math("log10")

    def floor(self):
        return self._math("floor")

    def ceil(self):
        return self._math("ceil")

    def trunc(self):
        return self._math("trunc")

    def round(self):
        return self._math("round")

    def sign(self):
        return self._math("sign")

    def atan2(self, other):
        return _binop(OP["atan2"], self, other)

    def floor_divide(self, other):
        return _binop(OP["floor_divide"], self, other)

    def remainder(self, other):
        return _binop(OP["remainder"], self, other)

    def bitwise_and(self, other):
        return _binop(OP["bitwise_and"], self, other)

    def bitwise_or(self, other):
        return _binop(OP["bitwise_or"], self, other)

    def bitwise_xor(self, other):
        return _binop(OP["bitwise_xor"], self, other)

    def bitwise_left_shift(self, other):
        return _binop(OP["bitwise_left_shift"], self, other)

    def bitwise_right_shift(self, other):
        return _binop(OP["bitwise_right_shift"], self, other)

    def bitwise_not(self):
        """~x: XOR with all ones (-1 wraps to every bit set; True for bool)."""
        return _binop(OP["bitwise_xor"], self, True if _dtype(self) == 9 else -1)

    def logaddexp(self, other):
        return _binop(OP["logaddexp"], self, other)

    # ---- reductions -----------------------------------------------------------------

    def _reduce(self, op, dim, keepdim):
        if dim is None:
            return _C.reduce(op, self, (), keepdim)
        dims = [dim] if not isinstance(dim, (tuple, list)) else list(dim)
        return _C.reduce(op, self, _int_list(dims, "dim"), keepdim)

    def sum(self, dim=None, keepdim=False, dtype=None):
        t = self if dtype is None else self.to(dtype)
        return t._reduce(24, dim, keepdim)

    def mean(self, dim=None, keepdim=False, dtype=None):
        t = self if dtype is None else self.to(dtype)
        return t._reduce(25, dim, keepdim)

    def max(self, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            return self.maximum(dim)
        if dim is None:
            return self._reduce(26, None, False)
        # bool has no argmax kernel (PyTorch neither) but max(dim) has indices.
        key = self._cast(DTYPES[5]) if _dtype(self) == 9 else self
        indices = key._reduce(28, dim, keepdim)
        return _MaxResult((self._extremum_values(26, dim, keepdim, indices), indices))

    def min(self, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            return self.minimum(dim)
        if dim is None:
            return self._reduce(27, None, False)
        # bool has no argmin kernel (PyTorch neither) but min(dim) has indices.
        key = self._cast(DTYPES[5]) if _dtype(self) == 9 else self
        indices = key._reduce(OP["argmin"], dim, keepdim)
        return _MinResult((self._extremum_values(27, dim, keepdim, indices), indices))

    def _extremum_values(self, op, dim, keepdim, indices):
        """max(dim) / min(dim)'s values: the reduction, or, for a tensor that
        requires grad, the elements at the returned indices, so that the
        gradient goes to them alone (PyTorch's rule; amax shares it among
        ties)."""
        if not _C.tensor_requires_grad(self) or not _C.is_grad_enabled():
            return self._reduce(op, dim, keepdim)
        at = indices if keepdim else indices.unsqueeze(dim)
        values = self.gather(dim, at)
        return values if keepdim else values.squeeze(dim)

    def argmax(self, dim=None, keepdim=False):
        return self._reduce(28, dim, keepdim)

    def argmin(self, dim=None, keepdim=False):
        if _dtype(self) == 9:
            raise RuntimeError("argmin: not supported for dtype bool")
        return self._reduce(OP["argmin"], dim, keepdim)

    # ---- index ops (ABI 1.5) --------------------------------------------------

    def cumsum(self, dim, dtype=None):
        return _C.cumsum(self, int(dim), None if dtype is None else as_dtype(dtype))

    def gather(self, dim, index):
        return _C.gather(self, int(dim), _tensor_only("gather", index, 2))

    def index_select(self, dim, index):
        return _C.take(self, _tensor_only("index_select", index, 2), int(dim))

    def take(self, index):
        """torch.take: the elements of the flattened tensor at `index`, in index's shape."""
        index = _tensor_only("take", index, 1)
        x, i = self.reshape(-1), index.reshape(-1)  # held: the handles must outlive the call
        return _C.take(x, i, 0).reshape(index.shape)

    def _scatter(self, dim, index, src, add):
        if not isinstance(src, Tensor):  # a number: as torch's scatter_(dim, index, value)
            src = late.full(tuple(index.shape), src, dtype=self.dtype, device=self.device)
        _C.scatter_(self, int(dim), _tensor_only("scatter", index, 2), src, add)
        return self

    def scatter_(self, dim, index, src, reduce=None):
        if reduce not in (None, "add"):
            raise ValueError("scatter_(): reduce must be None or 'add', got %r" % (reduce,))
        return self._scatter(dim, index, src, reduce == "add")

    def scatter_add_(self, dim, index, src):
        return self._scatter(dim, index, src, True)

    def scatter(self, dim, index, src, reduce=None):
        return self.clone().scatter_(dim, index, src, reduce)

    def scatter_add(self, dim, index, src):
        return self.clone().scatter_add_(dim, index, src)

    def nonzero(self, *, as_tuple=False):
        rows = _C.nonzero(self)
        if not as_tuple:
            return rows
        return tuple(rows[:, d] for d in range(max(self.dim(), 1)))

    def _sort(self, dim, descending, stable, want_values, want_indices):
        values, indices = _C.sort(self, int(dim), descending, stable)
        return (values if want_values else None), (indices if want_indices else None)

    def sort(self, dim=-1, descending=False, stable=False):
        return _SortResult(self._sort(dim, descending, stable, True, True))

    def argsort(self, dim=-1, descending=False, stable=False):
        return self._sort(dim, descending, stable, False, True)[1]

    # The functions of _sequences.py (Array API 2023.12-2025.12's twins).
    def cumprod(self, dim, dtype=None):
        return _C.cumprod(self, int(dim), None if dtype is None else as_dtype(dtype))

    def repeat_interleave(self, repeats=None, dim=None, *, output_size=None):
        return late.sequences.repeat_interleave(self, repeats, dim, output_size=output_size)

    def tile(self, *dims):
        return late.sequences.tile(self, dims[0] if len(dims) == 1 and not isinstance(dims[0], int) else dims)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        return late.sequences.diff(self, n, dim, prepend, append)

    def take_along_dim(self, indices, dim=None):
        return late.sequences.take_along_dim(self, indices, dim)

    def count_nonzero(self, dim=None):
        return late.sequences.count_nonzero(self, dim)

    def movedim(self, source, destination):
        return late.sequences.movedim(self, source, destination)

    moveaxis = movedim

    def signbit(self):
        return late.sequences.signbit(self)

    def copysign(self, other):
        return late.sequences.copysign(self, other)

    def nextafter(self, other):
        return late.sequences.nextafter(self, other)

    def hypot(self, other):
        return late.sequences.hypot(self, other)

    def msort(self):
        return self._sort(0, False, False, True, False)[0]

    def flip(self, *dims):
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        dims = _int_list(list(dims), "dims")
        return _C.flip(self, dims)

    def prod(self, dim=None, keepdim=False, dtype=None):
        t = self if dtype is None else self.to(dtype)
        return t._reduce(OP["prod"], dim, keepdim)

    def _variance(self, op, dim, unbiased, keepdim, correction):
        if correction is None:
            correction = 1 if unbiased else 0
        dims = ()
        if dim is not None:
            dims = _int_list([dim] if not isinstance(dim, (tuple, list)) else list(dim), "dim")
        return _C.reduce(op, self, dims, keepdim, float(correction))

    def var(self, dim=None, unbiased=True, keepdim=False, *, correction=None):
        return self._variance(OP["var"], dim, unbiased, keepdim, correction)

    def std(self, dim=None, unbiased=True, keepdim=False, *, correction=None):
        return self._variance(OP["std"], dim, unbiased, keepdim, correction)



def _nest(flat, shape):
    """Row-major values as nested lists of the given shape."""
    if not shape:
        return flat[0]
    last = len(shape) - 1
    blocks = [1] * len(shape)
    for d in range(last - 1, -1, -1):
        blocks[d] = blocks[d + 1] * shape[d + 1]

    def build(off, d):
        n = shape[d]
        if d == last:
            return flat[off:off + n]
        step = blocks[d]
        return [build(off + i * step, d + 1) for i in range(n)]

    return build(0, 0)


def _same_layout(a, b):
    if a._h == b._h:
        return True
    ha, hb = a, b
    return (ha.shape == hb.shape and _C.tensor_storage_data(ha) == _C.tensor_storage_data(hb)
            and _C.tensor_storage_offset(ha) == _C.tensor_storage_offset(hb)
            and _dtype(ha) == _dtype(hb) and _C.tensor_strides(ha) == _C.tensor_strides(hb))


def _parse_to(args, kwargs):
    dt = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError("to() got an unexpected keyword argument '%s'" % next(iter(kwargs)))
    for a in args:
        if isinstance(a, dtype):
            dt = a
        elif isinstance(a, Tensor):
            dt, dev = a.dtype, a.device
        elif isinstance(a, bool):
            pass  # non_blocking / copy given positionally
        elif a is None:
            pass
        else:
            dev = a
    if dt is not None:
        as_dtype(dt)
    return dt, dev, copy


# ---- indexing --------------------------------------------------------------------

_ZERO_DIM_INDEX = ("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                   "in C++ to convert a 0-dim tensor to a number")


def _clamp64(v):
    v = operator.index(v)
    return _I64_MIN + 1 if v <= _I64_MIN else (_I64_MAX if v > _I64_MAX else v)


def _as_int_index(k):
    """An int for an index that is an integer (int, NumPy int, 0-dim
    integral Tensor), else None."""
    if isinstance(k, Tensor):
        if k.ndim == 0 and _dtype(k) in (4, 5, 6, 7, 8, 10, 11, 12):
            return k.item()
        return None
    if isinstance(k, bool) or type(k).__name__ == "bool_":
        return None
    try:
        return operator.index(k)
    except TypeError:
        return None


def _getitem(t, key):
    """t[key] for the keys _C's subscript does not take itself (advanced
    keys, NumPy integers, bools, keys that are errors): Tensor.__getitem__
    is the C type's."""
    if _advanced_key(key):
        return late.getitem(t, key)
    return _index(t, key)


def _index(t, key):
    """Basic indexing: ints select, slices narrow, None adds a dim, ...
    skips; each step is one view call on the C side."""
    if type(key) is not tuple:
        key = (key,)
    ndim = t.ndim
    consumed = 0
    ellipsis = False
    for k in key:
        if k is None or k is True:
            continue
        if k is Ellipsis:
            if ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            ellipsis = True
            continue
        consumed += 1
    if consumed > ndim:
        if ndim == 0:
            raise IndexError(_ZERO_DIM_INDEX)
        raise IndexError("too many indices for tensor of dimension %d" % ndim)
    cur = t
    d = 0
    for k in key:
        if type(k) is slice:
            step = 1 if k.step is None else operator.index(k.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
            if k.start is None and k.stop is None and step == 1:
                d += 1
                continue
            start = SLICE_NONE if k.start is None else _clamp64(k.start)
            stop = SLICE_NONE if k.stop is None else _clamp64(k.stop)
            cur = _C.slice(cur, d, start, stop, step)
            d += 1
        elif k is None or k is True:
            cur = _C.unsqueeze(cur, d)
            d += 1
        elif k is Ellipsis:
            d += ndim - consumed
        else:
            i = _as_int_index(k)
            if i is None:
                raise IndexError(_bad_index(k))
            if not _I64_MIN <= i <= _I64_MAX:
                raise RuntimeError("Overflow when unpacking long")  # torch's words
            cur = _C.select(cur, d, i)
    return _C.alias(t) if cur is t else cur


def _advanced_key(key):
    """Whether the key needs advanced indexing (Note [Advanced indexing] in
    _advanced.py): a cheap look before importing it."""
    for k in (key if type(key) is tuple else (key,)):
        if k is False or isinstance(k, (list, Tensor)) or type(k).__module__ == "numpy":
            return late.is_advanced(key)
    return False


def _bad_index(k):
    return ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
            "indices (got %s)" % type(k).__name__)


# The C type's half of the work needs these (Note [One interpreter] in _C.c).
_C.setup(Tensor, error, _binop, _rbinop, _inplace, _getitem, DTYPES, Size, device_from)
