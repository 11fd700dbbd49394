# SPDX-License-Identifier: Apache-2.0
"""The tensors lesson (seeds/000) run on Tessera from Python: its code with
tessera where it imports torch, printing the lines the lesson prints."""
import os
import subprocess
import sys

import numpy as np
import pytest

import tessera as torch  # the lesson's code, unchanged but for this import

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run_record_section():
    torch.manual_seed(0)
    device = torch.device("cpu")
    a = torch.tensor([1.0, 2.0, 3.0], device=device)
    n = np.array([1.0, 2.0, 3.0])
    print(a.dtype, tuple(a.shape), a.device, "|", n.dtype, n.shape)
    print(torch.tensor([1, 2]).dtype)
    print(torch.tensor(1 / 3), np.array(1 / 3))
    print(f"0.1 stored as float32: {torch.tensor(0.1).item():.17f}")
    print(f"0.1 stored as float64: {np.float64(0.1):.17f}")
    print("spacing near 1:", torch.finfo(torch.float32).eps, torch.finfo(torch.float64).eps)


def run_numpy_section():
    source = np.arange(6.0).reshape(2, 3)
    shared = torch.from_numpy(source)
    copied = torch.tensor(source)
    source[0, 0] = 100.0
    print(shared[0, 0].item(), copied[0, 0].item(), shared.dtype)
    back = shared.numpy()
    back[1, 2] = -1.0
    print(source[1, 2])


def same_memory(u, v):
    return u.untyped_storage().data_ptr() == v.untyped_storage().data_ptr()


def run_views_section():
    x = torch.arange(12).view(3, 4)
    views = [("x", x), ("x.T", x.T), ("x[:, 1::2]", x[:, 1::2]), ("x.unsqueeze(0)", x.unsqueeze(0)),
             ("x[:, :1].expand(3, 4)", x[:, :1].expand(3, 4))]
    for name, v in views:
        print(f"{name:22} shape {tuple(v.shape)!s:10} stride {v.stride()!s:11} "
              f"offset {v.storage_offset()}  contiguous {v.is_contiguous()}")
    storage = torch.arange(12)

    def element(v, index):
        place = v.storage_offset() + sum(i * s for i, s in zip(index, v.stride()))
        return storage[place].item()

    print(element(x.T, (2, 1)), x.T[2, 1].item(), element(x[:, 1::2], (2, 1)))
    try:
        x.T.view(12)
    except RuntimeError as error:
        print("view failed:", str(error)[:46])
    print(same_memory(x, x.T), same_memory(x, x.T.reshape(12)), same_memory(x, x.view(12)))
    return x


def run_broadcast_section(x):
    r = torch.tensor([0, 10, 20, 30])
    total = x + r
    print(tuple(total.shape), r.expand(3, 4).stride(), same_memory(total, x))
    print(torch.broadcast_shapes((3, 1), (1, 4)), np.broadcast_shapes((3, 1), (1, 4)))


def test_record_dtype_and_printing(capsys):
    run_record_section()
    assert capsys.readouterr().out.splitlines() == [
        "tessera.float32 (3,) cpu | float64 (3,)",
        "tessera.int64",
        "tensor(0.3333) 0.3333333333333333",
        "0.1 stored as float32: 0.10000000149011612",
        "0.1 stored as float64: 0.10000000000000001",
        "spacing near 1: 1.1920928955078125e-07 2.220446049250313e-16",
    ]


def test_memory_shared_with_numpy(capsys):
    run_numpy_section()
    assert capsys.readouterr().out.splitlines() == ["100.0 0.0 tessera.float64", "-1.0"]


def test_strides_offsets_and_view(capsys):
    x = run_views_section()
    run_broadcast_section(x)
    assert capsys.readouterr().out.splitlines() == [
        "x                      shape (3, 4)     stride (4, 1)      offset 0  contiguous True",
        "x.T                    shape (4, 3)     stride (1, 4)      offset 0  contiguous False",
        "x[:, 1::2]             shape (3, 2)     stride (4, 2)      offset 1  contiguous False",
        "x.unsqueeze(0)         shape (1, 3, 4)  stride (12, 4, 1)  offset 0  contiguous True",
        "x[:, :1].expand(3, 4)  shape (3, 4)     stride (4, 0)      offset 0  contiguous False",
        "6 6 11",
        "view failed: view size is not compatible with input tensor'",
        "True False True",
        "(3, 4) (0, 1) False",
        "tessera.Size([3, 4]) (3, 4)",
    ]


def test_worked_example_writes_reach_the_base():
    x = torch.arange(12).view(3, 4)
    y = x[:, 1::2]
    assert y.storage_offset() == 1 and y.stride() == (4, 2) and tuple(y.shape) == (3, 2)
    assert y[2, 1].item() == 11
    y[0, 0] = 100
    assert x[0, 1].item() == 100
    x[1:, ::3] += 1
    assert x.tolist() == [[0, 100, 2, 3], [5, 5, 6, 8], [9, 9, 10, 12]]


def test_printing_precision_is_a_setting():
    third = torch.tensor(1 / 3)
    assert repr(third) == "tensor(0.3333)"
    try:
        torch.set_printoptions(precision=8)
        assert repr(third) == "tensor(0.33333334)"
    finally:
        torch.set_printoptions(profile="default")
    assert repr(third) == "tensor(0.3333)"


def test_forward_pass_example_prints_the_lessons_lines():
    """examples/lesson_forward.py: the forward pass in float64 (assert_close
    passes against NumPy) and float32 (refused for its dtype)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "bindings", "python")
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "lesson_forward.py")], env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    head = "(200, 1) tessera.float64 tessera.float32 largest float32 gap "
    assert lines[0].startswith(head)
    # The gap is float32 rounding of outputs in (0, 1): a few 1e-8 (PyTorch
    # printed 5.9e-08 on the lesson's machine; the BLAS's summation order
    # moves the last digit).
    gap = float(lines[0][len(head):])
    assert 1e-8 <= gap < 1e-7
    assert lines[1] == "assert_close: The values for attribute 'dtype' do not match"


@pytest.mark.parametrize("n", [200, 57])
def test_two_moons_matches_scikit_learn(n):
    datasets = pytest.importorskip("sklearn.datasets", reason="scikit-learn is not installed")
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    try:
        from lesson_forward import two_moons
    finally:
        sys.path.pop(0)
    ours, labels = two_moons(n_samples=n, noise=0.2, seed=0)
    theirs, their_labels = datasets.make_moons(n_samples=n, noise=0.2, random_state=0)
    assert np.array_equal(ours, theirs) and np.array_equal(labels, their_labels)
