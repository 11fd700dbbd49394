/* SPDX-License-Identifier: Apache-2.0 */
/* tessera/fft.h — discrete Fourier transforms (public API, since ABI 1.11).
 *
 * Included by tessera.h. One function, tsr_fft, computes what NumPy's and
 * torch.fft's fft, ifft, fftn, ifftn, rfft, irfft, rfftn and irfftn compute
 * (hfft and ihfft are irfft and rfft of the conjugate, the fftfreq and shift
 * helpers need no kernel): an n-dimensional transform as one-dimensional
 * transforms along each dim in turn, each one the FFT kind's kernel of
 * tessera/ops.h (FFT, RFFT, IRFFT; optional ops: a device without them runs
 * them on the CPU fallback, KissFFT).
 *
 * Ownership: x is borrowed for the call; *out gets one reference
 * (tsr_tensor_release ends it).
 *
 * Dtypes (PyTorch 1.13's rules): the result is complex64 or complex128
 * (real float32 or float64 for TSR_FFT_C2R), complex128 for float64 and
 * complex128 input, complex64 for everything else: bool, integers, float16
 * and bfloat16 are promoted to float32 first. TSR_FFT_R2C refuses a complex
 * x. Autograd (since ABI 1.12): the result records FftC2CBackward0,
 * FftR2CBackward0 (TSR_FFT_R2C, and TSR_FFT_C2C of a real x) or
 * FftC2RBackward0, PyTorch's nodes; its gradient is the adjoint transform
 * (the other direction, the same factors, trims and zero-pads undone), so
 * complex and real inputs alike get gradients (tessera/autograd.h).
 */
#ifndef TESSERA_FFT_H
#define TESSERA_FFT_H

#include <stddef.h>
#include <stdint.h>

#include "tessera/export.h"
#include "tessera/status.h"
#include "tessera/tensor_desc.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tsr_tensor;

/* What is transformed into what. */
typedef enum tsr_fft_kind {
  TSR_FFT_C2C = 0, /* complex to complex, every dim (fft, ifft, fftn, ifftn) */
  TSR_FFT_R2C = 1, /* real to complex: the last dim of dims first, n/2 + 1 values kept there (rfft, rfftn) */
  TSR_FFT_C2R = 2, /* complex (Hermitian half) to real: the last dim of dims last (irfft, irfftn) */
  TSR_FFT_KIND_MAX_ENUM = 0x7FFFFFFF
} tsr_fft_kind;

/* NumPy's and torch's norm argument: which direction is scaled. */
typedef enum tsr_fft_norm {
  TSR_FFT_NORM_BACKWARD = 0, /* "backward": the inverse transform scaled by 1/n (the default) */
  TSR_FFT_NORM_ORTHO = 1,    /* "ortho": both directions by 1/sqrt(n) (unitary) */
  TSR_FFT_NORM_FORWARD = 2,  /* "forward": the forward transform scaled by 1/n */
  TSR_FFT_NORM_MAX_ENUM = 0x7FFFFFFF
} tsr_fft_norm;

/* n[i] when the length of dims[i] is the input's (NumPy's n=None). */
#define TSR_FFT_N_DEFAULT (-1)

/* Note [Extensible structs] (tessera/status.h): fields are only appended. */
typedef struct tsr_fft_options {
  size_t struct_size; /* TSR_FFT_OPTIONS_STRUCT_SIZE */
  int32_t kind;       /* a tsr_fft_kind */
  int32_t inverse;    /* TSR_FFT_C2C: nonzero for the inverse transform (exp(+2 pi i jk/n)); R2C is
                         always forward and C2R always inverse, and they ignore it */
  int32_t norm;       /* a tsr_fft_norm */
  int32_t num_dims;   /* how many of dims are used, 0 .. TSR_MAX_DIMS; -1: every dim of x, in order,
                         each of the input's length (dims and n are then not read) */
  int64_t dims[TSR_MAX_DIMS]; /* the dims transformed, each in [-ndim, ndim), distinct */
  int64_t n[TSR_MAX_DIMS];    /* per dim, the transform's length >= 1 (the output's length on that
                                 dim; for C2R's last dim the real output's): the input is trimmed
                                 or padded with zeros to it (C2R's last dim: to n/2 + 1 values).
                                 TSR_FFT_N_DEFAULT: the input's size there (C2R's last dim:
                                 2 * (size - 1)) */
} tsr_fft_options;

#define TSR_FFT_OPTIONS_STRUCT_SIZE TSR_STRUCT_SIZE(tsr_fft_options, n)

/* Fills *options with the defaults: C2C forward, backward norm, every dim
 * of the input, lengths from the input (NumPy's fftn(x)). */
TSR_API tsr_status tsr_fft_options_init(tsr_fft_options* options);

/* The transform options describe (NULL: tsr_fft_options_init's) of x into a
 * new tensor *out. Errors, with NumPy's and torch.fft's messages: a length
 * below 1 (an empty dim with no n given, included) and a repeated dim are
 * TSR_ERR_INVALID_ARGUMENT, a dim out of range (and any dim of a 0-d x)
 * TSR_ERR_INDEX, a complex x for R2C TSR_ERR_TYPE. */
TSR_API tsr_status tsr_fft(struct tsr_tensor* x, const tsr_fft_options* options, struct tsr_tensor** out);

#ifdef __cplusplus
}
#endif

#endif /* TESSERA_FFT_H */
