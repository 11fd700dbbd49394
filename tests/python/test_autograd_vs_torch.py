# SPDX-License-Identifier: Apache-2.0
"""Gradients against PyTorch 1.13's, in float64 (issue 33): every function
the derivative table (runtime/derivatives.cpp) has so far, on random,
broadcast, transposed, sliced (with steps), expanded, 0-d and empty inputs;
the gradient of a gradient (create_graph) where the second derivative is
not zero; tessera.autograd.gradcheck and gradgradcheck on the same set.

The same cases run on the CPU here, and on the emulated CUDA device and the
arena plugin's device (a device with primitives only, whose memory the host
cannot address) in subprocesses with their own configs: main(device)
prints one line per failure."""
import numpy as np
import pytest
import torch

import tessera as ts

from grad_cases import derivatives, device_tests, differences, report, values

torch.set_num_threads(2)

# name -> (function of the library module: ts or torch, number of inputs,
#          domain of the inputs, whether the second derivative is zero)
POSITIVE, ANY, AWAY, UNIT, ABOVE1 = "positive", "any", "away from 0", "in (-0.9, 0.9)", "above 1"


def _index(m, like, shape, n, k):
    """An int64 index of `shape` with values in [0, n), duplicates included, on like's device."""
    values = (np.arange(int(np.prod(shape))).reshape(shape) * 7 + k) % max(n, 1)
    return m.tensor(values, dtype=m.int64).to(like.device)


def _written(m, a, b, write):
    """a copy of a * 2 whose rows at an index with a repeat are written from
    b's first rows through advanced indexing (`write(c, idx, values)`), then
    multiplied by b, so that both inputs' gradients pass the write."""
    if not a.dim() or a.shape != b.shape or not a.numel():
        return a * b
    c = a * 2
    idx = _index(m, a, (3,), a.shape[0], 1)
    write(c, idx, (b * b)[idx])
    return c * b


def _masked(m, a, b):
    """a * 1 with the elements where b > 0 replaced by a's squares there."""
    if a.shape != b.shape:
        return a * b
    c = a * 1
    c[b > 0] = (a * a)[b > 0]
    return c


def _last(a):
    return a.dim() - 1 if a.dim() else 0
