/* SPDX-License-Identifier: Apache-2.0 */
/* A C99 program using Tessera through the public C API only: it creates
 * tensors, runs ops through the registry, reads the results, and reads the
 * error message after bad calls. Exit status 0 when every check holds. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tessera/element.h"
#include "tessera/tessera.h"

static int failures = 0;

#define CHECK(cond)                                                  \
  do {                                                               \
    if (!(cond)) {                                                   \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                    \
    }                                                                \
  } while (0)

#define CHECK_OK(call)                                                             \
  do {                                                                             \
    tsr_status st_ = (call);                                                       \
    if (st_ != TSR_OK) {                                                           \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, tsr_last_error_message()); \
      ++failures;                                                                  \
    }                                                                              \
  } while (0)

int main(int argc, char** argv) {
  tsr_runtime_options opts;
  tsr_runtime* rt = NULL;
  tsr_device cpu;
  tsr_tensor *a = NULL, *b = NULL, *c = NULL, *s = NULL, *t = NULL, *bad = NULL;
  int64_t shape[2] = {2, 3};
  int64_t row_shape[1] = {3};
  float a_data[6] = {1, 2, 3, 4, 5, 6};
  float b_data[3] = {10, 20, 30};
  float out[6];
  int64_t twelve[1] = {6};
  tsr_scalar total;
  char* text = NULL;
  int i;

  memset(&opts, 0, sizeof opts);
  opts.struct_size = TSR_RUNTIME_OPTIONS_STRUCT_SIZE;
  opts.abi_version = TSR_ABI_VERSION; /* a library of another major refuses us */
  opts.config_path = argc > 1 ? argv[1] : NULL;
  if (tsr_runtime_create(&opts, &rt) != TSR_OK) {
    fprintf(stderr, "runtime: %s\n", tsr_last_error_message());
    return 1;
  }
  CHECK(TSR_VERSION_MAJOR(tsr_abi_version()) == TSR_ABI_VERSION_MAJOR);
  CHECK_OK(tsr_device_parse(rt, "cpu", &cpu));

  /* (2, 3) + (3,) broadcasts; the sum goes through the registry's kernels. */
  CHECK_OK(tsr_from_host(rt, a_data, 2, shape, TSR_FLOAT32, cpu, &a));
  CHECK_OK(tsr_from_host(rt, b_data, 1, row_shape, TSR_FLOAT32, cpu, &b));
  CHECK_OK(tsr_binary(TSR_OP_ADD, a, b, &c));
  CHECK(tsr_tensor_ndim(c) == 2 && tsr_tensor_shape(c)[0] == 2 && tsr_tensor_shape(c)[1] == 3);
  CHECK(tsr_tensor_dtype(c) == TSR_FLOAT32);
  CHECK_OK(tsr_read(c, out, sizeof out));
  for (i = 0; i < 6; ++i) CHECK(out[i] == a_data[i] + b_data[i % 3]);
  CHECK_OK(tsr_reduce(TSR_OP_SUM, c, 0, NULL, 0, &s));
  CHECK_OK(tsr_item(s, &total));
  CHECK(total.kind == TSR_SCALAR_FLOAT && fabs(total.f - 141.0) < 1e-9);
  CHECK_OK(tsr_format(c, &text));
  CHECK(text != NULL && strcmp(text, "tensor([[11., 22., 33.],\n        [14., 25., 36.]])") == 0);
  if (text) printf("%s\n", text);
  tsr_string_free(text);

  /* Views share storage: the transpose has strides (1, 3). */
  CHECK_OK(tsr_t(a, &t));
  CHECK(tsr_tensor_strides(t)[0] == 1 && tsr_tensor_strides(t)[1] == 3);
  CHECK(tsr_tensor_storage_data(t) == tsr_tensor_storage_data(a));
  CHECK(!tsr_tensor_is_contiguous(t));

  /* Bad calls fail with a status and a message, and change nothing. */
  CHECK(tsr_view(t, 1, twelve, &bad) == TSR_ERR_SHAPE && bad == NULL);
  CHECK(strstr(tsr_last_error_message(), "view size is not compatible") != NULL);
  printf("view error: %s\n", tsr_last_error_message());
  CHECK(tsr_binary(TSR_OP_ADD, a, t, &bad) == TSR_ERR_SHAPE && bad == NULL);
  CHECK(strstr(tsr_last_error_message(), "must match the size of tensor b") != NULL);
  printf("broadcast error: %s\n", tsr_last_error_message());
  CHECK(tsr_binary(TSR_OP_ADD, NULL, b, &bad) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(strstr(tsr_last_error_message(), "NULL") != NULL);

  /* tessera/element.h: one element of any dtype as a double, both ways. */
  {
    unsigned char cell[16]; /* the widest element: complex128 */
    const unsigned char untouched[8] = {7, 7, 7, 7, 7, 7, 7, 7};
    const int64_t big = ((int64_t)1 << 53) + 1;
    int32_t d;
    for (d = 0; d < TSR_DTYPE_COUNT; ++d) {
      const double v = d == TSR_BOOL ? 1.0 : tsr_dtype_is_unsigned(d) ? 200.0 : -3.0;
      tsr_element_from_double(d, cell, v);
      CHECK(tsr_element_to_double(d, cell) == v);
    }
    tsr_element_from_double(TSR_FLOAT16, cell, 1.0 / 3.0);
    CHECK(tsr_element_to_double(TSR_FLOAT16, cell) == 0.333251953125);
    tsr_element_from_double(TSR_BFLOAT16, cell, 1.0 / 3.0);
    CHECK(tsr_element_to_double(TSR_BFLOAT16, cell) == 0.333984375);
    tsr_element_from_double(TSR_INT8, cell, -2.9);
    CHECK(tsr_element_to_double(TSR_INT8, cell) == -2.0);
    tsr_element_from_double(TSR_BOOL, cell, 0.5);
    CHECK(cell[0] == 1);
    cell[0] = 2; /* not a valid bool: reads as its byte, so it shows */
    CHECK(tsr_element_to_double(TSR_BOOL, cell) == 2.0);
    memcpy(cell, &big, 8);
    CHECK(tsr_element_to_double(TSR_INT64, cell) == 9007199254740992.0);
    memcpy(cell, untouched, 8);
    tsr_element_from_double(42, cell, 1.0);
    CHECK(memcmp(cell, untouched, 8) == 0 && tsr_element_to_double(42, cell) == 0.0);
    /* ABI 1.7: a complex element is (real, imaginary), the real part first. */
    {
      const float parts[2] = {1.5f, -2.0f};
      memcpy(cell, parts, 8);
      CHECK(tsr_element_to_double(TSR_COMPLEX64, cell) == 1.5 && tsr_element_imag(TSR_COMPLEX64, cell) == -2.0);
      tsr_element_from_double(TSR_COMPLEX128, cell, 3.0);
      CHECK(tsr_element_to_double(TSR_COMPLEX128, cell) == 3.0 && tsr_element_imag(TSR_COMPLEX128, cell) == 0.0);
      CHECK(tsr_element_imag(TSR_FLOAT64, cell) == 0.0);
    }
  }

  /* Complex tensors (ABI 1.7): a complex scalar, item, and the parts as views. */
  {
    const int64_t two = 2;
    const double data[4] = {1.0, 2.0, -3.0, 0.5}; /* 1+2j, -3+0.5j */
    tsr_tensor *z = NULL, *zz = NULL, *re = NULL, *im = NULL, *mag = NULL;
    tsr_scalar v = tsr_scalar_complex(0.25, -4.0);
    CHECK(v.kind == TSR_SCALAR_COMPLEX && v.f == 0.25 && tsr_scalar_imag(v) == -4.0);
    CHECK(tsr_scalar_imag(tsr_scalar_float(1.0)) == 0.0);
    CHECK(tsr_dtype_size(TSR_COMPLEX128) == 16 && tsr_dtype_is_complex(TSR_COMPLEX64) &&
          !tsr_dtype_is_floating(TSR_COMPLEX64) && tsr_dtype_real(TSR_COMPLEX128) == TSR_FLOAT64 &&
          tsr_dtype_complex(TSR_FLOAT32) == TSR_COMPLEX64 && tsr_dtype_complex(TSR_INT8) == TSR_DTYPE_UNDEFINED);
    CHECK_OK(tsr_from_host(rt, data, 1, &two, TSR_COMPLEX128, cpu, &z));
    CHECK_OK(tsr_binary_scalar(TSR_OP_MUL, z, v, 0, &zz)); /* (1+2j)(0.25-4j) = 8.25-3.5j */
    {
      const int64_t first = 0;
      tsr_scalar got;
      CHECK_OK(tsr_tensor_get_item(zz, 1, &first, &got));
      CHECK(got.kind == TSR_SCALAR_COMPLEX && got.f == 8.25 && tsr_scalar_imag(got) == -3.5);
    }
    CHECK_OK(tsr_real(z, &re));
    CHECK_OK(tsr_imag(z, &im));
    CHECK(tsr_tensor_dtype(re) == TSR_FLOAT64 && tsr_tensor_storage_offset(im) == 1 && tsr_tensor_strides(im)[0] == 2);
    {
      double parts[2];
      const int64_t stride = 1;
      CHECK_OK(tsr_copy_to_host(im, parts, sizeof parts, &stride));
      CHECK(parts[0] == 2.0 && parts[1] == 0.5);
    }
    CHECK_OK(tsr_unary(TSR_OP_ABS, z, &mag)); /* |1+2j| = sqrt(5), a float64 */
    CHECK(tsr_tensor_dtype(mag) == TSR_FLOAT64);
    {
      tsr_tensor* none = NULL;
      CHECK(tsr_real(NULL, &none) == TSR_ERR_INVALID_ARGUMENT && none == NULL);
      CHECK(tsr_imag(re, &none) == TSR_ERR_TYPE && none == NULL);
      CHECK(strstr(tsr_last_error_message(), "imag") != NULL);
    }
    tsr_tensor_release(mag);
    tsr_tensor_release(im);
    tsr_tensor_release(re);
    tsr_tensor_release(zz);
    tsr_tensor_release(z);
  }

  /* One element by index, and a column-major (Fortran) copy out (ABI 1.4). */
  {
    const int64_t at[2] = {-1, 0}; /* c[1][0] = 4 + 10 */
    float fortran_out[6];
    const int64_t col_major[2] = {1, 2};
    tsr_scalar v;
    CHECK_OK(tsr_tensor_get_item(c, 2, at, &v));
    CHECK(v.kind == TSR_SCALAR_FLOAT && v.f == 14.0);
    CHECK_OK(tsr_tensor_set_item(c, 2, at, tsr_scalar_float(-1.0)));
    CHECK_OK(tsr_copy_to_host(c, fortran_out, sizeof fortran_out, col_major));
    CHECK(fortran_out[0] == 11.0f && fortran_out[1] == -1.0f && fortran_out[2] == 22.0f && fortran_out[5] == 36.0f);
    CHECK(tsr_tensor_is_host_accessible(c) == 1);
    CHECK(tsr_dtype_itemsize(TSR_FLOAT32) == 4 && strcmp(tsr_op_get_name(TSR_OP_ADD), "add") == 0);
    CHECK(tsr_op_count() == TSR_OP_COUNT && strcmp(tsr_op_get_name(TSR_OP_RAND_NORMAL), "randn") == 0 &&
          strcmp(tsr_op_get_name(tsr_op_count() - 1), tsr_op_name(TSR_OP_COUNT - 1)) == 0);
    CHECK(tsr_op_kind(TSR_OP_LT) == TSR_OP_KIND_COMPARE && tsr_op_arity(TSR_OP_MATMUL) == 2);
  }

  tsr_tensor_release(t);
  tsr_tensor_release(s);
  tsr_tensor_release(c);
  tsr_tensor_release(b);
  tsr_tensor_release(a);
  /* Nothing is alive any more, so the shutdown succeeds. */
  CHECK(tsr_runtime_destroy(rt) == TSR_OK);
  printf("c99_consumer: %d check(s) failed\n", failures);
  return failures == 0 ? 0 : 1;
}
