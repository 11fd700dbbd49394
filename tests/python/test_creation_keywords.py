# SPDX-License-Identifier: Apache-2.0
"""Creation functions take torch's keywords, and none is dropped in silence
(issue 33): requires_grad=True raises until autograd exists, an unknown
keyword raises TypeError as in torch, and a keyword Tessera does not
implement (pin_memory, generator) raises unless it has its default."""
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
    yield "arange", lambda **kw: ts.arange(4, **kw)
    yield "linspace", lambda **kw: ts.linspace(0, 1, 5, **kw)
    yield "eye", lambda **kw: ts.eye(3, **kw)


CALLS = list(calls())


@pytest.mark.parametrize("name,call", CALLS, ids=[n for n, _ in CALLS])
def test_requires_grad_true_raises_and_false_is_accepted(name, call):
    assert call(requires_grad=False).requires_grad is False
    with pytest.raises(NotImplementedError, match=r"%s\(\): requires_grad=True: Tessera has no autograd" % name):
        call(requires_grad=True)


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


def test_requires_grad_cannot_be_set_on_a_tensor():
    with pytest.raises(AttributeError):
        ts.zeros(2).requires_grad = True
