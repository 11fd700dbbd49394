// SPDX-License-Identifier: Apache-2.0
// Printing a tensor exactly as PyTorch 1.13's repr does (torch/_tensor_str.py),
// plus the Python number spellings that printing and assert_close messages use.
#pragma once

#include <cstdint>
#include <string>

#include "host_values.hpp"

namespace tessera::rt {

// torch.set_printoptions. threshold: summarise ("...") when numel exceeds it
// (INT64_MAX for the "full" profile); sci_mode -1 lets the values decide.
struct PrintOptions {
  int precision = 4;
  int64_t threshold = 1000;
  int64_t edgeitems = 3;
  int linewidth = 80;
  int sci_mode = -1;  // -1 auto, 0 off, 1 on
};

// repr(t) for a tensor on `device_text` ("cpu", "cuda:0", "arena:0"): any
// device other than "cpu" adds ", device='...'" as PyTorch does for a device
// that is not the default one. `grad_suffix`, when not empty, follows the
// dtype's ("grad_fn=<MulBackward0>" or "requires_grad=True", as PyTorch
// prints a tensor that requires grad).
std::string format_tensor(const HostTensor& t, const PrintOptions& opts, const std::string& device_text,
                          const std::string& grad_suffix = {});

// Python's repr(float): the shortest digits that read back to `value`, in
// fixed notation for exponents -4 .. 15 and "1e-05" style otherwise ("0.5",
// "2.0", "1.3e-06", "inf", "nan").
std::string python_float_repr(double value);

// Python's "{:.Nf}" and "{:.Ne}" (NaN never signed, as Python prints it).
std::string python_fixed(double value, int precision);
std::string python_sci(double value, int precision);

}  // namespace tessera::rt
