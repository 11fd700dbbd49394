# SPDX-License-Identifier: Apache-2.0
"""The Array API's functions of 2023.12, 2024.12 and 2025.12 in
tessera.array_api, and their PyTorch-named twins in tessera, against NumPy
1.24 (and, where NumPy 1.24 lacks one, a reference written here) on the
default device: $TESSERA_ARRAY_API_DEVICE when set (test_array_api_devices.py
runs this module again on the emulated CUDA device), else the CPU. Every
dtype, 0-d, empty and strided inputs, and the special values."""
import math

import numpy as np
import pytest

import tessera
import tessera.array_api as xp

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float32", "float64"]
REALS = INTS + FLOATS
SPECIAL = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-300, 1e300, 5e-324, -5e-324, 1.7976931348623157e308,
                    math.inf, -math.inf, math.nan, -math.nan])


def npv(a):
    assert isinstance(a, xp.Array), type(a)
    return np.asarray(a)


def same(got, want):
    """Equal values, dtype and shape; NaN equal to NaN, -0 told from +0."""
    want = np.asarray(want)
    g = npv(got)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    if g.dtype.kind in "fc":
        np.testing.assert_array_equal(g, want)
        if g.dtype.kind == "f":
            ok = ~np.isnan(want)
            assert (np.signbit(g)[ok] == np.signbit(want)[ok]).all(), (g, want)
    else:
        np.testing.assert_array_equal(g, want)


def data(dtype, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype in INTS:
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, dtype=dtype)
    return (rng.standard_normal(size=shape) * 10).astype(dtype)


def strided(a):
    """The array as a strided (non-contiguous) Array: every other column of a
    wider one."""
    wide = np.repeat(a, 2, axis=-1) if a.ndim else a
    x = xp.asarray(wide)
    return x[..., ::2] if a.ndim else x


def test_version_and_older_namespaces():
    x = xp.asarray([1.0], dtype=xp.float32)
    assert xp.__array_api_version__ == "2025.12" and x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2025.12") is xp
    old = x.__array_namespace__(api_version="2022.12")
    assert old.__array_api_version__ == "2022.12"
    assert old.sum(x).dtype == xp.float64 and xp.sum(x).dtype == xp.float32  # the 2023.12 change
    assert old.linalg.trace(xp.ones((2, 2), dtype=xp.float32)).dtype == xp.float64
    assert xp.linalg.trace(xp.ones((2, 2), dtype=xp.float32)).dtype == xp.float32
    assert isinstance(old.meshgrid(x, x), list) and isinstance(xp.meshgrid(x, x), tuple)
    assert isinstance(old.broadcast_arrays(x, x), list) and isinstance(xp.broadcast_arrays(x, x), tuple)
    assert isinstance(xp.__array_namespace_info__().devices(), tuple)
    assert isinstance(x.__array_namespace__(api_version="2023.12").__array_namespace_info__().devices(), list)
    with pytest.raises(ValueError, match="unsupported Array API version"):
        x.__array_namespace__(api_version="2099.12")
    assert tessera.ones(2).__array_namespace__(api_version="2022.12").__array_api_version__ == "2022.12"


# ---- elementwise -------------------------------------------------------------------


@pytest.mark.parametrize("dtype", REALS)
@pytest.mark.parametrize("fn", ["maximum", "minimum"])
def test_maximum_minimum(fn, dtype):
    a, b = data(dtype, seed=1), data(dtype, seed=2)
    same(getattr(xp, fn)(xp.asarray(a), strided(b)), getattr(np, fn)(a, b))
    same(getattr(xp, fn)(xp.asarray(a[0]), xp.asarray(b)), getattr(np, fn)(a[0], b))  # broadcast


@pytest.mark.parametrize("fn", ["maximum", "minimum", "copysign", "hypot", "nextafter"])
def test_special_values_of_binary_functions(fn):
    for dtype in FLOATS:
        s = SPECIAL.astype(dtype)
        a, b = np.meshgrid(s, s)
        with np.errstate(all="ignore"):
            want = getattr(np, fn)(a, b)
        got = npv(getattr(xp, fn)(xp.asarray(a), xp.asarray(b)))
        assert got.dtype == want.dtype
        if fn == "hypot":  # within one ulp of the float64 value (NumPy's is libm's)
            np.testing.assert_allclose(got, want, rtol=2 * np.finfo(dtype).eps, atol=0)
        else:
            np.testing.assert_array_equal(got, want)
            ok = ~np.isnan(want) & (want == 0)
            assert (np.signbit(got)[ok] == np.signbit(want)[ok]).all(), fn


