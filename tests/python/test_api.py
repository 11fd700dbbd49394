# SPDX-License-Identifier: Apache-2.0
"""The Python API's names behave as PyTorch 1.13's: creation, dtypes and
devices, metadata, indexing, errors, printing and assert_close. Expected
values were printed by torch 1.13 (Debian's python3-torch)."""
import math

import numpy as np
import pytest

import tessera
from tessera.testing import assert_close


# ---- creation and dtypes ------------------------------------------------------------


def test_default_dtypes_follow_pytorch():
    assert tessera.tensor(0.5).dtype is tessera.float32
    assert tessera.tensor(3).dtype is tessera.int64
    assert tessera.tensor(True).dtype is tessera.bool
    assert tessera.tensor([1, 2.5, True]).dtype is tessera.float32
    assert tessera.tensor([True, 2]).dtype is tessera.int64
    assert tessera.tensor([np.float64(1.5)]).dtype is tessera.float64  # NumPy scalars keep theirs
    assert tessera.tensor([]).dtype is tessera.float32 and tuple(tessera.tensor([[], []]).shape) == (2, 0)
    assert tessera.zeros(2).dtype is tessera.float32
    assert tessera.arange(3).dtype is tessera.int64 and tessera.arange(0, 1, 0.25).dtype is tessera.float32
    assert tessera.full((2,), 7).dtype is tessera.int64 and tessera.full((2,), 7.0).dtype is tessera.float32


def test_op_numbers_come_from_the_library():
    from tessera import _lib
    assert len(_lib.OP) == len(tessera._C.op_names()) == 71  # ABI 1.11
    assert _lib.OP["fill"] == 0 and _lib.OP["add"] == 2 and _lib.OP["eq"] == 9 and _lib.OP["tanh"] == 22
    assert _lib.OP["matmul"] == 29 and _lib.OP["rand"] == 32 and _lib.OP["randn"] == 33
    assert _lib.OP["math"] == 34 and _lib.OP["bitwise_left_shift"] == 41 and _lib.OP["nonzero"] == 53
    assert _lib.OP["cholesky"] == 54 and _lib.OP["solve"] == 56 and _lib.OP["eigh"] == 59 and _lib.OP["inv"] == 60
    assert _lib.OP["gelu"] == 61 and _lib.OP["gelu_tanh"] == 62 and _lib.OP["silu"] == 63
    assert _lib.OP["searchsorted"] == 64 and _lib.OP["cumprod"] == 65 and _lib.OP["eig"] == 66
    assert _lib.OP["fft"] == 67 and _lib.OP["rfft"] == 68 and _lib.OP["irfft"] == 69 and _lib.OP["clamp"] == 70
    assert sorted(_lib.OP.values()) == list(range(71))


def test_creation_values():
    assert tessera.zeros(2, 3).tolist() == [[0.0] * 3] * 2
    assert tessera.ones((2,), dtype=tessera.int32).tolist() == [1, 1]
    assert tessera.full((2, 2), 1.5).tolist() == [[1.5, 1.5], [1.5, 1.5]]
    assert tessera.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert tessera.arange(1, 10, 4).tolist() == [1, 5, 9]
    assert tessera.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]
    assert tessera.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert tuple(tessera.empty(3, 0).shape) == (3, 0)
    assert tessera.tensor([1.7, -1.7], dtype=tessera.int64).tolist() == [1, -1]  # truncation, as torch
    assert tessera.tensor([[1, 0]], dtype=tessera.bool).tolist() == [[True, False]]
    like = tessera.ones(2, 3, dtype=tessera.float64)
    assert tessera.zeros_like(like).dtype is tessera.float64 and tuple(tessera.full_like(like, 2).shape) == (2, 3)


def test_item_is_the_stored_value():
    assert tessera.tensor(0.1).item() == 0.10000000149011612
    assert tessera.tensor(0.1, dtype=tessera.float64).item() == 0.1
    assert tessera.tensor(2 ** 62).item() == 2 ** 62
    assert tessera.tensor(True).item() is True
    assert isinstance(tessera.tensor(3, dtype=tessera.uint8).item(), int)


