/* SPDX-License-Identifier: Apache-2.0 */
/* The module functions over autograd (tessera/autograd.h): grad mode, requires_grad, .grad, hooks, backward and grad
 * (Note [Module functions over the C API] in _C.h). */
#include "_C.h"

PyMethodDef tc_autograd_methods[] = {
    {NULL, NULL, 0, NULL},
};
