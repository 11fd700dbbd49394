// SPDX-License-Identifier: Apache-2.0
// The Tessera side of the benchmark suite: one Google Benchmark per workload
// of bench/run.py (same names), over the public C API — the MLP forward goes
// through the header-only C++ wrapper exactly as the lesson code does, the
// training steps through tools/train_steps.hpp — plus
// the plain C++ triad that gives the machine's bandwidth reference.
//
//   tessera_bench [--config FILE] [Google Benchmark flags]
//
// Every benchmark reports wall time per iteration (UseRealTime): the ops run
// on several threads. Inputs are made once per process and reused across
// repetitions, so a repetition times the op only.
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "lesson_mlp.hpp"
#include "tessera/tessera.h"
#include "tessera/tessera.hpp"
#include "test_paths.hpp"
#include "train_steps.hpp"

namespace {

// ---- the runtime and the inputs -----------------------------------------------

// Created in main; destroyed after every input is released.
std::unique_ptr<tessera::Runtime> g_runtime;
tsr_runtime* g_rt = nullptr;
const tsr_device kCpu{TSR_DEVICE_CPU, 0};

void ok(tsr_status st, const char* what) {
  if (st == TSR_OK) return;
  std::fprintf(stderr, "tessera_bench: %s failed: %s\n", what, tsr_last_error_message());
  std::exit(1);
}
#define OK(call) ok((call), #call)

// Uniform values on [lo, hi): tsr_rand scaled, so every workload sees data
// of the same kind as the Python side (torch.rand / numpy.random.rand).
tsr_tensor* uniform(std::vector<int64_t> shape, tsr_dtype dtype, double lo = 0.0, double hi = 1.0) {
  tsr_tensor *r = nullptr, *s = nullptr, *t = nullptr;
  if (tsr_dtype_is_complex(dtype)) {  // both parts uniform in [lo, hi), as torch.rand's complex
    tsr_tensor* re = uniform(shape, static_cast<tsr_dtype>(tsr_dtype_real(dtype)), lo, hi);
    tsr_tensor* im = uniform(shape, static_cast<tsr_dtype>(tsr_dtype_real(dtype)), lo, hi);
    OK(tsr_binary_scalar(TSR_OP_MUL, im, tsr_scalar_complex(0.0, 1.0), 0, &s));
    OK(tsr_binary(TSR_OP_ADD, re, s, &t));
    for (tsr_tensor* x : {re, im, s}) tsr_tensor_release(x);
    return t;
  }
  OK(tsr_rand(g_rt, static_cast<int32_t>(shape.size()), shape.data(), dtype, kCpu, &r));
  tsr_scalar scale{TSR_SCALAR_FLOAT, 0, hi - lo, 0}, shift{TSR_SCALAR_FLOAT, 0, lo, 0};
  OK(tsr_binary_scalar(TSR_OP_MUL, r, scale, 0, &s));
  OK(tsr_binary_scalar(TSR_OP_ADD, s, shift, 0, &t));
  tsr_tensor_release(r);
  tsr_tensor_release(s);
  return t;
}

// Inputs by workload, made on first use and kept for the whole run.
std::map<std::string, std::vector<tsr_tensor*>>& inputs() {
  static std::map<std::string, std::vector<tsr_tensor*>> cache;
  return cache;
}
template <class Make> const std::vector<tsr_tensor*>& inputs_for(const std::string& key, Make make) {
  auto it = inputs().find(key);
  if (it == inputs().end()) it = inputs().emplace(key, make()).first;
  return it->second;
}
void release_inputs() {
  for (auto& [key, list] : inputs())
    for (tsr_tensor* t : list) tsr_tensor_release(t);
  inputs().clear();
}

constexpr int64_t k2p24 = int64_t{1} << 24;

void set_bytes(benchmark::State& state, int64_t bytes_per_iteration) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * bytes_per_iteration);
}

// ---- elementwise ----------------------------------------------------------------

// a += b: the output already exists (PyTorch's add_(b) / add(a, b, out=a)).
void add_out(benchmark::State& state) {
  const auto& in = inputs_for("a_b_c_2^24", [] {
    return std::vector{uniform({k2p24}, TSR_FLOAT32), uniform({k2p24}, TSR_FLOAT32), uniform({k2p24}, TSR_FLOAT32)};
  });
  for (auto _ : state) OK(tsr_binary_out(TSR_OP_ADD, in[0], in[1], in[2]));
  set_bytes(state, 3 * 4 * k2p24);
}

