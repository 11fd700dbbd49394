# SPDX-License-Identifier: Apache-2.0
"""tessera.autograd: torch.autograd's functions over the runtime's engine
(tessera/autograd.h): backward, grad, the grad modes, gradcheck and
gradgradcheck with torch 1.13's defaults."""
import functools

from . import _C
from ._grad import run_backward, run_grad
from ._tensor import Tensor

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "gradcheck",
           "gradgradcheck", "GradcheckError"]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """torch.autograd.backward: adds the gradients of `tensors` into the
    .grad of the leaves they reach (or of `inputs`)."""
    run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=False):
    """torch.autograd.grad: the gradients of `outputs` with respect to each
    of `inputs`, as a tuple; nothing accumulates into .grad."""
    return run_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)


def is_grad_enabled():
    return _C.is_grad_enabled()


class _GradMode:
    """A context manager, and a decorator, that sets the calling thread's
    grad mode and restores it on exit."""
    _enabled = True

    def __enter__(self):
        self._previous = _C.set_grad_enabled(self._enabled)
        return None

    def __exit__(self, *exc):
        _C.set_grad_enabled(self._previous)
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def in_mode(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)
        return in_mode


class no_grad(_GradMode):
    """torch.no_grad: nothing computed inside is recorded."""
    _enabled = False


class enable_grad(_GradMode):
    """torch.enable_grad: recording on again, inside a no_grad."""
    _enabled = True


class set_grad_enabled(_GradMode):
    """torch.set_grad_enabled(mode): sets the mode at once; as a context
    manager it also restores the previous one on exit."""

    def __init__(self, mode):
        self._enabled = bool(mode)
        self._previous = _C.set_grad_enabled(self._enabled)

    def __enter__(self):
        return None

    def __call__(self, func):
        _C.set_grad_enabled(self._previous)
        mode = self._enabled

        @functools.wraps(func)
        def in_mode(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)
        return in_mode


# ---- gradcheck ------------------------------------------------------------------


class GradcheckError(RuntimeError):
    """torch.autograd.gradcheck.GradcheckError."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable(inputs):
    return [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]


def _flat_values(t):
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def _outputs_at(func, inputs):
    # Recorded as the function records (gradgradcheck's function calls grad).
    return [o.detach().clone() for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]  # views alias the input


def _numerical(func, inputs, i, eps):
    """Column j of input i's numerical Jacobian: central differences of
    every output, each element of input i moved by +-eps."""
    x = inputs[i]
    base = x.detach().clone().requires_grad_(True)  # a leaf, written under no_grad
    flat = base.detach().reshape(-1)
    columns = []
    for k in range(flat.numel()):
        v = flat[k].item()
        rows = []
        for delta in (eps, -eps):
            with no_grad():
                flat[k] = v + delta
            moved = list(inputs)
            moved[i] = base
            rows.append(_outputs_at(func, moved))
        with no_grad():
            flat[k] = v
        columns.append([[(a - b) / (2 * eps) for a, b in zip(_flat_values(p), _flat_values(m))]
                        for p, m in zip(*rows)])
    return columns  # columns[k][output] -> list over that output's elements


def _analytical(outputs, inputs, diff, retain=True):
    """Rows of the analytical Jacobians: for each output element, the
    gradients of every differentiable input (one grad call per element)."""
    from ._creation import zeros_like
    rows = []  # rows[output][element][input position in diff] -> flat list
    for o in outputs:
        per_output = []
        for j in range(o.numel()):
            unit = zeros_like(o)
            unit.reshape(-1)[j] = 1
            gs = grad((o,), [inputs[i] for i in diff], (unit,), retain_graph=retain, allow_unused=True)
            per_output.append([[0.0] * inputs[i].numel() if g is None else _flat_values(g)
                               for i, g in zip(diff, gs)])
        rows.append(per_output)
    return rows


def _refuse(fn, **flags):
    for name, value in flags.items():
        if value:
            raise NotImplementedError("%s(): %s=True is not supported" % (fn, name))


def _undefined_grad_support(func, inputs, diff):
    """torch's check_undefined_grad: zero output gradients (all of them, then
    all but one output's, which the engine then gives no gradient) must give
    every input a zero gradient or none."""
    from ._creation import zeros_like
    outputs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor) and o.requires_grad]
    subsets = [list(range(len(outputs)))]
    if len(outputs) > 1:
        subsets += [[k for k in range(len(outputs)) if k != skip] for skip in range(len(outputs))]
    for subset in subsets:
        outs = [outputs[k] for k in subset]
        try:
            gs = grad(outs, [inputs[i] for i in diff], [zeros_like(o) for o in outs], retain_graph=True,
                      allow_unused=True)
        except RuntimeError as e:
            raise GradcheckError("Expected backward function to handle undefined output grads. Please look at "
                                 "\"Notes about undefined output gradients\" in "
                                 "\"tools/autograd/derivatives.yaml\"") from e
        for g in gs:
            if g is not None and any(v != 0 for v in _flat_values(g)):
                raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are "
                                     "undefined or zero. Please look at \"Notes about undefined output gradients\" "
                                     "in \"tools/autograd/derivatives.yaml\"")


def _check_grad_dtypes(func, inputs, diff):
    """Each input's gradient has the input's dtype and device (torch's messages)."""
    from ._creation import ones_like
    outputs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor) and o.requires_grad]
    gs = grad(outputs, [inputs[i] for i in diff], [ones_like(o) for o in outputs], allow_unused=True)
    for i, g in zip(diff, gs):
        if g is None:
            continue
        if g.dtype != inputs[i].dtype:
            raise GradcheckError("Gradient has dtype mismatch")
        if g.device != inputs[i].device:
            raise GradcheckError("Gradient has device mismatch")


