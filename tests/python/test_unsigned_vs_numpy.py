# SPDX-License-Identifier: Apache-2.0
"""uint16, uint32 and uint64 (ABI 1.5) against NumPy 1.24, which has them
where PyTorch 1.13 does not: promotion (Note [Unsigned promotion]), every op
that takes integers with values at the top of the range (above 2^63 for
uint64) and wrap-around, casts to and from every dtype NumPy shares, SUM's
uint64 result, and the binding's interop: .numpy(), from_numpy, DLPack,
tolist, item, Python ints from 2^63 on, reprs."""
import itertools

import numpy as np
import pytest

import tessera

NEW = ["uint16", "uint32", "uint64"]
# The dtypes NumPy and Tessera share (no bfloat16 in NumPy).
SHARED = ["float32", "float64", "float16", "int8", "uint8", "int16", "int32", "int64", "bool"] + NEW


def t_of(a):
    """A tessera copy of the NumPy array a."""
    return tessera.tensor(a)


def top_values(name):
    """Values of an unsigned dtype that exercise its top bit and its ends."""
    bits = np.dtype(name).itemsize * 8
    top = 2 ** bits - 1
    return np.array([0, 1, 2, 3, 5, 2 ** (bits - 1), 2 ** (bits - 1) + 1, top - 2, top - 1, top, 1000, 7], dtype=name)


def check_equal(got, want):
    assert got.dtype is getattr(tessera, want.dtype.name), (got.dtype, want.dtype)
    assert tuple(got.shape) == want.shape
    g = got.numpy()
    if want.dtype.kind == "f":
        np.testing.assert_array_equal(g, want)  # exact: same IEEE operations or one rounding
    else:
        assert g.tolist() == want.tolist()


def test_the_dtypes():
    for code, name in zip((10, 11, 12), NEW):
        d = getattr(tessera, name)
        assert d._code == code and repr(d) == "tessera." + name
        assert d.itemsize == np.dtype(name).itemsize and not d.is_signed and not d.is_floating_point
        assert eval(repr(d), {"tessera": tessera}) is d


@pytest.mark.parametrize("a,b", [(a, b) for a in SHARED for b in SHARED if a in NEW or b in NEW])
def test_promote_types_is_numpys(a, b):
    assert tessera.promote_types(getattr(tessera, a), getattr(tessera, b)) is \
        getattr(tessera, str(np.promote_types(a, b)))


def test_bfloat16_promotes_as_float16_with_the_new_dtypes():
    for name, want in (("uint16", tessera.float32), ("uint32", tessera.float64), ("uint64", tessera.float64)):
        assert tessera.promote_types(getattr(tessera, name), tessera.bfloat16) is want


ARITH = {"+": np.add, "-": np.subtract, "*": np.multiply, "maximum": np.maximum, "minimum": np.minimum}
COMPARE = {"==": np.equal, "!=": np.not_equal, "<": np.less, "<=": np.less_equal, ">": np.greater,
           ">=": np.greater_equal}
TESSERA_OPS = {"+": lambda x, y: x + y, "-": lambda x, y: x - y, "*": lambda x, y: x * y,
               "maximum": tessera.maximum, "minimum": tessera.minimum, "==": tessera.eq, "!=": tessera.ne,
               "<": tessera.lt, "<=": tessera.le, ">": tessera.gt, ">=": tessera.ge}


@pytest.mark.parametrize("name", NEW)
@pytest.mark.parametrize("op", list(ARITH) + list(COMPARE))
def test_binary_ops_wrap_as_numpy(name, op):
    a = top_values(name)
    b = np.roll(a, 3)
    with np.errstate(over="ignore"):
        want = {**ARITH, **COMPARE}[op](a, b)
    check_equal(TESSERA_OPS[op](t_of(a), t_of(b)), want)
    # Broadcast against a column of the same values.
    with np.errstate(over="ignore"):
        want = {**ARITH, **COMPARE}[op](a[:4, None], b[None, :])
    check_equal(TESSERA_OPS[op](t_of(a[:4, None]), t_of(b[None, :])), want)


@pytest.mark.parametrize("name", NEW)
def test_pow_neg_abs_relu(name):
    a = top_values(name)
    e = np.array([0, 1, 2, 3, 5, 7, 63, 64, 2, 3, 1, 0], dtype=name)
    check_equal(t_of(a) ** t_of(e), np.power(a, e))
    check_equal(-t_of(a), np.negative(a))  # wraps modulo 2^bits, as NumPy
    check_equal(t_of(a).abs(), a)
    check_equal(t_of(a).relu(), a)
    # Division and the float unary ops compute in float32, the default dtype.
    q = t_of(a[1:]) / t_of(a[1:])
    assert q.dtype is tessera.float32 and np.all(q.numpy() == 1)
    assert tessera.sqrt(t_of(a)).dtype is tessera.float32


