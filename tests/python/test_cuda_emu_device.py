# SPDX-License-Identifier: Apache-2.0
"""The package on a "cuda" device: the CUDA backend built over the host
emulation of CUDA (tests/cuda_emu), in a subprocess with its own config. What
a GPU session would see, minus the GPU: device names, PyTorch's printing,
moves, DLPack exchange of CUDA tensors (Note [DLPack streams]), refusals."""
import os
import subprocess
import sys

import pytest

SCRIPT = r"""
import numpy as np
import tessera
print([str(d) for d in tessera.devices()], tessera.cuda.is_available(), tessera.cuda.device_count())
x = tessera.arange(6.0, device="cuda").view(2, 3)
print(x.device, x.is_cuda, x.T.stride())
print(x * 2)
y = tessera.from_dlpack(x.T.__dlpack__())  # a capsule of cuda:0 memory, imported back
print(y.device, y.stride(), y.cpu().tolist())
y[0, 1] = -1.0  # shares x's memory
print(x[1, 0].item(), x.__dlpack_device__())
print((x.cuda() @ x.T).cpu().tolist(), x.sum(1).tolist())
try:
    x.numpy()
except TypeError as e:
    print("TypeError", e)
z = tessera.randn(4, device="cuda:0", dtype=tessera.float64)
tessera.manual_seed(3); a = tessera.rand(5, device="cuda"); tessera.manual_seed(3); b = tessera.rand(5)
print(a.cpu().tolist() == b.tolist(), z.dtype)
"""


needs_emulator = pytest.mark.skipif("TESSERA_TEST_CUDA_EMU_CONFIG" not in os.environ,
                                    reason="run by ctest, which names the emulator's config")


def _lines(script, **env):
    """What `script` prints in a fresh interpreter on the emulator's config."""
    env = dict(os.environ, TESSERA_CONFIG=os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"], TESSERA_LOG_LEVEL="error", **env)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


@needs_emulator
def test_cuda_device_through_the_emulator():
    assert _lines(SCRIPT) == [
        "['cpu', 'cuda:0'] True 1",
        "cuda:0 True (1, 3)",
        "tensor([[ 0.,  2.,  4.],",
        "        [ 6.,  8., 10.]], device='cuda:0')",
        "cuda:0 (1, 3) [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]",
        "-1.0 (2, 0)",
        "[[5.0, 14.0], [14.0, 42.0]] [3.0, 8.0]",
        "TypeError can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
        "memory first.",
        "True tessera.float64",
    ]


TWO_DEVICES = r"""
import tessera
print([str(d) for d in tessera.devices()], tessera.cuda.device_count())
x = tessera.arange(12, dtype=tessera.float32, device="cuda:0").view(3, 4)
y = x.T.to("cuda:1")  # between devices (the plugin's peer copy), a transposed view made contiguous
print(y.device, y.shape, (y + 1).sum().item())
z = tessera.zeros(4, 6, device="cuda:1")
z[:, ::2].copy_(x.T)  # cuda:0 -> a strided view on cuda:1
print(z.cpu().tolist()[1])
print(tessera.memory_stats("cuda:1")["in_use"] > 0)
"""


@needs_emulator
def test_two_cuda_devices_through_the_emulator():
    assert _lines(TWO_DEVICES, TESSERA_CUDA_EMU_DEVICES="2") == [
        "['cpu', 'cuda:0', 'cuda:1'] 2",
        "cuda:1 tessera.Size([4, 3]) 78.0",
        "[1.0, 0.0, 5.0, 0.0, 9.0, 0.0]",
        "True",
    ]


OUT_OF_MEMORY = r"""
import tessera
held = []
try:
    for _ in range(40):
        held.append(tessera.empty(1 << 20, device="cuda"))  # 4 MiB each, 64 MiB of device memory
except RuntimeError as e:
    print(len(held), "out of memory on cuda:0: tried to allocate 4194304 bytes" in str(e), "free of 67108864 bytes" in str(e))
held.pop()  # one block back to the cache: the runtime keeps working
print((held[0].fill_(2) + 1).sum().item())
stats = tessera.memory_stats("cuda")
del held
big = tessera.ones(12 << 20, device="cuda")  # 48 MiB: only once the cached blocks go back
print(big.sum().item(), tessera.memory_stats("cuda")["reserved"] < stats["reserved"] + (48 << 20))
del big
tessera.empty_cache("cuda")
print(tessera.memory_stats("cuda"))
"""


@needs_emulator
def test_out_of_memory_names_the_bytes_and_the_runtime_keeps_working():
    lines = _lines(OUT_OF_MEMORY, TESSERA_CUDA_EMU_MEMORY=str(64 << 20))
    count, named, free = lines[0].split()
    assert 10 <= int(count) < 16 and named == "True" and free == "True", lines
    assert lines[1:] == ["3145728.0", "12582912.0 True", "{'in_use': 0, 'reserved': 0}"]


MATMUL_PRECISION = r"""
import tessera
x = 1.0 + 2.0 ** -12  # more mantissa bits than TF32's 10
a = tessera.full((1, 1), x, device="cuda"); one = tessera.ones(1, 1, device="cuda")
for p in ("highest", "high", "medium", "highest"):
    tessera.set_float32_matmul_precision(p)
    print(tessera.get_float32_matmul_precision(), (a @ one).item(), (a.double() @ one.double()).item(),
          (a.cpu() @ one.cpu()).item())
"""


@needs_emulator
def test_float32_matmul_precision_reaches_the_cuda_backend():
    # "high" and "medium" round float32 matmul inputs to TF32 on the device
    # (cuBLAS's FAST_TF32 compute type, as the emulator models it); float64
    # and the CPU keep every bit, as in PyTorch.
    full, tf32 = str(1.0 + 2.0 ** -12), "1.0"
    assert _lines(MATMUL_PRECISION) == [
        f"highest {full} {full} {full}",
        f"high {tf32} {full} {full}",
        f"medium {tf32} {full} {full}",
        f"highest {full} {full} {full}",
    ]
