# SPDX-License-Identifier: Apache-2.0
"""NumPy and DLPack sharing in both directions: no copies, writes visible on
the other side, strided views kept, owners kept alive exactly as long as
needed."""
import gc
import weakref

import numpy as np
import pytest

import tessera
from tessera import _dlpack, _numpy


def _collect():
    gc.collect()


def _set_dlpack_device(capsule, device_type, device_id=0):
    """Rewrites the device of a "dltensor" capsule's DLTensor, whose layout
    starts {void* data; DLDevice {int32 device_type, device_id}; ...}."""
    import ctypes
    get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", ctypes.pythonapi))
    device = get(capsule, b"dltensor") + ctypes.sizeof(ctypes.c_void_p)
    ctypes.c_int32.from_address(device).value = device_type
    ctypes.c_int32.from_address(device + 4).value = device_id


# ---- NumPy ---------------------------------------------------------------------------


@pytest.mark.parametrize("np_dtype,ours", [(np.float64, tessera.float64), (np.float32, tessera.float32),
                                           (np.float16, tessera.float16), (np.int64, tessera.int64),
                                           (np.int32, tessera.int32), (np.int16, tessera.int16),
                                           (np.int8, tessera.int8), (np.uint8, tessera.uint8),
                                           (np.uint16, tessera.uint16), (np.uint32, tessera.uint32),
                                           (np.uint64, tessera.uint64), (np.bool_, tessera.bool)])
def test_from_numpy_shares_and_keeps_dtype(np_dtype, ours):
    a = np.arange(12).reshape(3, 4).astype(np_dtype)
    t = tessera.from_numpy(a)
    assert t.dtype is ours and tuple(t.shape) == (3, 4) and t.stride() == (4, 1)
    assert t.untyped_storage().data_ptr() == a.__array_interface__["data"][0]
    a[2, 3] = 1
    assert t[2, 3].item() == 1
    t[0, 1] = 0
    assert a[0, 1] == 0


def test_from_numpy_strided_view_and_writes():
    a = np.arange(30.0).reshape(5, 6)
    v = a[1:, ::2]  # offset into the buffer, strides (12, 2) elements
    t = tessera.from_numpy(v)
    assert t.stride() == (6, 2) and tuple(t.shape) == (4, 3)
    assert t.tolist() == v.tolist()
    t[...] = -1
    assert (a[1:, ::2] == -1).all() and a[1, 1] == 7  # columns in between untouched
    t.T[0] += 10  # writes through a view of a view
    assert a[1:, 0].tolist() == [9.0, 9.0, 9.0, 9.0]


def test_from_numpy_refuses_what_it_cannot_wrap():
    with pytest.raises(ValueError, match="negative"):
        tessera.from_numpy(np.arange(5)[::-1])
    with pytest.raises(TypeError, match="clongdouble|complex256"):
        tessera.from_numpy(np.arange(3, dtype=np.clongdouble))  # no complex of long doubles
    with pytest.raises(TypeError):
        tessera.from_numpy([1, 2, 3])


def test_from_numpy_keeps_the_array_until_the_last_view_goes():
    a = np.arange(6.0)
    ref = weakref.ref(a.base if a.base is not None else a)
    t = tessera.from_numpy(a)
    v = t[2:]
    del a, t
    _collect()
    assert ref() is not None  # v still reads the array's memory
    assert v.tolist() == [2.0, 3.0, 4.0, 5.0]
    key = max(_numpy._owners)
    del v
    _collect()
    assert ref() is None
    assert key not in _numpy._owners


def test_numpy_method_shares_both_ways():
    x = tessera.arange(12, dtype=tessera.float32).view(3, 4)
    a = x.numpy()
    assert a.dtype == np.float32 and a.shape == (3, 4) and a.strides == (16, 4)
    a[1, 1] = 99
    assert x[1, 1].item() == 99
    x[2, 0] = -5
    assert a[2, 0] == -5
    b = x.T[1:, ::2].numpy()  # strides in bytes, offset applied
    assert b.strides == (4, 32) and b.tolist() == x.T[1:, ::2].tolist()
    e = x[:, :1].expand(3, 4).numpy()
    assert e.strides == (16, 0) and e[:, 3].tolist() == [0.0, 4.0, -5.0]


def test_numpy_array_keeps_the_tensor_alive():
    x = tessera.arange(4, dtype=tessera.float64)
    a = x.numpy()
    del x
    _collect()
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0]  # the holder owns the tensor
    a[0] = 7.0
    assert np.asarray(a.base.tensor).tolist()[0] == 7.0


def test_tensor_of_an_array_copies_and_as_tensor_shares():
    a = np.ones(3)
    copied, shared = tessera.tensor(a), tessera.as_tensor(a)
    a[0] = 5
    assert copied[0].item() == 1.0 and shared[0].item() == 5.0
    assert copied.dtype is tessera.float64
    converted = tessera.as_tensor(a, dtype=tessera.float32)  # a conversion must copy
    a[1] = 9
    assert converted.tolist() == [5.0, 1.0, 1.0]


