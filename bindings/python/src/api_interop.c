/* SPDX-License-Identifier: Apache-2.0 */
/* The module functions over memory shared with others: host buffers, NumPy, DLPack, safetensors (tessera/safetensors.h) and collectives (tessera/distributed.h)
 * (Note [Module functions over the C API] in _C.h). */
#include "_C.h"

PyMethodDef tc_interop_methods[] = {
    {NULL, NULL, 0, NULL},
};
