# SPDX-License-Identifier: Apache-2.0
"""tessera.linalg and tessera.array_api.linalg (ABI 1.6) against NumPy 1.24's
numpy.linalg (PyTorch 1.13 where NumPy has no counterpart: lu_factor, the
atol/rtol rules): float32 and float64, batches, ill-conditioned (Hilbert)
and singular inputs, transposed and step-sliced inputs, 1x1 and empty ones.
Results that are not unique (Q, U, Vh, eigenvectors) are checked by
reconstruction and orthonormality, with tolerances scaled by eps, the
condition number and the size of the values. Then the errors, which name
the batch element, and the emulated CUDA device (cuda.so's cuSOLVER kernels
over the emulator's LAPACK stand-in, complex matrices included) and
the arena sample device (everything through the CPU fallback) against the
CPU."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

import tessera
import tessera.array_api as xp
from tessera import linalg as L
from devices import arena_config, needs_arena

FLOATS = ["float32", "float64"]
EPS = {"float32": float(np.finfo(np.float32).eps), "float64": float(np.finfo(np.float64).eps)}
LAYOUTS = ["contiguous", "transposed", "sliced"]
INF = math.inf


def T(a):
    return tessera.from_numpy(np.ascontiguousarray(a))


def N(t):
    return np.array(t.cpu().numpy())


def laid_out(a, layout):
    """a as a tensor: contiguous, a transposed view, or a step-sliced view
    (every other row, every third column of a larger tensor)."""
    if layout == "contiguous":
        return T(a)
    if layout == "transposed":
        return T(np.swapaxes(a, -1, -2)).transpose(-2, -1)
    big = np.full(a.shape[:-2] + (2 * a.shape[-2], 3 * a.shape[-1]), np.nan, a.dtype)
    big[..., ::2, ::3] = a
    t = T(big)[..., ::2, ::3]
    assert not t.is_contiguous() or a.size <= 1
    return t


def mT(a):
    return np.swapaxes(a, -1, -2)


def eye_like(a, n):
    return np.broadcast_to(np.eye(n), a.shape[:-2] + (n, n))


def cond(a):
    a = np.asarray(a, np.float64)
    return float(np.max(np.linalg.cond(a))) if a.size else 1.0


def check(got, want, dtype, kappa=1.0, c=50.0):
    """got (a Tensor) against want (float64, from the same input values):
    dtype and shape exactly, values within c * eps * kappa * max(1, max|want|),
    kappa the problem's condition number."""
    g = N(got)
    assert g.dtype == np.dtype(dtype), (g.dtype, dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(g, want, rtol=0, atol=c * EPS[dtype] * kappa * scale)


def orthonormal_columns(q, dtype, c=50.0):
    k = q.shape[-1]
    check_np(mT(q).astype(np.float64) @ q, eye_like(q, k), dtype, c=c * max(k, 1))


def check_np(g, want, dtype, c=50.0):
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(g, want, rtol=0, atol=c * EPS[dtype] * scale)


def random(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def spd(shape, dtype, seed):
    """Symmetric positive-definite: X X^T + n I."""
    x = np.random.default_rng(seed).standard_normal(shape)
    return (x @ mT(x) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def symmetric(shape, dtype, seed):
    x = np.random.default_rng(seed).standard_normal(shape)
    return ((x + mT(x)) / 2).astype(dtype)


def hilbert(n, dtype):
    i = np.arange(n)
    return (1.0 / (i[:, None] + i[None, :] + 1)).astype(dtype)


SQUARE = [(1, 1), (4, 4), (3, 2, 5, 5)]
RECT = [(1, 1), (5, 3), (3, 5), (4, 4), (2, 3, 6, 4)]
# Sizes where cpu_tbb composes QR, SVD and EIGH from LAPACK's pieces
# (Note [Serial BLAS]): at least 128 reflectors; (300, 140) is past gesdd's
# threshold for a QR first, so it takes gesdd itself.
LARGE_SQUARE = [(160, 160), (2, 130, 130)]
LARGE_RECT = [(200, 150), (150, 200), (160, 160), (300, 140)]


# ---- cholesky, lu_factor -----------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SQUARE)
def test_cholesky_matches_numpy_lower_and_upper(dtype, layout, shape):
    a = spd(shape, dtype, 1)
    want = np.linalg.cholesky(a.astype(np.float64))
    low, up = L.cholesky(laid_out(a, layout)), L.cholesky(laid_out(a, layout), upper=True)
    check(low, want, dtype, cond(a))
    check(up, mT(want), dtype, cond(a))
    assert (np.triu(N(low), 1) == 0).all() and (np.tril(N(up), -1) == 0).all()


@pytest.mark.parametrize("dtype", FLOATS)
def test_cholesky_reads_one_triangle_only(dtype):
    a = spd((2, 4, 4), dtype, 2)
    upper_nan, lower_nan = a.copy(), a.copy()
    upper_nan[..., np.triu_indices(4, 1)[0], np.triu_indices(4, 1)[1]] = np.nan
    lower_nan[..., np.tril_indices(4, -1)[0], np.tril_indices(4, -1)[1]] = np.nan
    np.testing.assert_array_equal(N(L.cholesky(T(upper_nan))), N(L.cholesky(T(a))))
    np.testing.assert_array_equal(N(L.cholesky(T(lower_nan), upper=True)), N(L.cholesky(T(a), upper=True)))


def lu_unpack(lu, pivots):
    """P, L, U of LAPACK's packed LU and 1-based interchanges: A = P L U."""
    m, n = lu.shape
    k = min(m, n)
    perm = np.arange(m)
    for i, p in enumerate(pivots):
        perm[[i, p - 1]] = perm[[p - 1, i]]
    lower = np.tril(lu, -1)[:, :k] + np.eye(m, k)
    return np.eye(m)[:, perm], lower, np.triu(lu)[:k, :]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", RECT)
def test_lu_factor_reconstructs_and_matches_torch(dtype, layout, shape):
    a = random(shape, dtype, 3)
    lu, pivots = L.lu_factor(laid_out(a, layout))
    assert lu.dtype == getattr(tessera, dtype) and pivots.dtype == tessera.int32
    want_lu, want_piv = torch.linalg.lu_factor(torch.from_numpy(a))
    np.testing.assert_array_equal(N(pivots), want_piv.numpy())
    check(lu, want_lu.double().numpy(), dtype, kappa=10)
    flat_a, flat_lu, flat_piv = a.reshape((-1,) + shape[-2:]), N(lu).reshape((-1,) + shape[-2:]), N(pivots)
    for x, packed, piv in zip(flat_a, flat_lu, flat_piv.reshape(len(flat_a), -1)):
        p, lower, upper = lu_unpack(packed.astype(np.float64), piv)
        check_np(p @ lower @ upper, x.astype(np.float64), dtype, c=50 * max(shape[-2:]))


def test_lu_factor_of_a_singular_matrix_is_an_error_as_in_torch():
    a = np.stack([np.eye(2), [[1.0, 2.0], [2.0, 4.0]]])
    with pytest.raises(L.LinAlgError, match=r"lu_factor: \(Batch element 1\): U\[2,2\] is zero"):
        L.lu_factor(T(a))
    with pytest.raises(RuntimeError, match=r"U\[2,2\] is zero"):
        torch.linalg.lu_factor(torch.from_numpy(a[1]))


# ---- solve, inv, det, slogdet ----------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("a_shape,b_shape", [((4, 4), (4, 3)), ((4, 4), (4,)), ((1, 1), (1, 2)),
                                             ((3, 2, 4, 4), (3, 2, 4, 1)), ((2, 1, 3, 3), (4, 3, 2)),
                                             ((3, 3), (2, 3, 5)), ((2, 3, 3), (2, 3))])
def test_solve_matches_numpy_with_broadcasting_and_torch_vectors(dtype, layout, a_shape, b_shape):
    a = random(a_shape, dtype, 4) + 2 * np.eye(a_shape[-1], dtype=dtype)
    b = random(b_shape, dtype, 5)
    x = L.solve(laid_out(a, layout), T(b))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])  # torch's rule
    if vector:
        want = np.linalg.solve(a64, b64[..., None])[..., 0]
    else:  # a leading 1 keeps NumPy 1.x from reading a b one dim short of a as vectors
        want = np.linalg.solve(a64, b64[None] if b.ndim == a.ndim - 1 else b64)
    check(x, want, dtype, cond(a))


