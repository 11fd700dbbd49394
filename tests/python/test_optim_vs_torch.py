# SPDX-License-Identifier: Apache-2.0
"""tessera.optim's SGD, Adam and AdamW against torch.optim 1.13's in float64.

Every option combination runs 100 steps beside torch on the same initial
parameters: four tensors of different shapes (one 0-d) in two param groups
with different learning rates, one parameter without a .grad on every third
step (so skipped, its state untouched). Both optimizers get the same
gradients each step, a function of torch's parameters (cos(3p) + 0.2 p plus
a step's noise, the same NumPy array for both), and the parameters must
agree to 1e-12 relative. Also: learning rates changed between steps by hand
and by StepLR / CosineAnnealingLR, zero_grad, state_dict against torch's,
load_state_dict round trips (from Tessera and from torch), the messages of
invalid hyperparameters, float32, and the 100 steps on the emulated cuda
device and the arena device (in subprocesses: main(device))."""
import itertools
import os

import numpy as np
import pytest
import torch

import tessera as ts

from devices import arena_config, needs_arena, needs_emulator
from grad_cases import on_device

torch.set_num_threads(2)

SHAPES = [(3, 4), (5,), (), (2, 3, 2)]
SKIPPED = 1  # the parameter whose .grad is None on every third step
LRS = {"SGD": (0.05, 0.02), "Adam": (0.01, 0.03), "AdamW": (0.01, 0.03)}  # group 0's, group 1's

SGD_CASES = [dict(momentum=m, dampening=d, nesterov=n, weight_decay=w, maximize=x)
             for m, d, n, w, x in itertools.product((0, 0.9), (0, 0.5), (False, True), (0, 0.1), (False, True))
             if not n or (m > 0 and d == 0)]
ADAM_CASES = [dict(betas=b, eps=e, weight_decay=w, amsgrad=a, maximize=x)
              for b, e, w, a, x in itertools.product(((0.9, 0.999), (0.8, 0.9)), (1e-8, 1e-2), (0, 0.1),
                                                      (False, True), (False, True))]
CASES = ([("SGD", kw) for kw in SGD_CASES] + [("Adam", kw) for kw in ADAM_CASES] +
         [("AdamW", kw) for kw in ADAM_CASES])
IDS = ["%s-%s" % (name, "-".join("%s=%s" % kv for kv in kw.items())) for name, kw in CASES]
# On the other devices: every option on, and the plainest form, of each optimizer.
DEVICE_CASES = [("SGD", dict(momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True)),
                ("SGD", dict(momentum=0.9, dampening=0.5, weight_decay=0.1)), ("SGD", {}),
                ("Adam", dict(betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True, maximize=True)), ("Adam", {}),
                ("AdamW", dict(betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True, maximize=True)), ("AdamW", {})]


def to_np(t):
    """A tensor of either library as a NumPy array (float64 unless float32)."""
    if isinstance(t, torch.Tensor):
        return t.detach().numpy().copy()
    return t.detach().cpu().numpy().copy()


def dtype_name(t):
    return str(t.dtype).split(".")[-1]


def groups(params, name):
    return [{"params": params[:2]}, {"params": params[2:], "lr": LRS[name][1]}]


