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


# Complex functions over the whole float range, on the emulated GPU (thrust's
# algorithms: Note [Complex functions on the GPU] in
# backends/common/complex_ops.hpp) and on the CPU (glibc's), against NumPy in
# complex128 (complex64) or the same precision (complex128). libcu++'s
# textbook formulas, which cuda.so used before, failed this at 30 to 55 % of
# the values for the inverse functions (asin(1 + 2731i) = 1.5708 + 16.6i).
COMPLEX_SCRIPT = r"""
import numpy as np
import tessera
r = np.random.default_rng(7)
n = 4000
mag = lambda: 10.0 ** r.uniform(-18, 18, n) * r.choice([-1.0, 1.0], n)
z = mag() + 1j * mag()
z[::5] = z[::5].imag * 1j           # purely imaginary
z[1::7] = 1.0 + 1e-3 * z[1::7]      # near the branch points
z[2::11] = 1 + 2731j
NP = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh,
      "atanh": np.arctanh, "tan": np.tan, "tanh": np.tanh, "log": np.log, "log10": np.log10, "sqrt": np.sqrt,
      "exp": np.exp, "sin": np.sin, "cosh": np.cosh}


# NumPy's complex log1p and expm1 are log(1 + z) and exp(z) - 1, which lose a
# small z: complex64's reference is the cancellation-free form in float64.
def log1p(w):
    x, y = w.real, w.imag
    return 0.5 * np.log1p(x * (2 + x) + y * y) + 1j * np.arctan2(y, 1 + x)


def expm1(w):
    x, y = w.real, w.imag
    return np.expm1(x) * np.cos(y) - 2 * np.sin(y / 2) ** 2 + 1j * np.exp(x) * np.sin(y)


EPS = {"complex64": 2.0 ** -24, "complex128": 2.0 ** -53}
worst = {}
for dev in ("cpu", "cuda"):
    for name, eps in EPS.items():
        zz = z.astype(name)
        with np.errstate(all="ignore"):
            ref = {f: g(zz.astype(np.complex128)) for f, g in NP.items()}
            if name == "complex64":
                small = np.abs(zz) < 0.25  # where the forms above have no cancellation of their own
                ref["log1p"], ref["expm1"] = log1p(zz[small].astype(np.complex128)), expm1(zz[small].astype(np.complex128))
        x = tessera.as_tensor(zz, device=dev)
        for f, want in ref.items():
            arg = tessera.as_tensor(zz[small], device=dev) if f in ("log1p", "expm1") else x
            got = getattr(tessera, f)(arg).cpu().numpy().astype(np.complex128)
            keep = np.isfinite(want) & (np.abs(want) > 1e-30) & (np.abs(want) < 1e30)
            if name == "complex64":  # the reference must be a complex64 value too
                keep &= (np.abs(want) > 1e-37) & (np.abs(want) < 1e37)
            err = np.abs(got - want)[keep] / np.abs(want)[keep] / eps
            worst[(dev, name, f)] = float(np.nan_to_num(err, nan=1e300).max())
bad = {k: v for k, v in worst.items() if v > 64}
print("ulps ok" if not bad else "ulps bad %s" % sorted(bad.items())[:6])
inf, nan = float("inf"), float("nan")
cases = [("tanh", complex(0, inf), (0.0, nan)), ("tanh", complex(-0.0, nan), (-0.0, nan)),
         ("tanh", complex(inf, 2.0), (1.0, 0.0)), ("tanh", complex(-inf, -2.0), (-1.0, -0.0)),
         ("acosh", complex(0, nan), (nan, np.pi / 2)), ("log", complex(-inf, nan), (inf, nan)),
         ("log", complex(nan, inf), (inf, nan)), ("log1p", complex(inf, nan), (inf, nan)),
         ("expm1", complex(-0.0, 0.0), (0.0, 0.0)), ("tan", complex(inf, 0.0), (nan, 0.0))]
for dev in ("cpu", "cuda"):
    for f, v, (re, im) in cases:
        for name in EPS:
            g = complex(getattr(tessera, f)(tessera.tensor([v], dtype=getattr(tessera, name), device=dev)).cpu()[0])
            def same(a, b):  # NaN as NaN, zeros with their sign, others to float32's precision
                if np.isnan(b) or b == 0 or np.isinf(b):
                    return (np.isnan(a) and np.isnan(b)) or (a == b and np.copysign(1, a) == np.copysign(1, b))
                return abs(a - b) <= 1e-6 * abs(b)
            if not (same(g.real, re) and same(g.imag, im)):
                print("special", dev, name, f, v, g)
print("special done")
"""


@needs_emulator
def test_complex_functions_over_the_whole_range_and_their_special_cases():
    assert _lines(COMPLEX_SCRIPT) == ["ulps ok", "special done"]
