# SPDX-License-Identifier: Apache-2.0
"""Gradients of torch.linalg's functions against PyTorch 1.13's, in float64
(issue 33; runtime/derivatives_linalg.cpp and the composites of
tessera.linalg): first and second derivatives, on plain, transposed,
sliced (with steps), batched, expanded (a batch broadcast from one matrix)
and empty matrices, on the cpu here and on
the emulated CUDA device and the arena device in subprocesses;
tessera.autograd.gradcheck and gradgradcheck on the same functions.

The inputs are made valid for each function (symmetric positive definite
for cholesky, symmetric for eigh), and the losses of singular vectors are
the ones that do not depend on their signs (U * U, U diag(w) Vh), as a
loss must be for their derivative to exist."""
import numpy as np
import pytest
import torch

import tessera as ts

from grad_cases import derivatives, device_tests, differences, report, values

torch.set_num_threads(2)

GENERAL, SPD, SYMMETRIC, SINGULAR = "general", "spd", "symmetric", "singular"


def _matrix(rng, shape, kind):
    """A float64 array of `shape` (.., m, n) of the kind the function takes."""
    x = rng.standard_normal(shape)
    if kind == GENERAL and shape[-1] == shape[-2]:
        return x + 3 * np.eye(shape[-1])  # well conditioned
    if kind == SPD:
        return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])
    if kind == SYMMETRIC:
        return x + np.swapaxes(x, -1, -2)
    if kind == SINGULAR:  # rank n - 1: the last column repeats the first
        x[..., -1] = x[..., 0]
        return x
    return x


def _weights(m, k, like):
    w = np.arange(1.0, k + 1.0)
    return torch.tensor(w) if m is torch else ts.tensor(w, dtype=ts.float64, device=like.device)


def _cat(m, *parts):
    return m.cat([p.reshape(-1) for p in parts], 0)