@pytest.mark.parametrize("name", NEW)
def test_reductions(name):
    a = top_values(name).reshape(3, 4)
    with np.errstate(over="ignore"):
        for dim in (None, 0, 1):
            s = t_of(a).sum() if dim is None else t_of(a).sum(dim)
            want = np.sum(a, axis=dim)  # uint64 for every unsigned dtype, as the Array API says
            assert want.dtype == np.uint64
            check_equal(s, np.asarray(want))
    check_equal(t_of(a).max(), np.asarray(a.max()))
    check_equal(t_of(a).min(), np.asarray(a.min()))
    assert t_of(a).argmax().item() == int(np.argmax(a))
    assert t_of(a).argmax(1).tolist() == np.argmax(a, axis=1).tolist()
    values, indices = t_of(a).max(0)
    assert values.tolist() == a.max(0).tolist() and indices.tolist() == np.argmax(a, axis=0).tolist()
    values, indices = t_of(a).min(1)
    assert values.tolist() == a.min(1).tolist() and indices.tolist() == np.argmin(a, axis=1).tolist()
    assert t_of(a).argmin().item() == int(np.argmin(a))


@pytest.mark.parametrize("name", NEW)
def test_matmul_wraps_as_numpy(name):
    rng = np.random.default_rng(7)
    top = np.iinfo(name).max
    a = rng.integers(0, top, size=(2, 3, 5), dtype=name, endpoint=True)
    b = rng.integers(0, top, size=(5, 4), dtype=name, endpoint=True)
    with np.errstate(over="ignore"):
        check_equal(tessera.matmul(t_of(a), t_of(b)), np.matmul(a, b))


@pytest.mark.parametrize("name", NEW)
def test_where_fill_arange(name):
    a = top_values(name)
    cond = np.arange(a.size) % 3 == 0
    check_equal(tessera.where(t_of(cond), t_of(a), t_of(np.roll(a, 1))), np.where(cond, a, np.roll(a, 1)))
    top = int(np.iinfo(name).max)
    check_equal(tessera.full((2,), top, dtype=getattr(tessera, name)), np.full(2, top, dtype=name))
    x = tessera.zeros(3, dtype=getattr(tessera, name))
    x.fill_(top)
    x[1] = top - 1
    assert x.tolist() == [top, top - 1, top]
    with pytest.raises(RuntimeError, match="[Oo]verflow"):
        x.fill_(top + 1)
    check_equal(tessera.arange(2, 11, 3, dtype=getattr(tessera, name)), np.arange(2, 11, 3, dtype=name))


@pytest.mark.parametrize("src,dst", [(s, d) for s in SHARED for d in SHARED if s in NEW or d in NEW])
def test_casts_match_numpy(src, dst):
    if np.dtype(src).kind == "f":
        # NumPy's float -> unsigned is what x86-64 does only inside the range: truncation toward zero.
        hi = 60000 if src == "float16" else (2 ** 24 if src == "float32" else 2 ** 53)
        hi = min(hi, np.iinfo(dst).max) if np.dtype(dst).kind in "iu" else hi
        a = np.array([0, 0.5, 1.9, 2.5, 7.99, 255.5, hi, hi - 0.75, 1000.25], dtype=src)
        if np.dtype(dst).kind == "i":
            a = np.concatenate([a, -a])
    elif src == "bool":
        a = np.array([True, False, True])
    else:
        a = top_values(src) if src in NEW else np.array(
            [int(np.iinfo(src).min) + k for k in range(5)] + [int(np.iinfo(src).max), 0, 1, 127, 128, 255, 256],
            dtype=np.int64).astype(src)  # astype wraps 128, 255, 256 into int8 without a warning
    with np.errstate(over="ignore", invalid="ignore"):
        want = a.astype(dst)
    got = t_of(a).to(getattr(tessera, dst))
    check_equal(got, want)


def test_casts_the_note_defines():
    """Note [Casts]: what NumPy leaves to the platform, written out."""
    f = tessera.tensor([-1.5, 65536.0, 70000.5, 2.0 ** 63 + 2048, 2.0 ** 64 - 2048, 2.0 ** 64, float("nan"),
                        float("inf"), float("-inf"), -2.0 ** 63], dtype=tessera.float64)
    assert f.to(tessera.uint64).tolist() == [2 ** 64 - 1, 65536, 70000, 2 ** 63 + 2048, 2 ** 64 - 2048, 0,
                                             2 ** 63, 0, 2 ** 63, 2 ** 63]
    assert f.to(tessera.uint16).tolist() == [65535, 0, 4464, 0, 0, 0, 0, 0, 0, 0]
    assert f.to(tessera.uint32).tolist() == [2 ** 32 - 1, 65536, 70000, 0, 0, 0, 0, 0, 0, 0]
    # uint64 -> float32 rounds once from the unsigned value (through a double it would tie down to 2^63).
    u = tessera.tensor([2 ** 63 + 2 ** 39 + 1, 2 ** 64 - 1], dtype=tessera.uint64)
    want = np.array([2 ** 63 + 2 ** 39 + 1, 2 ** 64 - 1], dtype=np.uint64).astype(np.float32)
    assert u.to(tessera.float32).tolist() == want.tolist() == [2.0 ** 63 + 2.0 ** 40, 2.0 ** 64]