// c = a + b, a new result every time.
void add_alloc(benchmark::State& state) {
  const auto& in = inputs_for("a_b_2^24", [] { return std::vector{uniform({k2p24}, TSR_FLOAT32), uniform({k2p24}, TSR_FLOAT32)}; });
  for (auto _ : state) {
    tsr_tensor* c = nullptr;
    OK(tsr_binary(TSR_OP_ADD, in[0], in[1], &c));
    tsr_tensor_release(c);
  }
  set_bytes(state, 3 * 4 * k2p24);
}

void bcast_add(benchmark::State& state) {
  const auto& in = inputs_for("x_v_4096", [] { return std::vector{uniform({4096, 4096}, TSR_FLOAT32), uniform({4096}, TSR_FLOAT32)}; });
  for (auto _ : state) {
    tsr_tensor* c = nullptr;
    OK(tsr_binary(TSR_OP_ADD, in[0], in[1], &c));
    tsr_tensor_release(c);
  }
  set_bytes(state, 2 * 4 * 4096 * 4096);
}

void unary(benchmark::State& state, tsr_op op) {
  const auto& in = inputs_for("x_signed_2^24", [] { return std::vector{uniform({k2p24}, TSR_FLOAT32, -4.0, 4.0)}; });
  for (auto _ : state) {
    tsr_tensor* c = nullptr;
    OK(tsr_unary(op, in[0], &c));
    tsr_tensor_release(c);
  }
  set_bytes(state, 2 * 4 * k2p24);
}
void relu(benchmark::State& state) { unary(state, TSR_OP_RELU); }
void sigmoid(benchmark::State& state) { unary(state, TSR_OP_SIGMOID); }

void sum(benchmark::State& state) {
  const auto& in = inputs_for("x_2^24", [] { return std::vector{uniform({k2p24}, TSR_FLOAT32)}; });
  for (auto _ : state) {
    tsr_tensor* s = nullptr;
    OK(tsr_reduce(TSR_OP_SUM, in[0], 0, nullptr, 0, &s));
    tsr_tensor_release(s);
  }
  set_bytes(state, 4 * k2p24);
}

// ---- copies between layouts ------------------------------------------------------

const std::vector<tsr_tensor*>& square_4096() {
  return inputs_for("x_4096", [] { return std::vector{uniform({4096, 4096}, TSR_FLOAT32)}; });
}

// x.T.contiguous()
void transpose_contiguous(benchmark::State& state) {
  tsr_tensor* x = square_4096()[0];
  for (auto _ : state) {
    tsr_tensor *t = nullptr, *c = nullptr;
    OK(tsr_t(x, &t));
    OK(tsr_contiguous(t, &c));
    tsr_tensor_release(c);
    tsr_tensor_release(t);
  }
  set_bytes(state, 2 * 4 * 4096 * 4096);
}

// x[:, ::2].contiguous()
void slice2_copy(benchmark::State& state) {
  tsr_tensor* x = square_4096()[0];
  for (auto _ : state) {
    tsr_tensor *s = nullptr, *c = nullptr;
    OK(tsr_slice(x, 1, TSR_SLICE_NONE, TSR_SLICE_NONE, 2, &s));
    OK(tsr_contiguous(s, &c));
    tsr_tensor_release(c);
    tsr_tensor_release(s);
  }
  set_bytes(state, 4 * 4096 * 4096 + 4 * 4096 * 2048);
}

// ---- matmul ------------------------------------------------------------------------

void matmul(benchmark::State& state, int64_t n, tsr_dtype dtype) {
  const std::string key = "mm_" + std::to_string(n) + "_" + tsr_dtype_name(dtype);
  const auto& in = inputs_for(key, [&] { return std::vector{uniform({n, n}, dtype), uniform({n, n}, dtype)}; });
  for (auto _ : state) {
    tsr_tensor* c = nullptr;
    OK(tsr_matmul(in[0], in[1], &c));
    tsr_tensor_release(c);
  }
  const double flops_per_fma = tsr_dtype_is_complex(dtype) ? 8.0 : 2.0;  // a complex multiply-add is 8 real flops
  state.counters["GFLOP/s"] = benchmark::Counter(flops_per_fma * static_cast<double>(n * n * n) * static_cast<double>(state.iterations()) / 1e9,
                                                 benchmark::Counter::kIsRate);
}

