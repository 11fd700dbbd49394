# SPDX-License-Identifier: Apache-2.0
"""Complex autograd against PyTorch 1.13 (Note [Complex tensors and
autograd]): the first and second derivatives of every function whose
formula follows PyTorch's convention for complex tensors, including the
Fourier transforms (Note [The adjoint of a Fourier transform]). Each case
takes complex or real leaves, and its result goes into a real loss that
weighs the real and imaginary parts differently, so that a wrong conjugate
or a lost imaginary part shows up. Functions whose formulas are real-only
must fail at backward and name themselves.

The same cases run on the CPU here, and on the emulated CUDA device in a
subprocess with its own config (main(device))."""
import numpy as np
import pytest
import torch

import tessera as ts

from grad_cases import device_tests, report

torch.set_num_threads(2)

C, R = True, False  # a leaf is complex or real


def cast_like(m, b, a):
    """b cast to a's dtype: matmul does not mix real and complex operands, in
    either library; the cast's gradient keeps the real part."""
    return b.to(a.dtype)


def index(m, like, values):
    """An int64 index tensor on like's device."""
    return m.tensor(values).to(like.device)


# name: (function, leaf shapes, complex leaves, whether to check second derivatives)
FUNCTIONS = {
    "add_sub": (lambda m, a, b: a + b - 2 * a, [(2, 3), (3,)], [C, C], False),
    "mul": (lambda m, a, b: a * b, [(3,), (3,)], [C, C], True),
    "mul_broadcast_real": (lambda m, a, b: a * b, [(2, 3), (3,)], [C, R], True),
    "real_times_complex": (lambda m, a, b: a * b, [(3,), (3,)], [R, C], True),
    "div": (lambda m, a, b: a / b, [(3,), (3,)], [C, C], True),
    "real_over_complex": (lambda m, a, b: a / b, [(4,), (4,)], [R, C], True),
    "complex_scalars": (lambda m, a: (a * (2 - 1j) + 3) / (1 + 2j) - 1, [(4,)], [C], False),
    "scalar_over": (lambda m, a: (2 + 1j) / a, [(4,)], [C], True),
    "neg_exp": (lambda m, a: (-a).exp(), [(4,)], [C], True),
    "log": (lambda m, a: a.log(), [(4,)], [C], True),
    "sqrt": (lambda m, a: a.sqrt(), [(4,)], [C], True),
    "tanh": (lambda m, a: a.tanh(), [(4,)], [C], True),
    "sigmoid": (lambda m, a: a.sigmoid(), [(4,)], [C], True),
    "abs": (lambda m, a: a.abs(), [(5,)], [C], True),
    "conj_real_imag": (lambda m, a: a.conj() * 2 + a.real - 3 * a.imag, [(4,)], [C], False),
    "real_to_complex": (lambda m, a: a.to(m.complex128) * (1 + 2j), [(3,)], [R], False),
    "views_cat_sum": (lambda m, a: m.cat([a.t()[1:], a.t().reshape(-1, 2)[:1]], 0).sum(0, keepdim=True).expand(3, 2),
                      [(2, 3)], [C], False),
    "mean_where": (lambda m, a, b: m.where(a.real > 0, a, b).mean(), [(5,), (5,)], [C, C], False),
    "matmul": (lambda m, a, b: a @ b, [(2, 3), (3, 4)], [C, C], True),
    "matmul_batched_real_vector": (lambda m, a, b: a @ cast_like(m, b, a), [(2, 2, 3), (3,)], [C, R], True),
    "matmul_vector_complex_matrix": (lambda m, a, b: cast_like(m, a, b) @ b, [(3,), (3, 2)], [R, C], True),
    "fft": (lambda m, a: m.fft.fft(a), [(6,)], [C], False),
    "fft_of_real": (lambda m, a: m.fft.fft(a), [(6,)], [R], False),
    "fft_padded_ortho": (lambda m, a: m.fft.fft(a, n=9, norm="ortho"), [(6,)], [C], False),
    "ifft_trimmed_forward": (lambda m, a: m.fft.ifft(a, n=4, norm="forward"), [(2, 6)], [C], False),
    "fft2": (lambda m, a: m.fft.fft2(a, s=(3, 5)), [(2, 4, 4)], [C], False),
    "ifftn_dims": (lambda m, a: m.fft.ifftn(a, dim=(0, 2)), [(3, 2, 4)], [C], False),
    "rfft": (lambda m, a: m.fft.rfft(a), [(8,)], [R], False),
    "rfft_odd_trimmed": (lambda m, a: m.fft.rfft(a, n=7, norm="forward"), [(2, 9)], [R], False),
    "rfftn": (lambda m, a: m.fft.rfftn(a, s=(3, 6), norm="ortho"), [(2, 4, 5)], [R], False),
    "irfft": (lambda m, a: m.fft.irfft(a), [(5,)], [C], False),
    "irfft_odd_ortho": (lambda m, a: m.fft.irfft(a, n=7, norm="ortho"), [(3, 5)], [C], False),
    "irfftn": (lambda m, a: m.fft.irfftn(a, s=(4, 6), norm="forward"), [(3, 4)], [C], False),
    "irfft_of_real": (lambda m, a: m.fft.irfft(a, n=6), [(4,)], [R], False),
    "hfft": (lambda m, a: m.fft.hfft(a, n=8), [(5,)], [C], False),
    "ihfft": (lambda m, a: m.fft.ihfft(a), [(7,)], [R], False),
    "rfft_power_spectrum": (lambda m, a: m.fft.rfft(a).abs(), [(8,)], [R], True),
    "spectral_filter": (lambda m, a, h: m.fft.irfft(m.fft.rfft(a) * h, n=10), [(2, 10), (6,)], [R, C], True),
    "cumsum": (lambda m, a: a.cumsum(1), [(2, 4)], [C], False),
    "gather_flip_index": (lambda m, a: a.gather(0, index(m, a, [[1, 0, 1], [0, 0, 1]])).flip(1)
                          + a[index(m, a, [1, 1])] + a.index_select(1, index(m, a, [2, 0, 1])), [(2, 3)], [C], False),
    "scatter_add_take": (lambda m, a, b: m.zeros(3, 2, dtype=a.dtype).to(a.device).scatter_add(
                             0, index(m, a, [[2, 0], [2, 1]]), a) + b.take(index(m, a, [0, 5, 3])).view(3, 1),
                         [(2, 2), (2, 3)], [C, C], False),
    "pow_numbers": (lambda m, a: a ** 2 + a ** 0.5 + a ** (1 + 1j) + 2 ** a + (1 - 0.5j) ** a, [(4,)], [C], True),
    "pow_tensors": (lambda m, a, b: a ** b, [(4,), (4,)], [C, C], True),
    "real_to_complex_power": (lambda m, a: a ** (0.5 + 2j), [(4,)], [R], True),
    "prod": (lambda m, a: a.prod() + a.prod(1).sum(), [(2, 3)], [C], True),
    "prod_with_zeros": (lambda m, a: (a * m.tensor([[1.0, 0.0, 1.0], [0.0, 0.0, 1.0]]).to(a.device)).prod(1),
                        [(2, 3)], [C], False),
    "cumprod": (lambda m, a: a.cumprod(1), [(2, 4)], [C], True),
    "cumprod_with_zero": (lambda m, a: (a * m.tensor([1.0, 0.0, 1.0, 1.0]).to(a.device)).cumprod(0), [(4,)], [C], False),
    "vector_norms": (lambda m, a: m.stack([m.linalg.vector_norm(a, o, dim=1) for o in (2, 1, 3, 1.5, float("inf"), 0.5)]),
                     [(2, 3)], [C], True),
}
for name in ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "log2", "log10"):
    FUNCTIONS[name] = ((lambda f: lambda m, a: getattr(m, f)(a))(name), [(5,)], [C], True)

