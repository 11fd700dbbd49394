// SPDX-License-Identifier: Apache-2.0
#include "config.hpp"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>

#include <nlohmann/json.hpp>

#include "error.hpp"

namespace tessera::rt {
namespace {

// ordered_json keeps the document's key order, so the first violation
// reported is the first one a reader of the file meets, and a plugin's
// options reach it in the order they were written.
using Json = nlohmann::ordered_json;

// RFC 6901: "~" and "/" inside a key are escaped.
std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

// The root's pointer is the empty string, which reads badly in a message.
std::string show_pointer(const std::string& pointer) { return pointer.empty() ? "(root)" : pointer; }

std::string describe(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return std::string("boolean ") + (v.get<bool>() ? "true" : "false");
    case Json::value_t::string: {
      std::string s = v.dump();
      if (s.size() > 60) s = s.substr(0, 56) + "...\"";
      return "string " + s;
    }
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return "number " + v.dump();
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    default: return "an unsupported value";
  }
}

// Line and column (1-based; the column counts UTF-8 code points) of the byte
// nlohmann reports, which is the 1-based index of the last byte it read.
std::pair<size_t, size_t> line_and_column(const std::string& text, size_t byte) {
  size_t pos = byte == 0 ? 0 : byte - 1;
  if (pos > text.size()) pos = text.size();
  size_t line = 1, column = 1;
  for (size_t i = 0; i < pos; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      column = 1;
    } else if ((c & 0xC0) != 0x80) {  // not a UTF-8 continuation byte
      ++column;
    }
  }
  return {line, column};
}

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line
// L, column C: <what>"; keep <what>, since we compute the position ourselves.
std::string parse_error_reason(const std::string& what) {
  const size_t column = what.find("column ");
  if (column != std::string::npos) {
    const size_t colon = what.find(": ", column);
    if (colon != std::string::npos) return what.substr(colon + 2);
  }
  const size_t bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

// Tracks where the parser is, so that a key written twice in one object (which
// nlohmann would silently collapse) is reported with its pointer.
class DuplicateKeyCheck {
 public:
  explicit DuplicateKeyCheck(const std::string& origin) : origin_(origin) {}

  bool operator()(int /*depth*/, Json::parse_event_t event, Json& parsed) {
    using E = Json::parse_event_t;
    switch (event) {
      case E::object_start: frames_.push_back(Frame{false, 0, {}, {}}); break;
      case E::array_start: frames_.push_back(Frame{true, 0, {}, {}}); break;
      case E::key: {
        Frame& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second)
          fail(TSR_ERR_CONFIG, "config " + origin_ + ": " + show_pointer(container_pointer()) +
                                   ": duplicate key \"" + top.key + "\"");
        break;
      }
      case E::value: advance(); break;
      case E::object_end:
      case E::array_end:
        frames_.pop_back();
        advance();
        break;
    }
    return true;
  }

 private:
  struct Frame {
    bool array;
    size_t index;          // arrays: the index of the next element
    std::string key;       // objects: the key being read
    std::set<std::string> keys;
  };

  void advance() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().index;
  }

  // The pointer of the innermost open container.
  std::string container_pointer() const {
    std::string p;
    for (size_t i = 0; i + 1 < frames_.size(); ++i)
      p += "/" + (frames_[i].array ? std::to_string(frames_[i].index) : pointer_token(frames_[i].key));
    return p;
  }

  const std::string& origin_;
  std::vector<Frame> frames_;
};

class Validator {
 public:
  explicit Validator(const std::string& origin) : origin_(origin) {}

  [[noreturn]] void error(const std::string& pointer, const std::string& what) const {
    fail(TSR_ERR_CONFIG, "config " + origin_ + ": " + show_pointer(pointer) + ": " + what);
  }

  void expect(bool ok, const std::string& pointer, const char* expected, const Json& v) const {
    if (!ok) error(pointer, std::string("expected ") + expected + ", got " + describe(v));
  }

  const Json& object(const Json& v, const std::string& pointer) const {
    expect(v.is_object(), pointer, "an object", v);
    return v;
  }

  std::string string(const Json& v, const std::string& pointer, bool non_empty) const {
    expect(v.is_string(), pointer, "a string", v);
    std::string s = v.get<std::string>();
    if (non_empty && s.empty()) error(pointer, "must not be empty");
    return s;
  }

  bool boolean(const Json& v, const std::string& pointer) const {
    expect(v.is_boolean(), pointer, "a boolean", v);
    return v.get<bool>();
  }

  // JSON Schema's "integer" is any number with no fractional part (so 2.0
  // counts); it must also fit an int.
  int integer(const Json& v, const std::string& pointer) const {
    const bool whole = v.is_number_integer() ||
                       (v.is_number_float() && std::isfinite(v.get<double>()) &&
                        std::trunc(v.get<double>()) == v.get<double>());
    expect(whole, pointer, "an integer", v);
    const double d = v.get<double>();
    if (v.is_number_unsigned() ? v.get<uint64_t>() > static_cast<uint64_t>(INT_MAX)
                               : (d < static_cast<double>(INT_MIN) || d > static_cast<double>(INT_MAX)))
      error(pointer, "integer " + v.dump() + " is out of range [" + std::to_string(INT_MIN) + ", " +
                         std::to_string(INT_MAX) + "]");
    return v.is_number_float() ? static_cast<int>(d) : static_cast<int>(v.get<int64_t>());
  }

