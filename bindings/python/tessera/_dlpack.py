# SPDX-License-Identifier: Apache-2.0
"""DLPack both ways: Tensor.__dlpack__ / __dlpack_device__ and from_dlpack().

Note [DLPack ownership]
  Export: _C.to_dlpack builds the DLManagedTensor in C (Note [DLPack in C]
  in src/api_interop.c): the capsule's deleter holds a Tensor on the
  exported handle (which holds the storage alive) until the consumer calls
  it (after renaming the capsule "used_dltensor"), or until the capsule is
  collected unconsumed (its destructor then calls it).
  Import: _C.from_dlpack renames the capsule "used_dltensor" (we own the
  managed tensor from then on) and wraps its memory with
  tsr_from_external, whose deleter calls the producer's deleter once the
  storage's last view goes. DLPack counts strides in elements, as tessera
  does. _exports and _imports name, weakly, the owners the C side holds for
  each export and import alive, for inspection.

Note [DLPack devices]
  DLPack's device types are a fixed list (kDLCPU 1, kDLCUDA 2, ..., kDLExt 12
  for "anything else"); tessera's cpu (1) and cuda (2) share those numbers,
  while a plugin's own device type gets a number >= TSR_DEVICE_DYNAMIC_BASE
  (64) at load time, which means nothing to DLPack. So:
    - the cpu, and any device whose memory the host can address
      (tsr_device_is_host_accessible): kDLCPU, device_id 0; its data pointer
      is a host address any CPU consumer (NumPy, PyTorch) may read;
    - cuda: kDLCUDA with the device's index;
    - any other plugin device: kDLExt with its index. __dlpack__ refuses
      such a tensor (no consumer could address its memory), and
      from_dlpack accepts kDLCPU and kDLCUDA only.

Note [DLPack versions]
  Both capsule kinds are spoken. A consumer that passes max_version with a
  major of 1 or more gets DLPack 1.x's "dltensor_versioned" capsule
  (DLManagedTensorVersioned, built by the C API's tsr_to_dlpack_versioned:
  Note [DLPack 1.x in C] in src/api_interop.c); any other call, as NumPy
  1.24's and PyTorch 1.13's, gets DLPack 0.x's "dltensor". bool goes out
  as kDLBool in both (DLPack 0.8's code, which the Array API 2023.12 asks
  of a producer called without max_version); NumPy 1.24 and PyTorch 1.13
  speak DLPack 0.6/0.7 and refuse it themselves ("Unsupported dtype in
  DLTensor", "Unsupported code 6"), and the capsule they leave unconsumed
  frees the export. copy=True always copies (IS_COPIED set in a
  versioned capsule), copy=False never does (BufferError where it would
  have to, as for another device), dl_device another DLPack device than
  the tensor's: a copy to (kDLCPU, 0) or (kDLCUDA, N) when that device is
  loaded, BufferError otherwise. from_dlpack asks for a versioned capsule
  first (max_version=(1, 0)) and calls __dlpack__ again without the
  keyword on TypeError, as the standard tells consumers to; it accepts
  both kinds, and bare capsules of both kinds. A read-only versioned
  capsule is imported as a copy (Tessera has no read-only tensors: Note
  [Importing DLPack 1.x] in tessera/dlpack_exchange.h), so the producer's
  memory is never written through Tessera. What cannot be exchanged (a
  major version other than 1, a malformed tensor, a device or dtype
  Tessera has none for) raises BufferError (a RuntimeError too, as PyTorch
  raises there).

Note [DLPack streams]
  A CUDA tensor's memory may still be written by queued kernels: the
  producer's, when we import, and ours (on the plugin's own non-blocking
  stream, which the consumer's stream is not ordered with), when we export.
  Both directions wait for the device (tsr_synchronize, cudaDeviceSynchronize:
  every stream's queued work) before the memory changes hands, unless the
  consumer passes stream=-1 ("no synchronisation"). That costs a device
  synchronisation per exchange, and never hands over half-written data.
"""
import itertools
import weakref

from . import _C
from ._tensor import Tensor, late
from ._lib import ERR_INVALID_ARGUMENT, ERR_TYPE
from ._types import device, device_arg, device_from

