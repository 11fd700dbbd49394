# SPDX-License-Identifier: Apache-2.0
"""tessera.array_api against NumPy 1.24 (numpy.array_api and numpy) on the
default device: $TESSERA_ARRAY_API_DEVICE when set (test_array_api_devices.py
runs this module again with the emulated CUDA device), else the CPU."""
import builtins
import itertools
import math
import os
import warnings

import numpy as np
import pytest

import tessera.array_api as xp

# Casting 1e300 to float32 overflows to inf on purpose; var with correction 1
# over one element is NaN on purpose.
pytestmark = pytest.mark.filterwarnings("ignore:overflow encountered in cast",
                                        "ignore:Degrees of freedom <= 0 for slice")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import numpy.array_api as npx

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
FLOATS = ["float32", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, -7.25, 1e-300, 1e300, math.inf, -math.inf,
           math.nan]


def npv(a):
    """An Array's values as a NumPy array (through the CPU)."""
    assert isinstance(a, xp.Array), type(a)
    return np.asarray(a)


def same(got, want, exact=True):
    """Equal values and dtype, NaN equal to NaN and -0 told from +0."""
    want = np.asarray(want)
    g = npv(got)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    if g.dtype.kind == "f":
        if exact:
            np.testing.assert_array_equal(g, want)
            assert (np.signbit(g) == np.signbit(want))[~np.isnan(want)].all(), (g, want)
        else:
            np.testing.assert_allclose(g, want, rtol=2e-6 if g.dtype == np.float32 else 1e-12, atol=0)
    else:
        np.testing.assert_array_equal(g, want)


def test_default_device_and_dtypes():
    want = os.environ.get("TESSERA_ARRAY_API_DEVICE", "cpu").partition(":")[0]
    x = xp.asarray([1, 2])
    assert x.device.type == want
    assert xp.asarray(1.0).dtype is xp.float64 and x.dtype is xp.int64 and xp.asarray(True).dtype is xp.bool
    assert xp.__array_api_version__ == "2025.12" and x.__array_namespace__() is xp


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)))
def test_promotion_table_as_numpy_array_api(a, b):
    try:
        want = npx.result_type(getattr(npx, a), getattr(npx, b))
    except TypeError:
        with pytest.raises(TypeError):
            xp.result_type(getattr(xp, a), getattr(xp, b))
        with pytest.raises(TypeError):
            xp.ones(2, dtype=getattr(xp, a)) == xp.ones(2, dtype=getattr(xp, b))
        return
    got = xp.result_type(getattr(xp, a), getattr(xp, b))
    assert got is getattr(xp, str(want)), (got, want)
    assert xp.can_cast(getattr(xp, a), getattr(xp, b)) == npx.can_cast(getattr(npx, a), getattr(npx, b))
    r = xp.ones(3, dtype=getattr(xp, a)) == xp.zeros(3, dtype=getattr(xp, b))
    assert r.dtype is xp.bool and npv(r).tolist() == [False] * 3


def test_python_scalars_follow_the_standard():
    i8, f32, b = xp.asarray([1, -2], dtype=xp.int8), xp.asarray([1.5], dtype=xp.float32), xp.asarray([True])
    same(i8 + 3, np.array([4, 1], dtype=np.int8))
    same(7 - i8, np.array([6, 9], dtype=np.int8))
    same(f32 * 2, np.array([3.0], dtype=np.float32))
    same(f32 ** 2.0, np.array([2.25], dtype=np.float32))
    same(b & True, np.array([True]))
    with pytest.raises(TypeError):
        i8 + 1.5
    with pytest.raises(TypeError):
        b + 1
    with pytest.raises(TypeError):
        i8 & True
    with pytest.raises(OverflowError):
        i8 + 300
    with pytest.raises(TypeError):
        xp.asarray([1, 2]) / xp.asarray([3, 4])  # true division is for floats only
    x = xp.asarray([1.0, 2.0])
    x += 1
    x *= x
    same(x, np.array([4.0, 9.0]))
    with pytest.raises(TypeError):
        i8 += xp.asarray([1], dtype=xp.int16)
    y = xp.asarray([3, -3], dtype=xp.int16)
    y //= 2
    y <<= 1
    same(y, np.array([2, -4], dtype=np.int16))
    same(2 ** xp.asarray([3, 0], dtype=xp.uint8), np.array([8, 1], dtype=np.uint8))
    assert float(xp.asarray(2.5)) == 2.5 and int(xp.asarray(-3)) == -3 and bool(xp.asarray(True))
    assert [10, 20, 30][xp.asarray(1)] == 20
    with pytest.raises(TypeError):
        bool(xp.asarray([True, False]))


