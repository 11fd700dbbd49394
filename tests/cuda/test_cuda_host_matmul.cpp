// SPDX-License-Identifier: Apache-2.0
// cuda.host.matmul: matmul: every cuBLAS plan through a reference of cuBLAS's contract,
// and the plain (integer) kernel.
// The CUDA backend's device code run on the CPU, no GPU needed (see
// test_cuda_host.hpp).
#include "test_cuda_host.hpp"

using namespace tessera_test_cuda_host;

// ---- matmul through cuBLAS ---------------------------------------------------------------
// cuBLAS needs a GPU, so the plan (gemm_plan.hpp) runs here through a
// reference of cublasGemmStridedBatchedEx's documented contract: column-major
// operands, op N or T, leading dimensions that cuBLAS would refuse with
// CUBLAS_STATUS_INVALID_VALUE checked first. Operands without a BLAS layout
// are packed as matmul.cu packs them.

namespace {

// The plan's cuBLAS call, run by the emulator's reference of the contract
// (tests/cuda_emu/include/column_major_gemm.hpp), in double.
void gemm_reference(const cu::GemmPlan& p, const double* first, const double* second, double* c) {
  const tessera_cuda_emu::GemmShape g{p.trans_first, p.trans_second, p.m, p.n, p.k, p.ld_first, p.ld_second, p.ldc,
                                      p.stride_first, p.stride_second, p.stride_c, p.batch_count};
  REQUIRE(tessera_cuda_emu::gemm_valid(g));
  REQUIRE((p.m >= 1 && p.n >= 1 && p.k >= 1 && p.batch_count >= 1));
  tessera_cuda_emu::column_major_gemm<double>(g, [&](int64_t i) { return first[i]; }, [&](int64_t i) { return second[i]; },
                                              [&](int64_t i, double v) { c[i] = v; });
}

// An operand's layout: dims listed outermost to innermost in memory, the
// innermost run padded by `pad` elements, every stride times `step`, and the
// dims in `expanded` given stride 0.
struct MatLayout {
  MatLayout(std::string n, std::vector<int> o, int64_t p = 0, int64_t s = 1, std::vector<int> e = {})
      : name(std::move(n)), order(std::move(o)), pad(p), step(s), expanded(std::move(e)) {}
  std::string name;
  std::vector<int> order;  // a permutation of the dims, outermost first
  int64_t pad, step;
  std::vector<int> expanded;
};

HostTensor make_operand(const std::vector<int64_t>& shape, const MatLayout& l, std::mt19937_64& rng, bool fill, int dtype = TSR_FLOAT64) {
  const int nd = static_cast<int>(shape.size());
  std::vector<int64_t> strides(static_cast<size_t>(nd));
  int64_t stride = 1;
  for (int i = nd - 1; i >= 0; --i) {
    const int d = l.order[static_cast<size_t>(i)];
    strides[static_cast<size_t>(d)] = stride * l.step;
    stride *= shape[static_cast<size_t>(d)] + (i == nd - 1 ? l.pad : 0);
  }
  for (int d : l.expanded) strides[static_cast<size_t>(d)] = 0;
  HostTensor t = make_tensor(dtype, shape, strides, 1);
  if (fill && dtype == TSR_FLOAT64) fill_random<double>(t, rng);
  return t;
}

// A packed row-major copy of t's view, as matmul.cu's contiguous_like + copy.
std::vector<double> pack(const HostTensor& t, tsr_tensor_desc& packed) {
  std::vector<double> data(static_cast<size_t>(std::max<int64_t>(numel(t.desc), 1)));
  packed = cu::contiguous_like(t.desc, data.data());
  for (int64_t i = 0; i < numel(t.desc); ++i) data[static_cast<size_t>(i)] = at<double>(t, i);
  return data;
}

// c = a @ b through the plan and the reference, checked against a plain
// triple loop over the views; nothing outside c's view may change.
void check_gemm(const HostTensor& a, const HostTensor& b, HostTensor& c, bool expect_pack) {
  const int nd = c.desc.ndim;
  const int64_t M = c.desc.shape[nd - 2], N = c.desc.shape[nd - 1], K = a.desc.shape[nd - 1];
  std::vector<unsigned char> expected(c.storage.get(), c.storage.get() + c.bytes);
  const int64_t n_out = numel(c.desc);
  for (int64_t o = 0; o < n_out; ++o) {
    // o's batch index and (i, j); a and b at the same batch index.
    int64_t rest = o / (M * N);
    const int64_t i = (o / N) % M, j = o % N;
    int64_t oa = a.desc.offset, ob = b.desc.offset;
    for (int d = nd - 3; d >= 0; --d) {
      const int64_t idx = rest % c.desc.shape[d];
      rest /= c.desc.shape[d];
      oa += idx * a.desc.strides[d];
      ob += idx * b.desc.strides[d];
    }
    double acc = 0;
    for (int64_t l = 0; l < K; ++l)
      acc += reinterpret_cast<const double*>(a.storage.get())[oa + i * a.desc.strides[nd - 2] + l * a.desc.strides[nd - 1]] *
             reinterpret_cast<const double*>(b.storage.get())[ob + l * b.desc.strides[nd - 2] + j * b.desc.strides[nd - 1]];
    std::memcpy(expected.data() + offset_of(c.desc, o) * 8, &acc, 8);
  }
  tsr_tensor_desc da = a.desc, db = b.desc, dc = c.desc;
  std::vector<double> pa, pb, pc;
  const bool packs = !cu::blas_layout(cu::matrix_of(da)) || !cu::blas_layout(cu::matrix_of(db)) || !cu::blas_layout(cu::matrix_of(dc));
  CHECK(packs == expect_pack);
  if (!cu::blas_layout(cu::matrix_of(da))) pa = pack(a, da);
  if (!cu::blas_layout(cu::matrix_of(db))) pb = pack(b, db);
  if (!cu::blas_layout(cu::matrix_of(dc))) pc = pack(c, dc);
  const std::optional<cu::GemmPlan> plan = cu::plan_gemm(da, db, dc);
  REQUIRE(plan.has_value());
  auto base = [](const tsr_tensor_desc& d) { return static_cast<double*>(d.data) + d.offset; };
  for (int64_t t = 0; t < plan->outer_count; ++t) {
    int64_t oa, ob, oc;
    plan->offsets(t, oa, ob, oc);
    const double* first = plan->swapped ? base(db) + ob : base(da) + oa;
    const double* second = plan->swapped ? base(da) + oa : base(db) + ob;
    gemm_reference(*plan, first, second, base(dc) + oc);
  }
  if (!pc.empty()) {
    for (int64_t i = 0; i < n_out; ++i) at<double>(c, i) = pc[static_cast<size_t>(i)];
  }
  // Exact: both sides add the same products in the same order.
  CHECK(std::memcmp(expected.data(), c.storage.get(), c.bytes) == 0);
}

}  // namespace

