# SPDX-License-Identifier: Apache-2.0
"""Autograd's semantics against PyTorch 1.13's, message for message (issue
33, point 4): leaves and non-leaves, retain_grad, hooks, backward's and
grad's arguments, higher order, freed graphs, version counters and in-place
ops (on leaves, non-leaves and views), grad modes per thread, detach,
integer tensors, gradients' dtypes, and the subgradients at kinks.

Each scenario is one function of the module (torch or tessera); both run,
and what they return (values as lists, or the exception's type and
message) must be equal."""
import threading

import pytest
import torch

import tessera as ts

torch.set_num_threads(2)


def outcome(scenario, m):
    try:
        return ("ok", _plain(scenario(m)))
    except Exception as e:  # noqa: BLE001  (compared with torch's)
        return (type(e).__name__, str(e))


def _plain(v):
    if isinstance(v, (torch.Tensor, ts.Tensor)):
        return ("tensor", str(v.dtype).split(".")[-1], tuple(v.shape), v.detach().tolist())
    if isinstance(v, (tuple, list)):
        return tuple(_plain(x) for x in v)
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if hasattr(v, "name"):  # a grad_fn
        return ("node", v.name() if isinstance(v, ts._grad.Node) else type(v).__name__)
    return repr(v)


def leaf(m, values, dtype=None):
    return m.tensor(values, dtype=dtype or m.float64, requires_grad=True)


def close(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or abs(a - b) <= 1e-12 * max(1.0, abs(b)) or (a != a and b != b)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)) and len(a) == len(b):
        return all(close(x, y) for x, y in zip(a, b))
    return a == b


SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__] = fn
    return fn


# ---- leaves, non-leaves, .grad ---------------------------------------------------

@scenario
def grad_accumulates_on_leaves(m):
    x = leaf(m, [1.0, 2.0])
    (x * x).sum().backward()
    (x * 3).sum().backward()
    return x.grad, x.is_leaf, x.grad_fn


@scenario
def non_leaf_has_no_grad_unless_retained(m):
    x = leaf(m, [1.0, 2.0])
    y = x * 2
    z = x * 3
    z.retain_grad()
    (y * z).sum().backward()
    return y.grad, z.grad, y.is_leaf, y.requires_grad, z.retains_grad, y.retains_grad


@scenario
def grad_fn_names(m):
    x = leaf(m, [[1.0, 2.0], [3.0, 4.0]])
    return [t.grad_fn for t in (x + 1, x - 1, 1 - x, x * 2, x / 2, 2 / x, x ** 2, 2 ** x, x @ x, x.t(), x.T,
                                x[0], x[:, 1:], x.unsqueeze(0), x.view(4), x.reshape(4), x.expand(2, 2, 2),
                                x.transpose(0, 1), x.permute(1, 0), x.t().contiguous(), x.clone(),
                                x.to(m.float32), x.exp(), x.sum(), x.mean(), x.sum(0), x.relu(), x.sigmoid(),
                                x.flip(0), m.roll(x, 1, 0), m.roll(x, 1), m.stack([x, x]), m.cat([x, x]), m.tril(x),
                                m.triu(x), x.index_select(0, m.tensor([1, 0])), m.amax(x, (0, 1)), x.max(),
                                x.amin(1), x.prod(), x.prod(1), x.mean(1), x.sum((0, 1)), x % 1.5, x.diagonal(),
                                m.softmax(x, 0), m.log_softmax(x, 1), m.logsumexp(x, 1), m.linalg.vector_norm(x),
                                m.linalg.inv(x), m.linalg.det(x), m.linalg.pinv(x), x.sort(0).values, x.cumsum(1))]


