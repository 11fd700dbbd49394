# SPDX-License-Identifier: Apache-2.0
"""Random chains of view (and copy) calls, run on Tessera and on PyTorch 1.13
side by side: after every call the shape, strides, storage offset,
contiguity, values and whether the storage is shared must agree, and a call
must raise (the same exception type) exactly when PyTorch's does."""
import random
import warnings

import pytest

import tessera

torch = pytest.importorskip("torch", reason="PyTorch is not importable; the differential tests need it")

CHAINS = 400
STEPS = 6


def _rand_shape(rng):
    return [rng.randint(1, 4) for _ in range(rng.randint(1, 4))]


def _factorizations(n, rng):
    """A random shape with n elements (sizes >= 1), maybe with one -1."""
    dims = []
    rest = n
    while rest > 1 and len(dims) < 4:
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        d = rng.choice(divisors)
        dims.append(d)
        rest //= d
    if rest > 1:
        dims.append(rest)
    if not dims:
        dims = [1]
    if rng.random() < 0.3:
        rng.shuffle(dims)
    if rng.random() < 0.3:
        dims[rng.randrange(len(dims))] = -1
    if rng.random() < 0.15:
        dims.insert(rng.randrange(len(dims) + 1), 1)
    return dims


def _random_step(rng, shape):
    """One call as (text, fn) where fn takes either library's tensor."""
    nd = len(shape)
    dim = lambda: rng.randint(-nd - 1, nd)  # noqa: E731  (sometimes out of range)
    kind = rng.choice(["transpose", "T", "permute", "slice", "select", "index", "unsqueeze", "squeeze",
                       "squeeze_all", "expand", "flatten", "view", "reshape", "contiguous", "clone", "view_bad"])
    if kind == "transpose":
        a, b = dim(), dim()
        return "transpose(%d, %d)" % (a, b), lambda t: t.transpose(a, b)
    if kind == "T":
        return ".T", lambda t: t.T
    if kind == "permute":
        p = list(range(nd))
        rng.shuffle(p)
        if rng.random() < 0.1 and nd > 1:
            p[0] = p[1]  # a duplicate: must raise
        p = [d - nd if rng.random() < 0.3 else d for d in p]
        return "permute%s" % (tuple(p),), lambda t: t.permute(*p)
    if kind == "slice":
        if nd == 0:
            return "[1:]", lambda t: t[1:]
        d = rng.randrange(nd)
        size = shape[d]
        start = rng.choice([None, rng.randint(-size - 2, size + 2)])
        stop = rng.choice([None, rng.randint(-size - 2, size + 2)])
        step = rng.choice([None, 1, 2, 3])
        key = tuple([slice(None)] * d + [slice(start, stop, step)])
        return "[%s]" % (key,), lambda t: t[key]
    if kind == "select":
        if nd == 0:
            return "[0]", lambda t: t[0]
        d = rng.randrange(nd)
        i = rng.randint(-shape[d] - 1, shape[d])
        key = tuple([slice(None)] * d + [i])
        return "[%s]" % (key,), lambda t: t[key]
    if kind == "index":
        parts = []
        for _ in range(rng.randint(1, 3)):
            parts.append(rng.choice([None, Ellipsis, 0, -1, slice(None, None, 2), slice(1, None)]))
        if parts.count(Ellipsis) > 1:
            parts = [p for p in parts if p is not Ellipsis] + [Ellipsis]
        key = tuple(parts)
        return "[%s]" % (key,), lambda t: t[key]
    if kind == "unsqueeze":
        d = rng.randint(-nd - 2, nd + 1)
        return "unsqueeze(%d)" % d, lambda t: t.unsqueeze(d)
    if kind == "squeeze":
        d = dim() if nd else 0
        return "squeeze(%d)" % d, lambda t: t.squeeze(d)
    if kind == "squeeze_all":
        return "squeeze()", lambda t: t.squeeze()
    if kind == "expand":
        target = [s if s != 1 else rng.choice([1, 2, 3]) for s in shape]
        if rng.random() < 0.3:
            target = [rng.randint(1, 3)] + target
        if target and rng.random() < 0.3:
            target[rng.randrange(len(target))] = -1
        if target and rng.random() < 0.1:
            target[-1] = target[-1] + 1 if target[-1] != -1 else 5  # a size mismatch
        return "expand%s" % (tuple(target),), lambda t: t.expand(*target)
    if kind == "flatten":
        a, b = (dim(), dim()) if nd else (0, 0)
        return "flatten(%d, %d)" % (a, b), lambda t: t.flatten(a, b)
    numel = 1
    for s in shape:
        numel *= s
    if kind in ("view", "reshape"):
        target = _factorizations(numel, rng)
        if kind == "view":
            return "view%s" % (tuple(target),), lambda t: t.view(*target)
        return "reshape%s" % (tuple(target),), lambda t: t.reshape(*target)
    if kind == "view_bad":
        target = [numel + 1]
        return "view(%d)" % target[0], lambda t: t.view(*target)
    if kind == "contiguous":
        return "contiguous()", lambda t: t.contiguous()
    return "clone()", lambda t: t.clone()


