#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes promotion.json: PyTorch 1.13's promote_types, can_cast and
result_type over Tessera's ten dtypes, so test_promotion needs no torch.

Run with Debian's interpreter (it has torch 1.13):
    /usr/bin/python3 tests/data/shape/make_promotion.py
"""
import itertools
import json
import os
import random

import torch

# Tessera's numbering (abi/include/tessera/dtype.h).
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8,
          torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool]
INDEX = {d: i for i, d in enumerate(DTYPES)}
# A Python number of each kind, and the dtype Tessera's Operand gives it.
PY_SCALARS = {torch.bool: True, torch.int64: 2, torch.float64: 1.5}


def make(kind, dtype):
    """An operand of torch.result_type: a 1-d tensor, a 0-d tensor or a Python number."""
    if kind == "tensor":
        return torch.ones(2, dtype=dtype)
    if kind == "zerodim":
        return torch.ones((), dtype=dtype)
    return PY_SCALARS[dtype]


def main():
    promote = [[INDEX[torch.promote_types(a, b)] for b in DTYPES] for a in DTYPES]
    can_cast = [[bool(torch.can_cast(a, b)) for b in DTYPES] for a in DTYPES]

    operands = [(k, d) for k in ("tensor", "zerodim") for d in DTYPES]
    operands += [("scalar", d) for d in PY_SCALARS]
    cases = []
    # Every ordered pair, Python numbers on either side or both.
    for (ka, da), (kb, db) in itertools.product(operands, operands):
        r = torch.result_type(make(ka, da), make(kb, db))
        cases.append({"ops": [[INDEX[da], ka], [INDEX[db], kb]], "result": INDEX[r]})

    # Three tensor operands: a structured op on meta tensors computes the
    # common dtype of its inputs by the same rule, without running a kernel.
    rng = random.Random(1913)
    tensor_kinds = [(k, d) for k, d in operands if k != "scalar"]
    triples = set()
    while len(triples) < 150:
        triples.add(tuple(rng.choice(tensor_kinds) for _ in range(3)))
    for triple in sorted(triples, key=str):
        args = [make(k, d).to("meta") for k, d in triple]
        try:
            r = torch.addcmul(*args).dtype
        except RuntimeError:
            continue  # addcmul refuses some dtypes (bool); not a promotion fact
        cases.append({"ops": [[INDEX[d], k] for k, d in triple], "result": INDEX[r]})

    out = {
        "torch_version": torch.__version__,
        "dtypes": [str(d).replace("torch.", "") for d in DTYPES],
        "promote_types": promote,
        "can_cast": can_cast,
        "result_type": cases,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "promotion.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(cases)} result_type cases to {path}")


if __name__ == "__main__":
    main()
