# SPDX-License-Identifier: Apache-2.0
"""tessera.nn.functional against torch.nn.functional 1.13, in float64
(issue 34): every function of tessera/nn.h with its options — values,
first derivatives and second derivatives (create_graph) of every input
that requires grad — on the CPU here and, in subprocesses with their own
configs, on the emulated CUDA device and the arena device (main(device)
prints one line per failure). Then what has no torch twin to compare
with: dropout's masks, errors and their messages."""
import numpy as np
import pytest
import torch

import tessera as ts
import tessera.nn.functional as TF

from grad_cases import device_tests, report, values

torch.set_num_threads(2)
TORCH_F = torch.nn.functional


class Maker:
    """Inputs for one case, identical in both libraries: arrays drawn from
    one seed, made into tensors of `m` on `device`."""

    def __init__(self, m, device, seed):
        self.m, self.device, self.rng = m, device, np.random.default_rng(seed)
        self.leaves = []

    def x(self, *shape, low=-2.0, high=2.0, grad=True):
        arr = self.rng.uniform(low, high, size=shape)
        return self.array(arr, grad)

    def array(self, arr, grad=True):
        m = self.m
        t = m.tensor(np.asarray(arr, dtype=np.float64), dtype=m.float64)
        t = t.to(self.device) if m is ts else t
        if grad:
            t.requires_grad_(True)
            self.leaves.append(t)
        return t

    def index(self, arr):
        t = self.m.tensor(np.asarray(arr, dtype=np.int64), dtype=self.m.int64)
        return t.to(self.device) if self.m is ts else t

    def probabilities(self, *shape, dim=1):
        e = np.exp(self.rng.uniform(-1, 1, size=shape))
        return self.array(e / e.sum(axis=dim, keepdims=True), grad=False)


def _lin(T, F, m):
    return F.linear(T.x(3, 4), T.x(5, 4), T.x(5))


def _targets(n, c, ignore=None):
    t = (np.arange(n) * 3 + 1) % c
    if ignore is not None:
        t[1] = ignore
    return t


