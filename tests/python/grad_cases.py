# SPDX-License-Identifier: Apache-2.0
"""What the gradient-versus-torch tests share (test_autograd_vs_torch.py,
test_autograd_linalg_vs_torch.py): first and second derivatives of a
function in either library, and the run of every case on another device in
a subprocess with its own config (one printed line per failure)."""
import os
import subprocess
import sys

import numpy as np
import torch

import tessera as ts

from devices import arena_config, needs_arena, needs_emulator


def values(t):
    """A tensor of either library as a float64 NumPy array."""
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.array(t.detach().cpu().tolist(), dtype=np.float64).reshape(tuple(t.shape))


def derivatives(m, f, leaves, seen, weights, second):
    """f(m, *seen), its gradients with respect to the leaves under the
    output weights, and, when `second`, the gradients of the sum of their
    squares (a second derivative), as arrays (None where unused)."""
    out = f(m, *seen)
    w = torch.tensor(weights) if m is torch else ts.tensor(np.array(weights), dtype=ts.float64,
                                                           device=leaves[0].device)
    grads = m.autograd.grad(out, leaves, w, create_graph=second, allow_unused=True)
    firsts = [None if g is None else values(g) for g in grads]
    seconds = None
    if second:
        used = [(leaf, g) for leaf, g in zip(leaves, grads) if g is not None and g.requires_grad]
        if used:
            total = sum((g * g).sum() for _, g in used)
            seconds = [None if g is None else values(g)
                       for g in m.autograd.grad(total, [leaf for leaf, _ in used], allow_unused=True)]
    return out, firsts, seconds


def report(check, cases, device):
    """Every case on `device`; one line per failure (run in a subprocess)."""
    for name, variant in cases:
        try:
            failure = check(name, variant, device)
        except Exception as e:  # noqa: BLE001  (reported, not raised: the parent shows them all)
            failure = "%s: %s" % (type(e).__name__, e)
        if failure is not None:
            print("%s-%s on %s: %s" % (name, variant, device, failure.splitlines()[0]))


def on_device(module, config, device):
    """The failure lines of `module`.main(device) run under `config`."""
    env = dict(os.environ, TESSERA_CONFIG=config, TESSERA_LOG_LEVEL="error")
    here = os.path.dirname(os.path.abspath(__file__))
    script = "import sys; sys.path.insert(0, %r); import %s as t; t.main(%r)" % (here, module, device)
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def differences(got1, got2, want1, want2, rtol, atol, empty_ok=False):
    """None when tessera's first and second derivatives (got) match torch's
    (want), else the first difference. empty_ok: an empty gradient and none
    count as equal (torch gives some empty inputs no gradient)."""
    for order, got, want in (("first", got1, want1), ("second", got2, want2)):
        if want is None:
            continue
        if got is None and all(w is None or not np.any(w) for w in want):
            continue  # nothing depends on the inputs: torch's derivatives are all 0
        if got is None or len(got) != len(want):
            return "%s derivatives: %r, torch %r" % (order, got, want)
        for i, (g, w) in enumerate(zip(got, want)):
            if empty_ok and (g is None or g.size == 0) and (w is None or w.size == 0):
                continue
            if g is None and w is not None and not np.any(w):
                continue  # no gradient, or one of zeros: torch records some ops whose derivative is 0
            if (g is None) != (w is None):
                return "%s derivative of input %d: %r, torch %r" % (order, i, g, w)
            if g is not None and (g.shape != w.shape or not np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)):
                return "%s derivative of input %d:\n%s\ntorch:\n%s" % (order, i, g, w)
    return None


def device_tests(module):
    """The two tests that run every case of `module` (its main(device)) on
    the emulated cuda device and on the arena device."""
    @needs_emulator
    def test_gradients_match_torch_on_the_emulated_cuda_device():
        assert on_device(module, os.environ["TESSERA_TEST_CUDA_EMU_CONFIG"], "cuda:0") == []

    @needs_arena
    def test_gradients_match_torch_on_the_arena_device(tmp_path):
        assert on_device(module, str(arena_config(tmp_path, 67108864)), "arena:0") == []

    return test_gradients_match_torch_on_the_emulated_cuda_device, test_gradients_match_torch_on_the_arena_device