def test_hypot_has_no_overflow_or_underflow():
    for dtype in FLOATS:
        big = np.finfo(dtype).max / 2
        tiny = np.finfo(dtype).smallest_subnormal * 8
        a = np.array([big, tiny, 3, 1e-200 if dtype == "float64" else 1e-30], dtype=dtype)
        b = np.array([big, tiny, 4, 1e-200 if dtype == "float64" else 1e-30], dtype=dtype)
        np.testing.assert_allclose(npv(xp.hypot(xp.asarray(a), xp.asarray(b))), np.hypot(a, b),
                                   rtol=2 * np.finfo(dtype).eps)


def test_nextafter_steps_every_way():
    for dtype in FLOATS:
        a = data(dtype, (50,), 3)
        for towards in (np.inf, -np.inf, 0.0):
            t = np.full_like(a, towards)
            same(xp.nextafter(xp.asarray(a), xp.asarray(t)), np.nextafter(a, t))
    # A scalar on either side (2024.12).
    same(xp.nextafter(xp.asarray([1.0, -0.0]), 2.0), np.nextafter([1.0, -0.0], 2.0))
    same(xp.nextafter(0.0, xp.asarray([1.0, -1.0])), np.nextafter(0.0, [1.0, -1.0]))


@pytest.mark.parametrize("dtype", FLOATS)
def test_signbit_copysign_reciprocal(dtype):
    s = SPECIAL.astype(dtype)
    same(xp.signbit(xp.asarray(s)), np.signbit(s))
    same(xp.signbit(strided(s)), np.signbit(s))
    same(xp.copysign(xp.asarray(s), -1.0), np.copysign(s, -1.0))
    with np.errstate(all="ignore"):
        same(xp.reciprocal(xp.asarray(s)), np.reciprocal(s))
    z = np.array([1 + 2j, -0.5j, 0j], dtype="complex128")
    with np.errstate(all="ignore"):
        same(xp.reciprocal(xp.asarray(z)), np.reciprocal(z))
    with pytest.raises(TypeError):
        xp.signbit(xp.asarray([1, 2]))
    with pytest.raises(TypeError):
        xp.copysign(xp.asarray([1, 2]), xp.asarray([1, 2]))


@pytest.mark.parametrize("dtype", REALS)
def test_clip(dtype):
    a = data(dtype, (5, 6))
    same(xp.clip(xp.asarray(a)), a)
    same(xp.clip(xp.asarray(a), 1), np.maximum(a, np.array(1, dtype=dtype)))
    same(xp.clip(xp.asarray(a), None, 7), np.minimum(a, np.array(7, dtype=dtype)))
    lo, hi = data(dtype, (6,), 5), data(dtype, (5, 1), 6)
    same(xp.clip(strided(a), xp.asarray(lo), xp.asarray(hi)), np.minimum(np.maximum(a, lo), hi))
    assert xp.clip(xp.asarray(a), 1, 7).dtype == xp.asarray(a).dtype
    if dtype in INTS:  # a bound beyond the dtype is clamped to it
        info = np.iinfo(dtype)
        same(xp.clip(xp.asarray(a), info.min - 1, info.max + 1), a)


def test_clip_nan_and_scalars():
    a = np.array([np.nan, -1.0, 0.5, 3.0])
    same(xp.clip(xp.asarray(a), 0.0, 1.0), np.clip(a, 0.0, 1.0))
    same(xp.clip(xp.asarray(a), xp.asarray(np.nan), 1.0), np.full(4, np.nan))  # a NaN bound gives NaN
    same(xp.clip(xp.asarray(a[:0]), 0.0, 1.0), a[:0])
    same(xp.clip(xp.asarray(2.5), 0.0, 1.0), np.float64(1.0))  # 0-d
    with pytest.raises(TypeError):
        xp.clip(xp.asarray([1, 2]), 0.5)  # a float bound beside integers


