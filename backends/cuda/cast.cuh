// SPDX-License-Identifier: Apache-2.0
// Casting copies out = convert<Out>(in) for one output dtype and every other
// input dtype, through the pointwise driver (bandwidth: elementwise.cuh). The
// 210 (out, in) pairs are split over copy_cast_floating.cu,
// copy_cast_integral.cu, copy_cast_unsigned.cu (into uint16/32/64) and
// copy_cast_complex.cu so that they compile in parallel. A complex value
// cast to a real dtype keeps its real part (Note [Complex dtypes]).
#pragma once

#include "elementwise.cuh"
#include "kernels.hpp"

namespace tessera::cuda {

template <class Out, class In> struct Convert {
  __host__ __device__ Out operator()(In x) const { return convert<Out>(x); }
};

template <int D> bool cast_to(const Exec& ex, const tsr_tensor_desc& out, const tsr_tensor_desc& in) {
  bool done = false;
  if constexpr (!dtype_built(D)) return done;  // Note [Kernel dtypes of a build]
  for_each_dtype([&]<int S>(std::integral_constant<int, S>) {
    if constexpr (S != D && dtype_built(S)) {
      if (S == in.dtype) {
        pointwise<storage_t<D>, storage_t<S>>(ex, out, {&in}, Convert<storage_t<D>, storage_t<S>>{});
        done = true;
      }
    }
  });
  return done;
}

}  // namespace tessera::cuda
