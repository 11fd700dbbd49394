# SPDX-License-Identifier: Apache-2.0
"""tessera.linalg and tessera.array_api.linalg on complex64 and complex128
(ABI 1.7: LAPACK's c/z routines) against NumPy 1.24's numpy.linalg, and
PyTorch 1.13 where NumPy has no counterpart (lu_factor) or where torch's
rule is the one followed (the messages, slogdet's sign). Random, Hermitian
positive-definite, ill-conditioned, singular and batched matrices, through
contiguous, transposed and step-sliced views. Results that are not unique
(Q, U, Vh, eigenvectors) are checked by reconstruction (Q R, U S V^H,
L L^H, V diag(w) V^H) and by unitarity, within c * eps * condition number
* the size of the values."""
import math

import numpy as np
import pytest
import torch

import tessera
import tessera.array_api as xp
from tessera import linalg as L
from test_linalg import LAYOUTS, MATRIX_ORDS, N, RECT, SQUARE, T, laid_out, lu_unpack

COMPLEX = ["complex64", "complex128"]
REAL = {"complex64": "float32", "complex128": "float64"}
EPS = {"complex64": float(np.finfo(np.float32).eps), "complex128": float(np.finfo(np.float64).eps)}


def mH(a):
    return np.conj(np.swapaxes(a, -1, -2))


def crandom(shape, dtype, seed):
    r = np.random.default_rng(seed)
    return (r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dtype)


def hpd(shape, dtype, seed):
    """Hermitian positive-definite: X X^H + n I."""
    x = crandom(shape, "complex128", seed)
    return (x @ mH(x) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def hermitian(shape, dtype, seed):
    x = crandom(shape, "complex128", seed)
    return ((x + mH(x)) / 2).astype(dtype)


def cond(a):
    a = np.asarray(a, np.complex128)
    return float(np.max(np.linalg.cond(a))) if a.size else 1.0


def close(got, want, dtype, kappa=1.0, c=50.0):
    """got (a Tensor or an array) against want (computed in complex128 or
    float64 from the same values): shape exactly, values within
    c * eps(dtype) * kappa * max(1, max|want|)."""
    g = N(got) if isinstance(got, tessera.Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert g.shape == want.shape, (g.shape, want.shape)
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(g, want, rtol=0, atol=c * EPS[dtype] * kappa * scale)


def has_dtype(t, dtype):
    assert N(t).dtype == np.dtype(dtype), (N(t).dtype, dtype)


def unitary_columns(q, dtype, c=50.0):
    q = np.asarray(q, np.complex128)
    k = q.shape[-1]
    close(mH(q) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), dtype, c=c * max(k, 1))


def wide(a):
    return np.asarray(a, np.complex128)


# ---- cholesky, lu_factor, solve, inv, det, slogdet -------------------------------------


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SQUARE)
def test_cholesky_lower_and_upper_match_numpy_and_reconstruct(dtype, layout, shape):
    a = hpd(shape, dtype, 1)
    want = np.linalg.cholesky(wide(a))
    lower, upper = L.cholesky(laid_out(a, layout)), L.cholesky(laid_out(a, layout), upper=True)
    has_dtype(lower, dtype)
    close(lower, want, dtype, cond(a))
    close(upper, mH(want), dtype, cond(a))
    close(wide(N(lower)) @ mH(wide(N(lower))), a, dtype, c=200)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_cholesky_reads_one_triangle_only(dtype):
    a = hpd((4, 4), dtype, 2)
    junk_above, junk_below = a.copy(), a.copy()
    junk_above[np.triu_indices(4, 1)] = 99 - 7j
    junk_below[np.tril_indices(4, -1)] = -5 + 3j
    assert np.array_equal(N(L.cholesky(T(junk_above))), N(L.cholesky(T(a))))
    assert np.array_equal(N(L.cholesky(T(junk_below), upper=True)), N(L.cholesky(T(a), upper=True)))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", RECT)
