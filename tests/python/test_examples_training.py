# SPDX-License-Identifier: Apache-2.0
"""The training examples a new user runs (issue 34, point 6):
examples/train_mlp.py, the lessons' MLP (64-16-16-10, ReLU) trained with
tessera.nn and tessera.optim on scikit-learn's digits, and
examples/train_mlp.c, the same through the C API on the split the Python
example exports. Each must reach 95 % test accuracy and save weights that
load back; the C one must train exactly as the Python one (the same ops in
the same order on the same data: the same losses and the same bytes on
disk) and release everything (valgrind, where installed)."""
import importlib.util
import os
import re
import shutil
import subprocess
import time

import numpy as np
import pytest

import tessera
import tessera.safetensors

from devices import arena_config, needs_arena, needs_emulator

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXAMPLE = os.path.join(ROOT, "examples", "train_mlp.py")
PYTHON = "/usr/bin/python3"  # Debian's, as ctest runs pytest
EPOCHS = 30  # the examples' default
PARAMS = ["0.weight", "0.bias", "2.weight", "2.bias", "4.weight", "4.bias"]
SHAPES = {"0.weight": (16, 64), "0.bias": (16,), "2.weight": (16, 16), "2.bias": (16,), "4.weight": (10, 16),
          "4.bias": (10,)}

EPOCH_LINE = re.compile(r"^epoch +(\d+)/(\d+) \[#{30}\] 45/45 loss (\d+\.\d{4})$", re.M)
ACCURACY_LINE = re.compile(r"^test accuracy: (\d\.\d{4}) \((\d+)/(\d+)\)", re.M)


