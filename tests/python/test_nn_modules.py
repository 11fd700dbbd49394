# SPDX-License-Identifier: Apache-2.0
"""tessera.nn's Module, Parameter, containers and layers against torch 1.13's
torch.nn: registration, names and their order, state_dict and
load_state_dict (values and error text), to() keeping the Parameter objects,
train/eval, zero_grad and repr. The device checks (to() onto the emulated
cuda device and the arena device, and back) run in subprocesses with those
configs: main(device)."""
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch

import tessera as ts
import tessera.nn as nn

from grad_cases import device_tests

needs_layers = pytest.mark.skipif(not hasattr(nn, "Linear"), reason="tessera.nn.functional is not there yet")


def to_ts(t, device="cpu"):
    return ts.tensor(t.detach().numpy(), device=device)


def to_np(t):
    return np.array(t.detach().cpu().tolist(), dtype=np.float64).reshape(tuple(t.shape))


class Block(object):
    """The same model written against either library: a module with its own
    parameter, a None parameter, a persistent and a non-persistent buffer,
    a nested container, a submodule registered twice and a shared
    parameter."""

    @staticmethod
    def make(m):
        class Leaf(m.nn.Module):
            def __init__(self, n):
                super().__init__()
                self.w = m.nn.Parameter(m.ones(n, 2))
                self.register_parameter("unused", None)
                self.register_buffer("running", m.zeros(n))
                self.register_buffer("scratch", m.zeros(1), persistent=False)

        class Net(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = m.nn.Parameter(m.ones(()))
                self.first = Leaf(3)
                self.body = m.nn.Sequential(Leaf(2), m.nn.Sequential(Leaf(4)))
                self.again = self.first  # the same module under a second name
                self.tied = m.nn.Module()
                self.tied.w = self.first.w  # a shared parameter
                self.register_buffer("count", m.zeros((), dtype=m.int64))
        return Net()


def test_parameter_shares_storage_and_is_a_leaf_tensor():
    data = ts.zeros(2, 3)
    p = nn.Parameter(data)
    assert isinstance(p, ts.Tensor) and p.requires_grad and p.is_leaf and p.grad is None
    data[0, 0] = 5.0
    assert p[0, 0].item() == 5.0
    assert not nn.Parameter(data, requires_grad=False).requires_grad
    assert nn.Parameter().shape == (0,)
    assert type(p * 2) is ts.Tensor and type(p.detach()) is ts.Tensor
    assert repr(p) == "Parameter containing:\n" + repr(data)[:-1] + ", requires_grad=True)"  # as torch prints it
    with pytest.raises(RuntimeError, match="floating point"):
        nn.Parameter(ts.zeros(2, dtype=ts.int64))
    q = nn.Parameter(ts.zeros(2, dtype=ts.int64), requires_grad=False)
    assert not q.requires_grad
    import copy
    c = copy.deepcopy(p)
    assert type(c) is nn.Parameter and c.requires_grad and c.data_ptr() != p.data_ptr()


def test_data_setter_keeps_the_object_and_its_flags():
    x = ts.ones(3, requires_grad=True)
    x.grad = ts.full((3,), 2.0)
    x.data = ts.zeros(3)
    assert x.requires_grad and x.is_leaf and x.grad.tolist() == [2.0, 2.0, 2.0] and x.tolist() == [0.0] * 3
    x.data = ts.zeros(3, dtype=ts.float64)  # a grad of another dtype cannot stay
    assert x.dtype == ts.float64 and x.requires_grad and x.grad is None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0] * 3
    y = ts.arange(4.0)
    z = ts.zeros(2)
    z.data = y
    y[0] = 7.0
    assert z.tolist() == [7.0, 1.0, 2.0, 3.0] and not z.requires_grad  # the same storage, as in torch
    d = x.data
    assert not d.requires_grad and d.data_ptr() == x.data_ptr()
    with pytest.raises(TypeError):
        x.data = 1.0


