# SPDX-License-Identifier: Apache-2.0
"""Creation functions take torch's keywords, and none is dropped in silence
(issue 33): requires_grad=True makes a leaf that requires grad (an integer
result raises torch's message), an unknown keyword raises TypeError as in
torch, and a keyword Tessera does not implement (pin_memory, generator)
raises unless it has its default."""
import pytest
import torch

import tessera as ts

SIZED = ["empty", "zeros", "ones", "rand", "randn"]
LIKE = ["empty_like", "zeros_like", "ones_like", "rand_like", "randn_like"]


def calls():
    x = ts.zeros(2, 3)
    yield "tensor", lambda **kw: ts.tensor([1.0, 2.0], **kw)
    for name in SIZED:
        yield name, lambda name=name, **kw: getattr(ts, name)(2, 3, **kw)
    for name in LIKE:
        yield name, lambda name=name, **kw: getattr(ts, name)(x, **kw)
    yield "full", lambda **kw: ts.full((2,), 1.5, **kw)
    yield "full_like", lambda **kw: ts.full_like(x, 1.5, **kw)
    yield "arange", lambda **kw: ts.arange(4.0, **kw)
    yield "linspace", lambda **kw: ts.linspace(0, 1, 5, **kw)
    yield "eye", lambda **kw: ts.eye(3, **kw)


CALLS = list(calls())


TORCH_CALLS = {
    "tensor": lambda **kw: torch.tensor([1.0, 2.0], **kw), "arange": lambda **kw: torch.arange(4.0, **kw),
    "linspace": lambda **kw: torch.linspace(0, 1, 5, **kw), "eye": lambda **kw: torch.eye(3, **kw),
    "full": lambda **kw: torch.full((2,), 1.5, **kw),
}


@pytest.mark.parametrize("name,call", CALLS, ids=[n for n, _ in CALLS])
def test_requires_grad_makes_a_leaf_as_torch_does(name, call):
    assert call(requires_grad=False).requires_grad is False
    t = call(requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad is None and t.grad_fn is None
    want = TORCH_CALLS.get(name, lambda **kw: getattr(torch, name)(2, 3, **kw) if name in SIZED else None)(
        requires_grad=True)
    if want is not None:
        assert (t.requires_grad, t.is_leaf, str(t.dtype)[8:]) == (want.requires_grad, want.is_leaf, str(want.dtype)[6:])


@pytest.mark.parametrize("name,call", [(n, c) for n, c in CALLS if n in ("tensor", "arange", "eye", "full")])
def test_an_integer_tensor_cannot_require_grad(name, call):
    kw = {"dtype": ts.int64}
    torch_kw = {"dtype": torch.int64}
    torch_call = TORCH_CALLS[name]
    with pytest.raises(RuntimeError) as want:
        torch_call(requires_grad=True, **torch_kw)
    with pytest.raises(RuntimeError) as got:
        call(requires_grad=True, **kw)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("name,call", CALLS, ids=[n for n, _ in CALLS])
def test_unknown_keyword_raises_type_error_as_in_torch(name, call):
    torch_call = {"tensor": lambda **kw: torch.tensor([1.0], **kw)}.get(name)
    if torch_call is not None:
        with pytest.raises(TypeError):
            torch_call(no_such_keyword=1)
    with pytest.raises(TypeError, match="no_such_keyword"):
        call(no_such_keyword=1)


@pytest.mark.parametrize("name", ["empty", "zeros", "ones"])
def test_pin_memory_is_refused_unless_false(name):
    assert getattr(ts, name)(2, pin_memory=False).shape == (2,)
    with pytest.raises(NotImplementedError, match=r"pin_memory=True is not supported"):
        getattr(ts, name)(2, pin_memory=True)
    with pytest.raises(NotImplementedError, match=r"pin_memory=True is not supported"):
        ts.tensor([1.0], pin_memory=True)


@pytest.mark.parametrize("name", ["rand", "randn"])
def test_generator_is_refused_unless_none(name):
    assert getattr(ts, name)(2, generator=None).shape == (2,)
    with pytest.raises(NotImplementedError, match=r"generator=.* is not supported"):
        getattr(ts, name)(2, generator=object())


def test_requires_grad_is_set_on_a_leaf_as_in_torch():
    t = ts.zeros(2)
    t.requires_grad = True
    assert t.requires_grad and t.is_leaf
    with pytest.raises(RuntimeError) as want:
        torch.zeros(2, dtype=torch.int64).requires_grad = True
    with pytest.raises(RuntimeError) as got:
        ts.zeros(2, dtype=ts.int64).requires_grad = True
    assert str(got.value) == str(want.value)