TEST_CASE("matmul's cuBLAS calls: every operand layout, vectors, batches merged, looped and broadcast") {
  std::mt19937_64 rng(9);
  // 2-d: [M, K] x [K, N] -> [M, N], each operand in each layout.
  const std::vector<MatLayout> mats = {
      {"row-major", {0, 1}},
      {"column-major", {1, 0}},
      {"row-major, padded rows", {0, 1}, 3},
      {"column-major, padded columns", {1, 0}, 2},
      {"step-2 columns (packed)", {0, 1}, 0, 2},
      {"expanded rows (packed)", {0, 1}, 0, 1, {0}},
  };
  for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{5, 7, 3}, {1, 7, 3}, {5, 1, 3}, {5, 7, 1}, {1, 1, 1}, {4, 6, 1}}) {
    for (const MatLayout& la : mats) {
      for (const MatLayout& lb : mats) {
        for (const MatLayout& lc : mats) {
          if (!lc.expanded.empty()) continue;  // the runtime never writes into an expanded view
          INFO(M << "x" << K << "x" << N << ": a " << la.name << ", b " << lb.name << ", c " << lc.name);
          HostTensor a = make_operand({M, K}, la, rng, true), b = make_operand({K, N}, lb, rng, true);
          HostTensor c = make_operand({M, N}, lc, rng, false);
          auto needs_pack = [](const HostTensor& t) { return !cu::blas_layout(cu::matrix_of(t.desc)).has_value(); };
          check_gemm(a, b, c, needs_pack(a) || needs_pack(b) || needs_pack(c));
        }
      }
    }
  }
  // Vectors and 1-wide matrices are never packed, whatever their strides.
  for (const MatLayout& l : mats) {
    if (l.expanded.empty() && l.step == 1) {
      HostTensor row = make_operand({1, 9}, l, rng, true);
      CHECK(cu::blas_layout(cu::matrix_of(row.desc)).has_value());
    }
  }

  // Batches: [2, 3, M, K] x [2, 3, K, N] -> [2, 3, M, N].
  struct BatchCase {
    const char* name;
    MatLayout a, b, c;
    int64_t expect_calls, expect_batch;
  };
  const std::vector<BatchCase> batches = {
      {"all contiguous: one call of 6", {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}}, 1, 6},
      {"transposed matrices, contiguous batches", {"", {0, 1, 3, 2}}, {"", {0, 1, 3, 2}}, {"", {0, 1, 3, 2}}, 1, 6},
      {"b broadcast over both batch dims", {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}, 0, 1, {0, 1}}, {"", {0, 1, 2, 3}}, 1, 6},
      {"a broadcast over the inner batch dim", {"", {0, 1, 2, 3}, 0, 1, {1}}, {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}}, 2, 3},
      {"c's batch dims swapped: looped", {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}}, {"", {1, 0, 2, 3}}, 2, 3},
      {"matrices interleaved with the batch", {"", {2, 0, 1, 3}}, {"", {0, 1, 2, 3}}, {"", {2, 0, 1, 3}}, 1, 6},
      {"a packed, b and c column-major", {"", {0, 1, 2, 3}, 0, 2}, {"", {0, 1, 3, 2}}, {"", {0, 1, 3, 2}}, 1, 6},
      {"c packed", {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}}, {"", {0, 1, 2, 3}, 0, 2}, 1, 6},
  };
  for (const BatchCase& bc : batches) {
    for (auto [M, K, N] : std::vector<std::array<int64_t, 3>>{{5, 7, 3}, {1, 4, 6}, {6, 4, 1}}) {
      INFO(bc.name << ", " << M << "x" << K << "x" << N);
      HostTensor a = make_operand({2, 3, M, K}, bc.a, rng, true), b = make_operand({2, 3, K, N}, bc.b, rng, true);
      HostTensor c = make_operand({2, 3, M, N}, bc.c, rng, false);
      tsr_tensor_desc da = a.desc, db = b.desc, dc = c.desc;
      std::vector<double> pa, pb, pc;
      if (!cu::blas_layout(cu::matrix_of(da))) pa = pack(a, da);
      if (!cu::blas_layout(cu::matrix_of(db))) pb = pack(b, db);
      if (!cu::blas_layout(cu::matrix_of(dc))) pc = pack(c, dc);
      const auto plan = cu::plan_gemm(da, db, dc);
      REQUIRE(plan.has_value());
      CHECK(plan->outer_count == bc.expect_calls);
      CHECK(plan->batch_count == bc.expect_batch);
      check_gemm(a, b, c, !pa.empty() || !pb.empty() || !pc.empty());
    }
  }
  // A size-1 batch dim is dropped; one with more than INT_MAX matrices is refused.
  {
    HostTensor a = make_operand({1, 5, 7}, {"", {0, 1, 2}}, rng, true), b = make_operand({1, 7, 3}, {"", {0, 1, 2}}, rng, true);
    HostTensor c = make_operand({1, 5, 3}, {"", {0, 1, 2}}, rng, false);
    const auto plan = cu::plan_gemm(a.desc, b.desc, c.desc);
    REQUIRE(plan.has_value());
    CHECK(plan->outer.empty());
    CHECK(plan->batch_count == 1);
    check_gemm(a, b, c, false);
    tsr_tensor_desc big_a = a.desc, big_b = b.desc, big_c = c.desc;
    for (tsr_tensor_desc* d : {&big_a, &big_b, &big_c}) d->shape[0] = int64_t{1} << 31;
    big_b.strides[0] = 0;
    CHECK_FALSE(cu::plan_gemm(big_a, big_b, big_c).has_value());
  }
}

