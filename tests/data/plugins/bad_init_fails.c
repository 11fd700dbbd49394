/* SPDX-License-Identifier: Apache-2.0 */
/* bad_init_fails.so: declines, with a message, as a plugin whose hardware is
 * missing would. */
#include "tessera/plugin.h"

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  (void)out;
  args->host->set_error(TSR_ERR_INTERNAL, "bad_init_fails: the widget is not connected");
  return TSR_ERR_INTERNAL;
}
