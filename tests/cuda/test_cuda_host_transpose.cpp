// SPDX-License-Identifier: Apache-2.0
// cuda.host.transpose: the tiled transpose/permute copy, every element size, and its
// checked path past 32-bit offsets.
// The CUDA backend's device code run on the CPU, no GPU needed (see
// test_cuda_host.hpp).
#include "test_cuda_host.hpp"

using namespace tessera_test_cuda_host;

// ---- the tiled transpose ---------------------------------------------------------------

namespace {
template <class T> void check_tiled(const std::vector<int64_t>& shape, const std::vector<int32_t>& perm, std::mt19937_64& rng) {
  // in: a permuted view of a contiguous tensor; out: contiguous.
  std::vector<int64_t> base_shape(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) base_shape[static_cast<size_t>(perm[d])] = shape[d];
  const std::vector<int64_t> base_strides = row_major(base_shape);
  std::vector<int64_t> strides(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) strides[d] = base_strides[static_cast<size_t>(perm[d])];
  const int dtype = sizeof(T) == 1 ? TSR_UINT8 : sizeof(T) == 2 ? TSR_INT16 : sizeof(T) == 4 ? TSR_INT32 : TSR_INT64;
  HostTensor in = make_tensor(dtype, shape, strides, 0);
  fill_random<T>(in, rng);
  HostTensor out = make_tensor(dtype, shape, row_major(shape), 0);
  std::vector<unsigned char> expected(out.storage.get(), out.storage.get() + out.bytes);
  for (int64_t i = 0; i < numel(out.desc); ++i) reinterpret_cast<T*>(expected.data())[offset_of(out.desc, i)] = at<T>(in, i);
  const auto plan = cu::make_plan(std::array<const tsr_tensor_desc*, 2>{&out.desc, &in.desc}, true);
  constexpr int TILE = cu::kTile<sizeof(T)>;
  auto tp = cu::plan_tiled(plan, TILE);
  REQUIRE(tp.has_value());
  CHECK(tp->offsets32);
  cu::tiled_on_host<T, TILE>(*tp);
  CHECK(std::memcmp(expected.data(), out.storage.get(), out.bytes) == 0);
  // Every tile through the checked path too (what offsets past 32 bits take).
  std::memset(out.storage.get(), kSentinel, out.bytes);
  tp->offsets32 = false;
  cu::tiled_on_host<T, TILE>(*tp);
  CHECK(std::memcmp(expected.data(), out.storage.get(), out.bytes) == 0);
}
}  // namespace

TEST_CASE("the tiled copy transposes and permutes every element size") {
  std::mt19937_64 rng(5);
  for (auto shape : std::vector<std::vector<int64_t>>{{64, 64}, {100, 37}, {17, 300}, {129, 65}}) {
    INFO(shape[0] << "x" << shape[1]);
    check_tiled<uint8_t>(shape, {1, 0}, rng);
    check_tiled<uint16_t>(shape, {1, 0}, rng);
    check_tiled<uint32_t>(shape, {1, 0}, rng);
    check_tiled<uint64_t>(shape, {1, 0}, rng);
  }
  check_tiled<uint32_t>({3, 40, 50}, {0, 2, 1}, rng);     // batched transpose
  check_tiled<uint32_t>({20, 5, 33}, {2, 1, 0}, rng);     // the unit-stride dim two away
  check_tiled<uint64_t>({2, 3, 30, 40}, {2, 0, 3, 1}, rng);  // two batch dims
  // A small side goes to the strided kernel instead.
  HostTensor in = make_tensor(TSR_FLOAT32, {100, 4}, {1, 100}, 0), out = make_tensor(TSR_FLOAT32, {100, 4}, {4, 1}, 0);
  const auto plan = cu::make_plan(std::array<const tsr_tensor_desc*, 2>{&out.desc, &in.desc}, true);
  CHECK_FALSE(cu::plan_tiled(plan, 64).has_value());
}

TEST_CASE("a tile whose offsets pass 32 bits takes the checked path") {
  HostTensor in = make_tensor(TSR_FLOAT32, {64, 64}, {1, 64}, 0), out = make_tensor(TSR_FLOAT32, {64, 64}, {64, 1}, 0);
  tsr_tensor_desc wide = in.desc;  // never read: the plan only looks at the descriptor
  for (const int64_t in_a : {int64_t{34087041}, int64_t{34087042}}) {  // 63 x (in_a + 1) < 2^31 for the first only
    wide.strides[1] = in_a;
    const auto plan = cu::make_plan(std::array<const tsr_tensor_desc*, 2>{&out.desc, &wide}, true);
    const auto tp = cu::plan_tiled(plan, 64);
    REQUIRE(tp.has_value());
    CHECK(tp->in_a == in_a);
    CHECK(tp->offsets32 == (in_a == 34087041));
  }
}