def test_names_and_order_match_torch():
    t, s = Block.make(torch), Block.make(ts)
    for method in ("named_parameters", "named_buffers", "named_modules", "named_children"):
        assert [n for n, _ in getattr(s, method)()] == [n for n, _ in getattr(t, method)()], method
    assert [n for n, _ in s.named_parameters(prefix="net", recurse=False)] == \
        [n for n, _ in t.named_parameters(prefix="net", recurse=False)]
    assert [n for n, _ in s.named_modules(remove_duplicate=False)] == \
        [n for n, _ in t.named_modules(remove_duplicate=False)]
    assert len(list(s.parameters())) == len(list(t.parameters()))
    assert len(list(s.buffers(recurse=False))) == len(list(t.buffers(recurse=False)))
    assert len(list(s.modules())) == len(list(t.modules())) and len(list(s.children())) == len(list(t.children()))
    assert list(s.state_dict().keys()) == list(t.state_dict().keys())
    assert list(s.state_dict()._metadata.keys()) == list(t.state_dict()._metadata.keys())
    assert s.get_submodule("body.1.0") is s.body[1][0]
    assert s.get_parameter("body.1.0.w") is s.body[1][0].w
    assert s.get_buffer("first.running") is s.first.running
    for bad, fn in (("body.nope", "get_submodule"), ("first.w.x", "get_submodule"), ("first.running", "get_parameter")):
        with pytest.raises(AttributeError) as e_s:
            getattr(s, fn)(bad)
        with pytest.raises(AttributeError) as e_t:
            getattr(t, fn)(bad)
        assert str(e_s.value) == str(e_t.value)
    assert sorted(set(dir(s)) - set(dir(ts.Tensor))) == sorted(set(dir(s)) - set(dir(ts.Tensor)))
    assert "scale" in dir(s) and "first" in dir(s)


def test_registration_rules_and_messages_match_torch():
    def messages(m):
        out = []
        mod = m.nn.Module()
        mod.p = m.nn.Parameter(m.zeros(2))
        for action in (lambda: mod.register_buffer("p", m.zeros(1)),
                       lambda: mod.register_buffer("a.b", m.zeros(1)),
                       lambda: mod.register_buffer("", m.zeros(1)),
                       lambda: mod.register_buffer("x", [1]),
                       lambda: mod.register_parameter("q", 3),
                       lambda: mod.register_parameter(1, None),
                       lambda: mod.add_module("a.b", m.nn.Module()),
                       lambda: mod.add_module("c", 5),
                       lambda: setattr(mod, "p", 5),
                       lambda: mod.register_parameter("r", (m.nn.Parameter(m.zeros(2)) * 2)),
                       lambda: mod.missing,
                       lambda: mod.forward(1),
                       lambda: mod.train(1)):
            try:
                action()
                out.append(None)
            except Exception as e:  # noqa: BLE001
                out.append((type(e).__name__, str(e).replace("torch.FloatTensor", "tessera.Tensor")))
        mod.register_parameter("p", None)
        mod.child = m.nn.Module()
        mod.child = None
        mod.register_buffer("b", m.ones(1))
        mod.b = None
        del mod.child
        out.append((list(mod._parameters), list(mod._modules), list(mod._buffers)))
        return out

    got, want = messages(ts), messages(torch)
    assert got == want


def _torch_mlp(dtype=torch.float64):
    torch.manual_seed(0)
    return torch.nn.Sequential(OrderedDict([("fc1", torch.nn.Linear(4, 5)), ("act", torch.nn.GELU()),
                                            ("norm", torch.nn.LayerNorm(5)), ("drop", torch.nn.Dropout(0.25)),
                                            ("fc2", torch.nn.Linear(5, 3))])).to(dtype)


def _ts_mlp():
    return nn.Sequential(OrderedDict([("fc1", nn.Linear(4, 5)), ("act", nn.GELU()), ("norm", nn.LayerNorm(5)),
                                      ("drop", nn.Dropout(0.25)), ("fc2", nn.Linear(5, 3))]))


def test_state_dict_values_are_detached_and_keep_vars_gives_the_parameters():
    s = Block.make(ts)
    sd = s.state_dict()
    assert isinstance(sd, OrderedDict)
    assert not any(v.requires_grad for v in sd.values())
    assert all(type(v) is ts.Tensor for v in sd.values())
    assert sd["first.w"].data_ptr() == s.first.w.data_ptr()  # detached views, not copies
    kept = s.state_dict(keep_vars=True)
    assert kept["first.w"] is s.first.w and kept["count"] is s.count
    assert list(s.state_dict(prefix="m.").keys())[0] == "m.scale"


