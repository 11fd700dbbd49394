// SPDX-License-Identifier: Apache-2.0
// The device's cuBLAS handle, shared by MATMUL (matmul.cu, which makes it)
// and the batched LU of the LINALG kernels (linalg.cu). Host code only.
#pragma once

#include <cublas_v2.h>

#include "kernels.hpp"

namespace tessera::cuda {

// The device's handle, made on first use with its workspace; call with
// ex.dev.blas_mutex held (a handle serves one thread at a time).
cublasHandle_t blas_handle(const Exec& ex);
// A cuBLAS status other than success becomes an Error naming the op and `what`.
void check_blas(const Exec& ex, cublasStatus_t s, const char* what);

}  // namespace tessera::cuda
