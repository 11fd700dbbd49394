// SPDX-License-Identifier: Apache-2.0
// SORT and ARGSORT along params[0] (Note [Kernel contracts], kind SORT)
// through CUB's segmented radix sort, which is stable, so ARGSORT is stable
// whatever it is asked. Three steps on the stream:
//   1. a kernel writes each element's key (backends/common/sort_keys.hpp,
//      descending flipped) line after line into a contiguous buffer, with
//      its position along the line for ARGSORT, and the lines' bounds;
//   2. cub::DeviceSegmentedRadixSort sorts each line (a segment);
//   3. a kernel writes the keys mapped back (SORT) or the positions
//      (ARGSORT) into the output's layout.
// CUB counts items in int: more than 2^31 - 1 elements answer
// TSR_ERR_UNSUPPORTED, which the runtime's CPU fallback takes.
// The CPU reference is cpu_tbb's sort.cpp (the same keys, radix sorted).
// Bandwidth: the input read once, keys (and positions) written, sorted
// (CUB's passes), read and written back once.
#include <climits>

#if defined(__CUDACC__)
#include <cub/device/device_segmented_radix_sort.cuh>
#elif defined(TESSERA_CUDA_EMULATION)
#include "cub_emulated.h"
#endif

#include "elementwise.cuh"
#include "kernels.hpp"
#include "lines.cuh"
#include "sort_keys.hpp"

namespace tessera::cuda {

namespace {

// The lines (lines.cuh) and the direction.
struct SortLines : Lines {
  bool descending = false;
};

#if defined(TSR_KERNELS)
// keys[i] (and positions[i]) of the element i = l * n + j; bounds[l] = l * n.
template <int D, bool Arg>
__global__ void __launch_bounds__(kPointwiseBlock)
    sort_keys_kernel(const SortLines p, const storage_t<D>* x, typename backend::SortKey<D>::K* keys, int64_t* positions,
                     int* bounds) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x;
  if (i <= p.lines * p.n && i % p.n == 0) bounds[i / p.n] = static_cast<int>(i);  // the lines' bounds, the last included
  if (i >= p.lines * p.n) return;
  const int64_t l = i / p.n, j = i - l * p.n;
  int64_t in, out;
  line_offsets(p, l, j, in, out);
  keys[i] = backend::SortKey<D>::map(load(x[in]), Arg, p.descending);
  if constexpr (Arg) positions[i] = j;
}

template <int D, bool Arg>
__global__ void __launch_bounds__(kPointwiseBlock)
    sort_write_kernel(const SortLines p, const typename backend::SortKey<D>::K* keys, const int64_t* positions, void* y) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x;
  if (i >= p.lines * p.n) return;
  const int64_t l = i / p.n, j = i - l * p.n;
  int64_t in, out;
  line_offsets(p, l, j, in, out);
  if constexpr (Arg) static_cast<int64_t*>(y)[out] = positions[i];
  else static_cast<storage_t<D>*>(y)[out] = store<storage_t<D>>(backend::SortKey<D>::unmap(keys[i], p.descending));
}
#endif

