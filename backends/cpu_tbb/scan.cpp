// SPDX-License-Identifier: Apache-2.0
// CUMSUM and CUMPROD (ABI 1.11) along params[0] (Note [Kernel contracts],
// kind SCAN). Floating sums and products accumulate in double (complex in
// complex<double>), integers and bool in wrapping 64-bit integers (out
// dtype as SUM's: sum_dtype). Many lines: one task per run of lines. One long line:
// fixed blocks summed in parallel, their offsets added up in order, then
// each block scanned from its offset in parallel; the blocks depend on the
// length only, so the result never depends on the thread count.
#include <vector>

#include "kernels.hpp"
#include "parallel.hpp"

namespace tessera::cpu_tbb {

namespace {

constexpr int64_t kScanBlock = 65536;

template <int Op, int D> struct ScanKernel {
  static constexpr bool floating = is_floating_v<D> || is_complex_v<D>;
  using S = storage_t<D>;
  using O = storage_t<sum_dtype(D)>;  // SUM's dtype
  using acc_t = wide_acc_t<D>;
  static constexpr bool product = Op == TSR_OP_CUMPROD;
  static acc_t identity() { return acc_t(product ? 1 : 0); }
  static acc_t combine(acc_t a, acc_t b) {
    if constexpr (product) return a * b;
    else return a + b;
  }

  static acc_t value(S x) {
    if constexpr (is_complex_v<D>) return acc_t(load(x));
    else if constexpr (floating) return static_cast<double>(load(x));
    else return static_cast<uint64_t>(static_cast<int64_t>(load(x)));
  }
  static O result(acc_t a) {
    if constexpr (floating) return convert<O>(a);
    else return static_cast<O>(a);
  }
  // Scans n elements from acc; returns the final sum (product).
  static acc_t scan(const S* in, int64_t si, O* out, int64_t so, int64_t n, acc_t acc) {
    for (int64_t i = 0; i < n; ++i) {
      acc = combine(acc, value(in[i * si]));
      out[i * so] = result(acc);
    }
    return acc;
  }

  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 1);
    backend::check_unary_operands("cpu_tbb", a, D, sum_dtype(D));
    const tsr_tensor_desc& in = *a.inputs[0];
    const tsr_tensor_desc& out = *a.output;
    const AlongDim along(a, D, in, out, a.params[0]);
    const LineSet& lines = along.lines;
    const int64_t dim = along.dim;
    const S* x = static_cast<const S*>(in.data) + in.offset;
    O* y = static_cast<O*>(out.data) + out.offset;
    const int64_t n = lines.length, si = in.strides[dim], so = out.strides[dim];
    if (lines.count == 0 || n == 0) return;
    if (lines.count == 1 && n >= 2 * kScanBlock && ctx.threads > 1) {
      const int64_t blocks = (n + kScanBlock - 1) / kScanBlock;
      std::vector<acc_t> offset(static_cast<size_t>(blocks), identity());
      maybe_parallel(ctx, blocks, n, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          acc_t s = identity();
          const int64_t end = std::min(n, (b + 1) * kScanBlock);
          for (int64_t i = b * kScanBlock; i < end; ++i) s = combine(s, value(x[i * si]));
          offset[static_cast<size_t>(b)] = s;
        }
      });
      acc_t running = identity();
      for (auto& o : offset) {
        const acc_t s = o;
        o = running;
        running = combine(running, s);
      }
      maybe_parallel(ctx, blocks, n, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) {
          const int64_t start = b * kScanBlock, len = std::min(n, start + kScanBlock) - start;
          scan(x + start * si, si, y + start * so, so, len, offset[static_cast<size_t>(b)]);
        }
      });
      return;
    }
    maybe_parallel(ctx, lines.count, lines.count * n, 1, [&](int64_t l0, int64_t l1) {
      StridedWalk<2> w(lines.ndim, lines.shape, {along.in_strides, along.out_strides}, l0);
      for (int64_t l = l0; l < l1; ++l) {
        scan(x + w.off[0], si, y + w.off[1], so, n, identity());
        if (l + 1 < l1) w.next();
      }
    });
  }
};

}  // namespace

void add_scan_kernels(KernelList& list) { add_kernels<ScanKernel, TSR_OP_CUMSUM, TSR_OP_CUMPROD>(list); }

}  // namespace tessera::cpu_tbb