def _fast_mismatch(func, inputs, diff, outputs, eps, atol, rtol):
    """torch's fast mode: for each (input, output) pair, v^T J u with random
    u (unit, over the input) and v (over the output), analytically (one
    backward) and by central differences along u; the first pair that
    differs, or None."""
    from ._creation import randn_like
    for n, i in enumerate(diff):
        u = randn_like(inputs[i].detach())
        norm = sum(x * x for x in _flat_values(u)) ** 0.5
        u = u / (norm if norm else 1.0)
        moved = []
        for sign in (1.0, -1.0):
            args = list(inputs)
            with no_grad():
                args[i] = (inputs[i].detach() + u * (sign * eps)).requires_grad_(True)
            moved.append(_outputs_at(func, args))
        for oi, o in enumerate(outputs):
            v = randn_like(o.detach())
            numerical = sum(vk * (p - q) / (2 * eps) for vk, p, q in
                            zip(_flat_values(v), _flat_values(moved[0][oi]), _flat_values(moved[1][oi])))
            analytical = 0.0
            if o.requires_grad:
                g = grad((o,), (inputs[i],), (v,), retain_graph=True, allow_unused=True)[0]
                if g is not None:
                    analytical = sum(a * b for a, b in zip(_flat_values(g), _flat_values(u)))
            if not abs(analytical - numerical) <= atol + rtol * abs(numerical):
                return ("Jacobian mismatch for output %d with respect to input %d,\nnumerical:%r\nanalytical:%r\n\n"
                        "The above quantities relating the numerical and analytical jacobians are computed in fast "
                        "mode. See: https://github.com/pytorch/pytorch/issues/53876 for more background about fast "
                        "mode. Below, we recompute numerical and analytical jacobians in slow mode:\n"
                        % (oi, i, numerical, analytical))
    return None


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, check_sparse_nnz=False,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False):
    """torch.autograd.gradcheck: the gradients of `func` at `inputs` (those
    that require grad, float64 for the check to mean anything) against
    central finite differences, with torch 1.13's defaults and checks:
    undefined (here: zero) output gradients give zero input gradients,
    gradients have their input's dtype and device (check_grad_dtypes),
    backward is reentrant within nondet_tol, and fast_mode compares random
    projections of the Jacobians instead of the whole of them. True, or
    GradcheckError (False without raise_exception) naming the output and
    input that differ. Batched (vmap) and forward-mode checks, and sparse
    inputs, do not exist here: their keywords are refused unless off."""
    _refuse("gradcheck", check_sparse_nnz=check_sparse_nnz, check_batched_grad=check_batched_grad,
            check_batched_forward_grad=check_batched_forward_grad, check_forward_ad=check_forward_ad)
    inputs = _as_tuple(inputs)
    diff = _differentiable(inputs)
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    try:
        _gradcheck(func, inputs, diff, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                   check_backward_ad, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def _gradcheck(func, inputs, diff, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
               check_backward_ad, fast_mode):
    outputs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]
    if not check_backward_ad:
        return
    if check_grad_dtypes:
        _check_grad_dtypes(func, inputs, diff)
    if fast_mode:
        message = _fast_mismatch(func, inputs, diff, outputs, eps, atol, rtol)
        if message is None:
            if check_undefined_grad:
                _undefined_grad_support(func, inputs, diff)
            return
        fast_message = message  # the slow check below says where
    else:
        fast_message = ""
    differentiable_outputs = [o for o in outputs if o.requires_grad]
    analytical = _analytical(differentiable_outputs, inputs, diff)
    if nondet_tol >= 0:
        again = _analytical(differentiable_outputs, inputs, diff)
        worst = max((abs(a - b) for ra, rb in zip(analytical, again) for ea, eb in zip(ra, rb)
                     for xa, xb in zip(ea, eb) for a, b in zip(xa, xb)), default=0.0)
        if worst > nondet_tol:
            raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and grad_output "
                                 "multiple times gives different values, although analytical gradient matches "
                                 "numerical gradient.The tolerance for nondeterminism was %s." % nondet_tol)
    numerical = {i: _numerical(func, inputs, i, eps) for i in diff}
    out_index = [k for k, o in enumerate(outputs) if o.requires_grad]
    for n, i in enumerate(diff):
        for oi, o in enumerate(outputs):
            num = [[numerical[i][k][oi][j] for k in range(inputs[i].numel())] for j in range(o.numel())]
            if o.requires_grad:
                r = out_index.index(oi)
                ana = [analytical[r][j][n] for j in range(o.numel())]
            else:
                ana = [[0.0] * inputs[i].numel() for _ in range(o.numel())]
            for j in range(o.numel()):
                for k in range(inputs[i].numel()):
                    a, b = ana[j][k], num[j][k]
                    if not abs(a - b) <= atol + rtol * abs(b):
                        raise GradcheckError(fast_message + "Jacobian mismatch for output %d with respect to input "
                                             "%d,\nnumerical:%r\nanalytical:%r\n" % (oi, i, num, ana))
    if fast_message:  # the projections differed where the whole Jacobians agree: report the fast mode's finding
        raise GradcheckError(fast_message)
    if check_undefined_grad:
        _undefined_grad_support(func, inputs, diff)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, gen_non_contig_grad_outputs=False,
                  raise_exception=True, nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
                  check_batched_grad=False, check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False):
    """torch.autograd.gradgradcheck: gradcheck of the function that maps
    (inputs, grad_outputs) to the gradients of func, recorded with
    create_graph; grad_outputs default to random float64 ones that require
    grad, as torch's do (gen_non_contig_grad_outputs: every other element
    of a twice-as-long buffer). Batched and forward-over-reverse checks do
    not exist here (refused), and check_rev_over_rev=False (torch's way to
    skip the check) returns True at once."""
    _refuse("gradgradcheck", check_batched_grad=check_batched_grad, check_fwd_over_rev=check_fwd_over_rev)
    if not check_rev_over_rev:
        return True
    from ._creation import randn
    inputs = _as_tuple(inputs)
    outputs = [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor) and o.requires_grad]
    if grad_outputs is None:
        def random_like(o):
            if not gen_non_contig_grad_outputs or o.dim() == 0:
                return randn(tuple(o.shape), dtype=o.dtype, device=o.device, requires_grad=True)
            wide = randn(tuple(o.shape[:-1]) + (2 * o.shape[-1],), dtype=o.dtype, device=o.device)
            return wide[..., ::2].detach().requires_grad_(True)
        grad_outputs = tuple(random_like(o) for o in outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)
    diff = _differentiable(inputs)

    def first_derivatives(*args):
        outs = [o for o in _as_tuple(func(*args[:n])) if isinstance(o, Tensor) and o.requires_grad]
        gs = grad(outs, [args[i] for i in diff], args[n:], create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, fast_mode=fast_mode)
