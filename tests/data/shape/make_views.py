#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes views.json: random chains of view operations run in PyTorch 1.13,
with the shape, strides, offset, contiguity and clone() strides after each
step, or the error it raised. test_shape replays every chain through
runtime/shape.hpp, so the test needs no torch.

Run with Debian's interpreter (it has torch 1.13):
    /usr/bin/python3 tests/data/shape/make_views.py
"""
import json
import math
import os
import random
import warnings

import torch

warnings.simplefilter("ignore")  # x.T on non-2-d tensors warns in 1.13
rng = random.Random(20231113)
CHAINS = 800


def rand_shape(max_dims=4, allow_zero=True):
    n = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 3, 4][: max_dims * 2 + 2])
    lo = 0 if allow_zero and rng.random() < 0.08 else 1
    return [rng.randint(lo, 4) for _ in range(min(n, max_dims))]


def factorize(numel):
    """A random shape with the given numel (0-4 dims)."""
    if numel == 0:
        shape = rand_shape()
        if 0 not in shape:
            shape.append(0)
        rng.shuffle(shape)
        return shape
    shape, rest = [], numel
    for _ in range(rng.randint(0, 3)):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        d = rng.choice(divisors)
        shape.append(d)
        rest //= d
    if rest != 1 or not shape or rng.random() < 0.3:
        shape.append(rest)
    if rng.random() < 0.2:
        shape.insert(rng.randint(0, len(shape)), 1)
    return shape


def rand_dim(ndim, extra=0):
    """A dim, usually valid (negative too), sometimes out of range."""
    n = max(ndim + extra, 1)
    if rng.random() < 0.08:
        return rng.choice([n, -n - 1, n + 2])
    return rng.randint(-n, n - 1)


def make_base():
    """A tensor over arange(storage): contiguous, or any in-bounds strided layout."""
    if rng.random() < 0.5:
        shape = rand_shape()
        storage = math.prod(shape) + rng.choice([0, 0, 3])
        offset = storage - math.prod(shape)
        strides = list(torch.empty(shape).stride())
    else:
        shape = rand_shape(allow_zero=False)
        perm = list(range(len(shape)))
        rng.shuffle(perm)
        strides = [0] * len(shape)
        step = rng.choice([1, 1, 2])
        for d in reversed(perm):
            strides[d] = step
            step *= shape[d] + rng.choice([0, 0, 1])
        if strides and rng.random() < 0.15:
            strides[rng.randrange(len(strides))] = 0
        offset = rng.randint(0, 3)
        extent = offset + sum((s - 1) * t for s, t in zip(shape, strides)) + 1
        storage = extent + rng.randint(0, 2)
    return storage, shape, strides, offset


def rand_step(x, storage):
    """One (op, args) for x, drawn to be mostly valid."""
    nd, shape = x.dim(), list(x.shape)
    ops = ["transpose", "permute", "slice", "select", "unsqueeze", "squeeze", "squeeze_all", "expand", "view",
           "flatten", "as_strided", "T"]
    op = rng.choice(ops)
    if op == "transpose":
        return op, [rand_dim(nd), rand_dim(nd)]
    if op == "permute":
        dims = list(range(nd))
        rng.shuffle(dims)
        dims = [d - nd if rng.random() < 0.3 else d for d in dims]
        r = rng.random()
        if r < 0.05 and dims:
            dims[0] = dims[-1]
        elif r < 0.1:
            dims.append(0)
        return op, dims
    if op == "slice":
        def bound():
            r = rng.random()
            if r < 0.25:
                return None
            if r < 0.3:
                return rng.choice([2**62, -2**62, 100, -100])
            return rng.randint(-6, 6)
        step = rng.choice([1, 1, 2, 2, 3, 5]) if rng.random() > 0.04 else rng.choice([0, -1])
        return op, [rand_dim(nd), bound(), bound(), step]
    if op == "select":
        dim = rand_dim(nd)
        if nd == 0:
            return op, [dim, 0]
        size = shape[dim] if -nd <= dim < nd else 3
        index = rng.randint(-size - 1, size) if rng.random() < 0.15 else rng.randint(-size, max(size - 1, -size))
        return op, [dim, index]
    if op == "unsqueeze":
        return op, [rand_dim(nd, 1)]
    if op == "squeeze":
        return op, [rand_dim(nd)]
    if op == "squeeze_all" or op == "T":
        return op, []
    if op == "expand":
        sizes = []
        for s in shape:
            r = rng.random()
            if r < 0.3:
                sizes.append(-1)
            elif s == 1 and r < 0.8:
                sizes.append(rng.randint(0, 4))
            elif r < 0.95:
                sizes.append(s)
            else:
                sizes.append(rng.choice([s + 1, -2]))
        lead = [rng.randint(1, 3) for _ in range(rng.choice([0, 0, 1, 2]))]
        if lead and rng.random() < 0.05:
            lead[0] = -1
        if shape and rng.random() < 0.03:
            sizes = sizes[1:]
        return op, lead + sizes
    if op == "view":
        numel = x.numel()
        if rng.random() < 0.35:
            return op, [-1]
        sizes = factorize(numel)
        r = rng.random()
        if r < 0.3 and sizes:
            sizes[rng.randrange(len(sizes))] = -1
        elif r < 0.36:
            sizes.append(rng.choice([2, 5, -1]))
            sizes.append(-1)
        elif r < 0.42:
            sizes = [s + 1 for s in sizes]
        return op, sizes
    if op == "flatten":
        n = max(nd, 1)
        a, b = rand_dim(nd), rand_dim(nd)
        valid = -n <= a < n and -n <= b < n
        if valid and a % n > b % n and rng.random() < 0.8:
            a, b = b, a  # mostly start <= end
        return op, [a, b]
    # as_strided over the current storage
    n = rng.randint(0, 3)
    sizes = [rng.randint(0 if rng.random() < 0.1 else 1, 4) for _ in range(n)]
    strides = [rng.randint(0, 5 if storage > 20 else 2) for _ in range(n)]
    need = sum((s - 1) * t for s, t in zip(sizes, strides)) + 1 if 0 not in sizes else 0
    offset = rng.randint(0, max(storage - need, 0)) if rng.random() < 0.85 else rng.randint(0, storage + 3)
    if n and rng.random() < 0.05:
        strides[0] = -1
    return op, [sizes, strides, offset]


def apply(x, op, args):
    """Runs one step; returns (result, copied)."""
    if op == "transpose":
        return x.transpose(*args), False
    if op == "permute":
        return x.permute(args), False
    if op == "slice":
        return torch.ops.aten.slice(x, *args), False
    if op == "select":
        dim, index = args
        nd = x.dim()
        if nd == 0 and dim in (-1, 0):
            return x[index], False  # Python indexing, for its messages
        if -nd <= dim < nd:
            return x[(slice(None),) * (dim % nd) + (index,)], False
        return x.select(dim, index), False
    if op == "unsqueeze":
        return x.unsqueeze(*args), False
    if op == "squeeze":
        return x.squeeze(*args), False
    if op == "squeeze_all":
        return x.squeeze(), False
    if op == "T":
        return x.T, False
    if op == "expand":
        return x.expand(args), False
    if op == "view":
        return x.view(args), False
    if op == "flatten":
        r = x.flatten(*args)
        return r, r.storage().data_ptr() != x.storage().data_ptr()
    sizes, strides, offset = args
    return x.as_strided(sizes, strides, offset), False


def record(x):
    return {"shape": list(x.shape), "strides": list(x.stride()), "offset": x.storage_offset(),
            "contiguous": x.is_contiguous(), "clone_strides": list(x.clone().stride())}


def main():
    chains = []
    for _ in range(CHAINS):
        storage, shape, strides, offset = make_base()
        x = torch.arange(storage).as_strided(shape, strides, offset)
        base = {"storage": storage, "shape": shape, "strides": strides, "offset": offset}
        steps = []
        for _ in range(rng.randint(1, 6)):
            op, args = rand_step(x, storage)
            step = {"op": op, "args": args}
            try:
                y, copied = apply(x, op, args)
            except (RuntimeError, IndexError, ValueError) as e:
                step["error"] = str(e)
                step["error_type"] = type(e).__name__
                steps.append(step)
                break
            step.update(record(y))
            if copied:
                step["copied"] = True
                storage = y.numel()
            steps.append(step)
            x = y
        chains.append({"base": base, "steps": steps})
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "views.json")
    with open(path, "w") as f:
        f.write('{"torch_version": %s, "chains": [\n' % json.dumps(torch.__version__))
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in chains))
        f.write("\n]}\n")
    n_steps = sum(len(c["steps"]) for c in chains)
    n_err = sum(1 for c in chains for s in c["steps"] if "error" in s)
    print(f"wrote {len(chains)} chains, {n_steps} steps, {n_err} errors to {path}")


if __name__ == "__main__":
    main()
