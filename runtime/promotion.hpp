// SPDX-License-Identifier: Apache-2.0
// PyTorch 1.13's type promotion over Tessera's ten dtypes: which dtype an op
// computes in when its operands differ, and which results an in-place op may
// write back. Pure functions of dtype numbers (tessera/dtype.h).
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
enum class Category { Bool = 0, Integral = 1, Floating = 2 };
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
// tensor (no floating -> integral or bool, no integral -> bool).
bool can_cast(int32_t from, int32_t to);

}  // namespace tessera::rt
