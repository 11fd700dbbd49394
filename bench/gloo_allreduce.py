#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""torch.distributed with gloo: all_reduce (float32, sum, in place), timed as
`tessera allreduce-bench` times tsr_all_reduce; one JSON line per size, the
tool's format. Run under mpirun (rank and size from Open MPI's environment):
    mpirun -np 2 /usr/bin/python3 bench/gloo_allreduce.py MIN_BYTES MAX_BYTES"""
import json
import os
import sys
import time

import torch
import torch.distributed as dist


def main():
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    n = int(os.environ["OMPI_COMM_WORLD_SIZE"])
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29517")
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=n)
    nbytes, max_bytes = int(sys.argv[1]), int(sys.argv[2])
    while nbytes <= max_bytes:
        count = max(nbytes // 4, 1)
        i = torch.arange(count, dtype=torch.int64)
        t = ((i + rank) % 7 + rank).float()
        dist.all_reduce(t)
        want = sum(((i + r) % 7 + r).float() for r in range(n))
        wrong = int((t != want).sum())
        iters = min(max((1 << 30) // nbytes, 5), 1000)
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(t)
        stats = torch.tensor([(time.perf_counter() - t0) / iters, float(wrong)], dtype=torch.float64)
        dist.all_reduce(stats, op=dist.ReduceOp.MAX)
        if rank == 0:
            seconds = stats[0].item()
            algbw = count * 4 / seconds / 1e9
            print(json.dumps({"bytes": count * 4, "count": count, "time_us": seconds * 1e6, "algbw": algbw,
                              "busbw": algbw * 2 * (n - 1) / n, "wrong": int(stats[1].item())}), flush=True)
        nbytes *= 2
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
