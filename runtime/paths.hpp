// SPDX-License-Identifier: Apache-2.0
// Where the runtime finds its plugins and its default config (Note [Where
// things are found] in paths.cpp).
#pragma once

#include <string>
#include <vector>

namespace tessera::rt {

// The directory of the loaded libtessera.so (of the executable, when the
// runtime is linked statically, as in the white-box tests).
std::string library_dir();

// $TESSERA_PLUGIN_PATH's entries (colon-separated), then <library_dir>/tessera,
// then (white-box tests only, not libtessera.so) the build tree's plugin
// directory; duplicates removed.
std::vector<std::string> plugin_search_dirs();

// $TESSERA_CONFIG if set and non-empty; else the first existing of
// <library_dir>/../share/tessera/configs/default.json and (white-box tests
// only) the build tree's share/tessera/configs/default.json; else the first of those (so that the
// error about it names the expected place).
std::string default_config_path();

// Finds a plugin library. A value containing '/' is a path: absolute, or
// relative to base_dir. A bare file name is looked up in `dirs`, in order.
// Returns the absolute path found, or "" when none exists; then *tried (if non-NULL)
// says where it looked: the one path, or the directories joined by ", "
// ("(no plugin directories)" when `dirs` is empty).
std::string resolve_library(const std::string& library, const std::string& base_dir,
                            const std::vector<std::string>& dirs, std::string* tried);

}  // namespace tessera::rt
