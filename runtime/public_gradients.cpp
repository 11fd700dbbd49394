// SPDX-License-Identifier: Apache-2.0
// The compile-time half of Note [Every public function has a gradient or a
// reason] (public_gradients.hpp): each row names a function of the public
// API. The other half, that each public function has a row, is
// cmake/CheckPublicGradients.cmake's.
#include "public_gradients.hpp"

#include "tessera/tessera.h"

namespace tessera::rt::autograd {
namespace {

#define TSR_ROW_NAMES_A_FUNCTION(fn, mark) \
  static_assert(sizeof(&::fn) > 0 && PublicGradient::mark == PublicGradient::mark, #fn);
TSR_PUBLIC_GRADIENTS(TSR_ROW_NAMES_A_FUNCTION)
#undef TSR_ROW_NAMES_A_FUNCTION

}  // namespace
}  // namespace tessera::rt::autograd
