// SPDX-License-Identifier: Apache-2.0
// GATHER and SCATTER along params[0] (Note [Kernel contracts]): one thread
// per element of index's shape. GATHER reads x at the index; SCATTER stores
// or adds src into out there. Two of SCATTER's elements may meet on one
// output element: which store wins is unspecified (the contract), adds are
// atomic (floating ones in no fixed order; 1- and 2-byte types through a
// compare-and-swap of the aligned 32-bit word that holds them). Indices
// arrive checked, in [-n, n). The CPU reference is cpu_tbb's gather.cpp.
// Bandwidth: index read and out written once; x (GATHER) or out (SCATTER)
// touched at the indices, which is random access when the indices are.
#include "elementwise.cuh"
#include "kernels.hpp"

namespace tessera::cuda {

namespace {

// The walk over index's shape: per dim the strides of the walked tensor
// (out for GATHER, src for SCATTER), of index, and of the target (x or out)
// with 0 on dim, whose size and stride on dim are n and step.
struct IndexWalk {
  int ndim = 0;
  uint64_t numel = 0;
  int64_t shape[TSR_MAX_DIMS] = {};
  int64_t walked[TSR_MAX_DIMS] = {}, index[TSR_MAX_DIMS] = {}, target[TSR_MAX_DIMS] = {};
  int64_t n = 0, step = 0;
};

struct IndexOffsets {
  int64_t walked = 0, index = 0, target = 0;
};

// Element offsets of row-major position i of index's shape.
TSR_HD IndexOffsets offsets_of(const IndexWalk& w, uint64_t i) {
  IndexOffsets o;
  for (int d = w.ndim - 1; d >= 0; --d) {
    const uint64_t size = static_cast<uint64_t>(w.shape[d]), q = i / size;
    const int64_t c = static_cast<int64_t>(i - q * size);
    i = q;
    o.walked += c * w.walked[d];
    o.index += c * w.index[d];
    o.target += c * w.target[d];
  }
  return o;
}

TSR_HD int64_t target_offset(const IndexWalk& w, const IndexOffsets& o, int64_t i) {
  return o.target + (i < 0 ? i + w.n : i) * w.step;
}

IndexWalk make_walk(const tsr_tensor_desc& index, const tsr_tensor_desc& walked, const tsr_tensor_desc& target, int64_t dim) {
  IndexWalk w;
  w.ndim = index.ndim;
  w.numel = static_cast<uint64_t>(numel_of(index));
  for (int d = 0; d < index.ndim; ++d) {
    w.shape[d] = index.shape[d];
    w.walked[d] = walked.strides[d];
    w.index[d] = index.strides[d];
    w.target[d] = d == dim ? 0 : target.strides[d];
  }
  w.n = target.shape[dim];
  w.step = target.strides[dim];
  return w;
}

#if defined(TSR_KERNELS)
template <class S>
__global__ void __launch_bounds__(kPointwiseBlock) gather_kernel(const IndexWalk w, S* out, const int64_t* index, const S* x) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x;
  if (i >= w.numel) return;
  const IndexOffsets o = offsets_of(w, i);
  out[o.walked] = x[target_offset(w, o, index[o.index])];
}

// *p += v for D's storage, atomically (integers wrap, as the CPU's adds).
template <int D> __device__ void atomic_add(storage_t<D>* p, storage_t<D> v) {
  using S = storage_t<D>;
  if constexpr (is_complex_v<D>) {  // the parts add independently, as in a complex sum
    atomicAdd(&p->re, v.re);
    atomicAdd(&p->im, v.im);
  } else if constexpr (std::is_same_v<S, float> || std::is_same_v<S, double> || std::is_same_v<S, int32_t> ||
                std::is_same_v<S, uint32_t>) {
    atomicAdd(p, v);
  } else if constexpr (sizeof(S) == 8) {  // int64, uint64: two's complement adds alike
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else {  // 1 or 2 bytes: a compare-and-swap of the 32-bit word around it
    static_assert(sizeof(S) == 1 || sizeof(S) == 2);
    const uintptr_t at = reinterpret_cast<uintptr_t>(p);
    unsigned* word = reinterpret_cast<unsigned*>(at & ~uintptr_t{3});
    const unsigned shift = static_cast<unsigned>(at & 3) * 8;
    const unsigned mask = (sizeof(S) == 1 ? 0xFFu : 0xFFFFu) << shift;
    unsigned old = *word, seen;
    do {
      seen = old;
      const unsigned bits = (seen & mask) >> shift;
      S current;
      memcpy(&current, &bits, sizeof(S));  // little-endian: the low bytes
      S next;
      if constexpr (is_floating_v<D>) next = store<S>(load(current) + load(v));
      else next = wrap_add(current, v);
      unsigned next_bits = 0;
      memcpy(&next_bits, &next, sizeof(S));
      old = atomicCAS(word, seen, (seen & ~mask) | (next_bits << shift));
    } while (old != seen);
  }
}

template <int D, bool Add>
__global__ void __launch_bounds__(kPointwiseBlock)
    scatter_kernel(const IndexWalk w, storage_t<D>* out, const int64_t* index, const storage_t<D>* src) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x;
  if (i >= w.numel) return;
  const IndexOffsets o = offsets_of(w, i);
  storage_t<D>* target = out + target_offset(w, o, index[o.index]);
  if constexpr (Add) atomic_add<D>(target, src[o.walked]);
  else *target = src[o.walked];
}
#endif

template <class T> T* element0(const tsr_tensor_desc& d) { return static_cast<T*>(d.data) + d.offset; }

template <int Op, int D> struct GatherKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 2, 0, 1);
    const int64_t dim = backend::check_gather_operands("cuda", a, D);
    const tsr_tensor_desc& x = *a.inputs[0];
    const tsr_tensor_desc& index = *a.inputs[1];
    const tsr_tensor_desc& out = *a.output;
    const IndexWalk w = make_walk(index, out, x, dim);
    if (w.numel == 0) return;
    using S = storage_t<D>;
    TSR_LAUNCH(blocks_for(w.numel, "gather"), kPointwiseBlock, ex.stream, gather_kernel<S>)
    (w, element0<S>(out), element0<const int64_t>(index), element0<const S>(x));
    ex.check_launch("gather_kernel");
  }
};

template <int Op, int D> struct ScatterKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 2, 0, 2);
    backend::check_scatter_operands("cuda", a, D);
    const tsr_tensor_desc& index = *a.inputs[0];
    const tsr_tensor_desc& src = *a.inputs[1];
    const tsr_tensor_desc& out = *a.output;
    const IndexWalk w = make_walk(index, src, out, a.params[0]);
    if (w.numel == 0) return;
    using S = storage_t<D>;
    const unsigned blocks = blocks_for(w.numel, "scatter");
    if constexpr (D != TSR_BOOL) {
      if (a.params[1] == 1) {
        TSR_LAUNCH(blocks, kPointwiseBlock, ex.stream, scatter_kernel<D, true>)
        (w, element0<S>(out), element0<const int64_t>(index), element0<const S>(src));
        ex.check_launch("scatter_kernel");
        return;
      }
    }
    TSR_LAUNCH(blocks, kPointwiseBlock, ex.stream, scatter_kernel<D, false>)
    (w, element0<S>(out), element0<const int64_t>(index), element0<const S>(src));
    ex.check_launch("scatter_kernel");
  }
};

}  // namespace

void add_gather_kernels(KernelList& list) {
  add_kernels<GatherKernel, TSR_OP_GATHER>(list);
  add_kernels<ScatterKernel, TSR_OP_SCATTER>(list);
}

}  // namespace tessera::cuda