def test_load_state_dict_copies_in_place_and_reports_keys_as_torch():
    t, s = Block.make(torch), Block.make(ts)
    with torch.no_grad():
        for i, p in enumerate(t.parameters()):
            p.copy_(torch.randn(p.shape))
        t.first.running.fill_(3.0)
    params = dict(s.named_parameters())
    result = s.load_state_dict({k: to_ts(v) for k, v in t.state_dict().items()})
    assert result == t.load_state_dict(t.state_dict())
    assert repr(result) == "<All keys matched successfully>" and result.missing_keys == []
    assert all(params[n] is p for n, p in s.named_parameters())
    for k, v in t.state_dict().items():
        assert np.array_equal(to_np(s.state_dict()[k]), v.double().numpy()), k
    assert s.first.w.requires_grad and s.first.w.grad_fn is None

    # missing and unexpected keys, strict and not
    def partial(sd):
        sd = OrderedDict(sd)
        del sd["first.w"], sd["count"]
        sd["body.9.w"] = sd["scale"]
        sd["extra"] = sd["scale"]
        return sd

    t_sd = partial(t.state_dict())
    s_sd = partial(OrderedDict((k, to_ts(v)) for k, v in t.state_dict().items()))
    with pytest.raises(RuntimeError) as e_t:
        t.load_state_dict(t_sd)
    with pytest.raises(RuntimeError) as e_s:
        s.load_state_dict(s_sd)
    assert str(e_s.value) == str(e_t.value)
    r_t, r_s = t.load_state_dict(t_sd, strict=False), s.load_state_dict(s_sd, strict=False)
    assert r_s == r_t and r_s.missing_keys == ["count", "first.w"] and r_s.unexpected_keys == ["extra", "body.9.w"]
    assert repr(r_s) == repr(r_t)

    # a shape mismatch: torch's text, with tessera.Size for torch.Size; the other values still load
    bad_t = OrderedDict(t.state_dict())
    bad_t["first.running"] = torch.zeros(5)
    bad_t["scale"] = torch.full((), 9.0)
    bad_s = OrderedDict((k, to_ts(v)) for k, v in bad_t.items())
    with pytest.raises(RuntimeError) as e_t:
        t.load_state_dict(bad_t)
    with pytest.raises(RuntimeError) as e_s:
        s.load_state_dict(bad_s)
    assert str(e_s.value) == str(e_t.value).replace("torch.Size", "tessera.Size")
    assert s.scale.item() == 9.0
    with pytest.raises(RuntimeError) as e_t:
        t.load_state_dict({**t.state_dict(), "scale": [1.0]})
    with pytest.raises(RuntimeError) as e_s:
        s.load_state_dict({**s.state_dict(), "scale": [1.0]})
    assert str(e_s.value) == str(e_t.value)
    with pytest.raises(TypeError, match="dict-like"):
        s.load_state_dict([1])


