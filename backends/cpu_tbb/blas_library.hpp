// SPDX-License-Identifier: Apache-2.0
// OpenBLAS, opened on first use: its CBLAS for MATMUL (matmul.cpp) and its
// LAPACK for the LINALG kind (linalg.cpp).
//
// Note [BLAS on first use]
//   Loading OpenBLAS costs ~5 ms (its relocations and its thread pool), a
//   quarter of a whole `tessera info` run, and many programs never multiply
//   matrices large enough to need it. So cpu_tbb.so does not link it: the
//   first product or factorisation that needs it opens the library CMake
//   found, by its SONAME (TESSERA_BLAS_SONAME), once per process (a
//   function-local static: thread-safe), and each user looks up its symbols
//   once. The library stays loaded (RTLD_NODELETE: its threads must outlive
//   any unload of the plugin, as TBB's do). A library that cannot be opened
//   fails those calls with TSR_ERR_LOAD naming it; small products
//   (small_gemm) and the other dtypes never need it. OpenBLAS carries
//   LAPACK (reference LAPACK built with its BLAS), so LINALG calls LAPACK's
//   Fortran routines from the same library: one library, no LAPACKE layer
//   (the kernels copy each matrix to column-major order anyway).
#pragma once

#include <string>

namespace tessera::cpu_tbb {

struct BlasLibrary {
  void* handle = nullptr;
  std::string problem;  // why it cannot be used; empty when opened
};

// Note [Serial BLAS]
//   OpenBLAS threads a call itself, and that pays for its GEMM-rich routines
//   (gemm, getrf, potrf). It does not pay for QR, SVD and EIGH of a large
//   matrix: their reductions (geqrf's panels, gebrd, sytrd) are bound by
//   matrix-vector products, and a threaded call leaves OpenBLAS's workers
//   spinning on cores for a while afterwards. On 2 cores (2026-12-01)
//   OpenBLAS's second thread won under 5 % on sytrd (n = 512) and orgqr
//   (n = 1024) and lost 19 % on gebrd (n = 512), while two ormqr calls on
//   two column halves beat one threaded orgqr by 18 % with 1.5x its flops.
//   So those kernels run OpenBLAS on the calling thread and
//   spread what is independent themselves: applying the reflectors to
//   column blocks of Q, U, V^T or the eigenvectors, one block per arena
//   thread (linalg.cpp). OpenBLAS 0.3.21's thread count is one number for
//   the whole process (openblas_set_num_threads); a SerialBlas counts its
//   holders so the count set before the first is restored when the last
//   leaves. Meanwhile a BLAS call elsewhere in the process runs on one
//   thread: slower, never wrong. A BLAS without the call is left alone.
class SerialBlas {
 public:
  SerialBlas();
  ~SerialBlas();
  SerialBlas(const SerialBlas&) = delete;
  SerialBlas& operator=(const SerialBlas&) = delete;
};

// The library, opened on the first call.
const BlasLibrary& blas_library();

// A symbol of the library; nullptr when it is missing or the library could
// not be opened. blas_symbol<F>: the same as a function pointer F.
void* blas_symbol_address(const char* name);
template <class F> F blas_symbol(const char* name) { return reinterpret_cast<F>(blas_symbol_address(name)); }

}  // namespace tessera::cpu_tbb