def test_random_numbers_are_seeded():
    tessera.manual_seed(7)
    a = tessera.rand(3, 4)
    b = tessera.randn(5, dtype=tessera.float64)
    tessera.manual_seed(7)
    assert tessera.rand(3, 4).tolist() == a.tolist() and tessera.randn(5, dtype=tessera.float64).tolist() == b.tolist()
    values = np.array(tessera.rand(10000).tolist())
    assert values.min() >= 0 and values.max() < 1 and abs(values.mean() - 0.5) < 0.02
    normal = np.array(tessera.randn(10000).tolist())
    assert abs(normal.mean()) < 0.05 and abs(normal.std() - 1) < 0.05


def test_finfo():
    f32, f64 = tessera.finfo(tessera.float32), tessera.finfo(tessera.float64)
    assert f32.eps == 2 ** -23 and f64.eps == 2 ** -52
    assert f32.max == 3.4028234663852886e38 and f32.tiny == 1.1754943508222875e-38 and f32.bits == 32
    assert tessera.finfo(tessera.float16).max == 65504.0 and tessera.finfo(tessera.bfloat16).eps == 0.0078125
    assert f32.resolution == 1e-06
    with pytest.raises(TypeError):
        tessera.finfo(tessera.int32)


def test_dtype_and_device_spelling():
    assert repr(tessera.float32) == "tessera.float32" and str(tessera.bool) == "tessera.bool"
    assert tessera.float is tessera.float32 and tessera.double is tessera.float64 and tessera.long is tessera.int64
    assert repr(tessera.device("cpu")) == "device(type='cpu')"
    assert repr(tessera.device("cuda:0")) == "device(type='cuda', index=0)" and str(tessera.device("cuda", 1)) == "cuda:1"
    assert tessera.device("cpu") == tessera.ones(1).device
    assert str(tessera.ones(1).device) == "cpu"
    with pytest.raises(RuntimeError):
        tessera.device("cuda:x")


def test_size_and_broadcast_shapes():
    s = tessera.ones(3, 4).shape
    assert isinstance(s, tuple) and s == (3, 4) and repr(s) == "tessera.Size([3, 4])"
    assert s[1:] == (4,) and isinstance(s[1:], tessera.Size) and s.numel() == 12
    assert tessera.broadcast_shapes((3, 1), (1, 4)) == (3, 4)
    assert tessera.broadcast_shapes((2, 1, 3), (4, 1), 3) == (2, 4, 3)
    assert tessera.broadcast_shapes() == ()
    with pytest.raises(RuntimeError):
        tessera.broadcast_shapes((3, 1), (2, 4))


# ---- metadata and views ---------------------------------------------------------------


def test_metadata():
    x = tessera.arange(24, dtype=tessera.float64).view(2, 3, 4)
    assert x.dim() == 3 and x.ndim == 3 and x.numel() == 24 and len(x) == 2
    assert x.size() == (2, 3, 4) and x.size(-1) == 4 and x.stride(0) == 12 and x.stride(-1) == 1
    assert x.element_size() == 8 and x.is_floating_point()
    v = x[1, :, 2:]
    assert v.data_ptr() == x.data_ptr() + (12 + 2) * 8
    assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of \[-3, 2\], but got 3\)"):
        x.stride(3)


def test_view_family():
    x = tessera.arange(24).view(2, 3, 4)
    assert x.permute(2, 0, 1).stride() == (1, 12, 4)
    assert x.transpose(0, 2).shape == (4, 3, 2) and x.transpose(0, 2).stride() == (1, 4, 12)
    assert x.T.shape == (4, 3, 2)
    assert x.unsqueeze(-1).shape == (2, 3, 4, 1) and x.unsqueeze(1).stride() == (12, 12, 4, 1)
    assert x[:, :1].squeeze().shape == (2, 4) and x[:, :1].squeeze(0).shape == (2, 1, 4)
    assert x[:, :1].expand(2, 5, 4).stride() == (12, 0, 1)
    assert x.flatten().shape == (24,) and x.flatten(1).shape == (2, 12)
    assert x.reshape(6, -1).shape == (6, 4) and x.view(-1, 2).stride() == (2, 1)
    assert x[0].t().stride() == (1, 4)
    with pytest.raises(RuntimeError, match="t\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"):
        x.t()
    c = x.transpose(0, 1)
    assert c.contiguous().is_contiguous() and x.contiguous() is x
    assert c.clone().stride() == c.stride()  # a dense tensor keeps its strides
    assert x[:, ::2].clone().stride() == (8, 4, 1)  # gaps: row-major copy
    strided = x.as_strided((3, 3), (1, 2), 1)
    assert strided.tolist() == [[1, 3, 5], [2, 4, 6], [3, 5, 7]]


