// SPDX-License-Identifier: Apache-2.0
// COPY: out = inputs[0] converted to the output's dtype, between any two
// layouts. A same-dtype copy moves raw element bits: one cudaMemcpyAsync when
// both sides are one dense run, the tiled kernel for transposes, else the
// strided kernel on an unsigned type of the element's size (5 instantiations
// serve all 15 dtypes). Casts (210 pairs) live in copy_cast_*.cu.
//
// Bandwidth: see elementwise.cuh (flat, strided) and transpose.cuh (tiled);
// a dense same-dtype copy runs at the copy engine's/SMs' device-to-device rate.
#include "elementwise.cuh"
#include "kernels.hpp"
#include "transpose.cuh"

namespace tessera::cuda {

bool cast_copy_to_floating(const Exec& ex, const tsr_tensor_desc& out, const tsr_tensor_desc& in);
bool cast_copy_to_integral(const Exec& ex, const tsr_tensor_desc& out, const tsr_tensor_desc& in);
bool cast_copy_to_unsigned(const Exec& ex, const tsr_tensor_desc& out, const tsr_tensor_desc& in);
bool cast_copy_to_complex(const Exec& ex, const tsr_tensor_desc& out, const tsr_tensor_desc& in);

namespace {

#if defined(TSR_KERNELS)
template <class T, int TILE> __global__ void __launch_bounds__(kTileThreadsX* kTileThreadsY) tiled_kernel(const TileParams p) {
  __shared__ T tile[TILE * (TILE + 1)];
  const TileOrigin o = tile_origin<TILE>(p, blockIdx.x, blockIdx.y, blockIdx.z);
  tile_load<T, TILE>(p, o, tile, threadIdx.x, threadIdx.y);
  __syncthreads();
  tile_store<T, TILE>(p, o, tile, threadIdx.x, threadIdx.y);
}
#endif

// complex128's element: 16 bytes moved as one (trivial, so it fits __shared__ tiles).
struct alignas(16) Bits128 {
  uint64_t lo, hi;
};

template <class T> struct Identity {
  __host__ __device__ T operator()(T x) const { return x; }
};

template <class T> void copy_raw(const Exec& ex, const tsr_tensor_desc& out, const tsr_tensor_desc& in) {
  const Plan<2> plan = make_plan(std::array<const tsr_tensor_desc*, 2>{&out, &in}, true);
  if (plan.numel <= 0) return;
  if (plan.ndim == 1 && plan.stride[0][0] == 1 && plan.stride[0][1] == 1) {
    ex.check(cudaMemcpyAsync(plan.base[0], plan.base[1], static_cast<size_t>(plan.numel) * sizeof(T), cudaMemcpyDeviceToDevice, ex.stream),
             "cudaMemcpyAsync (device to device)");
    return;
  }
  constexpr int TILE = kTile<sizeof(T)>;
  if (const auto tp = plan_tiled(plan, TILE)) {
    const dim3 grid(static_cast<unsigned>(tp->tiles_a), static_cast<unsigned>(tp->tiles_b), tp->batches);
    TSR_LAUNCH(grid, dim3(kTileThreadsX, kTileThreadsY), ex.stream, tiled_kernel<T, TILE>)(*tp);
    ex.check_launch("tiled_kernel");
    return;
  }
  pointwise<T, T>(ex, out, {&in}, Identity<T>{});
}

template <int Op, int D> struct CopyKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 0);
    const tsr_tensor_desc& out = *a.output;
    const tsr_tensor_desc& in = *a.inputs[0];
    check_dtype(a, D, out, D, "output");
    check_same_shape(a, D, in, "input");
    if (in.dtype == D) {
      copy_same_dtype(ex, out, in);
      return;
    }
    const bool done = tsr_dtype_is_floating(D)                        ? cast_copy_to_floating(ex, out, in)
                      : tsr_dtype_is_complex(D)                       ? cast_copy_to_complex(ex, out, in)
                      : D == TSR_UINT16 || D == TSR_UINT32 || D == TSR_UINT64 ? cast_copy_to_unsigned(ex, out, in)
                                                                               : cast_copy_to_integral(ex, out, in);
    if (!done) fail(TSR_ERR_TYPE, where(a, D) + "unknown input dtype " + std::to_string(in.dtype));
  }
};

}  // namespace

void copy_same_dtype(const Exec& ex, const tsr_tensor_desc& out, const tsr_tensor_desc& in) {
  switch (tsr_dtype_size(out.dtype)) {
    case 1: return copy_raw<uint8_t>(ex, out, in);
    case 2: return copy_raw<uint16_t>(ex, out, in);
    case 4: return copy_raw<uint32_t>(ex, out, in);
    case 8: return copy_raw<uint64_t>(ex, out, in);
    case 16: return copy_raw<Bits128>(ex, out, in);
    default: fail(TSR_ERR_TYPE, ex.where() + "unknown dtype " + std::to_string(out.dtype));
  }
}

void add_copy_kernels(KernelList& list) { add_kernels<CopyKernel, TSR_OP_COPY>(list); }

}  // namespace tessera::cuda
