# SPDX-License-Identifier: Apache-2.0
"""Module.state_dict() through safetensors (issue 34): a model's weights
saved with tessera.safetensors.save_file and loaded into a fresh model
give the same outputs bit for bit, on every device; the file's names and
values are torch's (a torch model loads them); a truncated file loads
nothing into the model."""
import os

import numpy as np
import pytest
import torch

import tessera as ts
from tessera import nn
from tessera.safetensors import SafetensorError, load_file, save_file

from devices import arena_config, needs_arena, needs_emulator

torch.set_num_threads(2)


class Net(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.embed = nn.Embedding(10, 6, padding_idx=0, **kw)
        self.body = nn.Sequential(nn.Linear(6, 8, **kw), nn.GELU(), nn.LayerNorm(8, **kw), nn.Linear(8, 3, **kw))
        self.register_buffer("scale", ts.full((3,), 0.5, **kw))

    def forward(self, idx):
        return self.body(self.embed(idx)) * self.scale


def _roundtrip(tmp_path, device):
    ts.manual_seed(3)
    kw = dict(dtype=ts.float64, device=device)
    a, b = Net(**kw), Net(**kw)
    with ts.no_grad():
        for p in b.parameters():
            p.zero_()
    path = str(tmp_path / "net.safetensors")
    save_file(a.state_dict(), path, metadata={"format": "pt"})
    b.load_state_dict(load_file(path, device=device))
    idx = ts.tensor([[1, 2, 0], [9, 4, 4]]).to(device)
    return a, b, idx, path


@pytest.mark.parametrize("device", ["cpu"])
def test_a_saved_state_dict_loads_into_a_fresh_model(tmp_path, device):
    a, b, idx, path = _roundtrip(tmp_path, device)
    np.testing.assert_array_equal(b(idx).detach().numpy(), a(idx).detach().numpy())
    assert set(load_file(path)) == set(a.state_dict())
    for key, value in a.state_dict().items():
        np.testing.assert_array_equal(load_file(path)[key].numpy(), value.detach().numpy())


def test_torch_reads_the_names_and_values(tmp_path):
    a, _, idx, path = _roundtrip(tmp_path, "cpu")
    t = torch.nn.Module()
    t.embed = torch.nn.Embedding(10, 6, padding_idx=0, dtype=torch.float64)
    t.body = torch.nn.Sequential(torch.nn.Linear(6, 8, dtype=torch.float64), torch.nn.GELU(),
                                 torch.nn.LayerNorm(8, dtype=torch.float64), torch.nn.Linear(8, 3, dtype=torch.float64))
    t.register_buffer("scale", torch.zeros(3, dtype=torch.float64))
    t.load_state_dict({k: torch.tensor(v.numpy()) for k, v in load_file(path).items()})
    want = t.body(t.embed(torch.tensor([[1, 2, 0], [9, 4, 4]]))) * t.scale
    np.testing.assert_allclose(a(idx).detach().numpy(), want.detach().numpy(), rtol=1e-12, atol=1e-14)


def test_a_truncated_file_loads_nothing(tmp_path):
    a, b, idx, path = _roundtrip(tmp_path, "cpu")
    data = open(path, "rb").read()
    with open(path, "wb") as f:
        f.write(data[: len(data) - 5])
    before = {k: v.detach().numpy().copy() for k, v in b.state_dict().items()}
    with pytest.raises(SafetensorError, match="net.safetensors"):
        b.load_state_dict(load_file(path))
    for k, v in b.state_dict().items():
        np.testing.assert_array_equal(v.detach().numpy(), before[k])


def _on_device(config, device, tmp_path):
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    script = ("import sys, pathlib; sys.path.insert(0, %r); import test_state_dict_safetensors as t; "
              "import numpy as np; a, b, idx, _ = t._roundtrip(pathlib.Path(%r), %r); "
              "np.testing.assert_array_equal(b(idx).detach().cpu().numpy(), a(idx).detach().cpu().numpy()); print('ok')"
              % (here, str(tmp_path), device))
    env = dict(os.environ, TESSERA_CONFIG=config, TESSERA_LOG_LEVEL="error")
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stderr


@needs_emulator
def test_round_trip_on_the_emulated_cuda_device(tmp_path):
    _on_device(os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"], "cuda:0", tmp_path)


@needs_arena
def test_round_trip_on_the_arena_device(tmp_path):
    _on_device(str(arena_config(tmp_path, 67108864)), "arena:0", tmp_path)
