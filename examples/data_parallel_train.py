#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Data parallel training: examples/train_mlp.py's MLP (64-16-16-10) on
scikit-learn's digits, in float64, with tessera.nn.parallel.
DistributedDataParallel across the ranks of mpirun, then compared with one
process training on the whole batches.

The data and the model are train_mlp.py's (load_digits split 80/20 by
train_test_split(random_state=0, stratified), standardised; torch's
initialisation from tessera.manual_seed(--seed)), in float64. Training is
SGD with momentum, without randomness: step s takes the global batch of
--batch rows s*batch .. s*batch+batch-1 of the training set, read
cyclically; rank r takes the r-th of `world` equal slices of it. Each rank's
loss is the mean over its slice, so the mean over ranks of the gradients,
which DistributedDataParallel computes during backward, is the gradient of
the mean over the global batch: the single-process run's.

At the end every rank checks that its weights are rank 0's bit for bit,
and rank 0 trains the same model on the global batches in one process and
prints the largest relative difference of the weights (per tensor,
max|ddp - single| / max|single|), which must be below --tolerance (float64
rounding: the two sum the same terms in another order), and the test
accuracy, which must reach --min-accuracy.

Run from a source checkout after building, with a world size that divides --batch:
    TESSERA_CONFIG=build/share/tessera/configs/mpi.json PYTHONPATH=bindings/python \\
        mpirun -np 2 /usr/bin/python3 examples/data_parallel_train.py [--epochs 20]
(as root, Open MPI also wants OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1).
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_mlp import SIZES, load_digits_split, make_model  # noqa: E402

import tessera  # noqa: E402
import tessera.distributed as dist  # noqa: E402
import tessera.nn.functional as F  # noqa: E402
import tessera.optim as optim  # noqa: E402
from tessera.nn.parallel import DistributedDataParallel  # noqa: E402


def global_batches(n, batch, steps):
    """The training-set rows of each step's global batch, read cyclically."""
    for s in range(steps):
        yield (s * batch + np.arange(batch)) % n


def train(model, X, y, args, shard=None):
    """SGD over the global batches; shard (rank, world): this rank's slice of each."""
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    n = X.shape[0]
    steps = args.epochs * (n // args.batch)
    for rows in global_batches(n, args.batch, steps):
        if shard is not None:
            rank, world = shard
            per = args.batch // world
            rows = rows[rank * per:(rank + 1) * per]
        index = tessera.as_tensor(rows)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(X[index]), y[index])
        loss.backward()
        optimizer.step()
    return steps


def accuracy(model, X, y):
    with tessera.no_grad():
        return (model(X).argmax(dim=1) == y).sum().item() / y.shape[0]


def flat_weights(module):
    return np.concatenate([p.detach().numpy().ravel() for p in module.parameters()])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=96, help="the global batch; the world size must divide it")
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--seed", type=int, default=0, help="tessera.manual_seed: the initial weights")
    parser.add_argument("--bucket-cap-mb", type=float, default=25)
    parser.add_argument("--tolerance", type=float, default=1e-10, help="largest relative weight difference allowed")
    parser.add_argument("--min-accuracy", type=float, default=0.95)
    args = parser.parse_args(argv)

    dist.init_process_group(backend="mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    if args.batch % world:
        raise SystemExit("--batch %d: the world size %d must divide it (equal slices)" % (args.batch, world))
    X_train, y_train, X_test, y_test = load_digits_split()
    X_train, X_test = (tessera.as_tensor(a, dtype=tessera.float64) for a in (X_train, X_test))
    y_train, y_test = tessera.as_tensor(y_train), tessera.as_tensor(y_test)

    tessera.manual_seed(args.seed)
    model = make_model("cpu").double()
    initial = {k: v.clone() for k, v in model.state_dict().items()}
    ddp = DistributedDataParallel(model, bucket_cap_mb=args.bucket_cap_mb)
    start = time.perf_counter()
    steps = train(ddp, X_train, y_train, args, shard=(rank, world))
    ddp_seconds = time.perf_counter() - start

    # Every rank ends with rank 0's weights, bit for bit.
    mine = tessera.as_tensor(flat_weights(model))
    zero = mine.clone()
    dist.broadcast(zero, src=0)
    if not np.array_equal(mine.numpy(), zero.numpy()):
        raise SystemExit("rank %d: weights differ from rank 0's after training" % rank)

    status = 0
    if rank == 0:
        single = make_model("cpu").double()
        single.load_state_dict(initial)
        start = time.perf_counter()
        train(single, X_train, y_train, args)
        single_seconds = time.perf_counter() - start
        worst = 0.0
        for a, b in zip(model.parameters(), single.parameters()):
            a, b = a.detach().numpy(), b.detach().numpy()
            worst = max(worst, float(np.abs(a - b).max() / np.abs(b).max()))
        acc = accuracy(model, X_test, y_test)
        print("digits, MLP %s in float64: %d ranks x %d rows per step, %d SGD steps; %d bucket(s)" %
              ("-".join(map(str, SIZES)), world, args.batch // world, steps, len(ddp._reducer.buckets)))
        print("DistributedDataParallel: %.2f s on rank 0; single process on the global batches: %.2f s" %
              (ddp_seconds, single_seconds))
        print("weights on every rank identical to rank 0's: yes")
        print("max relative weight difference against the single-process run: %.3g (tolerance %g)" %
              (worst, args.tolerance))
        print("test accuracy: %.4f (minimum %.2f)" % (acc, args.min_accuracy))
        if not worst < args.tolerance:
            print("FAILED: the weights differ from the single-process run's by more than the tolerance")
            status = 1
        if acc < args.min_accuracy:
            print("FAILED: the test accuracy is below the minimum")
            status = 1
    flag = tessera.tensor([status], dtype=tessera.int32)
    dist.all_reduce(flag, op=dist.ReduceOp.MAX)  # every rank exits with rank 0's verdict
    dist.destroy_process_group()
    return int(flag.item())


if __name__ == "__main__":
    sys.exit(main())