class Pair:
    """The same parameters and optimizer in both libraries; step() feeds
    both one gradient per parameter, computed from torch's parameters."""

    def __init__(self, name, kwargs, device="cpu", dtype="float64", torch_only=False):
        rng = np.random.default_rng(0)
        self.initial = [rng.standard_normal(s) for s in SHAPES]
        self.name, self.kwargs, self.device, self.dtype, self.steps = name, kwargs, device, dtype, 0
        self.tparams = [torch.tensor(a, dtype=getattr(torch, dtype), requires_grad=True) for a in self.initial]
        self.topt = getattr(torch.optim, name)(groups(self.tparams, name), lr=LRS[name][0], **kwargs)
        self.params = self.opt = None
        if not torch_only:
            self.params = [ts.tensor(a, dtype=getattr(ts, dtype), device=device, requires_grad=True)
                           for a in self.initial]
            self.opt = self.make(self.params)

    def make(self, params, **override):
        kwargs = dict(dict(lr=LRS[self.name][0], **self.kwargs), **override)
        return getattr(ts.optim, self.name)(groups(params, self.name), **kwargs)

    def gradients(self):
        noise = np.random.default_rng(1000 + self.steps)
        grads = []
        for i, tp in enumerate(self.tparams):
            p = to_np(tp).astype(np.float64)
            g = np.cos(3 * p) + 0.2 * p + 0.1 * noise.standard_normal(p.shape)
            grads.append(None if i == SKIPPED and self.steps % 3 == 1 else g)
        return grads

    def step(self, n=1, tessera=True):
        for _ in range(n):
            for i, g in enumerate(self.gradients()):
                self.tparams[i].grad = None if g is None else torch.tensor(g, dtype=getattr(torch, self.dtype))
                if tessera:
                    self.params[i].grad = (None if g is None else
                                           ts.tensor(g, dtype=getattr(ts, self.dtype), device=self.device))
            self.topt.step()
            if tessera:
                self.opt.step()
            self.steps += 1

    def mismatch(self, rtol=1e-12, atol=1e-14, params=None):
        """None when the parameters agree with torch's, else what differs."""
        for i, (p, tp) in enumerate(zip(params or self.params, self.tparams)):
            try:
                np.testing.assert_allclose(to_np(p), to_np(tp), rtol=rtol, atol=atol)
            except AssertionError as e:
                return "parameter %d after %d steps: %s" % (i, self.steps, str(e).strip())
        return None


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_hundred_steps_match_torch(name, kwargs):
    pair = Pair(name, kwargs)
    pair.step(100)
    assert pair.mismatch() is None


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_learning_rate_and_options_changed_between_steps(name):
    kwargs = dict(momentum=0.9, weight_decay=0.1) if name == "SGD" else dict(weight_decay=0.1, amsgrad=True)
    pair = Pair(name, kwargs)
    for at, group, key, value in ((20, 0, "lr", 0.3 * LRS[name][0]), (40, 1, "lr", 2 * LRS[name][1]),
                                  (60, 0, "weight_decay", 0.02), (70, 1, "lr", 0.0),
                                  (80, 1, "maximize", True), (90, 0, "lr", LRS[name][0])):
        pair.step(at - pair.steps)
        for opt in (pair.opt, pair.topt):
            opt.param_groups[group][key] = value
    pair.step(10)
    assert pair.mismatch() is None


SCHEDULERS = [("StepLR", dict(step_size=7, gamma=0.5)), ("CosineAnnealingLR", dict(T_max=30, eta_min=1e-4))]


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
@pytest.mark.parametrize("scheduler,kwargs", SCHEDULERS, ids=[s for s, _ in SCHEDULERS])
def test_schedulers_match_torch(name, scheduler, kwargs):
    pair = Pair(name, dict(momentum=0.9) if name == "SGD" else {})
    mine = getattr(ts.optim.lr_scheduler, scheduler)(pair.opt, **kwargs)
    theirs = getattr(torch.optim.lr_scheduler, scheduler)(pair.topt, **kwargs)
    for _ in range(100):
        pair.step()
        mine.step()
        theirs.step()
        assert mine.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-15, abs=0)
    assert pair.mismatch() is None


def test_zero_grad_as_torch():
    pair = Pair("SGD", dict(momentum=0.9))
    pair.step(2)  # step 1 leaves parameter SKIPPED without a .grad
    for opt, params in ((pair.opt, pair.params), (pair.topt, pair.tparams)):
        assert params[SKIPPED].grad is None
        held = params[0].grad
        opt.zero_grad()  # set_to_none=False, torch 1.13's default
        assert params[SKIPPED].grad is None
        for i, p in enumerate(params):
            if i != SKIPPED:
                assert p.grad is not None and not np.any(to_np(p.grad)) and p.grad.shape == p.shape
        assert not np.any(to_np(held))  # zeroed in place
        before = [to_np(p) for p in params]
        opt.step()  # zero gradients: momentum alone moves the parameters
        assert any(not np.array_equal(b, to_np(p)) for b, p in zip(before, params))
        opt.zero_grad(set_to_none=True)
        assert all(p.grad is None for p in params)
        before = [to_np(p) for p in params]
        opt.step()  # no gradients: nothing moves
        assert all(np.array_equal(b, to_np(p)) for b, p in zip(before, params))
    assert pair.mismatch() is None


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_zero_grad_detaches_a_recorded_gradient_as_torch():
    for lib in (ts, torch):
        p = lib.tensor([0.5, -1.5], dtype=lib.float64, requires_grad=True)
        (p * p * p).sum().backward(create_graph=True)
        assert p.grad.requires_grad and p.grad.grad_fn is not None
        opt = lib.optim.Adam([p])
        opt.zero_grad()
        assert not p.grad.requires_grad and p.grad.grad_fn is None and to_np(p.grad).tolist() == [0.0, 0.0]