# name -> (function of the library module, [(shape, kind) of each input], whether a second derivative is checked)
FUNCTIONS = {
    "inv": (lambda m, a: m.linalg.inv(a), [((3, 3), GENERAL)], True),
    "det": (lambda m, a: m.linalg.det(a), [((3, 3), GENERAL)], True),
    # torch 1.13 gives a singular matrix's det the gradient 0 unless create_graph (the cofactors then, through
    # its SVD): compared with create_graph, the cofactors are tessera's either way
    "det_singular": (lambda m, a: m.linalg.det(a), [((3, 3), SINGULAR)], True),
    "slogdet": (lambda m, a: m.linalg.slogdet(a)[1], [((3, 3), GENERAL)], True),
    "slogdet_sign": (lambda m, a: _cat(m, *m.linalg.slogdet(a)), [((3, 3), GENERAL)], False),
    "solve": (lambda m, a, b: m.linalg.solve(a, b), [((3, 3), GENERAL), ((3, 2), GENERAL)], True),
    "solve_vector": (lambda m, a, b: m.linalg.solve(a, b[..., 0]), [((3, 3), GENERAL), ((3, 2), GENERAL)], True),
    "solve_broadcast": (lambda m, a, b: m.linalg.solve(a, b), [((3, 3), GENERAL), ((2, 3, 2), GENERAL)], True),
    "cholesky": (lambda m, a: m.linalg.cholesky(a), [((3, 3), SPD)], True),
    "lu_factor": (lambda m, a: m.linalg.lu_factor(a).LU, [((3, 3), GENERAL)], True),
    "lu_factor_wide": (lambda m, a: m.linalg.lu_factor(a).LU, [((3, 5), GENERAL)], True),
    "lu_factor_tall": (lambda m, a: m.linalg.lu_factor(a).LU, [((5, 3), GENERAL)], True),
    "cholesky_upper": (lambda m, a: m.linalg.cholesky(a, upper=True), [((3, 3), SPD)], True),
    "qr_tall": (lambda m, a: _cat(m, *m.linalg.qr(a)), [((4, 3), GENERAL)], True),
    "qr_q": (lambda m, a: m.linalg.qr(a)[0], [((4, 3), GENERAL)], False),
    "qr_r": (lambda m, a: m.linalg.qr(a)[1], [((3, 3), GENERAL)], False),
    "qr_wide": (lambda m, a: _cat(m, *m.linalg.qr(a)), [((3, 5), GENERAL)], True),
    "qr_complete_wide": (lambda m, a: _cat(m, *m.linalg.qr(a, mode="complete")), [((3, 4), GENERAL)], False),
    "svdvals_tall": (lambda m, a: m.linalg.svdvals(a), [((4, 3), GENERAL)], True),
    "svdvals_wide": (lambda m, a: m.linalg.svdvals(a), [((3, 4), GENERAL)], True),
    "svd_u_squared": (lambda m, a: m.linalg.svd(a, full_matrices=False)[0] ** 2, [((4, 3), GENERAL)], True),
    "svd_vh_squared": (lambda m, a: m.linalg.svd(a, full_matrices=False)[2] ** 2, [((3, 4), GENERAL)], True),
    "svd_products": (lambda m, a: (lambda u, s, vh: (u * _weights(m, s.shape[-1], a)) @ vh + u @ (s.unsqueeze(-1) * vh))(
        *m.linalg.svd(a, full_matrices=False)), [((4, 3), GENERAL)], True),
    "svd_full": (lambda m, a: (lambda u, s, vh: u[..., :3] @ vh[..., :3, :] + s.sum())(*m.linalg.svd(a)),
                 [((3, 5), GENERAL)], False),
    "eigvalsh": (lambda m, a: m.linalg.eigvalsh(a), [((3, 3), SYMMETRIC)], True),
    "eigh_vectors_squared": (lambda m, a: m.linalg.eigh(a)[1] ** 2, [((3, 3), SYMMETRIC)], True),
    "eigh_products": (lambda m, a: (lambda w, v: (v * w.unsqueeze(-2)) @ v.mT + (v * _weights(m, 3, a)) @ v.mT)(
        *m.linalg.eigh(a)), [((3, 3), SYMMETRIC)], True),
    "eigh_upper": (lambda m, a: m.linalg.eigh(a, UPLO="U")[0], [((3, 3), SYMMETRIC)], False),
    "pinv": (lambda m, a: m.linalg.pinv(a), [((3, 4), GENERAL)], True),
    "pinv_hermitian": (lambda m, a: m.linalg.pinv(a, hermitian=True), [((3, 3), SPD)], False),
    "matrix_power": (lambda m, a: m.linalg.matrix_power(a, -2), [((3, 3), GENERAL)], True),
    "cross": (lambda m, a, b: m.linalg.cross(a, b), [((2, 3), GENERAL), ((2, 3), GENERAL)], True),
    "outer": (lambda m, a, b: m.outer(a[0], b[0]), [((2, 3), GENERAL), ((2, 4), GENERAL)], True),
    "tensordot": (lambda m, a, b: m.tensordot(a, b, dims=([1], [0])), [((2, 3), GENERAL), ((3, 4), GENERAL)], True),
    "vecdot": (lambda m, a, b: m.linalg.vecdot(a, b), [((2, 3), GENERAL), ((2, 3), GENERAL)], True),
    "diagonal": (lambda m, a: m.linalg.diagonal(a, offset=1) * 2, [((3, 4), GENERAL)], False),
    "diagonal_method": (lambda m, a: a.diagonal(-1, -1, -2) * a.diagonal(-1, -1, -2), [((3, 4), GENERAL)], True),
    # the norms (fused formula: tsr_linalg_vector_norm; matrix norms through it and svdvals)
    "vector_norm_2": (lambda m, a: m.linalg.vector_norm(a), [((3, 4), GENERAL)], True),
    "vector_norm_2_dim": (lambda m, a: m.linalg.vector_norm(a, 2, -1, True) * a, [((3, 4), GENERAL)], True),
    "vector_norm_2_of_zeros": (lambda m, a: m.linalg.vector_norm(a * (a > 9), 2, -1), [((3, 4), GENERAL)], False),
    "vector_norm_1": (lambda m, a: m.linalg.vector_norm(a, 1, (0, -1)), [((3, 4), GENERAL)], False),
    "vector_norm_inf": (lambda m, a: m.linalg.vector_norm(a, float("inf"), -1), [((3, 4), GENERAL)], False),
    "vector_norm_inf_ties": (lambda m, a: m.linalg.vector_norm(a.abs().round(), float("inf"), -2),
                             [((3, 4), GENERAL)], False),
    "vector_norm_neg_inf": (lambda m, a: m.linalg.vector_norm(a, -float("inf")), [((3, 4), GENERAL)], False),
    "vector_norm_3": (lambda m, a: m.linalg.vector_norm(a, 3, 0), [((3, 4), GENERAL)], True),
    "vector_norm_1.5": (lambda m, a: m.linalg.vector_norm(a, 1.5, -1), [((3, 4), GENERAL)], True),
    "vector_norm_0.5": (lambda m, a: m.linalg.vector_norm(a, 0.5, -1), [((3, 4), GENERAL)], True),
    "vector_norm_0": (lambda m, a: m.linalg.vector_norm(a, 0, -1) + a.sum(-1), [((3, 4), GENERAL)], False),
    "matrix_norm_fro": (lambda m, a: m.linalg.matrix_norm(a), [((3, 4), GENERAL)], True),
    "matrix_norm_nuc": (lambda m, a: m.linalg.matrix_norm(a, "nuc"), [((3, 4), GENERAL)], True),
    "matrix_norm_2": (lambda m, a: m.linalg.matrix_norm(a, 2), [((4, 3), GENERAL)], True),
    "matrix_norm_1": (lambda m, a: m.linalg.matrix_norm(a, 1), [((3, 4), GENERAL)], False),
    "matrix_norm_neg_inf": (lambda m, a: m.linalg.matrix_norm(a, -float("inf")), [((3, 4), GENERAL)], False),
}
# The ways an input reaches the function: its leaf itself, the transpose of
# a leaf, every other column of a leaf, a batch of two, one matrix expanded
# to a batch of two (its gradient the sum of both), an empty batch.
VARIANTS = ("plain", "transposed", "sliced", "batched", "expanded", "empty")


