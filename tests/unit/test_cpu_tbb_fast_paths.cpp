// SPDX-License-Identifier: Apache-2.0
// The CPU plugin's fast paths (bench/), each checked against a plain
// reference: the caching allocator (reuse, statistics, empty_cache, the
// cache_mb option, many threads), the vectorised float32 exp / sigmoid
// (accuracy and identical bits on every layout), transposing copies, the
// small matrix product, and two-dim row walks. No timing here: speed is
// bench/'s business.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <thread>
#include <vector>

#include "cpu_tbb_test_support.hpp"

using namespace cpu_tbb_test;
using L = Layout;

namespace {

void run_ok(Plugin& p, int op, int key, Tensor& out, std::vector<Tensor*> ins) {
  auto it = p.kernels.find({op, key});
  REQUIRE(it != p.kernels.end());
  std::vector<const tsr_tensor_desc*> descs;
  for (Tensor* t : ins) descs.push_back(&t->desc);
  int64_t params[1] = {0};
  tsr_kernel_args a{};
  a.struct_size = TSR_KERNEL_ARGS_STRUCT_SIZE;
  a.op = op;
  a.inputs = descs.data();
  a.num_inputs = static_cast<int32_t>(descs.size());
  a.output = &out.desc;
  a.params = params;
  a.num_params = 1;
  const tsr_status s = it->second(p.api->ctx, &a);
  INFO(g_last_error);
  REQUIRE(s == TSR_OK);
  REQUIRE(out.stray_writes() == "");
}

struct Stats {
  uint64_t in_use = 0, reserved = 0;
};
Stats stats(Plugin& p) {
  Stats s;
  REQUIRE(p.api->device->memory_stats != nullptr);
  REQUIRE(p.api->device->memory_stats(p.api->ctx, 0, &s.in_use, &s.reserved) == TSR_OK);
  return s;
}

void* alloc(Plugin& p, size_t n) {
  void* block = nullptr;
  REQUIRE(p.api->device->allocate(p.api->ctx, 0, n, &block) == TSR_OK);
  REQUIRE(block != nullptr);
  std::memset(block, 0x5A, n);  // the whole block is writable
  return block;
}
void release(Plugin& p, void* block, size_t n) { p.api->device->deallocate(p.api->ctx, 0, block, n); }

// Distance in float32 ulps between a float result and the exact value.
double ulps(float got, double want) {
  const float w = static_cast<float>(want);
  const double ulp = std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity()) - std::fabs(w);
  return std::fabs(static_cast<double>(got) - want) / ulp;
}

Tensor filled(int dtype, const std::vector<int64_t>& shape, L layout, std::mt19937& rng, double lo = -2, double hi = 2) {
  Tensor t = make_tensor(dtype, shape, layout);
  std::uniform_real_distribution<double> u(lo, hi);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, dtype == TSR_INT32 || dtype == TSR_INT64 ? std::round(u(rng) * 1000) : u(rng));
  return t;
}

}  // namespace

// ---- the caching allocator ---------------------------------------------------------

TEST_CASE("cpu_tbb allocator: a freed block serves the next request of its class") {
  Plugin p("{\"cache_mb\": 64}");  // explicit: sanitizer builds cache nothing by default
  const Stats before = stats(p);
  void* a = alloc(p, 100);  // class of 128 bytes
  CHECK(reinterpret_cast<uintptr_t>(a) % 64 == 0);
  CHECK(stats(p).in_use == before.in_use + 128);
  release(p, a, 100);
  CHECK(stats(p).in_use == before.in_use);
  CHECK(stats(p).reserved == before.reserved + 128);  // kept for reuse
  void* b = alloc(p, 120);                            // the same class: the same block
  CHECK(b == a);
  CHECK(stats(p).reserved == before.reserved + 128);
  release(p, b, 120);

  // Large blocks: 2 MiB aligned, sizes rounded up to 2 MiB.
  const size_t big = (size_t{5} << 20) + 3;
  void* c = alloc(p, big);
  CHECK(reinterpret_cast<uintptr_t>(c) % (size_t{2} << 20) == 0);
  CHECK(stats(p).in_use == before.in_use + (size_t{6} << 20));
  release(p, c, big);
  void* d = alloc(p, size_t{6} << 20);
  CHECK(d == c);
  release(p, d, size_t{6} << 20);
  CHECK(stats(p).reserved >= before.reserved + (size_t{6} << 20));

  // empty_cache returns everything that is not in use.
  void* live = alloc(p, 3000);
  REQUIRE(p.api->device->empty_cache(p.api->ctx, 0) == TSR_OK);
  const Stats after = stats(p);
  CHECK(after.reserved == after.in_use);
  CHECK(after.in_use == before.in_use + 3072);  // 3000 rounds up to 2048 + 1024
  release(p, live, 3000);
  CHECK(p.api->device->empty_cache(p.api->ctx, 1) == TSR_ERR_INDEX);
}

