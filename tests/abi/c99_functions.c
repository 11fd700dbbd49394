/* SPDX-License-Identifier: Apache-2.0 */
/* The functions of ABI 1.5 to 1.7 from C99, one or more of every category:
 * an elementwise function (tsr_math), a binary op of the new ones (floor
 * division), a statistical reduction with options (tsr_reduce_ex: var),
 * a cumulative sum, take, gather, scatter, sort and argsort, nonzero, and
 * linear algebra (cholesky, solve, det, eigh, svdvals, inv's errors; QR,
 * SVD and EIGH of matrices large enough for cpu_tbb's composed path; a
 * complex Hermitian matrix's eigh, cholesky and slogdet, ABI 1.7; eig and
 * eigvals of general matrices, ABI 1.11);
 * each result checked against values written here, and each bad call
 * checked for its status and message. Exit status 0 when all hold. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c99_check.h"
#include "tessera/tessera.h"

static tsr_runtime* rt;
static tsr_device cpu;

static tsr_tensor* doubles(const double* values, int32_t ndim, const int64_t* shape) {
  tsr_tensor* t = NULL;
  CHECK_OK(tsr_from_host(rt, values, ndim, shape, TSR_FLOAT64, cpu, &t));
  return t;
}

static tsr_tensor* longs(const int64_t* values, int32_t ndim, const int64_t* shape) {
  tsr_tensor* t = NULL;
  CHECK_OK(tsr_from_host(rt, values, ndim, shape, TSR_INT64, cpu, &t));
  return t;
}

/* t's elements (row-major) equal `want` (n of them, as doubles). */
static void expect(tsr_tensor* t, const double* want, int64_t n, const char* what) {
  double got[64];
  tsr_tensor* d = NULL;
  int64_t i;
  if (t == NULL || tsr_tensor_numel(t) != n || n > 64) {
    fprintf(stderr, "%s: wrong size\n", what);
    ++failures;
    return;
  }
  CHECK_OK(tsr_to_dtype(t, TSR_FLOAT64, &d));
  CHECK_OK(tsr_read(d, got, (size_t)n * sizeof(double)));
  for (i = 0; i < n; ++i)
    if (!(got[i] == want[i] || (isnan(got[i]) && isnan(want[i])) || fabs(got[i] - want[i]) < 1e-12)) {
      fprintf(stderr, "%s: element %ld is %.17g, expected %.17g\n", what, (long)i, got[i], want[i]);
      ++failures;
      break;
    }
  tsr_tensor_release(d);
}

/* The largest |got - want| over n float64 elements, `want` given row-major
 * and `got` any tensor (released here: callers pass a fresh result);
 * -1 when it cannot be read. */
static double max_diff(tsr_tensor* got, const double* want, int64_t n) {
  double *g = malloc((size_t)n * sizeof(double)), worst = -1;
  tsr_tensor* c = NULL;
  int64_t i;
  if (g != NULL && got != NULL && tsr_contiguous(got, &c) == TSR_OK && tsr_read(c, g, (size_t)n * sizeof(double)) == TSR_OK)
    for (worst = 0, i = 0; i < n; ++i) worst = fmax(worst, fabs(g[i] - want[i]));
  tsr_tensor_release(c);
  tsr_tensor_release(got);
  free(g);
  return worst;
}

/* x y, releasing neither. */
static tsr_tensor* product(tsr_tensor* x, tsr_tensor* y) {
  tsr_tensor* p = NULL;
  CHECK_OK(tsr_matmul(x, y, &p));
  return p;
}

/* x y compared with want (n elements) within tol; x and y stay. */
static void expect_product(tsr_tensor* x, tsr_tensor* y, const double* want, int64_t n, double tol, const char* what) {
  const double d = max_diff(product(x, y), want, n);
  if (!(d >= 0 && d < tol)) {
    fprintf(stderr, "%s: off by %g (tolerance %g)\n", what, d, tol);
    ++failures;
  }
}

/* Large matrices (n = 130 reflectors or more): cpu_tbb composes QR, SVD and
 * EIGH from LAPACK's pieces there (Note [Serial BLAS]). The 1-d Laplacian
 * (2 on the diagonal, -1 beside it) has eigenvalues 2 - 2 cos(k pi / (n +
 * 1)); a smooth wide matrix checks the SVD of the transposed case. */
