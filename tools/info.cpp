// SPDX-License-Identifier: Apache-2.0
#include <cstdio>

#include "commands.hpp"
#include "tessera/tessera.h"

namespace tessera::tool {

// Exit status: 0 the default device is available, 1 it is not, 2 the config
// could not be loaded.
int info(const Options& opts) {
  tsr_runtime_options ro{};
  ro.struct_size = TSR_RUNTIME_OPTIONS_STRUCT_SIZE;
  ro.config_path = opts.config.empty() ? nullptr : opts.config.c_str();
  tsr_runtime* rt = nullptr;
  if (tsr_runtime_create(&ro, &rt) != TSR_OK) {
    std::fprintf(stderr, "tessera: %s\n", tsr_last_error_message());
    return 2;
  }
  char* text = nullptr;
  int status = 2;
  if (tsr_runtime_describe(rt, opts.json ? 1 : 0, &text) == TSR_OK) {
    std::fputs(text, stdout);
    tsr_string_free(text);
    tsr_device device;
    int32_t available = 0;
    tsr_runtime_default_device(rt, &device, &available);
    status = available ? 0 : 1;
  } else {
    std::fprintf(stderr, "tessera: %s\n", tsr_last_error_message());
  }
  tsr_runtime_destroy(rt);
  return status;
}

}  // namespace tessera::tool