VARIANTS = ("complex128", "complex64")
CASES = [(name, variant) for name in FUNCTIONS for variant in VARIANTS]


def _leaves(m, arrays, variant, device):
    wide = variant == "complex128"
    leaves = []
    for a in arrays:
        if np.iscomplexobj(a):
            dtype = m.complex128 if wide else m.complex64
        else:
            dtype = m.float64 if wide else m.float32
        t = m.tensor(a, dtype=dtype) if m is torch else m.tensor(a, dtype=dtype, device=device)
        leaves.append(t.requires_grad_())
    return leaves


def _values(t):
    if isinstance(t, torch.Tensor):
        return t.detach().resolve_conj().numpy().astype(np.complex128)
    return np.array(t.detach().cpu().tolist(), dtype=np.complex128).reshape(tuple(t.shape))


def _loss(m, out, seed):
    """A real loss that weighs the real and imaginary parts differently."""
    rng = np.random.default_rng(seed)
    w1, w2 = rng.standard_normal(tuple(out.shape)), rng.standard_normal(tuple(out.shape))
    part = out.real.dtype if out.is_complex() else out.dtype

    def weight(w):
        return m.tensor(w, dtype=part) if m is torch else m.tensor(w, dtype=part, device=out.device)
    if out.is_complex():
        return (out.real * weight(w1)).sum() + (out.imag * weight(w2)).sum()
    return (out * weight(w1)).sum()


