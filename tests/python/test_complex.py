# SPDX-License-Identifier: Apache-2.0
"""complex64 and complex128 (ABI 1.7, Note [Complex dtypes] in tessera/ops.h)
against NumPy 1.24 and PyTorch 1.13: promotion, casts, the arithmetic and
the elementwise functions (finite values against NumPy; special values
against the Array API 2022.12's stated results), reductions, matmul
(cgemm / zgemm), printing (torch's repr), item and tolist, the real and
imaginary parts as views, NumPy and DLPack interop, and the refusals of the
ops complex numbers do not have."""
import cmath
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tessera

COMPLEX = ["complex64", "complex128"]
REAL = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"]
UNSIGNED = ["uint16", "uint32", "uint64"]
# Relative tolerance of one result element against a complex128 reference.
RTOL = {"complex64": 2e-6, "complex128": 1e-13}


def rng_complex(shape, name, seed=0, scale=1.0):
    r = np.random.default_rng(seed)
    a = (r.standard_normal(shape) + 1j * r.standard_normal(shape)) * scale
    return a.astype(name)


def T(a):
    return tessera.tensor(a)


def close(got, want, name, rtol=None, atol=0.0):
    """got (a tessera tensor) equals want (NumPy) within rtol of want's scale."""
    assert got.dtype is getattr(tessera, name), (got.dtype, name)
    g = got.numpy()
    assert g.shape == want.shape
    rtol = RTOL[name] if rtol is None else rtol
    np.testing.assert_allclose(g, want, rtol=rtol, atol=atol + rtol * (np.abs(want).max() if want.size else 0))


# ---- dtypes and promotion ------------------------------------------------------------


def test_dtype_objects():
    assert tessera.complex64.itemsize == 8 and tessera.complex128.itemsize == 16
    assert tessera.complex64.is_complex and not tessera.complex64.is_floating_point
    assert not tessera.float32.is_complex
    assert repr(tessera.complex128) == "tessera.complex128"
    assert tessera.cfloat is tessera.complex64 and tessera.cdouble is tessera.complex128
    fi = tessera.finfo(tessera.complex64)
    assert fi.bits == 32 and fi.eps == np.finfo(np.complex64).eps and fi.dtype == "float32"


@pytest.mark.parametrize("a", COMPLEX + REAL)
@pytest.mark.parametrize("b", COMPLEX)
def test_promote_types_vs_torch(a, b):
    want = torch.promote_types(getattr(torch, a), getattr(torch, b))
    got = tessera.promote_types(getattr(tessera, a), getattr(tessera, b))
    assert got is getattr(tessera, str(want).replace("torch.", "")), (a, b, got, want)
    assert tessera.promote_types(getattr(tessera, b), getattr(tessera, a)) is got


@pytest.mark.parametrize("a", UNSIGNED)
@pytest.mark.parametrize("b", COMPLEX)
def test_promote_unsigned_vs_numpy(a, b):
    assert tessera.promote_types(getattr(tessera, a), getattr(tessera, b)).__repr__() == \
        "tessera." + np.promote_types(a, b).name


@pytest.mark.parametrize("left,right", [
    ("float64", 1j), ("float32", 1j), ("int32", 1j), ("bool", 2j), ("complex64", 1.5), ("complex64", 3),
    ("complex128", 1.5), ("float16", 1j)])
def test_result_type_with_python_numbers_vs_torch(left, right):
    want = (torch.ones(2, dtype=getattr(torch, left)) * right).dtype
    got = (tessera.ones(2, dtype=getattr(tessera, left)) * right).dtype
    expected = {"complex32": "complex64"}.get(str(want)[6:], str(want)[6:])  # no complex32 here
    assert got is getattr(tessera, expected), (left, right, got, want)


@pytest.mark.parametrize("dim,zero", [("float64", "complex64"), ("complex64", "float64"), ("int32", "complex128"),
                                      ("float32", "complex128"), ("complex128", "float32")])
def test_result_type_with_zero_dim_tensors_vs_torch(dim, zero):
    want = (torch.ones(2, dtype=getattr(torch, dim)) + torch.tensor(1, dtype=getattr(torch, zero))).dtype
    got = (tessera.ones(2, dtype=getattr(tessera, dim)) + tessera.tensor(1, dtype=getattr(tessera, zero))).dtype
    assert repr(got) == "tessera." + str(want)[6:]