def test_to_and_casts():
    x = tessera.tensor([1.5, -2.5])
    assert x.to(tessera.float32) is x and x.float() is x
    assert x.double().dtype is tessera.float64 and x.to(dtype=tessera.int64).tolist() == [1, -2]
    assert x.to("cpu") is x and x.to(tessera.device("cpu"), tessera.float64).dtype is tessera.float64
    assert x.to(tessera.ones(1, dtype=tessera.int32)).dtype is tessera.int32
    copy = x.to(tessera.float32, copy=True)
    assert copy is not x and copy.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
    assert x.half().tolist() == [1.5, -2.5] and x.bfloat16().dtype is tessera.bfloat16


# ---- indexing ------------------------------------------------------------------------


def test_indexing_reads():
    x = tessera.arange(60).view(3, 4, 5)
    ref = np.arange(60).reshape(3, 4, 5)
    keys = [1, -1, (1, 2), (slice(None), 1), (Ellipsis, 2), (None, 1), (1, None, slice(1, None)),
            (slice(-2, None), slice(None, None, 3)), (slice(None, -1), Ellipsis, slice(1, 4, 2)),
            (slice(10, 20),), (slice(-10, 2),), (Ellipsis,), (1, Ellipsis, None), np.int64(2),
            (tessera.tensor(1), slice(2)), ()]
    for key in keys:
        got = x[key]
        want = ref[key]
        assert tuple(got.shape) == want.shape and got.tolist() == want.tolist(), key
        assert got.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


def test_indexing_errors_as_pytorch():
    x = tessera.arange(12).view(3, 4)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        x[3]
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 2"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        tessera.tensor(1.0)[0]
    with pytest.raises(ValueError, match="step must be greater than zero"):
        x[::-1]
    with pytest.raises(ValueError, match="slice step cannot be zero"):
        x[::0]
    with pytest.raises(IndexError, match="only integers, slices"):
        x["a"]
    with pytest.raises(IndexError, match="an index can only have a single ellipsis"):
        x[..., ...]
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0 with size"):
        x[[0, 7]]  # advanced indexing: test_advanced_indexing.py


def test_indexing_writes():
    x = tessera.zeros(3, 4)
    x[1] = 2.5
    x[:, 0] = tessera.tensor([1.0, 2.0, 3.0])
    x[2, 1:] = [7, 8, 9]
    x[..., -1] += 100
    x[0, 1::2] *= 0
    x[None, 0, 2] = np.float32(-4)
    assert x.tolist() == [[1.0, 0.0, -4.0, 0.0], [2.0, 2.5, 2.5, 102.5], [3.0, 7.0, 8.0, 109.0]]
    y = tessera.arange(6).view(2, 3)
    y[0] = 1.9  # a float into an int64 tensor truncates, as torch
    assert y.tolist() == [[1, 1, 1], [3, 4, 5]]


def test_python_scalar_conversions():
    assert float(tessera.tensor([2.5])) == 2.5 and int(tessera.tensor(2.7)) == 2 and bool(tessera.tensor([1]))
    assert [3, 4, 5][tessera.tensor(1)] == 4
    assert f"{tessera.tensor(1 / 3):.3f}" == "0.333"
    with pytest.raises(TypeError, match="only integer tensors of a single element"):
        [1][tessera.tensor(0.0)]
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        bool(tessera.ones(2))
    with pytest.raises(ValueError, match="only one element tensors"):
        float(tessera.ones(2))
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(tessera.tensor(1))
    assert [t.tolist() for t in tessera.arange(4).view(2, 2)] == [[0, 1], [2, 3]]