def _bases(name, variant, seed):
    rng = np.random.default_rng(seed)
    bases = []
    for shape, kind in FUNCTIONS[name][1]:
        if variant == "batched":
            shape = (2,) + shape
        elif variant == "expanded":
            shape = (1,) + shape
        elif variant == "empty":
            shape = (0,) + shape
        bases.append(_matrix(rng, shape, kind))
    return bases


def _inputs(m, bases, variant, device):
    """Leaves and the inputs the function sees (views of them, of equal values)."""
    leaves, seen = [], []
    for b in bases:
        if variant == "transposed":
            data = np.ascontiguousarray(np.swapaxes(b, -1, -2))
        elif variant == "sliced":
            data = np.zeros(b.shape[:-1] + (2 * b.shape[-1],))
            data[..., 1::2] = b
        else:
            data = b
        if m is ts:
            leaf = ts.tensor(data, dtype=ts.float64, device=device, requires_grad=True)
        else:
            leaf = torch.tensor(data, dtype=torch.float64, requires_grad=True)
        leaves.append(leaf)
        if variant == "expanded":
            seen.append(leaf.expand((2,) + tuple(leaf.shape[1:])))
        else:
            seen.append(leaf.mT if variant == "transposed" else leaf[..., 1::2] if variant == "sliced" else leaf)
    return leaves, seen


def cases():
    for name in FUNCTIONS:
        for variant in VARIANTS:
            yield name, variant


def _raises(call):
    try:
        call()
    except (RuntimeError, IndexError):
        return True
    return False


def check(name, variant, device="cpu", seed=0):
    """None when tessera's first (and second) derivatives match torch's,
    else what differs; where torch refuses the function or its derivative,
    tessera must refuse it too."""
    f, _, second = FUNCTIONS[name]
    bases = _bases(name, variant, seed)
    t_leaves, t_seen = _inputs(torch, bases, variant, None)
    s_leaves, s_seen = _inputs(ts, bases, variant, device)
    try:
        t_out = f(torch, *t_seen)
    except (RuntimeError, IndexError):
        return None if _raises(lambda: f(ts, *s_seen)) else "torch raised, tessera did not"
    weights = np.random.default_rng(seed + 1).standard_normal(tuple(t_out.shape))
    try:
        _, want1, want2 = derivatives(torch, f, t_leaves, t_seen, weights, second)
    except RuntimeError as e:
        s_leaves, s_seen = _inputs(ts, bases, variant, device)
        if _raises(lambda: derivatives(ts, f, s_leaves, s_seen, weights, second)):
            return None
        return "torch's backward raised (%s), tessera's did not" % str(e).splitlines()[0]
    s_out, got1, got2 = derivatives(ts, f, s_leaves, s_seen, weights, second)
    if tuple(s_out.shape) != tuple(t_out.shape):
        return "output shape %s, torch %s" % (tuple(s_out.shape), tuple(t_out.shape))
    if not np.allclose(values(s_out), values(t_out), rtol=1e-10, atol=1e-10):
        return "values differ from torch's"
    return differences(got1, got2, want1, want2, rtol=1e-8, atol=1e-9, empty_ok=variant == "empty")


