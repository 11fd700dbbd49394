# SPDX-License-Identifier: Apache-2.0
"""tessera.array_api's complex numbers (2022.12) against NumPy 1.24, on the
default device ($TESSERA_ARRAY_API_DEVICE when set, else the CPU). NumPy
1.24's numpy.array_api is 2021.12's and has no complex dtypes, so the
complex results are checked against numpy on complex128 copies of the
inputs, the promotion and isdtype tables against the standard's text, and
numpy.array_api only where it still answers (the real pairs of the table).
Then the refusals: what the standard defines for real dtypes only raises
TypeError naming complex numbers."""
import itertools
import math
import warnings

import numpy as np
import pytest

import tessera
import tessera.array_api as xp

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    import numpy.array_api as npx

REAL = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]
PART = {"complex64": "float32", "complex128": "float64"}
# Relative tolerance of one element against its complex128 reference.
RTOL = {"complex64": 4e-6, "complex128": 2e-14, "float32": 4e-6, "float64": 2e-14}


def rng_complex(shape, name, seed, scale=1.5):
    r = np.random.default_rng(seed)
    return ((r.standard_normal(shape) + 1j * r.standard_normal(shape)) * scale).astype(name)


def npv(a):
    assert isinstance(a, xp.Array), type(a)
    return np.asarray(a)


def close(got, want, dtype, factor=1.0):
    """got's dtype is `dtype` and each element is within RTOL of want's
    magnitude (NaN where want is NaN)."""
    g = npv(got)
    want = np.asarray(want)
    assert got.dtype is getattr(xp, dtype), (got.dtype, dtype)
    assert g.dtype == np.dtype(dtype) and g.shape == want.shape, (g.dtype, g.shape, want.shape)
    g = g.astype(np.complex128)
    w = want.astype(np.complex128)
    nan = np.isnan(w)
    assert (np.isnan(g) == nan).all(), (g, w)
    err = np.abs(g - w)[~nan] / np.maximum(np.abs(w)[~nan], 1e-30)
    assert err.size == 0 or err.max() <= RTOL[dtype] * factor, (err.max(), g[~nan][err.argmax()],
                                                               w[~nan][err.argmax()])


def equal(got, want):
    want = np.asarray(want)
    g = npv(got)
    assert g.dtype == want.dtype and g.shape == want.shape, (g.dtype, want.dtype, g.shape, want.shape)
    np.testing.assert_array_equal(g, want)


# ---- the namespace, dtypes, promotion --------------------------------------------------


def test_version_and_names():
    assert xp.__array_api_version__ == "2025.12"
    assert xp.complex64 is tessera.complex64 and xp.complex128 is tessera.complex128
    for name in ("complex64", "complex128", "real", "imag", "conj", "isdtype", "take"):
        assert name in xp.__all__ and hasattr(xp, name), name
    assert len(xp._ELEMENTWISE) == 67  # 2022.12's 59, and 8 of 2023.12 and 2024.12
    z = xp.asarray([1j])
    assert z.__array_namespace__(api_version="2025.12") is xp
    assert z.__array_namespace__(api_version="2022.12").__array_api_version__ == "2022.12"


# The 2022.12 table's complex entries, written out: (a, b) -> result.
COMPLEX_TABLE = {
    ("complex64", "complex64"): "complex64", ("complex64", "complex128"): "complex128",
    ("complex128", "complex128"): "complex128", ("float32", "complex64"): "complex64",
    ("float32", "complex128"): "complex128", ("float64", "complex64"): "complex128",
    ("float64", "complex128"): "complex128",
}


@pytest.mark.parametrize("a,b", [(a, b) for a, b in itertools.product(REAL + COMPLEX, COMPLEX)])
def test_promotion_with_complex(a, b):
    want = COMPLEX_TABLE.get((a, b)) or COMPLEX_TABLE.get((b, a))
    da, db = getattr(xp, a), getattr(xp, b)
    x, y = xp.ones(3, dtype=da), xp.zeros(3, dtype=db)
    if want is None:  # integers and bool do not mix with complex dtypes
        for f in (lambda: xp.result_type(da, db), lambda: xp.result_type(db, da), lambda: x + y, lambda: y * x,
                  lambda: xp.equal(x, y)):
            with pytest.raises(TypeError):
                f()
        assert not xp.can_cast(da, db) and not xp.can_cast(db, da)
        return
    assert np.result_type(a, b).name == want  # NumPy agrees on these pairs
    assert xp.result_type(da, db) is getattr(xp, want) and xp.result_type(db, da) is getattr(xp, want)
    assert xp.result_type(x, y, db) is getattr(xp, want)
    for r in (x + y, y - x, x * y, xp.divide(y, x), x ** y):
        assert r.dtype is getattr(xp, want)
    r = x == y
    assert r.dtype is xp.bool and npv(r).tolist() == [False] * 3
    assert xp.can_cast(da, db) == (want == b) and xp.can_cast(db, da) == (want == a)