def test_binary_functions_take_scalars_on_either_side():
    x = xp.asarray([1.0, -2.0, 3.0], dtype=xp.float32)
    same(xp.add(1.5, x), np.float32(1.5) + npv(x))
    same(xp.subtract(1.0, x), np.float32(1.0) - npv(x))
    same(xp.divide(x, 2), npv(x) / np.float32(2))
    same(xp.pow(2.0, x), np.power(np.float32(2.0), npv(x)))
    same(xp.maximum(0.0, x), np.maximum(np.float32(0), npv(x)))
    same(xp.equal(x, 1.0), npv(x) == 1.0)
    same(xp.bitwise_and(xp.asarray([6, 3]), 5), np.array([4, 1]))
    with pytest.raises(TypeError):
        xp.add(1.5, 2.5)  # no array
    with pytest.raises(TypeError):
        xp.add(xp.asarray([1, 2]), 1.5)  # a float beside integers


# ---- manipulation ---------------------------------------------------------------------


def test_moveaxis_unstack_expand_dims_permute_dims():
    a = data("float64", (2, 3, 4, 5))
    x = xp.asarray(a)
    same(xp.moveaxis(x, 0, -1), np.moveaxis(a, 0, -1))
    same(xp.moveaxis(x, (0, 1), (3, 2)), np.moveaxis(a, (0, 1), (3, 2)))
    with pytest.raises(ValueError):
        xp.moveaxis(x, (0, 0), (1, 2))
    for axis in range(-4, 4):
        got = xp.unstack(x, axis=axis)
        assert isinstance(got, tuple) and len(got) == a.shape[axis]
        for g, w in zip(got, np.moveaxis(a, axis, 0)):
            same(g, w)
    same(xp.expand_dims(x, axis=(0, -1)), np.expand_dims(a, (0, -1)))
    same(xp.expand_dims(x, axis=(1, 3, 5)), np.expand_dims(a, (1, 3, 5)))
    same(xp.expand_dims(x, axis=-2), np.expand_dims(a, -2))
    with pytest.raises(IndexError):
        xp.expand_dims(x, axis=(0, 6))
    with pytest.raises(ValueError):
        xp.expand_dims(x, axis=(1, -5))  # one position twice
    same(xp.permute_dims(x, (-1, 0, -3, 2)), np.transpose(a, (3, 0, 1, 2)))
    with pytest.raises(ValueError):
        xp.permute_dims(x, (0, 0, 1, 2))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "float32", "complex128"])
def test_repeat(dtype):
    a = data(dtype if dtype != "complex128" else "float64", (3, 4)).astype(dtype)
    x = xp.asarray(a)
    same(xp.repeat(x, 2), np.repeat(a, 2))
    same(xp.repeat(x, 3, axis=0), np.repeat(a, 3, axis=0))
    same(xp.repeat(x, 0, axis=-1), np.repeat(a, 0, axis=-1))
    r = np.array([0, 2, 1, 3])
    same(xp.repeat(x, xp.asarray(r), axis=1), np.repeat(a, r, axis=1))
    same(xp.repeat(strided(a), xp.asarray(r[:1]), axis=1), np.repeat(a, r[:1], axis=1))
    r12 = np.arange(12) % 3
    same(xp.repeat(x, xp.asarray(r12)), np.repeat(a, r12))
    same(xp.repeat(xp.asarray(a[:0]), 2, axis=0), np.repeat(a[:0], 2, axis=0))
    same(xp.repeat(xp.asarray(a[0, 0]), 3), np.repeat(a[0, 0], 3))  # 0-d
    with pytest.raises(ValueError):
        xp.repeat(x, xp.asarray([1, 2]), axis=1)
    with pytest.raises(ValueError):
        xp.repeat(x, xp.asarray([1, -1, 1, 1]), axis=1)
    with pytest.raises(ValueError):
        xp.repeat(x, -1)


@pytest.mark.parametrize("reps", [(2,), (2, 3), (1, 1), (0, 2), (2, 1, 3), (1, 2, 1, 2, 1, 2, 1, 2, 1)])
def test_tile(reps):
    a = data("int32", (3, 4))
    same(xp.tile(xp.asarray(a), reps), np.tile(a, reps))
    same(xp.tile(strided(a), reps), np.tile(a, reps))
    same(xp.tile(xp.asarray(np.int32(5)), reps), np.tile(np.int32(5), reps))