def test_lu_factor_matches_torch_and_reconstructs(dtype, layout, shape):
    a = crandom(shape, dtype, 3)
    lu, piv = L.lu_factor(laid_out(a, layout))
    has_dtype(lu, dtype)
    assert piv.dtype == tessera.int32
    want_lu, want_piv = torch.linalg.lu_factor(torch.from_numpy(a))
    assert N(piv).tolist() == want_piv.numpy().tolist()
    close(lu, want_lu.numpy(), dtype, 10.0)
    flat_lu, flat_piv = N(lu).reshape((-1,) + shape[-2:]), N(piv).reshape(-1, min(shape[-2:]))
    for x, packed, p_ in zip(a.reshape((-1,) + shape[-2:]), flat_lu, flat_piv):
        p, lower, upper = lu_unpack(wide(packed), p_)
        close(p @ lower @ upper, x, dtype, c=50 * max(shape[-2:]))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("a_shape,b_shape", [((4, 4), (4, 3)), ((4, 4), (4,)), ((3, 5, 5), (5, 2)),
                                             ((2, 1, 3, 3), (4, 3, 1))])
def test_solve_matches_numpy_with_broadcasting(dtype, layout, a_shape, b_shape):
    a, b = crandom(a_shape, dtype, 4) + 2 * np.eye(a_shape[-1]).astype(dtype), crandom(b_shape, dtype, 5)
    got = L.solve(laid_out(a, layout), T(b))
    bb = b[..., None] if len(b_shape) == 1 else b
    bb = bb[None] if bb.ndim == a.ndim - 1 else bb  # a stack of matrices, where NumPy 1.24 reads vectors
    want = np.linalg.solve(wide(a), wide(bb))
    has_dtype(got, dtype)
    close(got, want[..., 0] if len(b_shape) == 1 else want, dtype, cond(a))
    if len(b_shape) > 1:  # X A = B^T: A^T X^T = B
        left = L.solve(T(a), T(np.swapaxes(bb, -1, -2)), left=False)
        close(left, np.swapaxes(np.linalg.solve(np.swapaxes(wide(a), -1, -2), wide(bb)), -1, -2), dtype, cond(a))


def test_solve_promotes_complex_with_real():
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    x = L.solve(T(a.astype("complex64")), T(np.array([1.0, 2.0])))
    assert x.dtype == tessera.complex128
    close(x, np.linalg.solve(a, [1.0, 2.0]), "complex128")
    x = L.solve(T(a.astype("float32")), T(np.array([1j, 2.0], "complex64")))
    assert x.dtype == tessera.complex64
    close(x, np.linalg.solve(a, [1j, 2.0]), "complex64")


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SQUARE + [(2, 40, 40)])
def test_inv_det_slogdet_match_numpy(dtype, layout, shape):
    a = crandom(shape, dtype, 6)
    k = cond(a)
    close(L.inv(laid_out(a, layout)), np.linalg.inv(wide(a)), dtype, k)
    det = L.det(laid_out(a, layout))
    has_dtype(det, dtype)
    want_det = np.linalg.det(wide(a))
    np.testing.assert_allclose(N(det), want_det, rtol=50 * shape[-1] * EPS[dtype] * k)
    sign, logabs = L.slogdet(laid_out(a, layout))
    want_sign, want_log = np.linalg.slogdet(wide(a))
    has_dtype(sign, dtype)
    has_dtype(logabs, REAL[dtype])
    close(sign, want_sign, dtype, k * shape[-1])
    np.testing.assert_allclose(np.abs(N(sign)), 1.0, rtol=10 * EPS[dtype] * shape[-1])
    close(logabs, want_log, dtype, k * shape[-1])


def unitary_diagonal(n, seed):
    return np.diag(np.exp(1j * np.random.default_rng(seed).uniform(0, 2 * np.pi, n)))


