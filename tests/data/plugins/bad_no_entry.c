/* SPDX-License-Identifier: Apache-2.0 */
/* bad_no_entry.so: exports a misspelt entry point and nothing else. */
#include "tessera/plugin.h"

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_initialise(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  (void)args;
  (void)out;
  return TSR_ERR_INTERNAL;
}