FUNCTIONS = {
    "add": (lambda m, a, b: m.add(a, b), 2, ANY, True),
    "sub": (lambda m, a, b: a - b, 2, ANY, True),
    "mul": (lambda m, a, b: a * b, 2, ANY, False),
    "div": (lambda m, a, b: a / b, 2, AWAY, False),
    "pow": (lambda m, a, b: m.pow(a, b), 2, POSITIVE, False),
    "maximum": (lambda m, a, b: m.maximum(a, b), 2, ANY, True),
    "minimum": (lambda m, a, b: m.minimum(a, b), 2, ANY, True),
    "where": (lambda m, a, b: m.where(a > b, a * b, b), 2, ANY, False),
    "clamp": (lambda m, a: m.clamp(a, -0.5, 0.5) * a, 1, ANY, False),
    "clamp_min": (lambda m, a: a.clamp(min=0.2), 1, ANY, True),
    "add_scalar": (lambda m, a: a + 2.5, 1, ANY, True),
    "rsub_scalar": (lambda m, a: 2.5 - a, 1, ANY, True),
    "mul_scalar": (lambda m, a: a * -1.5, 1, ANY, True),
    "div_scalar": (lambda m, a: a / 4.0, 1, ANY, True),
    "rdiv_scalar": (lambda m, a: 2.0 / a, 1, AWAY, False),
    "pow_scalar": (lambda m, a: a ** 3, 1, ANY, False),
    "rpow_scalar": (lambda m, a: 1.5 ** a, 1, ANY, False),
    "neg": (lambda m, a: -a, 1, ANY, True),
    "exp": (lambda m, a: m.exp(a), 1, ANY, False),
    "log": (lambda m, a: m.log(a), 1, POSITIVE, False),
    "tanh": (lambda m, a: m.tanh(a), 1, ANY, False),
    "sqrt": (lambda m, a: m.sqrt(a), 1, POSITIVE, False),
    "abs": (lambda m, a: m.abs(a), 1, AWAY, True),
    "relu": (lambda m, a: m.relu(a), 1, AWAY, True),
    "sigmoid": (lambda m, a: m.sigmoid(a), 1, ANY, False),
    "sum": (lambda m, a: a.sum(), 1, ANY, True),
    "sum_dim": (lambda m, a: a.sum(-1, keepdim=True) * a, 1, ANY, False),
    "mean": (lambda m, a: a.mean(), 1, ANY, True),
    "mean_dim": (lambda m, a: a.mean(0) if a.dim() else a.mean(), 1, ANY, True),
    "matmul": (lambda m, a, b: m.matmul(a, b), 2, ANY, False),
    "clone": (lambda m, a: a.clone() * a, 1, ANY, False),
    # MATH's functions, atan2 / logaddexp / remainder
    **{fn: (lambda m, a, fn=fn: getattr(m, fn)(a), 1, domain, False) for fn, domain in (
        ("sin", ANY), ("cos", ANY), ("tan", UNIT), ("asin", UNIT), ("acos", UNIT), ("atan", ANY), ("sinh", ANY),
        ("cosh", ANY), ("asinh", ANY), ("acosh", ABOVE1), ("atanh", UNIT), ("expm1", ANY), ("log1p", POSITIVE),
        ("log2", POSITIVE), ("log10", POSITIVE))},
    **{fn: (lambda m, a, fn=fn: getattr(m, fn)(a) * a, 1, AWAY, True)
       for fn in ("floor", "ceil", "trunc", "round", "sign")},
    "atan2": (lambda m, a, b: m.atan2(a, b), 2, AWAY, False),
    "logaddexp": (lambda m, a, b: m.logaddexp(a, b), 2, ANY, False),
    "remainder": (lambda m, a, b: m.remainder(a, b), 2, AWAY, True),
    # reductions
    "prod": (lambda m, a: a.prod(), 1, ANY, False),
    "prod_dim": (lambda m, a: a.prod(0) if a.dim() else a.prod(), 1, ANY, False),
    "prod_with_zeros": (lambda m, a: (a * (a > 0.3)).prod(_last(a)) if a.dim() else a.prod(), 1, ANY, False),
    "max_all": (lambda m, a: a.max() * 2, 1, ANY, True),
    "min_all": (lambda m, a: a.min(), 1, ANY, True),
    "max_dim": (lambda m, a: a.max(_last(a)).values if a.dim() else a.max(), 1, ANY, True),
    "min_dim_keepdim": (lambda m, a: a.min(0, keepdim=True).values if a.dim() else a.min(), 1, ANY, True),
    "var": (lambda m, a: a.var(), 1, ANY, False),
    "var_dim_correction0": (lambda m, a: a.var(_last(a), correction=0) if a.dim() else a.var(), 1, ANY, False),
    "std": (lambda m, a: a.std(), 1, POSITIVE, False),
    "std_dim_keepdim": (lambda m, a: a.std(0, keepdim=True) if a.dim() else a.std(), 1, POSITIVE, False),
    "cumsum": (lambda m, a: a.cumsum(_last(a)) * a, 1, ANY, False),
    "amax_dims": (lambda m, a: m.amax(a, (0, 1)) if a.dim() == 2 else a, 1, ANY, True),
    "logsumexp": (lambda m, a: m.logsumexp(a, _last(a)), 1, ANY, False),
    "softmax": (lambda m, a: m.softmax(a, _last(a)) * a, 1, ANY, False),
    "log_softmax": (lambda m, a: m.log_softmax(a, 0), 1, ANY, False),
    # products with vectors
    "mv": (lambda m, a, b: m.matmul(a, b[0]) if b.dim() == 2 else m.matmul(a, b), 2, ANY, False),
    "vm": (lambda m, a, b: m.matmul(b[0], a.t()) if a.dim() == 2 and b.dim() == 2 else a * b, 2, ANY, False),
    "dot": (lambda m, a, b: m.matmul(a[0], b[0]) if a.dim() == 2 and b.dim() == 2 and len(a) else a * b, 2, ANY,
            False),
    # indexing and manipulation
    "gather": (lambda m, a: a.gather(_last(a), _index(m, a, tuple(a.shape), a.shape[-1] if a.dim() else 1, 1))
               if a.dim() else a, 1, ANY, True),
    "index_select": (lambda m, a: a.index_select(_last(a), _index(m, a, (5,), a.shape[-1] if a.dim() else 1, 2))
                     if a.dim() and a.shape[-1] else a, 1, ANY, True),
    "take": (lambda m, a: m.take(a, _index(m, a, (5,), a.numel(), 3)) if a.numel() else a, 1, ANY, True),
    "scatter": (lambda m, a, b: a.scatter(_last(a), _index(m, a, tuple(b.shape), a.shape[-1], 1), b)
                if a.dim() and a.shape == b.shape and a.numel() else a * b, 2, ANY, False),
    "scatter_add": (lambda m, a, b: a.scatter_add(0, _index(m, a, tuple(b.shape), a.shape[0], 2), b)
                    if a.dim() and a.shape == b.shape and a.numel() else a * b, 2, ANY, False),
    "index_write": (lambda m, a, b: _written(m, a, b, lambda c, idx, v: c.__setitem__(idx, v)), 2, ANY, False),
    "index_add_write": (lambda m, a, b: _written(m, a, b, lambda c, idx, v: c.__setitem__(idx, c[idx] + v)), 2, ANY,
                        False),
    "mask_read": (lambda m, a: a[a > 0.3] * 2, 1, ANY, True),
    "mask_write": (lambda m, a, b: _masked(m, a, b), 2, ANY, False),
    "cat": (lambda m, a, b: m.cat([a, b * a], 0) if a.dim() and a.shape == b.shape else a * b, 2, ANY, False),
    "stack": (lambda m, a, b: m.stack([a, b * 2], 0) if a.shape == b.shape else a * b, 2, ANY, True),
    "flip": (lambda m, a: a.flip(_last(a)) * a if a.dim() else a, 1, ANY, False),
    "roll": (lambda m, a: m.roll(a, 1, _last(a)) * a if a.dim() else a, 1, ANY, False),
    "roll_flat": (lambda m, a: m.roll(a, 2) if a.dim() else a, 1, ANY, True),
    "tril": (lambda m, a: m.tril(a) if a.dim() >= 2 else a, 1, ANY, True),
    "triu": (lambda m, a: m.triu(a, 1) if a.dim() >= 2 else a, 1, ANY, True),
    "sort_values": (lambda m, a: a.sort(_last(a)).values * 2 if a.dim() else a, 1, ANY, True),
    "contiguous": (lambda m, a: a.t().contiguous() if a.dim() == 2 else a.contiguous(), 1, ANY, True),
    "to_float32": (lambda m, a: a.to(m.float32).to(m.float64) * a, 1, ANY, False),
    # to(device): on the cuda and arena runs the gradient comes back from the cpu
    "to_cpu_and_back": (lambda m, a: (a.to("cpu") * 2).to(a.device) * a, 1, ANY, False),
    "transpose": (lambda m, a: a.transpose(0, -1) if a.dim() else a, 1, ANY, True),
    "permute": (lambda m, a: a.permute(*reversed(range(a.dim()))) if a.dim() else a, 1, ANY, True),
    "slice_step": (lambda m, a: a[..., ::2] if a.dim() else a, 1, ANY, True),
    "select": (lambda m, a: a[..., 0] if a.dim() and a.shape[-1] else a, 1, ANY, True),
    "unsqueeze_squeeze": (lambda m, a: a.unsqueeze(0).squeeze(0), 1, ANY, True),
    "expand": (lambda m, a: a.unsqueeze(0).expand(3, *a.shape), 1, ANY, True),
    "view_reshape": (lambda m, a: a.reshape(-1).view(a.shape), 1, ANY, True),
    "flatten": (lambda m, a: a.flatten() * 2, 1, ANY, True),
    "as_strided": (lambda m, a: a.contiguous().as_strided((2,), (1,)) if a.numel() >= 2 else a, 1, ANY, True),
}
# Shapes per variant: one input's, then the broadcasting partner of two-input functions.
VARIANTS = {
    "random": [(3, 4), (3, 4)],
    "broadcast": [(3, 1), (1, 4)],
    "transposed": [(4, 3), (4, 3)],  # each input is its base's transpose
    "sliced": [(3, 8), (3, 8)],  # each input is base[:, 1::2]
    "expanded": [(1, 4), (1, 4)],  # each input is base.expand(3, 4)
    "0-d": [(), ()],
    "empty": [(0, 4), (0, 4)],
}
MATMUL_SHAPES = {"random": [(3, 4), (4, 2)], "broadcast": [(2, 3, 4), (4, 5)], "transposed": [(4, 3), (2, 4)],
                 "sliced": [(3, 8), (4, 3)], "expanded": [(1, 4), (4, 2)], "empty": [(0, 4), (4, 2)]}