# name -> f(T, F, m): the result of the case (T a Maker, F the functional
# module, m the library); the inputs that require grad are T.leaves.
CASES = {
    "linear": _lin,
    "linear_no_bias": lambda T, F, m: F.linear(T.x(3, 4), T.x(5, 4)),
    "linear_1d": lambda T, F, m: F.linear(T.x(4), T.x(5, 4), T.x(5)),
    "linear_3d": lambda T, F, m: F.linear(T.x(2, 3, 4), T.x(5, 4), T.x(5)),
    "linear_3d_transposed": lambda T, F, m: F.linear(T.x(4, 3, 2).permute(2, 1, 0), T.x(5, 4), T.x(5)),
    "linear_bias_broadcast": lambda T, F, m: F.linear(T.x(3, 4), T.x(5, 4), T.x(1)),
    "relu": lambda T, F, m: F.relu(T.x(3, 4)),
    "sigmoid": lambda T, F, m: F.sigmoid(T.x(3, 4)),
    "tanh": lambda T, F, m: F.tanh(T.x(3, 4)),
    "gelu": lambda T, F, m: F.gelu(T.x(3, 4, low=-5, high=5)),
    "gelu_tanh": lambda T, F, m: F.gelu(T.x(3, 4, low=-5, high=5), approximate="tanh"),
    "silu": lambda T, F, m: F.silu(T.x(3, 4, low=-6, high=6)),
    "softplus": lambda T, F, m: F.softplus(T.x(3, 4, low=-30, high=30)),
    "softplus_beta_threshold": lambda T, F, m: F.softplus(T.x(3, 4), beta=2, threshold=1),
    "softplus_small_beta": lambda T, F, m: F.softplus(T.x(3, 4), beta=0.5, threshold=3),
    "softmax_dim1": lambda T, F, m: F.softmax(T.x(3, 4), dim=1),
    "softmax_dim0": lambda T, F, m: F.softmax(T.x(3, 4), dim=0),
    "log_softmax": lambda T, F, m: F.log_softmax(T.x(2, 3, 4), dim=-1),
    "logsumexp": lambda T, F, m: m.logsumexp(T.x(2, 3, 4), dim=1),
    "logsumexp_keepdim": lambda T, F, m: m.logsumexp(T.x(2, 3, 4), dim=(0, 2), keepdim=True),
    "dropout_eval": lambda T, F, m: F.dropout(T.x(3, 4), p=0.5, training=False) * 2,
    "dropout_p0": lambda T, F, m: F.dropout(T.x(3, 4), p=0.0) * 2,
    "dropout_p1": lambda T, F, m: F.dropout(T.x(3, 4), p=1.0) + T.x(3, 4),
    "layer_norm": lambda T, F, m: F.layer_norm(T.x(3, 5), (5,)),
    "layer_norm_affine": lambda T, F, m: F.layer_norm(T.x(3, 5), (5,), T.x(5), T.x(5)),
    "layer_norm_2d": lambda T, F, m: F.layer_norm(T.x(2, 3, 4), (3, 4), T.x(3, 4), T.x(3, 4), eps=1e-3),
    "layer_norm_weight_only": lambda T, F, m: F.layer_norm(T.x(4, 6).t(), (4,), T.x(4)),
    "embedding": lambda T, F, m: F.embedding(T.index([[1, 2, 1], [4, 1, 0]]), T.x(6, 3)),
    "embedding_padding": lambda T, F, m: F.embedding(T.index([[1, 2, 1], [4, 2, 0]]), T.x(6, 3), padding_idx=2),
    "embedding_padding_negative": lambda T, F, m: F.embedding(T.index([5, 2, 5, 0]), T.x(6, 3), padding_idx=-1),
    "embedding_scale_grad_by_freq": lambda T, F, m: F.embedding(T.index([1, 2, 1, 1, 3]), T.x(6, 3),
                                                                 scale_grad_by_freq=True),
    "embedding_max_norm": lambda T, F, m: F.embedding(T.index([1, 2, 1, 4]), T.x(6, 3, low=-3, high=3),
                                                       max_norm=1.5) * 1.0,
    "embedding_max_norm_p1": lambda T, F, m: F.embedding(T.index([0, 3]), T.x(6, 3, low=-3, high=3), max_norm=2.0,
                                                          norm_type=1.0) * 1.0,
    "mse_loss": lambda T, F, m: F.mse_loss(T.x(3, 4), T.x(3, 4)),
    "mse_loss_sum": lambda T, F, m: F.mse_loss(T.x(3, 4), T.x(3, 4), reduction="sum"),
    "mse_loss_none": lambda T, F, m: F.mse_loss(T.x(3, 4), T.x(3, 4), reduction="none"),
    "l1_loss": lambda T, F, m: F.l1_loss(T.x(3, 4), T.x(3, 4)),
    "l1_loss_sum": lambda T, F, m: F.l1_loss(T.x(3, 4), T.x(3, 4), reduction="sum"),
    "l1_loss_none": lambda T, F, m: F.l1_loss(T.x(3, 4), T.x(3, 4), reduction="none"),
    "binary_cross_entropy": lambda T, F, m: F.binary_cross_entropy(T.x(3, 4, low=0.05, high=0.95),
                                                                   T.x(3, 4, low=0, high=1)),
    "binary_cross_entropy_weight_sum": lambda T, F, m: F.binary_cross_entropy(
        T.x(3, 4, low=0.05, high=0.95), T.x(3, 4, low=0, high=1), weight=T.x(4, low=0.5, high=2, grad=False),
        reduction="sum"),
    "binary_cross_entropy_none": lambda T, F, m: F.binary_cross_entropy(T.x(3, 4, low=0.05, high=0.95),
                                                                        T.x(3, 4, low=0, high=1), reduction="none"),
    "bce_with_logits": lambda T, F, m: F.binary_cross_entropy_with_logits(T.x(3, 4, low=-40, high=40),
                                                                          T.x(3, 4, low=0, high=1)),
    "bce_with_logits_weights": lambda T, F, m: F.binary_cross_entropy_with_logits(
        T.x(3, 4), T.x(3, 4, low=0, high=1), weight=T.x(3, 1, low=0.5, high=2, grad=False),
        pos_weight=T.x(4, low=0.5, high=3, grad=False), reduction="sum"),
    "bce_with_logits_none": lambda T, F, m: F.binary_cross_entropy_with_logits(
        T.x(3, 4), T.x(3, 4, low=0, high=1), pos_weight=T.x(4, low=0.5, high=3, grad=False), reduction="none"),
}


