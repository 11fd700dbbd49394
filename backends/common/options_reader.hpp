// SPDX-License-Identifier: Apache-2.0
// Note [Plugin options without a JSON library]: a plugin's "options" reach
// it as the JSON text of one object (tsr_plugin_init_args.options_json).
// The in-tree backends read a handful of scalar members, so instead of
// linking a JSON library into every plugin, for_each_option walks the
// object's top-level members, hands each one's raw value text to the
// plugin, and skips nested values whole. The runtime has already parsed
// the config with a real JSON parser, so the text is well formed; the
// scanner still refuses what it cannot read, naming the offset.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

#include "plugin_error.hpp"

namespace tessera::backend {

namespace options_detail {

class Scanner {
 public:
  Scanner(const char* plugin, const char* text) : plugin_(plugin), s_(text != nullptr ? text : "{}") {}

  template <class F> void members(F&& on_member) {
    skip_space();
    expect('{');
    skip_space();
    if (peek() == '}') return;
    for (;;) {
      skip_space();
      const std::string key = string_token();
      skip_space();
      expect(':');
      skip_space();
      const size_t value_begin = i_;
      skip_value();
      on_member(key, std::string(s_ + value_begin, s_ + i_));
      skip_space();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect('}');
      return;
    }
  }

 private:
  [[noreturn]] void malformed(const std::string& why) const {
    fail(TSR_ERR_CONFIG, std::string(plugin_) + ": malformed options JSON at offset " + std::to_string(i_) + ": " + why);
  }
  char peek() const { return s_[i_]; }
  static bool space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  void skip_space() {
    while (space(peek())) ++i_;
  }
  void expect(char c) {
    if (peek() != c) malformed(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string_token() {
    expect('"');
    std::string out;
    while (peek() != '"') {
      if (peek() == '\0') malformed("unterminated string");
      if (peek() == '\\') {
        ++i_;
        if (peek() == '\0') malformed("unterminated string");
      }
      out += s_[i_++];
    }
    ++i_;
    return out;
  }
  void skip_value() {
    if (peek() == '"') {
      string_token();
      return;
    }
    if (peek() == '{' || peek() == '[') {
      int depth = 0;
      do {
        if (peek() == '\0') malformed("unterminated object or array");
        if (peek() == '"') {
          string_token();
          continue;
        }
        if (peek() == '{' || peek() == '[') ++depth;
        if (peek() == '}' || peek() == ']') --depth;
        ++i_;
      } while (depth > 0);
      return;
    }
    const size_t begin = i_;
    while (peek() != '\0' && peek() != ',' && peek() != '}' && peek() != ']' && !space(peek())) ++i_;
    if (i_ == begin) malformed("expected a value");
  }

  const char* plugin_;
  const char* s_;
  size_t i_ = 0;
};

}  // namespace options_detail

// Calls on_member(key, raw value text) for each top-level member of the
// options object `text` (NULL reads as {}); TSR_ERR_CONFIG when malformed.
template <class F> void for_each_option(const char* plugin, const char* text, F&& on_member) {
  options_detail::Scanner(plugin, text).members(on_member);
}

// The value of option `key` as a whole number in [0, max]; `range` words the
// allowed values for the message ("from 0 (all cores) to 65536").
inline int64_t option_count(const char* plugin, const std::string& key, const std::string& v, int64_t max,
                            const char* range) {
  bool digits = !v.empty() && v.size() <= 10;
  for (char c : v) digits = digits && c >= '0' && c <= '9';
  if (!digits || std::stoll(v) > max)
    fail(TSR_ERR_CONFIG,
         std::string(plugin) + ": option \"" + key + "\" must be a whole number " + range + ", got " + v);
  return std::stoll(v);
}

inline bool option_bool(const char* plugin, const std::string& key, const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  fail(TSR_ERR_CONFIG, std::string(plugin) + ": option \"" + key + "\" must be true or false, got " + v);
}

// A number in (0, 1].
inline double option_fraction(const char* plugin, const std::string& key, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  const bool number =
      !v.empty() && end == v.c_str() + v.size() && (v[0] == '.' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9'));
  if (!number || !(x > 0.0 && x <= 1.0))
    fail(TSR_ERR_CONFIG, std::string(plugin) + ": option \"" + key + "\" must be a number in (0, 1], got " + v);
  return x;
}

}  // namespace tessera::backend