UNARY_FLOAT = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp", "expm1",
               "floor", "isfinite", "isinf", "isnan", "log", "log1p", "log2", "log10", "negative", "positive",
               "round", "sign", "sin", "sinh", "square", "sqrt", "tan", "tanh", "trunc"]
EXACT = {"abs", "ceil", "floor", "isfinite", "isinf", "isnan", "negative", "positive", "round", "sign", "square",
         "trunc", "sqrt"}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", UNARY_FLOAT)
def test_unary_special_values_as_numpy(name, dtype):
    v = np.array(SPECIAL, dtype=dtype)
    with np.errstate(all="ignore"):
        want = getattr(npx, name)(npx.asarray(v))
    got = getattr(xp, name)(xp.asarray(v))
    same(got, np.asarray(want), exact=name in EXACT)


def test_round_is_half_to_even_and_keeps_integers():
    same(xp.round(xp.asarray([0.5, 1.5, 2.5, -0.5, -2.5, 3.49])), np.array([0.0, 2.0, 2.0, -0.0, -2.0, 3.0]))
    same(xp.round(xp.asarray([7, -3], dtype=xp.int32)), np.array([7, -3], dtype=np.int32))
    same(xp.sign(xp.asarray([3, 0], dtype=xp.uint8)), np.array([1, 0], dtype=np.uint8))


BINARY = ["add", "subtract", "multiply", "divide", "pow", "atan2", "floor_divide", "remainder", "logaddexp",
          "equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", BINARY)
def test_binary_special_values_as_numpy(name, dtype):
    a, b = (np.array(v, dtype=dtype) for v in zip(*itertools.product(SPECIAL, SPECIAL)))
    with np.errstate(all="ignore"):
        want = np.asarray(getattr(npx, name)(npx.asarray(a), npx.asarray(b)))
        if name == "floor_divide":  # the standard's cases NumPy 1.24 misses: floor(a / b) at infinities
            inf = np.isinf(a) | np.isinf(b)
            want = np.where(inf, np.floor(a / b), want)
    got = getattr(xp, name)(xp.asarray(a), xp.asarray(b))
    same(got, want, exact=name not in ("pow", "atan2", "logaddexp", "divide"))