def state_dict_difference(mine, theirs, rtol=1e-12):
    """None when tessera's state_dict has torch's layout and values."""
    if set(mine) != {"state", "param_groups"} or set(theirs) != set(mine):
        return "keys %s, torch %s" % (sorted(mine), sorted(theirs))
    if mine["param_groups"] != theirs["param_groups"]:
        return "param_groups %r, torch %r" % (mine["param_groups"], theirs["param_groups"])
    if set(mine["state"]) != set(theirs["state"]):
        return "state of parameters %s, torch %s" % (sorted(mine["state"]), sorted(theirs["state"]))
    for index, entry in theirs["state"].items():
        got = mine["state"][index]
        if list(got) != list(entry):
            return "state %d: names %s, torch %s" % (index, list(got), list(entry))
        for key, want in entry.items():
            value = got[key]
            if want is None or value is None:
                if value is not want:
                    return "state %d %s: %r, torch %r" % (index, key, value, want)
                continue
            if (tuple(value.shape), dtype_name(value)) != (tuple(want.shape), dtype_name(want)):
                return "state %d %s: %s %s, torch %s %s" % (index, key, tuple(value.shape), value.dtype,
                                                           tuple(want.shape), want.dtype)
            if not np.allclose(to_np(value), to_np(want), rtol=rtol, atol=1e-14):
                return "state %d %s: %s, torch %s" % (index, key, to_np(value), to_np(want))
    return None


STATE_CASES = [("SGD", dict(momentum=0.9, dampening=0.5)), ("SGD", dict(weight_decay=0.1)),
               ("Adam", dict(amsgrad=True)), ("Adam", {}), ("AdamW", dict(amsgrad=True, betas=(0.8, 0.9)))]
STATE_IDS = ["%s-%s" % (name, "-".join("%s=%s" % kv for kv in kw.items())) for name, kw in STATE_CASES]


@pytest.mark.parametrize("name,kwargs", STATE_CASES, ids=STATE_IDS)
def test_state_dict_as_torch(name, kwargs):
    pair = Pair(name, kwargs)
    assert state_dict_difference(pair.opt.state_dict(), pair.topt.state_dict()) is None
    assert len(pair.opt.state) == len(pair.topt.state) == 0
    pair.step(100)
    assert state_dict_difference(pair.opt.state_dict(), pair.topt.state_dict()) is None
    if name != "SGD":
        steps = [float(pair.opt.state_dict()["state"][i]["step"]) for i in range(len(SHAPES))]
        assert steps == [100.0, 67.0, 100.0, 100.0]  # SKIPPED has no .grad on steps 1, 4, .., 97
    # .state is keyed by the parameters, its tensors the optimizer's own.
    assert [len(pair.opt.state[p]) for p in pair.params] == [len(pair.topt.state[p]) for p in pair.tparams]


@pytest.mark.parametrize("name,kwargs", STATE_CASES[:1] + STATE_CASES[2:3], ids=STATE_IDS[:1] + STATE_IDS[2:3])
def test_state_tensors_are_the_optimizers_own(name, kwargs):
    pair = Pair(name, kwargs)
    pair.step(30)
    key = "momentum_buffer" if name == "SGD" else "exp_avg"
    for opt, params in ((pair.opt, pair.params), (pair.topt, pair.tparams)):
        opt.state[params[0]][key].mul_(0.5)  # a write into the state tensor is a write into the state
        opt.state[params[2]][key].zero_()
    pair.step(30)
    assert pair.mismatch() is None


