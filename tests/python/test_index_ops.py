# SPDX-License-Identifier: Apache-2.0
"""cumsum, gather, take / index_select, scatter_ / scatter_add_, nonzero,
sort / argsort and flip (ABI 1.5) against NumPy 1.24 and PyTorch 1.13:
dtypes, 0-d, empty and strided inputs, negative indices, the special values
of sorting (NaN, -0), stability, and the errors for bad indices."""
import numpy as np
import pytest

import tessera

torch = pytest.importorskip("torch", reason="PyTorch is not importable; these tests compare with it")

DTYPES = ["float32", "float64", "float16", "int8", "uint8", "int16", "int32", "int64", "bool"]


def sample(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if dtype.startswith("float"):
        return rng.integers(-20, 20, size=shape).astype(dtype) / 4  # exact in every float dtype
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, endpoint=True).astype(dtype)


def same(t, expected):
    a = t.cpu().numpy()
    e = np.asarray(expected)
    assert a.dtype == e.dtype and a.shape == e.shape, (a.dtype, e.dtype, a.shape, e.shape)
    np.testing.assert_array_equal(a, e)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cumsum_matches_numpy_along_every_dim(dtype):
    x = sample(dtype, (3, 4, 5))
    t = tessera.from_numpy(x)
    want = np.float64 if dtype.startswith("float") else np.int64
    for dim in (0, 1, 2, -1):
        expected = np.cumsum(x.astype(want), axis=dim)
        if dtype.startswith("float"):
            expected = expected.astype(dtype)
        same(tessera.cumsum(t, dim), expected)
    same(t.transpose(0, 2).cumsum(1), np.cumsum(x.transpose(2, 1, 0).astype(want), axis=1).astype(
        dtype if dtype.startswith("float") else np.int64))


def test_cumsum_long_line_0d_empty_and_dtype():
    x = np.random.default_rng(1).integers(-5, 6, size=300_000).astype(np.float32)
    got = tessera.cumsum(tessera.from_numpy(x), 0).numpy()
    np.testing.assert_allclose(got, np.cumsum(x.astype(np.float64)).astype(np.float32), rtol=0, atol=0)
    i = np.arange(200_001, dtype=np.int32)
    same(tessera.cumsum(tessera.from_numpy(i), 0), np.cumsum(i.astype(np.int64)))
    same(tessera.cumsum(tessera.tensor(2.5), 0), np.asarray(np.float32(2.5)))
    assert tessera.cumsum(tessera.zeros((0, 3)), 0).shape == (0, 3)
    same(tessera.cumsum(tessera.tensor([1, 2, 3]), 0, dtype=tessera.float64), np.array([1.0, 3.0, 6.0]))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_matches_torch(dtype):
    x = sample(dtype, (4, 6), seed=2)
    idx = np.random.default_rng(3).integers(-6, 6, size=(3, 5))
    for dim, index in ((1, idx), (0, np.clip(idx, -4, 3))):
        want = torch.gather(torch.from_numpy(x), dim, torch.from_numpy(index % x.shape[dim])).numpy()
        same(tessera.gather(tessera.from_numpy(x), dim, tessera.from_numpy(index)), want)


def test_take_index_select_and_flip():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    t = tessera.from_numpy(x)
    same(t.index_select(2, tessera.tensor([3, 0, -1])), np.take(x, [3, 0, -1], axis=2))
    same(t.index_select(0, tessera.tensor([1, 1, 0], dtype=tessera.int32)), np.take(x, [1, 1, 0], axis=0))
    same(t.take(tessera.tensor([[0, 23], [5, -1]])), np.take(x, [[0, 23], [5, -1]]))
    same(t.transpose(0, 2).index_select(1, tessera.tensor([2, 0])), np.take(x.transpose(2, 1, 0), [2, 0], axis=1))
    same(t.index_select(1, tessera.tensor([], dtype=tessera.int64)), np.take(x, np.array([], dtype=int), axis=1))
    same(t.flip(0), np.flip(x, 0))
    same(tessera.flip(t, (0, 2)), np.flip(x, (0, 2)))
    same(t[:, 1:].flip(-1), np.flip(x[:, 1:], -1))


def test_bad_indices_are_refused_with_the_index_named():
    t = tessera.arange(6).view(2, 3)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1 with size 3"):
        t.gather(1, tessera.tensor([[0, 3]]))
    with pytest.raises(IndexError, match="index -3 is out of bounds for dimension 0 with size 2"):
        t.index_select(0, tessera.tensor([-3]))
    with pytest.raises((TypeError, RuntimeError), match="integer index"):
        t.index_select(0, tessera.tensor([0.0]))
    with pytest.raises((RuntimeError, ValueError), match="same number of dimensions"):
        t.gather(0, tessera.tensor([0, 1]))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "uint8", "bool"])