@pytest.mark.parametrize("dtype", INTS)
def test_integer_division_shifts_and_bits_as_numpy(dtype):
    info = np.iinfo(dtype)
    def clip(values):
        return np.array([builtins_max(builtins_min(v, int(info.max)), int(info.min)) for v in values], dtype=dtype)
    a = clip([7, -7, 0, 5, -1, int(info.min), int(info.max)])
    b = clip([2, 2, 3, -3, 5, 7, -1] if info.min < 0 else [2, 2, 3, 3, 5, 7, 1])
    xa, xb = xp.asarray(a), xp.asarray(b)
    for name in ("floor_divide", "remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "add", "multiply"):
        same(getattr(xp, name)(xa, xb), getattr(np, name)(a, b))
    shifts = np.array([0, 1, 3, info.bits - 1, info.bits, info.bits + 5, 2], dtype=dtype)
    same(xp.bitwise_left_shift(xa, xp.asarray(shifts)), np.left_shift(a, shifts))
    same(xp.bitwise_right_shift(xa, xp.asarray(shifts)), np.right_shift(a, shifts))
    same(xp.bitwise_invert(xa), np.invert(a))
    same(xp.pow(xp.asarray(np.array([2, 3, 1], dtype=dtype)), xp.asarray(np.array([3, 2, 9], dtype=dtype))),
         np.array([8, 9, 1], dtype=dtype))


builtins_max, builtins_min = builtins.max, builtins.min
RNG = np.random.default_rng(18)
M = RNG.standard_normal((3, 4, 5))


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), (), (0, 1, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_statistics_as_numpy(axis, keepdims):
    x = xp.asarray(M)
    kw = dict(axis=axis, keepdims=keepdims)
    for name in ("sum", "prod", "mean", "max", "min"):
        same(getattr(xp, name)(x, **kw), getattr(np, name)(M, **kw), exact=name in ("max", "min"))
    for c in (0, 1):
        with np.errstate(all="ignore"):
            same(xp.var(x, correction=c, **kw), np.var(M, ddof=c, **kw), exact=False)
            same(xp.std(x, correction=c, **kw), np.std(M, ddof=c, **kw), exact=False)
    ints = (M * 10).astype(np.int8)
    same(xp.sum(xp.asarray(ints), **kw), np.sum(ints, dtype=np.int64, **kw))
    same(xp.sum(xp.asarray(ints.astype(np.uint16)), **kw), np.sum(ints.astype(np.uint16), dtype=np.uint64, **kw))
    same(xp.prod(xp.asarray(ints), dtype=xp.int16, **kw), np.prod(ints, dtype=np.int16, **kw))
    same(xp.sum(xp.asarray(M, dtype=xp.float32), **kw),  # 2023.12 on: float32 sums to float32
         np.sum(M.astype(np.float32), dtype=np.float64, **kw).astype(np.float32), exact=False)
    b = M > 0.5
    same(xp.any(xp.asarray(b), **kw), np.any(b, **kw))
    same(xp.all(xp.asarray(M), **kw), np.all(M, **kw))


def test_statistics_refusals_and_searching():
    with pytest.raises(TypeError):
        xp.mean(xp.asarray([1, 2]))
    with pytest.raises(TypeError):
        xp.sum(xp.asarray([True]))
    with pytest.raises(ValueError):
        xp.max(xp.zeros((0, 3)))
    x = np.array([[3.0, 1.0, 3.0], [-1.0, 7.0, 7.0]])
    for name in ("argmax", "argmin"):
        same(getattr(xp, name)(xp.asarray(x)), getattr(np, name)(x))
        same(getattr(xp, name)(xp.asarray(x), axis=1, keepdims=True), getattr(np, name)(x, axis=1, keepdims=True))
    got = xp.nonzero(xp.asarray(x > 2))
    for g, w in zip(got, np.nonzero(x > 2)):
        same(g, w)
    same(xp.where(xp.asarray(x > 2), xp.asarray(x), xp.asarray(np.zeros(3))), np.where(x > 2, x, 0.0))


def test_sorting_stable_both_ways_and_sets():
    v = np.array([3.0, np.nan, -0.0, 1.0, 3.0, 0.0, -math.inf, 1.0])
    x = xp.asarray(v)
    same(xp.argsort(x), np.argsort(v, kind="stable"))
    same(xp.sort(x), np.sort(v))
    want = np.array([1, 0, 4, 3, 7, 2, 5, 6])  # NaN first, then stable among equals
    same(xp.argsort(x, descending=True), want)
    u = xp.unique_all(xp.asarray(np.array([[2, 1], [2, 5]], dtype=np.int16)))
    same(u.values, np.array([1, 2, 5], dtype=np.int16))
    same(u.indices, np.array([1, 0, 3]))
    same(u.inverse_indices, np.array([[1, 0], [1, 2]]))
    same(u.counts, np.array([1, 2, 1]))
    nan2 = xp.unique_values(xp.asarray([math.nan, 1.0, math.nan]))
    assert np.isnan(npv(nan2)).sum() == 2  # every NaN is distinct
    same(xp.unique_counts(xp.asarray([4, 4])).counts, np.array([2]))
    same(xp.unique_inverse(xp.asarray([4, 1])).inverse_indices, np.array([1, 0]))


def test_manipulation_and_linear_algebra_as_numpy():
    a = RNG.standard_normal((2, 3, 4))
    x = xp.asarray(a)
    same(xp.concat([x, x], axis=1), np.concatenate([a, a], axis=1))
    same(xp.concat([xp.asarray([1], dtype=xp.int8), xp.asarray([2], dtype=xp.int32)], axis=None),
         np.array([1, 2], dtype=np.int32))
    same(xp.stack([x, x], axis=-1), np.stack([a, a], axis=-1))
    same(xp.expand_dims(x, axis=-1), a[..., None])
    same(xp.flip(x), np.flip(a))
    same(xp.flip(x, axis=(0, 2)), np.flip(a, axis=(0, 2)))
    same(xp.permute_dims(x, (2, 0, 1)), a.transpose(2, 0, 1))
    same(xp.reshape(x, (4, -1), copy=True), a.reshape(4, -1))
    with pytest.raises(ValueError):
        xp.reshape(xp.permute_dims(x, (2, 0, 1)), (-1,), copy=False)
    same(xp.roll(x, 5), np.roll(a, 5))
    same(xp.roll(x, (1, -2), axis=(0, 2)), np.roll(a, (1, -2), axis=(0, 2)))
    same(xp.squeeze(xp.expand_dims(x, axis=1), axis=1), a)
    with pytest.raises(ValueError):
        xp.squeeze(x, axis=0)
    b = RNG.standard_normal((4, 5))
    same(xp.matmul(x, xp.asarray(b)), a @ b, exact=False)
    same(xp.matrix_transpose(x), np.swapaxes(a, -1, -2))
    same(xp.tensordot(x, xp.asarray(b), axes=1), np.tensordot(a, b, axes=1), exact=False)
    same(xp.tensordot(x, x, axes=((0, 1), (0, 1))), np.tensordot(a, a, axes=((0, 1), (0, 1))), exact=False)
    same(xp.vecdot(x, xp.asarray(a[0])), np.sum(a * a[0], axis=-1), exact=False)
    same(xp.vecdot(xp.asarray([1, 2], dtype=xp.int8), xp.asarray([3, 4], dtype=xp.int8)), np.int8(11))
    same(xp.take(x, xp.asarray([2, 0]), axis=1), np.take(a, [2, 0], axis=1))
    same(x.mT, np.swapaxes(a, -1, -2))
    with pytest.raises(ValueError):
        x.T


def test_creation_as_numpy():
    same(xp.arange(1, 10, 3), np.arange(1, 10, 3))
    same(xp.arange(0.5, 2.0, 0.25), np.arange(0.5, 2.0, 0.25))
    same(xp.arange(5, 0, -2, dtype=xp.int8), np.arange(5, 0, -2, dtype=np.int8))
    same(xp.arange(9, 0, -4, dtype=xp.uint8), np.arange(9, 0, -4, dtype=np.uint8))
    same(xp.arange(0, 2 ** 64 - 1, 2 ** 63, dtype=xp.uint64), np.array([0, 2 ** 63], dtype=np.uint64))
    same(xp.linspace(0, 1, 5), np.linspace(0, 1, 5))
    same(xp.linspace(0, 1, 4, endpoint=False), np.linspace(0, 1, 4, endpoint=False))
    same(xp.eye(3, 4, k=1, dtype=xp.int32), np.eye(3, 4, k=1, dtype=np.int32))
    same(xp.full((2,), 3.402823466385289e38, dtype=xp.float32), np.full(2, 3.402823466385289e38, np.float32))
    same(xp.full((2, 1), False), np.full((2, 1), False))
    same(xp.zeros_like(xp.asarray([1, 2], dtype=xp.uint32)), np.zeros(2, np.uint32))
    same(xp.asarray([[1, 2], [3, 4]], dtype=xp.uint64), np.array([[1, 2], [3, 4]], np.uint64))
    same(xp.asarray(2 ** 64 - 1, dtype=xp.uint64), np.uint64(2 ** 64 - 1))
    with pytest.raises(OverflowError):
        xp.asarray(2 ** 63)
    for g, w in zip(xp.meshgrid(xp.arange(2), xp.arange(3)), np.meshgrid(np.arange(2), np.arange(3))):
        same(g, w)
    for g, w in zip(xp.meshgrid(xp.arange(2), xp.arange(3), indexing="ij"),
                    np.meshgrid(np.arange(2), np.arange(3), indexing="ij")):
        same(g, w)
    same(xp.tril(xp.ones((3, 3)), k=-1), np.tril(np.ones((3, 3)), k=-1))
    same(xp.triu(xp.ones((3, 3))), np.triu(np.ones((3, 3))))
    x = xp.asarray([1.0, 2.0])
    assert xp.asarray(x, copy=False)._t.data_ptr() == x._t.data_ptr()
    assert xp.asarray(x, copy=True)._t.data_ptr() != x._t.data_ptr()
    same(xp.from_dlpack(x), np.array([1.0, 2.0]))
    same(xp.astype(x, xp.int8), np.array([1, 2], np.int8))
    assert xp.iinfo(xp.uint16).max == 65535 and xp.iinfo(xp.int8).min == -128
    f = xp.finfo(xp.float32)
    assert (f.bits, f.eps, f.max, f.smallest_normal) == (32, float(np.finfo(np.float32).eps),
                                                       float(np.finfo(np.float32).max),
                                                       float(np.finfo(np.float32).tiny))
    assert xp.isdtype(xp.uint8, "unsigned integer") and xp.isdtype(xp.float32, ("bool", "real floating"))
    assert not xp.isdtype(xp.int8, "unsigned integer") and xp.isdtype(xp.int8, xp.int8)
    same(xp.broadcast_to(xp.asarray([1, 2]), (3, 2)), np.broadcast_to([1, 2], (3, 2)))
    with pytest.raises(ValueError):
        xp.broadcast_to(xp.asarray([1, 2]), (3,))


KEYS = [(slice(None, None, -1),), (slice(3, 0, -2), Ellipsis), (Ellipsis, slice(None, None, -3)), (None, 1, -1),
        (slice(-1, -6, -1), slice(None), None), (1, slice(4, None, -2))]


@pytest.mark.parametrize("key", KEYS, ids=range(len(KEYS)))
def test_indexing_negative_steps_as_numpy(key):
    a = np.arange(4 * 5, dtype=np.float32).reshape(4, 5)
    x = xp.asarray(a)
    same(x[key], a[key])
    b, y = a.copy(), xp.asarray(a)
    value = -np.arange(np.asarray(a[key]).size, dtype=np.float32).reshape(np.shape(a[key]))
    b[key] = value
    y[key] = xp.asarray(value)
    same(y, b)
    y[key] = 9.0
    b[key] = 9.0
    same(y, b)


def test_indexing_masks_as_numpy():
    a = RNG.standard_normal((3, 4))
    x = xp.asarray(a)
    m = a > 0
    same(x[xp.asarray(m)], a[m])
    same(x[xp.asarray(m[:, 0])], a[m[:, 0]])
    same(x[xp.asarray(True)], a[True])
    same(x[xp.zeros((0, 4), dtype=xp.bool)], a[np.zeros((0, 4), bool)])
    x[xp.asarray(m)] = 0.0
    a[m] = 0.0
    same(x, a)
    with pytest.raises(IndexError):
        x[7]
    with pytest.raises(IndexError):
        x[0, 0, 0]


def test_tensor_array_namespace_takes_tensors():
    import tessera
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = tessera.from_numpy(a).to(xp.asarray(0.0).device)  # on the namespace's default device
    ns = t.__array_namespace__()
    assert ns is xp and ns.__array_api_version__ == "2025.12"
    assert t.__array_namespace__(api_version="2025.12") is xp
    with pytest.raises(ValueError, match="unsupported"):
        t.__array_namespace__(api_version="2019.01")
    old = t.__array_namespace__(api_version="2021.12")
    same(old.sum(t, axis=1), a.sum(axis=1, dtype=np.float64))  # 2021.12: the default float dtype
    same(ns.sum(t, axis=1), a.sum(axis=1))  # 2023.12 on: x's dtype
    same(ns.concat([t, t], axis=0), np.concatenate([a, a]))
    same(ns.where(t > 5, t, ns.asarray(0.0, dtype=ns.float32)), np.where(a > 5, a, np.float32(0)))
    same(ns.matmul(t, t.T), a @ a.T)
    with pytest.raises(TypeError):  # promotion stays strict: float32 with int64 is not defined
        ns.add(t, tessera.from_numpy(np.arange(4)).to(t.device))


# What the consortium's suite (at its 2026 head, with 2022.12) found missing,
# and the later standard's additions libraries reach for.
def test_newaxis_conj_of_real_and_expand_dims_positional():
    a = np.arange(6.0).reshape(2, 3)
    x = xp.asarray(a)
    assert xp.newaxis is None
    same(x[xp.newaxis, :, xp.newaxis], a[None, :, None])
    for name in ["uint8", "int32", "float32", "bool"]:
        if name == "bool":
            with pytest.raises(TypeError):
                xp.conj(xp.asarray([True]))
            continue
        v = xp.asarray([1, 2, 3], dtype=getattr(xp, name))
        same(xp.conj(v), np.conj(np.asarray([1, 2, 3], dtype=name)))
    same(xp.expand_dims(x, 1), np.expand_dims(a, 1))  # axis by position (the amended 2022.12 stub)


@pytest.mark.parametrize("value", [0, 3, True])
def test_nonzero_of_a_zero_dimensional_array_raises(value):
    with pytest.raises(ValueError, match="zero-dimensional"):
        xp.nonzero(xp.asarray(value))


@pytest.mark.parametrize("k", [2 ** 64, -(2 ** 64), 2 ** 63, 5, -5, 2])
def test_diagonal_offsets_and_shifts_beyond_int64(k):
    """Python ints of any size keep their meaning (ctypes' int64 would wrap
    2**64 to 0): eye and the triangles clamp them, roll takes them modulo."""
    same(xp.eye(3, 4, k=k), np.eye(3, 4, k=k))
    a = np.arange(1.0, 13.0).reshape(3, 4)
    want = np.tril(a, k) if abs(k) < 2 ** 62 else (a if k > 0 else np.zeros_like(a))
    same(xp.tril(xp.asarray(a), k=k), want)
    want = np.triu(a, k) if abs(k) < 2 ** 62 else (np.zeros_like(a) if k > 0 else a)
    same(xp.triu(xp.asarray(a), k=k), want)
    same(xp.roll(xp.asarray(a), k + 1), np.roll(a, (k + 1) % a.size))
    same(xp.roll(xp.asarray(a), (k, -k), axis=(0, 1)), np.roll(a, (k % 3, -k % 4), axis=(0, 1)))


def test_namespace_info():
    info = xp.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 16}
    assert info.default_device() in info.devices()
    assert info.default_dtypes() == {"real floating": xp.float64, "complex floating": xp.complex128,
                                     "integral": xp.int64, "indexing": xp.int64}
    assert list(info.dtypes()) == DTYPES + ["complex64", "complex128"]
    assert list(info.dtypes(kind="signed integer")) == ["int8", "int16", "int32", "int64"]
    assert list(info.dtypes(kind=("bool", "real floating"))) == ["bool", "float32", "float64"]
    with pytest.raises(ValueError, match="unknown kind"):
        info.dtypes(kind="integer")