// ---- per-op overhead -----------------------------------------------------------------

// One-element c = a + b through the C API, result released: the whole
// cost of an op call.
void tiny_add(benchmark::State& state) {
  const auto& in = inputs_for("tiny", [] { return std::vector{uniform({1}, TSR_FLOAT32), uniform({1}, TSR_FLOAT32)}; });
  for (auto _ : state) {
    tsr_tensor* c = nullptr;
    OK(tsr_binary(TSR_OP_ADD, in[0], in[1], &c));
    tsr_tensor_release(c);
  }
}

// The lesson's 2-16-16-1 forward on 200 two-moons points, float32, through
// the C++ wrapper (tools/lesson_mlp.hpp): matmul with W.T, bias, ReLU /
// sigmoid per layer.
using Layers = std::vector<std::pair<tessera::Tensor, tessera::Tensor>>;

// n two-moons points (float32) and the lesson's layers: W (out, in) normal
// with standard deviation 1/sqrt(in), zero biases; seeded.
tessera::Tensor lesson_points(int n) {
  const tessera::Runtime& rt = *g_runtime;
  rt.manual_seed(0);
  std::vector<double> points;
  tessera::lesson::make_moons(rt, n, 0.2, points);
  return tessera::Tensor::from_host(rt, points, {n, 2}, TSR_FLOAT64, kCpu).to(TSR_FLOAT32);
}
Layers lesson_layers() {
  const tessera::Runtime& rt = *g_runtime;
  Layers layers;
  const int sizes[] = {2, 16, 16, 1};
  for (int l = 0; l < 3; ++l) {
    tessera::Tensor W = tessera::Tensor::randn(rt, {sizes[l + 1], sizes[l]}, TSR_FLOAT32, kCpu) * (1.0 / std::sqrt(sizes[l]));
    layers.emplace_back(W, tessera::Tensor::zeros(rt, {sizes[l + 1]}, TSR_FLOAT32, kCpu));
  }
  return layers;
}

void mlp_forward(benchmark::State& state) {
  tessera::Tensor X = lesson_points(200);
  Layers layers = lesson_layers();
  for (auto _ : state) benchmark::DoNotOptimize(tessera::lesson::forward(X, layers).get());
}

// The record autograd adds to an op: tiny_add with one operand that
// requires grad, so that each call also makes an AddBackward0 node (and
// frees it with the result). bench/run.py reports the time above tiny_add's.
void autograd_record(benchmark::State& state) {
  const auto& in = inputs_for("tiny_grad", [] {
    std::vector v{uniform({1}, TSR_FLOAT32), uniform({1}, TSR_FLOAT32)};
    OK(tsr_tensor_set_requires_grad(v[0], 1));
    return v;
  });
  for (auto _ : state) {
    tsr_tensor* c = nullptr;
    OK(tsr_binary(TSR_OP_ADD, in[0], in[1], &c));
    tsr_tensor_release(c);
  }
}

// The lesson's MLP trained one step's worth: forward on a batch of 256
// two-moons points (float32), the binary cross-entropy, backward into the
// six parameters' .grad, and the gradients dropped again (zero_grad).
void mlp_forward_backward(benchmark::State& state) {
  constexpr int n = 256;
  tessera::Tensor X = lesson_points(n);
  std::vector<double> labels(n);
  for (int i = 0; i < n; ++i) labels[static_cast<size_t>(i)] = i < n / 2 ? 0.0 : 1.0;
  tessera::Tensor y = tessera::Tensor::from_host(*g_runtime, labels, {n, 1}, TSR_FLOAT64, kCpu).to(TSR_FLOAT32);
  Layers layers = lesson_layers();
  std::vector<tsr_tensor*> params;
  for (auto& [W, b] : layers) params.insert(params.end(), {W.get(), b.get()});
  for (tsr_tensor* p : params) OK(tsr_tensor_set_requires_grad(p, 1));
  for (auto _ : state) {
    tessera::Tensor p = tessera::lesson::forward(X, layers);
    tessera::Tensor loss = -(y * p.log() + (1.0 - y) * (1.0 - p).log()).mean();
    tsr_tensor* root = loss.get();
    OK(tsr_backward(1, &root, nullptr, 0, nullptr, nullptr));
    for (tsr_tensor* q : params) OK(tsr_tensor_set_grad(q, nullptr));
  }
}

