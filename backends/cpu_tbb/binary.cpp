// SPDX-License-Identifier: Apache-2.0
// Binary pointwise ops: ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, POW and the
// comparisons EQ..GE, as functors on the compute type (float for float16 and
// bfloat16, rounded once per element on store).
#include "binary_ops.hpp"
#include "cloned_loops.hpp"
#include "elementwise.hpp"
#include "kernels.hpp"

namespace tessera::cpu_tbb {

namespace {

constexpr bool is_comparison(int op) { return tsr_op_kind(op) == TSR_OP_KIND_COMPARE; }

template <int Op, int D> struct BinaryKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 2, 0, 0);
    const tsr_tensor_desc& out = *a.output;
    const tsr_tensor_desc& x = *a.inputs[0];
    const tsr_tensor_desc& y = *a.inputs[1];
    using S = storage_t<D>;
    backend::check_binary_operands("cpu_tbb", a, D, is_comparison(Op) ? TSR_BOOL : D);
    if constexpr (is_comparison(Op)) {
      pointwise<Bool, S, S>(ctx, out, {&x, &y}, [](S u, S v) { return Bool{static_cast<uint8_t>(apply_binary<Op>(load(u), load(v)))}; });
    } else if constexpr (D == TSR_FLOAT32 && has_binary_loop_f32(Op)) {
      // Unit-stride runs take the loops cloned per ISA level (cloned_loops.hpp; same results).
      pointwise<S, S, S>(ctx, out, {&x, &y}, [](S u, S v) { return store<S>(apply_binary<Op>(load(u), load(v))); },
                         [](int64_t n, int64_t rows, char* const* p, const int64_t* step) {
                           const int64_t so = rows > 1 ? step[0] / 4 : 0, sa = rows > 1 ? step[1] / 4 : 0,
                                         sb = rows > 1 ? step[2] / 4 : 0;
                           binary_rows_f32(Op, reinterpret_cast<float*>(p[0]), reinterpret_cast<const float*>(p[1]),
                                           reinterpret_cast<const float*>(p[2]), n, rows, so, sa, sb);
                         });
    } else {
      pointwise<S, S, S>(ctx, out, {&x, &y}, [](S u, S v) { return store<S>(apply_binary<Op>(load(u), load(v))); });
    }
  }
};

}  // namespace

void add_binary_kernels(KernelList& list) {
  add_kernels_of_kind<BinaryKernel, TSR_OP_KIND_BINARY, TSR_OP_KIND_COMPARE>(list);
}

}  // namespace tessera::cpu_tbb