def test_broadcast_shapes():
    assert xp.broadcast_shapes() == ()
    assert xp.broadcast_shapes((2, 1), (3,)) == np.broadcast_shapes((2, 1), (3,))
    assert xp.broadcast_shapes((0, 1), (1, 5), ()) == (0, 5)
    with pytest.raises(ValueError):
        xp.broadcast_shapes((2,), (3,))


# ---- searching, statistics, sets, utilities ----------------------------------------------


@pytest.mark.parametrize("dtype", REALS)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(dtype, side):
    s = np.sort(data(dtype, (40,), 7))
    v = data(dtype, (5, 6), 8)
    same(xp.searchsorted(xp.asarray(s), xp.asarray(v), side=side), np.searchsorted(s, v, side=side))
    same(xp.searchsorted(xp.asarray(s), strided(v), side=side), np.searchsorted(s, v, side=side))
    same(xp.searchsorted(xp.asarray(s), xp.asarray(s), side=side), np.searchsorted(s, s, side=side))  # ties
    same(xp.searchsorted(xp.asarray(s), 3, side=side), np.searchsorted(s, np.array(3, dtype=dtype), side=side))
    same(xp.searchsorted(xp.asarray(s[:0]), xp.asarray(v), side=side), np.zeros(v.shape, dtype=np.int64))
    same(xp.searchsorted(xp.asarray(s), xp.asarray(v[:0]), side=side), np.zeros((0, 6), dtype=np.int64))
    perm = np.random.default_rng(2).permutation(40)
    same(xp.searchsorted(xp.asarray(s[perm]), xp.asarray(v), side=side, sorter=xp.asarray(np.argsort(perm))),
         np.searchsorted(s, v, side=side))


def test_searchsorted_special_values_sort_as_sort_does():
    s = np.sort(SPECIAL)  # NaN last, as xp.sort leaves it
    for side in ("left", "right"):
        got = npv(xp.searchsorted(xp.sort(xp.asarray(SPECIAL)), xp.asarray(SPECIAL), side=side))
        want = np.searchsorted(s, SPECIAL, side=side)
        zeros = SPECIAL == 0  # NumPy orders -0 and +0 by bits; they are equal here and in sort
        np.testing.assert_array_equal(got[~zeros], want[~zeros])
        lo, hi = np.searchsorted(s, 0.0, "left"), np.searchsorted(s, 0.0, "right")
        assert (got[zeros] == (lo if side == "left" else hi)).all()
    with pytest.raises(ValueError):
        xp.searchsorted(xp.asarray([[1, 2]]), xp.asarray(1))
    with pytest.raises(TypeError):
        xp.searchsorted(xp.asarray([1 + 1j]), xp.asarray(1 + 1j))


def test_searchsorted_large_row_many_values():
    rng = np.random.default_rng(4)
    s = np.sort(rng.standard_normal(1 << 16))
    v = rng.standard_normal(1 << 17)
    same(xp.searchsorted(xp.asarray(s), xp.asarray(v)), np.searchsorted(s, v))
    same(xp.searchsorted(xp.asarray(s), xp.asarray(v), side="right"), np.searchsorted(s, v, side="right"))


def test_searchsorted_rows_in_torch_form():
    rng = np.random.default_rng(5)
    s = np.sort(rng.integers(0, 20, size=(3, 4, 9)), axis=-1)
    v = rng.integers(-1, 21, size=(3, 4, 5))
    got = tessera.searchsorted(tessera.tensor(s), tessera.tensor(v), right=True).numpy()
    want = np.stack([np.searchsorted(s[i, j], v[i, j], side="right") for i in range(3) for j in range(4)])
    np.testing.assert_array_equal(got.reshape(12, 5), want)
    assert tessera.searchsorted(tessera.tensor(s[0, 0]), 7, side="left").dim() == 0
    with pytest.raises(RuntimeError, match="boundaries tensor should be 1 dimension"):
        tessera.searchsorted(tessera.tensor(s), tessera.tensor(v[0]))


