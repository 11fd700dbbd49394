# SPDX-License-Identifier: Apache-2.0
"""The ranks of test_ddp.py: DistributedDataParallel's cases run under
`mpirun -np N` (or alone: a world of one), each rank writing what it
measured to OUT_DIR/rank<r>.json; test_ddp.py asserts on them. Run as:
mpirun -np N python3 ddp_worker.py OUT_DIR (a config with mpi.so as the
cpu's communicator in TESSERA_CONFIG).

Every rank builds the same global batches; rank r takes the r-th of N
equal slices, and its reference is the same model trained in this process
on the whole batches."""
import json
import os
import sys

import numpy as np

import tessera
import tessera.distributed as dist
import tessera.nn as nn
from tessera.nn.parallel import DistributedDataParallel as DDP

ROWS = 12  # the global batch; the world size divides it


def model(seed=0):
    tessera.manual_seed(seed)
    return nn.Sequential(nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 6), nn.Tanh(), nn.Linear(6, 3)).double()


def copy_of(m):
    ref = model(seed=12345)
    ref.load_state_dict(m.state_dict())
    return ref


def batch(k):
    rng = np.random.default_rng(k)
    return rng.standard_normal((ROWS, 5)), rng.standard_normal((ROWS, 3))


def mine(a):
    rank, world = dist.get_rank(), dist.get_world_size()
    per = ROWS // world
    return tessera.tensor(a[rank * per:(rank + 1) * per])


def loss(m, x, y):
    return ((m(x) - y) ** 2).mean()


def rel_diff(a, b):
    """Largest per-tensor max|a - b| / max|b| over the parameters' .grad (or values)."""
    worst = 0.0
    for p, q in zip(a, b):
        p, q = p.numpy(), q.numpy()
        worst = max(worst, float(np.abs(p - q).max() / max(np.abs(q).max(), 1e-300)))
    return worst


def grads(m):
    return [p.grad for p in m.parameters()]


def same_as_rank0(tensors):
    flat = tessera.tensor(np.concatenate([t.detach().numpy().ravel() for t in tensors]))
    zero = flat.clone()
    dist.broadcast(zero, src=0)
    return bool(np.array_equal(flat.numpy(), zero.numpy()))


def case_broadcast():
    m = model(seed=100 + dist.get_rank())  # different weights on every rank
    expected = [p.detach().clone() for p in model(seed=100).parameters()]
    DDP(m)
    return {"same_as_rank0": same_as_rank0(list(m.parameters())),
            "rank0_values": rel_diff([p.detach() for p in m.parameters()], expected) == 0.0}


def case_grads():
    m = model()
    ref = copy_of(m)
    ddp = DDP(m, bucket_cap_mb=200 / 2 ** 20)  # 200 bytes: several buckets
    out = {"buckets": [b.params for b in ddp._reducer.buckets], "diffs": [], "grad_kept": []}
    for k in range(3):
        X, Y = batch(k)
        m.zero_grad()  # in place: .grad stays the same tensor
        before = [p.grad.data_ptr() if p.grad is not None else None for p in m.parameters()]
        loss(ddp, mine(X), mine(Y)).backward()
        ref.zero_grad(set_to_none=True)
        loss(ref, tessera.tensor(X), tessera.tensor(Y)).backward()
        out["diffs"].append(rel_diff(grads(m), grads(ref)))
        out["grad_kept"].append(all(b is None or b == p.grad.data_ptr() for b, p in zip(before, m.parameters())))
        out["events"] = [[kind, index] for kind, index, _ in ddp._reducer.events]
        out["hook_times"] = [t for kind, _, t in ddp._reducer.events if kind == "hook"]
        out["launch_times"] = [t for kind, _, t in ddp._reducer.events if kind == "launch"]
    out["same_as_rank0"] = same_as_rank0(grads(m))
    return out


