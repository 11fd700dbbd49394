// SPDX-License-Identifier: Apache-2.0
// bad_throws.so: a C++ entry point that lets an exception out (against the
// rules). The runtime must report it, not call destroy, and not crash.
#include <stdexcept>

#include "tessera/plugin.h"

extern "C" TSR_PLUGIN_EXPORT tsr_status tsr_plugin_init(const tsr_plugin_init_args* args,
                                                        const tsr_plugin_api** out) {
  (void)args;
  (void)out;
  throw std::runtime_error("bad_throws: init exploded");
}
