#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Data parallel inference: 200,000 points split across the ranks, the
lessons' MLP forward pass (2-16-16-1, examples/lesson_forward.py) run on each
shard, the outputs gathered with tessera.distributed.all_gather_into_tensor.
Rank 0 compares them with the single-process result (assert_close).

Run from a source checkout after building, with as many ranks as you like:
    TESSERA_CONFIG=build/share/tessera/configs/mpi.json PYTHONPATH=bindings/python \\
        mpirun -np 4 /usr/bin/python3 examples/data_parallel_forward.py
(as root, Open MPI also wants OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1).
The same script runs under srun, or across machines with mpirun --hostfile.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lesson_forward import forward_tessera, init_layers, two_moons  # noqa: E402

import tessera  # noqa: E402
import tessera.distributed as dist  # noqa: E402

N_POINTS = 200_000


def main():
    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    points, _ = two_moons(N_POINTS)  # every rank builds the same data set
    layers = [(tessera.as_tensor(w, dtype=tessera.float32), tessera.as_tensor(b, dtype=tessera.float32))
              for w, b in init_layers([2, 16, 16, 1])]

    # Equal shards (all_gather's rule): the last one padded when world does
    # not divide the data set; the padding is dropped after the gather.
    shard = -(-N_POINTS // world)
    padded = np.zeros((shard * world, 2))
    padded[:N_POINTS] = points
    mine = tessera.as_tensor(padded[rank * shard:(rank + 1) * shard], dtype=tessera.float32)

    start = time.perf_counter()
    out = forward_tessera(mine, layers)                     # (shard, 1) on this rank
    gathered = tessera.empty((shard * world, 1), dtype=tessera.float32)
    dist.all_gather_into_tensor(gathered, out)
    elapsed = time.perf_counter() - start
    result = gathered[:N_POINTS]

    if rank == 0:
        single = forward_tessera(tessera.as_tensor(points, dtype=tessera.float32), layers)
        tessera.testing.assert_close(result, single)
        print(f"{world} rank(s), {shard} points each: outputs {tuple(result.shape)} {result.dtype}, "
              f"forward + all_gather {elapsed * 1e3:.1f} ms on rank 0")
        print(f"assert_close against the single-process forward pass: passed "
              f"(mean output {result.double().mean().item():.6f})")
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