/* A complex128 Hermitian matrix, [[2, 1 - i], [1 + i, 3]]: eigenvalues 1
 * and 4 (float64), cholesky [[sqrt 2, 0], [(1 + i) / sqrt 2, sqrt 2]],
 * det 4 (complex128), slogdet's sign 1 + 0i and logabsdet log 4 (float64). */
static void check_complex_linalg(void) {
  const int64_t two_two[2] = {2, 2};
  const double h[8] = {2, 0, 1, -1, 1, 1, 3, 0}; /* (real, imaginary) pairs */
  const double r2 = sqrt(2.0);
  tsr_tensor *a = NULL, *w = NULL, *l = NULL, *re = NULL, *im = NULL, *sign = NULL, *logabs = NULL;
  CHECK_OK(tsr_from_host(rt, h, 2, two_two, TSR_COMPLEX128, cpu, &a));
  CHECK_OK(tsr_linalg_eigh(a, &w, NULL));
  CHECK(w != NULL && tsr_tensor_dtype(w) == TSR_FLOAT64);
  {
    const double want[2] = {1.0, 4.0};
    double got[2] = {0, 0};
    CHECK_OK(tsr_read(w, got, sizeof got));
    CHECK(fabs(got[0] - want[0]) < 1e-14 && fabs(got[1] - want[1]) < 1e-14);
  }
  CHECK_OK(tsr_linalg_cholesky(a, 0, &l));
  CHECK_OK(tsr_real(l, &re));
  CHECK_OK(tsr_imag(l, &im));
  {
    const double want_re[4] = {r2, 0, 1 / r2, r2}, want_im[4] = {0, 0, 1 / r2, 0};
    expect(re, want_re, 4, "complex cholesky, real parts");
    expect(im, want_im, 4, "complex cholesky, imaginary parts");
  }
  CHECK_OK(tsr_linalg_slogdet(a, &sign, &logabs));
  CHECK(tsr_tensor_dtype(sign) == TSR_COMPLEX128 && tsr_tensor_dtype(logabs) == TSR_FLOAT64);
  {
    double s[2] = {0, 0}, la = 0;
    CHECK_OK(tsr_read(sign, s, sizeof s));
    CHECK_OK(tsr_read(logabs, &la, sizeof la));
    CHECK(fabs(s[0] - 1) < 1e-14 && fabs(s[1]) < 1e-14 && fabs(la - log(4.0)) < 1e-14);
  }
  tsr_tensor_release(a);
  tsr_tensor_release(w);
  tsr_tensor_release(l);
  tsr_tensor_release(re);
  tsr_tensor_release(im);
  tsr_tensor_release(sign);
  tsr_tensor_release(logabs);
}

/* eig (ABI 1.11): the companion matrix of (x - 1)(x + 2)(x^2 - x + 2.5),
 * whose eigenvalues are 1, -2 and 0.5 +- 1.5i, in a batch with the upper
 * triangular [[2, 1, 0, 0], [0, 3, 1, 0], [0, 0, 5, 1], [0, 0, 0, -1]]
 * (its diagonal), float64: complex128 results, the values found among the
 * known ones (the order is LAPACK's), A V = V diag(w) and unit columns,
 * computed here in float64; eigvals of float32 gives complex64; the errors. */
