/* SPDX-License-Identifier: Apache-2.0 */
/* bad_null_api.so: reports success but gives no api. */
#include "tessera/plugin.h"

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  (void)args;
  *out = 0;
  return TSR_OK;
}