// ---- training steps (issue 34; tools/train_steps.hpp) ---------------------------------

void mlp_train_step(benchmark::State& state) {
  tessera::train::MlpTrainStep step(*g_runtime, kCpu);
  for (auto _ : state) step();
}
void transformer_block_train_step(benchmark::State& state) {
  tessera::train::TransformerBlockTrainStep step(*g_runtime, kCpu);
  for (auto _ : state) step();
}

// ---- the bandwidth reference ------------------------------------------------------------

// a[i] = b[i] + c[i] in plain C++ on two threads: this thread and one
// persistent helper that spins on a generation counter (no thread start or
// wake-up in the timed loop).
class TwoThreads {
 public:
  template <class F> explicit TwoThreads(F half) : half_(half), helper_([this] { loop(); }) {}
  ~TwoThreads() {
    stop_.store(true, std::memory_order_release);
    generation_.fetch_add(1, std::memory_order_release);
    helper_.join();
  }
  void run() {
    const uint64_t g = generation_.fetch_add(1, std::memory_order_acq_rel) + 1;
    half_(0);
    while (done_.load(std::memory_order_acquire) != g) std::this_thread::yield();
  }

 private:
  void loop() {
    uint64_t seen = 0;
    for (;;) {
      uint64_t g;
      while ((g = generation_.load(std::memory_order_acquire)) == seen) std::this_thread::yield();
      seen = g;
      if (stop_.load(std::memory_order_acquire)) return;
      half_(1);
      done_.store(g, std::memory_order_release);
    }
  }
  std::function<void(int)> half_;
  std::atomic<uint64_t> generation_{0}, done_{0};
  std::atomic<bool> stop_{false};
  std::thread helper_;
};

void triad(benchmark::State& state) {
  const size_t n = static_cast<size_t>(k2p24);
  auto alloc = [n] {  // 2 MiB aligned with transparent huge pages, as Tessera's own large blocks
    auto* p = static_cast<float*>(std::aligned_alloc(size_t{2} << 20, n * sizeof(float)));
    if (p == nullptr) std::exit(1);
    (void)madvise(p, n * sizeof(float), MADV_HUGEPAGE);
    return std::unique_ptr<float, decltype(&std::free)>(p, &std::free);
  };
  auto a = alloc(), b = alloc(), c = alloc();
  float *pa = a.get(), *pb = b.get(), *pc = c.get();
  TwoThreads pool([&](int part) {  // each thread first-touches and then computes its own half
    const size_t lo = part * n / 2, hi = (part + 1) * n / 2;
    for (size_t i = lo; i < hi; ++i) pa[i] = pb[i] + pc[i];
  });
  for (size_t i = 0; i < n; ++i) pb[i] = static_cast<float>(i & 1023), pc[i] = 1.0f;
  pool.run();
  for (auto _ : state) {
    pool.run();
    benchmark::ClobberMemory();
  }
  set_bytes(state, 3 * 4 * k2p24);
}

// Reads 2^24 floats' bytes on two threads, each its own half: the streaming
// bound of sum_2^24. Integer adds in 32 lanes (any order is exact, so the
// compiler vectorises them; 8 vectors in flight even with SSE2).
void read(benchmark::State& state) {
  const size_t n = static_cast<size_t>(k2p24);
  auto* p = static_cast<uint32_t*>(std::aligned_alloc(size_t{2} << 20, n * sizeof(uint32_t)));
  if (p == nullptr) std::exit(1);
  std::unique_ptr<uint32_t, decltype(&std::free)> keep(p, &std::free);
  (void)madvise(p, n * sizeof(uint32_t), MADV_HUGEPAGE);
  uint32_t sums[2] = {};
  TwoThreads pool([&](int part) {
    const size_t lo = part * n / 2, hi = (part + 1) * n / 2;
    uint32_t lane[32] = {};
    for (size_t i = lo; i < hi; i += 32)
      for (int k = 0; k < 32; ++k) lane[k] += p[i + k];
    uint32_t s = 0;
    for (uint32_t v : lane) s += v;
    sums[part] = s;
  });
  for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint32_t>(i);
  pool.run();
  for (auto _ : state) {
    pool.run();
    benchmark::DoNotOptimize(sums);
  }
  set_bytes(state, 4 * k2p24);
}