def case_no_sync():
    m = model()
    ref = copy_of(m)
    ddp = DDP(m, bucket_cap_mb=200 / 2 ** 20)
    (X1, Y1), (X2, Y2) = batch(10), batch(11)
    with ddp.no_sync():
        loss(ddp, mine(X1), mine(Y1)).backward()
    launched_in_no_sync = sum(1 for e in ddp._reducer.events if e[0] == "launch")
    loss(ddp, mine(X2), mine(Y2)).backward()
    for X, Y in ((X1, Y1), (X2, Y2)):
        loss(ref, tessera.tensor(X), tessera.tensor(Y)).backward()
    return {"launched_in_no_sync": launched_in_no_sync, "diff": rel_diff(grads(m), grads(ref))}


def case_bucket_view():
    m = model()
    ref = copy_of(m)
    ddp = DDP(m, bucket_cap_mb=200 / 2 ** 20, gradient_as_bucket_view=True)
    opt = tessera.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    ref_opt = tessera.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    diffs = []
    for k in range(3):
        X, Y = batch(20 + k)
        opt.zero_grad()
        ref_opt.zero_grad()
        loss(ddp, mine(X), mine(Y)).backward()
        loss(ref, tessera.tensor(X), tessera.tensor(Y)).backward()
        diffs.append(rel_diff(grads(m), grads(ref)))
        opt.step()
        ref_opt.step()
    views = all(p.grad.data_ptr() == ddp._reducer.slots[i].data_ptr() for i, p in enumerate(m.parameters()))
    return {"diffs": diffs, "views": views, "weights": rel_diff([p.detach() for p in m.parameters()],
                                                               [p.detach() for p in ref.parameters()])}


def case_training():
    m = model()
    ref = copy_of(m)
    ddp = DDP(m)
    opt = tessera.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
    ref_opt = tessera.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for k in range(5):
        X, Y = batch(30 + k)
        opt.zero_grad()
        ref_opt.zero_grad()
        loss(ddp, mine(X), mine(Y)).backward()
        loss(ref, tessera.tensor(X), tessera.tensor(Y)).backward()
        opt.step()
        ref_opt.step()
    return {"weights": rel_diff([p.detach() for p in m.parameters()], [p.detach() for p in ref.parameters()]),
            "same_as_rank0": same_as_rank0(list(m.parameters()))}


class Tied(nn.Module):
    """One Linear applied twice (its parameters get gradients from two uses)."""

    def __init__(self):
        super().__init__()
        self.inner = nn.Linear(5, 5)
        self.head = nn.Linear(5, 3)

    def forward(self, x):
        return self.head(self.inner(self.inner(x).tanh()))


def case_shared():
    tessera.manual_seed(3)
    m = Tied().double()
    ref = Tied().double()
    ref.load_state_dict(m.state_dict())
    ddp = DDP(m)
    X, Y = batch(40)
    loss(ddp, mine(X), mine(Y)).backward()
    loss(ref, tessera.tensor(X), tessera.tensor(Y)).backward()
    return {"diff": rel_diff(grads(m), grads(ref))}


class WithUnused(nn.Module):
    def __init__(self):
        super().__init__()
        self.used = nn.Linear(5, 3)
        self.unused = nn.Linear(5, 3)

    def forward(self, x):
        return self.used(x)


def case_unused():
    tessera.manual_seed(4)
    ddp = DDP(WithUnused().double())
    X, Y = batch(50)
    loss(ddp, mine(X), mine(Y)).backward()
    try:
        ddp(mine(X))
    except RuntimeError as e:
        return {"error": str(e)}
    return {"error": None}


def case_state_dict():
    m = model()
    ddp = DDP(m)
    keys = list(ddp.state_dict().keys())
    other = DDP(model(seed=7))
    other.load_state_dict(ddp.state_dict())
    return {"keys": keys, "loaded": rel_diff([p.detach() for p in other.parameters()],
                                             [p.detach() for p in m.parameters()]) == 0.0,
            "module": ddp.module is m}


def main():
    dist.init_process_group(backend="mpi")
    result = {"rank": dist.get_rank(), "world": dist.get_world_size()}
    for name, fn in sorted(globals().items()):
        if name.startswith("case_"):
            result[name[5:]] = fn()
    with open(os.path.join(sys.argv[1], "rank%d.json" % result["rank"]), "w") as f:
        json.dump(result, f)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
