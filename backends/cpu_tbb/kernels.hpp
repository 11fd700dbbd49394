// What every kernel file shares: the (op, dtype) support matrix, the entry
// wrapper that turns exceptions into statuses, argument checks, and the
// template that registers a kernel family for every supported dtype.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "context.hpp"
#include "dtypes.hpp"
#include "tessera/plugin.h"

namespace tessera::cpu_tbb {

// Which dtypes each op has a kernel for (PyTorch's CPU coverage).
constexpr bool op_supports(int op, int dtype) {
  const bool floating = dtype == TSR_FLOAT32 || dtype == TSR_FLOAT64 || dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16;
  switch (op) {
    case TSR_OP_FILL: case TSR_OP_COPY: case TSR_OP_WHERE: case TSR_OP_MAXIMUM: case TSR_OP_MINIMUM:
    case TSR_OP_EQ: case TSR_OP_NE: case TSR_OP_LT: case TSR_OP_LE: case TSR_OP_GT: case TSR_OP_GE:
    case TSR_OP_SUM: case TSR_OP_MAX: case TSR_OP_MIN: case TSR_OP_ADD: case TSR_OP_MUL:
      return true;
    case TSR_OP_SUB: case TSR_OP_POW: case TSR_OP_NEG: case TSR_OP_ABS: case TSR_OP_RELU: case TSR_OP_MATMUL:
    case TSR_OP_ARGMAX: case TSR_OP_ARANGE: case TSR_OP_LINSPACE:
      return dtype != TSR_BOOL;
    case TSR_OP_DIV: case TSR_OP_EXP: case TSR_OP_LOG: case TSR_OP_SQRT: case TSR_OP_SIGMOID: case TSR_OP_TANH:
    case TSR_OP_MEAN: case TSR_OP_RAND_UNIFORM: case TSR_OP_RAND_NORMAL:
      return floating;
    default:
      return false;
  }
}

// "cpu_tbb: add(float32): " — the prefix of every kernel error message.
inline std::string where(const tsr_kernel_args& a, int dtype) {
  return std::string("cpu_tbb: ") + tsr_op_name(a.op) + "(" + tsr_dtype_name(dtype) + "): ";
}

// Checks what every kernel relies on: counts, descriptors, device index.
void check_args(const tsr_kernel_args& a, int dtype, int num_inputs, int num_scalars, int num_params);
// `d` holds `dtype` (what = "output", "input 0", ...).
void check_dtype(const tsr_kernel_args& a, int key, const tsr_tensor_desc& d, int dtype, const char* what);
// `in` has the output's shape (pointwise ops).
void check_same_shape(const tsr_kernel_args& a, int key, const tsr_tensor_desc& in, const char* what);

// A scalar argument as a double / int64 (a float truncates toward zero, saturating).
double scalar_as_double(const tsr_scalar& s);
int64_t scalar_as_int(const tsr_scalar& s);

// A scalar converted to storage type S as PyTorch's Scalar.to<S>() does.
template <class S> S scalar_to(const tsr_scalar& s) {
  if (s.kind == TSR_SCALAR_FLOAT) return convert<S>(s.f);
  return convert<S>(s.i);
}

// The tsr_kernel_fn for K: runs K::run(ctx, args) with every exception
// caught and reported.
template <class K> tsr_status kernel_entry(void* ctx, const tsr_kernel_args* args) {
  Context* c = static_cast<Context*>(ctx);
  return guarded(c != nullptr ? c->host : nullptr, [&] {
    if (c == nullptr || args == nullptr) fail(TSR_ERR_INVALID_ARGUMENT, "cpu_tbb: kernel called with a NULL context or args");
    K::run(*c, *args);
  });
}

using KernelList = std::vector<tsr_kernel_entry>;

// Adds {Op, D, kernel_entry<K<Op, D>>} for each Op in Ops and each D that
// op_supports; unsupported pairs are never instantiated.
template <template <int, int> class K, int... Ops> void add_kernels(KernelList& list) {
  auto one_op = [&]<int Op>(std::integral_constant<int, Op>) {
    for_each_dtype([&]<int D>(std::integral_constant<int, D>) {
      if constexpr (op_supports(Op, D)) list.push_back(tsr_kernel_entry{Op, D, &kernel_entry<K<Op, D>>});
    });
  };
  (one_op(std::integral_constant<int, Ops>{}), ...);
}

// One per kernel file.
void add_copy_kernels(KernelList& list);      // COPY
void add_binary_kernels(KernelList& list);    // ADD..POW, EQ..GE
void add_unary_kernels(KernelList& list);     // FILL, NEG..TANH, WHERE
void add_reduce_kernels(KernelList& list);    // SUM, MEAN, MAX, MIN, ARGMAX
void add_matmul_kernels(KernelList& list);    // MATMUL
void add_factory_kernels(KernelList& list);   // ARANGE, LINSPACE, RAND_UNIFORM, RAND_NORMAL

// The plugin's kernel table, built once.
const tsr_kernel_table& kernel_table();

}  // namespace tessera::cpu_tbb