# ---- arithmetic and functions ------------------------------------------------------------


def test_operators_with_scalars_and_broadcasting():
    x = tessera.arange(6).view(2, 3)
    assert (x + 1).tolist() == [[1, 2, 3], [4, 5, 6]] and (x + 1).dtype is tessera.int64
    assert (x * 0.5).dtype is tessera.float32 and (1 - x).tolist() == [[1, 0, -1], [-2, -3, -4]]
    assert (x / 2).dtype is tessera.float32 and (2 / (x + 1)).tolist()[0][1] == 1.0
    assert (x ** 2).tolist() == [[0, 1, 4], [9, 16, 25]] and (2 ** x).tolist()[1] == [8, 16, 32]
    assert (x > 2).dtype is tessera.bool and (x == tessera.tensor([0, 9, 2])).tolist() == [[True, False, True],
                                                                                          [False, False, False]]
    assert (-x).tolist()[1] == [-3, -4, -5] and abs(-x).tolist() == x.tolist()
    assert (x[:, :1] + tessera.tensor([10, 20, 30])).tolist() == [[10, 20, 30], [13, 23, 33]]
    assert (x.float() @ x.float().T).tolist() == [[5.0, 14.0], [14.0, 50.0]]
    assert (np.ones(3) + tessera.ones(3)).dtype is tessera.float64  # NumPy defers to us
    h = tessera.ones(2, dtype=tessera.float16)
    assert (h + 1.5).dtype is tessera.float16 and (h + tessera.tensor(1.5, dtype=tessera.float64)).dtype is tessera.float16


def test_in_place_operators():
    x = tessera.ones(2, 2)
    y = x
    x += 1
    x *= tessera.tensor([1.0, 3.0])
    assert y is x and x.tolist() == [[2.0, 6.0], [2.0, 6.0]]
    i = tessera.ones(2, dtype=tessera.int64)
    with pytest.raises(RuntimeError, match="can't be cast"):
        i += 0.5
    with pytest.raises(RuntimeError):
        x += tessera.ones(3)


def test_module_functions():
    a, b = tessera.tensor([1.0, -2.0, 3.0]), tessera.tensor([0.5, 0.5, 4.0])
    assert tessera.add(a, b).tolist() == [1.5, -1.5, 7.0] and tessera.sub(a, 1).tolist() == [0.0, -3.0, 2.0]
    assert tessera.mul(2, a).tolist() == [2.0, -4.0, 6.0] and tessera.div(a, b).tolist() == [2.0, -4.0, 0.75]
    assert tessera.maximum(a, b).tolist() == [1.0, 0.5, 4.0] and tessera.minimum(a, b).tolist() == [0.5, -2.0, 3.0]
    assert tessera.relu(a).tolist() == [1.0, 0.0, 3.0]
    assert tessera.where(a > 0, a, b).tolist() == [1.0, 0.5, 3.0] and tessera.where(a > 0, 1.0, 0.0).tolist() == [1.0, 0.0, 1.0]
    assert abs(tessera.sigmoid(tessera.tensor(0.0)).item() - 0.5) < 1e-7
    assert tessera.exp(tessera.tensor(1.0, dtype=tessera.float64)).item() == math.exp(1.0)
    assert tessera.sum(a).item() == 2.0 and tessera.mean(a).item() == pytest.approx(2 / 3)
    assert tessera.matmul(a, b).item() == 11.5
    with pytest.raises(TypeError):
        tessera.relu([1.0])


def test_float32_matmul_precision_is_pytorchs_setting():
    assert tessera.get_float32_matmul_precision() == "highest"  # PyTorch's default
    try:
        tessera.set_float32_matmul_precision("high")
        assert tessera.get_float32_matmul_precision() == "high"
        with pytest.raises(ValueError, match="'low' is not one of 'highest', 'high' or 'medium'"):
            tessera.set_float32_matmul_precision("low")
        with pytest.raises(TypeError, match="expects a str, but got int"):
            tessera.set_float32_matmul_precision(1)
        assert tessera.get_float32_matmul_precision() == "high"  # refusals change nothing
        assert tessera.backends.cuda.matmul.allow_tf32  # PyTorch's other spelling
        tessera.backends.cuda.matmul.allow_tf32 = False
        assert tessera.get_float32_matmul_precision() == "highest"
        tessera.backends.cuda.matmul.allow_tf32 = True
        assert tessera.get_float32_matmul_precision() == "high"
        # The CPU computes float32 matmuls in float32 whatever the setting, as PyTorch's CPU does.
        a = tessera.tensor([[1.0 + 2.0 ** -12]])
        assert (a @ tessera.ones(1, 1)).item() == 1.0 + 2.0 ** -12
    finally:
        tessera.set_float32_matmul_precision("highest")


