# SPDX-License-Identifier: Apache-2.0
"""Run by ctest python.refcount under Debian's debug interpreter (issue 35):
100,000 mixed operations through tessera._C and the Python forms beneath
it (operators with tensors and numbers, reflected and in place,
comparisons, indexing, metadata, and errors of each kind), then the
interpreter's total reference count (sys.gettotalrefcount) must be where
it was, and no tensor memory may be left. A reference leaked or freed
twice per call would move it by thousands. Not a pytest module: pytest is
not installed for the debug interpreter."""
import gc
import sys

import tessera as ts

OPS_PER_ROUND = 50  # operations in one round of `mixed`, errors included


def mixed(rounds, a, b, big):
    for _ in range(rounds):
        a + b, a - 1.0, 2 * a, 3 - a, a / True, a // 2, a % 2.5, a ** 2, 2 ** a, -a
        a == b, a != 1, a < 3, 1 > a, a >= b, a.shape, a.ndim, a.dtype, a.device, a[1:]
        a[None, ::2], a[0], a[...], a[()], a[-1], big[1:, 0], big[:, ::2], big[0, 1], a + [1, 2, 3, 4], a * 2 ** 40
        c = a.clone()
        c += 1
        c *= b
        c -= 0.5
        c /= 2
        big.sum(), a.relu()
        for bad in (lambda: a + ts.ones(3), lambda: a + 2 ** 64, lambda: a + object(), lambda: a[9],
                    lambda: a[0, 0], lambda: a[::0], lambda: big[..., ...], lambda: ts.tensor([True]) - True,
                    lambda: c.__ior__(1.5), lambda: a[1.5]):
            try:
                bad()
            except (RuntimeError, TypeError, IndexError, ValueError):
                pass


def main():
    if not hasattr(sys, "gettotalrefcount"):
        print("refcount_check: not a debug interpreter (%s); run it under python3-dbg" % sys.executable)
        return 1
    a, b, big = ts.arange(4.0), ts.full((4,), 2.0), ts.ones(8, 6)
    mixed(100, a, b, big)  # caches filled (interned dtypes and devices, scalar caches)
    gc.collect()
    refs, memory = sys.gettotalrefcount(), ts.memory_stats()["in_use"]
    rounds = 100000 // OPS_PER_ROUND
    mixed(rounds, a, b, big)
    gc.collect()
    grown, left = sys.gettotalrefcount() - refs, ts.memory_stats()["in_use"] - memory
    print("refcount_check: %d operations; total references %+d, tensor memory %+d bytes" %
          (rounds * OPS_PER_ROUND, grown, left))
    # A few references may move with the interpreter's own caches; one per
    # operation would be 100,000.
    if abs(grown) > 100 or left != 0:
        print("refcount_check: FAILED")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