# ---- creation, casts, interop --------------------------------------------------------


def test_tensor_from_python_complex():
    t = tessera.tensor([1 + 2j, -3.5j, 4])
    assert t.dtype is tessera.complex64
    assert t.tolist() == [1 + 2j, -3.5j, 4 + 0j]
    t = tessera.tensor([[1, 2], [3, 4]], dtype=tessera.complex128)
    assert t.tolist() == [[1 + 0j, 2 + 0j], [3 + 0j, 4 + 0j]]
    assert tessera.tensor(2 - 1j).item() == 2 - 1j and complex(tessera.tensor(0.5j)) == 0.5j
    assert tessera.full((2,), 1 + 1j).dtype is tessera.complex64
    assert tessera.zeros(3, dtype=tessera.complex128).tolist() == [0j] * 3


@pytest.mark.parametrize("name", COMPLEX)
def test_numpy_both_ways(name):
    a = rng_complex((3, 4), name)
    t = tessera.from_numpy(a)
    assert t.dtype is getattr(tessera, name)
    a[1, 2] = 7 - 7j  # shared memory
    assert t[1, 2].item() == 7 - 7j
    b = t.numpy()
    assert b.dtype == np.dtype(name) and np.array_equal(b, a)
    c = tessera.tensor(a[:, ::2])  # a strided copy
    assert np.array_equal(c.numpy(), a[:, ::2])


@pytest.mark.parametrize("name", COMPLEX)
def test_dlpack_both_ways(name):
    a = rng_complex((5,), name, seed=3)
    t = tessera.from_dlpack(torch.from_numpy(a))
    assert t.dtype is getattr(tessera, name) and np.array_equal(t.numpy(), a)
    back = torch.from_dlpack(t)
    assert back.dtype == getattr(torch, name) and np.array_equal(back.numpy(), a)
    assert np.array_equal(np.from_dlpack(t), a)


@pytest.mark.parametrize("src", COMPLEX)
@pytest.mark.parametrize("dst", COMPLEX + REAL)
def test_casts_from_complex_vs_torch(src, dst):
    values = np.array([1.5 + 2j, -2.25 - 1j, 0j, 1j, 3 + 0j, 255.75 - 9j, np.nan + 0j, -0.0 + 0j], dtype=src)
    if dst in ("int8", "uint8", "int16", "int32", "int64"):
        values = values[:6]  # NaN to an integer is the platform's
    got = T(values).to(getattr(tessera, dst))
    assert got.dtype is getattr(tessera, dst)
    if dst == "bool":
        # The Array API's (and NumPy's) rule: only 0+0j is False. torch 1.13 reads the real part
        # alone (1j -> False), which later releases corrected.
        np.testing.assert_array_equal(got.numpy(), values.astype(bool))
        assert T(np.array([1j], dtype=src)).to(tessera.bool).tolist() == [True]
        return
    want = torch.from_numpy(values).to(getattr(torch, dst))
    w = want.to(torch.float64).numpy() if dst == "bfloat16" else want.numpy()
    g = got.to(tessera.float64).numpy() if dst == "bfloat16" else got.numpy()
    np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("src", REAL)
@pytest.mark.parametrize("dst", COMPLEX)
def test_casts_to_complex_vs_torch(src, dst):
    raw = np.array([0, 1, -2, 3.75, 100, 1e10, -0.0], dtype=np.float64)
    src_t = torch.from_numpy(raw).to(getattr(torch, src))
    want = src_t.to(getattr(torch, dst)).numpy()
    got = tessera.from_dlpack(src_t.contiguous()) if src != "bool" else tessera.tensor(src_t.tolist())
    got = got.to(getattr(tessera, dst))
    np.testing.assert_array_equal(got.numpy(), want)


# ---- arithmetic and elementwise functions ------------------------------------------------


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow"])
def test_binary_vs_numpy(name, op):
    a, b = rng_complex((4, 5), name, 1), rng_complex((5,), name, 2)  # b broadcasts
    f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "pow": np.power}[op]
    want = f(a.astype(np.complex128), b.astype(np.complex128))
    got = getattr(tessera, op)(T(a), T(b))
    close(got, want, name, rtol=RTOL[name] * (8 if op == "pow" else 2))


