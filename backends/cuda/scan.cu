// SPDX-License-Identifier: Apache-2.0
// CUMSUM and CUMPROD (ABI 1.11) along params[0] (Note [Kernel contracts],
// kind SCAN), as cpu_tbb's scan.cpp computes them: floating sums and
// products in double, complex ones in two doubles, integers and bool in
// wrapping 64-bit integers, the output in SUM's dtype.
//
// Each line is cut into chunks (chunks.cuh), one block per (line, chunk). A line of one chunk is scanned by one kernel; a
// longer one takes three: every chunk's sum, the chunks' offsets (one
// thread per line adds them up in order), then every chunk scanned from its
// offset. The order of the additions depends on the length alone, so a
// result is the same on every run (it may differ from the CPU's in the last
// bits of a float64, which adds in another order).
// Bandwidth: a one-chunk line reads and writes once; longer ones read twice.
#include "chunks.cuh"
#include "kernels.hpp"
#include "lines.cuh"

namespace tessera::cuda {

namespace {

// The lines (lines.cuh) and how many chunks each is cut into.
struct ScanLines : Lines {
  int64_t chunks = 1;
};

template <int Op, int D> struct ScanTypes {
  using S = storage_t<D>;
  using O = storage_t<sum_dtype(D)>;
  using Acc = wide_acc_t<D>;  // dtypes.cuh
  static TSR_HD Acc value(S x) { return widen<D>(x); }
  static TSR_HD O result(Acc a) { return narrow<O>(a); }
  static TSR_HD Acc identity() { return Acc(Op == TSR_OP_CUMPROD ? 1 : 0); }
  // The scan's combination, also handed to chunk_exclusive_prefix.
  TSR_HD Acc operator()(Acc a, Acc b) const {
    if constexpr (Op == TSR_OP_CUMPROD) return a * b;
    else return a + b;
  }
};

#if defined(TSR_KERNELS)
// This thread's part of block b's chunk: where its line starts, its range,
// and (in parts[threadIdx.x]) the sum (product) of its elements.
template <int Op, int D> struct ThreadPart {
  using T = ScanTypes<Op, D>;
  int64_t in = 0, out = 0, first = 0, last = 0;
  __device__ ThreadPart(const ScanLines& p, int64_t b, const storage_t<D>* x, typename T::Acc* parts) {
    line_offsets(p, b / p.chunks, 0, in, out);
    chunk_range(b % p.chunks, threadIdx.x, p.n, first, last);
    typename T::Acc s = T::identity();
    for (int64_t i = first; i < last; ++i) s = T{}(s, T::value(x[in + i * p.si]));
    parts[threadIdx.x] = s;
  }
};

// partial[b] = the sum (product) of block b's chunk (b = line * chunks + chunk).
template <int Op, int D>
__global__ void __launch_bounds__(kChunkThreads)
    scan_chunk_sums(const ScanLines p, const storage_t<D>* x, typename ScanTypes<Op, D>::Acc* partial) {
  using T = ScanTypes<Op, D>;
  __shared__ typename T::Acc parts[kChunkThreads];
  const ThreadPart<Op, D> part(p, blockIdx.x, x, parts);
  const typename T::Acc total = chunk_exclusive_prefix(parts, T::identity(), T{});
  if (threadIdx.x == kChunkThreads - 1) partial[blockIdx.x] = total;
}

// partial[l * chunks + c] = the sum (product) of line l's chunks before c
// (one thread a line).
template <int Op, int D>
__global__ void __launch_bounds__(kPointwiseBlock) scan_chunk_offsets(const ScanLines p, typename ScanTypes<Op, D>::Acc* partial) {
  using T = ScanTypes<Op, D>;
  const int64_t l = static_cast<int64_t>(blockIdx.x) * kPointwiseBlock + threadIdx.x;
  if (l >= p.lines) return;
  typename T::Acc running = T::identity();
  for (int64_t c = 0; c < p.chunks; ++c) {
    const typename T::Acc s = partial[l * p.chunks + c];
    partial[l * p.chunks + c] = running;
    running = T{}(running, s);
  }
}

// Scans block b's chunk from partial[b] (the identity without partials).
template <int Op, int D>
__global__ void __launch_bounds__(kChunkThreads) scan_chunks(const ScanLines p, const storage_t<D>* x,
                                                             typename ScanTypes<Op, D>::O* y,
                                                             const typename ScanTypes<Op, D>::Acc* partial) {
  using T = ScanTypes<Op, D>;
  __shared__ typename T::Acc parts[kChunkThreads];
  const ThreadPart<Op, D> part(p, blockIdx.x, x, parts);
  chunk_exclusive_prefix(parts, partial != nullptr ? partial[blockIdx.x] : T::identity(), T{});
  typename T::Acc acc = parts[threadIdx.x];  // what comes before this thread's first element
  for (int64_t i = part.first; i < part.last; ++i) {
    acc = T{}(acc, T::value(x[part.in + i * p.si]));
    y[part.out + i * p.so] = T::result(acc);
  }
}
#endif

template <int Op, int D> struct ScanKernel {
  static constexpr int key = D;
  static void run(const Exec& ex, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 1);
    backend::check_unary_operands("cuda", a, D, sum_dtype(D));
    const tsr_tensor_desc& in = *a.inputs[0];
    const tsr_tensor_desc& out = *a.output;
    ScanLines p;
    static_cast<Lines&>(p) = lines_along(ex, in, out, a.params[0]);
    if (p.lines == 0 || p.n == 0) return;
    p.chunks = (p.n + kChunk - 1) / kChunk;
    using T = ScanTypes<Op, D>;
    const uint64_t blocks = static_cast<uint64_t>(p.lines) * static_cast<uint64_t>(p.chunks);
    if (blocks > 0x7FFFFFFFu) fail(TSR_ERR_INVALID_ARGUMENT, ex.where() + "tensor too large for one launch");
    const typename T::S* x = static_cast<const typename T::S*>(in.data) + in.offset;
    typename T::O* y = static_cast<typename T::O*>(out.data) + out.offset;
    if (p.chunks == 1) {
      TSR_LAUNCH(static_cast<unsigned>(blocks), kChunkThreads, ex.stream, scan_chunks<Op, D>)(p, x, y, nullptr);
      ex.check_launch("scan_chunks");
      return;
    }
    Workspace partial(ex, blocks * sizeof(typename T::Acc));
    auto* sums = static_cast<typename T::Acc*>(partial.get());
    TSR_LAUNCH(static_cast<unsigned>(blocks), kChunkThreads, ex.stream, scan_chunk_sums<Op, D>)(p, x, sums);
    ex.check_launch("scan_chunk_sums");
    TSR_LAUNCH(blocks_for(static_cast<uint64_t>(p.lines), tsr_op_name(Op)), kPointwiseBlock, ex.stream,
               scan_chunk_offsets<Op, D>)(p, sums);
    ex.check_launch("scan_chunk_offsets");
    TSR_LAUNCH(static_cast<unsigned>(blocks), kChunkThreads, ex.stream, scan_chunks<Op, D>)(p, x, y, sums);
    ex.check_launch("scan_chunks");
  }
};

}  // namespace

void add_scan_kernels(KernelList& list) { add_kernels<ScanKernel, TSR_OP_CUMSUM, TSR_OP_CUMPROD>(list); }

}  // namespace tessera::cuda
