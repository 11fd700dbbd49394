// SPDX-License-Identifier: Apache-2.0
// The results of `tessera conformance`: one line per check, grouped (the
// ABI, the memory interface, one group per op), printed as a table.
#pragma once

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace tessera::tool {

class Report {
 public:
  enum class Status { Pass, Fail, Skip };
  struct Check {
    std::string group;  // "abi", "memory", "add", ...
    std::string name;   // "float32 transposed"
    Status status;
    std::string detail; // why it failed or was skipped
  };

  void pass(const std::string& group, const std::string& name) { add(group, name, Status::Pass, {}); }
  void fail(const std::string& group, const std::string& name, const std::string& why) {
    add(group, name, Status::Fail, why);
  }
  void skip(const std::string& group, const std::string& name, const std::string& why) {
    add(group, name, Status::Skip, why);
  }
  // Passes when `ok`, else fails with `why`; returns ok.
  bool expect(bool ok, const std::string& group, const std::string& name, const std::string& why) {
    ok ? pass(group, name) : fail(group, name, why);
    return ok;
  }

  int failures() const { return count(Status::Fail); }
  int passes() const { return count(Status::Pass); }

  // The table (one row per group, in first-seen order), then every failure,
  // then skips (one line per distinct reason and group).
  void print(std::FILE* to, bool verbose) const;

 private:
  void add(const std::string& group, const std::string& name, Status s, const std::string& detail) {
    checks_.push_back({group, name, s, detail});
  }
  int count(Status s) const {
    int n = 0;
    for (const Check& c : checks_) n += c.status == s;
    return n;
  }
  std::vector<Check> checks_;
};

inline void Report::print(std::FILE* to, bool verbose) const {
  struct Row {
    int pass = 0, fail = 0, skip = 0;
  };
  std::vector<std::string> order;
  std::map<std::string, Row> rows;
  for (const Check& c : checks_) {
    if (!rows.count(c.group)) order.push_back(c.group);
    Row& r = rows[c.group];
    (c.status == Status::Pass ? r.pass : c.status == Status::Fail ? r.fail : r.skip)++;
  }
  std::fprintf(to, "%-10s %6s %6s %6s\n", "group", "pass", "fail", "skip");
  Row total;
  for (const std::string& g : order) {
    const Row& r = rows[g];
    std::fprintf(to, "%-10s %6d %6d %6d\n", g.c_str(), r.pass, r.fail, r.skip);
    total.pass += r.pass;
    total.fail += r.fail;
    total.skip += r.skip;
  }
  std::fprintf(to, "%-10s %6d %6d %6d\n", "total", total.pass, total.fail, total.skip);
  for (const Check& c : checks_)
    if (c.status == Status::Fail) std::fprintf(to, "FAIL %s %s: %s\n", c.group.c_str(), c.name.c_str(), c.detail.c_str());
  std::map<std::string, int> skip_reasons;
  for (const Check& c : checks_)
    if (c.status == Status::Skip) {
      if (verbose) std::fprintf(to, "skip %s %s: %s\n", c.group.c_str(), c.name.c_str(), c.detail.c_str());
      else skip_reasons[c.group + ": " + c.detail]++;
    }
  for (const auto& [reason, n] : skip_reasons) std::fprintf(to, "skip %s (%d)\n", reason.c_str(), n);
  if (verbose)
    for (const Check& c : checks_)
      if (c.status == Status::Pass) std::fprintf(to, "pass %s %s\n", c.group.c_str(), c.name.c_str());
}

}  // namespace tessera::tool
