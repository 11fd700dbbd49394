#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes promotion.json: promote_types, can_cast and result_type over
Tessera's 15 dtypes, so test_promotion needs neither torch nor NumPy.

PyTorch 1.13 gives every fact about its twelve dtypes (complex64 and
complex128 included, Note [Complex dtypes] in tessera/ops.h). uint16, uint32 and
uint64 (ABI 1.5) follow Note [Unsigned promotion] (runtime/promotion.hpp):
  - promote_types: NumPy 1.24's np.promote_types; NumPy has no bfloat16, so
    bfloat16 with a new unsigned dtype is read as float16 with it;
  - can_cast: PyTorch's category rule, asked of torch with uint8 standing in
    for the new dtypes (the rule looks at categories only);
  - result_type: PyTorch's category rule (model_result_type below) over the
    13 x 13 table. The model is first checked against torch.result_type on
    every case of the twelve dtypes, so it is PyTorch's rule, not a guess.

Run with Debian's interpreter (it has torch 1.13 and NumPy 1.24):
    /usr/bin/python3 tests/data/shape/make_promotion.py
"""
import itertools
import json
import os
import random

import numpy as np
import torch

# Tessera's numbering (abi/include/tessera/dtype.h); the new dtypes by name.
# None: a dtype torch 1.13 lacks (uint16/32/64, ABI 1.5).
TORCH = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8,
         torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool, None, None, None,
         torch.complex64, torch.complex128]
NAMES = [str(d).replace("torch.", "") for d in TORCH[:10]] + ["uint16", "uint32", "uint64", "complex64",
                                                              "complex128"]
IN_TORCH = [i for i, d in enumerate(TORCH) if d is not None]
INDEX = {d: i for i, d in enumerate(TORCH) if d is not None}
# torch's complex32 (float16's complex, which Tessera lacks) reads as complex64:
# float16 tensor * 1j is complex64 here.
INDEX[torch.complex32] = 13
F32, F64, I64, BOOL, C64, C128 = 0, 1, 8, 9, 13, 14
FLOATING = {0, 1, 2, 3}
COMPLEX = {C64, C128}
# A Python number of each kind, and the dtype Tessera's Operand gives it.
PY_SCALARS = {BOOL: True, I64: 2, F64: 1.5, C128: 1.5j}


def numpy_name(i):
    return "float16" if NAMES[i] == "bfloat16" else NAMES[i]


def promote(a, b):
    if TORCH[a] is not None and TORCH[b] is not None:
        return INDEX[torch.promote_types(TORCH[a], TORCH[b])]
    return NAMES.index(str(np.promote_types(numpy_name(a), numpy_name(b))))


def can_cast(a, b):
    stand_in = lambda i: TORCH[i] if TORCH[i] is not None else torch.uint8  # noqa: E731
    return bool(torch.can_cast(stand_in(a), stand_in(b)))


def category(d):
    return 0 if d == BOOL else 3 if d in COMPLEX else 2 if d in FLOATING else 1


def to_complex(d):
    """c10::toComplexType for the dtypes here (no complex32: complex64)."""
    return C128 if d in (F64, C128) else C64


def model_result_type(ops, table):
    """torch.result_type's rule: tensors with dims, then 0-d tensors, then
    Python numbers, each class counting only when its category is higher."""
    def fold(dtypes):
        r = None
        for d in dtypes:
            r = d if r is None else table[r][d]
        return r

    def combine(higher, lower):
        if higher is None:
            return lower
        if lower is None or category(lower) <= category(higher):
            return higher
        if category(lower) == 3:  # a complex class: a floating one keeps its precision
            return to_complex(higher) if category(higher) == 2 else lower
        return table[higher][lower] if category(higher) != 2 else higher

    dims = fold(d for d, k in ops if k == "tensor")
    zero = fold(d for d, k in ops if k == "zerodim")
    wrapped = fold(F32 if d in FLOATING else C64 if d in COMPLEX else d for d, k in ops if k == "scalar")
    tensors = combine(dims, zero)
    if wrapped is None:
        return tensors
    if tensors is None:
        return wrapped
    if category(wrapped) == 3 and category(tensors) == 2:
        return to_complex(tensors)
    return wrapped if category(wrapped) > category(tensors) else tensors


def make(kind, dtype):
    """An operand of torch.result_type: a 1-d tensor, a 0-d tensor or a Python number."""
    if kind == "tensor":
        return torch.ones(2, dtype=TORCH[dtype])
    if kind == "zerodim":
        return torch.ones((), dtype=TORCH[dtype])
    return PY_SCALARS[dtype]


def main():
    n = len(NAMES)
    table = [[promote(a, b) for b in range(n)] for a in range(n)]
    casts = [[can_cast(a, b) for b in range(n)] for a in range(n)]

    def operands(dtypes):
        ops = [(d, k) for k in ("tensor", "zerodim") for d in dtypes]
        return ops + [(d, "scalar") for d in PY_SCALARS]

    cases = []
    # Every ordered pair of torch's dtypes, Python numbers on either side or both: torch's answer.
    for (da, ka), (db, kb) in itertools.product(operands(IN_TORCH), repeat=2):
        r = INDEX[torch.result_type(make(ka, da), make(kb, db))]
        assert model_result_type([(da, ka), (db, kb)], table) == r, (da, ka, db, kb)
        cases.append({"ops": [[da, ka], [db, kb]], "result": r})

    # Three tensor operands: a structured op on meta tensors computes the
    # common dtype of its inputs by the same rule, without running a kernel.
    rng = random.Random(1913)
    tensor_kinds = [(d, k) for d, k in operands(IN_TORCH) if k != "scalar"]
    triples = set()
    while len(triples) < 150:
        triples.add(tuple(rng.choice(tensor_kinds) for _ in range(3)))
    for triple in sorted(triples, key=str):
        args = [make(k, d).to("meta") for d, k in triple]
        try:
            r = INDEX[torch.addcmul(*args).dtype]
        except RuntimeError:
            continue  # addcmul refuses some dtypes (bool); not a promotion fact
        assert model_result_type(list(triple), table) == r, triple
        cases.append({"ops": [[d, k] for d, k in triple], "result": r})

    # Every ordered pair with a new dtype on at least one side: the model.
    new_cases = 0
    for (da, ka), (db, kb) in itertools.product(operands(range(n)), repeat=2):
        if TORCH[da] is not None and TORCH[db] is not None:
            continue
        if ka == "scalar" and kb == "scalar":
            continue  # Python numbers only: no new dtype
        r = model_result_type([(da, ka), (db, kb)], table)
        cases.append({"ops": [[da, ka], [db, kb]], "result": r})
        new_cases += 1

    out = {
        "torch_version": torch.__version__,
        "numpy_version": np.__version__,
        "dtypes": NAMES,
        "promote_types": table,
        "can_cast": casts,
        "result_type": cases,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "promotion.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(cases)} result_type cases ({new_cases} with uint16/32/64) to {path}")


if __name__ == "__main__":
    main()
