// SPDX-License-Identifier: Apache-2.0
// NONZERO (Note [Kernel contracts], kind COMPACT): the multi-indices of the
// nonzero elements, in row-major order, as cpu_tbb's compact.cpp writes
// them. Three kernels over chunks (chunks.cuh): every chunk's count; the chunks' first rows (one thread adds
// the counts up in order); every chunk writing its rows from there. The
// runtime sized the output from its own count; rows past it are never
// written, whatever the input holds.
// Bandwidth: the input read twice, each row's ndim int64 written once.
#include "chunks.cuh"
#include "kernels.hpp"

namespace tessera::cuda {

namespace {

struct CompactParams {
  int ndim = 0;
  int64_t shape[TSR_MAX_DIMS] = {}, stride[TSR_MAX_DIMS] = {};
  int64_t numel = 0, chunks = 0;
  int64_t rows = 0, row_stride = 0, col_stride = 0;  // the output (rows, ndim)
};

// The input's element offset of row-major position e.
TSR_HD int64_t input_offset(const CompactParams& p, int64_t e) {
  int64_t off = 0;
  for (int d = p.ndim - 1; d >= 0; --d) {
    off += (e % p.shape[d]) * p.stride[d];
    e /= p.shape[d];
  }
  return off;
}

#if defined(TSR_KERNELS)
template <class S> __device__ bool nonzero_at(const CompactParams& p, const S* x, int64_t e) {
  const auto v = load(x[input_offset(p, e)]);
  return v != decltype(v)(0);
}

// This thread's elements of its block's chunk, and (in parts[threadIdx.x]) how many are nonzero.
template <class S> struct ThreadPart {
  int64_t first = 0, last = 0;
  __device__ ThreadPart(const CompactParams& p, const S* x, int64_t* parts) {
    chunk_range(blockIdx.x, threadIdx.x, p.numel, first, last);
    int64_t c = 0;
    for (int64_t e = first; e < last; ++e) c += nonzero_at(p, x, e) ? 1 : 0;
    parts[threadIdx.x] = c;
  }
};

// counts[b] = the nonzero elements of chunk b.
template <class S> __global__ void __launch_bounds__(kChunkThreads) compact_counts(const CompactParams p, const S* x, int64_t* counts) {
  __shared__ int64_t parts[kChunkThreads];
  const ThreadPart<S> part(p, x, parts);
  const int64_t total = chunk_exclusive_prefix<int64_t>(parts, 0);
  if (threadIdx.x == kChunkThreads - 1) counts[blockIdx.x] = total;
}

// counts[b] = the first row of chunk b (one thread).
__global__ void compact_offsets(const CompactParams p, int64_t* counts) {
  if (threadIdx.x != 0 || blockIdx.x != 0) return;
  int64_t running = 0;
  for (int64_t b = 0; b < p.chunks; ++b) {
    const int64_t c = counts[b];
    counts[b] = running;
    running += c;
  }
}

template <class S>
__global__ void __launch_bounds__(kChunkThreads) compact_write(const CompactParams p, const S* x, const int64_t* first_rows, int64_t* y) {
  __shared__ int64_t parts[kChunkThreads];
  const ThreadPart<S> part(p, x, parts);
  chunk_exclusive_prefix<int64_t>(parts, first_rows[blockIdx.x]);
  int64_t row = parts[threadIdx.x];
  for (int64_t e = part.first; e < part.last && row < p.rows; ++e) {
    if (!nonzero_at(p, x, e)) continue;
    int64_t rest = e;
    for (int d = p.ndim - 1; d >= 0; --d) {
      y[row * p.row_stride + d * p.col_stride] = rest % p.shape[d];
      rest /= p.shape[d];
    }
    ++row;
  }
}
#endif

template <int Op, int D> struct NonzeroKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 0);
    backend::check_nonzero_operands("cuda", a, D);
    const tsr_tensor_desc& in = *a.inputs[0];
    const tsr_tensor_desc& out = *a.output;
    CompactParams p;
    p.ndim = in.ndim;
    for (int d = 0; d < in.ndim; ++d) p.shape[d] = in.shape[d], p.stride[d] = in.strides[d];
    p.numel = numel_of(in);
    p.rows = out.shape[0];
    p.row_stride = out.strides[0];
    p.col_stride = out.strides[1];
    if (p.numel == 0 || p.rows == 0) return;
    p.chunks = (p.numel + kChunk - 1) / kChunk;
    if (p.chunks > 0x7FFFFFFF) fail(TSR_ERR_INVALID_ARGUMENT, ex.where() + "tensor too large for one launch");
    using S = storage_t<D>;
    const S* x = static_cast<const S*>(in.data) + in.offset;
    int64_t* y = static_cast<int64_t*>(out.data) + out.offset;
    Workspace counts(ex, static_cast<size_t>(p.chunks) * sizeof(int64_t));
    auto* c = static_cast<int64_t*>(counts.get());
    const unsigned blocks = static_cast<unsigned>(p.chunks);
    TSR_LAUNCH(blocks, kChunkThreads, ex.stream, compact_counts<S>)(p, x, c);
    ex.check_launch("compact_counts");
    TSR_LAUNCH(1, 1, ex.stream, compact_offsets)(p, c);
    ex.check_launch("compact_offsets");
    TSR_LAUNCH(blocks, kChunkThreads, ex.stream, compact_write<S>)(p, x, c, y);
    ex.check_launch("compact_write");
  }
};

}  // namespace

void add_compact_kernels(KernelList& list) { add_kernels<NonzeroKernel, TSR_OP_NONZERO>(list); }

}  // namespace tessera::cuda
