// SPDX-License-Identifier: Apache-2.0
#include "paths.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace tessera::rt {

/* Note [Where things are found]
 *
 * The build tree mirrors the install tree (see the top-level CMakeLists.txt):
 *
 *     <prefix>/lib/libtessera.so
 *     <prefix>/lib/tessera/<name>.so                 plugins
 *     <prefix>/share/tessera/configs/default.json    the default config
 *
 * so the runtime finds everything relative to its own file, which it learns
 * from dladdr on one of its functions; nothing is hard-coded to an install
 * prefix and a relocated install keeps working. Two ways to override:
 * $TESSERA_PLUGIN_PATH (directories searched first) and $TESSERA_CONFIG (the
 * config to load). A config's relative library paths ("dir/x.so") resolve
 * against the config file's directory; bare names ("x.so") are searched.
 *
 * The white-box tests link the runtime statically, so "its own file" is the
 * test program in <build>/bin. For them only, the build tree's plugin
 * directory is compiled in as TESSERA_BUILD_PLUGIN_DIR (defined for the
 * tessera_internal library, never for libtessera.so: an install, moved or
 * not, must not load anything from the build tree); the build tree's
 * configs are found from it as <plugin_dir>/../../share/...
 */

namespace {

// Empty in libtessera.so (runtime/CMakeLists.txt compiles this file twice).
std::string build_plugin_dir() {
#ifdef TESSERA_BUILD_PLUGIN_DIR
  return TESSERA_BUILD_PLUGIN_DIR;
#else
  return {};
#endif
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::exists(p, ec) && !fs::is_directory(p, ec);
}

std::string normal(const fs::path& p) {
  std::string s = p.lexically_normal().string();
  if (s.empty()) s = ".";
  if (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

}  // namespace

std::string library_dir() {
  Dl_info info{};
  link_map* map = nullptr;
  fs::path file;
  if (dladdr1(reinterpret_cast<void*>(&library_dir), &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) != 0) {
    // The main program's link map has an empty name (dladdr then reports
    // argv[0], which may be relative to a former working directory).
    if (map != nullptr && map->l_name != nullptr && map->l_name[0] != '\0') file = map->l_name;
    else file = "/proc/self/exe";
  }
  std::error_code ec;
  if (!file.empty()) {
    fs::path real = fs::canonical(file, ec);
    if (!ec) return normal(real.parent_path());
  }
  const std::string plugins = build_plugin_dir();
  return plugins.empty() ? std::string(".") : normal(fs::path(plugins).parent_path());
}

std::vector<std::string> plugin_search_dirs() {
  std::vector<std::string> dirs;
  const auto add = [&](const std::string& d) {
    if (d.empty()) return;
    const std::string n = normal(d);
    for (const auto& existing : dirs)
      if (existing == n) return;
    dirs.push_back(n);
  };
  if (const char* env = std::getenv("TESSERA_PLUGIN_PATH")) {
    std::string s = env;
    size_t start = 0;
    while (start <= s.size()) {
      size_t colon = s.find(':', start);
      if (colon == std::string::npos) colon = s.size();
      add(s.substr(start, colon - start));
      start = colon + 1;
    }
  }
  add((fs::path(library_dir()) / "tessera").string());
  add(build_plugin_dir());
  return dirs;
}

std::string default_config_path() {
  if (const char* env = std::getenv("TESSERA_CONFIG"); env != nullptr && env[0] != '\0') return env;
  std::vector<std::string> candidates{normal(fs::path(library_dir()) / ".." / "share/tessera/configs/default.json")};
  if (const std::string plugins = build_plugin_dir(); !plugins.empty())
    candidates.push_back(normal(fs::path(plugins) / "../../share/tessera/configs/default.json"));
  for (const auto& c : candidates)
    if (is_file(c)) return c;
  return candidates.front();
}

std::string resolve_library(const std::string& library, const std::string& base_dir,
                            const std::vector<std::string>& dirs, std::string* tried) {
  // Results are absolute: dlopen searches the system's directories for a
  // name without '/', which "x.so" relative to an empty base_dir would be.
  std::error_code ec;
  if (library.find('/') != std::string::npos) {
    const fs::path p = library.front() == '/' ? fs::path(library) : fs::path(base_dir) / library;
    const std::string s = normal(fs::absolute(p, ec));
    if (is_file(s)) return s;
    if (tried) *tried = s;
    return {};
  }
  std::string looked;
  for (const auto& d : dirs) {
    const fs::path p = fs::path(d) / library;
    if (is_file(p)) return normal(fs::absolute(p, ec));
    looked += (looked.empty() ? "" : ", ") + d;
  }
  if (tried) *tried = looked.empty() ? "(no plugin directories)" : looked;
  return {};
}

}  // namespace tessera::rt