@pytest.mark.parametrize("dtype", ["bool"] + REALS + ["complex64"])
def test_count_nonzero(dtype):
    a = (data("int8", (3, 4, 5)) % 3).astype(dtype)
    x = xp.asarray(a)
    same(xp.count_nonzero(x), np.int64(np.count_nonzero(a)))
    same(xp.count_nonzero(x, axis=1), np.count_nonzero(a, axis=1).astype(np.int64))
    same(xp.count_nonzero(x, axis=(0, 2), keepdims=True),
         np.count_nonzero(a, axis=(0, 2), keepdims=True).astype(np.int64))
    same(xp.count_nonzero(xp.asarray(a[:0])), np.int64(0))


@pytest.mark.parametrize("dtype", ["bool", "int8", "int32", "uint16", "uint64", "float32", "float64", "complex64"])
@pytest.mark.parametrize("fn", ["cumulative_sum", "cumulative_prod"])
def test_cumulative(fn, dtype):
    a = (data("int8", (3, 5), 9) % 4).astype(dtype)
    ref = np.cumsum if fn == "cumulative_sum" else np.cumprod
    want_dtype = {"bool": "int64", "int8": "int64", "int32": "int64", "uint16": "uint64"}.get(dtype, dtype)
    x = xp.asarray(a)
    for axis in (0, 1, -1):
        same(getattr(xp, fn)(x, axis=axis), ref(a, axis=axis, dtype=want_dtype))
    same(getattr(xp, fn)(xp.asarray(a[0])), ref(a[0], dtype=want_dtype))
    init = 0 if fn == "cumulative_sum" else 1
    want = np.concatenate([np.full((3, 1), init, dtype=want_dtype), ref(a, axis=1, dtype=want_dtype)], axis=1)
    same(getattr(xp, fn)(x, axis=1, include_initial=True), want)
    same(getattr(xp, fn)(xp.asarray(a[:, :0]), axis=1, include_initial=True), np.full((3, 1), init, want_dtype))
    if dtype == "int8":
        same(getattr(xp, fn)(x, axis=1, dtype=xp.int16), ref(a, axis=1, dtype="int16"))
    with pytest.raises(ValueError):
        getattr(xp, fn)(x)  # axis required beyond 1-d


def test_cumulative_prod_of_long_lines_and_special_values():
    rng = np.random.default_rng(11)
    a = 1 + rng.standard_normal(300000) * 1e-6  # one long line: blocks in parallel
    np.testing.assert_allclose(npv(xp.cumulative_prod(xp.asarray(a))), np.cumprod(a), rtol=1e-12)
    s = np.array([2.0, np.inf, 0.0, np.nan, 1.0])
    same(xp.cumulative_prod(xp.asarray(s)), np.cumprod(s))
    same(xp.cumulative_prod(xp.asarray(np.array([100, 100, 100], dtype=np.int64) ** 4)),
         np.cumprod(np.array([100, 100, 100], dtype=np.int64) ** 4))  # wraps as int64 does


@pytest.mark.parametrize("dtype", ["bool", "int16", "uint8", "float32", "float64", "complex128"])
def test_diff(dtype):
    a = data("int8", (4, 6), 12).astype(dtype)
    x = xp.asarray(a)
    for n in (0, 1, 2, 7):
        for axis in (0, -1):
            same(xp.diff(x, axis=axis, n=n), np.diff(a, n=n, axis=axis))
    same(xp.diff(strided(a)), np.diff(a))
    p, q = a[:, :2], a[:, :1]
    same(xp.diff(x, prepend=xp.asarray(p), append=xp.asarray(q)), np.diff(a, prepend=p, append=q))
    with pytest.raises(ValueError):
        xp.diff(xp.asarray(a[0, 0]))
    with pytest.raises(ValueError):
        xp.diff(x, prepend=xp.asarray(a[:2]))  # wrong shape off the axis


