# SPDX-License-Identifier: Apache-2.0
"""dtype, device, Size and finfo: the small value types. They behave as
PyTorch's do; their reprs name this package (tessera.float32,
tessera.Size([3, 4])), so that eval(repr(v)) gives v back after
`import tessera`."""
from . import _C


class dtype:
    """An element type. Its repr is "tessera.float32" (eval gives the dtype
    back after `import tessera`)."""
    __slots__ = ("_code", "_name", "itemsize", "is_floating_point", "is_signed", "is_complex")

    def __init__(self, code, name, itemsize, is_floating_point, is_signed, is_complex=False):
        self._code = code
        self._name = name
        self.itemsize = itemsize
        self.is_floating_point = is_floating_point  # real floating only, as torch's
        self.is_signed = is_signed
        self.is_complex = is_complex

    def __repr__(self):
        return "tessera." + self._name

    __str__ = __repr__

    # Note [NumPy's view of a dtype]
    #   Code written for NumPy-like arrays asks a dtype NumPy's questions:
    #   np.dtype(d) (scikit-learn's check_array), d.kind (its finiteness
    #   check), d.itemsize, d.name. The answers are NumPy's: `dtype` is the
    #   attribute NumPy's dtype constructor reads from any object, so
    #   np.dtype(tessera.float64) is float64 (bfloat16, which NumPy lacks,
    #   raises TypeError); equality and hashing stay identity's.
    @property
    def name(self):
        """NumPy's name of the dtype ("float32", "bool", "complex128")."""
        return self._name

    @property
    def kind(self):
        """NumPy's kind: 'b' bool, 'i' signed integer, 'u' unsigned, 'f' real floating, 'c' complex."""
        if self.is_complex:
            return "c"
        if self.is_floating_point:
            return "f"
        if self._name == "bool":
            return "b"
        return "i" if self.is_signed else "u"

    @property
    def dtype(self):
        """The NumPy dtype of the same name, for np.dtype(d) (Note [NumPy's view of a dtype])."""
        if self._name == "bfloat16":
            raise TypeError("tessera.bfloat16 has no NumPy dtype")
        import numpy
        return numpy.dtype(self._name)

    def __reduce__(self):
        return (_dtype_by_name, (self._name,))


float32 = dtype(0, "float32", 4, True, True)
float64 = dtype(1, "float64", 8, True, True)
float16 = dtype(2, "float16", 2, True, True)
bfloat16 = dtype(3, "bfloat16", 2, True, True)
int8 = dtype(4, "int8", 1, False, True)
uint8 = dtype(5, "uint8", 1, False, False)
int16 = dtype(6, "int16", 2, False, True)
int32 = dtype(7, "int32", 4, False, True)
int64 = dtype(8, "int64", 8, False, True)
bool_ = dtype(9, "bool", 1, False, False)
uint16 = dtype(10, "uint16", 2, False, False)  # ABI 1.5, NumPy's promotion (Note [Unsigned promotion])
uint32 = dtype(11, "uint32", 4, False, False)
uint64 = dtype(12, "uint64", 8, False, False)
complex64 = dtype(13, "complex64", 8, False, True, True)  # ABI 1.7 (Note [Complex dtypes], tessera/ops.h)
complex128 = dtype(14, "complex128", 16, False, True, True)

DTYPES = (float32, float64, float16, bfloat16, int8, uint8, int16, int32, int64, bool_, uint16, uint32,
          uint64, complex64, complex128)  # by code

# A complex dtype's parts, and the complex dtype of a real floating one.
REAL_OF = {complex64: float32, complex128: float64}
COMPLEX_OF = {float64: complex128, float32: complex64, float16: complex64, bfloat16: complex64}


def _dtype_by_name(name):
    for d in DTYPES:
        if d._name == name:
            return d
    raise ValueError(name)


def as_dtype(d, what="dtype"):
    if type(d) is dtype:
        return d
    raise TypeError("%s must be tessera.dtype, not %s" % (what, type(d).__name__))


def promote_types(a, b):
    """PyTorch's promotion of two tensor dtypes (NumPy's for uint16/32/64)."""
    return DTYPES[_C.promote_types(as_dtype(a)._code, as_dtype(b)._code)]


# ---- devices ------------------------------------------------------------------

# Device types whose numbers are fixed by tessera/device.h (DLPack's). Others
# (plugins' named types, config aliases) are resolved by the runtime.
_FIXED_TYPES = {"cpu": 1, "cuda": 2}
_FIXED_NAMES = {1: "cpu", 2: "cuda"}


