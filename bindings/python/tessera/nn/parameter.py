# SPDX-License-Identifier: Apache-2.0
"""nn.Parameter: a Tensor that a Module registers as one of its parameters."""
from .. import _C
from .._tensor import Tensor


class Parameter(Tensor):
    """torch.nn.Parameter(data=None, requires_grad=True): a new leaf over
    data's storage (no copy: writes through either show in both), detached
    from data's graph, requiring grad unless told not to. Results of ops on
    a Parameter are plain Tensors, as in torch."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .._creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError("Parameter(): argument 'data' must be Tensor, not %s" % type(data).__name__)
        t = _C.detach(data)
        p = Tensor.__new__(cls)
        p._h = t._h  # p takes over the new handle's one reference
        del t._h
        if requires_grad:
            p.requires_grad = True  # an integer dtype raises torch's message
        return p

    def __init__(self, data=None, requires_grad=True):
        pass  # all done in __new__ (Tensor.__init__ refuses direct construction)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result
