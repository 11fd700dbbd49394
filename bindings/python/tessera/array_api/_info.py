# SPDX-License-Identifier: Apache-2.0
"""__array_namespace_info__(): the standard's inspection API (2023.12, with
2024.12's "max dimensions"), for libraries that ask a namespace what it
has before they use it (array-api-compat, SciPy, scikit-learn)."""
from .. import _lib
from . import _dtypes

_KINDS = {
    "bool": _dtypes.boolean_dtypes,
    "signed integer": (_dtypes.int8, _dtypes.int16, _dtypes.int32, _dtypes.int64),
    "unsigned integer": (_dtypes.uint8, _dtypes.uint16, _dtypes.uint32, _dtypes.uint64),
    "integral": _dtypes.integer_dtypes,
    "real floating": _dtypes.real_floating_dtypes,
    "complex floating": _dtypes.complex_floating_dtypes,
    "numeric": _dtypes.numeric_dtypes,
}


class __array_namespace_info__:  # noqa: N801  (the standard's name)
    """Every device has every dtype and the same defaults."""

    def capabilities(self):
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": _lib.MAX_DIMS}

    def default_device(self):
        """The namespace's default device, with its index ("cuda" is cuda:0),
        as devices() lists it."""
        d = _dtypes.default_device()
        if d.index is None:
            d = next((e for e in self.devices() if e.type == d.type), d)
        return d

    def devices(self):
        """2025.12: a tuple (a list in 2023.12 and 2024.12)."""
        from .._functions import devices
        return tuple(devices())

    def default_dtypes(self, *, device=None):
        return {"real floating": _dtypes.default_float, "complex floating": _dtypes.default_complex,
                "integral": _dtypes.default_int, "indexing": _dtypes.default_int}

    def dtypes(self, *, device=None, kind=None):
        """A dict of name -> dtype: every dtype, or those of `kind` (one of the
        standard's kind names, or a tuple of them)."""
        if kind is None:
            chosen = _dtypes.all_dtypes
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            unknown = [k for k in kinds if k not in _KINDS]
            if unknown:
                raise ValueError("dtypes: unknown kind %r; the kinds are %s" % (unknown[0], ", ".join(_KINDS)))
            chosen = [d for d in _dtypes.all_dtypes if any(d in _KINDS[k] for k in kinds)]
        return {_dtypes.name(d): d for d in chosen}
