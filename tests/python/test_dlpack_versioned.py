# SPDX-License-Identifier: Apache-2.0
"""DLPack 1.x both ways (Note [DLPack versions] in tessera/_dlpack.py):
versioned capsules for every dtype, max_version, copy and dl_device,
read-only and malformed capsules, and the 0.x exchange with NumPy 1.24 and
PyTorch 1.13 beside it. Capsules are read and spoiled through ctypes, with
DLManagedTensorVersioned's layout written out below."""
import ctypes
import gc
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera
import tessera.array_api as xp
from devices import needs_emulator

torch = pytest.importorskip("torch")


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32),
                ("ndim", ctypes.c_int32), ("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class Managed(ctypes.Structure):  # DLManagedTensorVersioned (DLPack 1.x)
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


READ_ONLY, IS_COPIED = 1, 2
_get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_GetPointer", ctypes.pythonapi))


def managed(capsule):
    """The capsule's DLManagedTensorVersioned, read and written in place."""
    return Managed.from_address(_get(capsule, b"dltensor_versioned"))


def name(capsule):
    return repr(capsule).split('"')[1]


class Producer:
    """A DLPack 1.x producer handing out a tensor's versioned capsule, spoiled by `spoil` first."""

    def __init__(self, t, spoil=None):
        self.t, self.spoil, self.calls = t, spoil, []

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        self.calls.append(max_version)
        capsule = self.t.__dlpack__(stream, max_version=max_version, dl_device=dl_device, copy=copy)
        if self.spoil is not None:
            self.spoil(managed(capsule))
        return capsule

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


# (tessera dtype, DLPack code, bits, NumPy dtype or None, torch dtype)
DTYPES = [("float32", 2, 32, "float32", "float32"), ("float64", 2, 64, "float64", "float64"),
          ("float16", 2, 16, "float16", "float16"), ("bfloat16", 4, 16, None, "bfloat16"),
          ("int8", 0, 8, "int8", "int8"), ("int16", 0, 16, "int16", "int16"), ("int32", 0, 32, "int32", "int32"),
          ("int64", 0, 64, "int64", "int64"), ("uint8", 1, 8, "uint8", "uint8"), ("uint16", 1, 16, "uint16", None),
          ("uint32", 1, 32, "uint32", None), ("uint64", 1, 64, "uint64", None), ("bool", 6, 8, "bool", "bool"),
          ("complex64", 5, 64, "complex64", "complex64"), ("complex128", 5, 128, "complex128", "complex128")]


def _values(np_name, torch_name):
    """A 2x3 tensor of the dtype, and its values as the reference library holds them."""
    if np_name is None:  # bfloat16: torch 1.13 is the reference
        ref = torch.tensor([[1.5, -2.0, 3.25], [0.0, 256.0, -0.5]], dtype=torch.bfloat16)
        return tessera.from_dlpack(ref), ref.float().numpy()
    ref = np.array([[1, 0, 3], [4, 5, 1]]).astype(np_name)
    if np_name.startswith("complex"):
        ref = (ref + 1j * np.array([[0.5, -1, 2], [0, 3, -4]])).astype(np_name)
    return tessera.tensor(ref), ref


@pytest.mark.parametrize("dt,code,bits,np_name,torch_name", DTYPES, ids=[d[0] for d in DTYPES])
def test_versioned_round_trip_of_every_dtype(dt, code, bits, np_name, torch_name):
    t, ref = _values(np_name, torch_name)
    assert t.dtype is getattr(tessera, dt)
    view = t.T  # strided
    capsule = view.__dlpack__(max_version=(1, 0))
    assert name(capsule) == "dltensor_versioned"
    m = managed(capsule)
    assert (m.major, m.minor, m.flags) == (1, 0, 0)
    dl = m.dl_tensor
    assert (dl.code, dl.bits, dl.lanes) == (code, bits, 1)
    assert (dl.device_type, dl.device_id, dl.ndim) == (1, 0, 2)
    assert (dl.shape[0], dl.shape[1], dl.strides[0], dl.strides[1]) == (3, 2, 1, 3)
    back = tessera.from_dlpack(capsule)
    assert name(capsule) == "used_dltensor_versioned"
    assert back.dtype is t.dtype and back.shape == (3, 2) and back.stride() == (1, 3)
    got = back.float().numpy() if dt == "bfloat16" else back.numpy()
    assert np.array_equal(got, ref.T)
    # shared memory: a write on either side is seen on the other
    t[0, 0] = 0 if dt != "bool" else False
    assert back[0, 0].item() == (0 if dt != "bool" else False)


def test_bool_in_both_capsules():
    b = tessera.tensor([True, False, True])
    assert name(b.__dlpack__()) == "dltensor"  # DLPack 0.8's kDLBool
    assert tessera.from_dlpack(b.__dlpack__()).tolist() == [True, False, True]
    assert tessera.from_dlpack(b.__dlpack__(max_version=(0, 8))).tolist() == [True, False, True]
    assert tessera.from_dlpack(b.__dlpack__(max_version=(1, 1))).tolist() == [True, False, True]
    import tessera._dlpack as dl
    before = len(dl._exports)
    with pytest.raises(RuntimeError, match="Unsupported dtype in DLTensor"):  # NumPy 1.24 (DLPack 0.6): no kDLBool
        np.from_dlpack(b)
    gc.collect()
    assert len(dl._exports) == before  # the refused export was freed
    a = xp.asarray([True, False])
    assert xp.from_dlpack(Producer(a._t)).dtype == xp.bool
    assert np.asarray(xp.from_dlpack(a)).tolist() == [True, False]


def test_max_version_picks_the_capsule():
    x = tessera.arange(3.0)
    assert name(x.__dlpack__()) == "dltensor"
    assert name(x.__dlpack__(max_version=(0, 8))) == "dltensor"
    assert name(x.__dlpack__(max_version=(1, 0))) == "dltensor_versioned"
    assert name(x.__dlpack__(max_version=(2, 3))) == "dltensor_versioned"  # ours is 1.0: the consumer checks
    assert managed(x.__dlpack__(max_version=(2, 3))).major == 1
    with pytest.raises(TypeError, match="max_version"):
        x.__dlpack__(max_version=1)
    p = Producer(x)
    assert tessera.from_dlpack(p).tolist() == [0.0, 1.0, 2.0]
    assert p.calls == [(1, 0)]  # from_dlpack asked for a versioned capsule


def test_copy_keyword():
    x = tessera.arange(4.0)
    c = x.__dlpack__(max_version=(1, 0), copy=True)
    assert managed(c).flags == IS_COPIED
    y = tessera.from_dlpack(c)
    y[0] = 9.0
    assert x[0].item() == 0.0  # a copy
    s = x.__dlpack__(max_version=(1, 0), copy=False)
    assert managed(s).flags == 0
    z = tessera.from_dlpack(s)
    z[1] = 7.0
    assert x[1].item() == 7.0  # shared
    with pytest.raises(BufferError, match="copy"):  # another device needs a copy
        x.__dlpack__(max_version=(1, 0), dl_device=(2, 0), copy=False)
    with pytest.raises(BufferError, match="copy=False"):
        x.__dlpack__(dl_device=(2, 0), copy=False)
    # copy=True on a 0.x capsule copies too (no flag to say it)
    w = tessera.from_dlpack(x.__dlpack__(copy=True))
    w[2] = -1.0
    assert x[2].item() == 2.0
    # from_dlpack's copy
    assert tessera.from_dlpack(x, copy=False).data_ptr() == x.data_ptr()
    assert tessera.from_dlpack(x, copy=True).data_ptr() != x.data_ptr()
    a = np.arange(3.0)
    t = tessera.from_dlpack(a, copy=True)
    t[0] = 5.0
    assert a[0] == 0.0
    assert np.asarray(xp.from_dlpack(xp.asarray([1, 2]), copy=False)).tolist() == [1, 2]
    with pytest.raises(TypeError, match="copy"):
        x.__dlpack__(max_version=(1, 0), copy="yes")


def test_dl_device_on_the_cpu():
    x = tessera.arange(3)
    assert managed(x.__dlpack__(max_version=(1, 0), dl_device=(1, 0))).flags == 0  # its own device: shared
    with pytest.raises(BufferError, match=r"dl_device=\(12, 0\)"):
        x.__dlpack__(max_version=(1, 0), dl_device=(12, 0))
    if not tessera.cuda.is_available():
        with pytest.raises(BufferError):
            x.__dlpack__(max_version=(1, 0), dl_device=(2, 0))  # no cuda device to copy to
        with pytest.raises(BufferError, match="dl_device"):
            xp.asarray([1.0]).__dlpack__(max_version=(1, 0), dl_device=(2, 7))


def test_read_only_capsule_is_imported_as_a_copy():
    # Note [Importing DLPack 1.x]: Tessera tensors cannot be read-only, so
    # the producer's memory is copied and never written through Tessera.
    a = np.arange(4, dtype=np.int32)
    src = tessera.from_numpy(a)

    def read_only(m):
        m.flags |= READ_ONLY

    refs = sys.getrefcount(a)
    t = tessera.from_dlpack(Producer(src, read_only))
    assert t.tolist() == [0, 1, 2, 3] and t.dtype is tessera.int32
    assert t.data_ptr() != a.__array_interface__["data"][0]
    t[0] = 100  # the copy is writable; the producer's memory stays as it was
    t.add_(1)
    assert a.tolist() == [0, 1, 2, 3] and t.tolist() == [101, 2, 3, 4]
    del src
    gc.collect()
    assert sys.getrefcount(a) == refs - 1  # the export's deleter ran (once) when the copy was made
    r = xp.from_dlpack(Producer(xp.asarray([1.0, 2.0])._t, read_only))
    r[0] = 5.0
    assert np.asarray(r).tolist() == [5.0, 2.0]


def test_negative_strides_are_imported_as_a_copy():
    src = tessera.arange(5, dtype=tessera.int64)
    step = src.element_size()

    def reverse(m):  # what a producer of a[::-1] hands out
        m.dl_tensor.data += 4 * step
        m.dl_tensor.strides[0] = -1

    t = tessera.from_dlpack(Producer(src, reverse))
    assert t.tolist() == [4, 3, 2, 1, 0] and t.stride() == (1,)
    t[0] = -1
    assert src.tolist() == [0, 1, 2, 3, 4]


def test_a_capsule_is_consumed_once():
    c = tessera.ones(2).__dlpack__(max_version=(1, 0))
    tessera.from_dlpack(c)
    with pytest.raises(RuntimeError, match="unused"):
        tessera.from_dlpack(c)
    with pytest.raises(RuntimeError, match="unused"):
        tessera.from_dlpack(object())  # neither a producer nor a capsule


def _export_holding(a):
    """A versioned capsule of a tensor over NumPy memory, with no other holder than the capsule."""
    t = tessera.from_numpy(a)
    c = t.__dlpack__(max_version=(1, 0))
    del t
    return c


@pytest.mark.parametrize("spoil,message", [
    (lambda m: setattr(m, "major", 2), "DLPack version 2.0 is not supported"),
    (lambda m: setattr(m.dl_tensor, "ndim", -1), "has -1 dims"),
    (lambda m: setattr(m.dl_tensor, "ndim", 17), r"16 \(TSR_MAX_DIMS\)"),
    (lambda m: setattr(m.dl_tensor, "shape", None), "shape is NULL"),
    (lambda m: setattr(m.dl_tensor, "lanes", 4), "lanes 4"),
    (lambda m: setattr(m.dl_tensor, "code", 9), "unsupported DLPack dtype"),
    (lambda m: setattr(m.dl_tensor, "byte_offset", 1), "not aligned"),
    (lambda m: setattr(m.dl_tensor, "device_type", 12), "device type 12"),
], ids=["major2", "ndim-1", "ndim17", "NULL-shape", "lanes", "dtype", "misaligned", "kDLExtDev"])
def test_refused_capsules_raise_buffer_error_and_free_once(spoil, message):
    a = np.arange(6.0).reshape(2, 3)
    refs = sys.getrefcount(a)
    c = _export_holding(a)
    assert sys.getrefcount(a) == refs + 1  # the export holds the array through the storage
    spoil(managed(c))
    with pytest.raises(BufferError, match=message):
        tessera.from_dlpack(c)
    gc.collect()
    assert sys.getrefcount(a) == refs  # the deleter ran, once (twice would drop below)
    del c
    gc.collect()
    assert sys.getrefcount(a) == refs


def test_cuda_capsule_without_a_cuda_device_stays_the_producers():
    if tessera.cuda.is_available():
        pytest.skip("a CUDA device is present")
    a = np.arange(3.0)
    refs = sys.getrefcount(a)
    c = _export_holding(a)
    managed(c).dl_tensor.device_type = 2
    with pytest.raises(BufferError, match=r"cuda:0 is not available|unknown device type 2 \(cuda\)"):
        tessera.from_dlpack(c)
    assert name(c) == "dltensor_versioned"  # refused before it changed hands
    assert sys.getrefcount(a) == refs + 1
    del c
    gc.collect()
    assert sys.getrefcount(a) == refs  # its destructor ran the deleter, once


def test_unconsumed_versioned_capsule_frees_on_collection():
    a = np.arange(3.0)
    refs = sys.getrefcount(a)
    c = _export_holding(a)
    assert sys.getrefcount(a) == refs + 1
    del c
    gc.collect()
    assert sys.getrefcount(a) == refs


def test_zero_copy_import_frees_when_the_last_view_goes():
    a = np.arange(4.0)
    refs = sys.getrefcount(a)
    t = tessera.from_dlpack(_export_holding(a))
    v = t[1:]
    del t
    gc.collect()
    assert sys.getrefcount(a) == refs + 1
    v[0] = 10.0
    assert a[1] == 10.0
    del v
    gc.collect()
    assert sys.getrefcount(a) == refs


def test_exchange_with_numpy_1_24_and_torch_1_13_is_dlpack_0x():
    x = tessera.arange(6.0).view(2, 3)
    a = np.from_dlpack(x.T)  # NumPy 1.24 passes no max_version: a "dltensor" capsule
    assert np.array_equal(a, np.arange(6.0).reshape(2, 3).T)
    x[1, 0] = 42.0  # shared (NumPy 1.24 makes such arrays read-only on its side)
    assert a[0, 1] == 42.0
    tt = torch.utils.dlpack.from_dlpack(x)
    assert tt.tolist() == x.tolist()
    # their __dlpack__ takes no max_version: from_dlpack falls back to the legacy call
    assert tessera.from_dlpack(np.arange(3, dtype=np.uint8)).tolist() == [0, 1, 2]
    assert tessera.from_dlpack(torch.arange(4.0).to(torch.bfloat16)).dtype is tessera.bfloat16
    assert np.asarray(xp.from_dlpack(np.arange(2.0))).tolist() == [0.0, 1.0]
    assert xp.from_dlpack(torch.tensor([1j, 2])).dtype == xp.complex64
    # and a versioned capsule of ours goes nowhere they cannot read: they never ask for one
    assert np.from_dlpack(xp.asarray([1, 2])).tolist() == [1, 2]


EMULATOR = r"""
import ctypes
import numpy as np
import tessera
from test_dlpack_versioned import managed, name, Producer, IS_COPIED
x = tessera.arange(6.0, device="cuda").view(2, 3)
c = x.T.__dlpack__(max_version=(1, 0))
m = managed(c)
print(name(c), m.dl_tensor.device_type, m.dl_tensor.device_id, m.flags)
y = tessera.from_dlpack(c)  # cuda memory, shared
y[0, 1] = -1.0
print(y.device, x[1, 0].item())
h = x.__dlpack__(max_version=(1, 0), dl_device=(1, 0))  # a copy to the host
print(name(h), managed(h).dl_tensor.device_type, managed(h).flags == IS_COPIED)
l = x.__dlpack__(dl_device=(1, 0))  # the same in a 0.x capsule
print(name(l), tessera.from_dlpack(h).device, tessera.from_dlpack(l).tolist())
for kw in ({"copy": False}, {"max_version": (1, 0), "copy": False}):
    try:
        x.__dlpack__(dl_device=(1, 0), **kw)
    except BufferError as e:
        print("BufferError", "copy" in str(e))
try:
    x.__dlpack__(max_version=(1, 0), dl_device=(2, 3))
except BufferError as e:
    print("BufferError", "cuda:3" in str(e))
g = tessera.arange(3).__dlpack__(max_version=(1, 0), dl_device=(2, 0))  # the host's data copied to cuda:0
print(managed(g).dl_tensor.device_type, tessera.from_dlpack(g).device)
print(tessera.from_dlpack(Producer(x), device="cpu").device, tessera.from_dlpack(x, device="cpu", copy=True).tolist())
try:
    tessera.from_dlpack(Producer(x), device="cpu", copy=False)
except BufferError as e:
    print("BufferError", "copy=False" in str(e))
"""


@needs_emulator
def test_cuda_device_through_the_emulator():
    env = dict(os.environ, TESSERA_CONFIG=os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"], TESSERA_LOG_LEVEL="error",
               PYTHONPATH=os.pathsep.join([os.path.dirname(__file__), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", EMULATOR], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "dltensor_versioned 2 0 0",
        "cuda:0 -1.0",
        "dltensor_versioned 1 True",
        "dltensor cpu [[0.0, 1.0, 2.0], [-1.0, 4.0, 5.0]]",
        "BufferError True",
        "BufferError True",
        "BufferError True",
        "2 cuda:0",
        "cpu [[0.0, 1.0, 2.0], [-1.0, 4.0, 5.0]]",
        "BufferError True",
    ]