// ---- the Array API's functions (issue 18's workloads) ---------------------------

// A new result per iteration, released at once.
template <class F> void each(benchmark::State& state, F f) {
  for (auto _ : state) {
    tsr_tensor* r = f();
    tsr_tensor_release(r);
  }
}

void sort_values(benchmark::State& state) {
  const auto& in = inputs_for("x_2^24", [] { return std::vector{uniform({k2p24}, TSR_FLOAT32)}; });
  each(state, [&] {
    tsr_tensor* v = nullptr;
    OK(tsr_sort(in[0], nullptr, &v, nullptr));
    return v;
  });
  set_bytes(state, 2 * 4 * k2p24);
}

void argsort(benchmark::State& state) {
  const auto& in = inputs_for("x_2^22", [] { return std::vector{uniform({k2p24 / 4}, TSR_FLOAT32)}; });
  each(state, [&] {
    tsr_tensor* i = nullptr;
    OK(tsr_sort(in[0], nullptr, nullptr, &i));
    return i;
  });
  set_bytes(state, (4 + 8) * k2p24 / 4);
}

void cumsum(benchmark::State& state) {
  const auto& in = inputs_for("x_2^24", [] { return std::vector{uniform({k2p24}, TSR_FLOAT32)}; });
  each(state, [&] {
    tsr_tensor* c = nullptr;
    OK(tsr_cumsum(in[0], 0, TSR_DTYPE_UNDEFINED, &c));
    return c;
  });
  set_bytes(state, 2 * 4 * k2p24);
}

void concat8(benchmark::State& state) {
  const auto& in = inputs_for("eight_2^21", [] {
    std::vector<tsr_tensor*> v;
    for (int i = 0; i < 8; ++i) v.push_back(uniform({k2p24 / 8}, TSR_FLOAT32));
    return v;
  });
  each(state, [&] {
    tsr_tensor* c = nullptr;
    OK(tsr_concat(const_cast<tsr_tensor* const*>(in.data()), 8, 0, &c));
    return c;
  });
  set_bytes(state, 2 * 4 * k2p24);
}

void take(benchmark::State& state) {
  const auto& in = inputs_for("x_idx_2^24", [] {
    tsr_tensor* u = uniform({k2p24}, TSR_FLOAT32, 0.0, static_cast<double>(k2p24));
    tsr_tensor* idx = nullptr;
    OK(tsr_to_dtype(u, TSR_INT64, &idx));  // random indices in [0, 2^24)
    tsr_tensor_release(u);
    return std::vector{uniform({k2p24}, TSR_FLOAT32), idx};
  });
  each(state, [&] {
    tsr_tensor* t = nullptr;
    OK(tsr_take(in[0], in[1], 0, &t));
    return t;
  });
  set_bytes(state, (4 + 8 + 4) * k2p24);
}

void var_axis(benchmark::State& state) {
  const auto& in = square_4096();
  tsr_reduce_options o = TSR_REDUCE_OPTIONS_INIT;
  const int32_t last[1] = {1};
  o.dims = last;
  o.num_dims = 1;
  each(state, [&] {
    tsr_tensor* v = nullptr;
    OK(tsr_reduce_ex(TSR_OP_VAR, in[0], &o, &v));
    return v;
  });
  set_bytes(state, 4 * 4096 * 4096);
}

void std_all(benchmark::State& state) {
  const auto& in = inputs_for("x_2^24", [] { return std::vector{uniform({k2p24}, TSR_FLOAT32)}; });
  each(state, [&] {
    tsr_tensor* v = nullptr;
    OK(tsr_reduce(TSR_OP_STD, in[0], 0, nullptr, 0, &v));
    return v;
  });
  set_bytes(state, 4 * k2p24);
}