def test_train_eval_requires_grad_and_apply():
    s = Block.make(ts)
    assert all(m.training for m in s.modules())
    assert s.eval() is s and not any(m.training for m in s.modules())
    s.train()
    assert all(m.training for m in s.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        s.train(1)
    s.requires_grad_(False)
    assert not any(p.requires_grad for p in s.parameters())
    seen, seen_t = [], []
    assert s.apply(lambda m: seen.append(type(m).__name__)) is s
    Block.make(torch).apply(lambda m: seen_t.append(type(m).__name__))
    assert seen == seen_t


def test_zero_grad_as_torch():
    s = Block.make(ts)
    (s.scale * s.first.w.sum() + s.body[0].w.sum()).backward()
    grads = {n: p.grad for n, p in s.named_parameters()}
    assert grads["body.1.0.w"] is None and grads["scale"] is not None
    s.zero_grad()
    for n, p in s.named_parameters():
        if grads[n] is None:
            assert p.grad is None
        else:
            assert p.grad.tolist() == ts.zeros_like(p).tolist() and p.grad.data_ptr() == grads[n].data_ptr()
    s.zero_grad(set_to_none=True)
    assert all(p.grad is None for p in s.parameters())


def test_to_dtype_keeps_parameter_objects_and_converts_grads():
    s = Block.make(ts)
    before = dict(s.named_parameters())
    s.scale.grad = ts.full((), 2.0)
    assert s.to(ts.float64) is s
    assert all(before[n] is p for n, p in s.named_parameters())
    assert all(p.dtype == ts.float64 and p.requires_grad for p in s.parameters())
    assert s.scale.grad.dtype == ts.float64 and s.scale.grad.item() == 2.0
    assert s.first.running.dtype == ts.float64 and s.count.dtype == ts.int64  # integer buffers keep their dtype
    s.float()
    assert s.scale.dtype == ts.float32 and s.scale.grad.dtype == ts.float32 and s.count.dtype == ts.int64
    s.half()
    assert s.scale.dtype == ts.float16
    s.double()
    assert s.scale.dtype == ts.float64 and before["scale"] is s.scale
    with pytest.raises(TypeError) as e_s:
        s.to(ts.int32)
    with pytest.raises(TypeError) as e_t:
        torch.nn.Linear(1, 1).to(torch.int32)
    assert str(e_s.value) == str(e_t.value).replace("torch", "tessera")
    (s.scale * s.first.w).sum().backward()  # the converted parameters still train
    assert s.first.w.grad.dtype == ts.float64


@needs_layers
def test_layers_reprs_match_torch():
    pairs = [
        (nn.Linear(2, 3), torch.nn.Linear(2, 3)), (nn.Linear(2, 3, bias=False), torch.nn.Linear(2, 3, bias=False)),
        (nn.ReLU(), torch.nn.ReLU()), (nn.ReLU(inplace=True), torch.nn.ReLU(inplace=True)),
        (nn.GELU(), torch.nn.GELU()), (nn.GELU("tanh"), torch.nn.GELU("tanh")), (nn.Tanh(), torch.nn.Tanh()),
        (nn.Sigmoid(), torch.nn.Sigmoid()), (nn.Dropout(), torch.nn.Dropout()),
        (nn.Dropout(0.1, True), torch.nn.Dropout(0.1, True)), (nn.LayerNorm(4), torch.nn.LayerNorm(4)),
        (nn.LayerNorm([2, 3], eps=1e-3, elementwise_affine=False),
         torch.nn.LayerNorm([2, 3], eps=1e-3, elementwise_affine=False)),
        (nn.Embedding(5, 2), torch.nn.Embedding(5, 2)),
        (nn.Embedding(5, 2, padding_idx=-1, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True),
         torch.nn.Embedding(5, 2, padding_idx=-1, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True)),
        (nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()), (nn.MSELoss(), torch.nn.MSELoss()),
        (nn.Identity(), torch.nn.Identity()), (_ts_mlp(), _torch_mlp()),
        (nn.Sequential(nn.Linear(1, 2), nn.Sequential(nn.ReLU(), nn.Linear(2, 1))),
         torch.nn.Sequential(torch.nn.Linear(1, 2), torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(2, 1)))),
        (nn.ModuleList([nn.ReLU(), nn.Tanh()]), torch.nn.ModuleList([torch.nn.ReLU(), torch.nn.Tanh()])),
    ]
    for s, t in pairs:
        assert repr(s) == repr(t)
        assert [n for n, _ in s.named_parameters()] == [n for n, _ in t.named_parameters()]
        assert list(s.state_dict()) == list(t.state_dict())
    assert nn.Embedding(5, 2, padding_idx=-2).padding_idx == 3
    with pytest.raises(NotImplementedError):
        nn.Embedding(5, 2, sparse=True)
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    w = ts.ones(3)
    assert list(nn.CrossEntropyLoss(weight=w).state_dict()) == ["weight"]
    with pytest.warns(UserWarning, match="reduction='sum'"):
        assert nn.MSELoss(size_average=False).reduction == "sum"


@needs_layers
def test_sequential_indexing_length_iteration_append():
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and seq[1] is list(seq)[1]
    assert isinstance(seq[1:], nn.Sequential) and len(seq[1:]) == 2 and list(seq[1:]._modules) == ["1", "2"]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        seq[3]
    seq.append(nn.Tanh())
    assert len(seq) == 4 and list(seq._modules) == ["0", "1", "2", "3"]
    del seq[1]
    assert list(seq._modules) == ["0", "1", "2"] and isinstance(seq[1], nn.Linear)
    seq[2] = nn.Sigmoid()
    assert isinstance(seq[2], nn.Sigmoid)
    assert len(seq + nn.Sequential(nn.ReLU())) == 4
    ml = nn.ModuleList([nn.ReLU()])
    ml += [nn.Tanh()]
    ml.append(nn.Sigmoid())
    assert len(ml) == 3 and [n for n, _ in ml.named_children()] == ["0", "1", "2"]