def _ce(reduction="mean", weight=False, ignore=None, smoothing=0.0, nll=False):
    def case(T, F, m):
        x = T.x(5, 4)
        target = T.index(_targets(5, 4, ignore))
        kw = dict(reduction=reduction, label_smoothing=smoothing) if not nll else dict(reduction=reduction)
        if weight:
            kw["weight"] = T.x(4, low=0.2, high=2, grad=False)
        if ignore is not None:
            kw["ignore_index"] = ignore
        if nll:
            return F.nll_loss(F.log_softmax(x, 1), target, **kw)
        return F.cross_entropy(x, target, **kw)
    return case


for _r in ("mean", "sum", "none"):
    for _w in (False, True):
        CASES["cross_entropy_%s%s" % (_r, "_weight" if _w else "")] = _ce(_r, _w)
        CASES["cross_entropy_%s%s_ignore" % (_r, "_weight" if _w else "")] = _ce(_r, _w, ignore=-100)
        CASES["cross_entropy_%s%s_smoothing" % (_r, "_weight" if _w else "")] = _ce(_r, _w, ignore=2, smoothing=0.2)
        CASES["nll_loss_%s%s_ignore" % (_r, "_weight" if _w else "")] = _ce(_r, _w, ignore=3, nll=True)


def _ce_probabilities(reduction, weight, smoothing):
    def case(T, F, m):
        kw = dict(reduction=reduction, label_smoothing=smoothing)
        if weight:
            kw["weight"] = T.x(4, low=0.2, high=2, grad=False)
        return F.cross_entropy(T.x(5, 4), T.probabilities(5, 4), **kw)
    return case


for _r in ("mean", "sum", "none"):
    CASES["cross_entropy_probabilities_" + _r] = _ce_probabilities(_r, False, 0.0)
    CASES["cross_entropy_probabilities_%s_weight_smoothing" % _r] = _ce_probabilities(_r, True, 0.3)
CASES["cross_entropy_probabilities_grad_target"] = lambda T, F, m: F.cross_entropy(
    T.x(5, 4), F.softmax(T.x(5, 4), 1), label_smoothing=0.1)
CASES["cross_entropy_1d"] = lambda T, F, m: F.cross_entropy(T.x(4), T.index(2))
CASES["cross_entropy_nd"] = lambda T, F, m: F.cross_entropy(T.x(2, 4, 3), T.index([[0, 3, 1], [2, 2, -100]]),
                                                            weight=T.x(4, low=0.2, high=2, grad=False))
CASES["cross_entropy_nd_smoothing_none"] = lambda T, F, m: F.cross_entropy(
    T.x(2, 4, 3, 2), T.index(np.arange(12).reshape(2, 3, 2) % 4), label_smoothing=0.25, reduction="none")
CASES["nll_loss_4d"] = lambda T, F, m: F.nll_loss(F.log_softmax(T.x(2, 3, 2, 2), 1),
                                                  T.index(np.arange(8).reshape(2, 2, 2) % 3))
CASES["cross_entropy_all_ignored"] = lambda T, F, m: F.cross_entropy(T.x(2, 3), T.index([-100, -100]),
                                                                     reduction="sum")


# Second derivatives are 0 almost everywhere; torch 1.13 returns its
# efficient zero tensor's uninitialised memory for l1_loss's (SgnBackward0),
# so there is nothing to compare with.
PIECEWISE_LINEAR = {"l1_loss", "l1_loss_sum", "l1_loss_none"}


