# SPDX-License-Identifier: Apache-2.0
"""The glue between Tensor's autograd methods, tessera.autograd and the C
engine (tessera/autograd.h): backward and grad calls, hooks, grad_fn's
node objects.

A Python hook runs inside the C engine's backward through the extension's
callback (Note [Python hooks in the C engine] in bindings/python/src/
api_autograd.c): an exception the hook raises fails the backward call, which
re-raises that exception, as torch does."""
from . import _C
from ._tensor import Tensor, late


class Node:
    """What Tensor.grad_fn returns: the name of the node that made a tensor
    (PyTorch's MulBackward0 and so on)."""
    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name

    def __repr__(self):
        return "<%s object at %#x>" % (self._name, id(self))

    def __eq__(self, other):
        return isinstance(other, Node) and other._name == self._name

    def __hash__(self):
        return hash(self._name)


class RemovableHandle:
    """register_hook's result: remove() takes the hook off again."""
    __slots__ = ("_tensor", "_id")

    def __init__(self, tensor, hook_id):
        self._tensor = tensor
        self._id = hook_id

    def remove(self):
        if self._tensor is not None:
            try:
                _C.tensor_remove_hook(self._tensor, self._id)  # once; a second remove does nothing
            except RuntimeError:
                pass  # a hook the runtime already let go (its tensor's record freed): nothing to remove
            self._tensor = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_hook(tensor, hook):
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    return RemovableHandle(tensor, _C.tensor_register_hook(tensor, hook))


def _tensors(values, what):
    if isinstance(values, Tensor):
        return (values,)
    values = tuple(values)
    for v in values:
        if v is not None and not isinstance(v, Tensor):
            raise TypeError("%s must be Tensors, not %s" % (what, type(v).__name__))
    return values


def _check_lengths(outs, grads):
    if grads is not None and len(grads) < len(outs):  # more are ignored, as torch's zip does
        raise RuntimeError("got %d tensors and %d gradients" % (len(outs), len(grads)))


def run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs):
    """torch.autograd.backward."""
    outs = _tensors(tensors, "tensors")
    grads = None if grad_tensors is None else _tensors(grad_tensors, "grad_tensors")
    ins = () if inputs is None else _tensors(inputs, "inputs")
    if inputs is not None and not ins:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    _check_lengths(outs, grads)
    _C.backward(outs, grads, ins, retain_graph, create_graph)


def run_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused):
    """torch.autograd.grad: a tuple, None where an input is unused."""
    outs = _tensors(outputs, "outputs")
    ins = _tensors(inputs, "inputs")
    grads = None if grad_outputs is None else _tensors(grad_outputs, "grad_outputs")
    _check_lengths(outs, grads)
    return _C.grad(outs, grads, ins, retain_graph, create_graph, allow_unused)


late.Node, late.register_hook, late.run_backward = Node, register_hook, run_backward  # Note [Layers of the package]