def _data(rng, shape, domain):
    x = rng.standard_normal(shape)
    if domain == POSITIVE:
        x = np.abs(x) + 0.5
    elif domain == UNIT:
        x = np.tanh(x) * 0.9
    elif domain == ABOVE1:
        x = np.abs(x) + 1.2
    elif domain == AWAY:
        x = np.where(np.abs(x) < 0.2, 0.5, x)
    return x


def _inputs(m, bases, variant, device):
    """Leaves (the bases) and the inputs the function sees (views of them)."""
    leaves, seen = [], []
    for b in bases:
        if m is ts:
            leaf = ts.tensor(np.array(b), dtype=ts.float64, device=device, requires_grad=True)
        else:
            leaf = torch.tensor(b, dtype=torch.float64, requires_grad=True)
        leaves.append(leaf)
        if variant == "transposed":
            seen.append(leaf.t())
        elif variant == "sliced":
            seen.append(leaf[:, 1::2])
        elif variant == "expanded" and leaf.shape[0] == 1:
            seen.append(leaf.expand(3, leaf.shape[-1]))
        else:
            seen.append(leaf)
    return leaves, seen


def _bases(name, variant, n, domain, seed):
    rng = np.random.default_rng(seed)
    if name == "matmul":
        shapes = MATMUL_SHAPES[variant]
        if variant == "transposed":
            shapes = [(4, 3), (2, 4)]  # a.t() is (3, 4), b.t() is (4, 2)
        elif variant == "sliced":
            shapes = [(3, 8), (4, 4)]  # a[:, 1::2] is (3, 4), b[:, 1::2] is (4, 2)
    else:
        shapes = VARIANTS[variant]
    return [_data(rng, shapes[i], domain) for i in range(n)]