def _run(m, name, device, seed):
    """The case's value, first and second derivatives in library m."""
    T = Maker(m, device, seed)
    F = TF if m is ts else TORCH_F
    out = CASES[name](T, F, m)
    leaves = T.leaves
    weights = np.random.default_rng(seed + 1).uniform(0.5, 1.5, size=tuple(out.shape))
    w = torch.tensor(weights) if m is torch else ts.tensor(weights, dtype=ts.float64).to(device)
    grads = m.autograd.grad(out, leaves, w, create_graph=True, allow_unused=True)
    firsts = [None if g is None else values(g) for g in grads]
    used = [i for i, g in enumerate(grads) if g is not None and g.requires_grad]
    seconds = [None] * len(leaves)
    if used and name not in PIECEWISE_LINEAR:
        total = sum((grads[i] * grads[i]).sum() for i in used)
        for i, g in zip(used, m.autograd.grad(total, [leaves[i] for i in used], allow_unused=True)):
            seconds[i] = None if g is None else values(g)
    after = [values(leaf) for leaf in leaves]  # embedding's max_norm renormalises its weight in place
    return values(out), firsts, seconds, after


def _close(got, want):
    if got is None or want is None:
        return (got is None or not np.any(got)) and (want is None or not np.any(want))
    return got.shape == want.shape and np.allclose(got, want, rtol=1e-10, atol=1e-12, equal_nan=True)


def check(name, variant, device="cpu", seed=0):
    """None when tessera's case matches torch's, else what differs."""
    got, want = _run(ts, name, device, seed), _run(torch, name, "cpu", seed)
    for what, g, w in zip(("value", "first derivatives", "second derivatives", "inputs after the call"), got, want):
        if what == "value":
            g, w = [g], [w]
        if len(g) != len(w):
            return "%s: %d arrays, torch %d" % (what, len(g), len(w))
        for i, (a, b) in enumerate(zip(g, w)):
            if not _close(a, b):
                return "%s %d:\n%s\ntorch:\n%s" % (what, i, a, b)
    return None


NAMES = sorted(CASES)


@pytest.mark.parametrize("name", NAMES)
def test_functions_match_torch_on_the_cpu(name):
    assert check(name, "plain") is None


def main(device):
    report(check, [(name, "plain") for name in NAMES], device)


(test_functions_match_torch_on_the_emulated_cuda_device,
 test_functions_match_torch_on_the_arena_device) = device_tests("test_nn_functional_vs_torch")


def test_node_names_are_torchs():
    x = ts.randn(3, 4, dtype=ts.float64, requires_grad=True)
    w = ts.randn(5, 4, dtype=ts.float64, requires_grad=True)
    t = ts.tensor([0, 1, 2], dtype=ts.int64)
    assert TF.gelu(x).grad_fn.name() == "GeluBackward0"
    assert TF.silu(x).grad_fn.name() == "SiluBackward0"
    assert TF.softplus(x).grad_fn.name() == "SoftplusBackward0"
    assert TF.layer_norm(x, (4,)).grad_fn.name() == "NativeLayerNormBackward0"
    assert TF.embedding(t, w).grad_fn.name() == "EmbeddingBackward0"
    assert TF.mse_loss(x, x * 2).grad_fn.name() == "MseLossBackward0"
    assert TF.nll_loss(x[:, :3], t).grad_fn.name() == "NllLossBackward0"
    assert TF.cross_entropy(x, t).grad_fn.name() == "NllLossBackward0"
    assert TF.binary_cross_entropy(x.sigmoid(), x.detach().sigmoid()).grad_fn.name() == \
        "BinaryCrossEntropyBackward0"
    assert TF.binary_cross_entropy_with_logits(x, x.detach()).grad_fn.name() == \
        "BinaryCrossEntropyWithLogitsBackward0"
    assert ts.erf(x).grad_fn.name() == "ErfBackward0"


def test_erf_matches_torch():
    x = np.linspace(-6, 6, 101)
    got = ts.erf(ts.tensor(x, dtype=ts.float64)).numpy()
    np.testing.assert_allclose(got, torch.erf(torch.tensor(x)).numpy(), rtol=1e-15, atol=1e-16)
    got32 = ts.erf(ts.tensor(x, dtype=ts.float32)).numpy()
    np.testing.assert_allclose(got32, torch.erf(torch.tensor(x, dtype=torch.float32)).numpy(), rtol=1e-6)
    with pytest.raises((TypeError, RuntimeError), match="erf is not defined for complex"):
        ts.erf(ts.tensor([1 + 1j]))