@pytest.mark.parametrize("a,b", list(itertools.product(REAL, REAL)))
def test_real_pairs_still_as_numpy_array_api(a, b):
    try:
        want = str(npx.result_type(getattr(npx, a), getattr(npx, b)))
    except TypeError:
        with pytest.raises(TypeError):
            xp.result_type(getattr(xp, a), getattr(xp, b))
        return
    assert xp.result_type(getattr(xp, a), getattr(xp, b)) is getattr(xp, want)


KINDS = {
    "bool": {"bool"}, "signed integer": {"int8", "int16", "int32", "int64"},
    "unsigned integer": {"uint8", "uint16", "uint32", "uint64"},
    "integral": {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"},
    "real floating": {"float32", "float64"}, "complex floating": {"complex64", "complex128"},
    "numeric": set(REAL + COMPLEX) - {"bool"},
}


@pytest.mark.parametrize("name", REAL + COMPLEX)
def test_isdtype_kinds(name):
    d = getattr(xp, name)
    for kind, members in KINDS.items():
        assert xp.isdtype(d, kind) == (name in members), (name, kind)
    assert xp.isdtype(d, ("complex floating", "real floating")) == (name in KINDS["complex floating"] |
                                                                   KINDS["real floating"])
    assert xp.isdtype(d, xp.complex64) == (name == "complex64")


@pytest.mark.parametrize("name", COMPLEX)
def test_finfo_of_complex_is_its_parts(name):
    f = xp.finfo(getattr(xp, name))
    n = np.finfo(np.dtype(name))  # NumPy's finfo of a complex dtype is its parts' too
    assert f.dtype is getattr(xp, PART[name])
    assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (n.bits, float(n.eps), float(n.max), float(n.min),
                                                               float(n.tiny))
    assert xp.finfo(xp.zeros(1, dtype=getattr(xp, name))).dtype is getattr(xp, PART[name])
    with pytest.raises(TypeError):
        xp.iinfo(getattr(xp, name))


# ---- creation, casts, Python scalars ---------------------------------------------------


def test_default_complex_dtype_and_creation():
    assert xp.asarray(1j).dtype is xp.complex128 and complex(xp.asarray(2 - 1j)) == 2 - 1j
    equal(xp.asarray([1, 2.5, 3j]), np.array([1, 2.5, 3j]))
    equal(xp.asarray([[1j, 2], [3.5, -4j]], dtype=xp.complex64), np.array([[1j, 2], [3.5, -4j]], np.complex64))
    equal(xp.asarray(np.array([1 + 1j, -2j], dtype=np.complex64)), np.array([1 + 1j, -2j], np.complex64))
    equal(xp.asarray([xp.asarray(1.5, dtype=xp.float32), 2j]), np.array([1.5, 2j], np.complex64))
    equal(xp.full((2,), 1 - 1j), np.full(2, 1 - 1j))
    equal(xp.full((2,), 1.5, dtype=xp.complex64), np.full(2, 1.5, np.complex64))
    with np.errstate(over="ignore"):
        equal(xp.full((1,), 1e300 + 1j, dtype=xp.complex64), np.array([1e300 + 1j]).astype(np.complex64))
    for fn, ref in ((xp.zeros, np.zeros), (xp.ones, np.ones)):
        for name in COMPLEX:
            equal(fn((2, 3), dtype=getattr(xp, name)), ref((2, 3), dtype=name))
    equal(xp.eye(3, k=1, dtype=xp.complex64), np.eye(3, k=1, dtype=np.complex64))
    equal(xp.zeros_like(xp.asarray([1j, 2j])), np.zeros(2, np.complex128))
    close(xp.linspace(1 - 2j, 3 + 1j, 7), np.linspace(1 - 2j, 3 + 1j, 7), "complex128")
    close(xp.linspace(0, 2j, 4, endpoint=False, dtype=xp.complex64), np.linspace(0, 2j, 4, endpoint=False),
          "complex64")
    close(xp.linspace(0.0, 1.0, 3, dtype=xp.complex64), np.linspace(0, 1, 3), "complex64")
    for bad in (lambda: xp.asarray(1j, dtype=xp.float64), lambda: xp.asarray([1j], dtype=xp.int64),
                lambda: xp.full((2,), 1j, dtype=xp.float64), lambda: xp.linspace(0, 1j, 3, dtype=xp.float64),
                lambda: xp.asarray(xp.asarray([1j]), dtype=xp.float32)):
        with pytest.raises(TypeError, match="complex"):
            bad()


@pytest.mark.parametrize("src", COMPLEX)
def test_astype(src):
    a = np.array([1.5 + 2j, -2.25 - 1j, 0j, 1j, 3 + 0j, np.nan + 0j], dtype=src)
    x = xp.asarray(a)
    for dst in COMPLEX:
        equal(xp.astype(x, getattr(xp, dst)), a.astype(dst))
    equal(xp.astype(x, xp.bool), a != 0)  # 0 + 0j is False, all else (NaN too) True
    assert xp.astype(x, x.dtype, copy=False) is x
    for dst in REAL[1:]:
        with pytest.raises(TypeError, match="imaginary"):
            xp.astype(x, getattr(xp, dst))
    for dst in ("bool", "int8", "uint64", "float32", "float64"):
        r = np.array([0, 1, 5], dtype=dst)
        equal(xp.astype(xp.asarray(r), getattr(xp, src)), r.astype(src))


@pytest.mark.parametrize("name", COMPLEX)
def test_python_scalars_beside_complex_arrays(name):
    a = rng_complex((5,), name, 1)
    ref = a.astype(np.complex128)
    x = xp.asarray(a)
    close(x + 2, ref + 2, name)
    close(x * 1.5, ref * 1.5, name)
    close(x - (1 - 2j), ref - (1 - 2j), name)
    close((0.5 + 1j) / x, (0.5 + 1j) / ref, name, 4)
    close(x ** 2j, ref ** 2j, name, 64)
    equal(x == complex(a[2]), a == a[2])
    y = xp.asarray(a)
    y *= 1j
    y += 1
    close(y, ref * 1j + 1, name)
    y[1] = 7 - 7j
    y[xp.asarray([True, False, False, False, True])] = 2.5
    assert npv(y)[1] == 7 - 7j and npv(y)[0] == 2.5 and npv(y)[4] == 2.5
    for real in ("float32", "float64", "int32", "bool"):
        r = xp.ones(2, dtype=getattr(xp, real))
        with pytest.raises(TypeError):
            r + 1j
        with pytest.raises(TypeError):
            r[0] = 1j
    f = xp.ones(5, dtype=xp.float64)
    with pytest.raises(TypeError):
        f += x  # the result would be complex
    with pytest.raises(TypeError, match="imaginary"):
        f[...] = x
    assert bool(xp.asarray(1j, dtype=getattr(xp, name))) and not bool(xp.asarray(0j))
    for conv in (int, float):
        with pytest.raises(TypeError, match="complex"):
            conv(xp.asarray(1 + 0j))


# ---- elementwise functions ------------------------------------------------------------


def _sign(z):
    with np.errstate(all="ignore"):
        return np.where(z == 0, 0, z / np.abs(z))


# name -> (NumPy reference, result dtype kind: "same", "real" or "bool", tolerance factor)
UNARY = {
    "abs": (np.abs, "real", 2), "acos": (np.arccos, "same", 16), "acosh": (np.arccosh, "same", 16),
    "asin": (np.arcsin, "same", 16), "asinh": (np.arcsinh, "same", 16), "atan": (np.arctan, "same", 16),
    "atanh": (np.arctanh, "same", 16), "conj": (np.conj, "same", 0), "cos": (np.cos, "same", 16),
    "cosh": (np.cosh, "same", 16), "exp": (np.exp, "same", 16), "expm1": (np.expm1, "same", 16),
    "imag": (np.imag, "real", 0), "log": (np.log, "same", 16), "log1p": (np.log1p, "same", 16),
    "log2": (np.log2, "same", 16), "log10": (np.log10, "same", 16), "negative": (np.negative, "same", 0),
    "positive": (np.positive, "same", 0), "real": (np.real, "real", 0), "round": (np.round, "same", 0),
    "sign": (_sign, "same", 4), "sin": (np.sin, "same", 16), "sinh": (np.sinh, "same", 16),
    "sqrt": (np.sqrt, "same", 4), "square": (np.square, "same", 4), "tan": (np.tan, "same", 16),
    "tanh": (np.tanh, "same", 16), "isfinite": (np.isfinite, "bool", 0), "isinf": (np.isinf, "bool", 0),
    "isnan": (np.isnan, "bool", 0),
}


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("fn", sorted(UNARY))
def test_unary_vs_numpy(fn, name):
    a = rng_complex((4, 16), name, 2)
    ref_fn, kind, factor = UNARY[fn]
    want = ref_fn(a.astype(np.complex128))
    got = getattr(xp, fn)(xp.asarray(a))
    if kind == "bool":
        equal(got, want)
    elif factor == 0:  # exact: parts, signs, rounding
        want = np.asarray(want).astype(name if kind == "same" else PART[name])
        equal(got, want)
    else:
        close(got, want, name if kind == "same" else PART[name], factor)


def test_nan_and_inf_tests_read_both_parts():
    nan, inf = math.nan, math.inf
    values = [complex(nan, 0), complex(0, nan), complex(inf, 0), complex(0, -inf), complex(inf, nan),
              complex(nan, -inf), complex(1, 1), 0j, complex(-0.0, 1e300)]
    for name in COMPLEX:
        a = np.empty(len(values), dtype=name)
        with np.errstate(over="ignore"):
            a.real = [v.real for v in values]  # part by part: NaN * 1j would spoil the other part
            a.imag = [v.imag for v in values]
        re, im = a.real, a.imag
        x = xp.asarray(a)
        equal(xp.isnan(x), np.isnan(re) | np.isnan(im))
        equal(xp.isinf(x), np.isinf(re) | np.isinf(im))
        equal(xp.isfinite(x), np.isfinite(re) & np.isfinite(im))
        assert npv(xp.isinf(x)).tolist() == [False, False, True, True, True, True, False, False,
                                             name == "complex64"]  # 1e300 overflows float32


def test_abs_operator_and_real_imag_conj():
    a = rng_complex((3, 4), "complex64", 3)
    x = xp.asarray(a)
    close(abs(x), np.abs(a.astype(np.complex128)), "float32", 2)
    equal(xp.real(x), a.real)
    equal(xp.imag(x[:, 1:3]), a[:, 1:3].imag)
    equal(xp.conj(x), np.conj(a))
    equal(xp.real(xp.conj(x)), a.real)
    equal(xp.imag(xp.conj(x)), -a.imag)
    t = tessera.from_numpy(a.copy())  # Tensors go through the namespace too
    equal(xp.imag(t), a.imag)
    for fn in (xp.real, xp.imag):  # 2022.12 gives them complex dtypes only
        with pytest.raises(TypeError):
            fn(xp.ones(2))
    equal(xp.conj(xp.ones(2)), np.ones(2))  # conj takes real arrays too (2024.12, NumPy, PyTorch)


BINARY = {"add": (np.add, 2), "subtract": (np.subtract, 2), "multiply": (np.multiply, 4),
          "divide": (np.divide, 8), "pow": (np.power, 64)}


@pytest.mark.parametrize("left,right", [("complex64", "complex64"), ("complex128", "complex128"),
                                        ("complex64", "complex128"), ("float32", "complex64"),
                                        ("complex64", "float64"), ("float64", "complex128")])
@pytest.mark.parametrize("fn", sorted(BINARY) + ["equal", "not_equal"])
def test_binary_vs_numpy(fn, left, right):
    a = rng_complex((4, 5), left, 4) if left in COMPLEX else \
        np.random.default_rng(4).standard_normal((4, 5)).astype(left)
    b = rng_complex((5,), right, 5) if right in COMPLEX else \
        np.random.default_rng(5).standard_normal(5).astype(right)  # broadcasts
    out = COMPLEX_TABLE.get((left, right)) or COMPLEX_TABLE[(right, left)]
    if left == right:
        b[:2] = a[1, :2]  # pairs equal in row 1 for equal and not_equal to find
    x, y = xp.asarray(a), xp.asarray(b)
    ra, rb = a.astype(np.complex128), b.astype(np.complex128)
    if fn in ("equal", "not_equal"):
        want = getattr(np, fn)(a.astype(out), b.astype(out))
        equal(getattr(xp, fn)(x, y), want)
        assert left != right or (want.any() and not want.all())  # both answers occur
        return
    ref, factor = BINARY[fn]
    close(getattr(xp, fn)(x, y), ref(ra, rb), out, factor)
    op = {"add": "__add__", "subtract": "__sub__", "multiply": "__mul__", "divide": "__truediv__",
          "pow": "__pow__"}[fn]
    close(getattr(x, op)(y), ref(ra, rb), out, factor)


def test_pow_and_division_edge_values():
    z = xp.asarray([0j, 2 + 1j, 1j], dtype=xp.complex128)
    equal(z ** 0, np.array([1 + 0j, 1 + 0j, 1 + 0j]))
    close(xp.pow(z, xp.asarray(2 + 0j)), np.array([0j, 3 + 4j, -1 + 0j]), "complex128")  # cpow, not exact
    equal(z / 2, np.array([0j, 1 + 0.5j, 0.5j]))


# Functions the standard gives real dtypes only: (function, arguments).
REFUSED = [
    ("ceil", 1), ("floor", 1), ("trunc", 1), ("atan2", 2), ("logaddexp", 2), ("floor_divide", 2),
    ("remainder", 2), ("less", 2), ("less_equal", 2), ("greater", 2), ("greater_equal", 2),
    ("bitwise_and", 2), ("bitwise_or", 2), ("bitwise_xor", 2), ("bitwise_invert", 1),
    ("bitwise_left_shift", 2), ("bitwise_right_shift", 2), ("logical_not", 1),
]


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("fn,n", REFUSED)
def test_real_only_elementwise_refuse_complex(fn, n, name):
    z = xp.asarray([1 + 1j, 2 - 1j], dtype=getattr(xp, name))
    with pytest.raises(TypeError, match="complex"):
        getattr(xp, fn)(*[z] * n)
    if n == 2:  # a complex beside a real array the function takes, either side
        r = xp.asarray([1, 2], dtype=xp.int8) if fn.startswith("bitwise") else \
            xp.asarray([1.0, 2.0], dtype=getattr(xp, PART[name]))
        with pytest.raises(TypeError, match="complex"):
            getattr(xp, fn)(r, z)
        with pytest.raises(TypeError, match="complex"):
            getattr(xp, fn)(z, r)


def test_real_only_operators_refuse_complex():
    z = xp.asarray([1 + 1j, 2 - 1j])
    for op in ("__lt__", "__le__", "__gt__", "__ge__", "__floordiv__", "__mod__", "__and__", "__lshift__"):
        with pytest.raises(TypeError, match="complex"):
            getattr(z, op)(z)
    with pytest.raises(TypeError, match="complex"):
        z < 1.0
    with pytest.raises(TypeError, match="complex"):
        ~z


# ---- reductions, searching, sorting ----------------------------------------------------


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("axis", [None, 0, -1, (0, 2), ()])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sum_prod_mean_vs_numpy(name, axis, keepdims):
    a = rng_complex((3, 4, 5), name, 6, scale=0.7)
    ref = a.astype(np.complex128)
    x = xp.asarray(a)
    kw = dict(axis=axis, keepdims=keepdims)
    old = x.__array_namespace__(api_version="2022.12")
    close(old.sum(x, **kw), np.sum(ref, **kw), "complex128", 16)  # 2022.12: the default complex dtype
    close(old.prod(x, **kw), np.prod(ref, **kw), "complex128", 64)
    close(xp.sum(x, **kw), np.sum(ref, **kw).astype(name), name, 16)  # 2023.12 on: x's dtype
    close(xp.prod(x, **kw), np.prod(ref, **kw).astype(name), name, 64)
    close(xp.mean(x, **kw), np.mean(ref, **kw).astype(name), name, 16)
    close(xp.sum(x, dtype=getattr(xp, name), **kw), np.sum(ref, **kw).astype(name), name, 16)
    with pytest.raises(TypeError, match="imaginary"):
        xp.sum(x, dtype=getattr(xp, PART[name]), **kw)


@pytest.mark.parametrize("name", COMPLEX)
def test_reductions_without_an_order_refuse_complex(name):
    z = xp.asarray(rng_complex((2, 3), name, 7))
    for fn in (xp.max, xp.min, xp.argmax, xp.argmin, xp.sort, xp.argsort, xp.std, xp.var):
        with pytest.raises(TypeError, match="complex"):
            fn(z)
    with pytest.raises(TypeError, match="complex"):
        xp.argmax(z, axis=1)


def test_utility_searching_and_indexing_on_complex():
    a = np.array([[0j, 1j, 2], [3 - 1j, 0, np.nan + 0j]], dtype=np.complex64)
    x = xp.asarray(a)
    equal(xp.any(x, axis=1), np.any(a, axis=1))
    equal(xp.all(x, axis=0), np.all(a, axis=0))
    for g, w in zip(xp.nonzero(x), np.nonzero(a)):
        equal(g, w)
    c = np.array([[True, False, True], [False, True, False]])
    equal(xp.where(xp.asarray(c), x, xp.asarray(np.full((2, 3), 9j))), np.where(c, a, np.full((2, 3), 9j)))
    equal(xp.take(x, xp.asarray([2, 0]), axis=1), np.take(a, [2, 0], axis=1))
    equal(x[:, ::-1], a[:, ::-1])
    equal(x[xp.asarray(c)], a[c])
    equal(xp.concat([x, xp.asarray(a.real.astype(np.float64))], axis=0),
          np.concatenate([a.astype(np.complex128), a.real.astype(np.complex128)]))
    equal(xp.stack([x, x]), np.stack([a, a]))
    equal(xp.flip(x, axis=1), np.flip(a, axis=1))
    equal(xp.reshape(x, (3, 2)), a.reshape(3, 2))


@pytest.mark.parametrize("name", COMPLEX)
def test_unique_of_complex_as_numpy(name):
    a = np.array([[2 + 1j, 1j, 2 + 1j, -0.0], [1j, -1 + 5j, 2 - 1j, 0j], [0j, 2 + 1j, -1 + 5j, 2 - 1j]], dtype=name)
    want = np.unique(a, return_index=True, return_inverse=True, return_counts=True)  # (real, imag) order
    got = xp.unique_all(xp.asarray(a))
    equal(got.values, want[0])
    equal(got.indices, want[1])
    equal(got.inverse_indices, want[2].reshape(a.shape))
    equal(got.counts, want[3])
    equal(xp.unique_values(xp.asarray(a)), want[0])
    equal(xp.unique_counts(xp.asarray(a)).counts, want[3])
    equal(xp.unique_inverse(xp.asarray(a)).inverse_indices, want[2].reshape(a.shape))
    n = xp.unique_counts(xp.asarray([complex(math.nan, 1), complex(math.nan, 1), 1j, complex(1, math.nan)],
                                    dtype=getattr(xp, name)))
    assert np.isnan(npv(n.values)).sum() == 3 and npv(n.counts).tolist() == [1, 1, 1, 1]  # NaNs all distinct
    e = xp.unique_all(xp.zeros((0, 2), dtype=getattr(xp, name)))
    assert e.values.shape == (0,) and e.inverse_indices.shape == (0, 2) and e.counts.shape == (0,)


# ---- linear algebra ------------------------------------------------------------------


@pytest.mark.parametrize("name", COMPLEX)
def test_vecdot_conjugates_x1(name):
    a, b = rng_complex((3, 6), name, 8), rng_complex((6,), name, 9)
    ra, rb = a.astype(np.complex128), b.astype(np.complex128)
    want = np.sum(np.conj(ra) * rb, axis=-1)
    assert np.abs(want - np.sum(ra * rb, axis=-1)).min() > 1e-3  # without the conjugate the test fails
    for fn in (xp.vecdot, xp.linalg.vecdot):
        close(fn(xp.asarray(a), xp.asarray(b)), want, name, 32)
    close(xp.vecdot(xp.asarray(a), xp.asarray(a), axis=0), np.sum(np.conj(ra) * ra, axis=0), name, 32)
    n = xp.vecdot(xp.asarray(b), xp.asarray(b))  # <b, b> = |b|^2: real and positive
    assert abs(complex(n).imag) <= RTOL[name] * 16 * abs(complex(n))
    assert complex(n).real == pytest.approx(float(np.sum(np.abs(rb) ** 2)), rel=RTOL[name] * 16)
    # a real x1 beside a complex x2: nothing to conjugate, the result complex
    r = np.random.default_rng(10).standard_normal(6)
    close(xp.vecdot(xp.asarray(r), xp.asarray(b)), np.sum(r * rb), COMPLEX_TABLE[("float64", name)], 32)


@pytest.mark.parametrize("name", COMPLEX)
def test_linalg_on_complex_vs_numpy(name):
    a, b = rng_complex((2, 3, 4), name, 11), rng_complex((4, 5), name, 12)
    ra, rb = a.astype(np.complex128), b.astype(np.complex128)
    x, y = xp.asarray(a), xp.asarray(b)
    close(xp.matmul(x, y), ra @ rb, name, 64)
    close(x @ y, ra @ rb, name, 64)
    close(xp.tensordot(x, y, axes=1), np.tensordot(ra, rb, axes=1), name, 64)
    close(xp.tensordot(x, x, axes=((0, 1), (0, 1))), np.tensordot(ra, ra, axes=((0, 1), (0, 1))), name, 64)
    equal(xp.matrix_transpose(x), np.swapaxes(a, -1, -2))
    equal(xp.linalg.matrix_transpose(x), np.swapaxes(a, -1, -2))
    equal(xp.linalg.diagonal(x, offset=1), np.diagonal(a, offset=1, axis1=-2, axis2=-1))
    close(xp.linalg.trace(x), np.trace(ra, axis1=-2, axis2=-1), name, 16)  # 2023.12 on: x's dtype
    close(x.__array_namespace__(api_version="2022.12").linalg.trace(x), np.trace(ra, axis1=-2, axis2=-1),
          "complex128", 16)  # 2022.12: the default complex dtype
    close(xp.linalg.trace(x, dtype=getattr(xp, name)), np.trace(ra, axis1=-2, axis2=-1), name, 16)
    close(xp.linalg.outer(x[0, 0], y[:, 0]), np.outer(ra[0, 0], rb[:, 0]), name, 4)
    u, v = rng_complex((2, 3), name, 13), rng_complex((3,), name, 14)
    close(xp.linalg.cross(xp.asarray(u), xp.asarray(v)), np.cross(u.astype(np.complex128), v.astype(np.complex128)),
          name, 64)
    mag = np.abs(ra)
    for ord in (2, 1, 3, math.inf, -math.inf, 0):
        got = xp.linalg.vector_norm(x, axis=(0, -1), keepdims=True, ord=ord)
        if ord == math.inf:
            want = mag.max(axis=(0, 2), keepdims=True)
        elif ord == -math.inf:
            want = mag.min(axis=(0, 2), keepdims=True)
        elif ord == 0:
            want = (mag != 0).sum(axis=(0, 2), keepdims=True).astype(np.float64)
        else:
            want = (mag ** ord).sum(axis=(0, 2), keepdims=True) ** (1.0 / ord)
        close(got, want, PART[name], 32)  # the real dtype


@pytest.mark.parametrize("fn", ["cholesky", "det", "eigh", "eigvalsh", "inv", "matrix_norm", "pinv", "qr",
                                "slogdet", "svd", "svdvals", "matrix_rank"])
def test_linalg_factorisations_take_complex(fn):
    """2022.12 gives them complex input (test_linalg_complex.py checks the
    values); here each one runs, and keeps the real results real."""
    z = xp.asarray(np.eye(3) * (2 + 1j), dtype=xp.complex64)
    got = getattr(xp.linalg, fn)(z)
    first = got[0] if isinstance(got, tuple) else got
    real_first = fn in ("eigh", "eigvalsh", "matrix_norm", "svdvals")
    want = xp.int64 if fn == "matrix_rank" else xp.float32 if real_first else xp.complex64
    assert first.dtype is want


def test_linalg_tolerances_stay_real():
    z = xp.asarray(np.eye(2) * (1 + 1j))
    with pytest.raises(TypeError):
        xp.linalg.matrix_rank(z, rtol=xp.asarray(1j))
    with pytest.raises(TypeError):
        xp.linalg.pinv(z, rtol=xp.asarray([1j]))
    assert np.asarray(xp.linalg.matrix_rank(z, rtol=xp.asarray(0.5))).item() == 2
