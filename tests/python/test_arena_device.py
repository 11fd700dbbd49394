# SPDX-License-Identifier: Apache-2.0
"""The package on a plugin's own device (the sample arena plugin, whose
memory the host cannot address), in a subprocess with its own config."""
import os
import subprocess
import sys

import pytest

from devices import arena_config, needs_arena

SCRIPT = r"""
import tessera, torch
print([str(d) for d in tessera.devices()], tessera.cuda.is_available(), tessera.cuda.device_count())
x = tessera.arange(6, device="arena:0").view(2, 3)
print(x.device, x.T.stride(), x.__dlpack_device__())  # kDLExt: not a DLPack device type
print((x.float() * 2).exp().sum().item() == torch.exp(torch.arange(6).float() * 2).sum().item())
for share in (lambda: x.numpy(), lambda: torch.from_dlpack(x)):
    try:
        share()
    except (TypeError, BufferError) as e:
        print(type(e).__name__, e)
print(x.cpu().numpy().tolist())
before = tessera.memory_stats("arena:0")
y = tessera.zeros(1000, dtype=tessera.float64, device="arena:0")
after = tessera.memory_stats("arena:0")
print(after["in_use"] - before["in_use"], after["reserved"])
tessera.empty_cache("arena:0")
tessera.synchronize("arena:0")
"""


@needs_arena
def test_arena_tensors_compute_and_refuse_host_sharing(tmp_path):
    path = arena_config(tmp_path)
    env = dict(os.environ, TESSERA_CONFIG=str(path), TESSERA_LOG_LEVEL="error")
    out = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "['cpu', 'arena:0'] False 0",
        "arena:0 (1, 3) (12, 0)",
        "True",
        "TypeError can't convert arena:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host "
        "memory first.",
        "BufferError a tensor on arena:0 cannot be shared through DLPack: its memory is not host-accessible and "
        "DLPack has no device type for it but kDLExt; copy it with .cpu() first",
        "[[0, 1, 2], [3, 4, 5]]",
        "8000 16777216",
    ]