def test_dlpack_keywords_and_bool():
    a = np.arange(4.0)
    x = xp.asarray(a)
    if x.device.type == "cpu":  # NumPy 1.24 imports host memory only
        assert np.array_equal(np.from_dlpack(x), a)
    else:
        import tessera._dlpack as dl
        before = len(dl._exports)
        with pytest.raises(RuntimeError, match="Unsupported device"):  # NumPy 1.24's refusal, with its message
            np.from_dlpack(x)
        assert len(dl._exports) == before  # the refused export was freed
    b = xp.asarray([True, False])
    assert np.asarray(xp.from_dlpack(b.__dlpack__())).tolist() == [True, False]  # DLPack 0.8's kDLBool
    assert '"dltensor_versioned"' in repr(x.__dlpack__(max_version=(1, 0)))  # DLPack 1.x: test_dlpack_versioned.py
    c = xp.from_dlpack(x, copy=True)
    c[0] = 7.0
    assert float(x[0]) == 0.0
    s = xp.from_dlpack(x, copy=False)
    s[1] = 9.0
    assert float(x[1]) == 9.0
    same(xp.from_dlpack(x.__dlpack__(copy=True)), np.asarray(x))
    same(xp.from_dlpack(x, device="cpu"), np.asarray(x))
    with pytest.raises(BufferError, match="dl_device"):
        x.__dlpack__(dl_device=(2, 7))  # a copy is made to the host alone