def cases():
    for name, (_, n, _, _) in FUNCTIONS.items():
        for variant in VARIANTS:
            if name == "matmul" and variant not in MATMUL_SHAPES:
                continue
            if n == 1 and variant == "broadcast":
                continue
            yield name, variant


def check(name, variant, device="cpu", seed=0):
    """None when tessera's gradients (and second derivatives) match torch's,
    else what differs. Where torch refuses the function (max of an empty
    tensor), tessera must refuse it too."""
    f, n, domain, linear = FUNCTIONS[name]
    bases = _bases(name, variant, n, domain, seed)
    t_leaves, t_seen = _inputs(torch, bases, variant, None)
    try:
        t_out = f(torch, *t_seen)
    except (RuntimeError, IndexError):
        s_leaves, s_seen = _inputs(ts, bases, variant, device)
        try:
            f(ts, *s_seen)
        except (RuntimeError, IndexError):
            return None
        return "torch raised, tessera did not"
    weights = np.random.default_rng(seed + 1).standard_normal(tuple(t_out.shape))
    second = not linear
    _, want1, want2 = derivatives(torch, f, t_leaves, t_seen, weights, second)
    s_leaves, s_seen = _inputs(ts, bases, variant, device)
    s_out, got1, got2 = derivatives(ts, f, s_leaves, s_seen, weights, second)
    if tuple(s_out.shape) != tuple(t_out.shape):
        return "output shape %s, torch %s" % (tuple(s_out.shape), tuple(t_out.shape))
    return differences(got1, got2, want1, want2, rtol=1e-10, atol=1e-12)


CASES = list(cases())


@pytest.mark.parametrize("name,variant", CASES, ids=["%s-%s" % c for c in CASES])
def test_gradients_match_torch_on_the_cpu(name, variant):
    failure = check(name, variant)
    assert failure is None, failure


# Not gradchecked: the kinks of maximum, minimum, where, abs and relu, and a
# float32 round trip, which finite differences at eps = 1e-6 cannot see.
GRADCHECKED = [name for name in FUNCTIONS if name not in (
    "maximum", "minimum", "where", "abs", "relu", "clamp", "clamp_min", "to_float32", "floor", "ceil", "trunc", "round", "sign",
    "remainder", "max_all", "min_all", "max_dim", "min_dim_keepdim", "prod_with_zeros", "sort_values",
    # a write at a repeated index: torch's formula gives each repeat the gradient (as tessera's), though one wins
    "index_write", "index_add_write", "scatter")]


@pytest.mark.parametrize("name", GRADCHECKED)
def test_gradcheck_and_gradgradcheck(name):
    f, n, domain, linear = FUNCTIONS[name]
    for variant in ("random", "0-d"):
        if variant == "0-d" and (name in ("matmul", "mv", "vm", "dot") or name.startswith(("var", "std"))):
            continue  # no 0-d matmul; a variance of one element has no degree of freedom
        bases = _bases(name, variant, n, domain, 3)
        leaves, seen = _inputs(ts, [b[:2] if b.ndim else b for b in bases] if name != "matmul" else bases, variant,
                               None)
        del seen
        fn = (lambda *xs: f(ts, *xs))
        assert ts.autograd.gradcheck(fn, tuple(leaves))
        if not linear:
            assert ts.autograd.gradgradcheck(fn, tuple(leaves))


