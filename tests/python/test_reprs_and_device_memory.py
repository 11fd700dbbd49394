# SPDX-License-Identifier: Apache-2.0
"""Issue 17, items 12 and 16: the value types print as Tessera's own
(tessera.float32, tessera.Size([3, 4])) and eval back after `import tessera`;
DLPack names a plugin's device kDLExt, never its runtime number; a device
whose plugin says host_accessible shares its memory with NumPy and DLPack
consumers as the cpu does, while arena's (device memory) is copied."""
import json
import os
import subprocess
import sys

import pytest

import tessera
from tessera import _dlpack

DTYPE_NAMES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"]


# ---- item 12: reprs -------------------------------------------------------------------


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_repr_names_tessera_and_evals_back(name):
    d = getattr(tessera, name)
    assert repr(d) == "tessera." + name and str(d) == repr(d)
    assert eval(repr(d), {"tessera": tessera}) is d  # only `import tessera` in scope
    x = tessera.zeros(2, dtype=d)
    assert repr(x.dtype) == "tessera." + name
    assert eval(repr(x.dtype), {"tessera": tessera}) is x.dtype


@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 1, 0, 7)])
def test_size_repr_names_tessera_and_evals_back(shape):
    s = tessera.zeros(shape).shape
    assert repr(s) == "tessera.Size([%s])" % ", ".join(str(n) for n in shape) and str(s) == repr(s)
    back = eval(repr(s), {"tessera": tessera})
    assert type(back) is tessera.Size and back == s == shape
    assert repr(s[1:]) == "tessera.Size([%s])" % ", ".join(str(n) for n in shape[1:])


def test_device_repr_evals_back():
    # The device repr is PyTorch's (it never said torch): device(type=...).
    for d in tessera.devices() + [tessera.device("cpu"), tessera.device("cuda:1"), tessera.device("cuda", 0),
                                  tessera.ones(1).device]:
        assert "torch" not in repr(d)
        back = eval(repr(d), {"device": tessera.device})
        assert back == d and str(back) == str(d)
    assert repr(tessera.device("cuda", 2)) == "device(type='cuda', index=2)"


def test_max_min_results_print_as_tessera():
    r = tessera.tensor([[1.0, 3.0], [4.0, 2.0]]).max(1)
    assert repr(r).startswith("tessera.return_types.max(\nvalues=")


# ---- item 16: DLPack device types ---------------------------------------------------------


def test_cpu_dlpack_device_is_kdlcpu():
    assert tessera.ones(3).__dlpack_device__() == (1, 0)


def test_dlpack_import_of_kdlext_is_refused_and_the_capsule_stays_the_producers():
    before = len(_dlpack._exports)
    capsule = tessera.ones(3).__dlpack__()
    import ctypes
    get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", ctypes.pythonapi))
    # DLTensor: {void* data; DLDevice {int32 device_type, device_id}; ...}
    ctypes.c_int32.from_address(get(capsule, b"dltensor") + ctypes.sizeof(ctypes.c_void_p)).value = 12
    with pytest.raises(BufferError, match=r"DLPack device type 12 is not supported"):
        tessera.from_dlpack(capsule)
    assert '"dltensor"' in repr(capsule)  # not consumed (a consumer renames it "used_dltensor")
    assert len(_dlpack._exports) == before + 1
    del capsule
    import gc
    gc.collect()
    assert len(_dlpack._exports) == before


# ---- item 16: plugin devices, host-accessible or not -------------------------------------

PLUGIN_DEVICES = r"""
import numpy as np
import tessera

def addr(a):
    return a.__array_interface__["data"][0]

print([str(d) for d in tessera.devices()])
print(all(eval(repr(d), {"device": tessera.device}) == d for d in tessera.devices()),
      repr(tessera.device("null", 1)), repr(tessera.device("arena", 0)))
cpu = tessera.arange(6.0).view(2, 3)
print("cpu", cpu.__dlpack_device__(), addr(cpu.numpy()) == cpu.data_ptr())

# arena: device memory. kDLExt, no sharing; force=True copies.
ar = cpu.to("arena:0")
print("arena", ar.__dlpack_device__())
try:
    ar.numpy()
except TypeError as e:
    print("TypeError", e)
try:
    ar.__dlpack__()
except BufferError as e:
    print("BufferError", e)
copy = ar.numpy(force=True)
print(copy.tolist(), addr(copy) != ar.data_ptr())

# null (good_minimal.so): host_accessible = 1. Shared with NumPy and through DLPack.
n = tessera.zeros(2, 3, device="null:1")  # its own FILL kernel
n.copy_(cpu)
v = n.numpy()
print("null", n.device, n.__dlpack_device__(), v.tolist(), addr(v) == n.data_ptr())
v[1, 2] = -1.0  # writes through to the device's memory
print(n.cpu().tolist()[1], n[1, 2].item())
t = n.T.numpy()
print(t.strides, addr(t) == n.data_ptr(), t.tolist()[2])
e = np.from_dlpack(n[:, 1:])  # NumPy makes it read-only
v[0, 1] = 7.0
print(addr(e) == n[:, 1:].data_ptr(), e.tolist())
back = tessera.from_dlpack(n.__dlpack__())  # a kDLCPU capsule: imported as a cpu view of the same memory
print(back.device, back.data_ptr() == n.data_ptr(), back.tolist() == n.tolist())
"""


@pytest.mark.skipif("TESSERA_TEST_ARENA_PLUGIN" not in os.environ or "TESSERA_TEST_HOST_PLUGIN" not in os.environ,
                    reason="run by ctest, which names the arena and good_minimal plugins")
def test_plugin_devices_dlpack_types_and_host_access(tmp_path):
    config = {"plugins": [
        {"name": "cpu_tbb", "library": "cpu_tbb.so"},
        {"name": "arena", "library": os.environ["TESSERA_TEST_ARENA_PLUGIN"], "fallback": True,
         "options": {"bytes": 16777216}},
        {"name": "null", "library": os.environ["TESSERA_TEST_HOST_PLUGIN"], "fallback": True,
         "options": {"devices": 2}}]}
    path = tmp_path / "devices.json"
    path.write_text(json.dumps(config))
    env = dict(os.environ, TESSERA_CONFIG=str(path), TESSERA_LOG_LEVEL="error")
    out = subprocess.run([sys.executable, "-c", PLUGIN_DEVICES], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "['cpu', 'arena:0', 'null:0', 'null:1']",
        "True device(type='null', index=1) device(type='arena', index=0)",
        "cpu (1, 0) True",
        "arena (12, 0)",
        "TypeError can't convert arena:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
        "memory first.",
        "BufferError a tensor on arena:0 cannot be shared through DLPack: its memory is not host-accessible and "
        "DLPack has no device type for it but kDLExt; copy it with .cpu() first",
        "[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] True",
        "null null:1 (1, 0) [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] True",
        "[3.0, 4.0, -1.0] -1.0",
        "(4, 12) True [2.0, -1.0]",
        "True [[7.0, 2.0], [4.0, -1.0]]",
        "cpu True True",
    ]
