# SPDX-License-Identifier: Apache-2.0
"""tessera.safetensors: weights on disk in Hugging Face's safetensors format,
with the names of the `safetensors` package's torch API (save_file,
load_file, save, load, safe_open), over tessera/safetensors.h.

Files are written atomically (a temporary file renamed over the
destination), tensors of any device and layout are written row-major, and a
file is checked whole before any tensor is made: a truncated or corrupt
file raises SafetensorError naming the file and what is wrong.
"""
import errno
import os
import tempfile

from . import _C
from ._lib import ERR_INDEX as _ERR_INDEX, ERR_INVALID_ARGUMENT as _ERR_INVALID_ARGUMENT, ERR_TYPE as _ERR_TYPE
from ._tensor import Tensor
from ._types import device_arg as _device_arg

__all__ = ["SafetensorError", "save_file", "load_file", "save", "load", "safe_open"]


class SafetensorError(RuntimeError):
    """A file the format refuses (as safetensors.SafetensorError), or one
    that cannot be read or written."""


# A refused file or dtype is a SafetensorError; a missing name a KeyError.
# (The _C functions take it as `errors`: _lib.error's message, raised as the class mapped.)
_ERRORS = {_ERR_INVALID_ARGUMENT: SafetensorError, _ERR_TYPE: SafetensorError, _ERR_INDEX: KeyError}


def _check_metadata(metadata):
    if metadata is None:
        return [], []
    if not isinstance(metadata, dict):
        raise TypeError("metadata must be a dict of str to str, got %s" % type(metadata).__name__)
    for k, v in metadata.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise TypeError("metadata must be a dict of str to str; %r: %r is not" % (k, v))
    return list(metadata.keys()), list(metadata.values())


def save_file(tensors, filename, metadata=None):
    """Writes the dict `tensors` (str -> Tensor) to `filename` (str or
    os.PathLike), with `metadata` (str -> str) as the header's
    __metadata__. Replaces an existing file atomically."""
    if not isinstance(tensors, dict):
        raise TypeError("tensors must be a dict of str to Tensor, got %s" % type(tensors).__name__)
    for k, v in tensors.items():
        if not isinstance(k, str):
            raise TypeError("tensor names must be str, got %r" % (k,))
        if not isinstance(v, Tensor):
            raise TypeError("tensor %r is a %s, not a tessera.Tensor" % (k, type(v).__name__))
    names = list(tensors.keys())
    keys, values = _check_metadata(metadata)
    _C.safetensors_save(os.fsencode(filename), names, [tensors[n] for n in names], keys, values, _ERRORS)


def save(tensors, metadata=None):
    """The bytes save_file would write."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "tensors.safetensors")
        save_file(tensors, path, metadata)
        with open(path, "rb") as f:
            return f.read()


class safe_open:  # noqa: N801  (safetensors.safe_open)
    """A checked file: keys() in data order, get_tensor(name) on `device`,
    metadata() (None when the file has none). A context manager; the file's
    bytes are held until it closes (or the object is collected)."""

    def __init__(self, filename, framework="pt", device="cpu", *, _data=None):
        self._handle = None  # the tsr_safetensors*, a C object that frees it when collected
        if framework not in ("pt", "tessera", "numpy", "np"):
            raise ValueError("framework %r is not supported; use 'pt' (tessera tensors)" % (framework,))
        self._device = _device_arg(device)
        if _data is not None:
            self._handle = _C.safetensors_open_memory(_data, "<bytes>", _ERRORS)
        else:
            path = os.fsencode(filename)
            if not os.path.exists(path):
                raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), filename)
            self._handle = _C.safetensors_open(path, _ERRORS)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def close(self):
        if self._handle is not None:
            _C.safetensors_free(self._handle)
            self._handle = None

    def _open_handle(self):
        if self._handle is None:
            raise SafetensorError("the file is closed")
        return self._handle

    def keys(self):
        h = self._open_handle()
        return [_C.safetensors_name_at(h, i) for i in range(_C.safetensors_count(h))]

    def get_tensor(self, name):
        return _C.safetensors_get(self._open_handle(), name, self._device, _ERRORS)

    def metadata(self):
        h = self._open_handle()
        n = _C.safetensors_metadata_count(h)
        if n == 0:
            return None
        keys = [_C.safetensors_metadata_key_at(h, i) for i in range(n)]
        return {k: _C.safetensors_metadata_get(h, k) for k in keys}


def load_file(filename, device="cpu"):
    """{name: Tensor on `device`} of the file, in the order of its data."""
    with safe_open(filename, device=device) as f:
        return {name: f.get_tensor(name) for name in f.keys()}


def load(data):
    """{name: Tensor} from a file's bytes (on the cpu)."""
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("data must be bytes, got %s" % type(data).__name__)
    with safe_open(None, _data=bytes(data)) as f:
        return {name: f.get_tensor(name) for name in f.keys()}