def test_scatter_and_scatter_add_match_torch(dtype):
    base = sample(dtype, (3, 5), seed=4)
    src = sample(dtype, (3, 5), seed=5)
    index = np.array([[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [1, 1, 1, 1, 1]])  # unique per row for the stores
    perm = np.array([[4, 0, 2, 1, 3], [0, 1, 2, 3, 4], [3, 4, 0, 2, 1]])
    for dim, idx in ((1, perm), (0, index[:, :3] % 3)):
        if dim == 0:
            idx = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1]])
        want = torch.from_numpy(base.copy()).scatter_(dim, torch.from_numpy(idx), torch.from_numpy(src)).numpy()
        same(tessera.from_numpy(base.copy()).scatter_(dim, tessera.from_numpy(idx), tessera.from_numpy(src)), want)
    if dtype != "bool":
        want = torch.from_numpy(base.copy()).scatter_add_(1, torch.from_numpy(index), torch.from_numpy(src)).numpy()
        got = tessera.from_numpy(base.copy()).scatter_add_(1, tessera.from_numpy(index), tessera.from_numpy(src))
        same(got, want)
    else:
        with pytest.raises((TypeError, RuntimeError), match="bool"):
            tessera.from_numpy(base.copy()).scatter_add_(1, tessera.from_numpy(index), tessera.from_numpy(src))


@pytest.mark.parametrize("dtype", DTYPES)
def test_nonzero_matches_numpy(dtype):
    x = sample(dtype, (4, 5, 3), seed=6)
    t = tessera.from_numpy(x)
    same(tessera.nonzero(t), np.argwhere(x))
    same(t[:, ::2].nonzero(), np.argwhere(x[:, ::2]))
    for a, b in zip(t.nonzero(as_tuple=True), np.nonzero(x)):
        same(a, b)


def test_nonzero_special_values_0d_and_empty():
    x = np.array([0.0, -0.0, np.nan, 1e-45, -np.inf, 0.0], dtype=np.float32)
    same(tessera.from_numpy(x).nonzero(), np.argwhere(x))
    big = np.zeros(300_000, dtype=bool)
    big[::7] = True
    same(tessera.from_numpy(big).nonzero(), np.argwhere(big))
    assert tessera.tensor(5).nonzero().shape == (1, 0)
    assert tessera.tensor(0).nonzero().shape == (0, 0)
    assert tessera.zeros((0, 4)).nonzero().shape == (0, 2)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_and_stable_argsort_match_numpy(dtype):
    x = sample(dtype, (6, 40), seed=7)
    t = tessera.from_numpy(x)
    for dim in (1, 0):
        same(tessera.sort(t, dim).values, np.sort(x, axis=dim, kind="stable"))
        same(tessera.argsort(t, dim, stable=True), np.argsort(x, axis=dim, kind="stable"))
        # descending and stable: equal elements keep their order (torch's rule)
        want = torch.sort(torch.from_numpy(x), dim=dim, descending=True, stable=True)
        got = t.sort(dim, descending=True, stable=True)
        same(got.values, want.values.numpy())
        same(got.indices, want.indices.numpy())


def test_sort_special_values_long_lines_0d_and_empty():
    x = np.array([3.0, np.nan, -0.0, 0.0, -np.inf, np.inf, -1.0, np.nan, 0.0, -0.0], dtype=np.float64)
    t = tessera.from_numpy(x)
    values = t.sort().values.numpy()
    np.testing.assert_array_equal(values, np.sort(x))  # NaN last; -0 == 0
    same(t.argsort(stable=True), np.argsort(x, kind="stable"))
    same(t.sort(descending=True, stable=True).indices,
         torch.sort(torch.from_numpy(x), descending=True, stable=True).indices.numpy())
    long = np.random.default_rng(8).standard_normal(200_000).astype(np.float32)
    same(tessera.from_numpy(long).sort().values, np.sort(long))
    ties = np.random.default_rng(9).integers(0, 50, 150_000).astype(np.int32)
    same(tessera.from_numpy(ties).argsort(stable=True), np.argsort(ties, kind="stable"))
    assert tessera.tensor(1.5).sort().values.item() == 1.5
    assert tessera.zeros((3, 0)).sort().values.shape == (3, 0)


