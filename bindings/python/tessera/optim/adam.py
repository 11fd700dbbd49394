# SPDX-License-Identifier: Apache-2.0
"""torch.optim.Adam and AdamW over tessera/optim.h (TSR_OPTIMIZER_ADAM,
TSR_OPTIMIZER_ADAMW)."""
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam with torch 1.13's weight_decay (L2 in the gradient), amsgrad and
    maximize."""

    _kind = 1
    _default_weight_decay = 0

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=None, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        if weight_decay is None:
            weight_decay = self._default_weight_decay
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused)
        super().__init__(params, defaults)

    def _check_group(self, group):
        if not 0.0 <= group["lr"]:
            raise ValueError("Invalid learning rate: {}".format(group["lr"]))
        if not 0.0 <= group["eps"]:
            raise ValueError("Invalid epsilon value: {}".format(group["eps"]))
        beta1, beta2 = group["betas"]
        if not 0.0 <= beta1 < 1.0:
            raise ValueError("Invalid beta parameter at index 0: {}".format(beta1))
        if not 0.0 <= beta2 < 1.0:
            raise ValueError("Invalid beta parameter at index 1: {}".format(beta2))
        if not 0.0 <= group["weight_decay"]:
            raise ValueError("Invalid weight_decay value: {}".format(group["weight_decay"]))
        for flag in ("differentiable", "fused", "capturable"):
            if group.get(flag):
                raise NotImplementedError("%s(%s=True) is not supported by Tessera" % (type(self).__name__, flag))


class AdamW(Adam):
    """AdamW: Adam with decoupled weight decay (p *= 1 - lr weight_decay)."""

    _kind = 2

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        # torch 1.13's AdamW has neither differentiable nor fused: its groups lack those keys.
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        foreach=foreach, maximize=maximize, capturable=capturable)
        Optimizer.__init__(self, params, defaults)
