/* SPDX-License-Identifier: Apache-2.0 */
/* bad_undefined_symbol.so: needs a function no library defines, so that
 * dlopen(RTLD_NOW) fails and the dynamic loader's own text must show. Built
 * without --no-undefined. */
#include "tessera/plugin.h"

extern int tsr_test_function_nobody_defines(void);

TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args, const tsr_plugin_api** out) {
  (void)args;
  (void)out;
  return tsr_test_function_nobody_defines() ? TSR_OK : TSR_ERR_INTERNAL;
}
