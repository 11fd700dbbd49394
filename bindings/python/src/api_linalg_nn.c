/* SPDX-License-Identifier: Apache-2.0 */
/* The module functions over linalg (tessera/tessera.h's tsr_linalg_*), the nn functions and losses (tessera/nn.h) and the optimizers (tessera/optim.h)
 * (Note [Module functions over the C API] in _C.h). */
#include "_C.h"

PyMethodDef tc_linalg_nn_methods[] = {
    {NULL, NULL, 0, NULL},
};