class device:
    """As torch.device: device("cpu"), device("cuda:0"), device("cuda", 1),
    device("arena", 0). Its repr is PyTorch's, device(type='cuda', index=0),
    which tessera.device accepts back."""
    __slots__ = ("type", "index", "_code")

    def __init__(self, type, index=None):
        if isinstance(type, device):
            if index is not None:
                raise ValueError("device(): an index cannot be given with a device")
            self.type, self.index, self._code = type.type, type.index, type._code
            return
        if not isinstance(type, str):
            raise TypeError("device() received an invalid combination of arguments - got (%s)" %
                            _type_name(type))
        text = type
        name, sep, idx = text.partition(":")
        if sep:
            if index is not None:
                raise RuntimeError("type (string) must not include an index because index was passed "
                                   "explicitly: " + text)
            if not idx.isdigit():
                raise RuntimeError("Invalid device string: '%s'" % text)
            index = int(idx)
        if index is not None:
            index = int(index)
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        self._code = None
        if name in _FIXED_TYPES:
            self.type, self.index = name, index
        else:
            # A plugin's device type or a config alias: ask the runtime.
            code, parsed = _C.device_parse(text)
            if index is not None and not sep:
                parsed = index  # device("arena", 1), as device("cuda", 1)
            self.type = _type_name_of(code)
            self.index = parsed if (sep or index is not None or code != 1) else None
            self._code = (code, parsed)

    def _pair(self):
        """(type code, index): the tsr_device the extension passes (index None
        means 0, as PyTorch's current device)."""
        code = self._code
        if code is None:
            t = _FIXED_TYPES.get(self.type)
            if t is None:
                t = _C.device_parse(self.type)[0]
            code = self._code = (t, self.index or 0)
        return code

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)

    def __repr__(self):
        if self.index is None:
            return "device(type='%s')" % self.type
        return "device(type='%s', index=%d)" % (self.type, self.index)

    def __eq__(self, other):
        if isinstance(other, device):
            return self.type == other.type and self.index == other.index
        return NotImplemented

    def __hash__(self):
        return hash((self.type, self.index))


def _type_name(x):
    return type(x).__name__


def _type_name_of(code):
    name = _FIXED_NAMES.get(code)
    if name is None:
        name = _C.device_format(code, 0).partition(":")[0]
    return name


_devices = {}  # (type, index) -> device, for Tensor.device


def device_from(type_code, index):
    """The device object for a tsr_device's two fields, as PyTorch names a
    tensor's device: the CPU without an index, others with one (what
    tessera._C calls for Tensor.device)."""
    key = (type_code, index)
    d = _devices.get(key)
    if d is None:
        d = device.__new__(device)
        d.type = _type_name_of(type_code)
        d.index = None if (type_code == 1 and index == 0) else index
        d._code = (type_code, index)
        _devices[key] = d
    return d


def device_arg(d):
    """A device argument as the extension takes it: a device, or None for
    the config's default."""
    if d is None or type(d) is device:
        return d
    if isinstance(d, str):
        return device(d)
    if isinstance(d, int) and not isinstance(d, bool):
        return device("cuda", d)  # PyTorch: an int names a CUDA ordinal
    raise TypeError("expected a device, got %s" % _type_name(d))


# ---- Size -----------------------------------------------------------------------


class Size(tuple):
    """As torch.Size: a tuple of ints that prints as tessera.Size([3, 4])."""
    __slots__ = ()

    def __repr__(self):
        return "tessera.Size([%s])" % ", ".join(str(int(s)) for s in self)

    __str__ = __repr__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return Size(r) if isinstance(key, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, other))

    def __reduce__(self):
        return (Size, (tuple(self),))


# ---- finfo ----------------------------------------------------------------------


class finfo:
    """torch.finfo: bits, eps, max, min, tiny and resolution of a floating dtype."""
    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type=None):
        d = float32 if type is None else as_dtype(type, "finfo's argument")
        try:
            self.bits, self.eps, self.max, self.min, self.tiny = _C.get_finfo(d._code)
        except RuntimeError as e:  # PyTorch raises TypeError for a non-floating dtype (TSR_ERR_TYPE)
            raise TypeError(str(e)) from None
        self.smallest_normal = self.tiny
        # 10 ** -(decimal digits), as NumPy and PyTorch define it.
        import math
        self.resolution = 10.0 ** -int(math.floor(-math.log10(self.eps)))
        self.dtype = REAL_OF.get(d, d)._name  # a complex dtype's parts, as torch.finfo

    def __repr__(self):
        return ("finfo(resolution=%g, min=%g, max=%g, eps=%g, smallest_normal=%g, tiny=%g, dtype=%s)" %
                (self.resolution, self.min, self.max, self.eps, self.tiny, self.tiny, self.dtype))