@pytest.mark.parametrize("name", COMPLEX)
def test_mixed_and_scalar_operands(name):
    a = rng_complex((6,), name, 4)
    x = np.linspace(-2, 2, 6)
    close(T(a) * T(x), a.astype(np.complex128) * x, "complex128")  # complex64 * float64 -> complex128
    close(T(a) + 2j, a.astype(np.complex128) + 2j, name)
    close(1j / T(a), 1j / a.astype(np.complex128), name, rtol=RTOL[name] * 2)
    close(T(x.astype("float32")) * (1 - 1j), x * (1 - 1j), "complex64")
    t = T(a)
    t *= 2j
    close(t, a.astype(np.complex128) * 2j, name)
    r = tessera.ones(3)
    with pytest.raises(RuntimeError, match="can't be cast"):
        r += 1j  # complex result into a float32 tensor: torch's refusal (a RuntimeError there too)


def test_pow_exact_cases():
    z = T(np.array([0j, 2 + 1j, np.nan + 0j], dtype="complex128"))
    assert (z ** 0).tolist() == [1 + 0j, 1 + 0j, 1 + 0j]  # Array API: x2 = 0 gives 1
    assert (T(np.array([0j])) ** 2.5).tolist() == [0j]


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("fn", ["neg", "exp", "log", "sqrt", "tanh", "sin", "cos", "tan", "asin", "acos", "atan",
                                "sinh", "cosh", "asinh", "acosh", "atanh", "expm1", "log1p", "log2", "log10",
                                "conj", "sign", "round"])
def test_unary_vs_numpy(name, fn):
    a = rng_complex((64,), name, 5, scale=1.5)
    a[:3] = [1e-9 + 2e-9j, -3e-8j, 0.25 + 0j]  # small values: expm1 and log1p keep their digits
    ref = a.astype(np.complex128)
    npf = {"neg": np.negative, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
           "acosh": np.arccosh, "atanh": np.arctanh, "conj": np.conj,
           "sign": lambda z: np.where(z == 0, 0, z / np.abs(z)), "round": lambda z: np.round(z)}.get(fn)
    want = (npf or getattr(np, fn))(ref)
    if fn in ("log1p", "expm1"):  # NumPy computes log(1 + z) and exp(z) - 1 as written: no reference near 0
        import mpmath
        mf = {"log1p": lambda z: mpmath.log(1 + z), "expm1": lambda z: mpmath.exp(z) - 1}[fn]
        with mpmath.workdps(40):
            want = np.array([complex(mf(mpmath.mpc(z.real, z.imag))) for z in ref])
    got = getattr(tessera, fn)(T(a))
    # Element by element: each within its own magnitude's tolerance.
    g = got.numpy().astype(np.complex128)
    assert got.dtype is getattr(tessera, name)
    err = np.abs(g - want) / np.maximum(np.abs(want), 1e-30)
    assert err.max() < RTOL[name] * 16, (fn, err.argmax(), g[err.argmax()], want[err.argmax()])


@pytest.mark.parametrize("name", COMPLEX)
def test_abs_is_real(name):
    a = rng_complex((3, 7), name, 6)
    got = tessera.abs(T(a))
    real = {"complex64": "float32", "complex128": "float64"}[name]
    assert got.dtype is getattr(tessera, real)
    np.testing.assert_allclose(got.numpy(), np.abs(a.astype(np.complex128)), rtol=RTOL[name])
    big = T(np.array([3e38 + 4e38j, complex(np.inf, np.nan), complex(np.nan, 0)], dtype="complex128"))
    assert big.abs().tolist()[:2] == [5e38, math.inf] and math.isnan(big.abs().tolist()[2])


