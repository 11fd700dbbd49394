/* SPDX-License-Identifier: Apache-2.0 */
/* bad_init_silent.so: fails without calling set_error (against the rules). */
#include "tessera/plugin.h"

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  (void)args;
  (void)out;
  return TSR_ERR_DEVICE;
}