def test_take_along_axis():
    a = data("float64", (3, 5))
    idx = np.argsort(a, axis=1)
    same(xp.take_along_axis(xp.asarray(a), xp.asarray(idx), axis=1), np.take_along_axis(a, idx, axis=1))
    idx0 = np.array([[2, 0, 1, -1, 0]])  # broadcast along axis 1's neighbour, a negative index
    same(xp.take_along_axis(xp.asarray(a), xp.asarray(idx0), axis=0), np.take_along_axis(a, idx0 % 3, axis=0))
    same(xp.take_along_axis(strided(a), xp.asarray(idx), axis=-1), np.take_along_axis(a, idx, axis=-1))
    with pytest.raises(ValueError):
        xp.take_along_axis(xp.asarray(a), xp.asarray(idx[0]), axis=0)


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint32", "float32", "float64", "bool"])
def test_isin(dtype):
    a = (data("int8", (4, 5), 13) % 7).astype(dtype)
    b = (data("int8", (6,), 14) % 7).astype(dtype)
    same(xp.isin(xp.asarray(a), xp.asarray(b)), np.isin(a, b))
    same(xp.isin(xp.asarray(a), xp.asarray(b), invert=True), np.isin(a, b, invert=True))
    same(xp.isin(strided(a), xp.asarray(b[:0])), np.zeros(a.shape, bool))
    if dtype != "bool":
        same(xp.isin(xp.asarray(a), 3), np.isin(a, 3))
        same(xp.isin(3, xp.asarray(b)), np.isin(3, b))
    f = np.array([np.nan, 0.0, -0.0, 1.0])
    same(xp.isin(xp.asarray(f), xp.asarray(np.array([np.nan, 0.0]))), np.isin(f, [np.nan, 0.0]))


# ---- the PyTorch-named twins in tessera ---------------------------------------------------------


def test_torch_twins_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(21)
    a = rng.standard_normal((4, 5))
    b = rng.standard_normal((4, 5))
    ta, tb = tessera.tensor(a), tessera.tensor(b)
    qa, qb = torch.tensor(a), torch.tensor(b)
    for name in ("hypot", "copysign", "nextafter"):
        check = np.testing.assert_array_equal
        if name == "hypot":  # within an ulp of libm's (torch's), which is not correctly rounded either
            check = lambda g, w: np.testing.assert_allclose(g, w, rtol=2.3e-16, atol=0)  # noqa: E731
        check(getattr(tessera, name)(ta, tb).numpy(), getattr(torch, name)(qa, qb).numpy())
        check(getattr(ta, name)(tb).numpy(), getattr(qa, name)(qb).numpy())
    np.testing.assert_array_equal(tessera.signbit(ta).numpy(), torch.signbit(qa).numpy())
    np.testing.assert_array_equal(tessera.cumprod(ta, 1).numpy(), torch.cumprod(qa, 1).numpy())
    np.testing.assert_array_equal(tessera.count_nonzero(ta > 0, dim=0).numpy(),
                                  torch.count_nonzero(qa > 0, dim=0).numpy())
    np.testing.assert_array_equal(tessera.diff(ta, n=2, dim=0).numpy(), torch.diff(qa, n=2, dim=0).numpy())
    np.testing.assert_array_equal(tessera.tile(ta, (2, 1, 3)).numpy(), torch.tile(qa, (2, 1, 3)).numpy())
    np.testing.assert_array_equal(ta.repeat_interleave(2, dim=1).numpy(), qa.repeat_interleave(2, dim=1).numpy())
    r = [1, 0, 3, 2]
    np.testing.assert_array_equal(tessera.repeat_interleave(ta, tessera.tensor(r), dim=0).numpy(),
                                  torch.repeat_interleave(qa, torch.tensor(r), dim=0).numpy())
    np.testing.assert_array_equal(tessera.repeat_interleave(tessera.tensor(r)).numpy(),
                                  torch.repeat_interleave(torch.tensor(r)).numpy())
    idx = np.argsort(a, axis=1)
    np.testing.assert_array_equal(tessera.take_along_dim(ta, tessera.tensor(idx), dim=1).numpy(),
                                  torch.take_along_dim(qa, torch.tensor(idx), dim=1).numpy())
    np.testing.assert_array_equal(tessera.take_along_dim(ta, tessera.tensor(idx)).numpy(),
                                  torch.take_along_dim(qa, torch.tensor(idx)).numpy())
    np.testing.assert_array_equal(tessera.movedim(ta.reshape(2, 2, 5), (0, 1), (2, 0)).numpy(),
                                  torch.movedim(qa.reshape(2, 2, 5), (0, 1), (2, 0)).numpy())
    i = tessera.tensor([1, 2, 3, 9]), torch.tensor([1, 2, 3, 9])
    np.testing.assert_array_equal(tessera.isin(i[0], tessera.tensor([9, 2])).numpy(),
                                  torch.isin(i[1], torch.tensor([9, 2])).numpy())
    s = np.sort(a, axis=1)
    np.testing.assert_array_equal(tessera.searchsorted(tessera.tensor(s), tb, side="right").numpy(),
                                  torch.searchsorted(torch.tensor(s), qb, side="right").numpy())
    np.testing.assert_array_equal(tessera.clamp(ta, -0.5, 0.5).numpy(), torch.clamp(qa, -0.5, 0.5).numpy())
    assert ta.view(tessera.int64).dtype is tessera.int64
    np.testing.assert_array_equal(ta.view(tessera.int64).numpy(), qa.view(torch.int64).numpy())
    with pytest.raises(RuntimeError, match="element sizes differ"):
        ta.view(tessera.int32)  # another element size (torch 1.13 reinterprets some; tessera equal sizes only)
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        tessera.searchsorted(tessera.tensor(s), tb, right=True, side="left")


