# SPDX-License-Identifier: Apache-2.0
"""Optimizer: torch.optim.Optimizer's interface over tessera/optim.h.

Each parameter group is one C optimizer (tsr_optimizer), made on first use.
Before each step the group's hyperparameters are written into it, so that a
change to param_groups (a scheduler's lr, a user's momentum) takes effect at
the next step, as in torch. The state (momentum buffers, moments, step)
lives in the C optimizer; `state`, state_dict and load_state_dict read and
write it there, with torch's layout.
"""
from collections import defaultdict

from .. import _C
from .._tensor import Tensor
from ..autograd import enable_grad

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()

# The state each kind keeps, in torch's order.
_STATE_NAMES = ("step", "momentum_buffer", "exp_avg", "exp_avg_sq", "max_exp_avg_sq")


class _Group:
    """A parameter group's C optimizer (a capsule that destroys it when
    dropped) and the handles it was made over."""

    def __init__(self, params, options):
        self.handles = tuple(p._h for p in params)
        self.ptr = _C.optimizer_create(params, options)


class Optimizer:
    """torch.optim.Optimizer: param_groups, state, zero_grad, step,
    add_param_group, state_dict and load_state_dict."""

    _kind = None  # a tsr_optimizer_kind, set by each subclass
    # The state torch keeps for a parameter stepped without any state tensor
    # (SGD without momentum: {'momentum_buffer': None}); None: no such state.
    _stateless_entry = None

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.param_groups = []
        self._groups = []
        self._stepped = []  # per group, the positions of the parameters stepped (for _stateless_entry)
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            "got " + type(params).__name__)
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append("Parameter Group {0}".format(i))
            for key in sorted(group.keys()):
                if key != "params":
                    lines.append("    {0}: {1}".format(key, group[key]))
        lines.append(")")
        return "\n".join(lines)

    def add_param_group(self, param_group):
        if not isinstance(param_group, dict):
            raise TypeError("param group must be a dict")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " +
                                type(param).__module__ + "." + type(param).__name__)
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required optimization parameter " + name)
            param_group.setdefault(name, default)
        seen = set()
        for group in self.param_groups:
            seen.update(id(p) for p in group["params"])
        if not seen.isdisjoint(id(p) for p in param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self._check_group(param_group)
        self.param_groups.append(param_group)
        self._groups.append(None)
        self._stepped.append(set())

    # ---- the C optimizers ----------------------------------------------------------

    def _check_group(self, group):
        """Each subclass checks its hyperparameters with torch's messages."""

    def _options(self, group):
        o = _C.optimizer_defaults(self._kind)  # tsr_optimizer_options' fields by name
        o["lr"] = group["lr"]
        o["weight_decay"] = group.get("weight_decay", 0.0)
        o["maximize"] = bool(group.get("maximize", False))
        if "momentum" in group:
            o["momentum"] = group["momentum"]
            o["dampening"] = group["dampening"]
            o["nesterov"] = bool(group["nesterov"])
        if "betas" in group:
            o["beta1"], o["beta2"] = group["betas"]
            o["eps"] = group["eps"]
            o["amsgrad"] = bool(group["amsgrad"])
        return o

    def _group(self, i):
        """Group i's C optimizer, with the group's hyperparameters now. A
        parameter whose data was replaced (Module.to) gets a new C optimizer
        over its new handle, its state carried over."""
        group = self.param_groups[i]
        options = self._options(group)
        g = self._groups[i]
        params = group["params"]
        if g is None or g.handles != tuple(p._h for p in params):
            new = _Group(params, options)
            if g is not None:
                for j in range(len(params)):
                    for name in _STATE_NAMES:
                        value = self._get_state(g, j, name)
                        if value is not None:
                            _C.optimizer_set_state(new.ptr, j, name, value)
            self._groups[i] = g = new
        else:
            _C.optimizer_set_options(g.ptr, options)
        return g

    @staticmethod
    def _get_state(g, j, name):
        return _C.optimizer_get_state(g.ptr, j, name)

    def _entry(self, i, j):
        """Parameter j of group i's state, as torch's dict ({} when none)."""
        entry = {}
        g = self._groups[i]
        if g is not None:
            for name in _STATE_NAMES:
                value = self._get_state(g, j, name)
                if value is not None:
                    entry[name] = value
        if not entry and self._stateless_entry is not None and j in self._stepped[i]:
            entry = dict(self._stateless_entry)
        return entry

    # ---- torch.optim.Optimizer's interface --------------------------------------------

    def zero_grad(self, set_to_none=False):
        """Each parameter's .grad zeroed in place (detached first), or
        dropped with set_to_none (torch 1.13's default is False)."""
        for i in range(len(self.param_groups)):
            _C.optimizer_zero_grad(self._group(i).ptr, bool(set_to_none))

    def step(self, closure=None):
        """One update of every parameter with a .grad; closure (re-evaluates
        the model and returns the loss) is run first, with grad enabled."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for i, group in enumerate(self.param_groups):
            _C.optimizer_step(self._group(i).ptr)
            stepped = self._stepped[i]
            if self._stateless_entry is not None and len(stepped) < len(group["params"]):
                stepped.update(j for j, p in enumerate(group["params"]) if p.grad is not None)
        return loss

    @property
    def state(self):
        """{parameter: {name: tensor}} for the parameters that have state
        (the tensors are the optimizer's own, as torch's)."""
        out = defaultdict(dict)
        for i, group in enumerate(self.param_groups):
            for j, p in enumerate(group["params"]):
                entry = self._entry(i, j)
                if entry:
                    out[p] = entry
        return out

    def state_dict(self):
        """torch's layout: {'state': {index: {...}}, 'param_groups': [{...,
        'params': [index, ..]}]}, the indices counted over all groups."""
        state, groups, index = {}, [], 0
        for i, group in enumerate(self.param_groups):
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = list(range(index, index + len(group["params"])))
            groups.append(packed)
            for j in range(len(group["params"])):
                entry = self._entry(i, j)
                if entry:
                    state[index + j] = entry
            index += len(group["params"])
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restores hyperparameters and state saved by state_dict; state
        tensors are copied to each parameter's dtype and device."""
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        saved_state = state_dict["state"]
        for i, (group, saved) in enumerate(zip(self.param_groups, groups)):
            for k, v in saved.items():
                if k != "params":
                    group[k] = v
            g = self._group(i)
            self._stepped[i] = {j for j, index in enumerate(saved["params"]) if saved_state.get(index)}
            for j, index in enumerate(saved["params"]):
                entry = saved_state.get(index, {})
                for name in _STATE_NAMES:
                    value = entry.get(name)
                    if value is not None and not isinstance(value, Tensor):
                        from .._creation import tensor
                        value = tensor(float(value))
                    _C.optimizer_set_state(g.ptr, j, name, value)
