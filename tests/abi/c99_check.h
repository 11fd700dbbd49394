/* SPDX-License-Identifier: Apache-2.0 */
/* The checks the C99 test programs share: CHECK(cond), CHECK_OK(call) and
 * CHECK_FAILS(call, status, words) print what failed and count it in
 * `failures`; each program includes this once and returns nonzero when
 * failures > 0. */
#ifndef TESSERA_TESTS_C99_CHECK_H
#define TESSERA_TESTS_C99_CHECK_H

#include <stdio.h>
#include <string.h>

#include "tessera/tessera.h"

static int failures = 0;

#define CHECK(cond)                                                             \
  do {                                                                          \
    if (!(cond)) {                                                              \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                               \
    }                                                                           \
  } while (0)

#define CHECK_OK(call)                                                                                 \
  do {                                                                                                 \
    tsr_status st_ = (call);                                                                           \
    if (st_ != TSR_OK) {                                                                               \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, tsr_last_error_message()); \
      ++failures;                                                                                      \
    }                                                                                                  \
  } while (0)

/* The call fails with `status` and a message containing `words`. */
#define CHECK_FAILS(call, status, words)                                                          \
  do {                                                                                            \
    tsr_status st_ = (call);                                                                      \
    if (st_ != (status) || strstr(tsr_last_error_message(), (words)) == NULL) {                   \
      fprintf(stderr, "%s:%d: %s gave %s \"%s\", expected %s with \"%s\"\n", __FILE__, __LINE__, \
              #call, tsr_status_name(st_), tsr_last_error_message(), #status, words);             \
      ++failures;                                                                                 \
    }                                                                                             \
  } while (0)

#endif /* TESSERA_TESTS_C99_CHECK_H */
