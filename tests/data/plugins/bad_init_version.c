/* SPDX-License-Identifier: Apache-2.0 */
/* bad_init_version.so: the plugin itself declines the runtime's version. */
#include "tessera/plugin.h"

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  (void)out;
  args->host->set_error(TSR_ERR_VERSION, "bad_init_version: needs a runtime speaking ABI 1.9 or later");
  return TSR_ERR_VERSION;
}