// The plain kernel (integers, and floats beyond cuBLAS's int): every output
// element by plain_matmul_element, against 64-bit wrapping sums of the views.
template <class S> void check_plain(const std::vector<int64_t>& batch, int64_t M, int64_t K, int64_t N, const MatLayout& la,
                                    const MatLayout& lb, const MatLayout& lc, std::mt19937_64& rng) {
  constexpr int D = std::is_same_v<S, int8_t> ? TSR_INT8 : std::is_same_v<S, int32_t> ? TSR_INT32 : std::is_same_v<S, int64_t> ? TSR_INT64 : TSR_FLOAT32;
  auto with = [&](int64_t r, int64_t c) {
    std::vector<int64_t> s = batch;
    s.push_back(r);
    s.push_back(c);
    return s;
  };
  HostTensor a = make_operand(with(M, K), la, rng, false, D), b = make_operand(with(K, N), lb, rng, false, D);
  HostTensor c = make_operand(with(M, N), lc, rng, false, D);
  fill_random<S>(a, rng);
  fill_random<S>(b, rng);
  std::vector<unsigned char> expected(c.storage.get(), c.storage.get() + c.bytes);
  const int nd = c.desc.ndim;
  for (int64_t o = 0; o < numel(c.desc); ++o) {
    int64_t rest = o / (M * N), oa = a.desc.offset, ob = b.desc.offset;
    const int64_t i = (o / N) % M, j = o % N;
    for (int d = nd - 3; d >= 0; --d) {
      const int64_t idx = rest % c.desc.shape[d];
      rest /= c.desc.shape[d];
      oa += idx * a.desc.strides[d];
      ob += idx * b.desc.strides[d];
    }
    const S* pa = reinterpret_cast<const S*>(a.storage.get());
    const S* pb = reinterpret_cast<const S*>(b.storage.get());
    S v;
    if constexpr (std::is_integral_v<S>) {
      uint64_t acc = 0;
      for (int64_t l = 0; l < K; ++l)
        acc += static_cast<uint64_t>(static_cast<int64_t>(pa[oa + i * a.desc.strides[nd - 2] + l * a.desc.strides[nd - 1]])) *
               static_cast<uint64_t>(static_cast<int64_t>(pb[ob + l * b.desc.strides[nd - 2] + j * b.desc.strides[nd - 1]]));
      v = static_cast<S>(static_cast<int64_t>(acc));
    } else {
      float acc = 0;
      for (int64_t l = 0; l < K; ++l)
        acc += pa[oa + i * a.desc.strides[nd - 2] + l * a.desc.strides[nd - 1]] * pb[ob + l * b.desc.strides[nd - 2] + j * b.desc.strides[nd - 1]];
      v = acc;
    }
    std::memcpy(expected.data() + offset_of(c.desc, o) * sizeof(S), &v, sizeof(S));
  }
  const cu::PlainParams p = cu::plan_plain<S>(a.desc, b.desc, c.desc);
  REQUIRE(p.batches * p.M * p.N == numel(c.desc));
  for (int64_t t = 0; t < p.batches; ++t)
    for (int64_t m = 0; m < p.M; ++m)
      for (int64_t n = 0; n < p.N; ++n) cu::plain_matmul_element<S>(p, t, m, n);
  CHECK(std::memcmp(expected.data(), c.storage.get(), c.bytes) == 0);
}

TEST_CASE("the plain matmul: integers wrap as 64-bit sums, any layout, broadcast batches") {
  std::mt19937_64 rng(10);
  const MatLayout row("row-major", {0, 1, 2}), col("column-major", {0, 2, 1}), padded("padded", {0, 1, 2}, 3),
      stepped("step-2", {0, 1, 2}, 0, 2), broadcast("batch-broadcast", {0, 1, 2}, 0, 1, {0});
  for (const MatLayout* la : {&row, &col, &stepped, &broadcast}) {
    for (const MatLayout* lb : {&row, &col, &padded, &broadcast}) {
      for (const MatLayout* lc : {&row, &col, &stepped}) {
        INFO("a " << la->name << ", b " << lb->name << ", c " << lc->name);
        check_plain<int8_t>({3}, 5, 7, 4, *la, *lb, *lc, rng);
        check_plain<int32_t>({2}, 4, 9, 3, *la, *lb, *lc, rng);
        check_plain<int64_t>({2}, 1, 6, 5, *la, *lb, *lc, rng);
        check_plain<float>({2}, 3, 5, 2, *la, *lb, *lc, rng);
      }
    }
  }
}