@pytest.mark.parametrize("name,kwargs", STATE_CASES[:1] + STATE_CASES[2:3], ids=STATE_IDS[:1] + STATE_IDS[2:3])
def test_parameters_whose_data_is_replaced_keep_their_state(name, kwargs):
    pair = Pair(name, kwargs)  # as nn.Module.to does: `p.data = ...` (a new handle under the same Parameter)
    pair.step(50)
    for p in pair.params + pair.tparams:
        p.data = p.detach().clone()
    pair.step(50)
    assert pair.mismatch() is None
    assert state_dict_difference(pair.opt.state_dict(), pair.topt.state_dict()) is None


def test_a_param_group_added_after_steps():
    pair = Pair("Adam", dict(amsgrad=True))
    pair.step(40)
    extra = np.linspace(-1, 1, 6).reshape(2, 3)
    for lib, opt in ((ts, pair.opt), (torch, pair.topt)):
        opt.add_param_group({"params": [lib.tensor(extra, dtype=lib.float64, requires_grad=True)], "lr": 0.02})
    for step in range(60):
        pair.step()
        for lib, opt in ((ts, pair.opt), (torch, pair.topt)):
            p = opt.param_groups[2]["params"][0]
            p.grad = lib.tensor(np.sin(step + extra), dtype=lib.float64)
    pair.step()
    assert pair.mismatch() is None
    np.testing.assert_allclose(to_np(pair.opt.param_groups[2]["params"][0]),
                               to_np(pair.topt.param_groups[2]["params"][0]), rtol=1e-12, atol=1e-14)
    assert state_dict_difference(pair.opt.state_dict(), pair.topt.state_dict()) is None


def test_state_before_a_parameter_has_a_gradient():
    pair = Pair("Adam", {})
    for params in (pair.params, pair.tparams):
        for p in params:
            p.grad = None
        params[0].grad = (ts if params is pair.params else torch).zeros(SHAPES[0], dtype=params[0].dtype)
    pair.opt.step()
    pair.topt.step()
    assert state_dict_difference(pair.opt.state_dict(), pair.topt.state_dict()) is None
    assert set(pair.opt.state_dict()["state"]) == {0}


@pytest.mark.parametrize("name,kwargs", STATE_CASES, ids=STATE_IDS)
def test_load_state_dict_round_trip(name, kwargs):
    pair = Pair(name, kwargs)  # torch's optimizer runs the 100 steps uninterrupted
    pair.step(50)
    saved = pair.opt.state_dict()
    params = [ts.tensor(to_np(p), dtype=ts.float64, requires_grad=True) for p in pair.params]
    fresh = pair.make(params, lr=0.5)  # load_state_dict brings the saved lr back
    fresh.load_state_dict(saved)
    assert state_dict_difference(fresh.state_dict(), pair.topt.state_dict()) is None
    pair.opt, pair.params = fresh, params
    pair.step(50)
    assert pair.mismatch() is None
    assert state_dict_difference(fresh.state_dict(), pair.topt.state_dict()) is None