def _example_module():
    spec = importlib.util.spec_from_file_location("train_mlp_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


train_mlp = _example_module()


def run(cmd, config=None, timeout=120, expect=0):
    """Runs cmd with this build's library and config (or `config`); returns
    (stdout, stderr, seconds), having checked the exit status."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "bindings", "python")
    if config is not None:
        env["TESSERA_CONFIG"] = str(config)
    start = time.monotonic()
    proc = subprocess.run([str(c) for c in cmd], env=env, capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - start
    assert proc.returncode == expect, "%s exited %d\n%s\n%s" % (cmd, proc.returncode, proc.stdout, proc.stderr)
    return proc.stdout, proc.stderr, seconds


def epoch_losses(stdout, epochs):
    lines = EPOCH_LINE.findall(stdout)
    assert [(int(e), int(n)) for e, n, _ in lines] == [(e, epochs) for e in range(1, epochs + 1)], stdout
    return [float(loss) for _, _, loss in lines]


def accuracy_of(stdout):
    """The printed test accuracy, checked against its count."""
    found = ACCURACY_LINE.findall(stdout)
    assert len(found) == 1, stdout
    acc, correct, total = float(found[0][0]), int(found[0][1]), int(found[0][2])
    assert total == 360 and round(correct / total, 4) == acc
    return acc, correct


def weights(path):
    """The weights file's tensors as NumPy arrays, in the file's order."""
    return {k: v.numpy() for k, v in tessera.safetensors.load_file(str(path)).items()}


def correct_with(path, split):
    """How many test images train_mlp.py's model classifies right with the weights in `path`."""
    model = train_mlp.make_model(tessera.device("cpu"))
    model.load_state_dict(tessera.safetensors.load_file(str(path)))
    X_test, y_test = tessera.as_tensor(split[2]), tessera.as_tensor(split[3])
    acc, _ = train_mlp.evaluate(model, X_test, y_test)
    return round(acc * 360)


@pytest.fixture(scope="module")
def split():
    return train_mlp.load_digits_split()


@pytest.fixture(scope="module")
def python_run(tmp_path_factory):
    """examples/train_mlp.py with its defaults, exporting the split for the C example."""
    d = tmp_path_factory.mktemp("train_mlp_py")
    out, data = d / "mlp.safetensors", d / "digits.safetensors"
    stdout, _, seconds = run([PYTHON, EXAMPLE, "--out", out, "--export-data", data])
    print("train_mlp.py: %.1f s" % seconds)
    return {"stdout": stdout, "out": out, "data": data}


@pytest.fixture(scope="module")
def binary():
    """The built examples/train_mlp.c: ctest names it; outside ctest, beside this build's library."""
    path = os.environ.get("TESSERA_TEST_TRAIN_MLP")
    if path is None:
        lib = os.environ.get("TESSERA_LIBRARY", os.path.join(ROOT, "build", "lib", "libtessera.so"))
        path = os.path.join(os.path.dirname(os.path.dirname(lib)), "examples", "train_mlp")
        if not os.path.exists(path):
            pytest.skip("no built train_mlp (ctest names it in TESSERA_TEST_TRAIN_MLP)")
    assert os.access(path, os.X_OK), path
    return path


def test_python_example_reaches_95_percent_and_saves_weights_that_load_back(python_run, split):
    stdout = python_run["stdout"]
    assert stdout.startswith("digits: 1437 images to train on, 360 to test on; MLP 64-16-16-10 on cpu\n")
    losses = epoch_losses(stdout, EPOCHS)
    assert losses[-1] < losses[0] / 10, losses
    acc, correct = accuracy_of(stdout)
    assert acc >= 0.95
    assert re.search(r"^weights saved to .*; reloaded: test accuracy %.4f, identical$" % acc, stdout, re.M), stdout
    # The file holds the model's state_dict; a fresh model with it classifies as printed.
    w = weights(python_run["out"])
    assert list(w) == PARAMS
    assert {k: v.shape for k, v in w.items()} == SHAPES
    assert all(v.dtype == np.float32 for v in w.values())
    assert correct_with(python_run["out"], split) == correct


def test_the_exported_split_is_the_examples_data(python_run, split):
    data = weights(python_run["data"])
    assert set(data) == {"X_train", "y_train", "X_test", "y_test"}
    for name, expected in zip(("X_train", "y_train", "X_test", "y_test"), split):
        assert data[name].dtype == expected.dtype and data[name].shape == expected.shape, name
        np.testing.assert_array_equal(data[name], expected)
    assert data["X_train"].shape == (1437, 64) and data["X_test"].shape == (360, 64)
    # Standardised with the training set's statistics.
    assert abs(data["X_train"].mean()) < 1e-5
    assert sorted(np.unique(data["y_test"])) == list(range(10))


def test_python_example_is_deterministic_under_its_seed(tmp_path):
    a, b, c = (tmp_path / n for n in ("a.safetensors", "b.safetensors", "c.safetensors"))
    out_a, _, _ = run([PYTHON, EXAMPLE, "--epochs", "2", "--seed", "7", "--out", a])
    out_b, _, _ = run([PYTHON, EXAMPLE, "--epochs", "2", "--seed", "7", "--out", b])
    run([PYTHON, EXAMPLE, "--epochs", "2", "--seed", "8", "--out", c])
    assert epoch_losses(out_a, 2) == epoch_losses(out_b, 2)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_c_example_trains_exactly_as_the_python_one(python_run, binary, split, tmp_path):
    out = tmp_path / "mlp_c.safetensors"
    stdout, stderr, seconds = run([binary, python_run["data"], "--out", out])
    print("train_mlp (C): %.1f s" % seconds)
    assert stderr == ""
    assert stdout.startswith("digits: 1437 images to train on, 360 to test on; MLP 64-16-16-10 on cpu\n")
    acc, correct = accuracy_of(stdout)
    assert acc >= 0.95
    assert "weights saved to %s; read back: identical\n" % out in stdout
    # Its weights load into the Python example's model and classify as printed.
    assert list(weights(out)) == PARAMS
    assert correct_with(out, split) == correct
    # The same initialisation, batch order, ops and update rule as the Python
    # example: every epoch's loss, the accuracy and the file, byte for byte.
    assert epoch_losses(stdout, EPOCHS) == epoch_losses(python_run["stdout"], EPOCHS)
    assert accuracy_of(stdout) == accuracy_of(python_run["stdout"])
    assert out.read_bytes() == python_run["out"].read_bytes()


def test_c_example_reports_errors(python_run, binary, tmp_path):
    _, stderr, _ = run([binary, tmp_path / "missing.safetensors"], expect=1)
    assert "missing.safetensors: cannot open" in stderr
    _, stderr, _ = run([binary, python_run["out"]], expect=1)  # weights, not data
    assert "no tensor named 'X_train'" in stderr
    data = {k: tessera.as_tensor(v) for k, v in weights(python_run["data"]).items()}
    data["y_train"] = data["y_train"].to(tessera.int32)
    tessera.safetensors.save_file(data, str(tmp_path / "int32.safetensors"))
    _, stderr, _ = run([binary, tmp_path / "int32.safetensors"], expect=1)
    assert "y_train must be int64 of shape [1437]" in stderr
    _, stderr, _ = run([binary, python_run["data"], "--device", "nowhere:0"], expect=1)
    assert "nowhere" in stderr
    _, stderr, _ = run([binary], expect=2)
    assert stderr.startswith("usage: train_mlp DATA.safetensors")
    _, stderr, _ = run([binary, python_run["data"], "--epochs", "zero"], expect=2)


@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_c_example_releases_everything_under_valgrind(python_run, binary, tmp_path):
    out = tmp_path / "mlp.safetensors"
    stdout, stderr, seconds = run(["valgrind", "-q", "--error-exitcode=99", "--leak-check=full",
                                   "--errors-for-leak-kinds=definite,indirect",
                                   "--show-leak-kinds=definite,indirect", binary, python_run["data"], "--epochs",
                                   "2", "--out", out], timeout=300)
    print("train_mlp (C), 2 epochs under valgrind: %.1f s" % seconds)
    assert len(epoch_losses(stdout, 2)) == 2
    assert out.exists()


def short_run_on(device, config, tmp_path, binary=None):
    """Two epochs on `device`: the weights the Python example saves (and the C
    one's, when given), which must equal each other bit for bit."""
    out = tmp_path / ("py_%s.safetensors" % device.replace(":", "_"))
    stdout, _, _ = run([PYTHON, EXAMPLE, "--epochs", "2", "--device", device, "--out", out], config=config,
                       timeout=300)
    assert "on %s\n" % device in stdout and ", identical\n" in stdout
    w = weights(out)
    if binary is not None:
        data = tmp_path / "digits.safetensors"
        train_mlp.export_split(str(data), train_mlp.load_digits_split())
        out_c = tmp_path / ("c_%s.safetensors" % device.replace(":", "_"))
        stdout_c, _, _ = run([binary, data, "--epochs", "2", "--device", device, "--out", out_c], config=config,
                             timeout=300)
        assert epoch_losses(stdout_c, 2) == epoch_losses(stdout, 2)
        assert out_c.read_bytes() == out.read_bytes()
    return w


@pytest.fixture(scope="module")
def cpu_two_epochs(tmp_path_factory):
    return short_run_on("cpu", None, tmp_path_factory.mktemp("cpu_two_epochs"))


def close_to_cpu(w, cpu):
    """Another device's kernels round differently; two epochs keep them within float32 noise."""
    assert list(w) == list(cpu)
    for k in cpu:
        np.testing.assert_allclose(w[k], cpu[k], rtol=1e-4, atol=1e-5, err_msg=k)


@needs_arena
def test_examples_train_on_the_arena_device(tmp_path, binary, cpu_two_epochs):
    close_to_cpu(short_run_on("arena:0", arena_config(tmp_path), tmp_path, binary), cpu_two_epochs)


@needs_emulator
def test_examples_train_on_the_emulated_cuda_device(tmp_path, binary, cpu_two_epochs):
    config = os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"]
    close_to_cpu(short_run_on("cuda:0", config, tmp_path, binary), cpu_two_epochs)