// softmax over the last axis from the standard's functions, as a user of
// the Array API writes it: exp(x - max(x, keepdims)) / sum(..., keepdims).
void softmax(benchmark::State& state) {
  const auto& in = square_4096();
  const int32_t last[1] = {1};
  each(state, [&] {
    tsr_tensor *m = nullptr, *d = nullptr, *e = nullptr, *s = nullptr, *y = nullptr;
    OK(tsr_reduce(TSR_OP_MAX, in[0], 1, last, 1, &m));
    OK(tsr_binary(TSR_OP_SUB, in[0], m, &d));
    OK(tsr_unary(TSR_OP_EXP, d, &e));
    OK(tsr_reduce(TSR_OP_SUM, e, 1, last, 1, &s));
    OK(tsr_binary(TSR_OP_DIV, e, s, &y));
    for (tsr_tensor* t : {m, d, e, s}) tsr_tensor_release(t);
    return y;
  });
  set_bytes(state, 2 * 4 * 4096 * 4096);
}

void unique_values(benchmark::State& state) {
  const auto& in = inputs_for("ints_2^22", [] {
    tsr_tensor* u = uniform({k2p24 / 4}, TSR_FLOAT32, 0.0, 1024.0);
    tsr_tensor* x = nullptr;
    OK(tsr_to_dtype(u, TSR_INT32, &x));  // at most 1024 distinct values
    tsr_tensor_release(u);
    return std::vector{x};
  });
  each(state, [&] {
    tsr_tensor* v = nullptr;
    OK(tsr_unique(in[0], &v, nullptr, nullptr, nullptr));
    return v;
  });
  set_bytes(state, 4 * k2p24 / 4);
}

void nonzero(benchmark::State& state) {
  const auto& in = inputs_for("mask_2^24", [] {
    tsr_tensor* u = uniform({k2p24}, TSR_FLOAT32);
    tsr_tensor* m = nullptr;
    OK(tsr_binary_scalar(TSR_OP_LT, u, tsr_scalar_float(0.5), 0, &m));  // half true
    tsr_tensor_release(u);
    return std::vector{m};
  });
  each(state, [&] {
    tsr_tensor* r = nullptr;
    OK(tsr_nonzero(in[0], &r));
    return r;
  });
  set_bytes(state, k2p24 + 8 * k2p24 / 2);
}

// Issue 36's functions of the Array API 2023.12-2024.12 (float32): 2^24
// values searched in 2^20 sorted keys, a clip to [0.25, 0.75], and the
// first difference (two overlapping views subtracted).
void searchsorted(benchmark::State& state) {
  const auto& in = inputs_for("keys_2^20_values_2^24", [] {
    tsr_tensor* u = uniform({k2p24 / 16}, TSR_FLOAT32);
    tsr_tensor* keys = nullptr;
    tsr_sort_options o = TSR_SORT_OPTIONS_INIT;
    OK(tsr_sort(u, &o, &keys, nullptr));
    tsr_tensor_release(u);
    return std::vector{keys, uniform({k2p24}, TSR_FLOAT32)};
  });
  each(state, [&] {
    tsr_tensor* r = nullptr;
    OK(tsr_searchsorted(in[0], in[1], nullptr, &r));
    return r;
  });
  set_bytes(state, (4 + 8) * k2p24);
}

void clip(benchmark::State& state) {
  const auto& in = inputs_for("x_bounds_2^24", [] {
    tsr_tensor *lo = nullptr, *hi = nullptr;
    OK(tsr_full(g_rt, 0, nullptr, tsr_scalar_float(0.25), TSR_FLOAT32, kCpu, &lo));
    OK(tsr_full(g_rt, 0, nullptr, tsr_scalar_float(0.75), TSR_FLOAT32, kCpu, &hi));
    return std::vector{uniform({k2p24}, TSR_FLOAT32), lo, hi};
  });
  each(state, [&] {
    tsr_tensor* r = nullptr;
    OK(tsr_clamp(in[0], in[1], in[2], &r));
    return r;
  });
  set_bytes(state, 2 * 4 * k2p24);
}

