/* SPDX-License-Identifier: Apache-2.0 */
// LAPACK's Fortran routines (OpenBLAS's, linked into cuda_emu.so) by
// element type, for the emulated cuSOLVER (cusolverDn.h) and cuBLAS's
// batched LU (cublas_v2.h).
#pragma once

#include <cstddef>

extern "C" {
// LAPACK's Fortran interface (gfortran: the hidden lengths of character arguments last).
void spotrf_(const char*, const int*, float*, const int*, int*, size_t);
void dpotrf_(const char*, const int*, double*, const int*, int*, size_t);
void sgetrf_(const int*, const int*, float*, const int*, int*, int*);
void dgetrf_(const int*, const int*, double*, const int*, int*, int*);
void sgetrs_(const char*, const int*, const int*, const float*, const int*, const int*, float*, const int*, int*, size_t);
void dgetrs_(const char*, const int*, const int*, const double*, const int*, const int*, double*, const int*, int*, size_t);
void sgeqrf_(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
void dgeqrf_(const int*, const int*, double*, const int*, double*, double*, const int*, int*);
void sorgqr_(const int*, const int*, const int*, float*, const int*, const float*, float*, const int*, int*);
void dorgqr_(const int*, const int*, const int*, double*, const int*, const double*, double*, const int*, int*);
void sgesvd_(const char*, const char*, const int*, const int*, float*, const int*, float*, float*, const int*, float*,
             const int*, float*, const int*, int*, size_t, size_t);
void dgesvd_(const char*, const char*, const int*, const int*, double*, const int*, double*, double*, const int*, double*,
             const int*, double*, const int*, int*, size_t, size_t);
void ssyevd_(const char*, const char*, const int*, float*, const int*, float*, float*, const int*, int*, const int*, int*,
             size_t, size_t);
void dsyevd_(const char*, const char*, const int*, double*, const int*, double*, double*, const int*, int*, const int*, int*,
             size_t, size_t);
void sgetri_(const int*, float*, const int*, const int*, float*, const int*, int*);
void dgetri_(const int*, double*, const int*, const int*, double*, const int*, int*);
}


namespace tessera_cuda_emu {

template <class T> struct Lapack;
#define TSR_EMU_LAPACK(T, p)                 \
  template <> struct Lapack<T> {             \
    static constexpr auto potrf = p##potrf_; \
    static constexpr auto getrf = p##getrf_; \
    static constexpr auto getrs = p##getrs_; \
    static constexpr auto getri = p##getri_; \
    static constexpr auto geqrf = p##geqrf_; \
    static constexpr auto orgqr = p##orgqr_; \
    static constexpr auto gesvd = p##gesvd_; \
    static constexpr auto syevd = p##syevd_; \
  };
TSR_EMU_LAPACK(float, s)
TSR_EMU_LAPACK(double, d)
#undef TSR_EMU_LAPACK

}  // namespace tessera_cuda_emu