CASES = list(cases())


@pytest.mark.parametrize("name,variant", CASES, ids=["%s-%s" % c for c in CASES])
def test_gradients_match_torch_on_the_cpu(name, variant):
    failure = check(name, variant)
    assert failure is None, failure


def test_node_names_are_torchs():
    a = ts.tensor(_matrix(np.random.default_rng(0), (3, 3), SPD), dtype=ts.float64, requires_grad=True)
    names = {
        "LinalgInvExBackward0": ts.linalg.inv(a),
        "LinalgDetBackward0": ts.linalg.det(a),
        "LinalgSolveExBackward0": ts.linalg.solve(a, a),
        "LinalgCholeskyExBackward0": ts.linalg.cholesky(a),
        "LinalgEighBackward0": ts.linalg.eigvalsh(a),
        "LinalgSvdBackward0": ts.linalg.svdvals(a),
        "LinalgLuFactorExBackward0": ts.linalg.lu_factor(a).LU,
    }
    for want, t in names.items():
        assert t.grad_fn.name() == want
    for results, want in ((ts.linalg.slogdet(a), "LinalgSlogdetBackward0"), (ts.linalg.qr(a), "LinalgQrBackward0"),
                          (ts.linalg.svd(a), "LinalgSvdBackward0"), (ts.linalg.eigh(a), "LinalgEighBackward0")):
        assert {r.grad_fn.name() for r in results} == {want}


def test_a_hook_on_one_result_sees_that_results_gradient():
    a = ts.tensor(_matrix(np.random.default_rng(1), (3, 3), SYMMETRIC), dtype=ts.float64, requires_grad=True)
    w, v = ts.linalg.eigh(a)
    seen = []
    w.register_hook(lambda g: seen.append(("w", tuple(g.shape))))
    v.register_hook(lambda g: seen.append(("v", tuple(g.shape))))
    (w.sum() + (v * v).sum()).backward()
    assert sorted(seen) == [("v", (3, 3)), ("w", (3,))]


def test_grad_of_one_factor_as_an_input():
    """autograd.grad with a result of several as its input (a non-leaf)."""
    a = ts.tensor(_matrix(np.random.default_rng(2), (4, 3), GENERAL), dtype=ts.float64, requires_grad=True)
    q, r = ts.linalg.qr(a)
    gq, gr = ts.autograd.grad((q * 2).sum() + (r * 3).sum(), [q, r])
    assert np.allclose(values(gq), 2) and np.allclose(values(gr), 3)


def test_complete_qr_of_a_tall_matrix_refuses_its_derivative_as_torch():
    a = ts.tensor(np.random.default_rng(3).standard_normal((4, 3)), dtype=ts.float64, requires_grad=True)
    q, r = ts.linalg.qr(a, mode="complete")
    with pytest.raises(RuntimeError, match="The QR decomposition is not differentiable when mode='complete' and "
                                           "nrows > ncols."):
        r.sum().backward()


# gradcheck and gradgradcheck on the well-defined ones (not the kink of a
# singular det, nor losses of whole singular vectors).
GRADCHECKED = ["lu_factor", "lu_factor_wide", "lu_factor_tall", "inv", "det", "slogdet", "solve", "solve_vector", "cholesky", "qr_tall", "qr_wide", "svdvals_tall",
               "svd_u_squared", "eigvalsh", "eigh_vectors_squared", "pinv", "matrix_power", "cross", "tensordot",
               "vector_norm_2_dim", "vector_norm_3", "vector_norm_1.5", "matrix_norm_nuc"]


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck_and_gradgradcheck(name):
    f, _, second = FUNCTIONS[name]
    leaves, _ = _inputs(ts, _bases(name, "plain", 5), "plain", None)
    fn = (lambda *xs: f(ts, *xs))
    if name.startswith(("cholesky", "eigvalsh", "eigh")):  # defined on symmetric matrices: symmetrize first
        fn = (lambda x: f(ts, (x + x.mT) * 0.5))
    assert ts.autograd.gradcheck(fn, tuple(leaves))
    if second:
        assert ts.autograd.gradgradcheck(fn, tuple(leaves))


def main(device):
    report(check, CASES, device)


test_gradients_match_torch_on_the_emulated_cuda_device, test_gradients_match_torch_on_the_arena_device = \
    device_tests('test_autograd_linalg_vs_torch')
