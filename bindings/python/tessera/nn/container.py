# SPDX-License-Identifier: Apache-2.0
"""Containers: Sequential and ModuleList, as torch 1.13's."""
import itertools
import operator
from collections import OrderedDict

from .module import Module


class _Indexed(Module):
    """What Sequential and ModuleList share: children '0', '1', ... read,
    replaced and deleted by position (deleting renumbers the rest)."""

    def _key(self, idx):
        size = len(self)
        idx = operator.index(idx)
        if not -size <= idx < size:
            raise IndexError("index %d is out of range" % idx)
        return next(itertools.islice(iter(self._modules.keys()), idx % size, None))

    def __setitem__(self, idx, module):
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx):
        keys = list(self._modules.keys())[idx] if isinstance(idx, slice) else [self._key(idx)]
        for key in keys:
            delattr(self, key)
        self._modules = OrderedDict(zip((str(i) for i in range(len(self._modules))), self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class Sequential(_Indexed):
    """Sequential(*modules) or Sequential(OrderedDict of name: module):
    forward runs them in order, each on the previous one's output."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key(idx)]

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but %s is given." % type(other))
        ret = Sequential()
        for layer in itertools.chain(self, other):
            ret.append(layer)
        return ret

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(_Indexed):
    """ModuleList(modules=None): a list of modules, registered as children
    '0', '1', ...; it has no forward of its own."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[self._key(idx)]

    def __iadd__(self, modules):
        return self.extend(modules)

    def extend(self, modules):
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self
