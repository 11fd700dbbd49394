// SPDX-License-Identifier: Apache-2.0
// The config parser (runtime/config.cpp), against the corpus in
// tests/data/configs, plus the path helpers (runtime/paths.cpp) and
// format_tuple (runtime/layout.cpp).
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "config.hpp"
#include "error.hpp"
#include "layout.hpp"
#include "paths.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using namespace tessera::rt;

namespace {

const fs::path kConfigs = fs::path(test_paths::data_dir) / "configs";

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// The Error `body` throws; fails the test when it throws nothing or another type.
Error error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const Error& e) {
    return e;
  }
  FAIL("no tessera::rt::Error was thrown");
  return Error(TSR_OK, "");
}

std::vector<fs::path> files_with(const fs::path& dir, const std::string& ext) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// A scratch directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("tessera_test_config_" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  fs::path touch(const std::string& rel) const {
    fs::path p = path / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << "x";
    return p;
  }
};

}  // namespace

TEST_CASE("every bad config is refused with its expected message") {
  const auto configs = files_with(kConfigs / "bad", ".json");
  REQUIRE(configs.size() >= 20);
  for (const auto& cfg : configs) {
    INFO("config " << cfg.string());
    const fs::path expected_file = fs::path(cfg).replace_extension(".expected");
    REQUIRE(fs::exists(expected_file));
    const std::string expected = trim(read_text(expected_file));
    REQUIRE(!expected.empty());
    const Error e = error_of([&] { parse_config_file(cfg.string()); });
    CHECK(e.status() == TSR_ERR_CONFIG);
    const std::string message = e.what();
    CHECK_THAT(message, Catch::StartsWith("config " + cfg.string() + ": "));
    CHECK_THAT(message, Catch::Contains(expected));
  }
  // And no expectation without its config.
  for (const auto& exp : files_with(kConfigs / "bad", ".expected")) {
    INFO(exp.string());
    CHECK(fs::exists(fs::path(exp).replace_extension(".json")));
  }
}

TEST_CASE("a full config parses to the right structs") {
  const fs::path file = kConfigs / "good" / "full.json";
  const Config c = parse_config_file(file.string());
  CHECK(c.origin == file.string());
  CHECK(c.base_dir == (kConfigs / "good").lexically_normal().string());
  REQUIRE(c.plugins.size() == 3);

  const PluginConfig& cpu = c.plugins[0];
  CHECK(cpu.name == "cpu");
  CHECK(cpu.library == "cpu_tbb.so");
  CHECK(cpu.enabled);
  // Key order as written, compact.
  CHECK(cpu.options_json == R"({"threads":4,"arena":{"limit_mb":512,"name":"main"}})");
  CHECK(cpu.priority == -3);
  CHECK(cpu.fallback);
  CHECK(cpu.pointer == "/plugins/0");

  const PluginConfig& gpu = c.plugins[1];
  CHECK(gpu.name == "gpu0");
  CHECK(gpu.library == "../plugins/cuda.so");
  CHECK_FALSE(gpu.enabled);
  CHECK(gpu.options_json == "{}");
  CHECK(gpu.priority == 10);
  CHECK_FALSE(gpu.fallback);
  CHECK(gpu.pointer == "/plugins/1");

  // JSON Schema's "integer" admits 2.0.
  CHECK(c.plugins[2].priority == 2);
  CHECK(c.plugins[2].library == "/opt/tessera/lib/tessera/spare.so");

  CHECK(c.default_device == "cuda:0");
  CHECK(c.aliases == std::map<std::string, std::string>{{"gpu", "cuda:0"}, {"host", "cpu"}});
}

TEST_CASE("a minimal config takes the defaults") {
  const Config c = parse_config_file((kConfigs / "good" / "minimal.json").string());
  CHECK(c.plugins.empty());
  CHECK(c.default_device == "cpu");
  CHECK(c.aliases.empty());
}

TEST_CASE("non-ASCII names and options survive unchanged") {
  const Config c = parse_config_file((kConfigs / "good" / "unicode.json").string());
  REQUIRE(c.plugins.size() == 1);
  CHECK(c.plugins[0].name == "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb1\xd0\xbe\xd1\x80");  // прибор
  CHECK(c.plugins[0].options_json == "{\"label\":\"Ger\xc3\xa4t \xe2\x9c\x93\"}");
  CHECK(c.aliases.at("\xcf\x89") == "cpu");
}

