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
from ._types import bool_, device, device_from

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


class _UnsupportedBool(BufferError, RuntimeError):
    """PyTorch raises RuntimeError here; the Array API asks BufferError."""


def to_dlpack(t, stream=None):
    """A "dltensor" capsule over t's memory (no copy)."""
    if t.dtype is bool_:
        # DLPack before 0.8, which PyTorch 1.13 and NumPy 1.24 speak, has no
        # bool (kDLBool is 0.8's, which NumPy 1.24 cannot import: it fails
        # with the capsule in hand); said as PyTorch says it, and as the
        # Array API asks (BufferError).
        raise _UnsupportedBool("Bool type is not supported by dlpack")
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


def from_dlpack(ext):
    """A tensor sharing the memory of any DLPack producer (an object with
    __dlpack__, or a legacy "dltensor" capsule)."""
    if hasattr(ext, "__dlpack__"):
        if isinstance(ext, Tensor):
            return ext._alias()
        dev_type, _ = ext.__dlpack_device__()
        _check_import_device(dev_type)
        capsule = ext.__dlpack__(stream=None) if dev_type != kDLCUDA else ext.__dlpack__(stream=1)
    else:
        capsule = ext
    # _C.from_dlpack refuses, with the capsule still the producer's, a device
    # or dtype tessera has none for; it waits for a CUDA producer's queued work
    # (Note [DLPack streams]) before taking the capsule over.
    owner = _Import()
    t = _C.from_dlpack(capsule, owner)
    _imports[next(_import_keys)] = owner
    return t


late.to_dlpack, late.dlpack_device = to_dlpack, dlpack_device  # Note [Layers of the package]