def torch_to_tessera(obj):
    """A torch state_dict with its tensors made tessera tensors."""
    if isinstance(obj, torch.Tensor):
        return ts.tensor(obj.detach().numpy().copy())
    if isinstance(obj, dict):
        return {k: torch_to_tessera(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [torch_to_tessera(v) for v in obj]
    return obj


@pytest.mark.parametrize("name,kwargs", STATE_CASES, ids=STATE_IDS)
def test_load_a_torch_state_dict(name, kwargs):
    pair = Pair(name, kwargs, torch_only=True)
    pair.step(50, tessera=False)
    pair.params = [ts.tensor(to_np(p), dtype=ts.float64, requires_grad=True) for p in pair.tparams]
    pair.opt = pair.make(pair.params, lr=0.5)
    pair.opt.load_state_dict(torch_to_tessera(pair.topt.state_dict()))
    assert state_dict_difference(pair.opt.state_dict(), pair.topt.state_dict()) is None
    pair.step(50)
    assert pair.mismatch() is None


def test_load_state_dict_refuses_another_layout_as_torch():
    pair = Pair("Adam", {})
    one_group = {"state": {}, "param_groups": pair.topt.state_dict()["param_groups"][:1]}
    other_sizes = pair.topt.state_dict()
    other_sizes["param_groups"][0]["params"] = [0]
    for bad in (one_group, other_sizes):
        with pytest.raises(ValueError) as theirs:
            pair.topt.load_state_dict(bad)
        with pytest.raises(ValueError) as mine:
            pair.opt.load_state_dict(bad)
        assert str(mine.value) == str(theirs.value)


def leaf(lib):
    return lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)


ERRORS = [("SGD", dict(lr=-0.1)), ("SGD", dict(lr=0.1, momentum=-0.5)), ("SGD", dict(lr=0.1, weight_decay=-1e-3)),
          ("SGD", dict(lr=0.1, nesterov=True)), ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
          ("SGD", {}), ("Adam", dict(lr=-1.0)), ("Adam", dict(eps=-1e-8)), ("Adam", dict(betas=(1.0, 0.999))),
          ("Adam", dict(betas=(-0.1, 0.999))), ("Adam", dict(betas=(0.9, 1.0))), ("Adam", dict(weight_decay=-0.1)),
          ("AdamW", dict(lr=-2)), ("AdamW", dict(eps=-1.0)), ("AdamW", dict(betas=(0.9, 1.5))),
          ("AdamW", dict(weight_decay=-1e-2))]


@pytest.mark.parametrize("name,kwargs", ERRORS, ids=["%s-%s" % (n, kw) for n, kw in ERRORS])
def test_invalid_hyperparameters_raise_torchs_value_error(name, kwargs):
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, name)([leaf(torch)], **kwargs)
    with pytest.raises(ValueError) as mine:
        getattr(ts.optim, name)([leaf(ts)], **kwargs)
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("params", ["empty", "non-leaf", "two groups"])
def test_invalid_parameters_raise_torchs_value_error(params):
    def make(lib):
        p = leaf(lib)
        if params == "empty":
            return lib.optim.SGD([], lr=0.1)
        if params == "non-leaf":
            return lib.optim.Adam([p * 2])
        return lib.optim.AdamW([{"params": [p]}, {"params": [p]}])
    with pytest.raises(ValueError) as theirs:
        make(torch)
    with pytest.raises(ValueError) as mine:
        make(ts)
    assert str(mine.value) == str(theirs.value)


@pytest.mark.parametrize("name,kwargs", DEVICE_CASES[::2] + DEVICE_CASES[3:4],
                         ids=["SGD", "SGD-plain", "Adam-plain", "AdamW-plain", "Adam"])
def test_float32_parameters(name, kwargs):
    pair = Pair(name, kwargs, dtype="float32")
    pair.step(100)
    assert all(dtype_name(p) == "float32" for p in pair.params)
    assert all(dtype_name(s) == "float32" for entry in pair.opt.state_dict()["state"].values()
               for key, s in entry.items() if s is not None)
    assert pair.mismatch(rtol=2e-5, atol=2e-6) is None


def main(device):
    """The 100 steps of DEVICE_CASES on `device` (run in a subprocess):
    one line per failure."""
    torch.set_num_threads(1)
    for name, kwargs in DEVICE_CASES:
        try:
            pair = Pair(name, kwargs, device)
            pair.step(50)
            loaded = pair.make(pair.params)
            loaded.load_state_dict(pair.opt.state_dict())  # state that lives on the device
            pair.opt = loaded
            pair.step(50)
            failure = pair.mismatch()
            if failure is None and any(str(p.device) != device for p in pair.params):
                failure = "parameters moved off %s" % device
            if failure is None:
                failure = state_dict_difference(pair.opt.state_dict(), pair.topt.state_dict())
        except Exception as e:  # noqa: BLE001  (reported, not raised: the parent shows them all)
            failure = "%s: %s" % (type(e).__name__, e)
        if failure is not None:
            print("%s %s on %s: %s" % (name, kwargs, device, " ".join(failure.split())[:400]))


@needs_emulator
def test_hundred_steps_on_the_emulated_cuda_device():
    assert on_device("test_optim_vs_torch", os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"], "cuda:0") == []


@needs_arena
def test_hundred_steps_on_the_arena_device(tmp_path):
    assert on_device("test_optim_vs_torch", str(arena_config(tmp_path)), "arena:0") == []
