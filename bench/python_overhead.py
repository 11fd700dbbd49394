#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Per-op overhead from Python: a + b on 1-element float32 tensors, for
Tessera (ctypes over the C API), PyTorch and NumPy, measured in one run.

    PYTHONPATH=bindings/python /usr/bin/python3 bench/python_overhead.py [--json]

Each figure is the best of several timeit repeats (the least disturbed run),
divided by the number of calls: the full cost of one `c = a + b`, including
creating the result and freeing it.
"""
import json
import sys
import timeit

REPEATS = 7
TARGET_US = 2.0  # the Tessera target from Python


def per_call_us(stmt, env, number):
    timer = timeit.Timer(stmt, globals=env)
    return min(timer.repeat(repeat=REPEATS, number=number)) / number * 1e6


def calibrated(stmt, env):
    """About 0.2 s per repeat whatever the machine."""
    number = 1000
    while True:
        t = timeit.Timer(stmt, globals=env).timeit(number)
        if t > 0.05:
            break
        number *= 4
    return per_call_us(stmt, env, max(int(number * 0.2 / t), 1))


def main():
    rows = []
    import tessera
    a, b = tessera.ones(1), tessera.ones(1)
    rows.append(("tessera", "a + b", calibrated("a + b", {"a": a, "b": b})))
    rows.append(("tessera", "a + 1.0", calibrated("a + 1.0", {"a": a})))
    rows.append(("tessera", "a.relu()", calibrated("a.relu()", {"a": a})))
    try:
        import torch
        torch.set_num_threads(1)
        ta, tb = torch.ones(1), torch.ones(1)
        rows.append(("torch " + torch.__version__, "a + b", calibrated("a + b", {"a": ta, "b": tb})))
        rows.append(("torch " + torch.__version__, "a + 1.0", calibrated("a + 1.0", {"a": ta})))
        rows.append(("torch " + torch.__version__, "a.relu()", calibrated("a.relu()", {"a": ta})))
    except ImportError:
        pass
    import numpy as np
    na, nb = np.ones(1, dtype=np.float32), np.ones(1, dtype=np.float32)
    rows.append(("numpy " + np.__version__, "a + b", calibrated("a + b", {"a": na, "b": nb})))
    rows.append(("numpy " + np.__version__, "a + 1.0", calibrated("a + 1.0", {"a": na})))

    if "--json" in sys.argv:
        print(json.dumps([{"library": lib, "op": op, "us_per_call": round(us, 3)} for lib, op, us in rows]))
    else:
        print("1-element float32 op from Python (best of %d, microseconds per call)" % REPEATS)
        print("%-22s %-10s %10s" % ("library", "op", "us/call"))
        for lib, op, us in rows:
            print("%-22s %-10s %10.3f" % (lib, op, us))
    tessera_add = rows[0][2]
    ok = tessera_add <= TARGET_US
    print("tessera a + b: %.3f us (target <= %.1f us): %s" % (tessera_add, TARGET_US, "met" if ok else "NOT met"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