@pytest.mark.parametrize("dtype", FLOATS)
def test_solve_on_the_right(dtype):
    a = random((2, 4, 4), dtype, 6) + 3 * np.eye(4, dtype=dtype)
    b, v = random((2, 3, 4), dtype, 7), random((2, 4), dtype, 8)
    want = mT(np.linalg.solve(mT(a.astype(np.float64)), mT(b.astype(np.float64))))
    check(L.solve(T(a), T(b), left=False), want, dtype, cond(a))
    want_v = np.linalg.solve(mT(a.astype(np.float64)), v.astype(np.float64)[..., None])[..., 0]
    check(L.solve(T(a), T(v), left=False), want_v, dtype, cond(a))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SQUARE)
def test_inv_det_slogdet_match_numpy(dtype, layout, shape):
    a = random(shape, dtype, 9) + np.eye(shape[-1], dtype=dtype)
    a64, k = a.astype(np.float64), cond(a)
    check(L.inv(laid_out(a, layout)), np.linalg.inv(a64), dtype, k)
    d = N(L.det(laid_out(a, layout)))
    assert d.dtype == np.dtype(dtype) and d.shape == shape[:-2]
    np.testing.assert_allclose(d, np.linalg.det(a64), rtol=50 * EPS[dtype] * k * shape[-1])
    sign, logabsdet = L.slogdet(laid_out(a, layout))
    want_sign, want_log = np.linalg.slogdet(a64)
    np.testing.assert_array_equal(N(sign), want_sign.astype(dtype))
    check(logabsdet, want_log, dtype, k * shape[-1])


@pytest.mark.parametrize("dtype,n", [("float32", 4), ("float64", 8)])
def test_ill_conditioned_hilbert_matrices(dtype, n):
    h = hilbert(n, dtype)
    h64, k = h.astype(np.float64), cond(h)
    inv = L.inv(T(h))
    check(inv, np.linalg.inv(h64), dtype, k)
    check_np(h64 @ N(inv).astype(np.float64), np.eye(n), dtype, c=50 * k)
    b = np.arange(1.0, n + 1).astype(dtype)
    check(L.solve(T(h), T(b)), np.linalg.solve(h64, b.astype(np.float64)), dtype, k)
    np.testing.assert_allclose(N(L.det(T(h))), np.linalg.det(h64), rtol=50 * EPS[dtype] * k)
    check(L.slogdet(T(h)).logabsdet, np.linalg.slogdet(h64)[1], dtype, k)
    check(L.cholesky(T(h)), np.linalg.cholesky(h64), dtype, k)
    check(L.eigvalsh(T(h)), np.linalg.eigvalsh(h64), dtype)
    check(L.svdvals(T(h)), np.linalg.svd(h64, compute_uv=False), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_singular_matrices_det_zero_and_slogdet_minus_inf(dtype):
    a = np.array([np.eye(2), [[1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0], [0.0, 3.0]]]).astype(dtype)
    assert N(L.det(T(a))).tolist() == [1.0, 0.0, 0.0]
    sign, logabsdet = L.slogdet(T(a))
    assert N(sign).tolist() == [1.0, 0.0, 0.0] and N(logabsdet).tolist() == [0.0, -INF, -INF]


def test_det_overflows_where_slogdet_does_not():
    a = (10 * np.eye(50)).astype(np.float32)
    assert N(L.det(T(a))).item() == INF
    sign, logabsdet = L.slogdet(T(a))
    assert N(sign).item() == 1.0 and abs(N(logabsdet).item() - 50 * math.log(10)) < 1e-4


def test_det_sign_follows_the_row_interchanges():
    p = np.eye(4)[[1, 0, 3, 2]] * 2  # two swaps: det +16
    q = np.eye(3)[[1, 2, 0]]  # a 3-cycle: det +1
    r = np.eye(3)[[1, 0, 2]]  # one swap: det -1
    assert N(L.det(T(p))).item() == 16.0 and N(L.det(T(q))).item() == 1.0 and N(L.det(T(r))).item() == -1.0
    assert N(L.slogdet(T(-r)).sign).item() == 1.0


# ---- qr, svd, eigh ----------------------------------------------------------------


def sign_fixed(q, r):
    """Q and R with R's diagonal made non-negative: the unique factors of a
    full-rank matrix."""
    k = min(r.shape[-2:])
    d = np.sign(np.diagonal(r, axis1=-2, axis2=-1)[..., :k])
    d[d == 0] = 1
    return q[..., :k] * d[..., None, :], r[..., :k, :] * d[..., :, None]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", RECT + LARGE_RECT)
def test_qr_reduced_and_complete_reconstruct(dtype, layout, shape):
    a = random(shape, dtype, 10)
    a64, (m, n), k = a.astype(np.float64), shape[-2:], min(shape[-2:])
    q, r = L.qr(laid_out(a, layout))
    assert q.shape == shape[:-2] + (m, k) and r.shape == shape[:-2] + (k, n)
    qn, rn = N(q).astype(np.float64), N(r).astype(np.float64)
    assert (np.tril(rn, -1) == 0).all()
    orthonormal_columns(qn, dtype)
    check_np(qn @ rn, a64, dtype, c=50 * max(m, n))
    want_q, want_r = sign_fixed(*np.linalg.qr(a64))
    got_q, got_r = sign_fixed(qn, rn)
    k_cond = cond(a64[..., :k])  # of the first k columns, which fix Q and R
    check_np(got_r, want_r, dtype, c=50 * k_cond)
    check_np(got_q, want_q, dtype, c=50 * k_cond)
    qc, rc = L.qr(laid_out(a, layout), mode="complete")
    assert qc.shape == shape[:-2] + (m, m) and rc.shape == shape[:-2] + (m, n)
    orthonormal_columns(N(qc).astype(np.float64), dtype)
    check_np(N(qc).astype(np.float64) @ N(rc).astype(np.float64), a64, dtype, c=50 * max(m, n))
    q_r, r_only = L.qr(laid_out(a, layout), mode="r")
    assert q_r.shape == (0,) and np.array_equal(N(r_only), N(r))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", RECT + LARGE_RECT)
def test_svd_matches_numpy_and_reconstructs(dtype, layout, shape):
    a = random(shape, dtype, 11)
    a64, (m, n), k = a.astype(np.float64), shape[-2:], min(shape[-2:])
    want_s = np.linalg.svd(a64, compute_uv=False)
    for full in (True, False):
        u, s, vh = L.svd(laid_out(a, layout), full_matrices=full)
        assert u.shape == shape[:-2] + ((m, m) if full else (m, k))
        assert vh.shape == shape[:-2] + ((n, n) if full else (k, n))
        check(s, want_s, dtype, c=50 * max(m, n))
        un, sn, vhn = (N(x).astype(np.float64) for x in (u, s, vh))
        orthonormal_columns(un, dtype)
        orthonormal_columns(mT(vhn), dtype)
        check_np((un[..., :k] * sn[..., None, :]) @ vhn[..., :k, :], a64, dtype, c=50 * max(m, n))
    check(L.svdvals(laid_out(a, layout)), want_s, dtype, c=50 * max(m, n))


@pytest.mark.parametrize("dtype", FLOATS)
def test_svd_of_rank_deficient_matrices(dtype):
    rng = np.random.default_rng(12)
    a = (rng.standard_normal((3, 5, 1)) @ rng.standard_normal((3, 1, 4))).astype(dtype)  # rank 1
    u, s, vh = L.svd(T(a), full_matrices=False)
    sn = N(s)
    check(s, np.linalg.svd(a.astype(np.float64), compute_uv=False), dtype)
    assert (sn[..., 1:] <= 50 * EPS[dtype] * sn[..., :1]).all() and (np.diff(sn, axis=-1) <= 0).all()
    check_np((N(u) * sn[..., None, :]) @ N(vh), a.astype(np.float64), dtype, c=200)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SQUARE + LARGE_SQUARE)
