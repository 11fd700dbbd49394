# SPDX-License-Identifier: Apache-2.0
"""tessera.optim.lr_scheduler's StepLR and CosineAnnealingLR against torch
1.13's: 50 epochs of learning rates to 1e-15, several param groups, the
closed form of step(epoch), state_dict round trips and resumption from
last_epoch. The schedulers need only param_groups and step(): a stand-in
optimizer drives them here."""
import math
import warnings

import pytest
import torch

from tessera.optim.lr_scheduler import CosineAnnealingLR, LRScheduler, StepLR, _LRScheduler

LRS = (0.1, 0.03, 1.0)


class FakeOptimizer:
    """What a scheduler needs of an optimizer: param_groups and step()."""

    def __init__(self, lrs=LRS):
        self.param_groups = [{"lr": lr, "momentum": 0.9} for lr in lrs]
        self.steps = 0

    def step(self):
        self.steps += 1


def torch_optimizer(lrs=LRS):
    return torch.optim.SGD([{"params": [torch.zeros(1, requires_grad=True)], "lr": lr} for lr in lrs], lr=0.5)


CASES = [
    ("StepLR", dict(step_size=3)), ("StepLR", dict(step_size=1, gamma=0.7)), ("StepLR", dict(step_size=7, gamma=0.5)),
    ("CosineAnnealingLR", dict(T_max=10)), ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001)),
    ("CosineAnnealingLR", dict(T_max=50, eta_min=0.01)), ("CosineAnnealingLR", dict(T_max=3)),
]
IDS = ["%s-%s" % (name, "-".join("%s=%s" % kv for kv in kwargs.items())) for name, kwargs in CASES]
SCHEDULERS = {"StepLR": StepLR, "CosineAnnealingLR": CosineAnnealingLR}


def close(a, b):
    return len(a) == len(b) and all(abs(x - y) <= 1e-15 * max(1.0, abs(y)) for x, y in zip(a, b))


def run(scheduler, optimizer, epochs):
    lrs = []
    for _ in range(epochs):
        optimizer.step()
        scheduler.step()
        lrs.append(scheduler.get_last_lr())
    return lrs


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_fifty_epochs_match_torch(name, kwargs):
    opt, t_opt = FakeOptimizer(), torch_optimizer()
    s = SCHEDULERS[name](opt, **kwargs)
    t = getattr(torch.optim.lr_scheduler, name)(t_opt, **kwargs)
    assert close(s.get_last_lr(), t.get_last_lr())
    assert [g["initial_lr"] for g in opt.param_groups] == list(LRS) and s.base_lrs == list(LRS)
    for got, want in zip(run(s, opt, 50), run(t, t_opt, 50)):
        assert close(got, want), (got, want)
    assert close([g["lr"] for g in opt.param_groups], [g["lr"] for g in t_opt.param_groups])
    assert opt.steps == 50 and opt._step_count == 50 and s._step_count == 51 and s.last_epoch == 50
    assert all(g["momentum"] == 0.9 for g in opt.param_groups)


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_closed_form_for_step_with_an_epoch(name, kwargs):
    opt, t_opt = FakeOptimizer(), torch_optimizer()
    s = SCHEDULERS[name](opt, **kwargs)
    t = getattr(torch.optim.lr_scheduler, name)(t_opt, **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in (4, 9, 2, 30, 17):
            opt.step()
            t_opt.step()
            s.step(epoch)
            t.step(epoch)
            assert close(s.get_last_lr(), t.get_last_lr())
            assert close(s._get_closed_form_lr(), t._get_closed_form_lr())


@pytest.mark.parametrize("name,kwargs", CASES, ids=IDS)
def test_state_dict_round_trip_and_resumption(name, kwargs):
    opt, t_opt = FakeOptimizer(), torch_optimizer()
    cls, t_cls = SCHEDULERS[name], getattr(torch.optim.lr_scheduler, name)
    s, t = cls(opt, **kwargs), t_cls(t_opt, **kwargs)
    run(s, opt, 20)
    run(t, t_opt, 20)
    state, t_state = s.state_dict(), t.state_dict()
    assert sorted(state) == sorted(t_state) and "optimizer" not in state
    assert all(state[k] == t_state[k] for k in state if k not in ("base_lrs", "_last_lr"))
    # a new scheduler on the same optimizer, loaded from the state, continues exactly
    s2, t2 = cls(opt, **kwargs), t_cls(t_opt, **kwargs)
    s2.load_state_dict(state)
    t2.load_state_dict(t_state)
    for g, saved in zip(opt.param_groups, state["_last_lr"]):
        g["lr"] = saved
    for g, saved in zip(t_opt.param_groups, t_state["_last_lr"]):
        g["lr"] = saved
    for got, want in zip(run(s2, opt, 30), run(t2, t_opt, 30)):
        assert close(got, want)
    # resuming with last_epoch (the groups keep initial_lr): torch's first step there uses the closed form
    opt3, t_opt3 = FakeOptimizer(), torch_optimizer()
    for g in opt3.param_groups + t_opt3.param_groups:
        g["initial_lr"] = g["lr"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        s3, t3 = cls(opt3, last_epoch=12, **kwargs), t_cls(t_opt3, last_epoch=12, **kwargs)
    assert close(s3.get_last_lr(), t3.get_last_lr()) and s3.last_epoch == t3.last_epoch == 13
    for got, want in zip(run(s3, opt3, 37), run(t3, t_opt3, 37)):
        assert close(got, want)


def test_resuming_without_initial_lr_and_a_non_optimizer_raise_as_torch():
    with pytest.raises(KeyError) as e:
        StepLR(FakeOptimizer(), 3, last_epoch=5)
    with pytest.raises(KeyError) as e_t:
        torch.optim.lr_scheduler.StepLR(torch_optimizer(), 3, last_epoch=5)
    assert str(e.value) == str(e_t.value)
    with pytest.raises(TypeError, match="int is not an Optimizer"):
        StepLR(3, 3)


def test_warnings_and_names_as_torch():
    assert _LRScheduler is LRScheduler and issubclass(CosineAnnealingLR, _LRScheduler)
    opt = FakeOptimizer()
    s = CosineAnnealingLR(opt, T_max=5)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        s.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        s.get_lr()
    opt2 = FakeOptimizer()
    s2 = StepLR(opt2, 2)
    opt2.step = lambda: None  # replaced after the scheduler wrapped it
    with pytest.warns(UserWarning, match="overridden after learning rate scheduler initialization"):
        s2.step()
    with pytest.raises(NotImplementedError):
        LRScheduler(FakeOptimizer())


def test_verbose_prints_as_torch(capsys):
    opt = FakeOptimizer((0.5,))
    s = StepLR(opt, 1, gamma=0.5, verbose=True)
    opt.step()
    s.step()
    out = capsys.readouterr().out
    t_opt = torch_optimizer((0.5,))
    t = torch.optim.lr_scheduler.StepLR(t_opt, 1, gamma=0.5, verbose=True)
    t_opt.step()
    t.step()
    assert out == capsys.readouterr().out and math.isclose(opt.param_groups[0]["lr"], 0.25)
