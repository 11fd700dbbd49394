/* SPDX-License-Identifier: Apache-2.0 */
// LAPACK's Fortran routines (OpenBLAS's, linked into cuda_emu.so) by
// element type, for the emulated cuSOLVER (cusolverDn.h) and cuBLAS's
// batched LU (cublas_v2.h).
#pragma once

#include <complex>
#include <cstddef>
#include <type_traits>

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
void sgeev_(const char*, const char*, const int*, float*, const int*, float*, float*, float*, const int*, float*,
            const int*, float*, const int*, int*, size_t, size_t);
void dgeev_(const char*, const char*, const int*, double*, const int*, double*, double*, double*, const int*, double*,
            const int*, double*, const int*, int*, size_t, size_t);
}

// The complex routines: C and Z (std::complex has Fortran's COMPLEX layout);
// ungqr and heevd stand where orgqr and syevd stand for real matrices.
#define TSR_EMU_LAPACK_COMPLEX(Z, R, p)                                                                                  \
  void p##potrf_(const char*, const int*, Z*, const int*, int*, size_t);                                                 \
  void p##getrf_(const int*, const int*, Z*, const int*, int*, int*);                                                   \
  void p##getrs_(const char*, const int*, const int*, const Z*, const int*, const int*, Z*, const int*, int*, size_t);   \
  void p##getri_(const int*, Z*, const int*, const int*, Z*, const int*, int*);                                         \
  void p##geqrf_(const int*, const int*, Z*, const int*, Z*, Z*, const int*, int*);                                     \
  void p##ungqr_(const int*, const int*, const int*, Z*, const int*, const Z*, Z*, const int*, int*);                    \
  void p##gesvd_(const char*, const char*, const int*, const int*, Z*, const int*, R*, Z*, const int*, Z*, const int*,   \
                 Z*, const int*, R*, int*, size_t, size_t);                                                              \
  void p##heevd_(const char*, const char*, const int*, Z*, const int*, R*, Z*, const int*, R*, const int*, int*,         \
                 const int*, int*, size_t, size_t);                                                          \
  void p##geev_(const char*, const char*, const int*, Z*, const int*, Z*, Z*, const int*, Z*, const int*, Z*,         \
                const int*, R*, int*, size_t, size_t);
extern "C" {
TSR_EMU_LAPACK_COMPLEX(std::complex<float>, float, c)
TSR_EMU_LAPACK_COMPLEX(std::complex<double>, double, z)
}
#undef TSR_EMU_LAPACK_COMPLEX


namespace tessera_cuda_emu {

template <class T> struct Lapack;
// orgqr and syevd: ungqr and heevd for complex matrices.
#define TSR_EMU_LAPACK(T, p, ORGQR, SYEVD)         \
  template <> struct Lapack<T> {                   \
    static constexpr auto potrf = p##potrf_;       \
    static constexpr auto getrf = p##getrf_;       \
    static constexpr auto getrs = p##getrs_;       \
    static constexpr auto getri = p##getri_;       \
    static constexpr auto geqrf = p##geqrf_;       \
    static constexpr auto orgqr = p##ORGQR##_;     \
    static constexpr auto gesvd = p##gesvd_;       \
    static constexpr auto syevd = p##SYEVD##_;     \
    static constexpr auto geev = p##geev_;         \
  };
TSR_EMU_LAPACK(float, s, orgqr, syevd)
TSR_EMU_LAPACK(double, d, orgqr, syevd)
TSR_EMU_LAPACK(std::complex<float>, c, ungqr, heevd)
TSR_EMU_LAPACK(std::complex<double>, z, ungqr, heevd)
#undef TSR_EMU_LAPACK

// The real type of T's values (singular values, eigenvalues): T itself, or
// the complex type's parts.
template <class T> struct RealOf {
  using type = T;
};
template <class T> struct RealOf<std::complex<T>> {
  using type = T;
};
template <class T> using real_of_t = typename RealOf<T>::type;
template <class T> inline constexpr bool is_complex_v = !std::is_same_v<T, real_of_t<T>>;

}  // namespace tessera_cuda_emu
