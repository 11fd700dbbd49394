// SPDX-License-Identifier: Apache-2.0
// GATHER and SCATTER along params[0] (Note [Kernel contracts]). GATHER
// walks the output (index's shape) in parallel; SCATTER walks src in order
// on one thread, because two of its elements may land on one output
// element (stores: the last wins here; adds: summed in src's row-major
// order). Indices arrive checked, in [-n, n); negative ones count from the
// end.
#include "kernels.hpp"
#include "parallel.hpp"

namespace tessera::cpu_tbb {

namespace {

inline int64_t wrap_index(int64_t i, int64_t n) { return i < 0 ? i + n : i; }

// How far ahead a 1-d gather prefetches its random reads, in elements.
constexpr int64_t kPrefetchAhead = 16;

template <int Op, int D> struct GatherKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 2, 0, 1);
    const tsr_tensor_desc& x = *a.inputs[0];
    const tsr_tensor_desc& index = *a.inputs[1];
    const tsr_tensor_desc& out = *a.output;
    const int64_t dim = backend::check_gather_operands("cpu_tbb", a, D);
    using S = storage_t<D>;
    const S* xs = static_cast<const S*>(x.data) + x.offset;
    const int64_t* is = static_cast<const int64_t*>(index.data) + index.offset;
    S* os = static_cast<S*>(out.data) + out.offset;
    int64_t x_strides[TSR_MAX_DIMS];
    for (int d = 0; d < x.ndim; ++d) x_strides[d] = d == dim ? 0 : x.strides[d];
    const int64_t n = x.shape[dim], step = x.strides[dim];
    const int64_t total = numel_of(out);
    if (out.ndim == 1) {  // take and 1-d gathers: plain loops, the reads prefetched
      const int64_t os_step = out.strides[0], is_step = index.strides[0];
      maybe_parallel(ctx, total, total, kParallelGrain, [&](int64_t e0, int64_t e1) {
        for (int64_t e = e0; e < e1; ++e) {
          // Random reads are latency bound: ask for one kPrefetchAhead
          // elements on while this one loads, as the hardware cannot guess it.
          if (e + kPrefetchAhead < e1) __builtin_prefetch(xs + wrap_index(is[(e + kPrefetchAhead) * is_step], n) * step);
          os[e * os_step] = xs[wrap_index(is[e * is_step], n) * step];
        }
      });
      return;
    }
    maybe_parallel(ctx, total, total, kParallelGrain, [&](int64_t e0, int64_t e1) {
      StridedWalk<3> w(out.ndim, out.shape, {out.strides, index.strides, x_strides}, e0);
      for (int64_t e = e0; e < e1; ++e) {
        os[w.off[0]] = xs[w.off[2] + wrap_index(is[w.off[1]], n) * step];
        if (e + 1 < e1) w.next();
      }
    });
  }
};

template <int Op, int D> struct ScatterKernel {
  static void run(Context&, const tsr_kernel_args& a) {
    check_args(a, D, 2, 0, 2);
    const tsr_tensor_desc& index = *a.inputs[0];
    const tsr_tensor_desc& src = *a.inputs[1];
    const tsr_tensor_desc& out = *a.output;
    backend::check_scatter_operands("cpu_tbb", a, D);
    const int64_t dim = a.params[0], mode = a.params[1];
    using S = storage_t<D>;
    const int64_t* is = static_cast<const int64_t*>(index.data) + index.offset;
    const S* ss = static_cast<const S*>(src.data) + src.offset;
    S* os = static_cast<S*>(out.data) + out.offset;
    int64_t out_strides[TSR_MAX_DIMS];
    for (int d = 0; d < out.ndim; ++d) out_strides[d] = d == dim ? 0 : out.strides[d];
    const int64_t n = out.shape[dim], step = out.strides[dim];
    const int64_t total = numel_of(index);
    if (total == 0) return;
    StridedWalk<3> w(index.ndim, index.shape, {index.strides, src.strides, out_strides}, 0);
    for (int64_t e = 0; e < total; ++e) {
      S& target = os[w.off[2] + wrap_index(is[w.off[0]], n) * step];
      if (mode == 0) {
        target = ss[w.off[1]];
      } else if constexpr (D != TSR_BOOL) {
        if constexpr (std::is_integral_v<compute_t<D>>) target = wrap_add(load(target), load(ss[w.off[1]]));
        else target = store<S>(load(target) + load(ss[w.off[1]]));
      }
      if (e + 1 < total) w.next();
    }
  }
};

}  // namespace

void add_gather_kernels(KernelList& list) {
  add_kernels<GatherKernel, TSR_OP_GATHER>(list);
  add_kernels<ScatterKernel, TSR_OP_SCATTER>(list);
}

}  // namespace tessera::cpu_tbb