template <int Op, int D> struct SortKernel {
  static constexpr int key = D;
  static constexpr bool kArg = Op == TSR_OP_ARGSORT;
  using K = typename backend::SortKey<D>::K;

  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 2);
    backend::check_unary_operands("cuda", a, D, kArg ? TSR_INT64 : D);
    const tsr_tensor_desc& in = *a.inputs[0];
    const tsr_tensor_desc& out = *a.output;
    SortLines p;
    static_cast<Lines&>(p) = lines_along(ex, in, out, a.params[0]);
    p.descending = a.params[1] != 0;
    const int64_t total = p.lines * p.n;
    if (total == 0) return;
    if (total > INT_MAX)
      fail(TSR_ERR_UNSUPPORTED, ex.where() + std::to_string(total) + " elements: CUB's segmented sort counts in int");
    const int items = static_cast<int>(total), segments = static_cast<int>(p.lines);
    // One workspace: keys in and out, positions in and out, bounds, then CUB's temporary storage.
    size_t cub_bytes = 0;
    if constexpr (kArg)
      ex.check(cub::DeviceSegmentedRadixSort::SortPairs(nullptr, cub_bytes, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                                                        static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr),
                                                        items, segments, static_cast<int*>(nullptr), static_cast<int*>(nullptr),
                                                        0, static_cast<int>(sizeof(K) * 8), ex.stream),
               "cub::DeviceSegmentedRadixSort::SortPairs (sizing)");
    else
      ex.check(cub::DeviceSegmentedRadixSort::SortKeys(nullptr, cub_bytes, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                                                       items, segments, static_cast<int*>(nullptr), static_cast<int*>(nullptr), 0,
                                                       static_cast<int>(sizeof(K) * 8), ex.stream),
               "cub::DeviceSegmentedRadixSort::SortKeys (sizing)");
    const size_t n = static_cast<size_t>(total);
    const auto align = [](size_t b) { return (b + 255) / 256 * 256; };
    const size_t key_bytes = align(n * sizeof(K)), pos_bytes = kArg ? align(n * sizeof(int64_t)) : 0;
    const size_t bound_bytes = align((static_cast<size_t>(segments) + 1) * sizeof(int));
    Workspace space(ex, 2 * key_bytes + 2 * pos_bytes + bound_bytes + cub_bytes);
    char* base = static_cast<char*>(space.get());
    K* keys_in = reinterpret_cast<K*>(base);
    K* keys_out = reinterpret_cast<K*>(base + key_bytes);
    int64_t* pos_in = kArg ? reinterpret_cast<int64_t*>(base + 2 * key_bytes) : nullptr;
    int64_t* pos_out = kArg ? reinterpret_cast<int64_t*>(base + 2 * key_bytes + pos_bytes) : nullptr;
    int* bounds = reinterpret_cast<int*>(base + 2 * key_bytes + 2 * pos_bytes);
    void* cub_space = base + 2 * key_bytes + 2 * pos_bytes + bound_bytes;
    using S = storage_t<D>;
    const S* x = static_cast<const S*>(in.data) + in.offset;
    // One more thread than elements: the last line's end bound.
    TSR_LAUNCH(blocks_for(n + 1, "sort"), kPointwiseBlock, ex.stream, sort_keys_kernel<D, kArg>)(p, x, keys_in, pos_in, bounds);
    ex.check_launch("sort_keys_kernel");
    if constexpr (kArg)
      ex.check(cub::DeviceSegmentedRadixSort::SortPairs(cub_space, cub_bytes, keys_in, keys_out, pos_in, pos_out, items, segments,
                                                        bounds, bounds + 1, 0, static_cast<int>(sizeof(K) * 8), ex.stream),
               "cub::DeviceSegmentedRadixSort::SortPairs");
    else
      ex.check(cub::DeviceSegmentedRadixSort::SortKeys(cub_space, cub_bytes, keys_in, keys_out, items, segments, bounds, bounds + 1, 0,
                                                       static_cast<int>(sizeof(K) * 8), ex.stream),
               "cub::DeviceSegmentedRadixSort::SortKeys");
    const size_t out_item = kArg ? sizeof(int64_t) : sizeof(S);
    void* y = static_cast<char*>(out.data) + out.offset * static_cast<int64_t>(out_item);
    TSR_LAUNCH(blocks_for(n, "sort"), kPointwiseBlock, ex.stream, sort_write_kernel<D, kArg>)(p, keys_out, pos_out, y);
    ex.check_launch("sort_write_kernel");
  }
};

}  // namespace

void add_sort_kernels(KernelList& list) { add_kernels<SortKernel, TSR_OP_SORT, TSR_OP_ARGSORT>(list); }

}  // namespace tessera::cuda