# The Array API 2022.12's special cases (C99 Annex G), which glibc's complex
# functions (the CPU) and libcu++'s (cuda.so) implement: (function, input,
# expected); nan matches nan.
SPECIAL = [
    ("sqrt", complex(0.0, 0.0), complex(0.0, 0.0)),
    ("sqrt", complex(-0.0, 0.0), complex(0.0, 0.0)),
    ("sqrt", complex(1.0, math.inf), complex(math.inf, math.inf)),
    ("sqrt", complex(-math.inf, 1.0), complex(0.0, math.inf)),
    ("sqrt", complex(math.inf, 1.0), complex(math.inf, 0.0)),
    ("log", complex(-0.0, 0.0), complex(-math.inf, math.pi)),
    ("log", complex(0.0, 0.0), complex(-math.inf, 0.0)),
    ("log", complex(math.inf, math.inf), complex(math.inf, math.pi / 4)),
    ("log", complex(math.nan, math.inf), complex(math.inf, math.nan)),
    ("exp", complex(0.0, 0.0), complex(1.0, 0.0)),
    ("exp", complex(math.inf, 0.0), complex(math.inf, 0.0)),
    ("exp", complex(-math.inf, 1.0), complex(0.0, 0.0) * cmath.exp(1j)),
    ("exp", complex(math.nan, 0.0), complex(math.nan, 0.0)),
    ("tanh", complex(math.inf, 1.0), complex(1.0, 0.0 * math.sin(2.0))),
    ("expm1", complex(0.0, 0.0), complex(0.0, 0.0)),
    ("expm1", complex(math.inf, 0.0), complex(math.inf, 0.0)),
    ("log1p", complex(-1.0, 0.0), complex(-math.inf, 0.0)),
    ("sign", complex(0.0, 0.0), complex(0.0, 0.0)),
    ("sign", complex(math.nan, 1.0), complex(math.nan, math.nan)),
    ("sign", complex(-math.inf, 0.0), complex(-1.0, 0.0)),
    ("sqrt", complex(math.nan, math.inf), complex(math.inf, math.inf)),
    ("log", complex(-math.inf, 1.0), complex(math.inf, math.pi)),
    ("cosh", complex(0.0, 0.0), complex(1.0, 0.0)),
    ("cosh", complex(math.inf, 0.0), complex(math.inf, 0.0)),
    ("sinh", complex(0.0, 0.0), complex(0.0, 0.0)),
    ("sinh", complex(math.inf, 0.0), complex(math.inf, 0.0)),
    ("tanh", complex(0.0, 0.0), complex(0.0, 0.0)),
    ("tanh", complex(math.nan, 0.0), complex(math.nan, 0.0)),
    ("asinh", complex(0.0, 0.0), complex(0.0, 0.0)),
    ("asinh", complex(math.inf, 1.0), complex(math.inf, 0.0)),
    ("asinh", complex(1.0, math.inf), complex(math.inf, math.pi / 2)),
    ("acosh", complex(0.0, 0.0), complex(0.0, math.pi / 2)),
    ("acosh", complex(math.inf, math.inf), complex(math.inf, math.pi / 4)),
    ("atanh", complex(0.0, 0.0), complex(0.0, 0.0)),
    ("atanh", complex(1.0, 0.0), complex(math.inf, 0.0)),
    ("atanh", complex(math.inf, 1.0), complex(0.0, math.pi / 2)),
    ("expm1", complex(-math.inf, 0.0), complex(-1.0, 0.0)),
    ("log1p", complex(math.inf, math.inf), complex(math.inf, math.pi / 4)),
]


def check_special(fn, z, got, want):
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        if math.isnan(w):
            assert math.isnan(g), (fn, z, got, want)
        else:
            assert g == w or abs(g - w) <= 1e-6 * abs(w), (fn, z, got, want)
            if w == 0:
                assert math.copysign(1, g) == math.copysign(1, w), (fn, z, got, want)


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("fn,z,want", SPECIAL)
def test_special_values(name, fn, z, want):
    check_special(fn, z, getattr(tessera, fn)(tessera.tensor([z], dtype=getattr(tessera, name))).item(), want)


SPECIAL_ON_DEVICE = r"""
import json, sys
import tessera
cases = json.loads(sys.argv[1])
out = []
for name in ("complex64", "complex128"):
    for fn, re, im in cases:
        t = tessera.tensor([complex(re, im)], dtype=getattr(tessera, name)).to("cuda:0")
        r = getattr(tessera, fn)(t)
        assert str(r.device) == "cuda:0"
        v = r.cpu().item()
        out.append([name, fn, v.real, v.imag])
print(json.dumps(out))
"""