TEST_CASE("the shipped configs parse") {
  const auto configs = files_with(fs::path(test_paths::source_dir) / "configs", ".json");
  size_t checked = 0;
  for (const auto& cfg : configs) {
    if (cfg.filename() == "schema.json") continue;
    INFO(cfg.string());
    const Config c = parse_config_file(cfg.string());
    CHECK(!c.plugins.empty());
    ++checked;
  }
  CHECK(checked >= 1);
}

TEST_CASE("an unreadable file names the file and the system's reason") {
  const std::string missing = (kConfigs / "no_such_config.json").string();
  Error e = error_of([&] { parse_config_file(missing); });
  CHECK(e.status() == TSR_ERR_CONFIG);
  CHECK(std::string(e.what()) == "config " + missing + ": cannot read file: No such file or directory");

  const std::string dir = (kConfigs / "good").string();
  e = error_of([&] { parse_config_file(dir); });
  CHECK(e.status() == TSR_ERR_CONFIG);
  CHECK(std::string(e.what()) == "config " + dir + ": cannot read file: Is a directory");
}

TEST_CASE("inline text is named by its origin and keeps the given base_dir") {
  const Config c = parse_config_text(R"({"plugins": [{"name": "a", "library": "x/a.so"}]})", "<inline config>", "/base");
  CHECK(c.origin == "<inline config>");
  CHECK(c.base_dir == "/base");
  const Error e = error_of([] { parse_config_text(R"({"plugins": 3})", "<inline config>", "/base"); });
  CHECK(std::string(e.what()) == "config <inline config>: /plugins: expected an array, got number 3");
}

TEST_CASE("a relative config path gets an absolute base_dir") {
  const fs::path file = kConfigs / "good" / "minimal.json";
  const fs::path rel = fs::relative(file, fs::current_path());
  REQUIRE(rel.is_relative());
  const Config c = parse_config_file(rel.string());
  CHECK(c.origin == rel.string());
  CHECK(c.base_dir == (kConfigs / "good").lexically_normal().string());
}

TEST_CASE("malformed JSON positions count lines and UTF-8 characters") {
  // 'x' is the 7th character of line 2 but its 8th byte ("ü" is two).
  Error e = error_of([] { parse_config_text("{\"plugins\": [],\n \"\xc3\xbc\": x}", "t", "/"); });
  CHECK_THAT(std::string(e.what()), Catch::StartsWith("config t: malformed JSON at line 2, column 7: "));
  // At the end of the input: just past the last character.
  e = error_of([] { parse_config_text("{\"plugins\": [", "t", "/"); });
  CHECK_THAT(std::string(e.what()), Catch::StartsWith("config t: malformed JSON at line 1, column 14: "));
}

TEST_CASE("a duplicate key deep inside options is reported with its pointer") {
  const Error e = error_of([] {
    parse_config_text(R"({"plugins": [{"name": "a", "library": "a.so", "options": {"x": [{}, {"k": 1, "k": 2}]}}]})",
                      "t", "/");
  });
  CHECK(std::string(e.what()) == "config t: /plugins/0/options/x/1: duplicate key \"k\"");
}

TEST_CASE("configs/schema.json describes the keys the parser accepts") {
  const auto schema = nlohmann::json::parse(read_text(fs::path(test_paths::source_dir) / "configs" / "schema.json"));
  CHECK(schema.at("$schema") == "https://json-schema.org/draft/2020-12/schema");
  const auto keys_of = [](const nlohmann::json& props) {
    std::vector<std::string> keys;
    for (const auto& item : props.items()) keys.push_back(item.key());
    std::sort(keys.begin(), keys.end());
    return keys;
  };
  // The parser lists what it allows in its unknown-key message.
  const auto allowed_in = [](const std::string& text) {
    const std::string message = error_of([&] { parse_config_text(text, "t", "/"); }).what();
    const size_t start = message.find("(allowed: ");
    REQUIRE(start != std::string::npos);
    std::vector<std::string> keys;
    std::stringstream list(message.substr(start + 10, message.size() - start - 11));
    for (std::string key; std::getline(list, key, ',');) keys.push_back(key.substr(key.front() == ' ' ? 1 : 0));
    std::sort(keys.begin(), keys.end());
    return keys;
  };
  CHECK(keys_of(schema.at("properties")) == allowed_in(R"({"plugins": [], "zzz": 1})"));
  const auto& plugin = schema.at("$defs").at("plugin");
  CHECK(keys_of(plugin.at("properties")) ==
        allowed_in(R"({"plugins": [{"name": "a", "library": "a.so", "zzz": 1}]})"));
  CHECK(schema.at("required") == nlohmann::json::array({"plugins"}));
  CHECK(plugin.at("required") == nlohmann::json::array({"name", "library"}));
  CHECK(schema.at("additionalProperties") == false);
  CHECK(plugin.at("additionalProperties") == false);
}