void diff(benchmark::State& state) {
  const auto& in = inputs_for("x_2^24", [] { return std::vector{uniform({k2p24}, TSR_FLOAT32)}; });
  each(state, [&] {
    tsr_tensor *later = nullptr, *earlier = nullptr, *r = nullptr;
    OK(tsr_slice(in[0], 0, 1, TSR_SLICE_NONE, 1, &later));
    OK(tsr_slice(in[0], 0, TSR_SLICE_NONE, -1, 1, &earlier));
    OK(tsr_binary(TSR_OP_SUB, later, earlier, &r));
    tsr_tensor_release(later);
    tsr_tensor_release(earlier);
    return r;
  });
  set_bytes(state, 2 * 4 * k2p24);
}

// Issue 20's linear algebra: float64, well-conditioned inputs (a uniform
// matrix plus n on the diagonal; for cholesky and eigh that made symmetric).
tsr_tensor* conditioned(int64_t n, bool symmetric) {
  tsr_tensor *a = uniform({n, n}, TSR_FLOAT64, -1.0, 1.0), *eye = nullptr, *shift = nullptr, *out = nullptr;
  if (symmetric) {
    tsr_tensor *at = nullptr, *sum = nullptr;
    OK(tsr_transpose(a, 0, 1, &at));
    OK(tsr_binary(TSR_OP_ADD, a, at, &sum));
    tsr_tensor_release(at);
    tsr_tensor_release(a);
    a = sum;
  }
  OK(tsr_eye(g_rt, n, n, 0, TSR_FLOAT64, kCpu, &eye));
  OK(tsr_binary_scalar(TSR_OP_MUL, eye, tsr_scalar_float(static_cast<double>(n)), 0, &shift));
  OK(tsr_binary(TSR_OP_ADD, a, shift, &out));
  tsr_tensor_release(a);
  tsr_tensor_release(eye);
  tsr_tensor_release(shift);
  return out;
}

template <class F> void linalg_workload(benchmark::State& state, const std::string& key, int64_t n, bool symmetric, F f) {
  const auto& in = inputs_for(key, [&] { return std::vector{conditioned(n, symmetric)}; });
  each(state, [&] { return f(in[0]); });
  set_bytes(state, 8 * n * n);
}

void solve_1024(benchmark::State& state) {
  const auto& rhs = inputs_for("rhs_1024", [] { return std::vector{uniform({1024, 1024}, TSR_FLOAT64)}; });
  linalg_workload(state, "a_1024", 1024, false, [&](tsr_tensor* a) {
    tsr_tensor* x = nullptr;
    OK(tsr_linalg_solve(a, rhs[0], &x));
    return x;
  });
}
void inv_1024(benchmark::State& state) {
  linalg_workload(state, "a_1024", 1024, false, [](tsr_tensor* a) {
    tsr_tensor* x = nullptr;
    OK(tsr_linalg_inv(a, &x));
    return x;
  });
}
void cholesky_2048(benchmark::State& state) {
  linalg_workload(state, "spd_2048", 2048, true, [](tsr_tensor* a) {
    tsr_tensor* l = nullptr;
    OK(tsr_linalg_cholesky(a, 0, &l));
    return l;
  });
}
void qr_1024(benchmark::State& state) {
  linalg_workload(state, "a_1024", 1024, false, [](tsr_tensor* a) {
    tsr_tensor *q = nullptr, *r = nullptr;
    OK(tsr_linalg_qr(a, 0, &q, &r));
    tsr_tensor_release(r);
    return q;
  });
}
void svd_512(benchmark::State& state) {
  linalg_workload(state, "a_512", 512, false, [](tsr_tensor* a) {
    tsr_tensor *u = nullptr, *s = nullptr, *vh = nullptr;
    OK(tsr_linalg_svd(a, 0, &u, &s, &vh));
    tsr_tensor_release(u);
    tsr_tensor_release(vh);
    return s;
  });
}
void eigh_512(benchmark::State& state) {
  linalg_workload(state, "sym_512", 512, true, [](tsr_tensor* a) {
    tsr_tensor *w = nullptr, *v = nullptr;
    OK(tsr_linalg_eigh(a, &w, &v));
    tsr_tensor_release(v);
    return w;
  });
}