@needs_layers
def test_default_initialisations_have_torchs_bounds_and_repeat_with_the_seed():
    ts.manual_seed(3)
    lin = nn.Linear(50, 40)
    bound = 1 / np.sqrt(50)
    w, b = to_np(lin.weight), to_np(lin.bias)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.9 * bound and abs(w.mean()) < 0.1 * bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.05 * bound
    ts.manual_seed(3)
    again = nn.Linear(50, 40)
    assert np.array_equal(to_np(again.weight), w) and np.array_equal(to_np(again.bias), b)
    emb = nn.Embedding(200, 30, padding_idx=4)
    e = to_np(emb.weight)
    assert not e[4].any() and abs(e.std() - 1) < 0.05 and abs(e.mean()) < 0.05
    ln = nn.LayerNorm(7)
    assert to_np(ln.weight).tolist() == [1.0] * 7 and to_np(ln.bias).tolist() == [0.0] * 7
    lin64 = nn.Linear(3, 2, dtype=ts.float64)
    assert lin64.weight.dtype == ts.float64 and lin64.bias.dtype == ts.float64 and lin64.weight.requires_grad


@needs_layers
@pytest.mark.parametrize("dtype", ["float64"])
def test_mlp_from_torch_state_dict_matches_torch_forward(dtype, device="cpu"):
    failure = _mlp_matches_torch(device)
    assert failure is None, failure