@pytest.mark.skipif("TESSERA_TEST_CUDA_EMU_CONFIG" not in os.environ, reason="run by ctest, with cuda_emu.so")
def test_special_values_on_the_emulated_cuda_device():
    """cuda.so's complex functions (libcu++'s, run on the host by the
    emulator) give the same special values as the CPU's."""
    cases = [[fn, z.real, z.imag] for fn, z, _ in SPECIAL]
    env = dict(os.environ, TESSERA_CONFIG=os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"], TESSERA_LOG_LEVEL="error")
    out = subprocess.run([sys.executable, "-c", SPECIAL_ON_DEVICE, json.dumps(cases)], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(results) == 2 * len(SPECIAL)
    for (name, fn, re, im), (_, z, want) in zip(results, SPECIAL + SPECIAL):
        check_special(fn + " on cuda (" + name + ")", z, complex(re, im), want)


@pytest.mark.parametrize("name", COMPLEX)
def test_comparisons(name):
    a = np.array([1 + 1j, 1 - 1j, np.nan + 0j, 2j], dtype=name)
    b = np.array([1 + 1j, 1 + 1j, np.nan + 0j, 2j], dtype=name)
    assert tessera.eq(T(a), T(b)).tolist() == (a == b).tolist()
    assert tessera.ne(T(a), T(b)).tolist() == (a != b).tolist()
    # RuntimeError, as torch raises for these.
    with pytest.raises(RuntimeError, match="complex numbers have no order"):
        tessera.lt(T(a), T(b))
    with pytest.raises(RuntimeError, match="complex"):
        tessera.maximum(T(a), T(b))


# ---- reductions, scans, indexing, matmul ------------------------------------------------


@pytest.mark.parametrize("name", COMPLEX)
def test_reductions_vs_numpy(name):
    a = rng_complex((7, 9), name, 7)
    ref = a.astype(np.complex128)
    close(T(a).sum(), np.array(ref.sum()), name, rtol=RTOL[name] * 8)
    close(T(a).sum(0), ref.sum(0), name, rtol=RTOL[name] * 8)
    close(T(a).mean(1), ref.mean(1), name, rtol=RTOL[name] * 8)
    close(T(a[:3, :4]).prod(1), ref[:3, :4].prod(1), name, rtol=RTOL[name] * 8)
    close(tessera.cumsum(T(a), 1), ref.cumsum(1), name, rtol=RTOL[name] * 8)
    assert T(a).sum().dtype is getattr(tessera, name)
    with pytest.raises(RuntimeError, match="no order"):
        T(a).max()
    with pytest.raises(RuntimeError, match="no order"):
        T(a).argmax()


@pytest.mark.parametrize("name", COMPLEX)
def test_where_gather_nonzero(name):
    a = np.array([[0j, 1j, 2], [3 - 1j, 0, np.nan + 0j]], dtype=name)
    t = T(a)
    assert tessera.nonzero(t).tolist() == np.argwhere(a != 0).tolist()
    cond = T(np.array([[True, False, True], [False, True, False]]))
    assert tessera.where(cond, t, T(np.full((2, 3), 9j, dtype=name))).tolist()[0] == [0j, 9j, 2 + 0j]
    idx = tessera.tensor([[2, 0], [1, 1]])
    assert tessera.gather(t, 1, idx).tolist()[0] == [2 + 0j, 0j]
    assert t[1, 0].item() == 3 - 1j and t[:, 1].tolist() == [1j, 0j]
    z = tessera.zeros(2, 3, dtype=getattr(tessera, name))
    z.scatter_add_(1, idx, T(np.full((2, 2), 1 + 1j, dtype=name)))
    assert z.tolist() == [[1 + 1j, 0j, 1 + 1j], [0j, 2 + 2j, 0j]]


@pytest.mark.parametrize("name", COMPLEX)
@pytest.mark.parametrize("shape", [((3, 5), (5, 4)), ((2, 64, 48), (48, 33)), ((130, 70), (70, 90)),
                                   ((1, 1), (1, 1)), ((4, 0), (0, 3))])
def test_matmul_vs_numpy(name, shape):
    a, b = rng_complex(shape[0], name, 8), rng_complex(shape[1], name, 9)
    want = a.astype(np.complex128) @ b.astype(np.complex128)
    close(T(a) @ T(b), want, name, rtol=RTOL[name] * max(8, shape[0][-1]), atol=1e-30)
    # transposed and conjugated operands (strided views, BLAS's transposes)
    close(T(b).transpose(-2, -1) @ T(a).transpose(-2, -1), np.swapaxes(want, -2, -1).copy(), name, rtol=RTOL[name] * max(8, shape[0][-1]), atol=1e-30)


def test_matmul_mixed_dtypes():
    a = rng_complex((4, 3), "complex64", 10)
    b = np.arange(6, dtype=np.float64).reshape(3, 2)
    with pytest.raises(RuntimeError, match="expected scalar type"):
        tessera.matmul(T(a), T(b))  # torch too: matmul needs one dtype
    close(T(a) @ T(b).to(tessera.complex64), a.astype(np.complex128) @ b, "complex64")


# ---- parts, views, printing ----------------------------------------------------------


@pytest.mark.parametrize("name", COMPLEX)
def test_real_imag_are_views(name):
    a = rng_complex((3, 4), name, 11)
    t = T(a)
    re, im = t.real, t.imag
    part = {"complex64": tessera.float32, "complex128": tessera.float64}[name]
    assert re.dtype is part and im.dtype is part
    assert re.stride() == (8, 2) and im.storage_offset() == 1
    np.testing.assert_array_equal(re.numpy(), a.real)
    np.testing.assert_array_equal(tessera.imag(t[:, 1:3]).numpy(), a[:, 1:3].imag)
    im.fill_(5)
    assert t[2, 3].item() == complex(a[2, 3].real, 5)
    assert tessera.conj(t).tolist()[0][0] == complex(a[0, 0].real, -5)
    r = tessera.ones(3)
    assert r.real.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(RuntimeError, match="imag"):
        r.imag


@pytest.mark.parametrize("values,dtype", [
    ([1 + 2j, -3.5 - 4j], "complex64"),
    ([1 + 2j, -3 - 4j, 0j], "complex128"),
    ([0.001 + 1000j, 2j], "complex64"),
    ([[1e-5 + 1j, 3.25 - 2.5j], [math.inf + 0j, complex(math.nan, -1)]], "complex64"),
    ([complex(i, -i / 3) for i in range(12)], "complex128"),
    ([], "complex64"),
    (1.5 - 2j, "complex64"),
])
def test_repr_vs_torch(values, dtype):
    want = repr(torch.tensor(values, dtype=getattr(torch, dtype))).replace("torch.", "tessera.")
    assert repr(tessera.tensor(values, dtype=getattr(tessera, dtype))) == want


def test_repr_wide_rows_vs_torch():
    a = rng_complex((3, 30), "complex128", 12, scale=100)
    assert repr(T(a)) == repr(torch.from_numpy(a)).replace("torch.", "tessera.")


def test_assert_close_on_complex():
    a = T(np.array([1 + 1j, 2 - 2j], dtype="complex64"))
    tessera.testing.assert_close(a, a.clone())
    with pytest.raises(AssertionError, match="Mismatched elements: 1 / 2"):
        tessera.testing.assert_close(a, T(np.array([1 + 1j, 2 - 2.1j], dtype="complex64")))


# ---- refusals ----------------------------------------------------------------------


def test_refusals_name_the_problem():
    z = tessera.ones(3, dtype=tessera.complex64)
    # RuntimeError, as torch raises for these.
    for fn in (tessera.floor, tessera.ceil, tessera.trunc):
        with pytest.raises(RuntimeError, match="not defined for complex"):
            fn(z)
    with pytest.raises(RuntimeError, match="sort is not defined for complex64"):
        tessera.sort(z)
    with pytest.raises(RuntimeError, match="arange is not defined for complex"):
        tessera.arange(0, 3j)
    with pytest.raises(RuntimeError, match="without overflow"):
        tessera.zeros(2).fill_(1j)
    tessera.zeros(2).fill_(3 + 0j)  # a complex without an imaginary part fits
