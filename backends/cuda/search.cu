// SPDX-License-Identifier: Apache-2.0
// SEARCHSORTED (ABI 1.11; Note [Kernel contracts], kind SEARCH): one thread
// per value, each a branch-free binary search of its row over SORT's keys
// (backends/common/search_sorted.hpp, the code cpu_tbb's search.cpp runs:
// the CPU reference). Neighbouring threads of a shared row probe the same
// first levels, which the caches serve; the last levels are random reads.
#include "elementwise.cuh"
#include "kernels.hpp"
#include "search_sorted.hpp"

namespace tessera::cuda {

namespace {

// Row-major position -> element offsets of values, out and the value's row
// of sorted (sorted's strides with 0 on the last dim).
struct SearchWalk {
  int ndim = 0;
  uint64_t numel = 0;
  int64_t m = 0, step = 0;
  int right = 0;
  int64_t shape[TSR_MAX_DIMS] = {};
  int64_t values[TSR_MAX_DIMS] = {}, out[TSR_MAX_DIMS] = {}, row[TSR_MAX_DIMS] = {};
};

#if defined(TSR_KERNELS)
template <int D>
__global__ void __launch_bounds__(kPointwiseBlock)
    search_kernel(const SearchWalk w, const storage_t<D>* sorted, const storage_t<D>* values, int64_t* out) {
  using Search = backend::SearchSorted<D>;
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x;
  if (i >= w.numel) return;
  int64_t ov = 0, oo = 0, orow = 0;
  for (int d = w.ndim - 1; d >= 0; --d) {
    const uint64_t size = static_cast<uint64_t>(w.shape[d]), q = i / size;
    const int64_t c = static_cast<int64_t>(i - q * size);
    i = q;
    ov += c * w.values[d];
    oo += c * w.out[d];
    orow += c * w.row[d];
  }
  const storage_t<D>* row = sorted + orow;
  const int64_t step = w.step;
  out[oo] = Search::search([&](int64_t k) { return Search::key(load(row[k * step])); }, w.m,
                           Search::key(load(values[ov])), w.right != 0);
}
#endif

template <int Op, int D> struct SearchKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 2, 0, 1);
    const int64_t m = backend::check_search_operands("cuda", a, D);
    const tsr_tensor_desc& sorted = *a.inputs[0];
    const tsr_tensor_desc& values = *a.inputs[1];
    const tsr_tensor_desc& out = *a.output;
    SearchWalk w;
    w.ndim = out.ndim;
    w.numel = static_cast<uint64_t>(numel_of(out));
    w.m = m;
    w.step = sorted.strides[out.ndim - 1];
    w.right = a.params[0] == 1 ? 1 : 0;
    for (int d = 0; d < out.ndim; ++d) {
      w.shape[d] = out.shape[d];
      w.values[d] = values.strides[d];
      w.out[d] = out.strides[d];
      w.row[d] = d == out.ndim - 1 ? 0 : sorted.strides[d];
    }
    if (w.numel == 0) return;
    using S = storage_t<D>;
    TSR_LAUNCH(blocks_for(w.numel, "searchsorted"), kPointwiseBlock, ex.stream, search_kernel<D>)
    (w, static_cast<const S*>(sorted.data) + sorted.offset, static_cast<const S*>(values.data) + values.offset,
     static_cast<int64_t*>(out.data) + out.offset);
    ex.check_launch("search_kernel");
  }
};

}  // namespace

void add_search_kernels(KernelList& list) { add_kernels<SearchKernel, TSR_OP_SEARCHSORTED>(list); }

}  // namespace tessera::cuda
