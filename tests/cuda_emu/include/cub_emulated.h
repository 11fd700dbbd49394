/* SPDX-License-Identifier: Apache-2.0 */
// A host stand-in for the part of CUB that backends/cuda calls
// (cub::DeviceSegmentedRadixSort's SortKeys and SortPairs), as cublas_v2.h
// stands in for cuBLAS: the same signatures and two-call protocol (a call
// with d_temp_storage == nullptr sizes the temporary storage), the arguments
// checked when called, the work queued in stream order (Note [Emulated
// streams] in cuda_runtime.h). The sort is std::stable_sort per segment,
// which is what a radix sort's order is: stable, by the key's bits in
// [begin_bit, end_bit).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "cuda_runtime.h"

namespace cub {

struct DeviceSegmentedRadixSort {
  template <class KeyT, class ValueT, class BeginT, class EndT>
  static cudaError_t SortPairs(void* d_temp_storage, size_t& temp_storage_bytes, const KeyT* d_keys_in, KeyT* d_keys_out,
                               const ValueT* d_values_in, ValueT* d_values_out, int num_items, int num_segments,
                               BeginT d_begin_offsets, EndT d_end_offsets, int begin_bit = 0,
                               int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0) {
    return sort<KeyT, ValueT>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, d_values_in, d_values_out, num_items,
                              num_segments, d_begin_offsets, d_end_offsets, begin_bit, end_bit, stream);
  }
  template <class KeyT, class BeginT, class EndT>
  static cudaError_t SortKeys(void* d_temp_storage, size_t& temp_storage_bytes, const KeyT* d_keys_in, KeyT* d_keys_out,
                              int num_items, int num_segments, BeginT d_begin_offsets, EndT d_end_offsets, int begin_bit = 0,
                              int end_bit = sizeof(KeyT) * 8, cudaStream_t stream = 0) {
    return sort<KeyT, char>(d_temp_storage, temp_storage_bytes, d_keys_in, d_keys_out, nullptr, nullptr, num_items,
                            num_segments, d_begin_offsets, d_end_offsets, begin_bit, end_bit, stream);
  }

 private:
  template <class KeyT, class ValueT, class BeginT, class EndT>
  static cudaError_t sort(void* temp, size_t& temp_bytes, const KeyT* keys_in, KeyT* keys_out, const ValueT* values_in,
                          ValueT* values_out, int num_items, int num_segments, BeginT begin, EndT end, int begin_bit,
                          int end_bit, cudaStream_t stream) {
    if (temp == nullptr) {  // sizing: some bytes, so that the caller's workspace is exercised
      temp_bytes = 256;
      return cudaSuccess;
    }
    if (temp_bytes < 256 || num_items < 0 || num_segments < 0 || begin_bit < 0 || end_bit > static_cast<int>(sizeof(KeyT) * 8) ||
        begin_bit >= end_bit)
      return cudaErrorInvalidValue;
    tessera_cuda_emu::enqueue(stream, [=] {
      const KeyT mask = end_bit - begin_bit == static_cast<int>(sizeof(KeyT) * 8)
                            ? static_cast<KeyT>(~KeyT(0))
                            : static_cast<KeyT>(((KeyT(1) << (end_bit - begin_bit)) - 1) << begin_bit);
      std::vector<int> order;
      for (int s = 0; s < num_segments; ++s) {
        const int b = begin[s], e = end[s];
        if (e <= b) continue;
        order.resize(static_cast<size_t>(e - b));
        std::iota(order.begin(), order.end(), b);
        std::stable_sort(order.begin(), order.end(),
                         [&](int x, int y) { return (keys_in[x] & mask) < (keys_in[y] & mask); });
        for (int k = 0; k < e - b; ++k) {
          keys_out[b + k] = keys_in[order[static_cast<size_t>(k)]];
          if (values_out != nullptr) values_out[b + k] = values_in[order[static_cast<size_t>(k)]];
        }
      }
    });
    return cudaSuccess;
  }
};

}  // namespace cub
