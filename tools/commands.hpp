#pragma once

#include <string>

namespace tessera::tool {

struct Options {
  std::string config;  // empty: $TESSERA_CONFIG or the default
  std::string device;  // demo: one device only
  bool json = false;
};

int info(const Options& opts);
int demo(const Options& opts);

}  // namespace tessera::tool
