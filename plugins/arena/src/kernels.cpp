// SPDX-License-Identifier: Apache-2.0
// The ops this device implements: fill, copy (with casts from every dtype),
// add, sub, mul, neg, relu and sum, for float32, float64 and int64, and one
// fused kernel, gelu, for float32 and float64. The runtime composes the
// other composite ops (gelu_tanh, silu, sigmoid, mean...) from these; every
// other op is left to its CPU fallback when the config allows it.
// Kernels are plain strided loops over the descriptors of Note [Kernel
// contracts] (tessera/ops.h): correctness and clarity over speed.
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "instance.hpp"
#include "tessera/half.h"

namespace arena {
namespace {

// A descriptor resolved to bytes in the arena.
struct View {
  std::byte* base = nullptr;  // element offset 0 of the descriptor
  const tsr_tensor_desc* d = nullptr;
  size_t elem = 0;
};

bool empty(const tsr_tensor_desc& d) {
  for (int32_t i = 0; i < d.ndim; ++i)
    if (d.shape[i] == 0) return true;
  return false;
}

tsr_status resolve(Instance& inst, const tsr_kernel_args& a, const tsr_tensor_desc& d, View& v) {
  v.d = &d;
  v.elem = tsr_dtype_size(d.dtype);
  if (v.elem == 0) return inst.error(TSR_ERR_TYPE, "unknown dtype " + std::to_string(d.dtype));
  if (empty(d)) return TSR_OK;
  int64_t hi = d.offset;
  for (int32_t i = 0; i < d.ndim; ++i) {
    if (d.strides[i] < 0) return inst.error(TSR_ERR_INVALID_ARGUMENT, "negative stride");
    hi += (d.shape[i] - 1) * d.strides[i];
  }
  if (d.offset < 0) return inst.error(TSR_ERR_INVALID_ARGUMENT, "negative offset");
  v.base = inst.arenas.resolve(a.device_index, d.data, static_cast<size_t>(hi + 1) * v.elem);
  if (v.base == nullptr)
    return inst.error(TSR_ERR_INVALID_ARGUMENT, "a tensor reaches outside arena:" + std::to_string(a.device_index));
  return TSR_OK;
}

// Calls f(out_offset, in_offsets...) for every element, in row-major order
// of the output's shape; offsets in elements.
template <size_t N, typename F>
void for_each_element(const tsr_tensor_desc& out, const tsr_tensor_desc* const* in, F&& f) {
  if (empty(out)) return;
  int64_t index[TSR_MAX_DIMS] = {};
  int64_t o = out.offset;
  int64_t i_off[N == 0 ? 1 : N] = {};
  for (size_t k = 0; k < N; ++k) i_off[k] = in[k]->offset;
  for (;;) {
    f(o, i_off);
    int32_t dim = out.ndim - 1;
    for (; dim >= 0; --dim) {
      if (++index[dim] < out.shape[dim]) {
        o += out.strides[dim];
        for (size_t k = 0; k < N; ++k) i_off[k] += in[k]->strides[dim];
        break;
      }
      o -= (out.shape[dim] - 1) * out.strides[dim];
      for (size_t k = 0; k < N; ++k) i_off[k] -= (out.shape[dim] - 1) * in[k]->strides[dim];
      index[dim] = 0;
    }
    if (dim < 0) return;
  }
}

template <typename T>
T& at(const View& v, int64_t offset) {
  return *reinterpret_cast<T*>(v.base + offset * static_cast<int64_t>(sizeof(T)));
}

// Any dtype's element as double (exact for the float and small-int cases)
// and as int64 (exact for integers).
double load_double(const View& v, int64_t off) {
  switch (v.d->dtype) {
    case TSR_BOOL: return at<uint8_t>(v, off) != 0;
    case TSR_UINT8: return at<uint8_t>(v, off);
    case TSR_INT8: return at<int8_t>(v, off);
    case TSR_INT16: return at<int16_t>(v, off);
    case TSR_INT32: return at<int32_t>(v, off);
    case TSR_INT64: return static_cast<double>(at<int64_t>(v, off));
    case TSR_UINT16: return at<uint16_t>(v, off);
    case TSR_UINT32: return at<uint32_t>(v, off);
    case TSR_UINT64: return static_cast<double>(at<uint64_t>(v, off));
    case TSR_FLOAT16: return tsr_float16_to_float(at<uint16_t>(v, off));
    case TSR_BFLOAT16: return tsr_bfloat16_to_float(at<uint16_t>(v, off));
    case TSR_FLOAT32: return at<float>(v, off);
    default: return at<double>(v, off);
  }
}

int64_t load_int(const View& v, int64_t off) {
  switch (v.d->dtype) {
    case TSR_BOOL: return at<uint8_t>(v, off) != 0;
    case TSR_UINT8: return at<uint8_t>(v, off);
    case TSR_INT8: return at<int8_t>(v, off);
    case TSR_INT16: return at<int16_t>(v, off);
    case TSR_INT32: return at<int32_t>(v, off);
    case TSR_INT64: return at<int64_t>(v, off);
    case TSR_UINT16: return at<uint16_t>(v, off);
    case TSR_UINT32: return at<uint32_t>(v, off);
    case TSR_UINT64: return static_cast<int64_t>(at<uint64_t>(v, off));  // wraps, as integer casts do
    default: {
      // Note [Casts] in tessera/ops.h: truncation toward zero; NaN and values
      // outside int64 give INT64_MIN, as PyTorch on x86-64.
      const double d = load_double(v, off);
      if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
      return static_cast<int64_t>(d);
    }
  }
}

bool is_integral_or_bool(int32_t dtype) { return tsr_dtype_is_integral(dtype) || dtype == TSR_BOOL; }

template <typename T>
T load(const View& v, int64_t off) {
  if constexpr (std::is_same_v<T, int64_t>) return load_int(v, off);
  // An integer converts to float in one rounding, never through a double
  // (int64 2^60 + 2^36 + 1 is 2^60 + 2^37 in float32, not 2^60).
  else if (v.d->dtype == TSR_UINT64) return static_cast<T>(at<uint64_t>(v, off));  // from the unsigned value
  else if (is_integral_or_bool(v.d->dtype)) return static_cast<T>(load_int(v, off));
  else return static_cast<T>(load_double(v, off));
}

template <typename T>
T scalar_value(const tsr_scalar& s) {
  if (s.kind == TSR_SCALAR_FLOAT) return static_cast<T>(s.f);
  return static_cast<T>(s.i);
}

struct Call {
  Instance& inst;
  const tsr_kernel_args& args;
  View out;
  View in[2];
};

tsr_status prepare(Instance& inst, const tsr_kernel_args& args, int inputs, Call& c) {
  if (args.num_inputs != inputs)
    return inst.error(TSR_ERR_INVALID_ARGUMENT, std::string(tsr_op_name(args.op)) + ": expected " +
                                                    std::to_string(inputs) + " inputs");
  tsr_status st = resolve(inst, args, *args.output, c.out);
  for (int k = 0; k < inputs && st == TSR_OK; ++k) st = resolve(inst, args, *args.inputs[k], c.in[k]);
  return st;
}

template <typename T>
tsr_status fill(Instance& inst, const tsr_kernel_args& args) {
  Call c{inst, args, {}, {}};
  if (tsr_status st = prepare(inst, args, 0, c); st != TSR_OK) return st;
  if (args.num_scalars < 1) return inst.error(TSR_ERR_INVALID_ARGUMENT, "fill: no value");
  const T value = scalar_value<T>(args.scalars[0]);
  for_each_element<0>(*args.output, nullptr, [&](int64_t o, const int64_t*) { at<T>(c.out, o) = value; });
  return TSR_OK;
}

template <typename T>
tsr_status copy(Instance& inst, const tsr_kernel_args& args) {
  // A cast this device does not implement is declined, not guessed: the
  // runtime then runs it on the CPU fallback (Note [Kernel contracts]).
  if (args.num_inputs == 1 && args.inputs != nullptr && args.inputs[0] != nullptr &&
      tsr_dtype_is_complex(args.inputs[0]->dtype))
    return inst.error(TSR_ERR_UNSUPPORTED, "casts from complex dtypes are left to the CPU fallback");
  Call c{inst, args, {}, {}};
  if (tsr_status st = prepare(inst, args, 1, c); st != TSR_OK) return st;
  const tsr_tensor_desc* const in[1] = {args.inputs[0]};
  for_each_element<1>(*args.output, in, [&](int64_t o, const int64_t* i) { at<T>(c.out, o) = load<T>(c.in[0], i[0]); });
  return TSR_OK;
}

template <typename T, typename F>
tsr_status binary(Instance& inst, const tsr_kernel_args& args, F f) {
  Call c{inst, args, {}, {}};
  if (tsr_status st = prepare(inst, args, 2, c); st != TSR_OK) return st;
  const tsr_tensor_desc* const in[2] = {args.inputs[0], args.inputs[1]};
  for_each_element<2>(*args.output, in, [&](int64_t o, const int64_t* i) {
    at<T>(c.out, o) = f(at<T>(c.in[0], i[0]), at<T>(c.in[1], i[1]));
  });
  return TSR_OK;
}

template <typename T, typename F>
tsr_status unary(Instance& inst, const tsr_kernel_args& args, F f) {
  Call c{inst, args, {}, {}};
  if (tsr_status st = prepare(inst, args, 1, c); st != TSR_OK) return st;
  const tsr_tensor_desc* const in[1] = {args.inputs[0]};
  for_each_element<1>(*args.output, in, [&](int64_t o, const int64_t* i) { at<T>(c.out, o) = f(at<T>(c.in[0], i[0])); });
  return TSR_OK;
}

// out has size 1 on the reduced dims: accumulate each input element into
// the output element it maps to, in float64 (integers: int64).
template <typename T>
tsr_status sum(Instance& inst, const tsr_kernel_args& args) {
  Call c{inst, args, {}, {}};
  if (tsr_status st = prepare(inst, args, 1, c); st != TSR_OK) return st;
  const tsr_tensor_desc& in = *args.inputs[0];
  const tsr_tensor_desc& out = *args.output;
  using Acc = std::conditional_t<std::is_same_v<T, int64_t>, int64_t, double>;
  int64_t out_count = 1;
  for (int32_t i = 0; i < out.ndim; ++i) out_count *= out.shape[i];
  std::vector<Acc> acc(static_cast<size_t>(out_count), Acc{0});
  // Row-major index of the output element for each input element.
  tsr_tensor_desc slot = in;  // input's shape; "strides" give the accumulator index
  slot.offset = 0;
  int64_t step = 1;
  for (int32_t i = in.ndim - 1; i >= 0; --i) {
    slot.strides[i] = out.shape[i] == 1 ? 0 : step;
    step *= out.shape[i];
  }
  const tsr_tensor_desc* const src[1] = {&in};
  for_each_element<1>(slot, src, [&](int64_t o, const int64_t* i) { acc[static_cast<size_t>(o)] += load<Acc>(c.in[0], i[0]); });
  tsr_tensor_desc dense = out;  // the accumulator's row-major layout
  dense.offset = 0;
  step = 1;
  for (int32_t i = out.ndim - 1; i >= 0; --i) {
    dense.strides[i] = step;
    step *= out.shape[i];
  }
  const tsr_tensor_desc* const acc_layout[1] = {&dense};
  for_each_element<1>(out, acc_layout, [&](int64_t o, const int64_t* i) {
    at<T>(c.out, o) = static_cast<T>(acc[static_cast<size_t>(i[0])]);
  });
  return TSR_OK;
}

// One set of entry points per dtype.
template <typename T>
struct Kernels {
  static Instance& self(void* ctx) { return *static_cast<Instance*>(ctx); }
  static tsr_status fill_k(void* ctx, const tsr_kernel_args* a) { return fill<T>(self(ctx), *a); }
  static tsr_status copy_k(void* ctx, const tsr_kernel_args* a) { return copy<T>(self(ctx), *a); }
  static tsr_status add_k(void* ctx, const tsr_kernel_args* a) {
    return binary<T>(self(ctx), *a, [](T x, T y) { return static_cast<T>(x + y); });
  }
  static tsr_status sub_k(void* ctx, const tsr_kernel_args* a) {
    return binary<T>(self(ctx), *a, [](T x, T y) { return static_cast<T>(x - y); });
  }
  static tsr_status mul_k(void* ctx, const tsr_kernel_args* a) {
    return binary<T>(self(ctx), *a, [](T x, T y) { return static_cast<T>(x * y); });
  }
  static tsr_status neg_k(void* ctx, const tsr_kernel_args* a) {
    return unary<T>(self(ctx), *a, [](T x) { return static_cast<T>(-x); });
  }
  static tsr_status relu_k(void* ctx, const tsr_kernel_args* a) {
    // NaN stays NaN, as in PyTorch.
    return unary<T>(self(ctx), *a, [](T x) { return x < T{0} ? T{0} : x; });
  }
  static tsr_status sum_k(void* ctx, const tsr_kernel_args* a) { return sum<T>(self(ctx), *a); }
  // A fused kernel (GELU, ABI 1.10): one pass where the runtime's composite
  // of GELU runs six ops; where a plugin registers one, the registry prefers
  // it. torch's formula: x/2 (1 + erf(x / sqrt 2)).
  static tsr_status gelu_k(void* ctx, const tsr_kernel_args* a) {
    return unary<T>(self(ctx), *a, [](T x) { return static_cast<T>(x * T(0.5) * (T(1) + std::erf(x * T(M_SQRT1_2)))); });
  }
};

#define ARENA_KERNELS(DT, T)                                                                           \
  {TSR_OP_FILL, DT, &Kernels<T>::fill_k}, {TSR_OP_COPY, DT, &Kernels<T>::copy_k},                      \
      {TSR_OP_ADD, DT, &Kernels<T>::add_k}, {TSR_OP_SUB, DT, &Kernels<T>::sub_k},                      \
      {TSR_OP_MUL, DT, &Kernels<T>::mul_k}, {TSR_OP_NEG, DT, &Kernels<T>::neg_k},                      \
      {TSR_OP_RELU, DT, &Kernels<T>::relu_k}, {TSR_OP_SUM, DT, &Kernels<T>::sum_k}

// GELU_TANH and SILU have no kernel here: the runtime composes them.
const tsr_kernel_entry kEntries[] = {ARENA_KERNELS(TSR_FLOAT32, float),
                                     ARENA_KERNELS(TSR_FLOAT64, double),
                                     ARENA_KERNELS(TSR_INT64, int64_t),
                                     {TSR_OP_GELU, TSR_FLOAT32, &Kernels<float>::gelu_k},
                                     {TSR_OP_GELU, TSR_FLOAT64, &Kernels<double>::gelu_k}};

}  // namespace

const tsr_kernel_table* kernel_table() {
  static const tsr_kernel_table table = {TSR_KERNEL_TABLE_STRUCT_SIZE, sizeof kEntries / sizeof kEntries[0], kEntries};
  return &table;
}

}  // namespace arena
