# SPDX-License-Identifier: Apache-2.0
"""The glue between Tensor's autograd methods, tessera.autograd and the C
engine (tessera/autograd.h): backward and grad calls, hooks as C callbacks,
grad_fn's node objects.

A Python hook runs inside the C engine's backward, through one ctypes
callback for every hook: its user data is a key into _HOOKS. An exception
the hook raises is kept for the thread, the callback returns an error
status, and the backward call that fails re-raises that exception, as
torch does."""
import itertools
import threading
from ctypes import c_int64, c_void_p

from ._lib import GRAD_HOOK_FN, RELEASE_FN, AutogradOptions, C, error, struct_size
from ._tensor import Tensor, late, wrap

_HOOKS = {}  # user-data key -> the Python hook
_KEYS = itertools.count(1)
_pending = threading.local()  # the exception of the hook that failed on this thread


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


@GRAD_HOOK_FN
def _run_hook(key, grad, replacement):
    try:
        C.tensor_retain(grad)
        result = _HOOKS[key](wrap(grad))
        if result is not None:
            if not isinstance(result, Tensor):
                raise TypeError("a tensor hook must return a Tensor or None, not " + type(result).__name__)
            C.tensor_retain(result._h)  # the runtime takes this reference over
            replacement[0] = result._h
        return 0
    except BaseException as e:  # noqa: B902  (re-raised by the backward call)
        _pending.error = e
        return 1  # TSR_ERR_INVALID_ARGUMENT


@RELEASE_FN
def _release_hook(key):
    _HOOKS.pop(key, None)


class RemovableHandle:
    """register_hook's result: remove() takes the hook off again."""
    __slots__ = ("_tensor", "_id")

    def __init__(self, tensor, hook_id):
        self._tensor = tensor
        self._id = hook_id

    def remove(self):
        if self._tensor is not None:
            C.tensor_remove_hook(self._tensor._h, self._id)  # once; a second remove does nothing
            self._tensor = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def register_hook(tensor, hook):
    if not tensor.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    key = next(_KEYS)
    _HOOKS[key] = hook
    handle = c_int64()
    st = C.tensor_register_hook(tensor._h, _run_hook, key, _release_hook, handle)
    if st:
        _HOOKS.pop(key, None)
        raise error(st)
    return RemovableHandle(tensor, handle.value)


def _tensors(values, what):
    if isinstance(values, Tensor):
        return (values,)
    values = tuple(values)
    for v in values:
        if v is not None and not isinstance(v, Tensor):
            raise TypeError("%s must be Tensors, not %s" % (what, type(v).__name__))
    return values


def _array(tensors):
    return (c_void_p * max(len(tensors), 1))(*[None if t is None else t._h for t in tensors])


def _options(retain_graph, create_graph, allow_unused=False):
    o = AutogradOptions()
    o.struct_size = struct_size(AutogradOptions, "reserved")
    o.retain_graph = -1 if retain_graph is None else int(bool(retain_graph))
    o.create_graph = int(bool(create_graph))
    o.allow_unused = int(bool(allow_unused))
    return o


def _raise(status):
    e = getattr(_pending, "error", None)
    _pending.error = None
    if e is not None:
        raise e
    raise error(status)


def run_backward(tensors, grad_tensors, retain_graph, create_graph, inputs):
    """torch.autograd.backward."""
    outs = _tensors(tensors, "tensors")
    grads = None if grad_tensors is None else _tensors(grad_tensors, "grad_tensors")
    ins = () if inputs is None else _tensors(inputs, "inputs")
    if inputs is not None and not ins:
        raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    _pending.error = None
    st = C.backward(len(outs), _array(outs), None if grads is None else _array(grads), len(ins), _array(ins),
                    _options(retain_graph, create_graph))
    if st:
        _raise(st)


def run_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused):
    """torch.autograd.grad: a tuple, None where an input is unused."""
    outs = _tensors(outputs, "outputs")
    ins = _tensors(inputs, "inputs")
    grads = None if grad_outputs is None else _tensors(grad_outputs, "grad_outputs")
    result = (c_void_p * max(len(ins), 1))()
    _pending.error = None
    st = C.grad(len(outs), _array(outs), None if grads is None else _array(grads), len(ins), _array(ins),
                _options(retain_graph, create_graph, allow_unused), result)
    if st:
        _raise(st)
    return tuple(wrap(result[i]) if result[i] else None for i in range(len(ins)))


late.Node, late.register_hook, late.run_backward = Node, register_hook, run_backward  # Note [Layers of the package]