def _squared_norm(g):
    return (g * g.conj()).real.sum() if g.is_complex() else (g * g).sum()


def derivatives(m, f, arrays, variant, device, second, seed):
    leaves = _leaves(m, arrays, variant, device)
    out = f(m, *leaves)
    grads = m.autograd.grad(_loss(m, out, seed), leaves, create_graph=second, allow_unused=True)
    firsts = [None if g is None else _values(g) for g in grads]
    seconds = None
    used = [(leaf, g) for leaf, g in zip(leaves, grads) if g is not None and g.requires_grad]
    if second and used:  # none for a linear function: its gradient is a constant
        total = sum(_squared_norm(g) for _, g in used)
        seconds = [None if g is None else _values(g)
                   for g in m.autograd.grad(total, [leaf for leaf, _ in used], allow_unused=True)]
    return out, firsts, seconds


def _arrays(shapes, flags, seed):
    rng = np.random.default_rng(seed)
    arrays = []
    for shape, cplx in zip(shapes, flags):
        a = rng.uniform(0.3, 1.2, shape) * rng.choice([-1.0, 1.0], shape)
        if cplx:
            a = a + 1j * rng.uniform(0.3, 1.2, shape) * rng.choice([-1.0, 1.0], shape)
        arrays.append(a)
    return arrays


def check(name, variant, device="cpu", seed=0):
    """None when tessera's derivatives match torch's, else what differs."""
    f, shapes, flags, second = FUNCTIONS[name]
    arrays = _arrays(shapes, flags, seed)
    t_out, want1, want2 = derivatives(torch, f, arrays, variant, None, second, seed + 1)
    s_out, got1, got2 = derivatives(ts, f, arrays, variant, device, second, seed + 1)
    if tuple(s_out.shape) != tuple(t_out.shape) or s_out.is_complex() != t_out.is_complex():
        return "output %s %s, torch %s %s" % (tuple(s_out.shape), s_out.dtype, tuple(t_out.shape), t_out.dtype)
    rtol, atol = (1e-9, 1e-11) if variant == "complex128" else (2e-4, 2e-5)
    for order, got, want in (("first", got1, want1), ("second", got2, want2)):
        if want is None:
            continue
        for i, (g, w) in enumerate(zip(got, want)):
            if (g is None) != (w is None):
                return "%s derivative of input %d: %r, torch %r" % (order, i, g, w)
            if g is not None and (g.shape != w.shape or not np.allclose(g, w, rtol=rtol, atol=atol)):
                return "%s derivative of input %d:\n%s\ntorch:\n%s" % (order, i, g, w)
    return None


