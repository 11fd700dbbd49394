/* SPDX-License-Identifier: Apache-2.0 */
/* What the C99 programs of float64 values share (c99_autograd.c,
 * c99_training.c): the runtime and the cpu device (set by main), float64
 * tensors from host values, and expect(t, want, n, what), which checks
 * that t holds the n doubles of `want` within C99_EXPECT_TOLERANCE * (1 +
 * |want|) (1e-12 unless the program defines it first). main starts with
 * start_runtime(argc, argv) (the config is argv[1] when given). */
#ifndef TESSERA_TESTS_C99_DOUBLES_H
#define TESSERA_TESTS_C99_DOUBLES_H

#include <math.h>
#include <stdio.h>

#include "c99_check.h"
#include "tessera/tessera.h"

#ifndef C99_EXPECT_TOLERANCE
#define C99_EXPECT_TOLERANCE 1e-12
#endif

static tsr_runtime* rt;
static tsr_device cpu;

/* rt and cpu set; 0 when the runtime could not start. */
static int start_runtime(int argc, char** argv) {
  tsr_runtime_options opts = TSR_RUNTIME_OPTIONS_INIT;
  opts.config_path = argc > 1 ? argv[1] : NULL;
  CHECK_OK(tsr_runtime_create(&opts, &rt));
  cpu.type = TSR_DEVICE_CPU;
  cpu.index = 0;
  return rt != NULL;
}

static tsr_tensor* doubles(const double* values, int32_t ndim, const int64_t* shape, int requires_grad) {
  tsr_tensor* t = NULL;
  CHECK_OK(tsr_from_host(rt, values, ndim, shape, TSR_FLOAT64, cpu, &t));
  if (requires_grad) CHECK_OK(tsr_tensor_set_requires_grad(t, 1));
  return t;
}

static void expect(tsr_tensor* t, const double* want, int64_t n, const char* what) {
  double got[16];
  int64_t i;
  if (t == NULL || tsr_tensor_numel(t) != n || n > 16 || tsr_tensor_dtype(t) != TSR_FLOAT64) {
    fprintf(stderr, "%s: missing, or of the wrong size or dtype\n", what);
    ++failures;
    return;
  }
  CHECK_OK(tsr_read(t, got, (size_t)n * sizeof(double)));
  for (i = 0; i < n; ++i)
    if (!(fabs(got[i] - want[i]) <= C99_EXPECT_TOLERANCE * (1.0 + fabs(want[i])))) {
      fprintf(stderr, "%s: element %ld is %.17g, expected %.17g\n", what, (long)i, got[i], want[i]);
      ++failures;
    }
}

#endif /* TESSERA_TESTS_C99_DOUBLES_H */