def test_numpy_refusals_match_pytorch():
    with pytest.raises(TypeError, match="BFloat16"):
        tessera.ones(2, dtype=tessera.bfloat16).numpy()
    assert np.asarray(tessera.tensor([1, 2])).tolist() == [1, 2]


# ---- DLPack --------------------------------------------------------------------------


def test_dlpack_export_to_numpy_is_shared_and_strided():
    x = tessera.arange(12, dtype=tessera.float64).view(3, 4)
    a = np.from_dlpack(x[:, 1::2])
    assert a.shape == (3, 2) and a.strides == (32, 16)
    x[2, 3] = 42
    assert a[2, 1] == 42  # NumPy 1.24 marks DLPack arrays read-only; our writes show
    assert x.__dlpack_device__() == (1, 0)


def test_dlpack_export_is_freed_when_consumers_go():
    _collect()
    before = len(_dlpack._exports)
    x = tessera.ones(4)
    a = np.from_dlpack(x)
    assert len(_dlpack._exports) == before + 1
    del a
    _collect()
    assert len(_dlpack._exports) == before
    capsule = x.__dlpack__()  # never consumed: its destructor frees it
    assert len(_dlpack._exports) == before + 1
    del capsule
    _collect()
    assert len(_dlpack._exports) == before


def test_dlpack_import_from_numpy_shares():
    a = np.arange(10, dtype=np.int16)[1::3]
    t = tessera.from_dlpack(a)
    assert t.dtype is tessera.int16 and t.stride() == (3,) and t.tolist() == [1, 4, 7]
    t[1] = 99
    assert a.tolist() == [1, 99, 7]
    key = max(_dlpack._imports)
    del t
    _collect()
    assert key not in _dlpack._imports


def test_dlpack_import_of_an_unavailable_device_is_refused_and_frees_nothing_twice():
    # A capsule that claims CUDA memory: on a machine without a GPU (or without
    # the cuda plugin) the import is refused naming the device, and the
    # capsule stays the producer's: its destructor frees it, once.
    _collect()
    before = len(_dlpack._exports)
    capsule = tessera.ones(3).__dlpack__()
    _set_dlpack_device(capsule, 2)
    if tessera.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(RuntimeError, match=r"cuda:0 is not available|unknown device type 2 \(cuda\)"):
        tessera.from_dlpack(capsule)
    assert len(_dlpack._exports) == before + 1  # still the producer's
    del capsule
    _collect()
    assert len(_dlpack._exports) == before


def test_dlpack_bool_goes_out_as_dlpack_08s_kdlbool():
    torch = pytest.importorskip("torch", reason="PyTorch is not importable")
    b = tessera.tensor([True, False])
    assert tessera.from_dlpack(b.__dlpack__()).tolist() == [True, False]
    with pytest.raises(RuntimeError, match="Unsupported code 6"):  # torch 1.13 speaks DLPack 0.7: no kDLBool (6)
        torch.utils.dlpack.from_dlpack(b.__dlpack__())


class TestWithTorch:
    torch = None

    @classmethod
    def setup_class(cls):
        cls.torch = pytest.importorskip("torch", reason="PyTorch is not importable")
        from torch.utils import dlpack
        cls.dlpack = dlpack

    def test_torch_reads_and_writes_our_views(self):
        torch = self.torch
        x = tessera.arange(20, dtype=tessera.float32).view(4, 5)
        v = x.T[1:, 2:]  # shape (4, 2), strides (1, 5), offset 11
        t = self.dlpack.from_dlpack(v)
        assert tuple(t.shape) == (4, 2) and t.stride() == (1, 5) and t.dtype == torch.float32
        assert t.tolist() == v.tolist()
        t[0, 0] = -1
        assert x[2, 1].item() == -1
        x[3, 4] = 77
        assert t[3, 1].item() == 77

    def test_we_read_and_write_torch_views(self):
        torch = self.torch
        base = torch.arange(24, dtype=torch.float64).view(2, 3, 4)
        view = base.permute(2, 0, 1)[1:, :, ::2]
        ours = tessera.from_dlpack(view)
        assert tuple(ours.shape) == tuple(view.shape) and ours.stride() == view.stride()
        assert ours.tolist() == view.tolist()
        ours[0, 1, 1] = 1000
        assert view[0, 1, 1].item() == 1000
        legacy = tessera.from_dlpack(self.dlpack.to_dlpack(base[1]))  # a bare capsule
        base[1, 2, 3] = -3
        assert legacy[2, 3].item() == -3

    def test_torch_tensor_outlives_ours(self):
        x = tessera.arange(6, dtype=tessera.int64)
        t = self.dlpack.from_dlpack(x)
        del x
        _collect()
        assert t.tolist() == [0, 1, 2, 3, 4, 5]
        key = max(_dlpack._exports)
        del t
        _collect()
        assert key not in _dlpack._exports
