# SPDX-License-Identifier: Apache-2.0
"""tessera.nn.init against torch.nn.init: gains, fans and error text equal
to torch's; the draws (Tessera's generator, not torch's) checked by their
bounds and statistics, written in place (a Parameter stays the same
object), and repeated by tessera.manual_seed on the cpu, the emulated cuda
device and the arena device (main(device), in subprocesses)."""
import math

import numpy as np
import pytest
import torch

import tessera as ts
import tessera.nn as nn
from tessera.nn import init

from grad_cases import device_tests


def to_np(t):
    return np.array(t.detach().cpu().tolist(), dtype=np.float64).reshape(tuple(t.shape))


@pytest.mark.parametrize("args", [("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",), ("leaky_relu",),
                                  ("leaky_relu", 0.2), ("leaky_relu", 3), ("selu",), ("leaky_relu", math.sqrt(5))])
def test_calculate_gain_matches_torch(args):
    assert init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


def test_errors_match_torch():
    for fn, args in ((init.calculate_gain, ("softmax",)), (init.calculate_gain, ("leaky_relu", True)),
                     (init._calculate_fan_in_and_fan_out, (3,)), (init.eye_, (1,)),
                     (init.kaiming_uniform_, (None, 0, "fan_middle"))):
        t_fn = getattr(torch.nn.init, fn.__name__)
        t_args = tuple(torch.zeros(a) if isinstance(a, int) and fn is not init.calculate_gain and i == 0
                       else (torch.zeros(2, 3) if a is None else a) for i, a in enumerate(args))
        s_args = tuple(ts.zeros(a) if isinstance(a, int) and fn is not init.calculate_gain and i == 0
                       else (ts.zeros(2, 3) if a is None else a) for i, a in enumerate(args))
        with pytest.raises(ValueError) as e_t:
            t_fn(*t_args)
        with pytest.raises(ValueError) as e_s:
            fn(*s_args)
        assert str(e_s.value) == str(e_t.value)


@pytest.mark.parametrize("shape", [(3, 4), (5, 2, 3), (4, 3, 2, 2), (1, 7)])
def test_fans_match_torch(shape):
    assert init._calculate_fan_in_and_fan_out(ts.zeros(*shape)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.zeros(*shape))


def _stats_failure(name, values, lo, hi, mean, std):
    """None when the draws lie in [lo, hi] and have about the mean and std."""
    v = values.ravel()
    n = v.size
    if v.min() < lo or v.max() > hi:
        return "%s: values outside [%g, %g]: %g .. %g" % (name, lo, hi, v.min(), v.max())
    if abs(v.mean() - mean) > 5 * std / math.sqrt(n) + 1e-12 or abs(v.std() - std) > 0.05 * std:
        return "%s: mean %g std %g, expected %g and %g" % (name, v.mean(), v.std(), mean, std)
    return None


def _draws(device):
    """(name, function of a tensor, bounds, mean, std) of every random initialiser."""
    shape = (60, 50)
    fan_in, fan_out = 50, 60
    xav = math.sqrt(2.0 / (fan_in + fan_out))
    kai_u = math.sqrt(2.0 / (1 + 0.2 ** 2)) / math.sqrt(fan_in)
    kai_n = math.sqrt(2.0) / math.sqrt(fan_out)
    return shape, [
        ("uniform_", lambda t: init.uniform_(t, -2.0, 3.0), (-2.0, 3.0), 0.5, 5 / math.sqrt(12)),
        ("normal_", lambda t: init.normal_(t, 1.5, 0.25), (-math.inf, math.inf), 1.5, 0.25),
        ("xavier_uniform_", lambda t: init.xavier_uniform_(t, gain=2.0), (-2 * xav * math.sqrt(3), 2 * xav * math.sqrt(3)),
         0.0, 2 * xav),
        ("xavier_normal_", init.xavier_normal_, (-math.inf, math.inf), 0.0, xav),
        ("kaiming_uniform_", lambda t: init.kaiming_uniform_(t, a=0.2), (-kai_u * math.sqrt(3), kai_u * math.sqrt(3)),
         0.0, kai_u),
        ("kaiming_normal_", lambda t: init.kaiming_normal_(t, mode="fan_out", nonlinearity="relu"),
         (-math.inf, math.inf), 0.0, kai_n),
    ]


