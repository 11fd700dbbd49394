# SPDX-License-Identifier: Apache-2.0
"""mpi.python.np*: tessera.distributed under mpirun, against NumPy. Every rank
builds every rank's seeded data, so each computes the expected result with
NumPy itself. Run as: mpirun -np N python3 test_distributed.py CONFIG [BACKEND]
(a config with the cpu, the emulated cuda device and mpi.so; with BACKEND
nccl, one that names nccl.so for the cuda device, which then moves the cpu
tensors too)."""
import os
import sys

BACKEND = sys.argv[2] if len(sys.argv) > 2 else "mpi"
os.environ["TESSERA_CONFIG"] = sys.argv[1]

import numpy as np  # noqa: E402

import tessera  # noqa: E402
import tessera.distributed as dist  # noqa: E402
from tessera.testing import assert_close  # noqa: E402

NP_DTYPES = {"float32": np.float32, "float64": np.float64, "int32": np.int32, "int64": np.int64,
             "float16": np.float16}
REDUCE = {dist.ReduceOp.SUM: lambda a: a.sum(0), dist.ReduceOp.PRODUCT: lambda a: a.prod(0),
          dist.ReduceOp.MIN: lambda a: a.min(0), dist.ReduceOp.MAX: lambda a: a.max(0),
          dist.ReduceOp.AVG: lambda a: a.mean(0)}
checks = 0


def data(rank, shape, dtype, op=None):
    rng = np.random.default_rng(1000 + rank)
    if op == dist.ReduceOp.PRODUCT:
        v = rng.choice([-2, -1, 1, 2], size=shape)
    else:
        v = rng.integers(-4, 5, size=shape)
    return v.astype(NP_DTYPES[dtype])


def host(t):
    return np.array(t.to("cpu").numpy())


def expect(t, want, what):
    global checks
    checks += 1
    got = host(t)
    if not np.array_equal(got.astype(np.float64), np.asarray(want).astype(np.float64)):
        raise AssertionError(f"rank {dist.get_rank()}: {what}: got {got.ravel()[:8]}, expected "
                             f"{np.asarray(want).ravel()[:8]}")


def on(dev, a, noncontiguous=False):
    """a as a tensor on dev; non-contiguous: the transpose of a contiguous buffer."""
    if noncontiguous and a.ndim == 2:
        return tessera.tensor(np.ascontiguousarray(a.T), device=dev).t()
    return tessera.tensor(a, device=dev)


def collectives(dev, dtype, noncontiguous):
    rank, n = dist.get_rank(), dist.get_world_size()
    shape = (3, 5)
    for op, ref in REDUCE.items():
        if op == dist.ReduceOp.AVG and not dtype.startswith("float"):
            continue
        all_data = np.stack([data(r, shape, dtype, op) for r in range(n)])
        t = on(dev, all_data[rank], noncontiguous)
        dist.all_reduce(t, op=op)
        expect(t, ref(all_data.astype(np.float64)), f"all_reduce {op} {dtype} {dev}")
        t = on(dev, all_data[rank], noncontiguous)
        dist.reduce(t, dst=n - 1, op=op)
        expect(t, ref(all_data.astype(np.float64)) if rank == n - 1 else all_data[rank], f"reduce {op} {dtype}")
        # reduce_scatter_tensor: input (n*3, 5) -> output (3, 5), into a sliced output.
        big = np.stack([data(r, (n * 3, 5), dtype, op) for r in range(n)])
        out_buf = tessera.zeros((3, 10), dtype=getattr(tessera, dtype), device=dev)
        out = out_buf[:, ::2]
        dist.reduce_scatter_tensor(out, on(dev, big[rank]), op=op)
        expect(out, ref(big.astype(np.float64))[rank * 3:(rank + 1) * 3], f"reduce_scatter_tensor {op} {dtype}")
        expect(out_buf[:, 1::2], np.zeros((3, 5)), "reduce_scatter_tensor leaves the rest of the buffer")
    all_data = np.stack([data(r, shape, dtype) for r in range(n)])
    t = on(dev, all_data[rank], noncontiguous)
    dist.broadcast(t, src=0)
    expect(t, all_data[0], f"broadcast {dtype}")
    out = tessera.empty((n * 3, 5), dtype=getattr(tessera, dtype), device=dev)
    dist.all_gather_into_tensor(out, on(dev, all_data[rank], noncontiguous))
    expect(out, all_data.reshape(n * 3, 5), f"all_gather_into_tensor {dtype}")
    lst = [tessera.empty(shape, dtype=getattr(tessera, dtype), device=dev) for _ in range(n)]
    dist.all_gather(lst, on(dev, all_data[rank], noncontiguous))
    for r in range(n):
        expect(lst[r], all_data[r], f"all_gather[{r}] {dtype}")
    a2a = np.stack([data(r, (n * 2, 5), dtype) for r in range(n)])
    out = tessera.empty((n * 2, 5), dtype=getattr(tessera, dtype), device=dev)
    dist.all_to_all_single(out, on(dev, a2a[rank], noncontiguous))
    expect(out, np.concatenate([a2a[j][rank * 2:(rank + 1) * 2] for j in range(n)]), f"all_to_all_single {dtype}")


def main():
    dist.init_process_group(backend=BACKEND)
    rank, n = dist.get_rank(), dist.get_world_size()
    assert dist.is_initialized() and 0 <= rank < n
    for dev in ("cpu", "cuda:0"):
        for dtype in ("float32", "float64", "int32", "int64", "float16"):
            for nc in (False, True):
                collectives(dev, dtype, nc)
    # async_op: a Work to wait on.
    t = tessera.ones(1000) * (rank + 1)
    work = dist.all_reduce(t, async_op=True)
    assert isinstance(work, dist.Work)
    work.wait()
    assert work.is_completed()
    assert_close(t, tessera.full((1000,), float(n * (n + 1) // 2)))
    # A Work dropped without wait() still completes (as torch's).
    t = tessera.ones(64)
    dist.all_reduce(t, async_op=True)
    assert_close(t, tessera.full((64,), float(n)))
    # point to point around a ring.
    t = tessera.full((7,), float(rank))
    got = tessera.empty(7)
    req = dist.isend(t, (rank + 1) % n)
    assert dist.recv(got, (rank - 1) % n) == (rank - 1) % n
    req.wait()
    assert_close(got, tessera.full((7,), float((rank - 1) % n)))
    # new_group: the even ranks.
    evens = list(range(0, n, 2))
    g = dist.new_group(evens)
    if rank in evens:
        assert dist.get_world_size(g) == len(evens) and dist.get_rank(g) == evens.index(rank)
        t = tessera.tensor([float(rank)])
        dist.all_reduce(t, group=g)
        assert t.item() == float(sum(evens))
        dist.destroy_process_group(g)
    else:
        assert g is dist.GroupMember.NON_GROUP_MEMBER
    # Errors are Python exceptions with the C message.
    try:
        dist.all_gather_into_tensor(tessera.empty(3), tessera.empty(2))
        raise AssertionError("a wrong all_gather output was accepted")
    except RuntimeError as e:
        assert "all_gather on rank" in str(e), e
    dist.barrier()
    dist.destroy_process_group()
    assert not dist.is_initialized()
    print(f"rank {rank} of {n}: {checks} checks passed")


if __name__ == "__main__":
    main()