def test_eigh_matches_numpy_and_reconstructs(dtype, layout, shape):
    a = symmetric(shape, dtype, 13)
    a64, n = a.astype(np.float64), shape[-1]
    w, v = L.eigh(laid_out(a, layout))
    want_w = np.linalg.eigvalsh(a64)
    check(w, want_w, dtype, c=50 * n)
    wn, vn = N(w).astype(np.float64), N(v).astype(np.float64)
    orthonormal_columns(vn, dtype)
    check_np((vn * wn[..., None, :]) @ mT(vn), a64, dtype, c=50 * n)
    check(L.eigvalsh(laid_out(a, layout)), want_w, dtype, c=50 * n)


def test_openblas_thread_count_is_restored():
    """cpu_tbb holds OpenBLAS at one thread while it runs QR, SVD and EIGH
    of large matrices and batches of small ones (Note [Serial BLAS]), and
    restores the process-wide count after, also when calls overlap."""
    import ctypes
    import threading
    blas = ctypes.CDLL("libopenblas.so.0")  # the library cpu_tbb opens, by the same name
    before = blas.openblas_get_num_threads()
    if before == 1:
        pytest.skip("OpenBLAS runs one thread here: nothing to restore")
    big, batch = T(random((200, 160), "float64", 40)), T(symmetric((50, 8, 8), "float64", 41))
    calls = [lambda: L.qr(big), lambda: L.svd(big), lambda: L.eigh(batch), lambda: L.inv(batch)]
    for f in calls:
        f()
    workers = [threading.Thread(target=lambda f=f: [f() for _ in range(20)]) for f in calls * 2]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert blas.openblas_get_num_threads() == before


RANGE_LIMITS = [("float64", 1e-300), ("float64", 1e300), ("float32", 1e-35), ("float32", 1e35)]


@pytest.mark.parametrize("dtype,factor", RANGE_LIMITS)
@pytest.mark.parametrize("shape", [(160, 150), (150, 160)])
def test_svd_of_large_matrices_near_the_range_limits(dtype, factor, shape):
    """Values whose squares under- or overflow: the SVD scales the matrix
    into range first and its singular values back, as gesdd does."""
    a = (random(shape, "float64", 15) * factor).astype(dtype)
    a64, k = a.astype(np.float64), min(shape)
    want = np.linalg.svd(a64, compute_uv=False)
    u, s, vh = L.svd(T(a), full_matrices=False)
    sn = N(s).astype(np.float64)
    np.testing.assert_allclose(sn, want, rtol=50 * k * EPS[dtype], atol=0)
    un, vhn = N(u).astype(np.float64), N(vh).astype(np.float64)
    orthonormal_columns(un, dtype)
    got = (un * (sn / factor)) @ vhn
    np.testing.assert_allclose(got, a64 / factor, rtol=0, atol=50 * k * EPS[dtype] * np.abs(a64 / factor).max())


@pytest.mark.parametrize("dtype,factor", RANGE_LIMITS)
def test_eigh_of_large_matrices_near_the_range_limits(dtype, factor):
    a = (symmetric((150, 150), "float64", 16) * factor).astype(dtype)
    a64 = a.astype(np.float64)
    w, v = L.eigh(T(a))
    wn, vn = N(w).astype(np.float64), N(v).astype(np.float64)
    want = np.linalg.eigvalsh(a64)
    np.testing.assert_allclose(wn / factor, want / factor, rtol=0, atol=50 * 150 * EPS[dtype] * np.abs(want / factor).max())
    orthonormal_columns(vn, dtype)
    got = (vn * (wn / factor)) @ mT(vn)
    np.testing.assert_allclose(got, a64 / factor, rtol=0, atol=50 * 150 * EPS[dtype] * np.abs(a64 / factor).max())


@pytest.mark.parametrize("dtype", FLOATS)
def test_eigh_reads_the_triangle_uplo_names(dtype):
    a = symmetric((2, 4, 4), dtype, 14)
    want = np.linalg.eigvalsh(a.astype(np.float64))
    upper_only, lower_only = a.copy(), a.copy()
    upper_only[..., np.tril_indices(4, -1)[0], np.tril_indices(4, -1)[1]] = np.nan
    lower_only[..., np.triu_indices(4, 1)[0], np.triu_indices(4, 1)[1]] = np.nan
    check(L.eigh(T(upper_only), UPLO="U").eigenvalues, want, dtype, c=200)
    check(L.eigvalsh(T(upper_only), UPLO="U"), want, dtype, c=200)
    check(L.eigvalsh(T(lower_only)), want, dtype, c=200)
    w, v = L.eigh(T(upper_only), UPLO="U")
    check_np((N(v) * N(w)[..., None, :]) @ mT(N(v)), a.astype(np.float64), dtype, c=200)
    with pytest.raises(RuntimeError, match="UPLO"):
        L.eigh(T(a), UPLO="X")


# ---- functions built from Tensor ops ------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
def test_pinv_matches_numpy(dtype):
    a = random((2, 5, 3), dtype, 15)
    a64 = a.astype(np.float64)
    check(L.pinv(T(a)), np.linalg.pinv(a64), dtype, cond(a))
    check(L.pinv(T(a).transpose(-2, -1)), np.linalg.pinv(mT(a64)), dtype, cond(a))
    rng = np.random.default_rng(16)
    deficient = (rng.standard_normal((4, 2)) @ rng.standard_normal((2, 3))).astype(dtype)  # rank 2
    want = np.linalg.pinv(deficient.astype(np.float64), rcond=1e-3)
    check(L.pinv(T(deficient), rtol=1e-3), want, dtype, kappa=1e3)
    sym = symmetric((3, 4, 4), dtype, 17)
    check(L.pinv(T(sym), hermitian=True), np.linalg.pinv(sym.astype(np.float64), hermitian=True), dtype, cond(sym))