def test_mixed_promotion_values():
    u64 = np.array([2 ** 64 - 1, 2 ** 63, 5], dtype=np.uint64)
    i64 = np.array([-1, 1, -7], dtype=np.int64)
    check_equal(t_of(u64) + t_of(i64), u64 + i64)  # float64, as NumPy
    u32 = np.array([2 ** 32 - 1, 0, 9], dtype=np.uint32)
    i32 = np.array([-1, -2 ** 31, 7], dtype=np.int32)
    check_equal(t_of(u32) * t_of(i32), u32.astype(np.int64) * i32)  # int64
    u16 = np.array([65535, 1, 300], dtype=np.uint16)
    i8 = np.array([-128, 127, -1], dtype=np.int8)
    check_equal(t_of(u16) - t_of(i8), u16 - i8)  # int32
    # Python numbers keep PyTorch's category rule: an int keeps the dtype (and wraps), a float gives float32.
    r = t_of(u64) + 1
    assert r.dtype is tessera.uint64 and r.tolist() == [0, 2 ** 63 + 1, 6]
    assert (t_of(u32) * 1.5).dtype is tessera.float32
    assert (t_of(u16) < 300).tolist() == [False, True, False]


@pytest.mark.parametrize("name", NEW)
def test_numpy_dlpack_and_python_values(name):
    a = top_values(name).reshape(3, 4)
    t = tessera.from_numpy(a)  # shares memory
    assert t.dtype is getattr(tessera, name) and t.untyped_storage().data_ptr() == a.__array_interface__["data"][0]
    assert t.tolist() == a.tolist()
    back = t.numpy()
    assert back.dtype == a.dtype and np.shares_memory(back, a)
    d = np.from_dlpack(t[:, 1::2])
    assert d.dtype == a.dtype and d.tolist() == a[:, 1::2].tolist()
    assert tessera.from_dlpack(a).tolist() == a.tolist()
    top = int(np.iinfo(name).max)
    assert tessera.tensor(a)[2, 1].item() == top and int(tessera.tensor(a)[2, 1]) == top
    assert tessera.tensor([top, 0], dtype=getattr(tessera, name)).tolist() == [top, 0]


def test_uint64_python_ints_and_reprs():
    x = tessera.tensor([0, 2 ** 64 - 1, 2 ** 63], dtype=tessera.uint64)
    assert x.tolist() == [0, 2 ** 64 - 1, 2 ** 63]
    assert x[1].item() == 2 ** 64 - 1
    # PyTorch's layout: the suffix goes on its own line when the first would pass 80 columns.
    assert repr(x) == ("tensor([                   0, 18446744073709551615,  9223372036854775808],\n"
                       "       dtype=tessera.uint64)")
    assert repr(tessera.tensor([1, 2], dtype=tessera.uint16)) == "tensor([1, 2], dtype=tessera.uint16)"
    with pytest.raises(RuntimeError, match="Overflow"):
        tessera.tensor([2 ** 64])
    with pytest.raises(RuntimeError, match="Overflow"):
        tessera.tensor([2 ** 63])  # int64 inferred: as PyTorch
    with pytest.raises(RuntimeError, match="Overflow"):
        tessera.zeros(2, dtype=tessera.int64).fill_(2 ** 63)
    # Beside a uint64 tensor a Python int from 2^63 on is exact (as the tensor's dtype), elsewhere it overflows.
    assert (x == 2 ** 64 - 1).tolist() == [False, True, False]
    assert (2 ** 63 + x).tolist() == [2 ** 63, 2 ** 63 - 1, 0]
    with pytest.raises(RuntimeError, match="Overflow"):
        tessera.zeros(2, dtype=tessera.int64) + 2 ** 63
    tessera.testing.assert_close(x, tessera.tensor([0, 2 ** 64 - 1, 2 ** 63], dtype=tessera.uint64))
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 3"):
        tessera.testing.assert_close(x, tessera.tensor([0, 2 ** 64 - 2, 2 ** 63], dtype=tessera.uint64))


def test_every_pair_of_new_and_old_dtypes_adds():
    """result dtype and values of a + b for tensors of every pair with a new dtype, against NumPy."""
    for a_name, b_name in itertools.product(SHARED, NEW):
        a = np.array([0, 1, 3, 100], dtype=a_name)
        b = np.array([5, 0, 7, 27], dtype=b_name)
        want = np.add(a, b) if a_name != "bool" else np.add(a.astype(b_name), b)
        check_equal(t_of(a) + t_of(b), want)
        check_equal(t_of(b) + t_of(a), want)