  // Rejects keys outside `allowed` and requires those in `required`.
  void keys(const Json& obj, const std::string& pointer, std::initializer_list<const char*> allowed,
            std::initializer_list<const char*> required) const {
    for (const auto& item : obj.items()) {
      bool known = false;
      for (const char* a : allowed) known = known || item.key() == a;
      if (!known) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        error(pointer, "unknown key \"" + item.key() + "\" (allowed: " + list + ")");
      }
    }
    for (const char* r : required)
      if (!obj.contains(r)) error(pointer, std::string("missing required key \"") + r + "\"");
  }

 private:
  const std::string& origin_;
};

PluginConfig parse_plugin(const Validator& check, const Json& v, const std::string& pointer) {
  check.object(v, pointer);
  check.keys(v, pointer, {"name", "library", "enabled", "options", "priority", "fallback"}, {"name", "library"});
  PluginConfig p;
  p.pointer = pointer;
  for (const auto& item : v.items()) {
    const std::string& key = item.key();
    const std::string at = pointer + "/" + pointer_token(key);
    if (key == "name") p.name = check.string(item.value(), at, true);
    else if (key == "library") p.library = check.string(item.value(), at, true);
    else if (key == "enabled") p.enabled = check.boolean(item.value(), at);
    else if (key == "options") p.options_json = check.object(item.value(), at).dump();
    else if (key == "priority") p.priority = check.integer(item.value(), at);
    else if (key == "fallback") p.fallback = check.boolean(item.value(), at);
  }
  return p;
}

Config validate(const Json& root, const std::string& origin, const std::string& base_dir) {
  const Validator check(origin);
  check.object(root, "");
  check.keys(root, "", {"$schema", "plugins", "default_device", "aliases", "communicators", "comm_timeout_s"},
             {"plugins"});
  Config c;
  c.origin = origin;
  c.base_dir = base_dir;
  for (const auto& item : root.items()) {
    const std::string& key = item.key();
    const Json& v = item.value();
    const std::string at = "/" + pointer_token(key);
    if (key == "$schema") {
      check.string(v, at, false);
    } else if (key == "plugins") {
      check.expect(v.is_array(), at, "an array", v);
      std::map<std::string, std::string> seen;  // name -> pointer of its first use
      for (size_t i = 0; i < v.size(); ++i) {
        PluginConfig p = parse_plugin(check, v[i], at + "/" + std::to_string(i));
        auto [it, inserted] = seen.emplace(p.name, p.pointer);
        if (!inserted)
          check.error(p.pointer + "/name", "duplicate plugin name \"" + p.name + "\" (first used at " + it->second + ")");
        c.plugins.push_back(std::move(p));
      }
    } else if (key == "default_device") {
      c.default_device = check.string(v, at, true);
    } else if (key == "aliases") {
      check.object(v, at);
      for (const auto& alias : v.items()) {
        const std::string alias_at = at + "/" + pointer_token(alias.key());
        if (alias.key().empty()) check.error(alias_at, "an alias name must not be empty");
        c.aliases[alias.key()] = check.string(alias.value(), alias_at, true);
      }
    } else if (key == "communicators") {
      check.object(v, at);
      for (const auto& entry : v.items()) {
        const std::string entry_at = at + "/" + pointer_token(entry.key());
        if (entry.key().empty()) check.error(entry_at, "a device type name must not be empty");
        c.communicators[entry.key()] = check.string(entry.value(), entry_at, true);
      }
    } else if (key == "comm_timeout_s") {
      check.expect(v.is_number(), at, "a number of seconds", v);
      const double seconds = v.get<double>();
      if (!(seconds > 0.0) || !std::isfinite(seconds))
        check.error(at, "must be a number of seconds greater than 0, got " + v.dump());
      c.comm_timeout_s = seconds;
    }
  }
  // Each communicator names a plugin of this config (after the loop: the
  // plugins may come later in the file).
  for (const auto& [type, plugin] : c.communicators) {
    bool known = false;
    for (const PluginConfig& p : c.plugins) known = known || p.name == plugin;
    if (!known) {
      std::string names;
      for (const PluginConfig& p : c.plugins) names += (names.empty() ? "" : ", ") + p.name;
      check.error("/communicators/" + pointer_token(type),
                  "names no plugin of this config: \"" + plugin + "\" (plugins: " + (names.empty() ? "none" : names) + ")");
    }
  }
  return c;
}

}  // namespace

Config parse_config_text(const std::string& text, const std::string& origin, const std::string& base_dir) {
  Json root;
  try {
    root = Json::parse(text, DuplicateKeyCheck(origin));
  } catch (const nlohmann::json::parse_error& e) {
    const auto [line, column] = line_and_column(text, e.byte);
    fail(TSR_ERR_CONFIG, "config " + origin + ": malformed JSON at line " + std::to_string(line) + ", column " +
                             std::to_string(column) + ": " + parse_error_reason(e.what()));
  } catch (const nlohmann::json::exception& e) {
    fail(TSR_ERR_CONFIG, "config " + origin + ": malformed JSON: " + parse_error_reason(e.what()));
  }
  return validate(root, origin, base_dir);
}

Config parse_config_file(const std::string& path) {
  // stdio rather than iostreams: the reason for a failure is in errno.
  const auto cannot_read = [&](int err) {
    fail(TSR_ERR_CONFIG, "config " + path + ": cannot read file: " + std::strerror(err));
  };
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) cannot_read(errno);
  std::string text;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, n);
  if (std::ferror(file.get())) cannot_read(errno);  // e.g. EISDIR for a directory

  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
  if (ec) dir = std::filesystem::path(path).parent_path();
  return parse_config_text(text, path, dir.lexically_normal().string());
}

}  // namespace tessera::rt