@pytest.mark.parametrize("dtype", FLOATS)
def test_pinv_and_matrix_rank_tolerances_as_torch(dtype):
    a = np.diag([4.0, 1.0, 0.25, 0.0]).astype(dtype)
    ta = torch.from_numpy(a)
    for kw in ({}, {"rtol": 0.1}, {"atol": 0.5}, {"atol": 0.5, "rtol": 0.5}, {"atol": 0.0}):
        assert N(L.matrix_rank(T(a), **kw)).item() == torch.linalg.matrix_rank(ta, **kw).item(), kw
        np.testing.assert_array_equal(N(L.pinv(T(a), **kw)), torch.linalg.pinv(ta, **kw).numpy())
    batch, tb = np.stack([a, 2 * a]), torch.from_numpy(np.stack([a, 2 * a]))
    rtol, atol = np.array([0.3, 0.05], dtype=dtype), np.array([1.5, 0.4], dtype=dtype)
    got = L.matrix_rank(T(batch), rtol=T(rtol))
    assert got.dtype == tessera.int64
    assert N(got).tolist() == torch.linalg.matrix_rank(tb, rtol=torch.from_numpy(rtol)).tolist() == [1, 3]
    got = L.matrix_rank(T(batch), atol=T(atol))
    assert N(got).tolist() == torch.linalg.matrix_rank(tb, atol=torch.from_numpy(atol)).tolist() == [1, 3]
    want = torch.linalg.pinv(tb, atol=torch.from_numpy(atol)).numpy()
    np.testing.assert_array_equal(N(L.pinv(T(batch), atol=T(atol))), want)


@pytest.mark.parametrize("dtype", FLOATS)
def test_matrix_rank_matches_numpy(dtype):
    rng = np.random.default_rng(18)
    a = np.stack([rng.standard_normal((5, r)) @ rng.standard_normal((r, 4)) for r in range(5)])
    want = np.linalg.matrix_rank(a)
    assert want.tolist() == [0, 1, 2, 3, 4]
    if dtype == "float64":
        assert N(L.matrix_rank(T(a))).tolist() == want.tolist()
    assert N(L.matrix_rank(T(a.astype(dtype)), rtol=1e-3)).tolist() == want.tolist()
    sym = (a[:, :4] + mT(a[:, :4])).astype(dtype)
    w = np.linalg.eigvalsh(sym.astype(np.float64))
    want = np.linalg.matrix_rank(sym.astype(np.float64), tol=1e-3 * np.abs(w).max(-1), hermitian=True)
    assert N(L.matrix_rank(T(sym), rtol=1e-3, hermitian=True)).tolist() == want.tolist()


MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, INF, -INF]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norm_matches_numpy(dtype, ord):
    a = random((2, 3, 4), dtype, 19)
    a64 = a.astype(np.float64)
    check(L.matrix_norm(T(a), ord), np.linalg.norm(a64, ord, axis=(-2, -1)), dtype, c=100)
    check(L.matrix_norm(T(a).transpose(0, 2), ord, keepdim=True),
          np.linalg.norm(np.swapaxes(a64, 0, 2), ord, axis=(-2, -1), keepdims=True), dtype, c=100)
    for dim in ((0, 2), (2, 0), (1, -3)):
        check(L.matrix_norm(T(a), ord, dim=dim, keepdim=True), np.linalg.norm(a64, ord, axis=dim, keepdims=True),
              dtype, c=100)
        check(L.matrix_norm(T(a), ord, dim=dim), np.linalg.norm(a64, ord, axis=dim), dtype, c=100)
    check(L.matrix_norm(T(a), ord, dtype=tessera.float64), np.linalg.norm(a64, ord, axis=(-2, -1)), "float64", c=100)


def test_matrix_norm_refuses_unknown_orders_and_dims():
    for bad in (3, "x", 0):
        with pytest.raises(RuntimeError, match="Order"):
            L.matrix_norm(tessera.ones(2, 2), bad)
    with pytest.raises(RuntimeError, match="2-tuple"):
        L.matrix_norm(tessera.ones(2, 2), dim=(0,))
    with pytest.raises(RuntimeError, match="at least 2"):
        L.matrix_norm(tessera.ones(2))


def np_vector_norm(x, ord, dim, keepdims):
    """NumPy's norm of the vectors along `dim` (the axes moved last and flattened)."""
    x = x.astype(np.float64)
    axes = tuple(range(x.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else dim)
    axes = tuple(d % x.ndim for d in axes)
    rest = [d for d in range(x.ndim) if d not in axes]
    flat = np.transpose(x, rest + list(axes)).reshape([x.shape[d] for d in rest] + [-1])
    with np.errstate(divide="ignore"):
        r = np.linalg.norm(flat, ord, axis=-1)
    if keepdims:
        r = r.reshape([1 if d in axes else x.shape[d] for d in range(x.ndim)])
    return r


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("ord", [2, 1, 0, INF, -INF, 3, 0.5, -1, -2])
def test_vector_norm_matches_numpy(dtype, ord):
    a = random((2, 3, 4), dtype, 20)
    a[0, 1, 2] = 0.0
    for dim in (None, 1, -1, (0, 2), (2, 0, 1)):
        for keepdim in (False, True):
            got = L.vector_norm(T(a), ord, dim, keepdim)
            check(got, np_vector_norm(a, ord, dim, keepdim), dtype, c=100)
    check(L.vector_norm(T(a).transpose(0, 2)[::2], ord, 1), np_vector_norm(np.swapaxes(a, 0, 2)[::2], ord, 1, False),
          dtype, c=100)
    check(L.vector_norm(T(np.asarray(-3.0, dtype)), ord), np.asarray(1.0 if ord == 0 else 3.0), dtype)


@pytest.mark.parametrize("dtype", FLOATS)
def test_matrix_power_matches_numpy(dtype):
    a = random((2, 3, 3), dtype, 21) + 2 * np.eye(3, dtype=dtype)
    a64 = a.astype(np.float64)
    for n in (-3, -1, 0, 1, 2, 5, 8):
        got = L.matrix_power(T(a), n)
        check(got, np.linalg.matrix_power(a64, n), dtype, cond(a) ** max(abs(n), 1))
    src = T(a)
    one = L.matrix_power(src, 1)  # a copy, as torch's
    assert one.data_ptr() != src.data_ptr() and np.array_equal(N(one), a)
    i = np.arange(-4, 5).reshape(3, 3)
    assert N(L.matrix_power(T(i), 3)).tolist() == np.linalg.matrix_power(i, 3).tolist()
    assert N(L.matrix_power(T(np.zeros((0, 2, 2), dtype)), 0)).shape == (0, 2, 2)
    with pytest.raises(RuntimeError, match="square"):
        L.matrix_power(tessera.ones(2, 3), 2)


def test_cross_matches_numpy_with_broadcasting_and_dims():
    rng = np.random.default_rng(22)
    a, b = rng.standard_normal((4, 5, 3)), rng.standard_normal((5, 3))
    check(L.cross(T(a), T(b)), np.cross(a, b), "float64")
    c, d = rng.standard_normal((3, 2, 4)), rng.standard_normal((3, 1, 4))
    check(L.cross(T(c), T(d), dim=0), np.cross(c, d, axis=0), "float64")
    check(L.cross(T(c).transpose(0, 2), T(d).transpose(0, 2), dim=2), np.cross(np.swapaxes(c, 0, 2),
                                                                                np.swapaxes(d, 0, 2)), "float64")
    i, j = np.arange(-4, 5).reshape(3, 3), np.arange(9).reshape(3, 3)[::-1]
    got = L.cross(T(i.astype(np.int32)), T(j.astype(np.int32)))
    assert got.dtype == tessera.int32 and N(got).tolist() == np.cross(i, j).tolist()
    assert N(L.cross(T(np.ones((0, 3))), T(np.ones((0, 3))))).shape == (0, 3)
    with pytest.raises(RuntimeError, match="length 3"):
        L.cross(tessera.ones(2, 4), tessera.ones(2, 4))


def test_diagonal_is_a_view_matching_numpy():
    a = np.arange(60.0).reshape(3, 4, 5)
    for offset in (0, 1, -1, 3, -2, 5, -4, 100, -100):
        for d1, d2 in ((-2, -1), (0, 2), (2, 0), (1, 0)):
            got = L.diagonal(T(a), offset=offset, dim1=d1, dim2=d2)
            assert N(got).tolist() == np.diagonal(a, offset, d1, d2).tolist(), (offset, d1, d2)
    t = T(a).transpose(1, 2)[:, ::2]
    assert N(L.diagonal(t, offset=1)).tolist() == np.diagonal(np.swapaxes(a, 1, 2)[:, ::2], 1, -2, -1).tolist()
    base = tessera.zeros(3, 3)
    L.diagonal(base).fill_(7.0)
    assert N(base).tolist() == (7 * np.eye(3)).tolist()


def test_outer_tensordot_vecdot_matmul_match_numpy():
    rng = np.random.default_rng(23)
    u, v = rng.standard_normal(4), rng.standard_normal(3)
    check(L.outer(T(u), T(v)), np.outer(u, v), "float64")
    assert N(L.outer(T(np.arange(3)), T(np.arange(2)))).tolist() == np.outer(np.arange(3), np.arange(2)).tolist()
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 4, 5))
    check(L.tensordot(T(x), T(y)), np.tensordot(x, y), "float64")
    check(L.tensordot(T(x), T(y), dims=([1, 2], [0, 1])), np.tensordot(x, y, ([1, 2], [0, 1])), "float64")
    check(L.tensordot(T(x), T(y[:2]), dims=([0], [0])), np.tensordot(x, y[:2], ([0], [0])), "float64")
    check(L.tensordot(T(x), T(y), dims=0), np.tensordot(x, y, 0), "float64")
    w = rng.standard_normal(4)
    check(L.vecdot(T(x), T(w)), x @ w, "float64")
    check(L.vecdot(T(x), T(x), dim=0), np.sum(x * x, 0), "float64")
    check(L.matmul(T(x), T(y[0])), x @ y[0], "float64")


