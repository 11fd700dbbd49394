// SPDX-License-Identifier: Apache-2.0
// NONZERO (Note [Kernel contracts], kind COMPACT): the multi-indices of the
// nonzero elements, row by row in row-major order. Fixed blocks of the
// input are counted in parallel, their first output rows follow in order,
// then each block writes its rows in parallel, without branching.
#include <vector>

#include "kernels.hpp"
#include "parallel.hpp"

namespace tessera::cpu_tbb {

namespace {

constexpr int64_t kCompactBlock = 65536;

template <int Op, int D> struct NonzeroKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 1, 0, 0);
    backend::check_nonzero_operands("cpu_tbb", a, D);
    const tsr_tensor_desc& in = *a.inputs[0];
    const tsr_tensor_desc& out = *a.output;
    using S = storage_t<D>;
    const S* x = static_cast<const S*>(in.data) + in.offset;
    int64_t* y = static_cast<int64_t*>(out.data) + out.offset;
    const int64_t total = numel_of(in), count = out.shape[0];
    const int64_t blocks = (total + kCompactBlock - 1) / kCompactBlock;
    std::vector<int64_t> first(static_cast<size_t>(blocks) + 1, 0);
    auto nonzero = [](S v) { return load(v) != decltype(load(v))(0); };
    // Row-major contiguous input (the common case): plain loops that vectorise.
    bool dense = true;
    for (int64_t d = in.ndim - 1, step = 1; d >= 0; step *= in.shape[d], --d)
      dense = dense && (in.shape[d] == 1 || in.strides[d] == step);
    maybe_parallel(ctx, blocks, total, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t e0 = b * kCompactBlock, e1 = std::min(total, e0 + kCompactBlock);
        int64_t c = 0;
        if (dense) {
          for (int64_t e = e0; e < e1; ++e) c += nonzero(x[e]);
        } else {
          StridedWalk<1> w(in.ndim, in.shape, {in.strides}, e0);
          for (int64_t e = e0; e < e1; ++e) {
            c += nonzero(x[w.off[0]]);
            if (e + 1 < e1) w.next();
          }
        }
        first[static_cast<size_t>(b) + 1] = c;
      }
    });
    for (size_t b = 1; b < first.size(); ++b) first[b] += first[b - 1];
    if (first.back() != count)
      fail(TSR_ERR_INVALID_ARGUMENT, where(a, D) + "the output has " + std::to_string(count) +
                                         " rows but the input has " + std::to_string(first.back()) +
                                         " nonzero elements");
    // The rows are written without a branch on the element (half-true masks
    // would mispredict every other one): each position is stored at the
    // next free row, which advances only past a nonzero one, until the
    // block's rows are full. Strides are locals: y's stores could alias them.
    const int64_t ys0 = out.strides[0], ys1 = out.ndim > 1 ? out.strides[1] : 0;
    maybe_parallel(ctx, blocks, total, 1, [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        const int64_t e0 = b * kCompactBlock, e1 = std::min(total, e0 + kCompactBlock);
        int64_t row = first[static_cast<size_t>(b)];
        const int64_t rows_end = first[static_cast<size_t>(b) + 1];
        if (dense && in.ndim == 1) {  // the row is the position itself
          for (int64_t e = e0; e < e1 && row < rows_end; ++e) {
            y[row * ys0] = e;
            row += nonzero(x[e]);
          }
          continue;
        }
        StridedWalk<1> w(in.ndim, in.shape, {in.strides}, e0);
        for (int64_t e = e0; e < e1 && row < rows_end; ++e) {
          for (int d = 0; d < in.ndim; ++d) y[row * ys0 + d * ys1] = w.idx[d];
          row += nonzero(x[w.off[0]]);
          if (e + 1 < e1) w.next();
        }
      }
    });
  }
};

}  // namespace

void add_compact_kernels(KernelList& list) { add_kernels<NonzeroKernel, TSR_OP_NONZERO>(list); }

}  // namespace tessera::cpu_tbb
