# SPDX-License-Identifier: Apache-2.0
"""tessera.nn.parallel: torch.nn.parallel's DistributedDataParallel, over
tessera.distributed."""
from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