# ---- 1x1 and empty ------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS)
def test_one_by_one(dtype):
    a = np.array([[[4.0]], [[-2.0]]], dtype)
    assert N(L.inv(T(a))).ravel().tolist() == [0.25, -0.5]
    assert N(L.det(T(a))).tolist() == [4.0, -2.0]
    assert N(L.cholesky(T(a[:1]))).ravel().tolist() == [2.0]
    assert N(L.svdvals(T(a))).ravel().tolist() == [4.0, 2.0]
    assert N(L.eigvalsh(T(a))).ravel().tolist() == [4.0, -2.0]
    assert np.abs(N(L.qr(T(a)).R)).ravel().tolist() == [4.0, 2.0]
    assert N(L.solve(T(a), T(np.array([[[8.0]], [[8.0]]], dtype)))).ravel().tolist() == [2.0, -4.0]
    assert N(L.matrix_rank(T(a))).tolist() == [1, 1]


@pytest.mark.parametrize("dtype", FLOATS)
def test_empty_batches(dtype):
    e = T(np.zeros((0, 3, 3), dtype))
    shapes = {
        "cholesky": L.cholesky(e), "inv": L.inv(e), "det": L.det(e), "sign": L.slogdet(e).sign,
        "lu": L.lu_factor(e).LU, "pivots": L.lu_factor(e).pivots, "solve": L.solve(e, T(np.zeros((0, 3, 2), dtype))),
        "q": L.qr(e).Q, "s": L.svdvals(e), "u": L.svd(e).U, "w": L.eigvalsh(e), "v": L.eigh(e).eigenvectors,
        "pinv": L.pinv(e), "rank": L.matrix_rank(e), "norm": L.matrix_norm(e, 2), "power": L.matrix_power(e, -2),
    }
    want = {"cholesky": (0, 3, 3), "inv": (0, 3, 3), "det": (0,), "sign": (0,), "lu": (0, 3, 3), "pivots": (0, 3),
            "solve": (0, 3, 2), "q": (0, 3, 3), "s": (0, 3), "u": (0, 3, 3), "w": (0, 3), "v": (0, 3, 3),
            "pinv": (0, 3, 3), "rank": (0,), "norm": (0,), "power": (0, 3, 3)}
    assert {k: tuple(v.shape) for k, v in shapes.items()} == want


@pytest.mark.parametrize("dtype", FLOATS)
def test_empty_matrices(dtype):
    z = T(np.zeros((0, 0), dtype))
    assert N(L.inv(z)).shape == (0, 0) and N(L.cholesky(z)).shape == (0, 0)
    assert N(L.det(z)).item() == 1.0 and [N(x).item() for x in L.slogdet(z)] == [1.0, 0.0]
    w, v = L.eigh(z)
    assert N(w).shape == (0,) and N(v).shape == (0, 0)
    tall = T(np.zeros((3, 0), dtype))
    q, r = L.qr(tall)
    assert N(q).shape == (3, 0) and N(r).shape == (0, 0)
    q, r = L.qr(tall, mode="complete")
    assert N(q).tolist() == np.eye(3).tolist() and N(r).shape == (3, 0)
    u, s, vh = L.svd(tall)
    assert N(u).tolist() == np.eye(3).tolist() and N(s).shape == (0,) and N(vh).shape == (0, 0)
    u, s, vh = L.svd(tall, full_matrices=False)
    assert N(u).shape == (3, 0) and N(vh).shape == (0, 0)
    lu, pivots = L.lu_factor(tall)
    assert N(lu).shape == (3, 0) and N(pivots).shape == (0,) and pivots.dtype == tessera.int32
    assert N(L.pinv(tall)).tolist() == np.zeros((0, 3)).tolist()
    assert N(L.matrix_rank(tall)).item() == 0 and N(L.matrix_norm(tall)).item() == 0.0
    assert N(L.solve(T(np.eye(2, dtype=dtype)), T(np.zeros((2, 0), dtype)))).shape == (2, 0)


# ---- errors ---------------------------------------------------------------------------


SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])  # LU meets an exact 0 pivot


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m", [SINGULAR, SINGULAR.T, SINGULAR[::-1]])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_inv_of_a_singular_matrix_says_what_torch_says(dtype, m, layout):
    """PyTorch 1.13 factors A^T where A is contiguous and A otherwise, and
    names the zero diagonal element of that LU; so does cpu_tbb."""
    a = m.astype(dtype)
    tt = torch.from_numpy(np.ascontiguousarray(a))
    if layout == "transposed":
        tt = torch.from_numpy(np.ascontiguousarray(a.T)).mT
    elif layout == "sliced":
        big = torch.full((6, 9), float("nan"), dtype=getattr(torch, dtype))
        big[::2, ::3] = tt
        tt = big[::2, ::3]
    with pytest.raises(RuntimeError) as want:
        torch.linalg.inv(tt)
    with pytest.raises(L.LinAlgError) as got:
        L.inv(laid_out(a, layout))
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", FLOATS)
def test_errors_name_the_batch_element(dtype):
    a = np.stack([np.eye(3), SINGULAR, np.eye(3)]).astype(dtype)
    with pytest.raises(L.LinAlgError, match=r"^linalg\.inv: \(Batch element 1\): .*singular"):
        L.inv(T(a))
    with pytest.raises(L.LinAlgError, match=r"\(Batch element 1\): .*singular"):
        L.solve(T(a), T(np.ones((3, 3, 2), dtype)))
    with pytest.raises(L.LinAlgError, match=r"\(Batch element 1\)"):
        L.matrix_power(T(a), -1)
    grid = np.broadcast_to(np.eye(3), (2, 3, 3, 3)).astype(dtype).copy()
    grid[1, 2] = SINGULAR  # flat index 1 * 3 + 2
    with pytest.raises(L.LinAlgError, match=r"\(Batch element 5\)"):
        L.inv(T(grid))
    not_pd = np.stack([np.eye(3), np.diag([1.0, -1.0, 1.0]), np.eye(3)]).astype(dtype)
    with pytest.raises(L.LinAlgError, match=r"^linalg\.cholesky: \(Batch element 1\): .*minor of order 2 is not "
                                            r"positive-definite"):
        L.cholesky(T(not_pd))
    with pytest.raises(L.LinAlgError, match=r"\(Batch element 1\)"):
        L.cholesky(T(not_pd), upper=True)
    with pytest.raises(RuntimeError) as one:
        L.inv(T(SINGULAR.astype(dtype)))
    assert isinstance(one.value, L.LinAlgError) and "Batch element" not in str(one.value)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("n", [3, 150])
def test_non_finite_input_to_svd_is_a_linalg_error(bad, n):
    # torch.linalg.svd: "The algorithm failed to converge because the input matrix contained non-finite values."
    # (for an infinity PyTorch 1.13 itself ends in a SystemError: LAPACK's xerbla, NumPy's in the process)
    a = np.stack([np.eye(n), np.eye(n)])
    a[1, 1, 2] = bad
    for fn in (L.svdvals, L.svd):
        with pytest.raises(L.LinAlgError, match=r"linalg\.svd: \(Batch element 1\): The algorithm failed to "
                                                r"converge because the input matrix contained non-finite values"):
            fn(T(a))


def test_inputs_are_left_unchanged():
    a, b = spd((2, 3, 3), "float64", 28), random((2, 3, 2), "float64", 29)
    ta, tb = T(a.copy()), T(b.copy())
    for fn in (L.cholesky, L.lu_factor, L.inv, L.det, L.slogdet, L.qr, L.svd, L.svdvals, L.eigh, L.eigvalsh, L.pinv,
               L.matrix_rank, lambda x: L.solve(x, tb), lambda x: L.qr(x, mode="complete")):
        fn(ta)
    assert np.array_equal(N(ta), a) and np.array_equal(N(tb), b)


def test_shape_and_dtype_errors():
    with pytest.raises(RuntimeError, match="square"):
        L.inv(tessera.ones(3, 4))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        L.det(tessera.ones(3))
    with pytest.raises(RuntimeError, match="Low precision"):
        L.svd(tessera.ones(2, 2, dtype=tessera.float16))
    with pytest.raises(RuntimeError, match="Incompatible shapes"):
        L.solve(tessera.eye(3), tessera.ones(4, 2))
    with pytest.raises(RuntimeError, match="unrecognized mode"):
        L.qr(tessera.eye(2), mode="full")
    with pytest.raises(TypeError, match="must be Tensor"):
        L.inv([[1.0]])


def test_integers_and_bool_are_refused_as_in_torch():
    i, b = tessera.tensor([[2, 1], [1, 3]]), tessera.tensor([[True, False], [False, True]])
    for fn in (L.inv, L.det, L.cholesky, L.svdvals, L.eigvalsh, L.pinv, L.matrix_rank, L.matrix_norm, L.vector_norm,
               lambda x: L.solve(x, x)):
        for x in (i, b):
            with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input"):
                fn(x)
    assert N(L.vector_norm(i, dtype=tessera.float64)).item() == pytest.approx(math.sqrt(15))
    assert N(L.matrix_power(i, 2)).tolist() == [[5, 5], [5, 10]]  # a product of matrices, as torch's


def test_solve_promotes_mixed_float_dtypes():
    x = L.solve(tessera.eye(2, dtype=tessera.float32), tessera.ones(2, dtype=tessera.float64))
    assert x.dtype == tessera.float64 and N(x).tolist() == [1.0, 1.0]


# ---- tessera.array_api.linalg -----------------------------------------------------------


EXTENSION = ["cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "matmul", "matrix_norm",
             "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr", "slogdet", "solve", "svd",
             "svdvals", "tensordot", "trace", "vecdot", "vector_norm"]


def test_array_api_namespace_has_the_extension():
    assert hasattr(xp, "linalg") and "linalg" in xp.__all__
    assert sorted(xp.linalg.__all__) == sorted(EXTENSION) and all(callable(getattr(xp.linalg, n)) for n in EXTENSION)
    x = xp.asarray([[2.0, 1.0], [1.0, 3.0]])
    assert x.__array_namespace__().linalg is xp.linalg


def test_array_api_results_and_named_tuples():
    a = spd((2, 3, 3), "float64", 24)
    x = xp.asarray(a)
    w, v = xp.linalg.eigh(x)
    assert xp.linalg.eigh(x)._fields == ("eigenvalues", "eigenvectors")
    check_np(np.asarray(w), np.linalg.eigvalsh(a), "float64")
    q, r = res = xp.linalg.qr(x, mode="complete")
    assert res._fields == ("Q", "R") and q.shape == (2, 3, 3)
    check_np(np.asarray(q) @ np.asarray(r), a, "float64", c=200)
    s = xp.linalg.slogdet(x)
    assert s._fields == ("sign", "logabsdet")
    check_np(np.asarray(s.logabsdet), np.linalg.slogdet(a)[1], "float64")
    u = xp.linalg.svd(x, full_matrices=False)
    assert u._fields == ("U", "S", "Vh")
    check_np(np.asarray(u.S), np.linalg.svd(a, compute_uv=False), "float64", c=200)
    check_np(np.asarray(xp.linalg.svdvals(x)), np.linalg.svd(a, compute_uv=False), "float64", c=200)
    check_np(np.asarray(xp.linalg.cholesky(x, upper=True)), mT(np.linalg.cholesky(a)), "float64", c=200)
    check_np(np.asarray(xp.linalg.inv(x)), np.linalg.inv(a), "float64", c=200)
    check_np(np.asarray(xp.linalg.det(x)), np.linalg.det(a), "float64", c=200)
    check_np(np.asarray(xp.linalg.pinv(x)), np.linalg.pinv(a), "float64", c=200)
    check_np(np.asarray(xp.linalg.matrix_power(x, 3)), np.linalg.matrix_power(a, 3), "float64", c=2000)
    check_np(np.asarray(xp.linalg.eigvalsh(x)), np.linalg.eigvalsh(a), "float64", c=200)
    for ord in MATRIX_ORDS:
        got = xp.linalg.matrix_norm(x, keepdims=True, ord=ord)
        check_np(np.asarray(got), np.linalg.norm(a, ord, axis=(-2, -1), keepdims=True), "float64", c=200)
    got = xp.linalg.vector_norm(x, axis=(0, -1), keepdims=True, ord=3)
    check_np(np.asarray(got), np_vector_norm(a, 3, (0, -1), True), "float64", c=200)
    rank = xp.linalg.matrix_rank(x)
    assert rank.dtype is xp.int64 and np.asarray(rank).tolist() == [3, 3]
    assert np.asarray(xp.linalg.matrix_rank(x, rtol=xp.asarray([0.0, 0.999]))).tolist() == [3, 1]