static void check_eig(void) {
  enum { n = 4 };
  const int64_t shape[3] = {2, n, n}, one_shape[2] = {n, n}, bad_shape[2] = {2, 3};
  const double a[2 * n * n] = {0, 0.5, -4.5, 5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0,
                               2, 1, 0, 0, 0, 3, 1, 0, 0, 0, 5, 1, 0, 0, 0, -1};
  const double known[2][n][2] = {{{1, 0}, {-2, 0}, {0.5, 1.5}, {0.5, -1.5}}, {{2, 0}, {3, 0}, {5, 0}, {-1, 0}}};
  const float a32[n * n] = {0, 0.5f, -4.5f, 5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
  double w[2 * n * 2], v[2 * n * n * 2]; /* (real, imaginary) pairs */
  tsr_tensor *t = NULL, *tw = NULL, *tv = NULL, *t32 = NULL, *w32 = NULL, *bad = NULL, *ints = NULL, *out = NULL;
  int b, i, j, k;
  t = doubles(a, 3, shape);
  CHECK_OK(tsr_linalg_eig(t, &tw, &tv));
  CHECK(tw != NULL && tsr_tensor_dtype(tw) == TSR_COMPLEX128 && tsr_tensor_ndim(tw) == 2);
  CHECK(tv != NULL && tsr_tensor_dtype(tv) == TSR_COMPLEX128 && tsr_tensor_ndim(tv) == 3);
  if (tw == NULL || tv == NULL) return;
  CHECK_OK(tsr_read(tw, w, sizeof w));
  CHECK_OK(tsr_read(tv, v, sizeof v));
  for (b = 0; b < 2; ++b) {
    int found[n] = {0, 0, 0, 0};
    for (j = 0; j < n; ++j) { /* each known eigenvalue once */
      for (k = 0; k < n; ++k) {
        const double dr = w[(b * n + k) * 2] - known[b][j][0], di = w[(b * n + k) * 2 + 1] - known[b][j][1];
        if (!found[k] && sqrt(dr * dr + di * di) < 1e-12) {
          found[k] = 1;
          break;
        }
      }
      if (k == n) {
        fprintf(stderr, "eig: batch %d has no eigenvalue %g%+gi\n", b, known[b][j][0], known[b][j][1]);
        ++failures;
      }
    }
    for (j = 0; j < n; ++j) { /* column j: A v = w_j v, |v| = 1 */
      const double wr = w[(b * n + j) * 2], wi = w[(b * n + j) * 2 + 1];
      double norm = 0, worst = 0;
      for (i = 0; i < n; ++i) {
        const double* vi = &v[((b * n + i) * n + j) * 2];
        double rr = -(wr * vi[0] - wi * vi[1]), ri = -(wr * vi[1] + wi * vi[0]);
        for (k = 0; k < n; ++k) {
          rr += a[(b * n + i) * n + k] * v[((b * n + k) * n + j) * 2];
          ri += a[(b * n + i) * n + k] * v[((b * n + k) * n + j) * 2 + 1];
        }
        worst = fmax(worst, sqrt(rr * rr + ri * ri));
        norm += vi[0] * vi[0] + vi[1] * vi[1];
      }
      if (!(worst < 1e-12 && fabs(sqrt(norm) - 1) < 1e-13)) {
        fprintf(stderr, "eig: batch %d column %d: residual %g, norm %g\n", b, j, worst, sqrt(norm));
        ++failures;
      }
    }
  }
  CHECK_OK(tsr_from_host(rt, a32, 2, one_shape, TSR_FLOAT32, cpu, &t32));
  CHECK_OK(tsr_linalg_eigvals(t32, &w32));
  CHECK(w32 != NULL && tsr_tensor_dtype(w32) == TSR_COMPLEX64 && tsr_tensor_numel(w32) == n);
  bad = doubles(a, 2, bad_shape);
  CHECK_FAILS(tsr_linalg_eig(bad, &out, &out), TSR_ERR_SHAPE, "linalg.eig: A must be batches of square matrices");
  CHECK(out == NULL);
  CHECK_FAILS(tsr_linalg_eig(t, &out, NULL), TSR_ERR_INVALID_ARGUMENT, "");
  ints = longs((const int64_t[4]){1, 2, 3, 4}, 2, (const int64_t[2]){2, 2});
  CHECK_FAILS(tsr_linalg_eigvals(ints, &out), TSR_ERR_TYPE, "linalg.eigvals: Expected a floating point or complex tensor");
  tsr_tensor_release(t);
  tsr_tensor_release(tw);
  tsr_tensor_release(tv);
  tsr_tensor_release(t32);
  tsr_tensor_release(w32);
  tsr_tensor_release(bad);
  tsr_tensor_release(ints);
}

static void check_large_linalg(void) {
  enum { n = 130, wide = 170 };
  const int64_t square[2] = {n, n}, rect[2] = {n, wide};
  double *lap = calloc((size_t)n * n, sizeof(double)), *smooth = malloc((size_t)n * wide * sizeof(double));
  double *want = malloc((size_t)n * n * sizeof(double));
  tsr_tensor *a, *b, *w = NULL, *v = NULL, *vt = NULL, *vw = NULL, *q = NULL, *r = NULL, *u = NULL, *s = NULL;
  tsr_tensor *vh = NULL, *us = NULL;
  int64_t i, j;
  double d;
  if (lap == NULL || smooth == NULL || want == NULL) {
    fprintf(stderr, "check_large_linalg: out of memory\n");
    ++failures;
    free(lap);
    free(smooth);
    free(want);
    return;
  }
  for (i = 0; i < n; ++i) {
    lap[i * n + i] = 2.0;
    if (i > 0) lap[i * n + i - 1] = lap[(i - 1) * n + i] = -1.0;
    for (j = 0; j < wide; ++j) smooth[i * wide + j] = sin(0.37 * (double)i + 0.11 * (double)(j * j)) + (i == j ? 3.0 : 0.0);
  }
  a = doubles(lap, 2, square);
  b = doubles(smooth, 2, rect);
  CHECK_OK(tsr_linalg_eigh(a, &w, &v));
  CHECK_OK(tsr_transpose(v, 0, 1, &vt));
  CHECK_OK(tsr_binary(TSR_OP_MUL, v, w, &vw));
  tsr_tensor_retain(w); /* max_diff releases one reference */
  for (i = 0; i < n; ++i) want[i] = 2.0 - 2.0 * cos((double)(i + 1) * 3.14159265358979323846 / (n + 1));
  d = max_diff(w, want, n);
  if (!(d >= 0 && d < 1e-12)) {
    fprintf(stderr, "eigh of the Laplacian: eigenvalues off by %g\n", d);
    ++failures;
  }
  expect_product(vw, vt, lap, n * n, 1e-12, "eigh: V diag(w) V^T");
  for (i = 0; i < n * n; ++i) want[i] = i % (n + 1) == 0 ? 1.0 : 0.0;
  expect_product(vt, v, want, n * n, 1e-12, "eigh: V^T V");
  CHECK_OK(tsr_linalg_svd(b, 0, &u, &s, &vh)); /* wide: the SVD of b^T, transposed */
  CHECK_OK(tsr_binary(TSR_OP_MUL, u, s, &us));
  expect_product(us, vh, smooth, n * wide, 1e-11, "svd: U diag(S) Vh");
  CHECK_OK(tsr_linalg_qr(a, 1, &q, &r));
  expect_product(q, r, lap, n * n, 1e-12, "qr: Q R");
  tsr_tensor_release(w);
  tsr_tensor_release(v);
  tsr_tensor_release(vt);
  tsr_tensor_release(vw);
  tsr_tensor_release(u);
  tsr_tensor_release(s);
  tsr_tensor_release(vh);
  tsr_tensor_release(us);
  tsr_tensor_release(q);
  tsr_tensor_release(r);
  tsr_tensor_release(a);
  tsr_tensor_release(b);
  free(lap);
  free(smooth);
  free(want);
}

int main(int argc, char** argv) {
  tsr_runtime_options opts = TSR_RUNTIME_OPTIONS_INIT;
  tsr_reduce_options ropts = TSR_REDUCE_OPTIONS_INIT;
  tsr_sort_options sopts = TSR_SORT_OPTIONS_INIT;
  const int64_t six[1] = {6}, two_three[2] = {2, 3}, two[1] = {2}, one_two[2] = {1, 2};
  const double x_data[6] = {2.5, -1.5, 0.5, 4.0, -0.0, 7.0};
  const int64_t idx_data[2] = {-1, 0}, gidx_data[2] = {2, -3};
  const int32_t dim1[1] = {1};
  tsr_tensor *x = NULL, *m = NULL, *y = NULL, *z = NULL, *idx = NULL, *values = NULL, *indices = NULL;
  tsr_tensor *src = NULL, *nz = NULL;

  opts.config_path = argc > 1 ? argv[1] : NULL;
  if (tsr_runtime_create(&opts, &rt) != TSR_OK) {
    fprintf(stderr, "runtime: %s\n", tsr_last_error_message());
    return 1;
  }
  CHECK_OK(tsr_device_parse(rt, "cpu", &cpu));
  x = doubles(x_data, 1, six);

  /* Elementwise: round (half to even) and floor division. */
  CHECK_OK(tsr_math(TSR_MATH_ROUND, x, &y));
  {
    const double want[6] = {2.0, -2.0, 0.0, 4.0, -0.0, 7.0};
    expect(y, want, 6, "round");
  }
  tsr_tensor_release(y);
  y = NULL;
  CHECK_FAILS(tsr_math(99, x, &y), TSR_ERR_INVALID_ARGUMENT, "math function 99");
  CHECK(y == NULL);
  CHECK_OK(tsr_binary_scalar(TSR_OP_FLOOR_DIVIDE, x, tsr_scalar_float(2.0), 0, &y));
  {
    const double want[6] = {1.0, -1.0, 0.0, 2.0, -0.0, 3.0};
    expect(y, want, 6, "floor_divide");
  }
  tsr_tensor_release(y);
  y = NULL;
  CHECK_FAILS(tsr_binary(TSR_OP_BITWISE_AND, x, x, &y), TSR_ERR_TYPE, "integer and bool dtypes only");

  /* Statistics: var with correction 0 over dim 1 of the (2, 3) view. */
  CHECK_OK(tsr_view(x, 2, two_three, &m));
  ropts.dims = dim1;
  ropts.num_dims = 1;
  ropts.correction = 0.0;
  CHECK_OK(tsr_reduce_ex(TSR_OP_VAR, m, &ropts, &y));
  {
    const double want[2] = {(2.5 * 2.5 + 1.5 * 1.5 + 0.5 * 0.5) / 3 - (1.5 / 3) * (1.5 / 3),
                            (16.0 + 0.0 + 49.0) / 3 - (11.0 / 3) * (11.0 / 3)};
    expect(y, want, 2, "var");
  }
  tsr_tensor_release(y);
  y = NULL;
  ropts.struct_size = 4;
  CHECK_FAILS(tsr_reduce_ex(TSR_OP_VAR, m, &ropts, &y), TSR_ERR_INVALID_ARGUMENT, "struct_size");
  CHECK(tsr_struct_size(TSR_STRUCT_REDUCE_OPTIONS) == TSR_REDUCE_OPTIONS_STRUCT_SIZE);

  /* Cumulative sum along the last dim, into int64 for integers. */
  CHECK_OK(tsr_cumsum(m, -1, TSR_DTYPE_UNDEFINED, &y));
  {
    const double want[6] = {2.5, 1.0, 1.5, 4.0, 4.0, 11.0};
    expect(y, want, 6, "cumsum");
  }
  tsr_tensor_release(y);
  y = NULL;
  CHECK_FAILS(tsr_cumsum(m, 2, TSR_DTYPE_UNDEFINED, &y), TSR_ERR_INDEX, "Dimension out of range");

  /* Indexing: take along dim 1, gather, scatter, and a bad index. */
  idx = longs(idx_data, 1, two);
  CHECK_OK(tsr_take(m, idx, 1, &y));
  {
    const double want[4] = {0.5, 2.5, 7.0, 4.0};
    expect(y, want, 4, "take");
  }
  tsr_tensor_release(y);
  y = NULL;
  {
    tsr_tensor* g = longs(gidx_data, 2, one_two);
    CHECK_OK(tsr_gather(m, 1, g, &y));
    {
      const double want[2] = {0.5, 2.5};
      expect(y, want, 2, "gather");
    }
    tsr_tensor_release(y);
    y = NULL;
    CHECK_OK(tsr_full(rt, 2, one_two, tsr_scalar_float(9.0), TSR_FLOAT64, cpu, &src));
    CHECK_OK(tsr_clone(m, &z));
    CHECK_OK(tsr_scatter_(z, 1, g, src, 0));
    {
      const double want[6] = {9.0, -1.5, 9.0, 4.0, -0.0, 7.0};
      expect(z, want, 6, "scatter_");
    }
    tsr_tensor_release(g);
  }
  {
    const int64_t bad_data[2] = {3, 0};
    tsr_tensor* bad = longs(bad_data, 1, two);
    CHECK_FAILS(tsr_take(m, bad, 1, &y), TSR_ERR_INDEX, "index 3 is out of bounds for dimension 1 with size 3");
    CHECK_FAILS(tsr_take(m, x, 1, &y), TSR_ERR_TYPE, "integer index");
    tsr_tensor_release(bad);
  }

  /* Sorting: values and stable indices, descending. */
  sopts.descending = 1;
  sopts.stable = 1;
  CHECK_OK(tsr_sort(x, &sopts, &values, &indices));
  {
    const double want_v[6] = {7.0, 4.0, 2.5, 0.5, -0.0, -1.5};
    const double want_i[6] = {5, 3, 0, 2, 4, 1};
    expect(values, want_v, 6, "sort values");
    expect(indices, want_i, 6, "sort indices");
  }
  CHECK_FAILS(tsr_sort(x, &sopts, NULL, NULL), TSR_ERR_INVALID_ARGUMENT, "both NULL");

  /* Searching: nonzero of the (2, 3) view (-0 is zero). */
  CHECK_OK(tsr_nonzero(m, &nz));
  {
    const double want[10] = {0, 0, 0, 1, 0, 2, 1, 0, 1, 2};
    expect(nz, want, 10, "nonzero");
  }

  /* Linear algebra (ABI 1.6): exact small cases, and the errors. */
  {
    const int64_t two_two[2] = {2, 2}, batch2[3] = {2, 2, 2};
    const double a_data[4] = {4.0, 2.0, 2.0, 3.0}, b_data[2] = {2.0, 1.0};
    const double sing_data[8] = {1.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 4.0};
    tsr_tensor *a = doubles(a_data, 2, two_two), *b = doubles(b_data, 1, two), *sing = doubles(sing_data, 3, batch2);
    tsr_tensor *l = NULL, *sol = NULL, *det = NULL, *w = NULL, *v = NULL, *s = NULL, *inv = NULL;
    CHECK_OK(tsr_linalg_cholesky(a, 0, &l));
    {
      const double want[4] = {2.0, 0.0, 1.0, sqrt(2.0)};
      expect(l, want, 4, "cholesky");
    }
    CHECK_OK(tsr_linalg_solve(a, b, &sol)); /* 4x + 2y = 2, 2x + 3y = 1: x = 0.5, y = 0 */
    {
      const double want[2] = {0.5, 0.0};
      expect(sol, want, 2, "solve");
    }
    CHECK_OK(tsr_linalg_det(a, &det));
    {
      const double want[1] = {8.0};
      expect(det, want, 1, "det");
    }
    CHECK_OK(tsr_linalg_eigh(a, &w, &v)); /* (7 -+ sqrt(17)) / 2 */
    {
      const double want[2] = {(7.0 - sqrt(17.0)) / 2, (7.0 + sqrt(17.0)) / 2};
      expect(w, want, 2, "eigh");
    }
    CHECK_OK(tsr_linalg_svd(a, 0, NULL, &s, NULL)); /* symmetric positive: the eigenvalues, descending */
    {
      const double want[2] = {(7.0 + sqrt(17.0)) / 2, (7.0 - sqrt(17.0)) / 2};
      expect(s, want, 2, "svdvals");
    }
    CHECK_FAILS(tsr_linalg_inv(sing, &inv), TSR_ERR_LINALG, "linalg.inv: (Batch element 1): The diagonal element 2 is zero");
    CHECK(inv == NULL);
    CHECK_FAILS(tsr_linalg_cholesky(sing, 0, &inv), TSR_ERR_LINALG, "(Batch element 1)");
    CHECK_FAILS(tsr_linalg_inv(b, &inv), TSR_ERR_SHAPE, "at least 2 dimensions");
    CHECK_FAILS(tsr_linalg_svd(a, 0, &inv, &s, NULL), TSR_ERR_INVALID_ARGUMENT, "u and vh");
    tsr_tensor_release(l);
    tsr_tensor_release(sol);
    tsr_tensor_release(det);
    tsr_tensor_release(w);
    tsr_tensor_release(v);
    tsr_tensor_release(s);
    tsr_tensor_release(a);
    tsr_tensor_release(b);
    tsr_tensor_release(sing);
  }

  check_large_linalg();
  check_complex_linalg();
  check_eig();

  tsr_tensor_release(nz);
  tsr_tensor_release(values);
  tsr_tensor_release(indices);
  tsr_tensor_release(src);
  tsr_tensor_release(z);
  tsr_tensor_release(idx);
  tsr_tensor_release(m);
  tsr_tensor_release(x);
  CHECK(tsr_runtime_destroy(rt) == TSR_OK);
  if (failures == 0) printf("c99_functions: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
