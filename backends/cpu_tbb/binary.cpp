// Binary pointwise ops: ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, POW and the
// comparisons EQ..GE, as functors on the compute type (float for float16 and
// bfloat16, rounded once per element on store).
#include <cmath>
#include <type_traits>

#include "cloned_loops.hpp"
#include "elementwise.hpp"
#include "kernels.hpp"

namespace tessera::cpu_tbb {

namespace {

// PyTorch's integer pow: repeated squaring with wrapping products; a negative
// exponent gives 1 for base 1, +-1 for base -1, else 0.
template <class T> T int_pow(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return 1;
      if (base == -1) return (exponent % 2 != 0) ? T(-1) : T(1);
      return 0;
    }
  }
  T result = 1;
  while (exponent != 0) {
    if (exponent & 1) result = wrap_mul(result, base);
    exponent = static_cast<T>(exponent / 2);
    base = wrap_mul(base, base);
  }
  return result;
}

// NaN-propagating max / min (either NaN -> NaN).
template <class C> C maximum(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a > b ? a : b;
}
template <class C> C minimum(C a, C b) {
  if constexpr (std::is_floating_point_v<C>) {
    if (a != a) return a;
    if (b != b) return b;
  }
  return a < b ? a : b;
}

template <int Op, class C> auto apply(C a, C b) {
  constexpr bool is_bool = std::is_same_v<C, bool>;
  constexpr bool is_int = std::is_integral_v<C> && !is_bool;
  if constexpr (Op == TSR_OP_ADD) {
    if constexpr (is_bool) return C(a || b);
    else if constexpr (is_int) return wrap_add(a, b);
    else return C(a + b);
  } else if constexpr (Op == TSR_OP_SUB) {
    if constexpr (is_int) return wrap_sub(a, b);
    else return C(a - b);
  } else if constexpr (Op == TSR_OP_MUL) {
    if constexpr (is_bool) return C(a && b);
    else if constexpr (is_int) return wrap_mul(a, b);
    else return C(a * b);
  } else if constexpr (Op == TSR_OP_DIV) {
    return C(a / b);
  } else if constexpr (Op == TSR_OP_MAXIMUM) {
    return maximum(a, b);
  } else if constexpr (Op == TSR_OP_MINIMUM) {
    return minimum(a, b);
  } else if constexpr (Op == TSR_OP_POW) {
    if constexpr (is_int) return int_pow(a, b);
    else return C(std::pow(a, b));
  } else if constexpr (Op == TSR_OP_EQ) {
    return a == b;
  } else if constexpr (Op == TSR_OP_NE) {
    return a != b;
  } else if constexpr (Op == TSR_OP_LT) {
    return a < b;
  } else if constexpr (Op == TSR_OP_LE) {
    return a <= b;
  } else if constexpr (Op == TSR_OP_GT) {
    return a > b;
  } else {
    static_assert(Op == TSR_OP_GE);
    return a >= b;
  }
}

constexpr bool is_comparison(int op) { return op >= TSR_OP_EQ && op <= TSR_OP_GE; }

template <int Op, int D> struct BinaryKernel {
  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 2, 0, 0);
    const tsr_tensor_desc& out = *a.output;
    const tsr_tensor_desc& x = *a.inputs[0];
    const tsr_tensor_desc& y = *a.inputs[1];
    using S = storage_t<D>;
    check_dtype(a, D, x, D, "input 0");
    check_dtype(a, D, y, D, "input 1");
    check_dtype(a, D, out, is_comparison(Op) ? TSR_BOOL : D, "output");
    check_same_shape(a, D, x, "input 0");
    check_same_shape(a, D, y, "input 1");
    if constexpr (is_comparison(Op)) {
      pointwise<Bool, S, S>(ctx, out, {&x, &y}, [](S u, S v) { return Bool{static_cast<uint8_t>(apply<Op>(load(u), load(v)))}; });
    } else if constexpr (D == TSR_FLOAT32 && has_binary_loop_f32(Op)) {
      // Unit-stride runs take the loops cloned per ISA level (cloned_loops.hpp; same results).
      pointwise<S, S, S>(ctx, out, {&x, &y}, [](S u, S v) { return store<S>(apply<Op>(load(u), load(v))); },
                         [](int64_t n, int64_t rows, char* const* p, const int64_t* step) {
                           const int64_t so = rows > 1 ? step[0] / 4 : 0, sa = rows > 1 ? step[1] / 4 : 0,
                                         sb = rows > 1 ? step[2] / 4 : 0;
                           binary_rows_f32(Op, reinterpret_cast<float*>(p[0]), reinterpret_cast<const float*>(p[1]),
                                           reinterpret_cast<const float*>(p[2]), n, rows, so, sa, sb);
                         });
    } else {
      pointwise<S, S, S>(ctx, out, {&x, &y}, [](S u, S v) { return store<S>(apply<Op>(load(u), load(v))); });
    }
  }
};

}  // namespace

void add_binary_kernels(KernelList& list) {
  add_kernels<BinaryKernel, TSR_OP_ADD, TSR_OP_SUB, TSR_OP_MUL, TSR_OP_DIV, TSR_OP_MAXIMUM, TSR_OP_MINIMUM, TSR_OP_POW,
              TSR_OP_EQ, TSR_OP_NE, TSR_OP_LT, TSR_OP_LE, TSR_OP_GT, TSR_OP_GE>(list);
}

}  // namespace tessera::cpu_tbb