def test_array_api_solve_reads_only_1d_x2_as_a_vector():
    rng = np.random.default_rng(25)
    a = rng.standard_normal((3, 3, 3)) + 3 * np.eye(3)
    b = rng.standard_normal((3, 3))  # torch (and NumPy 1.x) would read a batch of vectors
    got = xp.linalg.solve(xp.asarray(a), xp.asarray(b))
    assert got.shape == (3, 3, 3)
    check_np(np.asarray(got), np.linalg.solve(a, np.broadcast_to(b, (3, 3, 3))), "float64", c=50 * cond(a))
    v = rng.standard_normal(3)
    got = xp.linalg.solve(xp.asarray(a), xp.asarray(v))
    assert got.shape == (3, 3)
    check_np(np.asarray(got), np.linalg.solve(a, v[None, :, None])[..., 0], "float64", c=50 * cond(a))
    b4 = rng.standard_normal((2, 1, 3, 4))
    got = xp.linalg.solve(xp.asarray(a, dtype=xp.float32), xp.asarray(b4))
    assert got.dtype is xp.float64 and got.shape == (2, 3, 3, 4)


def test_array_api_dtype_rules():
    i = xp.asarray([[1, 2], [3, 4]], dtype=xp.int32)
    for fn in (xp.linalg.inv, xp.linalg.det, xp.linalg.svdvals, xp.linalg.vector_norm, xp.linalg.matrix_norm):
        with pytest.raises(TypeError):
            fn(i)
    with pytest.raises(TypeError):
        xp.linalg.solve(xp.asarray([[1.0]]), xp.asarray([1]))
    assert np.asarray(xp.linalg.diagonal(xp.asarray([[True, False], [False, False]]))).tolist() == [True, False]
    c = xp.linalg.cross(xp.asarray([1, 0, 0], dtype=xp.int8), xp.asarray([[0, 1, 0]], dtype=xp.int16))
    assert c.dtype is xp.int16 and np.asarray(c).tolist() == [[0, 0, 1]]
    o = xp.linalg.outer(xp.asarray([1, 2], dtype=xp.uint8), xp.asarray([3, 4], dtype=xp.uint16))
    assert o.dtype is xp.uint16 and np.asarray(o).tolist() == [[3, 4], [6, 8]]
    with pytest.raises(ValueError):
        xp.linalg.outer(xp.ones((2, 2)), xp.ones(2))
    with pytest.raises(ValueError):
        xp.linalg.cross(xp.ones((2, 4)), xp.ones((2, 4)))
    with pytest.raises(ValueError):
        xp.linalg.qr(xp.ones((2, 2)), mode="r")


@pytest.mark.parametrize("dtype,want", [("float32", "float64"), ("float64", "float64"), ("int8", "int64"),
                                        ("int64", "int64"), ("uint8", "uint64"), ("uint32", "uint64")])
def test_array_api_trace_sums_in_the_2022_12_dtype(dtype, want):
    a = (np.arange(2 * 3 * 4) % 7).reshape(2, 3, 4).astype(dtype)
    old = xp.asarray(a).__array_namespace__(api_version="2022.12")
    new = "float32" if dtype == "float32" else want  # 2023.12 on: a floating dtype is kept
    for offset in (0, 1, -1, 2, -5, 9):
        for ns, d in ((old, want), (xp, new)):
            got = ns.linalg.trace(xp.asarray(a), offset=offset)
            assert got.dtype is getattr(xp, d)
            assert np.asarray(got).tolist() == np.trace(a, offset, -2, -1).astype(d).tolist()
    assert xp.linalg.trace(xp.asarray(a), dtype=xp.float32).dtype is xp.float32


def test_array_api_takes_tensors_and_keeps_aliases():
    t = tessera.from_numpy(spd((3, 3), "float64", 26))
    assert isinstance(xp.linalg.inv(t), xp.Array) and isinstance(xp.linalg.cholesky(t), xp.Array)
    x = xp.asarray([[1.0, 2.0], [3.0, 4.0]])
    assert np.asarray(xp.linalg.matmul(x, x)).tolist() == np.asarray(xp.matmul(x, x)).tolist()
    assert np.asarray(xp.linalg.matrix_transpose(x)).tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert np.asarray(xp.linalg.vecdot(x, x)).tolist() == [5.0, 25.0]
    assert np.asarray(xp.linalg.tensordot(x, x, axes=1)).tolist() == [[7.0, 10.0], [15.0, 22.0]]


# ---- other devices: cuda's own kernels (emulated), and the CPU fallback ------------------