// Issue 36's fft extension (tsr_fft, KissFFT on the CPU): a single long
// real transform (float64; one line: the four-step split over the threads)
// and a batch of complex64 lines along the last dim.
tsr_tensor* fft_1d(tsr_tensor* x, int32_t kind) {
  tsr_fft_options o;
  OK(tsr_fft_options_init(&o));
  o.kind = kind;
  o.num_dims = 1;
  o.dims[0] = -1;
  tsr_tensor* y = nullptr;
  OK(tsr_fft(x, &o, &y));
  return y;
}
void rfft_2p22(benchmark::State& state) {
  const auto& in = inputs_for("x_2^22_f64", [] { return std::vector{uniform({int64_t{1} << 22}, TSR_FLOAT64)}; });
  each(state, [&] { return fft_1d(in[0], TSR_FFT_R2C); });
  set_bytes(state, 8 * (int64_t{1} << 22) * 2);
}
void fft_batch(benchmark::State& state) {
  const auto& in = inputs_for("z_1024x4096_c64", [] { return std::vector{uniform({1024, 4096}, TSR_COMPLEX64)}; });
  each(state, [&] { return fft_1d(in[0], TSR_FFT_C2C); });
  set_bytes(state, 2 * 8 * 1024 * 4096);
}

void register_all() {
  auto add = [](const char* name, void (*fn)(benchmark::State&)) {
    benchmark::RegisterBenchmark(name, fn)->UseRealTime()->Unit(benchmark::kMicrosecond);
  };
  add("add_out_2^24", add_out);
  add("add_alloc_2^24", add_alloc);
  add("bcast_add_4096x4096", bcast_add);
  add("relu_2^24", relu);
  add("sigmoid_2^24", sigmoid);
  add("sum_2^24", sum);
  add("transpose_contiguous_4096", transpose_contiguous);
  add("slice2_copy_4096", slice2_copy);
  add("matmul_1024_f32", [](benchmark::State& s) { matmul(s, 1024, TSR_FLOAT32); });
  add("matmul_2048_f32", [](benchmark::State& s) { matmul(s, 2048, TSR_FLOAT32); });
  add("matmul_1024_f64", [](benchmark::State& s) { matmul(s, 1024, TSR_FLOAT64); });
  add("matmul_1024_c64", [](benchmark::State& s) { matmul(s, 1024, TSR_COMPLEX64); });
  add("tiny_add", tiny_add);
  add("mlp_forward", mlp_forward);
  add("autograd_record", autograd_record);
  add("mlp_forward_backward", mlp_forward_backward);
  add("mlp_train_step", mlp_train_step);
  add("transformer_block_train_step", transformer_block_train_step);
  add("triad_2^24", triad);
  add("read_2^24", read);
  add("sort_2^24", sort_values);
  add("argsort_2^22", argsort);
  add("cumsum_2^24", cumsum);
  add("concat_8x2^21", concat8);
  add("take_2^24", take);
  add("var_axis_4096x4096", var_axis);
  add("std_2^24", std_all);
  add("softmax_4096x4096", softmax);
  add("unique_2^22", unique_values);
  add("nonzero_2^24", nonzero);
  add("searchsorted_2^24", searchsorted);
  add("clip_2^24", clip);
  add("diff_2^24", diff);
  add("solve_1024", solve_1024);
  add("inv_1024", inv_1024);
  add("cholesky_2048", cholesky_2048);
  add("qr_1024", qr_1024);
  add("svd_512", svd_512);
  add("eigh_512", eigh_512);
  add("rfft_2^22", rfft_2p22);
  add("fft_batch_1024x4096", fft_batch);
}

}  // namespace

int main(int argc, char** argv) {
  std::string config = test_paths::bench_config;
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc) config = argv[++i];
    else if (std::strncmp(argv[i], "--config=", 9) == 0) config = argv[i] + 9;
    else rest.push_back(argv[i]);
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 2;
  try {
    g_runtime = std::make_unique<tessera::Runtime>(config);
  } catch (const tessera::Error& e) {
    std::fprintf(stderr, "tessera_bench: %s\n", e.what());
    return 1;
  }
  g_rt = g_runtime->get();
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  release_inputs();
  g_runtime.reset();
  return 0;
}
