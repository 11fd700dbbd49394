// SPDX-License-Identifier: Apache-2.0
// The reduction kernels, their launcher and the kernel-table entry (see
// reduce.cuh for the design). Included by reduce_sum.cu and reduce_minmax.cu,
// which instantiate them for their ops.
#pragma once

#include "reduce.cuh"

namespace tessera::cuda {

#if defined(TSR_KERNELS)
template <class R, int V> __global__ void __launch_bounds__(kReduceBlock) inner_kernel(const ReduceParams p) {
  using acc_t = typename R::acc_t;
  __shared__ acc_t warp_partial[kReduceBlock / 32];
  const InnerPosition q = inner_position(p, blockIdx.x, static_cast<int>(threadIdx.x));
  acc_t acc = q.active ? inner_thread<R, V>(p, q.o, q.s, q.lane) : R::init();
  acc = warp_fold<R>(acc);
  if (p.team == kReduceBlock) {  // uniform over the block: every thread reaches the barrier
    if (threadIdx.x % 32 == 0) warp_partial[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
      acc = warp_partial[0];
      for (int w = 1; w < kReduceBlock / 32; ++w) R::merge(acc, warp_partial[w]);
    }
  }
  if (q.active && q.lane == 0) write_result<R>(p, q.o, q.s, acc);
}

template <class R> __global__ void __launch_bounds__(kReduceBlock) column_kernel(const ReduceParams p) {
  using acc_t = typename R::acc_t;
  __shared__ acc_t lanes[kColumnLanes][kColumnWidth];
  const int x = static_cast<int>(threadIdx.x % kColumnWidth), lane = static_cast<int>(threadIdx.x / kColumnWidth);
  int64_t s;
  const int64_t o = column_output(p, blockIdx.x, x, s);
  acc_t acc = o >= 0 ? column_thread<R>(p, o, s, lane) : R::init();
  lanes[lane][x] = acc;
  __syncthreads();
  if (lane == 0 && o >= 0) {
    for (int l = 1; l < kColumnLanes; ++l) R::merge(acc, lanes[l][x]);
    write_result<R>(p, o, s, acc);
  }
}

// One block of finish_threads(p.slices) threads per output: folds its
// slices' partials, writes the result.
template <class R> __global__ void __launch_bounds__(kReduceBlock) finish_kernel(const ReduceParams p) {
  using acc_t = typename R::acc_t;
  __shared__ acc_t warp_partial[kReduceBlock / 32];
  const int64_t o = blockIdx.x;
  const int threads = static_cast<int>(blockDim.x);
  const acc_t* partial = reinterpret_cast<const acc_t*>(p.partial) + o * p.slices;
  acc_t acc = R::init();
  for (int64_t s = threadIdx.x; s < p.slices; s += threads) R::merge(acc, partial[s]);
  acc = warp_fold<R>(acc);
  if (threadIdx.x % 32 == 0) warp_partial[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    acc = warp_partial[0];
    for (int w = 1; w < threads / 32; ++w) R::merge(acc, warp_partial[w]);
    write_output<R>(p, o, acc);
  }
}

#endif  // TSR_KERNELS

template <class R>
void run_reduce(const Exec& ex, const tsr_tensor_desc& in, const tsr_tensor_desc& out, const bool* reduced) {
  using in_t = typename R::in_t;
  using acc_t = typename R::acc_t;
  using out_t = typename R::out_t;
  constexpr int V = 16 / static_cast<int>(sizeof(in_t));
  const ReducePlan rp = make_reduce_plan(in, out, reduced, R::uses_index);
  if (rp.n_out == 0) return;
  if constexpr (!R::has_identity) {
    if (rp.count == 0) fail(TSR_ERR_INVALID_ARGUMENT, ex.where() + "cannot reduce over zero elements: the operation has no identity");
  }
  ReduceParams p = plan_reduce(rp, static_cast<const char*>(in.data) + in.offset * static_cast<int64_t>(sizeof(in_t)),
                               static_cast<char*>(out.data) + out.offset * static_cast<int64_t>(sizeof(out_t)),
                               sizeof(in_t), V);
  if (p.blocks > 0x7FFFFFFFu || (p.slices > 1 && p.n_out > 0x7FFFFFFF))
    fail(TSR_ERR_INVALID_ARGUMENT, ex.where() + "tensor too large for one launch");
  Workspace partial(ex, p.slices > 1 ? static_cast<size_t>(p.n_out * p.slices) * sizeof(acc_t) : 0);
  p.partial = partial.get();
  if (p.team == 0) {
    TSR_LAUNCH(static_cast<unsigned>(p.blocks), kReduceBlock, ex.stream, column_kernel<R>)(p);
    ex.check_launch("column_kernel");
  } else {
    TSR_LAUNCH(static_cast<unsigned>(p.blocks), kReduceBlock, ex.stream, inner_kernel<R, V>)(p);
    ex.check_launch("inner_kernel");
  }
  if (p.slices > 1) {
    TSR_LAUNCH(static_cast<unsigned>(p.n_out), finish_threads(p.slices), ex.stream, finish_kernel<R>)(p);
    ex.check_launch("finish_kernel");
  }
}

// The kernel-table entry: which dims are reduced, read off the shapes and
// params as the CPU backend does (backends/cpu_tbb/reduce.cpp).
template <int Op, int D> struct ReduceKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 0);
    const tsr_tensor_desc& in = *a.inputs[0];
    const tsr_tensor_desc& out = *a.output;
    check_dtype(a, D, in, D, "input");
    constexpr bool arg = Op == TSR_OP_ARGMAX || Op == TSR_OP_ARGMIN;
    const int out_dtype = arg ? TSR_INT64 : (Op == TSR_OP_SUM || Op == TSR_OP_PROD) ? sum_dtype(D) : D;
    check_dtype(a, D, out, out_dtype, "output");

    bool reduced[TSR_MAX_DIMS] = {};
    backend::find_reduced_dims("cuda", a, Op, D, in, out, reduced);
    if constexpr (Op == TSR_OP_SUM) run_reduce<SumReducer<D, false>>(ex, in, out, reduced);
    else if constexpr (Op == TSR_OP_MEAN) run_reduce<SumReducer<D, true>>(ex, in, out, reduced);
    else if constexpr (Op == TSR_OP_MAX) run_reduce<ExtremumReducer<D, true>>(ex, in, out, reduced);
    else if constexpr (Op == TSR_OP_MIN) run_reduce<ExtremumReducer<D, false>>(ex, in, out, reduced);
    else if constexpr (Op == TSR_OP_PROD) run_reduce<ProdReducer<D>>(ex, in, out, reduced);
    else run_reduce<ArgmaxReducer<D, Op == TSR_OP_ARGMIN>>(ex, in, out, reduced);
  }
};

void add_sum_kernels(KernelList& list);     // reduce_sum.cu
void add_argmax_kernels(KernelList& list);  // reduce_argmax.cu
void add_prod_argmin_kernels(KernelList& list);  // reduce_prod_argmin.cu

}  // namespace tessera::cuda
