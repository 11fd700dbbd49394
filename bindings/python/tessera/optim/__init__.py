# SPDX-License-Identifier: Apache-2.0
"""tessera.optim: torch.optim's SGD, Adam, AdamW (tessera/optim.h, PyTorch
1.13's update formulas) and the schedulers StepLR and CosineAnnealingLR."""
from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
