# SPDX-License-Identifier: Apache-2.0
"""torch.optim.SGD over tessera/optim.h (TSR_OPTIMIZER_SGD)."""
from .optimizer import Optimizer, required

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent with torch 1.13's momentum, dampening,
    nesterov, weight_decay and maximize."""

    _kind = 0
    _stateless_entry = {"momentum_buffer": None}  # torch's state of a parameter stepped without momentum

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _check_group(self, group):
        if group["lr"] is not required and group["lr"] < 0.0:
            raise ValueError("Invalid learning rate: {}".format(group["lr"]))
        if group["momentum"] < 0.0:
            raise ValueError("Invalid momentum value: {}".format(group["momentum"]))
        if group["weight_decay"] < 0.0:
            raise ValueError("Invalid weight_decay value: {}".format(group["weight_decay"]))
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        if group["differentiable"]:
            raise NotImplementedError("SGD(differentiable=True) is not supported by Tessera")