def _init_failures(device):
    """The statistics, in-place writes and seeded repeats of every
    initialiser on `device`, in float32 and float64."""
    failures = []
    shape, draws = _draws(device)
    for dtype in (ts.float32, ts.float64):
        for name, fn, (lo, hi), mean, std in draws:
            p = nn.Parameter(ts.zeros(*shape, dtype=dtype, device=device))
            ptr = p.data_ptr()
            ts.manual_seed(7)
            if fn(p) is not p or p.data_ptr() != ptr or not p.requires_grad or not p.is_leaf or p.dtype != dtype:
                failures.append("%s on %s: not in place" % (name, device))
                continue
            first = to_np(p)
            failure = _stats_failure("%s %s on %s" % (name, dtype, device), first, lo, hi, mean, std)
            if failure:
                failures.append(failure)
            ts.manual_seed(7)
            fn(p)
            if not np.array_equal(to_np(p), first):
                failures.append("%s on %s: manual_seed did not repeat the draw" % (name, device))
            fn(p)
            if np.array_equal(to_np(p), first):
                failures.append("%s on %s: a second draw repeated the first" % (name, device))
    p = nn.Parameter(ts.zeros(4000, dtype=ts.float64, device=device))
    ts.manual_seed(1)
    init.trunc_normal_(p, mean=0.5, std=1.0, a=-1.0, b=1.5)
    v = to_np(p)
    if v.min() < -1.0 or v.max() > 1.5 or abs(v.mean() - 0.3548) > 0.05:  # the mean of N(0.5, 1) truncated to [-1, 1.5]
        failures.append("trunc_normal_ on %s: %g .. %g, mean %g" % (device, v.min(), v.max(), v.mean()))
    for fn, want in ((lambda t: init.constant_(t, 2.5), np.full((2, 3), 2.5)), (init.ones_, np.ones((2, 3))),
                     (init.zeros_, np.zeros((2, 3))), (init.eye_, np.eye(2, 3))):
        p = nn.Parameter(ts.full((2, 3), 9.0, device=device))
        if fn(p) is not p or not np.array_equal(to_np(p), want) or not p.requires_grad:
            failures.append("%r on %s: %s" % (fn, device, to_np(p)))
    return failures


def test_initialisers_on_the_cpu():
    assert _init_failures("cpu") == []


def test_default_layer_initialisations_repeat_on_every_device_of_a_seed():
    if not hasattr(nn, "Linear"):
        pytest.skip("tessera.nn.functional is not there yet")
    ts.manual_seed(11)
    a = nn.Linear(8, 5)
    ts.manual_seed(11)
    b = nn.Linear(8, 5)
    assert np.array_equal(to_np(a.weight), to_np(b.weight)) and np.array_equal(to_np(a.bias), to_np(b.bias))


def test_zero_element_tensors_warn_as_torch():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(ts.zeros(0, 3))
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_normal_(ts.zeros(3, 0))


def main(device):
    """The initialisers' checks on `device` (run in a subprocess): one line per failure."""
    try:
        failures = _init_failures(device)
        if hasattr(nn, "Linear"):
            ts.manual_seed(11)
            here = to_np(nn.Linear(8, 5, device=device).weight)
            ts.manual_seed(11)
            if not np.array_equal(here, to_np(nn.Linear(8, 5, device=device).weight)):
                failures.append("Linear's default initialisation on %s did not repeat" % device)
    except Exception as e:  # noqa: BLE001  (reported, not raised)
        failures = ["%s: %s" % (type(e).__name__, e)]
    for f in failures:
        print(f.splitlines()[0])


test_initialisers_on_the_emulated_cuda_device, test_initialisers_on_the_arena_device = device_tests("test_nn_init")