@pytest.mark.parametrize("name,variant", CASES, ids=["%s-%s" % c for c in CASES])
def test_complex_gradients_match_torch_on_the_cpu(name, variant):
    failure = check(name, variant)
    assert failure is None, failure


def main(device):
    report(check, CASES, device)


test_complex_gradients_match_torch_on_the_emulated_cuda_device, _ = device_tests("test_autograd_complex_vs_torch")
del _  # the arena device has no FFT kernel of its own; its fallback is the CPU's, tested here


def test_acosh_gradient_is_the_principal_branchs():
    """Off the real line 1 / sqrt(z^2 - 1) is acosh's derivative only up to
    sign; the gradient must be 1 / (sqrt(z - 1) sqrt(z + 1)), as a central
    difference of NumPy's arccosh says, everywhere in the plane."""
    rng = np.random.default_rng(7)
    z = rng.standard_normal(64) * 2 + 1j * rng.standard_normal(64) * 2
    t = ts.tensor(z, requires_grad=True)
    g, = ts.autograd.grad(ts.acosh(t).real.sum(), t)
    h = 1e-7
    want = ((np.arccosh(z + h) - np.arccosh(z - h)).real + 1j * (np.arccosh(z + 1j * h) - np.arccosh(z - 1j * h)).real) / (2 * h)
    assert np.allclose(np.array(g.tolist()), want, atol=1e-6)


def test_complex_leaves_and_the_implicit_gradient_of_a_complex_scalar():
    z = ts.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    zt = torch.tensor([1 + 2j, 3 - 1j], requires_grad=True)
    (z * z).sum().backward()
    (zt * zt).sum().backward()
    assert z.grad.tolist() == zt.grad.tolist() == [2 - 4j, 6 + 2j]  # 2 conj(z)
    assert repr(z) == "tensor([1.+2.j, 3.-1.j], requires_grad=True)"
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        ts.tensor([1, 2]).requires_grad_()


@pytest.mark.parametrize("fn", [ts.linalg.inv, ts.linalg.det, lambda a: ts.linalg.solve(a, a[:, :1])])
def test_real_only_formulas_refuse_complex_gradients_by_name(fn):
    values = [[2.0, 1.0], [0.5, 3.0]]
    z = ts.tensor(values, dtype=ts.complex128) * (1 + 0.5j)
    z.requires_grad_()
    y = fn(z)
    with pytest.raises(RuntimeError, match="the derivative of %s is not implemented for complex tensors"
                                           % y.grad_fn.name()):
        y.abs().sum().backward()
    # A complex gradient that reaches a real-only formula from a real input is refused too.
    x = ts.tensor(values, dtype=ts.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="not implemented for complex tensors"):
        fn(x * (1 + 1j)).abs().sum().backward()


def test_a_spectral_convolution_trains_as_in_torch():
    """Real parameters through complex intermediates: a circular convolution
    by FFT, y = irfft(rfft(x) * rfft(w, n)), fitted to a target with SGD;
    the losses and the kernel after each step match torch's."""
    rng = np.random.default_rng(5)
    n = 16
    x, target, w0 = rng.standard_normal((4, n)), rng.standard_normal((4, n)), rng.standard_normal(5) * 0.1

    def train(m):
        w = m.tensor(w0, dtype=m.float64, requires_grad=True)
        xs, ts_ = m.tensor(x, dtype=m.float64), m.tensor(target, dtype=m.float64)
        opt = m.optim.SGD([w], lr=0.05, momentum=0.9)
        history = []
        for _ in range(6):
            opt.zero_grad()
            y = m.fft.irfft(m.fft.rfft(xs) * m.fft.rfft(w, n=n), n=n)
            loss = ((y - ts_) ** 2).mean()
            loss.backward()
            opt.step()
            history.append(loss.item())
        return history, np.array(w.detach().tolist())

    (got_losses, got_w), (want_losses, want_w) = train(ts), train(torch)
    assert np.allclose(got_losses, want_losses, rtol=1e-12)
    assert np.allclose(got_w, want_w, rtol=1e-12, atol=1e-14)
    assert got_losses[-1] < got_losses[0]