# DLDeviceType (Note [DLPack devices])
kDLCPU, kDLCUDA, kDLExt = 1, 2, 12
_TSR_DEVICE_CPU, _TSR_DEVICE_CUDA = 1, 2  # tessera/device.h

_exports = weakref.WeakValueDictionary()  # key -> the Tensor an export's deleter holds
_keys = itertools.count(1)
_imports = weakref.WeakValueDictionary()  # key -> the _Import token an import's deleter holds
_import_keys = itertools.count(1)


class _Import:
    """What an imported storage holds beside the producer's tensor (for _imports)."""
    __slots__ = ("__weakref__",)


def dlpack_device(dev):
    """(DLPack device type, device id) for a tensor's device (Note [DLPack
    devices]): a tessera.device, or a tsr_device's (type, index) pair (a
    tuple, or an object with .type and .index codes)."""
    if type(dev) is not device:
        dev = device_from(*dev) if isinstance(dev, tuple) else device_from(dev.type, dev.index)
    type_code, index = dev._pair()
    if type_code == _TSR_DEVICE_CPU or _C.device_is_host_accessible(dev):
        return (kDLCPU, 0)
    if type_code == _TSR_DEVICE_CUDA:
        return (kDLCUDA, index)
    return (kDLExt, index)


class _Refused(BufferError, RuntimeError):
    """What cannot be exchanged: the Array API's BufferError, PyTorch's RuntimeError."""


_ERR_UNSUPPORTED, _ERR_DEVICE = 5, 7  # tessera/status.h
# How the versioned C calls' failures raise (_C's `errors`; others: _lib.error's).
_REFUSED = {ERR_INVALID_ARGUMENT: _Refused, ERR_TYPE: _Refused, _ERR_UNSUPPORTED: _Refused, _ERR_DEVICE: _Refused}
_COPY_CODES = {None: 0, True: 1, False: 2}  # tsr_dlpack_copy


def _versioned(max_version):
    """Whether a consumer's max_version asks for a versioned capsule."""
    if max_version is None:
        return False
    try:
        major, _ = max_version
        return int(major) >= 1
    except (TypeError, ValueError):
        raise TypeError("max_version must be a (major, minor) tuple of ints or None, not %r"
                        % (max_version,)) from None


def _target_device(t, dl_device):
    """The tessera device to export on for the consumer's dl_device (None:
    the tensor's own), or BufferError (Note [DLPack versions])."""
    if dl_device is None:
        return None
    try:
        dl_type, dl_id = (int(v) for v in dl_device)
    except (TypeError, ValueError):
        raise TypeError("dl_device must be a (device type, device id) pair, not %r" % (dl_device,)) from None
    if (dl_type, dl_id) == tuple(dlpack_device(t.device)):
        return None
    if dl_type == kDLCPU:
        return device("cpu")
    if dl_type == kDLCUDA:
        return device("cuda", dl_id)
    raise BufferError("__dlpack__: dl_device=%r cannot be exported to: tessera exports to kDLCPU (1) and "
                      "kDLCUDA (2) devices" % ((dl_type, dl_id),))


def to_dlpack(t, stream=None, max_version=None, dl_device=None, copy=None):
    """A DLPack capsule of t (Note [DLPack versions]): "dltensor_versioned"
    when max_version's major is 1 or more, else "dltensor"; over t's memory
    unless copy=True or dl_device asks for a copy."""
    versioned = _versioned(max_version)
    if copy not in (None, True, False):
        raise TypeError("copy must be True, False or None, not %r" % (copy,))
    target = _target_device(t, dl_device)
    if versioned:
        dev = target if target is not None else t.device
        # The device's queued work is waited for first, unless the consumer said stream=-1 (Note [DLPack streams]).
        try:
            return _C.to_dlpack_versioned(t, _COPY_CODES[copy], dev.type != "cpu" and stream != -1, False, target,
                                          _REFUSED)
        except _Refused as e:
            if target is None:
                raise
            raise _Refused("__dlpack__: cannot export to dl_device=%r: %s" % (tuple(dl_device), e)) from None
    if target is not None or copy:
        if copy is False:
            raise BufferError("__dlpack__: the tensor is on %s; dl_device=%r needs a copy, and copy=False"
                              % (t.device, tuple(dl_device)))
        try:
            t = t.to(target) if target is not None else t.clone()
        except RuntimeError as e:
            raise BufferError("__dlpack__: cannot export to dl_device=%r: %s" % (tuple(dl_device), e)) from None
    # bool goes out as DLPack 0.8's kDLBool, in the 0.x capsule too (the
    # Array API 2023.12 asks every dtype of a consumer that passes no
    # max_version): a consumer of DLPack 0.6/0.7 (NumPy 1.24, torch 1.13)
    # refuses it itself, and the unconsumed capsule frees the export.
    dev = t.device
    dl_type, dl_id = dlpack_device(dev)
    if dl_type == kDLExt:
        # A plugin's own device whose memory the host cannot address (such as
        # "arena"): no consumer could read it.
        raise BufferError(f"a tensor on {dev} cannot be shared through DLPack: its memory is not "
                          "host-accessible and DLPack has no device type for it but kDLExt; copy it with "
                          ".cpu() first")
    owner = t._alias()  # the export's own Tensor on the handle, alive until the deleter runs
    # The device's queued work is waited for first, unless the consumer said stream=-1 (Note [DLPack streams]).
    capsule = _C.to_dlpack(owner, dl_type, dl_id, dev.type != "cpu" and stream != -1)
    _exports[next(_keys)] = owner
    return capsule