TEST_CASE("cpu_tbb allocator: cache_mb 0 keeps nothing; a bad value is a config error") {
  Plugin p("{\"cache_mb\": 0}");
  void* a = alloc(p, size_t{5} << 20);
  void* b = alloc(p, 64);
  release(p, a, size_t{5} << 20);
  release(p, b, 64);
  CHECK(stats(p).reserved == 0);
  CHECK(stats(p).in_use == 0);

  for (const char* bad : {"{\"cache_mb\": -1}", "{\"cache_mb\": 1.5}", "{\"cache_mb\": \"big\"}", "{\"cache_mb\": 99999999999}"}) {
    INFO(bad);
    const tsr_plugin_api* api = nullptr;
    tsr_plugin_init_args args{TSR_PLUGIN_INIT_ARGS_STRUCT_SIZE, TSR_ABI_VERSION, 0, host_api(), bad, "cpu"};
    CHECK(plugin_entry()(&args, &api) == TSR_ERR_CONFIG);
    CHECK(g_last_error.find("cache_mb") != std::string::npos);
  }
}

TEST_CASE("cpu_tbb allocator: many threads allocating and freeing balance out") {
  Plugin p("{\"cache_mb\": 64}");
  const Stats before = stats(p);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&p, t] {
      std::vector<std::pair<void*, size_t>> held;
      for (int i = 0; i < 2000; ++i) {
        const size_t n = static_cast<size_t>((i * 7919 + t * 104729) % 70000 + 1);
        void* block = nullptr;
        if (p.api->device->allocate(p.api->ctx, 0, n, &block) != TSR_OK) return;
        static_cast<unsigned char*>(block)[n - 1] = static_cast<unsigned char>(i);
        held.emplace_back(block, n);
        if (held.size() > 8) {
          p.api->device->deallocate(p.api->ctx, 0, held.front().first, held.front().second);
          held.erase(held.begin());
        }
      }
      for (auto& [block, n] : held) p.api->device->deallocate(p.api->ctx, 0, block, n);
    });
  }
  for (auto& th : threads) th.join();
  const Stats after = stats(p);
  CHECK(after.in_use == before.in_use);
  CHECK(after.reserved - after.in_use <= (uint64_t{64} << 20) * 2);  // within the limit (Note in allocator.hpp)
}

// ---- exp and sigmoid --------------------------------------------------------------------

