# SPDX-License-Identifier: Apache-2.0
"""Losses: CrossEntropyLoss and MSELoss, as torch 1.13's, over
nn.functional's cross_entropy and mse_loss."""
import warnings

from . import functional as F
from .module import Module


def _legacy_reduction(size_average, reduce):
    """torch's _Reduction.legacy_get_string: the deprecated flags as a
    reduction, with torch's warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else ("sum" if reduce else "none")
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' instead.".format(ret))
    return ret


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = _legacy_reduction(size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class CrossEntropyLoss(_WeightedLoss):
    """Class indices or class probabilities as the target; weight (a buffer),
    ignore_index, reduction and label_smoothing as torch's."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class MSELoss(_Loss):
    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)