def test_gradcheck_modes_and_checks_as_torchs():
    """fast_mode (random projections), check_grad_dtypes, nondet_tol and
    check_undefined_grad (on by default) on a right and a wrong gradient,
    with torch's messages; gen_non_contig_grad_outputs in gradgradcheck."""
    x = ts.tensor([0.5, 1.5, -0.7], dtype=ts.float64, requires_grad=True)
    q = ts.tensor(np.random.default_rng(0).standard_normal((4, 3)), dtype=ts.float64, requires_grad=True)
    good = (lambda a: (a * a).exp())
    assert ts.autograd.gradcheck(good, (x,), fast_mode=True)
    assert ts.autograd.gradcheck(good, (x,), check_grad_dtypes=True, nondet_tol=1e-12)
    assert ts.autograd.gradcheck(lambda a: ts.linalg.qr(a), (q,))  # two outputs, each left without a gradient once
    assert ts.autograd.gradgradcheck(good, (x,), gen_non_contig_grad_outputs=True)
    assert ts.autograd.gradgradcheck(good, (x,), fast_mode=True)

    def wrong(a):
        y = a * 1.0
        y.register_hook(lambda g: g * 1.5)
        return y * a

    with pytest.raises(ts.autograd.GradcheckError, match="computed in fast mode"):
        ts.autograd.gradcheck(wrong, (x,), fast_mode=True)

    def nan_at_zero_gradient(a):  # a hook that turns a zero gradient into NaN: undefined grads unsupported
        y = a * 1.0
        y.register_hook(lambda g: g + (g == 0).to(g.dtype) * float("nan") if not g.abs().sum().item() else g)
        return y
    with pytest.raises(ts.autograd.GradcheckError, match="Expected all input grads to be undefined or zero"):
        ts.autograd.gradcheck(nan_at_zero_gradient, (x,))
    assert ts.autograd.gradcheck(nan_at_zero_gradient, (x,), check_undefined_grad=False)
    with pytest.raises(NotImplementedError, match="check_batched_grad=True is not supported"):
        ts.autograd.gradcheck(good, (x,), check_batched_grad=True)


def test_gradcheck_finds_a_wrong_gradient():
    x = ts.tensor([0.5, 1.5], dtype=ts.float64, requires_grad=True)

    def wrong(a):  # the gradient of a * a is 2a; a hook makes it 3a
        y = a * 1.0
        y.register_hook(lambda g: g * 1.5)
        return y * a

    with pytest.raises(ts.autograd.GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        ts.autograd.gradcheck(wrong, (x,))
    assert ts.autograd.gradcheck(wrong, (x,), raise_exception=False) is False


def main(device):
    report(check, CASES, device)


test_gradients_match_torch_on_the_emulated_cuda_device, test_gradients_match_torch_on_the_arena_device = \
    device_tests('test_autograd_vs_torch')


def test_fused_functions_on_special_values_match_torch():
    """softmax, log_softmax and logsumexp (tsr_softmax ..) and vector_norm on
    values whose naive forms overflow or divide by zero: large values, rows
    of -inf, +inf, NaN, zeros; values and gradients against torch's."""
    inf, nan = float("inf"), float("nan")
    rows = [[1000.0, 1001.0, 999.0], [-inf, -inf, -inf], [-inf, 0.0, 1.0], [inf, 1.0, 2.0], [nan, 1.0, 2.0],
            [0.0, 0.0, 0.0]]
    fns = {
        "softmax": lambda m, x: m.softmax(x, 1),
        "log_softmax": lambda m, x: m.log_softmax(x, -1),
        "logsumexp": lambda m, x: m.logsumexp(x, 1),
        "logsumexp_keepdim": lambda m, x: m.logsumexp(x, (1,), keepdim=True),
        "vector_norm": lambda m, x: m.linalg.vector_norm(x[-1:], 2, 1),
    }
    for name, f in fns.items():
        outs = []
        for m in (torch, ts):
            x = m.tensor(rows, dtype=m.float64, requires_grad=True)
            y = f(m, x)
            y.backward(m.ones(tuple(y.shape), dtype=m.float64))
            outs.append((values(y), values(x.grad)))
        (want_y, want_g), (got_y, got_g) = outs
        assert np.allclose(got_y, want_y, rtol=1e-12, atol=0, equal_nan=True), (name, got_y, want_y)
        assert np.allclose(got_g, want_g, rtol=1e-12, atol=1e-14, equal_nan=True), (name, got_g, want_g)
    with pytest.raises(RuntimeError, match="softmax\\(\\): expected a floating point tensor"):
        ts.softmax(ts.tensor([1, 2]), 0)
    assert ts.logsumexp(ts.tensor([1, 2]), 0).dtype == ts.float32  # integers compute in float32, as torch