# ---- import ------------------------------------------------------------------------


def _check_import_device(dl_type):
    """Refuses, before the capsule changes hands, a DLPack device tessera has
    no device for (Note [DLPack devices])."""
    if dl_type not in (kDLCPU, kDLCUDA):
        raise BufferError("from_dlpack: DLPack device type %d is not supported: tessera imports kDLCPU (1) "
                          "and kDLCUDA (2) memory" % dl_type)


def _capsule(ext, stream, host_copy):
    """ext.__dlpack__'s capsule: a versioned one asked for first, the
    legacy call on TypeError (Note [DLPack versions]); host_copy asks the
    producer for a copy on (kDLCPU, 0)."""
    keywords = {"dl_device": (kDLCPU, 0), "copy": True} if host_copy else {}
    try:
        return ext.__dlpack__(stream=stream, max_version=(1, 0), **keywords)
    except TypeError:
        if host_copy:
            raise BufferError("from_dlpack: the producer's memory is on a DLPack device tessera cannot import, "
                              "and it cannot copy it to the host (its __dlpack__ takes no dl_device)") from None
        return ext.__dlpack__(stream=stream)


def from_dlpack(ext, *, device=None, copy=None):
    """A tensor sharing the memory of any DLPack producer (an object with
    __dlpack__, or a bare "dltensor" or "dltensor_versioned" capsule).
    device: the tensor's device (another than the data's: a copy); copy
    (the Array API's): True always copies, False never (BufferError when
    it would have to), None copies only when needed."""
    if copy not in (None, True, False):
        raise TypeError("copy must be True, False or None, not %r" % (copy,))
    want = None if device is None else device_arg(device)
    if isinstance(ext, Tensor):
        t = ext._alias()
    elif hasattr(ext, "__dlpack__"):
        dev_type, _ = ext.__dlpack_device__()
        host_copy = dev_type not in (kDLCPU, kDLCUDA) and want is not None and want.type == "cpu" and \
            copy is not False
        if not host_copy:
            _check_import_device(dev_type)
        capsule = _capsule(ext, None if dev_type != kDLCUDA else 1, host_copy)
        t = _import(capsule)
        if host_copy:
            return t  # the producer's copy, ours alone
    else:
        t = _import(ext)
    if want is not None and want._pair() != t.device._pair():
        if copy is False:
            raise BufferError("from_dlpack: the data is on %s; device=%s needs a copy, and copy=False"
                              % (t.device, want))
        return t.to(want)
    return t.clone() if copy else t


def _import(capsule):
    # _C.from_dlpack refuses, with the capsule still the producer's, a device
    # or dtype tessera has none for; it waits for a CUDA producer's queued work
    # (Note [DLPack streams]) before taking the capsule over. A versioned
    # capsule is the runtime's to refuse once taken (Note [Importing DLPack 1.x]).
    owner = _Import()
    t = _C.from_dlpack(capsule, owner, _REFUSED)
    _imports[next(_import_keys)] = owner
    return t


late.to_dlpack, late.dlpack_device = to_dlpack, dlpack_device  # Note [Layers of the package]