DEVICE_SCRIPT = r"""
import json, sys
import numpy as np
import tessera
import tessera.array_api as xp
from tessera import linalg as L
device = sys.argv[1]
rng = np.random.default_rng(27)
x = rng.standard_normal((2, 4, 4))
spd = x @ x.transpose(0, 2, 1) + 4 * np.eye(4)
b = rng.standard_normal((2, 4, 3))
z = x + 1j * rng.standard_normal((2, 4, 4))
hpd = (z @ np.conj(z.transpose(0, 2, 1)) + 4 * np.eye(4)).astype(np.complex64)
big = (rng.standard_normal((2, 70, 66)) + 1j * rng.standard_normal((2, 70, 66))) / 8
big_h = big @ np.conj(big.transpose(0, 2, 1)) + np.eye(70)
results, devices = {}, {}
for dev in ("cpu", device):
    a, r = tessera.from_numpy(spd).to(dev), tessera.from_numpy(b).to(dev)
    out = {
        "cholesky": L.cholesky(a), "cholesky_upper_t": L.cholesky(a.transpose(-2, -1), upper=True),
        "inv": L.inv(a), "solve": L.solve(a, r), "solve_vector": L.solve(a, r[..., 0]), "det": L.det(a),
        "logabsdet": L.slogdet(a).logabsdet, "lu": L.lu_factor(a).LU, "eigvalsh": L.eigvalsh(a),
        "svdvals": L.svdvals(r), "abs_r": L.qr(r).R.abs(), "pinv": L.pinv(r), "rank": L.matrix_rank(r),
        "nuc": L.matrix_norm(r, "nuc"), "norm_inf": L.matrix_norm(r, float("inf")),
        "vector_norm": L.vector_norm(r, 3, dim=(0, 2)), "power": L.matrix_power(a, -2),
        "cross": L.cross(r[:, :3], r[:, 1:], dim=1), "diagonal": L.diagonal(r, offset=1),
        "xp_trace": xp.linalg.trace(r)._t, "xp_inv": xp.linalg.inv(a)._t,
    }
    c, rc = tessera.from_numpy(hpd).to(dev), tessera.from_numpy(b.astype(np.complex128)).to(dev)
    out.update({"c_cholesky": L.cholesky(c), "c_inv": L.inv(c), "c_solve": L.solve(c, rc), "c_det": L.det(c),
                "c_sign": L.slogdet(c).sign, "c_eigvalsh": L.eigvalsh(c), "c_svdvals": L.svdvals(rc),
                "c_abs_r": L.qr(rc).R.abs(), "c_pinv": L.pinv(rc),
                "c_cholesky_upper_t": L.cholesky(c.transpose(-2, -1), upper=True), "c_lu": L.lu_factor(c).LU})
    gc = rc[:, :3] + (3 + 1j) * tessera.eye(3, dtype=tessera.complex128).to(dev)  # general, contiguous: no A^T
    out.update({"c_inv_general": L.inv(gc), "c_inv_general_t": L.inv(gc.transpose(-2, -1))})
    rcw = rc.transpose(-2, -1)  # wide and complex: U and Vh of its transpose, transposed (not conjugated)
    for full in (False, True):
        u, s, vh = L.svd(rcw, full_matrices=full)
        out["c_svd_wide_residual_%d" % full] = ((u[..., :, :3] * s.unsqueeze(-2)) @ vh[..., :3, :] - rcw).abs()
        out["c_svd_wide_unitary_%d" % full] = (vh @ vh.mH).abs()
    q, rr = L.qr(rc, mode="complete")
    out["c_qr_complete_residual"] = (q @ rr - rc).abs()
    out["c_qr_complete_unitary"] = (q.mH @ q).abs()
    w, v = L.eigh(c)
    out["c_eigh_residual"] = ((v * w.unsqueeze(-2)) @ v.mH - c).abs()
    # Small matrices take cuda's batched routines (Jacobi for EIGH and SVD),
    # larger ones (over 32 x 32, or 64 x 64 for LU's) a call sequence each.
    for tag, x, h in (("big_", tessera.from_numpy(big.real).to(dev), tessera.from_numpy(big_h.real).to(dev)),
                      ("c_big_", tessera.from_numpy(big).to(dev), tessera.from_numpy(big_h).to(dev))):
        out[tag + "cholesky"] = L.cholesky(h)
        out[tag + "inv"] = L.inv(h)
        out[tag + "solve"] = L.solve(h, x)
        u, s, vh = L.svd(x, full_matrices=False)
        out[tag + "svd_residual"] = ((u * s.unsqueeze(-2)) @ vh - x).abs()
        out[tag + "svdvals"] = L.svdvals(x)
        w, v = L.eigh(h)
        out[tag + "eigh_residual"] = ((v * w.unsqueeze(-2)) @ v.mH - h).abs()
        out[tag + "eigvalsh"] = L.eigvalsh(h)
    g = r[:, :3] + 3 * tessera.eye(3, dtype=tessera.float64).to(dev)  # general (not symmetric), contiguous
    out.update({"inv_general": L.inv(g), "inv_general_t": L.inv(g.transpose(-2, -1)), "lu_general": L.lu_factor(g).LU})
    rw = r.transpose(-2, -1)  # wide: cuda's gesvd works on its transpose
    for full in (False, True):
        u, s, vh = L.svd(rw, full_matrices=full)
        out["svd_wide_residual_%d" % full] = ((u[..., :, :3] * s.unsqueeze(-2)) @ vh[..., :3, :] - rw).abs()
        out["svd_wide_orthonormal_%d" % full] = (vh @ vh.transpose(-2, -1)).abs()
    q, rr = L.qr(r, mode="complete")
    out["qr_complete_residual"] = (q @ rr - r).abs()
    out["qr_complete_orthonormal"] = (q.transpose(-2, -1) @ q).abs()
    w, v = L.eigh(a)
    out["eigh_residual"] = ((v * w.unsqueeze(-2)) @ v.transpose(-2, -1) - a).abs()
    devices[dev] = sorted({str(t.device) for t in out.values()})
    results[dev] = {k: t.cpu().numpy() for k, t in out.items()}
# Single precision (complex64 here) within its rounding: the device's routines
# and GEMMs round in another order than the CPU's (residuals are that noise).
single = (np.float32, np.complex64)
same = {k: bool(results["cpu"][k].dtype == results[device][k].dtype and
                np.allclose(results["cpu"][k], results[device][k], *((1e-4, 1e-5) if results["cpu"][k].dtype in single
                                                                      else (1e-9, 1e-12)))) for k in results["cpu"]}
singular = tessera.from_numpy(np.stack([np.eye(2), [[1.0, 2.0], [2.0, 4.0]]])).to(device)
errors = {}
for name, fn in (("inv", L.inv), ("cholesky", L.cholesky), ("solve", lambda x: L.solve(x, x))):
    try:
        fn(singular)
        errors[name] = None
    except L.LinAlgError as e:
        errors[name] = str(e)
print(json.dumps({"devices": devices[device], "same": same, "errors": errors}))
"""


def run_on(device, config):
    env = dict(os.environ, TESSERA_CONFIG=str(config), TESSERA_LOG_LEVEL="error")
    out = subprocess.run([sys.executable, "-c", DEVICE_SCRIPT, device], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def check_device_run(result, device):
    assert result["devices"] == [device], result["devices"]
    assert all(result["same"].values()), result["same"]
    errors = result["errors"]
    assert errors["inv"].startswith("linalg.inv: (Batch element 1): The diagonal element 2 is zero"), errors
    assert errors["cholesky"].startswith("linalg.cholesky: (Batch element 1): "), errors
    assert "minor of order 2 is not positive-definite" in errors["cholesky"], errors
    assert errors["solve"].startswith("torch.linalg.solve: (Batch element 1): "), errors


@pytest.mark.skipif("TESSERA_TEST_CUDA_EMU_CONFIG" not in os.environ, reason="run by ctest, with cuda_emu.so")
def test_linalg_on_the_emulated_cuda_device():
    check_device_run(run_on("cuda:0", os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"]), "cuda:0")


@needs_arena
def test_linalg_on_a_device_the_host_cannot_address(tmp_path):
    path = arena_config(tmp_path)
    check_device_run(run_on("arena:0", path), "arena:0")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [3, 24, 100])
def test_a_matrix_alone_equals_it_in_a_batch_bit_for_bit(dtype, n):
    """Small matrices run on one OpenBLAS thread alone as in a batch, so a
    stack's result is the matrix's own (the Array API suite's _test_stacks
    compares them exactly; OpenBLAS's threaded kernels round differently)."""
    r = np.random.default_rng(n)
    a = r.standard_normal((3, n, n)).astype(dtype)
    spd = (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(dtype)
    batch, one = T(spd), T(spd[1])
    for f in (L.eigvalsh, L.inv, L.cholesky, lambda x: L.qr(x)[1], L.svdvals, L.det):
        got_batch, got_one = f(batch)[1].numpy(), f(one).numpy()
        assert np.array_equal(got_batch, got_one), f
    rhs = T(r.standard_normal((3, n, 2)).astype(dtype))
    assert np.array_equal(L.solve(batch, rhs)[1].numpy(), L.solve(one, rhs[1]).numpy())
