// SPDX-License-Identifier: Apache-2.0
// Test support: what a program writes on stderr while a StderrCapture
// lives (the runtime's log lines, a plugin's host->log), read back as text.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <string>

namespace tessera::test {

class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    saved_ = dup(2);
    std::FILE* f = std::tmpfile();
    file_ = f;
    dup2(fileno(f), 2);
  }
  ~StderrCapture() { restore(); }
  std::string text() {
    restore();
    std::rewind(file_);
    std::string s;
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) s.append(buf, n);
    return s;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, 2);
    close(saved_);
    saved_ = -1;
  }
  int saved_ = -1;
  std::FILE* file_ = nullptr;
};

}  // namespace tessera::test
