# SPDX-License-Identifier: Apache-2.0
"""tessera.linalg.eig and eigvals (ABI 1.11, LINALG's EIG: LAPACK's geev on
the CPU, cuSOLVER's Xgeev on cuda) and xp.linalg.eig / eigvals (the Array
API's 2025.12) against NumPy 1.24's numpy.linalg.eig and PyTorch 1.13's
torch.linalg.eig: float32, float64, complex64 and complex128; batches,
1x1, 0x0 and empty batches; transposed, step-sliced and broadcast inputs;
a defective matrix, a rotation's conjugate pair, symmetric and Hermitian
matrices against eigh; the errors with torch's messages; complex results
recording NotImplementedBackward. An eigendecomposition is not unique (the
order, each vector's phase), so results are checked by A V = V diag(w),
unit columns, and eigenvalues matched to the reference's one by one, never
by raw equality. Then the emulated cuda device (cuda.so's Xgeev path over
the emulator's LAPACK stand-in, with real eigenvector pairs made complex on
the device) against the CPU."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tessera
import tessera.array_api as xp
from tessera import linalg as L

DTYPES = ["float32", "float64", "complex64", "complex128"]
COMPLEX_OF = {"float32": "complex64", "float64": "complex128", "complex64": "complex64", "complex128": "complex128"}
EPS = {"float32": float(np.finfo(np.float32).eps), "float64": float(np.finfo(np.float64).eps)}
EPS["complex64"], EPS["complex128"] = EPS["float32"], EPS["float64"]
LAYOUTS = ["contiguous", "transposed", "sliced", "broadcast"]


def T(a):
    return tessera.from_numpy(np.ascontiguousarray(a))


def N(t):
    return np.array(t.cpu().numpy())


def wide(a):
    return a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)


def random_matrices(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def laid_out(a, layout):
    """a as a tensor: contiguous, a transposed view, a step-sliced view of a
    larger tensor (NaN between), or a batch read through stride 0."""
    if layout == "contiguous":
        return T(a)
    if layout == "transposed":
        return T(np.swapaxes(a, -1, -2)).transpose(-2, -1)
    if layout == "sliced":
        big = np.full(a.shape[:-2] + (2 * a.shape[-2], 3 * a.shape[-1]), np.nan, a.dtype)
        big[..., ::2, ::3] = a
        return T(big)[..., ::2, ::3]
    assert a.shape[0] == 3 and (a[0] == a[1]).all() and (a[0] == a[2]).all()
    return T(a[0]).expand(*a.shape)


def match(got, want):
    """The largest distance between the eigenvalues got and want ([.., n]),
    each of want paired with the nearest unused one of got (the order of
    an eigendecomposition is the library's)."""
    worst = 0.0
    for g, w in zip(got.reshape(-1, got.shape[-1]), want.reshape(-1, want.shape[-1])):
        free = list(g)
        for x in w:
            k = int(np.argmin([abs(x - y) for y in free]))
            worst = max(worst, abs(x - free.pop(k)))
    return worst


def check_eig(a, w, v, dtype, c=100.0, kappa=1.0):
    """w, v (Tensors) of a (numpy, the input's values): complex of a's
    precision, A V = V diag(w) and unit columns within c * n * eps * |A|,
    eigenvalues those of numpy.linalg.eig in float64 within kappa times that."""
    n = a.shape[-1]
    want_dtype = np.dtype(COMPLEX_OF[dtype])
    W, V = N(w), N(v)
    assert W.dtype == want_dtype and V.dtype == want_dtype, (W.dtype, V.dtype)
    assert W.shape == a.shape[:-1] and V.shape == a.shape, (W.shape, V.shape, a.shape)
    if a.size == 0:
        return
    a64 = wide(a)
    scale = max(1.0, float(np.abs(a64).max())) * n
    tol = c * EPS[dtype] * scale
    residual = a64 @ V.astype(np.complex128) - V.astype(np.complex128) * W.astype(np.complex128)[..., None, :]
    assert np.abs(residual).max() <= tol, np.abs(residual).max()
    norms = np.linalg.norm(V.astype(np.complex128), axis=-2)
    np.testing.assert_allclose(norms, 1.0, rtol=0, atol=c * n * EPS[dtype])
    want = np.linalg.eigvals(a64)
    assert match(W.astype(np.complex128), want) <= kappa * tol, match(W.astype(np.complex128), want)


# ---- values and vectors ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (3, 4, 4), (2, 3, 6, 6), (17, 17)])
def test_eig_of_random_matrices(dtype, shape):
    a = random_matrices(shape, dtype, seed=sum(shape))
    w, v = L.eig(T(a))
    check_eig(a, w, v, dtype, kappa=50.0)
    # eigvals: geev without the vectors, the same values within rounding
    assert match(N(L.eigvals(T(a))).astype(np.complex128), N(w).astype(np.complex128)) <= \
        5000 * EPS[dtype] * max(1.0, float(np.abs(a).max())) * shape[-1]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_eig_of_strided_inputs(dtype, layout):
    a = random_matrices((3, 5, 5), dtype, seed=7)
    if layout == "broadcast":
        a = np.stack([a[0]] * 3)
    w, v = L.eig(laid_out(a, layout))
    check_eig(a, w, v, dtype, kappa=50.0)
    # the same matrix gives the same result whatever its layout (one routine
    # on one column-major copy)
    w0, v0 = L.eig(T(a))
    np.testing.assert_array_equal(N(w), N(w0))
    np.testing.assert_array_equal(N(v), N(v0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_eig_against_torch(dtype):
    a = random_matrices((4, 6, 6), dtype, seed=3)
    w, v = L.eig(T(a))
    tw, tv = torch.linalg.eig(torch.from_numpy(a))
    assert N(w).dtype == tw.numpy().dtype and N(v).dtype == tv.numpy().dtype
    tol = 5000 * EPS[dtype] * 6 * float(np.abs(a).max())
    assert match(N(w).astype(np.complex128), tw.numpy().astype(np.complex128)) <= tol
    assert match(N(L.eigvals(T(a))).astype(np.complex128), torch.linalg.eigvals(torch.from_numpy(a)).numpy()) <= tol


@pytest.mark.parametrize("dtype", DTYPES)
def test_real_matrices_give_conjugate_pairs(dtype):
    """A rotation by theta: e^(+-i theta), with eigenvectors conjugate to
    each other (geev's real pair of columns made complex), as NumPy's."""
    theta = 0.7
    a = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]]).astype(dtype)
    w, v = L.eig(T(a))
    check_eig(a, w, v, dtype)
    W, V = N(w), N(v)
    assert match(W.astype(np.complex128), np.exp(np.array([1j, -1j]) * theta)) <= 10 * EPS[dtype]
    if not dtype.startswith("complex"):
        assert W[0].imag > 0 and W[1] == np.conj(W[0])  # LAPACK's order: positive imaginary part first
        np.testing.assert_array_equal(V[:, 1], np.conj(V[:, 0]))
        nw, nv = np.linalg.eig(a)
        np.testing.assert_allclose(W, nw, atol=10 * EPS[dtype])
        # NumPy's columns up to a unit factor (|v_j^H nv_j| = 1): both
        # components have one modulus, so "largest component real" is a tie.
        np.testing.assert_allclose(np.abs(np.sum(np.conj(nv) * V, axis=0)), 1.0, atol=10 * EPS[dtype])
    # A real 4 x 4 with two pairs and a batch: every pair conjugate.
    b = random_matrices((2, 4, 4), "float64", seed=11).astype(dtype)
    wb = N(L.eigvals(T(b))).astype(np.complex128)
    if not dtype.startswith("complex"):
        for row in wb:
            assert match(row[None], np.conj(row)[None]) <= 100 * EPS[dtype] * 4


