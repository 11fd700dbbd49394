// SPDX-License-Identifier: Apache-2.0
// A port of torch.testing.assert_close's TensorLikePair (PyTorch 1.13,
// torch/testing/_comparison.py) and of torch.isclose, for dense real tensors.
// The arithmetic follows what torch does on the upcast tensors, including its
// quirks: integral tensors subtract in wrapping int64, and their relative
// difference and tolerance test run in float32 (torch's int/float promotion).
#include "close.hpp"

#include <cmath>
#include <vector>

#include "format.hpp"
#include "layout.hpp"
#include "tessera/dtype.h"

namespace tessera::rt {

namespace {

int64_t wrapping_sub(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}

// torch.abs on int64: INT64_MIN stays itself.
int64_t wrapping_abs(int64_t v) { return v < 0 ? static_cast<int64_t>(0ull - static_cast<uint64_t>(v)) : v; }

std::string int128_string(__int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  unsigned __int128 u = negative ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(v)
                                 : static_cast<unsigned __int128>(v);
  std::string digits;
  while (u > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return negative ? "-" + digits : digits;
}

// torch.max(x, 0): the greatest value, NaN above everything, first index on ties.
template <class T>
int64_t argmax_first(const std::vector<T>& x) {
  int64_t best = 0;
  for (int64_t i = 1; i < static_cast<int64_t>(x.size()); ++i) {
    if (std::isnan(static_cast<double>(x[best]))) break;
    if (std::isnan(static_cast<double>(x[i])) || x[i] > x[best]) best = i;
  }
  return best;
}

std::string index_tuple(int32_t ndim, const int64_t* shape, int64_t flat) {
  std::vector<int64_t> index(static_cast<size_t>(ndim));
  for (int32_t d = ndim - 1; d >= 0; --d) {
    index[d] = flat % shape[d];
    flat /= shape[d];
  }
  return format_tuple(index.data(), ndim);
}

// _make_mismatch_msg. `abs_idx`/`rel_idx` empty for scalars.
std::string mismatch_message(const std::string& identifier, const std::string& extra, const std::string& abs_diff,
                             const std::string& abs_idx, double atol, const std::string& rel_diff,
                             const std::string& rel_idx, double rtol) {
  const bool equality = rtol == 0 && atol == 0;
  auto diff_line = [&](const char* type, const std::string& diff, const std::string& idx, double tol) {
    std::string line = idx.empty() ? std::string(type) + " difference: " + diff
                                   : "Greatest " + std::string(type) + " difference: " + diff + " at index " + idx;
    if (!equality) line += " (up to " + python_float_repr(tol) + " allowed)";
    return line;
  };
  std::string msg = identifier + " are not " + (equality ? "equal" : "close") + "!\n\n";
  if (!extra.empty()) msg += extra + "\n";
  // Python's str.title() on "absolute" for scalars, the plain word for tensors.
  msg += diff_line(abs_idx.empty() ? "Absolute" : "absolute", abs_diff, abs_idx, atol) + "\n";
  msg += diff_line(rel_idx.empty() ? "Relative" : "relative", rel_diff, rel_idx, rtol);
  return msg;
}

std::string torch_size(int32_t ndim, const int64_t* shape) {
  std::string out = "tessera.Size([";
  for (int32_t i = 0; i < ndim; ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "])";
}

}  // namespace

CloseTolerance default_tolerance(int32_t dtype) {
  switch (dtype) {
    case TSR_FLOAT16: return {1e-3, 1e-5};
    case TSR_BFLOAT16: return {1.6e-2, 1e-5};
    case TSR_FLOAT32: return {1.3e-6, 1e-5};
    case TSR_FLOAT64: return {1e-7, 1e-7};
    case TSR_COMPLEX64: return {1.3e-6, 1e-5};
    case TSR_COMPLEX128: return {1e-7, 1e-7};
    default: return {0.0, 0.0};
  }
}

std::string compare_close(const HostTensor& actual, const HostTensor& expected, double rtol, double atol,
                          bool equal_nan) {
  const int64_t n = host_numel(actual);
  const bool floating = tsr_dtype_is_floating(actual.dtype) || tsr_dtype_is_floating(expected.dtype) ||
                        tsr_dtype_is_complex(actual.dtype) || tsr_dtype_is_complex(expected.dtype);
  const bool zero_tolerance = rtol == 0 && atol == 0;
  const std::string extra_prefix = "Mismatched elements: ";

  if (floating) {
    // As complex values (a real one has imaginary part 0, and |x + 0i| = |x|
    // exactly): torch.isclose on complex128 is this arithmetic.
    std::vector<std::complex<double>> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    std::vector<bool> mismatch(static_cast<size_t>(n));
    int64_t mismatches = 0;
    auto isnan = [](std::complex<double> v) { return std::isnan(v.real()) || std::isnan(v.imag()); };
    for (int64_t i = 0; i < n; ++i) {
      a[i] = value_as_complex(actual.dtype, actual.data, i);
      b[i] = value_as_complex(expected.dtype, expected.data, i);
      // torch.isclose: equal, or both NaN when asked, or a finite error within tolerance.
      bool close = a[i] == b[i] || (equal_nan && isnan(a[i]) && isnan(b[i]));
      if (!close && !zero_tolerance) {
        const double error = std::abs(a[i] - b[i]);
        close = std::isfinite(error) && error <= atol + std::abs(rtol * b[i]);
      }
      mismatch[i] = !close;
      mismatches += !close;
    }
    if (mismatches == 0) return "";
    if (actual.ndim == 0) {
      const double abs_diff = std::abs(a[0] - b[0]);
      const double rel_diff = b[0] == 0.0 ? INFINITY : abs_diff / std::abs(b[0]);
      return mismatch_message("Scalars", "", python_float_repr(abs_diff), "", atol, python_float_repr(rel_diff), "",
                              rtol);
    }
    std::vector<double> abs_diff(static_cast<size_t>(n), 0.0), rel_diff(static_cast<size_t>(n), 0.0);
    for (int64_t i = 0; i < n; ++i) {
      if (!mismatch[i]) continue;
      abs_diff[i] = std::abs(a[i] - b[i]);
      rel_diff[i] = abs_diff[i] / std::abs(b[i]);
    }
    const int64_t ai = argmax_first(abs_diff), ri = argmax_first(rel_diff);
    const std::string extra = extra_prefix + std::to_string(mismatches) + " / " + std::to_string(n) + " (" +
                              python_fixed(static_cast<double>(mismatches) / static_cast<double>(n) * 100.0, 1) + "%)";
    return mismatch_message("Tensor-likes", extra, python_float_repr(abs_diff[ai]),
                            index_tuple(actual.ndim, actual.shape, ai), atol, python_float_repr(rel_diff[ri]),
                            index_tuple(actual.ndim, actual.shape, ri), rtol);
  }

  // Integral and bool: compared as int64, torch's wrapping difference; a
  // uint64 (which torch lacks) as its exact value.
  const bool unsigned64 = expected.dtype == TSR_UINT64;
  auto value = [&](int64_t v) { return unsigned64 ? static_cast<float>(static_cast<uint64_t>(v)) : static_cast<float>(v); };
  auto error = [&](int64_t x, int64_t y) -> __int128 {
    if (!unsigned64) return wrapping_abs(wrapping_sub(x, y));
    const __int128 d = exact_integer(actual.dtype, x) - exact_integer(expected.dtype, y);
    return d < 0 ? -d : d;
  };
  std::vector<int64_t> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
  std::vector<bool> mismatch(static_cast<size_t>(n));
  int64_t mismatches = 0;
  for (int64_t i = 0; i < n; ++i) {
    a[i] = value_as_int64(actual.dtype, actual.data, i);
    b[i] = value_as_int64(expected.dtype, expected.data, i);
    bool close = a[i] == b[i];
    if (!close && !zero_tolerance) {
      // rtol * other and atol + ... give float32 tensors; the int64 error is
      // compared after conversion to float32.
      const float allowed = static_cast<float>(atol) + std::fabs(static_cast<float>(rtol) * value(b[i]));
      close = static_cast<float>(error(a[i], b[i])) <= allowed;
    }
    mismatch[i] = !close;
    mismatches += !close;
  }
  if (mismatches == 0) return "";
  if (actual.ndim == 0) {
    // Python ints: exact difference, true division rounded to double.
    const __int128 exact_a = exact_integer(actual.dtype, a[0]), exact_b = exact_integer(expected.dtype, b[0]);
    const __int128 diff = exact_a - exact_b;
    const __int128 abs_diff = diff < 0 ? -diff : diff;
    const __int128 abs_b = exact_b < 0 ? -exact_b : exact_b;
    const double rel_diff = b[0] == 0 ? INFINITY
                                      : static_cast<double>(static_cast<long double>(abs_diff) /
                                                            static_cast<long double>(abs_b));
    return mismatch_message("Scalars", "", int128_string(abs_diff), "", atol, python_float_repr(rel_diff), "", rtol);
  }
  std::vector<__int128> abs_diff(static_cast<size_t>(n), 0);
  std::vector<float> rel_diff(static_cast<size_t>(n), 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    if (!mismatch[i]) continue;
    abs_diff[i] = error(a[i], b[i]);
    rel_diff[i] = static_cast<float>(abs_diff[i]) / (unsigned64 ? value(b[i]) : static_cast<float>(wrapping_abs(b[i])));
  }
  const int64_t ai = argmax_first(abs_diff), ri = argmax_first(rel_diff);
  const std::string extra = extra_prefix + std::to_string(mismatches) + " / " + std::to_string(n) + " (" +
                            python_fixed(static_cast<double>(mismatches) / static_cast<double>(n) * 100.0, 1) + "%)";
  return mismatch_message("Tensor-likes", extra, int128_string(abs_diff[ai]),
                          index_tuple(actual.ndim, actual.shape, ai), atol,
                          python_float_repr(static_cast<double>(rel_diff[ri])),
                          index_tuple(actual.ndim, actual.shape, ri), rtol);
}

std::string compare_metadata(int32_t dtype_a, int32_t ndim_a, const int64_t* shape_a, const std::string& device_a,
                             int32_t dtype_b, int32_t ndim_b, const int64_t* shape_b, const std::string& device_b) {
  const std::string head = "The values for attribute '";
  bool same_shape = ndim_a == ndim_b;
  for (int32_t i = 0; same_shape && i < ndim_a; ++i) same_shape = shape_a[i] == shape_b[i];
  if (!same_shape)
    return head + "shape' do not match: " + torch_size(ndim_a, shape_a) + " != " + torch_size(ndim_b, shape_b) + ".";
  if (device_a != device_b) return head + "device' do not match: " + device_a + " != " + device_b + ".";
  if (dtype_a != dtype_b)
    return head + "dtype' do not match: tessera." + tsr_dtype_name(dtype_a) + " != tessera." + tsr_dtype_name(dtype_b) +
           ".";
  return "";
}

}  // namespace tessera::rt
