#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""What one small call costs from Python, for Tessera (its compiled
extension tessera._C and, where a call is still Python, ctypes), PyTorch and
NumPy, measured in one run, with issue 35's targets:

    PYTHONPATH=bindings/python TESSERA_LIBRARY=build/lib/libtessera.so \\
        /usr/bin/python3 bench/python_overhead.py [--json]

Each figure is the best of several timeit repeats (the least disturbed run),
divided by the number of calls: the full cost of one statement, including
creating its result and freeing it. Tensors are float32, on the CPU.
"""
import json
import sys
import timeit
import warnings

REPEATS = 7


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


def workloads():
    """(name, {library: (stmt, env)}, target): target is (ratio, reference
    library) for tessera <= ratio x reference, or (microseconds, None)."""
    import numpy as np
    import tessera
    import tessera.array_api as txp
    import torch
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy.array_api says it is experimental
        import numpy.array_api as nxp
    one = {"tessera": (tessera.ones(1), tessera.ones(1)), "torch": (torch.ones(1), torch.ones(1)),
           "numpy": (np.ones(1, dtype=np.float32), np.ones(1, dtype=np.float32))}
    square = {"tessera": tessera.ones(4, 4), "torch": torch.ones(4, 4), "numpy": np.ones((4, 4), dtype=np.float32)}
    grad = {"tessera": (tessera.ones(1, requires_grad=True), tessera.ones(1, requires_grad=True)),
            "torch": (torch.ones(1, requires_grad=True), torch.ones(1, requires_grad=True))}
    xp_args = {"tessera": (txp, txp.ones(1), txp.ones(1)), "numpy": (nxp, nxp.ones(1), nxp.ones(1))}
    pairs = lambda d: {lib: ("a + b", {"a": a, "b": b}) for lib, (a, b) in d.items()}  # noqa: E731
    return [
        ("a + b", pairs(one), (0.7, "numpy")),
        ("a + 1.0", {lib: ("a + 1.0", {"a": a}) for lib, (a, _) in one.items()}, (1.0, "numpy")),
        ("x[1:, ::2]", {lib: ("x[1:, ::2]", {"x": x}) for lib, x in square.items()}, (1.0, "numpy")),
        ("x.shape", {lib: ("x.shape", {"x": x}) for lib, x in square.items()}, (0.1, None)),
        ("x.dtype", {lib: ("x.dtype", {"x": x}) for lib, x in square.items()}, (0.1, None)),
        ("xp.add(a, b)", {lib: ("xp.add(a, b)", {"xp": xp, "a": a, "b": b}) for lib, (xp, a, b) in xp_args.items()},
         (1.0, "numpy")),
        ("a + b, requires_grad", pairs(grad), (0.5, "torch")),
        ("a.relu()", {lib: ("a.relu()", {"a": a}) for lib, (a, _) in one.items() if lib != "numpy"}, None),
    ]


def main():
    import numpy
    import torch
    rows = []
    for name, stmts, target in workloads():
        us = {lib: calibrated(stmt, env) for lib, (stmt, env) in stmts.items()}
        row = {"op": name, "tessera_us": us.get("tessera"), "torch_us": us.get("torch"), "numpy_us": us.get("numpy")}
        if target is not None:
            limit, reference = target
            if reference is None:
                row["target"] = "<= %.0f ns" % (limit * 1000)
                row["met"] = us["tessera"] <= limit
            else:
                row["ratio"] = us["tessera"] / us[reference]
                row["target"] = "<= %.1fx %s" % (limit, reference)
                row["met"] = row["ratio"] <= limit
        rows.append(row)
    if "--json" in sys.argv:
        print(json.dumps(rows))
        return 0
    print("One small call from Python, float32 on the CPU (best of %d, microseconds per call);" % REPEATS)
    print("torch %s, numpy %s" % (torch.__version__, numpy.__version__))
    print("%-22s %9s %9s %9s %8s  %-16s %s" % ("op", "tessera", "torch", "numpy", "ratio", "target", ""))
    fmt = lambda v: "%9.3f" % v if v is not None else "%9s" % "-"  # noqa: E731
    for r in rows:
        ratio = "%7.2fx" % r["ratio"] if "ratio" in r else "%8s" % "-"
        met = "" if "met" not in r else ("met" if r["met"] else "NOT met")
        print("%-22s %s %s %s %s  %-16s %s" % (r["op"], fmt(r["tessera_us"]), fmt(r["torch_us"]), fmt(r["numpy_us"]),
                                             ratio, r.get("target", ""), met))
    return 0


if __name__ == "__main__":
    sys.exit(main())