# ---- half precision: Note [Half precision inside fused functions] -------------------------

_HALF = [("gelu", TF.gelu, TORCH_F.gelu),
         ("gelu_tanh", lambda t: TF.gelu(t, approximate="tanh"), lambda t: TORCH_F.gelu(t, approximate="tanh")),
         ("silu", TF.silu, TORCH_F.silu),
         ("softplus", TF.softplus, TORCH_F.softplus),
         ("layer_norm", lambda t: TF.layer_norm(t, (64,)), lambda t: TORCH_F.layer_norm(t, (64,))),
         ("softmax", lambda t: TF.softmax(t, 1), lambda t: torch.softmax(t, 1)),
         ("log_softmax", lambda t: TF.log_softmax(t, 1), lambda t: torch.log_softmax(t, 1)),
         ("logsumexp", lambda t: ts.logsumexp(t, 1), lambda t: torch.logsumexp(t, 1))]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name,f,g", _HALF, ids=[h[0] for h in _HALF])
def test_half_precision_rounds_once(name, f, g, dtype):
    """A float16/bfloat16 input is computed in float32 and rounded once: the
    result lies within one ulp of the float64 value of the rounded input
    (a chain of half-precision ops lands several ulps away, layer_norm's
    variance far more)."""
    eps, tiny = {"bfloat16": (2.0**-7, 2.0**-126), "float16": (2.0**-10, 2.0**-14)}[dtype]

    def ulp(ref):  # the dtype's spacing at each reference value
        return np.exp2(np.floor(np.log2(np.maximum(np.abs(ref), tiny)))) * eps

    x = np.random.default_rng(3).uniform(-4, 4, size=(8, 64))
    xh = ts.tensor(x, dtype=ts.float64).to(getattr(ts, dtype))
    got = f(xh)
    assert got.dtype == getattr(ts, dtype)
    want = g(torch.tensor(xh.to(ts.float64).numpy())).numpy()
    # gelu's tanh form cancels in 1 + tanh(..) for x near -4 in float32 too:
    # torch's own float32 kernel lands 1.27 ulps of float16 away there
    bound = 1.5 if name == "gelu_tanh" else 1.0
    assert np.max(np.abs(got.to(ts.float64).numpy() - want) / ulp(want)) <= bound
    # the gradient comes back in the input's dtype, computed the same way
    # (within a few ulps of its largest entry: the backward formulas read
    # the rounded output, as torch's do)
    w = np.random.default_rng(4).uniform(-1, 1, size=want.shape)
    xg = xh.detach().requires_grad_(True)
    (f(xg).to(ts.float64) * ts.tensor(w)).sum().backward()
    assert xg.grad.dtype == getattr(ts, dtype)
    xt = torch.tensor(xh.to(ts.float64).numpy(), requires_grad=True)
    (g(xt) * torch.tensor(w)).sum().backward()
    gw = xt.grad.numpy()
    assert np.max(np.abs(xg.grad.to(ts.float64).numpy() - gw)) <= 4 * ulp(np.max(np.abs(gw)))


# ---- dropout: Tessera's own draws ---------------------------------------------------------

def _dropout_case(device, p=0.3, seed=7):
    ts.manual_seed(seed)
    x = ts.tensor(np.linspace(1, 2, 4000).reshape(40, 100), dtype=ts.float64).to(device).requires_grad_()
    out = TF.dropout(x, p=p)
    (g,) = ts.autograd.grad(out, [x], ts.ones(40, 100, dtype=ts.float64).to(device))
    return values(x), values(out), values(g)


