# SPDX-License-Identifier: Apache-2.0
"""The namespace of an older version of the standard, for
__array_namespace__(api_version=...).

Note [Older versions of the standard]
  tessera.array_api is the standard's 2025.12. A library written against an
  older version may ask for it by name, and gets the semantics of that
  version where they differ; everything else is the same function:
  - 2023.12 and 2024.12: broadcast_arrays and meshgrid return lists, and
    __array_namespace_info__().devices() a list (2025.12 made them tuples);
  - 2021.12 and 2022.12: the above, and sum, prod and linalg.trace give a
    float32 (complex64) array the default float (complex) dtype when no
    dtype is asked (2023.12 keeps the array's floating dtype).
  The functions added after a version stay in its namespace: a library of
  that version does not call them, and the standard forbids nothing extra.
  Each namespace is built once, a module whose attributes are the main
  namespace's with those few replaced."""
import types

from . import _info

VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
_cache = {}


def namespace(main, version):
    """main (the tessera.array_api module) as `version` (None: the newest)."""
    if version is None or version == main.__array_api_version__:
        return main
    if version not in VERSIONS:
        raise ValueError("unsupported Array API version %r: tessera.array_api has %s" % (version, ", ".join(VERSIONS)))
    ns = _cache.get(version)
    if ns is None:
        ns = _cache[version] = _build(main, version)
    return ns


def _listing(fn):
    def f(*args, **kwargs):
        return list(fn(*args, **kwargs))
    f.__name__, f.__doc__ = fn.__name__, fn.__doc__
    return f


class _InfoWithListedDevices(_info.__array_namespace_info__):
    def devices(self):
        return list(super().devices())


def _build(main, version):
    ns = types.ModuleType(main.__name__, main.__doc__)
    ns.__dict__.update({k: v for k, v in vars(main).items() if not k.startswith("__") or k == "__all__"})
    ns.__array_api_version__ = version
    ns.broadcast_arrays = _listing(main.broadcast_arrays)
    ns.meshgrid = _listing(main.meshgrid)
    ns.__array_namespace_info__ = _InfoWithListedDevices
    if version in ("2021.12", "2022.12"):
        from ._reduction_functions import _SUM, _PROD, _sum_like
        from .linalg import trace_with
        ns.sum = main._accepting_tensors(_sum_like(_SUM, "sum", widen_floats=True))
        ns.prod = main._accepting_tensors(_sum_like(_PROD, "prod", widen_floats=True))
        linalg = types.ModuleType(main.linalg.__name__, main.linalg.__doc__)
        linalg.__dict__.update({k: v for k, v in vars(main.linalg).items() if not k.startswith("__") or k == "__all__"})
        linalg.trace = main._accepting_tensors(trace_with(widen_floats=True))
        ns.linalg = linalg
    return ns
