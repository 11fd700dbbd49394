# SPDX-License-Identifier: Apache-2.0
"""tessera.nn.functional: torch.nn.functional's training functions (torch
1.13's names, arguments and semantics) over tessera/nn.h.

Each function is one call into the C API, where it is computed from ops
every device has and records one node with a fused gradient (linear,
dropout and most losses record the ops they are made of). The legacy
size_average/reduce arguments of the losses map to reduction as torch's do.
"""
import operator
import warnings

from .. import _C
from .._tensor import Tensor

__all__ = ["linear", "relu", "relu_", "gelu", "silu", "softplus", "sigmoid", "tanh", "softmax", "log_softmax",
           "dropout", "layer_norm", "embedding", "cross_entropy", "nll_loss", "mse_loss", "l1_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits"]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _tensor(x, fn, what="input"):
    if not isinstance(x, Tensor):
        raise TypeError("%s(): argument '%s' must be Tensor, not %s" % (fn, what, type(x).__name__))
    return x


def _optional(x, fn, what):
    return None if x is None else _tensor(x, fn, what)


# ---- layers ---------------------------------------------------------------------

def linear(input, weight, bias=None):
    """y = input weight^T + bias (torch.nn.functional.linear)."""
    return _C.linear(_tensor(input, "linear"), _tensor(weight, "linear", "weight"), _optional(bias, "linear", "bias"))


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalises over the last len(normalized_shape) dims, which must be
    the input's last dims (torch.nn.functional.layer_norm)."""
    x = _tensor(input, "layer_norm")
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(operator.index(n) for n in normalized_shape)
    k = len(normalized_shape)
    if k == 0 or k > x.dim() or tuple(x.shape[x.dim() - k:]) != normalized_shape:
        raise RuntimeError("Given normalized_shape=%s, expected input with shape [*, %s], but got input of size%s" % (
            list(normalized_shape), ", ".join(str(n) for n in normalized_shape), list(x.shape)))
    return _C.layer_norm(x, k, _optional(weight, "layer_norm", "weight"), _optional(bias, "layer_norm", "bias"),
                         float(eps))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """The rows of weight at the indices `input` (torch.nn.functional.embedding).
    max_norm renormalises the rows named in place first, as torch's."""
    idx = _tensor(input, "embedding")
    w = _tensor(weight, "embedding", "weight")
    if sparse:
        raise NotImplementedError("embedding(): sparse gradients are not supported by Tessera (sparse=True)")
    if padding_idx is not None:
        padding_idx = operator.index(padding_idx)
        n = w.shape[0]
        if padding_idx >= n or padding_idx < -n:
            raise AssertionError("Padding_idx must be within num_embeddings")
    if max_norm is not None:
        _C.embedding_renorm_(w, idx, float(max_norm), float(norm_type))
    return _C.embedding(w, idx, padding_idx, bool(scale_grad_by_freq))


def dropout(input, p=0.5, training=True, inplace=False):
    """Zeroes each element with probability p and scales the others by
    1 / (1 - p) while training; the draws are Tessera's seeded generator's."""
    x = _tensor(input, "dropout")
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    out = _C.dropout(x, float(p), bool(training))
    if inplace and training and p > 0:
        x.copy_(out)
        return x
    return out


# ---- activations --------------------------------------------------------------------

def relu(input, inplace=False):
    x = _tensor(input, "relu")
    return x.relu_() if inplace else x.relu()


def relu_(input):
    return _tensor(input, "relu_").relu_()


def gelu(input, approximate="none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _C.gelu(_tensor(input, "gelu"), approximate == "tanh")


def silu(input, inplace=False):
    x = _tensor(input, "silu")
    out = _C.silu(x)
    if inplace:
        x.copy_(out)
        return x
    return out


def softplus(input, beta=1, threshold=20):
    return _C.softplus(_tensor(input, "softplus"), float(beta), float(threshold))


def sigmoid(input):
    return _tensor(input, "sigmoid").sigmoid()


def tanh(input):
    return _tensor(input, "tanh").tanh()


def _softmax_dim(x, dim, fn):
    if dim is None:  # torch's legacy implicit dim
        warnings.warn("Implicit dimension choice for %s has been deprecated. Change the call to include dim=X as an "
                      "argument." % fn, stacklevel=3)
        dim = 0 if x.dim() in (0, 1, 3) else 1
    return dim


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    x = _tensor(input, "softmax")
    return x.softmax(_softmax_dim(x, dim, "softmax"), dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    x = _tensor(input, "log_softmax")
    return x.log_softmax(_softmax_dim(x, dim, "log_softmax"), dtype)


# ---- losses --------------------------------------------------------------------------

def _reduction(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:  # torch's _Reduction.legacy_get_string
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
        warnings.warn("size_average and reduce args will be deprecated, please use reduction='%s' instead." %
                      reduction, stacklevel=3)
    if reduction not in _REDUCTIONS:
        raise ValueError("%s is not a valid value for reduction" % reduction)
    return _REDUCTIONS[reduction]


def _loss(fn, name, input, target, reduction, weight=None, ignore_index=-100, label_smoothing=0.0, pos_weight=None):
    ignore_index, label_smoothing = operator.index(ignore_index), float(label_smoothing)
    weight, pos_weight = _optional(weight, name, "weight"), _optional(pos_weight, name, "pos_weight")
    return fn(_tensor(input, name), _tensor(target, name, "target"), reduction, ignore_index, label_smoothing, weight,
              pos_weight)


def _check_batch(input, target):
    """torch's Python-level check (a ValueError, where the C checks raise RuntimeError)."""
    if isinstance(input, Tensor) and isinstance(target, Tensor) and input.dim() >= 2 and target.dim() >= 1 and \
            not target.is_floating_point() and input.shape[0] != target.shape[0]:
        raise ValueError("Expected input batch_size ({}) to match target batch_size ({}).".format(
            input.shape[0], target.shape[0]))


def _check_same_size(input, target):
    if isinstance(input, Tensor) and isinstance(target, Tensor) and target.shape != input.shape:
        raise ValueError("Using a target size ({}) that is different to the input size ({}) is deprecated. Please "
                         "ensure they have the same size.".format(target.shape, input.shape))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """log_softmax over the class dim, then nll_loss; target: class
    indices (int64) or class probabilities (the input's shape)."""
    _check_batch(input, target)
    return _loss(_C.cross_entropy, "cross_entropy", input, target, _reduction(size_average, reduce, reduction),
                 weight, ignore_index, label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    _check_batch(input, target)
    return _loss(_C.nll_loss, "nll_loss", input, target, _reduction(size_average, reduce, reduction), weight,
                 ignore_index)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _loss(_C.mse_loss, "mse_loss", input, target, _reduction(size_average, reduce, reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _loss(_C.l1_loss, "l1_loss", input, target, _reduction(size_average, reduce, reduction))


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    _check_same_size(input, target)
    return _loss(_C.binary_cross_entropy, "binary_cross_entropy", input, target,
                 _reduction(size_average, reduce, reduction), weight)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    _check_same_size(input, target)
    return _loss(_C.binary_cross_entropy_with_logits, "binary_cross_entropy_with_logits", input, target,
                 _reduction(size_average, reduce, reduction), weight, pos_weight=pos_weight)