def test_cumprod_and_clamp_gradients_against_torch():
    torch = pytest.importorskip("torch")
    rows = [[0.5, 2.0, -1.5, 3.0, 0.25],   # no zero
            [1.5, 0.0, 2.0, -0.5, 4.0],    # one zero
            [0.0, 2.0, 0.0, 3.0, 1.0],     # two zeros
            [2.0, -3.0, 0.5, 1.25, 0.0]]   # a zero last
    g = np.random.default_rng(31).standard_normal((4, 5))
    for dim in (0, 1):
        x = tessera.tensor(rows, dtype=tessera.float64, requires_grad=True)
        q = torch.tensor(rows, dtype=torch.float64, requires_grad=True)
        y, r = tessera.cumprod(x, dim), torch.cumprod(q, dim)
        assert y.grad_fn.name() == "CumprodBackward0"
        y.backward(tessera.tensor(g))
        r.backward(torch.tensor(g))
        np.testing.assert_allclose(x.grad.numpy(), q.grad.numpy(), rtol=1e-12, atol=1e-12)
    x = tessera.tensor([-2.0, -0.5, 0.0, 0.5, 2.0], requires_grad=True)
    q = torch.tensor([-2.0, -0.5, 0.0, 0.5, 2.0], requires_grad=True)
    tessera.clamp(x, -0.5, 0.5).sum().backward()
    torch.clamp(q, -0.5, 0.5).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), q.grad.numpy())


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3)])
def test_new_functions_on_0d_and_empty_arrays(shape):
    rng = np.random.default_rng(41)
    a = rng.standard_normal(shape)
    b = rng.standard_normal(shape)
    x, y = xp.asarray(a), xp.asarray(b)
    with np.errstate(all="ignore"):
        for fn in ("maximum", "minimum", "copysign", "hypot", "nextafter"):
            same(getattr(xp, fn)(x, y), getattr(np, fn)(a, b))
        same(xp.reciprocal(x), np.reciprocal(a))
    same(xp.signbit(x), np.signbit(a))
    same(xp.clip(x, -0.5, 0.5), np.clip(a, -0.5, 0.5))
    same(xp.isin(x, y), np.isin(a, b))
    same(xp.count_nonzero(x), np.int64(np.count_nonzero(a)))
    same(xp.tile(x, (2,)), np.tile(a, (2,)))
    same(xp.repeat(x, 2), np.repeat(a, 2))
    same(xp.searchsorted(xp.asarray(np.sort(b.reshape(-1))), x), np.searchsorted(np.sort(b.reshape(-1)), a))
    if shape:
        same(xp.diff(x, axis=0), np.diff(a, axis=0))
        same(xp.cumulative_sum(x, axis=0), np.cumsum(a, axis=0))
        same(xp.cumulative_prod(x, axis=0), np.cumprod(a, axis=0))
        same(xp.moveaxis(x, 0, -1), np.moveaxis(a, 0, -1))
        assert len(xp.unstack(x)) == shape[0]
