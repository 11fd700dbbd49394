// SPDX-License-Identifier: Apache-2.0
// PyTorch 1.13's type promotion over its ten dtypes, and NumPy 1.24's for
// uint16/32/64 (Note [Unsigned promotion]): which dtype an op computes in
// when its operands differ, and which results an in-place op may write back.
// Pure functions of dtype numbers (tessera/dtype.h).
//
// Note [Unsigned promotion]
//   PyTorch 1.13 has no uint16, uint32 or uint64, so promote_types of a pair
//   with one of them is NumPy 1.24's np.promote_types: the smallest dtype
//   that holds both exactly, float64 when no integer does.
//
//              f32  f64  f16  bf16 i8   u8   i16  i32  i64  bool u16  u32  u64
//     uint16   f32  f64  f32  f32  i32  u16  i32  i32  i64  u16  u16  u32  u64
//     uint32   f64  f64  f64  f64  i64  u32  i64  i64  i64  u32  u32  u32  u64
//     uint64   f64  f64  f64  f64  f64  u64  f64  f64  f64  u64  u64  u64  u64
//
//   NumPy has no bfloat16: a pair of bfloat16 and a new unsigned dtype
//   promotes as float16 does with it (NumPy's rule, the smallest float that
//   holds every value of the integer: float32 for uint16, float64 for
//   uint32/uint64), as PyTorch treats the two 16-bit floats alike (float16 +
//   bfloat16 -> float32). Every pair of PyTorch's ten dtypes keeps PyTorch's
//   result, so uint8 + int8 is int16 in both libraries and int64 + float16
//   stays float16 (NumPy would give float64).
//   result_type keeps PyTorch's category rule for Python numbers and 0-d
//   tensors: a Python int with any integral tensor keeps the tensor's dtype
//   (uint64 + 1 -> uint64), a Python float with an integral or bool tensor
//   gives float32, the default dtype (uint64 * 1.5 -> float32, where NumPy,
//   whose default is float64, gives float64); a 0-d tensor of a higher
//   category promotes through the table (uint32 tensor + 0-d float16 tensor
//   -> float64). can_cast is PyTorch's category rule for every dtype, and
//   true division of two integers computes in float32 (compute_dtype in
//   elementwise.cpp) for the new dtypes too, where NumPy gives float64.
#pragma once

#include <cstdint>
#include <span>

#include "tessera/dtype.h"

namespace tessera::rt {

// torch.promote_types: the smallest dtype both convert to without losing
// their kind (uint8 + int8 -> int16, float16 + bfloat16 -> float32, bool +
// x -> x). Throws TSR_ERR_INVALID_ARGUMENT for a number outside the enum.
int32_t promote_types(int32_t a, int32_t b);

// The three kinds that outrank each other in result_type.
enum class Category { Bool = 0, Integral = 1, Floating = 2, Complex = 3 };
Category category(int32_t dtype);

// One input of an op as result_type sees it. A Python number is a 0-d
// operand with is_python_scalar set and the dtype Python gives it (float64,
// int64 or bool); its precision never counts, only its category.
struct Operand {
  int32_t dtype;
  bool is_zero_dim;
  bool is_python_scalar;
};

// torch.result_type: tensors with dims decide; a 0-d tensor counts only when
// its category is higher than theirs, and a Python number only when its
// category is higher still (a Python float gives float32, the default dtype).
// Throws TSR_ERR_INVALID_ARGUMENT for no operands or an unknown dtype.
int32_t result_type(std::span<const Operand> ops);

// torch.can_cast: whether an in-place op may store a `from` result in a `to`
// tensor (no complex -> real, no floating -> integral or bool, no integral
// -> bool).
bool can_cast(int32_t from, int32_t to);

}  // namespace tessera::rt