@pytest.mark.parametrize("dtype,n", [("complex64", 4), ("complex128", 8)])
def test_ill_conditioned_matrices(dtype, n):
    """D H D^H, H the Hilbert matrix and D a diagonal of unit phases: complex,
    Hermitian positive-definite, with H's condition number (1.5e4 at n = 4,
    1.5e10 at n = 8)."""
    i = np.arange(n)
    h = 1.0 / (i[:, None] + i[None, :] + 1)
    d = unitary_diagonal(n, 7)
    a = (d @ h @ mH(d)).astype(dtype)
    k = cond(a)
    assert k > 1e4
    close(L.inv(T(a)), np.linalg.inv(wide(a)), dtype, k, c=100)
    b = crandom((n, 2), dtype, 8)
    x = N(L.solve(T(a), T(b)))
    close(wide(a) @ x, b, dtype, k, c=100)  # the residual, which a backward-stable solve keeps small
    chol = wide(N(L.cholesky(T(a))))
    close(chol @ mH(chol), a, dtype, c=100)
    close(L.eigvalsh(T(a)), np.linalg.eigvalsh(wide(a)), dtype, c=100 * n)
    close(L.svdvals(T(a)), np.linalg.svd(wide(a), compute_uv=False), dtype, c=100 * n)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_singular_matrices(dtype):
    s = np.array([[1 + 1j, 0, 3], [2j, 0, 6], [1, 0, 1j]]).astype(dtype)
    s[:, 1] = 2 * s[:, 0]  # column 1 is twice column 0
    batch = np.stack([np.eye(3, dtype=dtype), s])
    assert N(L.det(T(batch))).tolist() == [1, 0]
    sign, logabs = L.slogdet(T(batch))
    assert N(sign).tolist() == [1, 0] and N(logabs).tolist() == [0, -math.inf]
    with pytest.raises(L.LinAlgError, match=r"^linalg\.inv: \(Batch element 1\): The diagonal element \d is zero"):
        L.inv(T(batch))
    with pytest.raises(L.LinAlgError, match=r"^torch\.linalg\.solve: \(Batch element 1\): .*singular"):
        L.solve(T(batch), T(np.ones((2, 3, 1), dtype)))
    with pytest.raises(L.LinAlgError, match=r"\(Batch element 1\)"):
        L.matrix_power(T(batch), -1)
    assert N(L.matrix_rank(T(batch))).tolist() == [3, 2]


@pytest.mark.parametrize("dtype", COMPLEX)
def test_inv_of_a_singular_matrix_says_what_torch_says(dtype):
    s = np.array([[1, 2j, 3], [2, 4j, 6], [1j, 0, 1]]).astype(dtype)
    for a in (s, np.ascontiguousarray(s.T)):
        with pytest.raises(RuntimeError) as want:
            torch.linalg.inv(torch.from_numpy(a))
        with pytest.raises(L.LinAlgError) as got:
            L.inv(T(a))
        assert str(got.value) == str(want.value)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_cholesky_of_a_matrix_that_is_not_positive_definite_names_the_batch_element(dtype):
    bad = np.stack([np.eye(3), np.diag([1.0, -1.0, 1.0]), np.eye(3)]).astype(dtype)
    bad[1, 0, 2], bad[1, 2, 0] = 0.5j, -0.5j  # Hermitian, indefinite
    for upper in (False, True):
        with pytest.raises(L.LinAlgError, match=r"^linalg\.cholesky: \(Batch element 1\): .*minor of order 2 is "
                                                r"not positive-definite"):
            L.cholesky(T(bad), upper=upper)


def test_det_and_slogdet_of_empty_matrices_and_batches():
    for shape in [(0, 0), (2, 0, 0), (0, 3, 3)]:
        a = tessera.zeros(*shape, dtype=tessera.complex64)
        want = np.linalg.slogdet(np.zeros(shape, np.complex64))
        sign, logabs = L.slogdet(a)
        assert sign.dtype == tessera.complex64 and logabs.dtype == tessera.float32
        assert N(sign).tolist() == want[0].tolist() and N(logabs).tolist() == want[1].tolist()
        assert N(L.det(a)).tolist() == np.linalg.det(np.zeros(shape, np.complex64)).tolist()


# ---- qr, svd, eigh -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", RECT + [(150, 130), (130, 150)])
def test_qr_reduced_and_complete_reconstruct(dtype, layout, shape):
    a = crandom(shape, dtype, 9)
    m, n = shape[-2:]
    for mode, c in (("reduced", min(m, n)), ("complete", m)):
        q, r = L.qr(laid_out(a, layout), mode=mode)
        assert tuple(q.shape) == shape[:-2] + (m, c) and tuple(r.shape) == shape[:-2] + (c, n)
        has_dtype(q, dtype)
        qn, rn = wide(N(q)), wide(N(r))
        close(qn @ rn, a, dtype, c=50 * max(m, n))
        unitary_columns(qn, dtype)
        assert np.array_equal(np.tril(rn, -1), np.zeros_like(rn))
        # R is unique up to a unit phase per row: |R| as NumPy's
        want = np.linalg.qr(wide(a), mode=mode)[1]
        close(np.abs(rn), np.abs(want), dtype, cond(a) if m >= n else 1.0, c=50 * max(m, n))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", RECT + [(150, 130), (130, 150), (300, 140)])