@scenario
def linear_grad_fn_names(m):
    # aten::linear's paths: addmm for 2-D and contiguous 3-D inputs with a bias, matmul (+ add) elsewhere.
    w = leaf(m, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    b = leaf(m, [0.5, -0.5, 1.0])
    names = []
    for shape in ((2,), (4, 2), (5, 4, 2), (3, 5, 4, 2)):
        x = m.ones(*shape, dtype=m.float64)
        names += [m.nn.functional.linear(x, w, b).grad_fn, m.nn.functional.linear(x, w).grad_fn]
        if len(shape) > 1:
            names.append(m.nn.functional.linear(x.transpose(0, -1).contiguous().transpose(0, -1), w, b).grad_fn)
    return names


@scenario
def reprs_show_grad_fn_or_requires_grad(m):
    x = leaf(m, [1.0, 2.0])
    with m.no_grad():
        plain = x * 2
    texts = [repr(t) for t in (x, x * 2, (x * 2).sum(), x[0], x.view(2, 1), x.detach(), plain,
                               m.zeros(0, 3, dtype=m.float64, requires_grad=True), x.double() * 3,
                               m.linspace(0, 1, 30, requires_grad=True) * 1, m.nn.Parameter(m.ones(2)))]
    return [t.replace("torch.", "").replace("tessera.", "") for t in texts]


@scenario
def retained_grad_under_create_graph(m):
    # y.grad is made under create_graph; its graph must not hold y (nothing would free the two).
    x = leaf(m, [1.0, 2.0])
    y = x * 2
    y.retain_grad()
    g, = m.autograd.grad((y * y).sum(), x, create_graph=True)
    (second,) = m.autograd.grad(g.sum(), x)
    return g, y.grad, y.grad.requires_grad, second


@scenario
def set_grad_checks(m):
    x = leaf(m, [1.0, 2.0])
    errors = []
    for bad in (m.zeros(3, dtype=m.float64), m.zeros(2, dtype=m.float32), 3):
        try:
            x.grad = bad
        except Exception as e:  # noqa: BLE001
            errors.append((type(e).__name__, str(e)))
    x.grad = m.ones(2, dtype=m.float64)
    g = x.grad
    del x.grad
    return errors, g, x.grad


@scenario
def requires_grad_on_a_non_leaf(m):
    y = leaf(m, [1.0]) * 2
    y.requires_grad_(False)


@scenario
def integer_cannot_require_grad(m):
    m.tensor([1, 2]).requires_grad_()


@scenario
def gradient_has_the_input_dtype(m):
    x = leaf(m, [1.0, 2.0], m.float32)
    w = leaf(m, [3.0, 4.0])
    (x * w).sum().backward()
    return x.grad, w.grad


# ---- backward and grad -------------------------------------------------------------

@scenario
def backward_with_gradient(m):
    x = leaf(m, [1.0, 2.0, 3.0])
    (x * x).backward(m.tensor([1.0, 0.5, -1.0], dtype=m.float64))
    return x.grad


@scenario
def backward_implicit_only_for_scalars(m):
    (leaf(m, [1.0, 2.0]) * 2).backward()


@scenario
def backward_gradient_shape_mismatch(m):
    (leaf(m, [1.0, 2.0]) * 2).backward(m.ones(3, dtype=m.float64))


@scenario
def backward_of_a_tensor_without_grad(m):
    m.tensor([1.0]).sum().backward()


@scenario
def backward_inputs_accumulate_only_there(m):
    x, w = leaf(m, [1.0, 2.0]), leaf(m, [3.0, 4.0])
    h = x * w
    (h * h).sum().backward(inputs=[w, h])
    return x.grad, w.grad, h.grad


@scenario
def second_backward_fails(m):
    x = leaf(m, [1.0, 2.0])
    y = (x.exp() * x).sum()
    y.backward()
    y.backward()


@scenario
def retain_graph_allows_a_second_backward(m):
    x = leaf(m, [1.0, 2.0])
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    return x.grad


@scenario
def backward_through_a_graph_without_saved_tensors_twice(m):
    x = leaf(m, [1.0, 2.0])
    y = (x + 1).sum()
    y.backward()
    y.backward()
    return x.grad


@scenario
def autograd_grad(m):
    x, w = leaf(m, [1.0, 2.0]), leaf(m, [3.0, 4.0])
    y = (x * w * w).sum()
    gx, gw = m.autograd.grad(y, [x, w])
    return gx, gw, x.grad, gx.requires_grad


@scenario
def autograd_grad_unused(m):
    x, w = leaf(m, [1.0, 2.0]), leaf(m, [3.0, 4.0])
    m.autograd.grad((x * 2).sum(), [x, w])


@scenario
def autograd_grad_allow_unused(m):
    x, w = leaf(m, [1.0, 2.0]), leaf(m, [3.0, 4.0])
    return m.autograd.grad((x * 2).sum(), [x, w], allow_unused=True)


@scenario
def autograd_grad_of_an_input_without_grad(m):
    x = leaf(m, [1.0, 2.0])
    m.autograd.grad((x * 2).sum(), [m.tensor([1.0])])


@scenario
def autograd_grad_of_a_non_leaf(m):
    x = leaf(m, [1.0, 2.0])
    h = x * x
    (g,) = m.autograd.grad((h * 3).sum(), h)
    return g


@scenario
def hessian_vector_product(m):
    x = leaf(m, [0.5, -1.0, 2.0])
    v = m.tensor([1.0, 2.0, 3.0], dtype=m.float64)
    y = (x.exp() * x * x).sum()
    (g,) = m.autograd.grad(y, x, create_graph=True)
    (hv,) = m.autograd.grad((g * v).sum(), x)
    return g, hv, g.requires_grad


@scenario
def create_graph_backward_keeps_a_graph_on_grad(m):
    x = leaf(m, [0.5, 2.0])
    (x ** 3).sum().backward(create_graph=True)
    g = x.grad
    x.grad = None
    g.sum().backward()
    return g, x.grad


@scenario
def third_derivative(m):
    x = leaf(m, [0.5, 2.0])
    (g,) = m.autograd.grad((x ** 4).sum(), x, create_graph=True)
    (h,) = m.autograd.grad(g.sum(), x, create_graph=True)
    (t,) = m.autograd.grad(h.sum(), x)
    return t


# ---- hooks ----------------------------------------------------------------------------

@scenario
def hooks_replace_gradients(m):
    x = leaf(m, [1.0, 2.0])
    y = x * 2
    seen = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    y.register_hook(lambda g: g * 10)
    x.register_hook(lambda g: g + 1)
    (y * y).sum().backward()
    return seen, x.grad


@scenario
def hook_removed(m):
    x = leaf(m, [1.0, 2.0])
    h = x.register_hook(lambda g: g * 0)
    h.remove()
    (x * 2).sum().backward()
    return x.grad


@scenario
def hook_raises(m):
    x = leaf(m, [1.0, 2.0])

    def boom(g):
        raise ValueError("boom")
    x.register_hook(boom)
    (x * 2).sum().backward()


@scenario
def hook_on_a_tensor_without_grad(m):
    m.tensor([1.0]).register_hook(lambda g: g)


# ---- versions and in-place ops -----------------------------------------------------

@scenario
def saved_output_modified_in_place(m):
    x = leaf(m, [1.0, 2.0, 3.0])
    y = x.exp()
    y.add_(1)
    y.sum().backward()


@scenario
def saved_input_modified_in_place(m):
    x = leaf(m, [1.0, 2.0])
    h = x * 1
    z = h * h
    h.mul_(2)
    z.sum().backward()


@scenario
def version_counter(m):
    x = m.tensor([1.0, 2.0])
    v = x[1:]
    a = x._version
    x.add_(1)
    v.mul_(2)
    x[0] = 5.0
    return a, x._version, v._version, x


@scenario
def in_place_on_a_leaf(m):
    leaf(m, [1.0, 2.0]).add_(1)


@scenario
def in_place_on_a_view_of_a_leaf(m):
    leaf(m, [1.0, 2.0])[0:1].mul_(2)


@scenario
def in_place_on_a_leaf_under_no_grad(m):
    x = leaf(m, [1.0, 2.0])
    with m.no_grad():
        x.mul_(2)
    return x, x.requires_grad


@scenario
def in_place_on_a_non_leaf(m):
    a, b = leaf(m, [1.0, 2.0]), leaf(m, [3.0, -4.0])
    y = a * 1
    y.mul_(b)
    y.exp_()
    y.sum().backward()
    return a.grad, b.grad, y.grad_fn


@scenario
def in_place_through_a_view_rewrites_the_base(m):
    a, b = leaf(m, [1.0, 2.0, 3.0]), leaf(m, [5.0, 7.0])
    y = a * 2
    v = y[1:]
    v.mul_(b)
    w = y[:2]  # made after the write
    (y * y).sum().backward(retain_graph=True)
    g1 = (a.grad, b.grad)
    a.grad = None
    b.grad = None
    w.sum().backward()
    return g1, a.grad, b.grad, y.grad_fn, v.grad_fn


@scenario
def view_made_before_the_write_sees_it(m):
    a = leaf(m, [1.0, 2.0, 3.0])
    y = a * 2
    early = y[:2]
    y[1:].mul_(10)
    early.sum().backward()
    return a.grad


@scenario
def copy_into_a_slice(m):
    a = leaf(m, [1.0, 2.0])
    buf = m.zeros(4, dtype=m.float64)
    buf[1:3].copy_(a * a)
    (buf * m.tensor([1.0, 2.0, 3.0, 4.0], dtype=m.float64)).sum().backward()
    return a.grad, buf.requires_grad


@scenario
def set_item_on_a_recorded_tensor(m):
    a = leaf(m, [1.0, 2.0, 3.0])
    y = a * 3
    y[1] = 0.0
    (y * y).sum().backward()
    return a.grad


@scenario
def out_with_inputs_that_require_grad(m):
    x = leaf(m, [1.0, 2.0])
    m.add(x, x, out=m.zeros(2, dtype=m.float64))


# ---- grad mode, detach ---------------------------------------------------------------

@scenario
def grad_modes(m):
    x = leaf(m, [1.0])
    with m.no_grad():
        a = x * 2
        with m.enable_grad():
            b = x * 2
        c = x * 2
    with m.set_grad_enabled(False):
        d = x * 2
    e = x * 2

    @m.no_grad()
    def f():
        return x * 2
    return [t.requires_grad for t in (a, b, c, d, e, f())], m.is_grad_enabled()


@scenario
def detach_shares_storage_and_drops_history(m):
    x = leaf(m, [1.0, 2.0])
    y = x * 2
    d = y.detach()
    d.add_(1)
    return d.requires_grad, d.is_leaf, y, d._version == y._version


@scenario
def detach_in_place(m):
    x = leaf(m, [1.0, 2.0])
    y = x * 2
    y.detach_()
    return y.requires_grad, y.is_leaf, y.grad_fn


@scenario
def detach_in_place_of_a_view(m):
    x = leaf(m, [1.0, 2.0])
    (x * 2)[1:].detach_()


@scenario
def retain_grad_without_grad(m):
    m.tensor([1.0]).retain_grad()


# ---- subgradients ------------------------------------------------------------------------

@scenario
def kinks(m):
    x = leaf(m, [0.0, 0.0, 0.0, 1.0])
    m.relu(x).sum().backward(retain_graph=True)
    r = x.grad
    x.grad = None
    x.abs().sum().backward()
    a = x.grad
    x.grad = None
    x.sqrt().sum().backward()
    return r, a, x.grad


@scenario
def maximum_and_minimum_split_ties(m):
    x, y = leaf(m, [1.0, 2.0, 3.0]), leaf(m, [1.0, 5.0, 3.0])
    (m.maximum(x, y) * m.tensor([1.0, 2.0, 4.0], dtype=m.float64)).sum().backward(retain_graph=True)
    g = (x.grad, y.grad)
    x.grad = y.grad = None
    m.minimum(x, y).sum().backward()
    return g, x.grad, y.grad


@scenario
def max_ties_all_share_dim_goes_to_the_index(m):
    x = leaf(m, [[1.0, 3.0, 3.0], [2.0, 2.0, 1.0]])
    x.max().backward(retain_graph=True)
    shared = x.grad
    x.grad = None
    v, i = x.max(1)
    v.sum().backward()
    to_index = x.grad
    x.grad = None
    x.min(0).values.sum().backward()
    return shared, to_index, i, x.grad


@scenario
def prod_with_one_and_two_zeros(m):
    x = leaf(m, [[2.0, 0.0, 3.0], [0.0, 0.0, 5.0]])
    x.prod(1).sum().backward()
    return x.grad


@scenario
def clamp_passes_the_gradient_at_its_bounds(m):
    x = leaf(m, [-2.0, -1.0, 0.0, 1.0, 2.0, float("nan")])
    y = m.clamp(x, -1.0, 1.0)
    y.sum().backward()
    return y, x.grad


@scenario
def where_routes_gradients(m):
    x, y = leaf(m, [1.0, -2.0, 3.0]), leaf(m, [0.5, 0.5, 0.5])
    m.where(x > 0, x * x, y).sum().backward()
    return x.grad, y.grad


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_as_torch(name):
    fn = SCENARIOS[name]
    want = outcome(fn, torch)
    got = outcome(fn, ts)
    assert close(got, want), "tessera: %r\ntorch:   %r" % (got, want)


def test_grad_mode_is_per_thread():
    seen = {}
    barrier = threading.Barrier(2)

    def other():
        barrier.wait()
        seen["other"] = ts.is_grad_enabled()
        barrier.wait()

    t = threading.Thread(target=other)
    t.start()
    with ts.no_grad():
        barrier.wait()
        barrier.wait()
        seen["main"] = ts.is_grad_enabled()
    t.join()
    assert seen == {"other": True, "main": False}


def test_threads_train_their_own_graphs():
    results = {}

    def train(k):
        w = ts.tensor([1.0, -1.0], dtype=ts.float64, requires_grad=True)
        for _ in range(50):
            loss = ((w * (k + 1) - 1.0) ** 2).sum()
            loss.backward()
            with ts.no_grad():
                w.sub_(w.grad * 0.01)
            w.grad = None
        results[k] = w.tolist()

    threads = [threading.Thread(target=train, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        w = torch.tensor([1.0, -1.0], dtype=torch.float64, requires_grad=True)
        for _ in range(50):
            ((w * (k + 1) - 1.0) ** 2).sum().backward()
            with torch.no_grad():
                w.sub_(w.grad * 0.01)
            w.grad = None
        assert close(results[k], w.tolist())


@pytest.mark.parametrize("name,fn", [
    ("_unique2", lambda x: ts.unique(x) * 2),
    ("LinalgInvExBackward0 is not implemented for complex tensors",
     lambda x: ts.linalg.inv(x.to(ts.complex128)).abs() + x),
    ("LinalgDetBackward0 is not implemented for complex tensors",
     lambda x: ts.linalg.det(x.to(ts.complex128) * 2).real + x),
])
def test_functions_without_a_formula_fail_loudly(name, fn):
    # torch has none for unique; formulas written for real tensors refuse
    # complex gradients (Note [Complex tensors and autograd]): backward fails
    # naming the function, never a gradient missing its share.
    x = ts.tensor([[2.0, 1.0], [1.0, 3.0]], dtype=ts.float64, requires_grad=True)
    y = fn(x)
    assert y.requires_grad
    with pytest.raises(RuntimeError, match=name):
        y.sum().backward()


def test_complex_tensors_require_grad_and_integers_do_not():
    # Note [Complex tensors and autograd]; test_autograd_complex_vs_torch.py has their gradients.
    assert ts.tensor([1j, 2.0], requires_grad=True).requires_grad
    assert ts.tensor([1j, 2.0]).requires_grad_().requires_grad
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        ts.tensor([1, 2]).requires_grad_()


def test_a_gradient_that_views_a_callers_tensor_is_copied_into_grad():
    """.grad keeps a gradient as it is only when nothing else can reach its
    memory: the gradient of a view's input is a view of the caller's
    `gradient`, which the caller still holds, so .grad is a copy, and an
    in-place step on .grad leaves the caller's tensor alone. (torch 1.13
    aliases it here; Tessera copies, as its accumulation rule says.)"""
    x = ts.ones(2, 3, requires_grad=True)
    g = ts.ones(6)
    x.view(6).backward(g)
    assert x.grad.data_ptr() != g.data_ptr()
    x.grad.add_(1)
    assert g.tolist() == [1.0] * 6 and x.grad.tolist() == [[2.0] * 3] * 2