def test_dropout_zeroes_with_probability_p_and_scales_the_rest():
    x, out, g = _dropout_case("cpu")
    kept = out != 0
    assert abs(kept.mean() - 0.7) < 0.03  # 4000 draws: 0.7 +- 4.5 sigma
    np.testing.assert_allclose(out[kept], x[kept] / 0.7, rtol=1e-15)
    np.testing.assert_array_equal(g, np.where(kept, 1 / 0.7, 0.0))  # the gradient uses the same mask
    _, again, _ = _dropout_case("cpu")
    np.testing.assert_array_equal(out, again)  # manual_seed repeats the mask
    _, other, _ = _dropout_case("cpu", seed=8)
    assert (other != out).any()


def test_dropout_gives_the_same_mask_on_every_device():
    _, out, _ = _dropout_case("cpu")
    for line in _device_masks():
        device, digest = line.split()
        assert digest == _digest(out != 0), device


def _digest(mask):
    return "".join("1" if v else "0" for v in mask.ravel()[:512]) + "-%d" % int(mask.sum())


def _device_masks():
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    lines = []
    from devices import arena_config
    configs = []
    if os.environ.get("TESSERA_TEST_CUDA_EMU_CONFIG"):
        configs.append((os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"], "cuda:0"))
    if os.environ.get("TESSERA_TEST_ARENA_PLUGIN"):
        import tempfile
        configs.append((str(arena_config(__import__("pathlib").Path(tempfile.mkdtemp()), 67108864)), "arena:0"))
    for config, device in configs:
        script = ("import sys; sys.path.insert(0, %r); import test_nn_functional_vs_torch as t; "
                  "_, out, _ = t._dropout_case(%r); print(%r, t._digest(out != 0))" % (here, device, device))
        env = dict(os.environ, TESSERA_CONFIG=config, TESSERA_LOG_LEVEL="error")
        run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        lines.append(run.stdout.strip())
    return lines


def test_dropout_in_eval_returns_its_input():
    x = ts.randn(3, 4)
    assert TF.dropout(x, 0.5, training=False) is not None
    np.testing.assert_array_equal(TF.dropout(x, 0.5, training=False).numpy(), x.numpy())


# ---- errors, with torch's messages where torch has one ----------------------------------------------

def test_errors_name_what_is_wrong():
    x = ts.randn(3, 4, dtype=ts.float64)
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        TF.cross_entropy(x, ts.tensor([0, 7, 1]))
    with pytest.raises(IndexError, match="Target -2 is out of bounds."):
        TF.nll_loss(x, ts.tensor([0, -2, 1]))
    with pytest.raises(ValueError, match="Expected input batch_size \\(3\\) to match target batch_size \\(2\\)"):
        TF.cross_entropy(x, ts.tensor([0, 1]))
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
        TF.cross_entropy(x, ts.tensor([0, 1, 2]), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="weight tensor should be defined either for all 4 classes"):
        TF.cross_entropy(x, ts.tensor([0, 1, 2]), weight=ts.ones(3, dtype=ts.float64))
    with pytest.raises(RuntimeError, match="expected class indices of dtype int64, got int32"):
        TF.nll_loss(x, ts.tensor([0, 1, 2], dtype=ts.int32))
    with pytest.raises(RuntimeError, match="Given normalized_shape=\\[3\\], expected input with shape \\[\\*, 3\\]"):
        TF.layer_norm(x, (3,))
    with pytest.raises(IndexError, match="index 9 is out of range for 3 rows"):
        TF.embedding(ts.tensor([1, 9]), x)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        TF.dropout(x, 1.5)
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        TF.binary_cross_entropy(x, x)
    with pytest.raises(ValueError, match="Using a target size"):
        TF.binary_cross_entropy_with_logits(x, x[:2])
    with pytest.raises(RuntimeError, match="must equal weight's in_features"):
        TF.linear(x, ts.randn(5, 3, dtype=ts.float64))
    with pytest.raises(RuntimeError, match="expected weight of dtype float64"):
        TF.linear(x, ts.randn(5, 4))
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        TF.mse_loss(x, x, reduction="avg")
    w = ts.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="the derivative for 'weight' is not implemented"):
        TF.binary_cross_entropy(ts.rand(2, 3), ts.rand(2, 3), weight=w)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'pos_weight'"):
        TF.binary_cross_entropy_with_logits(ts.rand(2, 3), ts.rand(2, 3), pos_weight=w)