@pytest.mark.parametrize("dtype", DTYPES)
def test_defective_matrices(dtype):
    """Jordan blocks have one eigenvector per block: the computed columns
    are (nearly) parallel, and A V = V diag(w) still holds."""
    a = np.array([[2.0, 1.0, 0.0], [0.0, 2.0, 1.0], [0.0, 0.0, 2.0]]).astype(dtype)
    w, v = L.eig(T(a))
    check_eig(a, w, v, dtype, kappa=1e5)  # a triple eigenvalue moves by eps^(1/3)
    V = N(v).astype(np.complex128)
    np.testing.assert_allclose(np.abs(V[0]), 1.0, atol=1e-2)  # each column ~ e1
    jordan = np.array([[1.0, 1.0], [0.0, 1.0]]).astype(dtype)
    w, v = L.eig(T(jordan))
    np.testing.assert_array_equal(N(w), np.array([1, 1], dtype=COMPLEX_OF[dtype]))
    np.testing.assert_allclose(np.abs(N(v)[0]), 1.0, atol=10 * EPS[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_symmetric_and_hermitian_agree_with_eigh(dtype):
    x = random_matrices((2, 5, 5), dtype, seed=5)
    h = (x + np.conj(np.swapaxes(x, -1, -2))) / 2
    w, v = L.eig(T(h))
    check_eig(h, w, v, dtype)
    W, V = N(w).astype(np.complex128), N(v).astype(np.complex128)
    assert np.abs(W.imag).max() <= 100 * EPS[dtype] * 5 * np.abs(h).max()
    hw, hv = L.eigh(T(h))
    HW, HV = N(hw).astype(np.float64), N(hv).astype(np.complex128)
    order = np.argsort(W.real, axis=-1)
    np.testing.assert_allclose(np.take_along_axis(W.real, order, -1), HW, atol=100 * EPS[dtype] * 5 * np.abs(h).max())
    # Distinct eigenvalues: each eig vector is eigh's up to a unit factor.
    for b in range(2):
        overlap = np.abs(np.conj(HV[b]).T @ V[b][:, order[b]])
        np.testing.assert_allclose(np.diag(overlap), 1.0, atol=1e3 * EPS[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_empty_and_one_by_one(dtype):
    cdt = np.dtype(COMPLEX_OF[dtype])
    for shape in [(0, 0), (0, 3, 3), (2, 0, 0), (4, 0, 2, 2)]:
        w, v = L.eig(T(np.zeros(shape, dtype)))
        assert N(w).dtype == cdt and N(w).shape == shape[:-1] and N(v).shape == shape
        assert N(L.eigvals(T(np.zeros(shape, dtype)))).shape == shape[:-1]
        tw, tv = torch.linalg.eig(torch.zeros(shape, dtype=getattr(torch, dtype)))
        assert tuple(tw.shape) == N(w).shape and tuple(tv.shape) == N(v).shape
    a = np.array([[[-3.5]], [[2.0]]], dtype)
    w, v = L.eig(T(a))
    np.testing.assert_array_equal(N(w), a[..., 0].astype(cdt))
    np.testing.assert_array_equal(N(v), np.ones((2, 1, 1), cdt))


# ---- errors and autograd -----------------------------------------------------------------


def torch_message(fn, *args):
    with pytest.raises(RuntimeError) as e:
        fn(*args)
    return str(e.value)


@pytest.mark.parametrize("name", ["eig", "eigvals"])
def test_errors_as_torch(name):
    ours, theirs = getattr(L, name), getattr(torch.linalg, name)
    for a in (np.ones((2, 3)), np.ones(3), np.ones((4, 2, 3), np.float32)):
        msg = torch_message(theirs, torch.from_numpy(a))
        with pytest.raises(RuntimeError) as e:
            ours(T(a))
        assert str(e.value) == msg
    # torch's own error for integers is an internal one ("Unknown Complex
    # ScalarType for Long"); ours is its linalg functions' message.
    with pytest.raises(RuntimeError, match="linalg.%s: Expected a floating point or complex tensor as input. Got Long"
                       % name):
        ours(T(np.ones((2, 2), np.int64)))
    torch_message(theirs, torch.ones(2, 2, dtype=torch.int64))
    with pytest.raises(RuntimeError, match="Low precision dtypes not supported. Got Half"):
        ours(T(np.ones((2, 2), np.float16)))
    with pytest.raises(TypeError, match="must be Tensor"):
        ours(np.ones((2, 2)))


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_input_is_refused(bad):
    a = np.stack([np.eye(3), np.eye(3), np.eye(3)])
    a[2, 1, 0] = bad
    with pytest.raises(L.LinAlgError, match=r"^linalg.eig: \(Batch element 2\): input tensor should not contain "
                                            r"infs or NaNs.$"):
        L.eig(T(a))
    # torch refuses it as well, without naming the element
    assert "input tensor should not contain infs or NaNs" in torch_message(torch.linalg.eig, torch.from_numpy(a))
    with pytest.raises(L.LinAlgError, match=r"^linalg.eigvals: \(Batch element 2\)"):
        L.eigvals(T(a))
    with pytest.raises(L.LinAlgError, match=r"^linalg.eig: input tensor should not contain infs or NaNs.$"):
        L.eig(T(a[2].astype(np.complex64)))


def test_complex_results_have_no_gradient():
    """torch differentiates eig; Tessera does not differentiate complex
    results (Note [Complex tensors and autograd]): a real input requiring
    grad gives results whose backward fails naming the function."""
    x = T(np.array([[1.0, 2.0], [3.0, 4.0]])).requires_grad_()
    w, v = L.eig(x)
    assert w.requires_grad and v.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_eig is not implemented"):
        w.backward(tessera.ones_like(w))
    with pytest.raises(RuntimeError, match="derivative for aten::linalg_eigvals is not implemented"):
        L.eigvals(x).backward(tessera.ones(2, dtype=tessera.complex128))
    with tessera.no_grad():
        assert not L.eig(x).eigenvalues.requires_grad


# ---- the Array API ---------------------------------------------------------------------


@pytest.mark.parametrize("dtype", DTYPES)
def test_array_api_eig(dtype):
    a = random_matrices((2, 4, 4), dtype, seed=9)
    x = xp.asarray(a)
    r = xp.linalg.eig(x)
    assert type(r).__name__ == "EigResult" and r._fields == ("eigenvalues", "eigenvectors")
    want = getattr(xp, COMPLEX_OF[dtype])
    assert r.eigenvalues.dtype == want and r.eigenvectors.dtype == want
    check_eig(a, r.eigenvalues._t, r.eigenvectors._t, dtype, kappa=50.0)
    vals = xp.linalg.eigvals(x)
    assert vals.dtype == want and vals.shape == (2, 4)
    assert hasattr(xp.linalg, "eig") and "eigvals" in xp.linalg.__all__
    with pytest.raises(TypeError):
        xp.linalg.eig(xp.asarray(np.ones((2, 2), np.int64)))
    with pytest.raises(TypeError):
        xp.linalg.eigvals(xp.asarray(np.ones((2, 2), bool)))


# ---- the emulated cuda device --------------------------------------------------------------

DEVICE_SCRIPT = r"""
import json, sys
import numpy as np
import tessera
from tessera import linalg as L
device = sys.argv[1]
rng = np.random.default_rng(4)
cases = {}
for dtype in ("float32", "float64", "complex64", "complex128"):
    a = rng.standard_normal((3, 6, 6))
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal((3, 6, 6))
    cases[dtype] = a.astype(dtype)
theta = 0.3
cases["rotation"] = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
cases["big"] = rng.standard_normal((40, 40))  # pairs and real values in one matrix
cases["one"] = np.array([[[5.0]]])
out = {}
for name, a in cases.items():
    res = {}
    for dev in ("cpu", device):
        t = tessera.from_numpy(a).to(dev)
        w, v = L.eig(t)
        wt, vt = L.eig(t.transpose(-2, -1))
        res[dev] = {"w": w.cpu().numpy(), "v": v.cpu().numpy(), "vals": L.eigvals(t).cpu().numpy(),
                    "wt": wt.cpu().numpy(), "devices": sorted({str(x.device) for x in (w, v, wt)})}
    out[name] = {"dtype": str(res[device]["w"].dtype), "devices": res[device]["devices"]}
    for k in ("w", "v", "vals", "wt"):
        g, c = res[device][k], res["cpu"][k]
        out[name][k] = float(np.abs(g.astype(np.complex128) - c.astype(np.complex128)).max()) if g.size else 0.0
bad = np.stack([np.eye(2), [[np.nan, 0.0], [0.0, 1.0]]])
try:
    L.eig(tessera.from_numpy(bad).to(device))
    out["error"] = None
except L.LinAlgError as e:
    out["error"] = str(e)
print(json.dumps(out))
"""


@pytest.mark.skipif("TESSERA_TEST_CUDA_EMU_CONFIG" not in os.environ, reason="run by ctest, with cuda_emu.so")
def test_eig_on_the_emulated_cuda_device():
    """cuda.so's EIG runs the emulator's Xgeev (LAPACK's geev on the same
    column-major copy) and, for real matrices, its own kernel making the
    complex values and vectors: the CPU's results within rounding."""
    env = dict(os.environ, TESSERA_CONFIG=os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"], TESSERA_LOG_LEVEL="error")
    run = subprocess.run([sys.executable, "-c", DEVICE_SCRIPT, "cuda:0"], env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out.pop("error") == "linalg.eig: (Batch element 1): input tensor should not contain infs or NaNs."
    want = {"float32": "complex64", "float64": "complex128", "complex64": "complex64", "complex128": "complex128",
            "rotation": "complex128", "big": "complex128", "one": "complex128"}
    for name, r in out.items():
        assert r["dtype"] == want[name], (name, r)
        assert r["devices"] == ["cuda:0"], (name, r)
        tol = 1e-4 if want[name] == "complex64" else 1e-10
        for k in ("w", "v", "vals", "wt"):
            assert r[k] <= tol, (name, k, r)
