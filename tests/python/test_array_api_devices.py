# SPDX-License-Identifier: Apache-2.0
"""tessera.array_api on the emulated CUDA device (tests/cuda_emu): the whole
of test_array_api_vs_numpy.py, test_array_api_2025.py and
test_advanced_indexing.py again, in a
subprocess whose config is the emulator's and whose default array device is
"cuda" ($TESSERA_ARRAY_API_DEVICE), plus moves between devices."""
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))

needs_emulator = pytest.mark.skipif("TESSERA_TEST_CUDA_EMU_CONFIG" not in os.environ,
                                    reason="run by ctest, which names the emulator's config")


def _env(**extra):
    return dict(os.environ, TESSERA_CONFIG=os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"], TESSERA_LOG_LEVEL="error",
                **extra)


@needs_emulator
def test_array_api_suite_on_the_emulated_cuda_device():
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W", "ignore",
                          os.path.join(HERE, "test_array_api_vs_numpy.py"), os.path.join(HERE, "test_array_api_2025.py")],
                         env=_env(TESSERA_ARRAY_API_DEVICE="cuda"), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert " passed" in out.stdout and "failed" not in out.stdout


SCRIPT = r"""
import numpy as np
import tessera
import tessera.array_api as xp
x = xp.asarray([[1.0, -2.0], [3.0, 4.0]], device="cuda")
y = xp.asarray([1.0, 2.0])
print(x.device, y.device, x.to_device("cpu").device, xp.sum(x, axis=0).device, x[x > 0].device)
try:
    x + y
except ValueError as e:
    print("ValueError", "different devices" in str(e))
print(np.asarray(xp.matmul(x, x.to_device("cuda"))).tolist(), x.__dlpack_device__())
t = tessera.arange(12.0, device="cuda").view(3, 4)
t[t > 5] = 0.0
t[[0, 2], 1:3] = tessera.tensor([-1.0, -2.0], device="cuda")
print(t.cpu().tolist(), t[:, [3, 0]].device)
"""


@needs_emulator
def test_devices_and_tensor_advanced_indexing_on_cuda():
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=_env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "cuda:0 cpu cpu cuda:0 cuda:0",
        "ValueError True",
        "[[-5.0, -10.0], [15.0, 10.0]] (2, 0)",
        "[[0.0, -1.0, -2.0, 3.0], [4.0, 5.0, 0.0, 0.0], [0.0, -1.0, -2.0, 0.0]] cuda:0",
    ]


BATCH_SCRIPT = r"""
import tessera
# Squares of large odd numbers: their float64 sum depends on the order, so
# a batch of matrices and one of them must fold their elements alike.
x = tessera.tensor([[[(33620225.0 + 2 * (15 * b + i)) ** 2 for i in range(5 * r, 5 * r + 5)] for r in range(3)]
                    for b in range(2)], dtype=tessera.float64, device="cuda")
batched = x.sum(dim=(-2, -1))
print(all(batched[b].item() == x[b].sum().item() for b in range(2)))
"""


@needs_emulator
def test_a_batched_sum_has_the_bits_of_each_matrix_sum():
    out = subprocess.run([sys.executable, "-c", BATCH_SCRIPT], env=_env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True"]