TEST_CASE("resolve_library: paths against base_dir, bare names in the search dirs") {
  TempDir tmp;
  const std::string a = (tmp.path / "a").string(), b = (tmp.path / "b").string();
  const std::string in_b = tmp.touch("b/x.so").string();
  const std::string in_both_a = tmp.touch("a/both.so").string();
  tmp.touch("b/both.so");
  tmp.touch("base/sub/y.so");
  fs::create_directories(tmp.path / "a" / "dir.so");
  const std::string base = (tmp.path / "base").string();
  std::string tried;

  CHECK(resolve_library("x.so", base, {a, b}, &tried) == in_b);
  CHECK(resolve_library("both.so", base, {a, b}, &tried) == in_both_a);  // the first dir wins

  CHECK(resolve_library("missing.so", base, {a, b}, &tried).empty());
  CHECK(tried == a + ", " + b);
  CHECK(resolve_library("missing.so", base, {}, &tried).empty());
  CHECK(tried == "(no plugin directories)");
  // A directory is not a library.
  CHECK(resolve_library("dir.so", base, {a}, &tried).empty());

  // A '/' makes it a path: relative to base_dir, never searched.
  CHECK(resolve_library("sub/y.so", base, {a, b}, &tried) == base + "/sub/y.so");
  CHECK(resolve_library("./sub/../sub/y.so", base, {a, b}, &tried) == base + "/sub/y.so");
  CHECK(resolve_library("./x.so", base, {a, b}, &tried).empty());
  CHECK(tried == base + "/x.so");
  CHECK(resolve_library(in_b, "/nowhere", {}, &tried) == in_b);
  CHECK(resolve_library("../b/x.so", base, {}, nullptr) == in_b);
  // With no base_dir, relative to the working directory, and made absolute
  // (dlopen would search the system's directories for "x.so").
  const fs::path from_cwd = fs::relative(in_b, fs::current_path());
  REQUIRE(from_cwd.is_relative());
  CHECK(resolve_library(from_cwd.string(), "", {}, nullptr) == in_b);
}

TEST_CASE("library_dir is the running binary's directory when linked statically") {
  CHECK(library_dir() == fs::canonical("/proc/self/exe").parent_path().string());
}

TEST_CASE("plugin_search_dirs: $TESSERA_PLUGIN_PATH, then beside the library, then the build tree") {
  ::setenv("TESSERA_PLUGIN_PATH", "/opt/p1::/opt/p2/", 1);
  const auto dirs = plugin_search_dirs();
  ::unsetenv("TESSERA_PLUGIN_PATH");
  REQUIRE(dirs.size() >= 3);
  CHECK(dirs[0] == "/opt/p1");
  CHECK(dirs[1] == "/opt/p2");
  CHECK(dirs[2] == library_dir() + "/tessera");
  CHECK(dirs.back() == fs::path(test_paths::plugin_dir).lexically_normal().string());

  const auto plain = plugin_search_dirs();
  REQUIRE(!plain.empty());
  CHECK(plain.front() == library_dir() + "/tessera");
}

TEST_CASE("default_config_path: $TESSERA_CONFIG, else the tree's share/tessera/configs") {
  ::setenv("TESSERA_CONFIG", "/etc/tessera/mine.json", 1);
  CHECK(default_config_path() == "/etc/tessera/mine.json");
  ::unsetenv("TESSERA_CONFIG");
  // The test binary is in <build>/bin, so <build>/share/... is found both ways.
  CHECK(default_config_path() == (fs::path(test_paths::config_dir) / "default.json").lexically_normal().string());
}

TEST_CASE("format_tuple prints as Python does") {
  const int64_t v[] = {3, 4, -1};
  CHECK(format_tuple(v, 2) == "(3, 4)");
  CHECK(format_tuple(v + 2, 1) == "(-1,)");
  CHECK(format_tuple(v, 3) == "(3, 4, -1)");
  CHECK(format_tuple(nullptr, 0) == "()");
}