def test_svd_matches_numpy_and_reconstructs(dtype, layout, shape):
    a = crandom(shape, dtype, 10)
    m, n = shape[-2:]
    k = min(m, n)
    want_s = np.linalg.svd(wide(a), compute_uv=False)
    s = L.svdvals(laid_out(a, layout))
    has_dtype(s, REAL[dtype])
    close(s, want_s, dtype, c=50 * max(m, n))
    for full in (False, True):
        u, s2, vh = L.svd(laid_out(a, layout), full_matrices=full)
        has_dtype(s2, REAL[dtype])
        has_dtype(u, dtype)
        uc, vr = (m, n) if full else (k, k)
        assert tuple(u.shape) == shape[:-2] + (m, uc) and tuple(vh.shape) == shape[:-2] + (vr, n)
        un, vn = wide(N(u)), wide(N(vh))
        close((un[..., :k] * N(s2)[..., None, :]) @ vn[..., :k, :], a, dtype, c=50 * max(m, n))
        unitary_columns(un, dtype)
        unitary_columns(mH(vn), dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_svd_of_a_rank_deficient_matrix(dtype):
    x, y = crandom((6, 2), "complex128", 11), crandom((2, 5), "complex128", 12)
    a = (x @ y).astype(dtype)
    s = N(L.svdvals(T(a)))
    assert s[2:].max() <= 100 * EPS[dtype] * s[0]
    assert N(L.matrix_rank(T(a))).item() == 2 == np.linalg.matrix_rank(a)


def test_svd_of_a_non_finite_complex_matrix_is_a_linalg_error():
    a = np.stack([np.eye(3), np.eye(3)]).astype("complex128")
    a[1, 0, 1] = complex(0, np.nan)
    with pytest.raises(L.LinAlgError, match=r"linalg\.svd: \(Batch element 1\): .*non-finite"):
        L.svdvals(T(a))


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("shape", SQUARE + [(140, 140)])
def test_eigh_matches_numpy_and_reconstructs(dtype, layout, shape):
    a = hermitian(shape, dtype, 13)
    n = shape[-1]
    want = np.linalg.eigvalsh(wide(a))
    w = L.eigvalsh(laid_out(a, layout))
    has_dtype(w, REAL[dtype])
    close(w, want, dtype, c=50 * n)
    w2, v = L.eigh(laid_out(a, layout))
    has_dtype(w2, REAL[dtype])
    has_dtype(v, dtype)
    vn = wide(N(v))
    close((vn * N(w2)[..., None, :]) @ mH(vn), a, dtype, c=50 * n)
    unitary_columns(vn, dtype)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_eigh_reads_the_triangle_uplo_names_and_ignores_the_diagonals_imaginary_part(dtype):
    a = hermitian((5, 5), dtype, 14)
    lower, upper = a.copy(), a.copy()
    lower[np.triu_indices(5, 1)] = 42 + 42j
    upper[np.tril_indices(5, -1)] = -42j
    np.fill_diagonal(lower, np.diag(a) + 3j)  # LAPACK's heevd reads the diagonal's real parts
    want = np.linalg.eigvalsh(wide(a))
    close(L.eigvalsh(T(lower)), want, dtype, c=250)
    close(L.eigvalsh(T(upper), UPLO="U"), want, dtype, c=250)
    w, v = L.eigh(T(upper), UPLO="U")
    vn = wide(N(v))
    close((vn * N(w)[None, :]) @ mH(vn), a, dtype, c=250)
    np.testing.assert_allclose(np.linalg.eigvalsh(wide(upper), UPLO="U"), want, atol=1e-4)


# ---- built from the factorisations --------------------------------------------------------


@pytest.mark.parametrize("dtype", COMPLEX)
def test_pinv_matrix_rank_and_norms_match_numpy(dtype):
    a = crandom((2, 5, 3), dtype, 15)
    close(L.pinv(T(a)), np.linalg.pinv(wide(a)), dtype, cond(a), c=200)
    h = hermitian((2, 4, 4), dtype, 16)
    close(L.pinv(T(h), hermitian=True), np.linalg.pinv(wide(h), hermitian=True), dtype, cond(h), c=200)
    assert N(L.matrix_rank(T(a))).tolist() == np.linalg.matrix_rank(a).tolist() == [3, 3]
    assert N(L.matrix_rank(T(h), hermitian=True)).tolist() == [4, 4]
    for ord in MATRIX_ORDS:
        got = L.matrix_norm(T(a), ord)
        has_dtype(got, REAL[dtype])
        close(got, np.linalg.norm(wide(a), ord, axis=(-2, -1)), dtype, c=200)
    sq = crandom((3, 3), dtype, 17)
    for n in (0, 1, 3, -2):
        close(L.matrix_power(T(sq), n), np.linalg.matrix_power(wide(sq), n), dtype, cond(sq) ** max(1, -n), c=500)


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("n", [3, 24, 100])
def test_a_matrix_alone_equals_it_in_a_batch_bit_for_bit(dtype, n):
    a = (hpd((3, n, n), "complex128", n) / (2 * n)).astype(dtype)  # det within float32's range
    batch, one = T(a), T(a[1])
    for f in (L.eigvalsh, L.inv, L.cholesky, lambda x: L.qr(x)[1], L.svdvals, L.det):
        assert np.array_equal(f(batch)[1].numpy(), f(one).numpy()), f
    rhs = T(crandom((3, n, 2), dtype, 18))
    assert np.array_equal(L.solve(batch, rhs)[1].numpy(), L.solve(one, rhs[1]).numpy())


def test_tensor_adjoint_properties_as_torch():
    z = crandom((2, 3, 4), "complex64", 19)
    t, tt = T(z), torch.from_numpy(z)
    for name in ("mT", "mH"):
        assert np.array_equal(N(getattr(t, name)), getattr(tt, name).resolve_conj().numpy())
    assert np.array_equal(N(t.adjoint()), tt.adjoint().resolve_conj().numpy())
    assert np.array_equal(N(t[0].H), tt[0].H.resolve_conj().numpy())
    r = T(np.arange(6.0).reshape(2, 3))
    assert np.array_equal(N(r.mH), np.arange(6.0).reshape(2, 3).T)
    with pytest.raises(RuntimeError, match="mT is only supported on matrices"):
        T(np.ones(3)).mT


# ---- the Array API --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", COMPLEX)
def test_array_api_factorisations_of_complex_arrays(dtype):
    a = hpd((2, 3, 3), dtype, 20)
    x = xp.asarray(a)
    real = getattr(xp, REAL[dtype])
    w, v = xp.linalg.eigh(x)
    assert w.dtype is real and v.dtype is x.dtype
    close(np.asarray(w), np.linalg.eigvalsh(wide(a)), dtype, c=200)
    assert xp.linalg.eigvalsh(x).dtype is real and xp.linalg.svdvals(x).dtype is real
    u, s, vh = xp.linalg.svd(x, full_matrices=False)
    assert s.dtype is real and u.dtype is x.dtype
    close((np.asarray(u) * np.asarray(s)[..., None, :]) @ np.asarray(vh), a, dtype, c=200)
    q, r = xp.linalg.qr(x, mode="complete")
    close(np.asarray(q) @ np.asarray(r), a, dtype, c=200)
    sign, logabs = xp.linalg.slogdet(x)
    assert sign.dtype is x.dtype and logabs.dtype is real
    close(np.asarray(logabs), np.linalg.slogdet(wide(a))[1], dtype, c=200)
    close(np.asarray(xp.linalg.det(x)), np.linalg.det(wide(a)), dtype, cond(a), c=200)
    close(np.asarray(xp.linalg.cholesky(x, upper=True)), mH(np.linalg.cholesky(wide(a))), dtype, cond(a))
    close(np.asarray(xp.linalg.inv(x)), np.linalg.inv(wide(a)), dtype, cond(a))
    close(np.asarray(xp.linalg.pinv(x)), np.linalg.pinv(wide(a)), dtype, cond(a), c=200)
    close(np.asarray(xp.linalg.matrix_power(x, 2)), np.linalg.matrix_power(wide(a), 2), dtype, c=200)
    assert np.asarray(xp.linalg.matrix_rank(x)).tolist() == [3, 3]
    for ord in MATRIX_ORDS:
        got = xp.linalg.matrix_norm(x, ord=ord)
        assert got.dtype is real
        close(np.asarray(got), np.linalg.norm(wide(a), ord, axis=(-2, -1)), dtype, c=200)
    b = xp.asarray(np.ones(3))  # float64: complex64 with it promotes to complex128
    got = xp.linalg.solve(x, b)
    assert got.dtype is xp.complex128
    close(np.asarray(got), np.linalg.solve(wide(a), np.ones((2, 3, 1)))[..., 0], dtype, cond(a))