def _expect_raise(error, fn, t, trail):
    try:
        fn(t)
    except error:
        return
    except Exception as e:
        pytest.fail("%s: PyTorch raised %s, tessera raised %s: %s" % (trail, error.__name__, type(e).__name__, e))
    pytest.fail("%s: PyTorch raised %s, tessera did not" % (trail, error.__name__))


def _torch_storage(t):
    return t.storage().data_ptr()


def _check_same(ours, theirs, base_ours, base_theirs, where):
    assert tuple(ours.shape) == tuple(theirs.shape), where
    assert ours.stride() == theirs.stride(), where
    assert ours.storage_offset() == theirs.storage_offset(), where
    assert ours.is_contiguous() == theirs.is_contiguous(), where
    assert ours.dtype.__repr__().replace("tessera.", "torch.", 1) == str(theirs.dtype), where  # each its own package's
    assert ours.tolist() == theirs.tolist(), where
    shares_ours = ours.untyped_storage().data_ptr() == base_ours.untyped_storage().data_ptr()
    shares_theirs = _torch_storage(theirs) == _torch_storage(base_theirs)
    assert shares_ours == shares_theirs, where + " (view or copy)"


@pytest.mark.parametrize("seed", range(CHAINS))
def test_random_view_chain(seed):
    rng = random.Random(seed)
    shape = _rand_shape(rng)
    n = 1
    for s in shape:
        n *= s
    float_base = rng.random() < 0.5
    base_ours = tessera.arange(n, dtype=tessera.float64 if float_base else tessera.int64).view(*shape)
    base_theirs = torch.arange(n, dtype=torch.float64 if float_base else torch.int64).view(*shape)
    ours, theirs = base_ours, base_theirs
    trail = "base %s" % (shape,)
    for _ in range(STEPS):
        text, fn = _random_step(rng, list(theirs.shape))
        trail += " -> " + text
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                expected = fn(theirs)
                expected_error = None
            except Exception as e:  # PyTorch refused: we must refuse the same way
                expected, expected_error = None, type(e)
        if expected_error is not None:
            _expect_raise(expected_error, fn, ours, trail)
            continue
        got = fn(ours)
        _check_same(got, expected, base_ours, base_theirs, trail)
        ours, theirs = got, expected
    # A write through the final view reaches the base exactly as in PyTorch
    # (unless the view reads one element twice: PyTorch refuses those).
    overlapping = any(st == 0 and sz > 1 for st, sz in zip(theirs.stride(), theirs.shape))
    if theirs.numel() and not overlapping:
        theirs.add_(1000)
        ours += 1000
        assert base_ours.tolist() == base_theirs.tolist(), trail + " -> += 1000"
        theirs[...] = -1
        ours[...] = -1
        assert base_ours.tolist() == base_theirs.tolist(), trail + " -> [...] = -1"


def test_chains_cover_errors_and_copies():
    """The generator must exercise refusals, views and copies alike."""
    raised = copies = views = 0
    for seed in range(CHAINS):
        rng = random.Random(seed)
        shape = _rand_shape(rng)
        n = 1
        for s in shape:
            n *= s
        base = torch.arange(n).view(*shape)
        t = base
        for _ in range(STEPS):
            _, fn = _random_step(rng, list(t.shape))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    r = fn(t)
                except Exception:
                    raised += 1
                    continue
            if _torch_storage(r) == _torch_storage(base):
                views += 1
            else:
                copies += 1
            t = r
    assert raised > 100 and copies > 100 and views > 500
