# SPDX-License-Identifier: Apache-2.0
"""tessera.nn: torch.nn's Module, Parameter, layers and losses (torch 1.13's
names and semantics), with nn.functional and nn.init."""
from . import init
from .parameter import Parameter
from .module import Module
from .container import ModuleList, Sequential

__all__ = ["Parameter", "Module", "Sequential", "ModuleList", "Identity", "Linear", "ReLU", "GELU", "Tanh",
           "Sigmoid", "Dropout", "LayerNorm", "Embedding", "CrossEntropyLoss", "MSELoss", "functional", "init"]

from . import functional
from .layers import GELU, Dropout, Embedding, Identity, LayerNorm, Linear, ReLU, Sigmoid, Tanh
from .loss import CrossEntropyLoss, MSELoss
from . import parallel  # noqa: E402  (tessera.nn.parallel.DistributedDataParallel)