# ---- printing and assert_close ----------------------------------------------------------


def test_repr_is_pytorchs():
    assert repr(tessera.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(tessera.tensor([1.5, 2.0], dtype=tessera.float64)) == "tensor([1.5000, 2.0000], dtype=tessera.float64)"
    assert repr(tessera.arange(4).view(2, 2)) == "tensor([[0, 1],\n        [2, 3]])"
    assert repr(tessera.tensor([True, False])) == "tensor([ True, False])"
    assert str(tessera.tensor(1 / 3)) == "tensor(0.3333)"


def test_assert_close_passes_within_tolerance_and_names_the_failure():
    a = tessera.tensor([1.0, 2.0, 3.0])
    assert_close(a, a + 1e-6)
    assert_close(a.double(), a.double() + 5e-8)
    with pytest.raises(AssertionError, match="The values for attribute 'dtype' do not match"):
        assert_close(a, a.double())
    with pytest.raises(AssertionError, match="shape"):
        assert_close(a, tessera.ones(2))
    with pytest.raises(AssertionError) as info:
        assert_close(a, tessera.tensor([1.0, 2.5, 3.0]))
    text = str(info.value)
    assert text.startswith("Tensor-likes are not close!") and "Mismatched elements: 1 / 3" in text
    assert "index (1,)" in text
    assert_close(a, tessera.tensor([1.0, 2.5, 3.0]), rtol=0.0, atol=0.5)
    with pytest.raises(ValueError, match="Both 'rtol' and 'atol' must be either specified or omitted"):
        assert_close(a, a, rtol=1.0)
    with pytest.raises(AssertionError, match="^custom$"):
        assert_close(a, a + 1, msg="custom")
    assert_close(a, a.double(), check_dtype=False)
    nan = tessera.tensor([float("nan")])
    with pytest.raises(AssertionError):
        assert_close(nan, nan)
    assert_close(nan, nan, equal_nan=True)


def test_ops_from_many_threads():
    """Ops release the GIL in C; handles and errors are per call and per thread."""
    import threading
    failures = []

    def work(k):
        try:
            base = tessera.full((64,), float(k))
            for i in range(200):
                r = (base + i) * 2 - base
                if r[5].item() != k + 2 * i:
                    failures.append((k, i, r[5].item()))
                try:
                    base.view(7)
                except RuntimeError as e:
                    if "invalid for input of size 64" not in str(e):
                        failures.append(str(e))
        except Exception as e:  # pragma: no cover - reported below
            failures.append(repr(e))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []


def test_all_any_and_equal_as_torchs():
    import torch
    for values in ([[1, 0], [2, 3]], [[0.0, 0.0]], [[True, False]], [[]]):
        a, t = tessera.tensor(values), torch.tensor(values)
        for dim in (None, 0, 1, -1):
            for keepdim in (False, True):
                if dim is None:
                    got, want = (a.all(), a.any()), (t.all(), t.any())
                else:
                    got = (a.all(dim, keepdim), tessera.any(a, dim=dim, keepdim=keepdim))
                    want = (t.all(dim, keepdim), torch.any(t, dim=dim, keepdim=keepdim))
                for g, w in zip(got, want):
                    assert g.dtype == tessera.bool and g.tolist() == w.tolist(), (values, dim, keepdim)
    x = tessera.tensor([1.0, 2.0])
    assert tessera.equal(x, x.clone()) and not tessera.equal(x, x + 1) and not tessera.equal(x, x[:1])
    assert tessera.equal(tessera.ones(0), tessera.ones(0))
