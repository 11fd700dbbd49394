// SPDX-License-Identifier: Apache-2.0
// Helpers for test_cpu_tbb_kernels: load cpu_tbb.so through its C entry point
// (no runtime involved), build tensors with chosen layouts around sentinel
// bytes, and read / write elements as doubles.
#pragma once

#include <dlfcn.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "tessera/element.h"
#include "tessera/half.h"
#include "tessera/plugin.h"
#include "test_paths.hpp"

namespace cpu_tbb_test {

// ---- the host side of the plugin ABI ------------------------------------------
inline thread_local std::string g_last_error;
inline thread_local tsr_status g_last_status = TSR_OK;

inline void host_set_error(tsr_status status, const char* message) {
  g_last_status = status;
  g_last_error = message != nullptr ? message : "";
}
inline void host_log(int32_t, const char*) {}

inline const tsr_host_api* host_api() {
  static const tsr_host_api host{TSR_HOST_API_STRUCT_SIZE, TSR_ABI_VERSION, 0, host_set_error, host_log};
  return &host;
}

inline tsr_plugin_init_fn plugin_entry() {
  static void* handle = dlopen((std::string(test_paths::plugin_dir) + "/cpu_tbb.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw std::runtime_error(std::string("dlopen cpu_tbb.so: ") + dlerror());
  return reinterpret_cast<tsr_plugin_init_fn>(dlsym(handle, TSR_PLUGIN_ENTRY_SYMBOL));
}

// One initialised plugin instance; destroyed at exit.
struct Plugin {
  const tsr_plugin_api* api = nullptr;
  std::map<std::pair<int, int>, tsr_kernel_fn> kernels;

  explicit Plugin(const char* options) {
    tsr_plugin_init_args args{TSR_PLUGIN_INIT_ARGS_STRUCT_SIZE, TSR_ABI_VERSION, 0, host_api(), options, "cpu"};
    if (plugin_entry()(&args, &api) != TSR_OK) throw std::runtime_error("tsr_plugin_init failed: " + g_last_error);
    for (size_t i = 0; i < api->kernels->count; ++i) {
      const tsr_kernel_entry& e = api->kernels->entries[i];
      kernels[{e.op, e.dtype}] = e.fn;
    }
  }
  ~Plugin() { api->destroy(api->ctx); }
  Plugin(const Plugin&) = delete;
  Plugin& operator=(const Plugin&) = delete;
};

inline Plugin& plugin(int threads = 0) {  // 0: all cores
  static Plugin all("{}"), one("{\"threads\": 1}"), two("{ \"threads\" : 2, \"other\": [1, {\"x\": \"}\"}] }");
  return threads == 1 ? one : threads == 2 ? two : all;
}

// ---- elements as doubles --------------------------------------------------------

// Stores v (an in-range value; integral dtypes take whole numbers and wrap).
inline void write_elem(int dtype, unsigned char* p, double v) {
  auto put = [p](auto x) { std::memcpy(p, &x, sizeof x); };
  const int64_t i = std::abs(v) < 9.2e18 ? static_cast<int64_t>(v) : 0;  // integral dtypes only use it
  switch (dtype) {
    case TSR_FLOAT32: put(static_cast<float>(v)); break;
    case TSR_FLOAT64: put(v); break;
    case TSR_FLOAT16: put(tsr_float_to_float16(static_cast<float>(v))); break;
    case TSR_BFLOAT16: put(tsr_float_to_bfloat16(static_cast<float>(v))); break;
    case TSR_INT8: put(static_cast<int8_t>(i)); break;
    case TSR_UINT8: put(static_cast<uint8_t>(i)); break;
    case TSR_INT16: put(static_cast<int16_t>(i)); break;
    case TSR_INT32: put(static_cast<int32_t>(i)); break;
    case TSR_INT64: put(i); break;
    case TSR_UINT16: put(static_cast<uint16_t>(i)); break;
    case TSR_UINT32: put(static_cast<uint32_t>(i)); break;
    case TSR_UINT64: put(static_cast<uint64_t>(i)); break;
    default: put(static_cast<uint8_t>(v != 0)); break;
  }
}

// What storing v as dtype and reading it back gives.
inline double round_to(int dtype, double v) {
  unsigned char buf[8];
  write_elem(dtype, buf, v);
  return tsr_element_to_double(dtype, buf);
}

inline bool is_float(int d) { return d == TSR_FLOAT32 || d == TSR_FLOAT64 || d == TSR_FLOAT16 || d == TSR_BFLOAT16; }

// PyTorch's assert_close defaults per dtype.
inline void tolerance(int dtype, double& rtol, double& atol) {
  switch (dtype) {
    case TSR_FLOAT32: rtol = 1.3e-6, atol = 1e-5; break;
    case TSR_FLOAT64: rtol = 1e-7, atol = 1e-7; break;
    case TSR_FLOAT16: rtol = 1e-3, atol = 1e-5; break;
    case TSR_BFLOAT16: rtol = 1.6e-2, atol = 1e-5; break;
    default: rtol = 0, atol = 0;
  }
}

inline bool close(int dtype, double got, double want, double scale = 0) {
  if (std::isnan(want)) return std::isnan(got);
  if (got == want) return true;
  double rtol, atol;
  tolerance(dtype, rtol, atol);
  return std::abs(got - want) <= atol + rtol * std::max(std::abs(want), scale);
}

// ---- tensors with layouts ---------------------------------------------------------
enum class Layout { Contiguous, Transposed, Sliced, Broadcast0, BroadcastLast, SwapLast };
inline const char* layout_name(Layout l) {
  static const char* names[] = {"contiguous", "transposed", "step-sliced", "expanded dim 0", "expanded last dim", "last two dims swapped"};
  return names[static_cast<int>(l)];
}

constexpr unsigned char kSentinel = 0xA5;
constexpr size_t kGuard = 64;  // sentinel bytes before and after every storage

struct Tensor {
  Tensor() = default;
  Tensor(Tensor&&) = default;  // desc.data points into bytes' buffer, which moves along
  Tensor& operator=(Tensor&&) = default;
  Tensor(const Tensor&) = delete;

  std::vector<unsigned char> bytes;  // guard, storage, guard
  tsr_tensor_desc desc{};
  std::vector<int64_t> shape;

  int dtype() const { return desc.dtype; }
  int64_t numel() const { return std::accumulate(shape.begin(), shape.end(), int64_t{1}, std::multiplies<>()); }
  // Storage element index of the element with row-major index `flat`.
  int64_t storage_index(int64_t flat) const {
    int64_t off = desc.offset;
    for (int d = desc.ndim - 1; d >= 0; --d) {
      off += (flat % desc.shape[d]) * desc.strides[d];
      flat /= desc.shape[d];
    }
    return off;
  }
  unsigned char* at(int64_t flat) {
    return bytes.data() + kGuard + storage_index(flat) * tsr_dtype_size(desc.dtype);
  }
  double get(int64_t flat) { return tsr_element_to_double(dtype(), at(flat)); }
  void set(int64_t flat, double v) { write_elem(dtype(), at(flat), v); }

  // Empty when only the view's elements changed, else where the first stray write is.
  std::string stray_writes() const {
    std::vector<char> mine(bytes.size(), 0);
    const size_t es = tsr_dtype_size(desc.dtype);
    for (int64_t i = 0; i < numel(); ++i) {
      const size_t b = kGuard + storage_index(i) * es;
      std::fill(mine.begin() + static_cast<std::ptrdiff_t>(b), mine.begin() + static_cast<std::ptrdiff_t>(b + es), 1);
    }
    for (size_t b = 0; b < bytes.size(); ++b)
      if (!mine[b] && bytes[b] != kSentinel) return "byte " + std::to_string(b) + " outside the view was written";
    return "";
  }
};

inline Tensor make_tensor(int dtype, const std::vector<int64_t>& shape, Layout layout) {
  Tensor t;
  t.shape = shape;
  const int n = static_cast<int>(shape.size());
  t.desc.struct_size = TSR_TENSOR_DESC_STRUCT_SIZE;
  t.desc.ndim = n;
  t.desc.dtype = dtype;
  t.desc.device = {TSR_DEVICE_CPU, 0};
  // Row-major strides of `dims`.
  auto contiguous = [](const std::vector<int64_t>& dims) {
    std::vector<int64_t> s(dims.size());
    int64_t acc = 1;
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) s[d] = acc, acc *= std::max<int64_t>(dims[d], 1);
    return s;
  };
  std::vector<int64_t> strides = contiguous(shape);
  int64_t offset = 3;
  if (layout == Layout::Transposed) {
    const std::vector<int64_t> rev(shape.rbegin(), shape.rend());
    const std::vector<int64_t> s = contiguous(rev);
    strides.assign(s.rbegin(), s.rend());
    offset = 1;
  } else if (layout == Layout::SwapLast && n >= 2) {  // x.mT of a contiguous tensor
    std::vector<int64_t> swapped = shape;
    std::swap(swapped[n - 1], swapped[n - 2]);
    strides = contiguous(swapped);
    std::swap(strides[n - 1], strides[n - 2]);
    offset = 2;
  } else if (layout == Layout::Sliced) {  // x[1::2, ..., 1::3] of a larger tensor
    std::vector<int64_t> base(shape.size()), step(shape.size());
    for (int d = 0; d < n; ++d) step[d] = d == n - 1 ? 3 : 2, base[d] = step[d] * shape[d] + 1;
    const std::vector<int64_t> s = contiguous(base);
    offset = 0;
    for (int d = 0; d < n; ++d) strides[d] = s[d] * step[d], offset += s[d];
  } else if (layout == Layout::Broadcast0 || layout == Layout::BroadcastLast) {
    if (n > 0) {
      const int d = layout == Layout::Broadcast0 ? 0 : n - 1;
      std::vector<int64_t> small = shape;
      small[d] = 1;
      strides = contiguous(small);
      strides[d] = 0;
    }
  }
  int64_t last = offset;
  bool empty = false;
  for (int d = 0; d < n; ++d) {
    t.desc.shape[d] = shape[d];
    t.desc.strides[d] = strides[d];
    empty = empty || shape[d] == 0;
    if (shape[d] > 0) last += (shape[d] - 1) * strides[d];
  }
  t.desc.offset = offset;
  const int64_t storage = empty ? 0 : last + 3;  // a few spare elements after the view
  t.bytes.assign(2 * kGuard + static_cast<size_t>(storage) * tsr_dtype_size(dtype), kSentinel);
  t.desc.data = t.bytes.data() + kGuard;
  return t;
}

}  // namespace cpu_tbb_test