TEST_CASE("cpu_tbb: float32 exp and sigmoid are accurate and the same bits on every layout") {
  Plugin& p = plugin();
  std::vector<double> xs;
  for (double x = -110; x <= 100; x += 0.00731) xs.push_back(x);
  for (double x : {0.0, -0.0, 88.72283935546875, 88.7228393554688, 88.73, -87.33654, -103.97208, -103.972084, -104.0,
                   1e-30, -1e-30, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()})
    xs.push_back(x);
  const int64_t n = static_cast<int64_t>(xs.size());
  Tensor in = make_tensor(TSR_FLOAT32, {n}, L::Contiguous), strided = make_tensor(TSR_FLOAT32, {n}, L::Sliced);
  for (int64_t i = 0; i < n; ++i) in.set(i, xs[i]), strided.set(i, xs[i]);
  for (int op : {TSR_OP_EXP, TSR_OP_SIGMOID}) {
    INFO(tsr_op_name(op));
    Tensor out = make_tensor(TSR_FLOAT32, {n}, L::Contiguous), out2 = make_tensor(TSR_FLOAT32, {n}, L::Sliced);
    run_ok(p, op, TSR_FLOAT32, out, {&in});        // the vectorised loop
    run_ok(p, op, TSR_FLOAT32, out2, {&strided});  // the element-wise path
    double worst = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double x = static_cast<float>(xs[i]);
      const double want = op == TSR_OP_EXP ? std::exp(x) : 1.0 / (1.0 + std::exp(-x));
      const float got = static_cast<float>(out.get(i));
      INFO("x = " << x);
      REQUIRE(std::memcmp(out.at(i), out2.at(i), 4) == 0);  // identical bits
      if (std::isinf(static_cast<float>(want))) {
        CHECK(got == static_cast<float>(want));  // overflow to inf, as float32 does
      } else if (std::fabs(want) < 1.2e-38) {
        CHECK(std::fabs(got - want) <= 3e-45);  // 0 or subnormal: within two subnormal steps
      } else {
        worst = std::max(worst, ulps(got, want));
      }
    }
    CHECK(worst <= (op == TSR_OP_EXP ? 1.5 : 3.0));
  }
  // NaN stays NaN.
  Tensor nan_in = make_tensor(TSR_FLOAT32, {3}, L::Contiguous), nan_out = make_tensor(TSR_FLOAT32, {3}, L::Contiguous);
  for (int64_t i = 0; i < 3; ++i) nan_in.set(i, std::nan(""));
  for (int op : {TSR_OP_EXP, TSR_OP_SIGMOID}) {
    run_ok(p, op, TSR_FLOAT32, nan_out, {&nan_in});
    for (int64_t i = 0; i < 3; ++i) CHECK(std::isnan(nan_out.get(i)));
  }
}

// ---- transposing copies -------------------------------------------------------------------

TEST_CASE("cpu_tbb: transposing copies are exact for 4- and 8-byte dtypes, ragged and batched") {
  std::mt19937 rng(7);
  struct Case {
    std::vector<int64_t> shape;
    L out, in;
  };
  const Case cases[] = {
      {{256, 300}, L::Contiguous, L::Transposed},  // x.T.contiguous(), ragged edges
      {{1000, 40}, L::Contiguous, L::Transposed},
      {{128, 256}, L::Contiguous, L::Transposed},  // whole tiles only
      {{3, 130, 90}, L::Contiguous, L::SwapLast},  // a batch of x.mT
      {{300, 256}, L::Transposed, L::Contiguous},  // written through a transposed view
  };
  for (int d : {TSR_FLOAT32, TSR_INT32, TSR_FLOAT64, TSR_INT64}) {
    for (const Case& c : cases) {
      INFO(tsr_dtype_name(d) << " shape[0] " << c.shape[0] << " out " << layout_name(c.out) << " in " << layout_name(c.in));
      for (int threads : {1, 0}) {
        Tensor in = filled(d, c.shape, c.in, rng);
        Tensor out = make_tensor(d, c.shape, c.out);
        run_ok(plugin(threads), TSR_OP_COPY, d, out, {&in});
        bool same = true;
        for (int64_t i = 0; i < out.numel() && same; ++i) same = std::memcmp(out.at(i), in.at(i), tsr_dtype_size(d)) == 0;
        CHECK(same);
      }
    }
  }
}

// ---- small matrix products ---------------------------------------------------------------