@pytest.mark.parametrize("dtype", DTYPES + ["uint16", "uint32", "uint64"])
@pytest.mark.parametrize("n", [2047, 2048, 5001, 140_000])
def test_sort_radix_lines_match_numpy(dtype, n):
    """Lines of 2048 elements and more are radix sorted (cpu_tbb's Note
    [Radix sort]), long ones in parallel chunks; 2047 still compares. Wide
    ranges make every digit pass run; descending ties keep their order."""
    rng = np.random.default_rng(n)
    if dtype == "bool":
        x = rng.integers(0, 2, n).astype(bool)
    elif dtype.startswith("float"):
        x = (rng.standard_normal(n) * 1e3).astype(dtype)
        x[::97], x[::89], x[::83], x[::79] = np.nan, 0.0, -0.0, -np.inf
    else:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, endpoint=True, dtype=dtype)
        x[::5] = x[0]  # ties
    t = tessera.from_numpy(x)
    np.testing.assert_array_equal(t.sort().values.numpy(), np.sort(x))
    same(t.argsort(stable=True), np.argsort(x, kind="stable"))
    # Descending: NaN first, ties in ascending position (torch's stable rule);
    # -0 and +0 are one key for ARGSORT.
    key = np.where(x == 0, 0, x) if dtype.startswith("float") else x
    order = np.lexsort((-np.arange(n), key))[::-1]
    same(t.argsort(descending=True, stable=True), order)
    np.testing.assert_array_equal(t.sort(descending=True).values.numpy(), np.sort(x)[::-1])
    # Lines along dim 0 of a 2-d tensor: strided reads and writes.
    if n == 5001 and dtype not in ("float16", "bool"):
        m = np.stack([x, x[::-1], np.roll(x, 7)], axis=1)
        tm = tessera.from_numpy(m)
        np.testing.assert_array_equal(tm.sort(0).values.numpy(), np.sort(m, axis=0))
        same(tm.argsort(0, stable=True), np.argsort(m, axis=0, kind="stable"))


def test_cat_stack_roll_tril_triu_eye_match_numpy():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(9, dtype=np.int32).reshape(3, 3)
    ta, tb = tessera.from_numpy(a), tessera.from_numpy(b)
    same(tessera.cat([ta, tb], 0), np.concatenate([a, b.astype(np.float32)], 0))  # promoted
    same(tessera.concat((ta, ta.T[:, :2].T), dim=-1), np.concatenate([a, a.T[:, :2].T], -1))
    same(tessera.stack([ta, ta * 2], 1), np.stack([a, a * 2], 1))
    with pytest.raises((RuntimeError, ValueError), match="Sizes of tensors must match"):
        tessera.cat([ta, tb], 1)
    x = np.arange(12).reshape(3, 4)
    tx = tessera.from_numpy(x)
    same(tessera.roll(tx, 1), np.roll(x, 1))
    same(tessera.roll(tx, -5), np.roll(x, -5))
    same(tessera.roll(tx, (1, -2), (0, 1)), np.roll(x, (1, -2), (0, 1)))
    same(tessera.roll(tx.T, 7, 0), np.roll(x.T, 7, 0))
    for k in (-2, -1, 0, 1, 3):
        same(tessera.tril(tx, k), np.tril(x, k))
        same(tessera.triu(tx, k), np.triu(x, k))
    batch = np.arange(24.0).reshape(2, 3, 4)
    same(tessera.triu(tessera.from_numpy(batch), 1), np.triu(batch, 1))
    for n, m, k in ((3, None, 0), (3, 5, 1), (4, 2, -1), (0, 3, 0), (2, 2, 5)):
        same(tessera.eye(n, m, k=k, dtype=tessera.float64), np.eye(n, m, k=k))
    same(tessera.eye(2, dtype=tessera.int32), np.eye(2, dtype=np.int32))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint8", "int32", "int64", "bool"])
def test_unique_matches_numpy(dtype):
    x = sample(dtype, (7, 9), seed=10)
    values, inverse, counts = tessera.unique(tessera.from_numpy(x), return_inverse=True, return_counts=True)
    want_v, want_i, want_c = np.unique(x, return_inverse=True, return_counts=True)
    same(values, want_v)
    same(inverse, want_i.reshape(x.shape))
    same(counts, want_c)
    same(tessera.unique(tessera.from_numpy(x)[:, ::3]), np.unique(x[:, ::3]))


def test_unique_nan_each_distinct_zeros_equal_and_empty():
    x = np.array([np.nan, 1.0, -0.0, np.nan, 0.0, 1.0, np.inf], dtype=np.float64)
    values, counts = tessera.unique(tessera.from_numpy(x), return_counts=True)
    v = values.numpy()
    assert v.shape == (5,) and np.isnan(v[3:]).all()  # the Array API: every NaN its own value
    np.testing.assert_array_equal(v[:3], [0.0, 1.0, np.inf])
    same(counts, np.array([2, 2, 1, 1, 1]))
    assert tessera.unique(tessera.zeros(0)).shape == (0,)
    big = np.random.default_rng(12).integers(0, 1024, 300_000).astype(np.int32)
    same(tessera.unique(tessera.from_numpy(big)), np.unique(big))