def _mlp_matches_torch(device):
    t = _torch_mlp().eval()
    s = _ts_mlp().to(ts.float64).to(device).eval()
    s.load_state_dict({k: to_ts(v, device) for k, v in t.state_dict().items()})
    x = torch.randn(6, 4, dtype=torch.float64)
    got, want = to_np(s(to_ts(x, device))), t(x).detach().numpy()
    if not np.allclose(got, want, rtol=1e-12, atol=1e-12):
        return "mlp forward on %s:\n%s\ntorch:\n%s" % (device, got, want)
    logits = torch.randn(5, 3, dtype=torch.float64)
    target = torch.tensor([0, 2, 1, 2, 0])
    for kwargs in ({}, {"reduction": "sum", "label_smoothing": 0.1}, {"ignore_index": 2, "reduction": "none"},
                   {"weight": torch.tensor([1.0, 2.0, 0.5], dtype=torch.float64)}):
        skw = {k: (to_ts(v, device) if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()}
        got = to_np(nn.CrossEntropyLoss(**skw)(to_ts(logits, device), ts.tensor(target.numpy(), device=device)))
        want = torch.nn.CrossEntropyLoss(**kwargs)(logits, target).numpy()
        if not np.allclose(got, want, rtol=1e-12, atol=1e-12):
            return "cross_entropy %r on %s: %s, torch %s" % (kwargs, device, got, want)
    y = torch.randn(5, 3, dtype=torch.float64)
    for reduction in ("mean", "sum", "none"):
        got = to_np(nn.MSELoss(reduction=reduction)(to_ts(logits, device), to_ts(y, device)))
        want = torch.nn.MSELoss(reduction=reduction)(logits, y).numpy()
        if not np.allclose(got, want, rtol=1e-12, atol=1e-12):
            return "mse_loss %s on %s: %s, torch %s" % (reduction, device, got, want)
    emb_t = torch.nn.Embedding(6, 3, padding_idx=1).double()
    emb_s = nn.Embedding(6, 3, padding_idx=1, dtype=ts.float64, device=device)
    emb_s.load_state_dict({k: to_ts(v, device) for k, v in emb_t.state_dict().items()})
    idx = torch.tensor([[0, 1], [5, 1]])
    if not np.array_equal(to_np(emb_s(ts.tensor(idx.numpy(), device=device))), emb_t(idx).detach().numpy()):
        return "embedding on %s" % device
    for act_s, act_t in ((nn.ReLU(), torch.nn.ReLU()), (nn.Tanh(), torch.nn.Tanh()), (nn.Sigmoid(), torch.nn.Sigmoid()),
                         (nn.GELU("tanh"), torch.nn.GELU("tanh"))):
        if not np.allclose(to_np(act_s(to_ts(x, device))), act_t(x).numpy(), rtol=1e-12, atol=1e-14):
            return "%r on %s" % (act_s, device)
    drop = nn.Dropout(0.5)
    z = ts.ones(1000, dtype=ts.float64, device=device)
    kept = to_np(drop(z))
    if not (set(np.unique(kept)) <= {0.0, 2.0} and 350 < (kept == 2.0).sum() < 650):
        return "dropout on %s: %s" % (device, np.unique(kept, return_counts=True))
    if not np.array_equal(to_np(drop.eval()(z)), to_np(z)):
        return "dropout in eval mode on %s" % device
    # gradients reach the parameters, and the optimizer-facing objects are the same after load
    s.train()
    loss = nn.CrossEntropyLoss()(s(to_ts(x[:5], device)), ts.tensor(target.numpy(), device=device))
    loss.backward()
    if any(p.grad is None or p.grad.device != ts.device(device) for p in s.parameters()):
        return "gradients on %s" % device
    return None


def _to_device_keeps_parameters(device):
    """to(device) and back as torch: the same Parameter objects, their data
    and grads moved, integer buffers moved but not cast."""
    s = Block.make(ts)
    before = dict(s.named_parameters())
    s.scale.grad = ts.full((), 2.0)
    values = {k: to_np(v) for k, v in s.state_dict().items()}
    s.to(device)
    dev = ts.device(device)
    if any(before[n] is not p for n, p in s.named_parameters()):
        return "to(%s) replaced a Parameter" % device
    if any(t.device != dev for t in list(s.parameters()) + list(s.buffers())):
        return "to(%s) left a tensor behind" % device
    if s.scale.grad is None or s.scale.grad.device != dev or s.scale.grad.item() != 2.0:
        return "to(%s): the grad %r" % (device, s.scale.grad)
    if s.count.dtype != ts.int64:
        return "to(%s) cast the integer buffer" % device
    s.to(device, ts.float64)
    if s.first.w.dtype != ts.float64 or s.first.w.device != dev or s.count.dtype != ts.int64:
        return "to(%s, float64)" % device
    (s.scale * s.first.w).sum().backward()
    if s.first.w.grad.device != dev:
        return "backward after to(%s)" % device
    s.cpu()
    if any(before[n] is not p or p.device.type != "cpu" for n, p in s.named_parameters()):
        return "cpu() after to(%s)" % device
    if any(not np.array_equal(to_np(v), values[k]) for k, v in s.state_dict().items()):
        return "values changed on the round trip through %s" % device
    if device.startswith("cuda"):
        s.cuda()
        if s.scale.device != dev or before["scale"] is not s.scale:
            return "cuda()"
    return None


def main(device):
    """Every device check on `device` (run in a subprocess); one line per failure."""
    checks = [_to_device_keeps_parameters]
    if hasattr(nn, "Linear"):
        checks.append(_mlp_matches_torch)
    for check in checks:
        try:
            failure = check(device)
        except Exception as e:  # noqa: BLE001  (reported, not raised: the parent shows them all)
            failure = "%s: %s" % (type(e).__name__, e)
        if failure is not None:
            print("%s on %s: %s" % (check.__name__, device, failure.splitlines()[0]))


test_modules_on_the_emulated_cuda_device, test_modules_on_the_arena_device = device_tests("test_nn_modules")


def test_forward_hooks_and_call():
    class Double(nn.Module):
        def forward(self, x, scale=2):
            return x * scale

    m = Double()
    seen = []
    h = m.register_forward_hook(lambda mod, inp, out: seen.append((mod, inp)) or out + 1)
    pre = m.register_forward_pre_hook(lambda mod, inp: (inp[0] + 1,))
    assert m(ts.ones(1)).item() == 5.0 and seen[0][0] is m
    h.remove()
    pre.remove()
    assert m(ts.ones(1), scale=3).item() == 3.0
    with pytest.raises(NotImplementedError, match='Module \\[Module\\] is missing the required "forward" function'):
        nn.Module()(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert repr(nn.Module()) == "Module()"