TEST_CASE("cpu_tbb: small matmuls (panel and dot-product forms) match float64") {
  std::mt19937 rng(11);
  struct Case {
    std::vector<int64_t> a, b;
    L la, lb;
  };
  const Case cases[] = {
      {{200, 16}, {16, 16}, L::Contiguous, L::SwapLast},  // the MLP's hidden layer: A @ W.T
      {{200, 2}, {2, 16}, L::Contiguous, L::SwapLast},    // its first layer
      {{200, 16}, {16, 1}, L::Contiguous, L::SwapLast},   // its last: dot products, rows of A used in place
      {{37, 13}, {13, 2}, L::Sliced, L::Contiguous},      // dot products on packed, zero-padded rows
      {{9, 5}, {5, 33}, L::Transposed, L::Contiguous},    // ragged tiles and row blocks
      {{1, 64}, {64, 64}, L::Contiguous, L::Contiguous},
      {{4, 20, 12}, {4, 12, 7}, L::Contiguous, L::Broadcast0},
  };
  for (int d : {TSR_FLOAT32, TSR_FLOAT64}) {
    for (const Case& c : cases) {
      const size_t nd = c.a.size();
      const int64_t M = c.a[nd - 2], K = c.a[nd - 1], N = c.b[nd - 1];
      INFO(tsr_dtype_name(d) << " " << M << "x" << K << " @ " << K << "x" << N);
      Tensor a = filled(d, c.a, c.la, rng), b = filled(d, c.b, c.lb, rng);
      std::vector<int64_t> os = c.a;
      os[nd - 1] = N;
      Tensor out = make_tensor(d, os, L::Contiguous);
      run_ok(plugin(), TSR_OP_MATMUL, d, out, {&a, &b});
      const double tol = (d == TSR_FLOAT32 ? 2e-6 : 1e-14) * static_cast<double>(K) * 4;
      bool ok = true;
      for (int64_t i = 0; i < out.numel() && ok; ++i) {
        const int64_t batch = i / (M * N), m = i / N % M, col = i % N;
        double want = 0;
        for (int64_t k = 0; k < K; ++k) want += a.get((batch * M + m) * K + k) * b.get((batch * K + k) * N + col);
        ok = std::fabs(out.get(i) - want) <= tol;
        if (!ok) INFO("element " << i << ": got " << out.get(i) << " want " << want);
        CHECK(ok);
      }
    }
  }
}

// ---- two-dim row walks --------------------------------------------------------------------

TEST_CASE("cpu_tbb: a matrix plus a broadcast row, and unary ops on row slices, walk rows exactly") {
  std::mt19937 rng(3);
  for (int threads : {1, 0}) {
    for (int64_t rows : {200, 3000}) {  // below and above the parallel threshold
      INFO("rows " << rows << " threads " << threads);
      Tensor x = filled(TSR_FLOAT32, {rows, 16}, L::Contiguous, rng);
      Tensor bias = filled(TSR_FLOAT32, {rows, 16}, L::Broadcast0, rng);  // one row, stride 0 along dim 0
      Tensor z = make_tensor(TSR_FLOAT32, {rows, 16}, L::Contiguous);
      run_ok(plugin(threads), TSR_OP_ADD, TSR_FLOAT32, z, {&x, &bias});
      bool same = true;
      for (int64_t i = 0; i < z.numel(); ++i) same = same && z.get(i) == round_to(TSR_FLOAT32, x.get(i) + bias.get(i));
      CHECK(same);

      // x[:, :16] of a (rows, 20) tensor: unit-stride rows with gaps between them.
      Tensor wide = filled(TSR_FLOAT32, {rows, 20}, L::Contiguous, rng, -8, 8);
      wide.desc.shape[1] = 16;
      wide.shape = {rows, 16};
      Tensor dense = make_tensor(TSR_FLOAT32, {rows, 16}, L::Contiguous);
      for (int64_t i = 0; i < dense.numel(); ++i) dense.set(i, wide.get(i));
      for (int op : {TSR_OP_SIGMOID, TSR_OP_RELU, TSR_OP_EXP}) {
        INFO(tsr_op_name(op));
        Tensor a = make_tensor(TSR_FLOAT32, {rows, 16}, L::Contiguous), b = make_tensor(TSR_FLOAT32, {rows, 16}, L::Contiguous);
        run_ok(plugin(threads), op, TSR_FLOAT32, a, {&wide});
        run_ok(plugin(threads), op, TSR_FLOAT32, b, {&dense});
        CHECK(std::memcmp(a.at(0), b.at(0), static_cast<size_t>(a.numel()) * 4) == 0);
      }
    }
  }
}
