// SPDX-License-Identifier: Apache-2.0
// Training the lessons' MLP (2-16-16-1: ReLU hidden layers, a sigmoid
// output, binary cross-entropy) through the public C API, forward and
// backward (issue 33's "Threads" and "Memory"):
//   [threads]  four threads each train their own MLP while a fifth runs
//              forward passes under no_grad; each thread's weights equal
//              the same training run alone, and the no_grad thread's
//              results never record (ctest stress.autograd_threads, label
//              threaded: TSan too).
//              Hooks are registered on a graph while two threads run
//              backward through it.
//   [memory]   10,000 forward and backward steps on a batch of 256 keep
//              resident memory flat (the growth is printed) and leave no
//              tensor behind (ctest stress.autograd_memory; ASan in the
//              sanitizer build).
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tessera/tessera.hpp"
#include "test_paths.hpp"

using tessera::Tensor;

namespace {

constexpr tsr_device kCpu{TSR_DEVICE_CPU, 0};

void check(tsr_status st) {
  if (st != TSR_OK) FAIL(tsr_last_error_message());
}

Tensor doubles(tsr_runtime* rt, const std::vector<double>& values, const std::vector<int64_t>& shape) {
  tsr_tensor* t = nullptr;
  check(tsr_from_host(rt, values.data(), static_cast<int32_t>(shape.size()), shape.data(), TSR_FLOAT64, kCpu, &t));
  return Tensor(t);
}

Tensor leaf(tsr_runtime* rt, const std::vector<double>& values, const std::vector<int64_t>& shape) {
  Tensor t = doubles(rt, values, shape);
  check(tsr_tensor_set_requires_grad(t.get(), 1));
  return t;
}

Tensor grad_of(const Tensor& t) {
  tsr_tensor* g = nullptr;
  check(tsr_tensor_grad(t.get(), &g));
  return Tensor(g);
}

// Two interleaving half circles with noise, labels 0 and 1 (the lessons' data).
struct Moons {
  Tensor x, y;  // (n, 2), (n, 1)
};
Moons moons(tsr_runtime* rt, int64_t n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> noise(0.0, 0.2);
  std::vector<double> xs(static_cast<size_t>(2 * n)), ys(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const bool inner = i % 2 == 1;
    const double t = M_PI * static_cast<double>(i / 2) / static_cast<double>(n / 2);
    xs[static_cast<size_t>(2 * i)] = (inner ? 1 - std::cos(t) : std::cos(t)) + noise(gen);
    xs[static_cast<size_t>(2 * i + 1)] = (inner ? 0.5 - std::sin(t) : std::sin(t)) + noise(gen);
    ys[static_cast<size_t>(i)] = inner ? 1.0 : 0.0;
  }
  return {doubles(rt, xs, {n, 2}), doubles(rt, ys, {n, 1})};
}

struct Mlp {
  std::vector<Tensor> params;  // w1 (16, 2), b1, w2 (16, 16), b2, w3 (1, 16), b3

  Mlp(tsr_runtime* rt, unsigned seed) {
    std::mt19937_64 gen(seed);
    const int64_t sizes[] = {2, 16, 16, 1};
    for (int layer = 0; layer < 3; ++layer) {
      const int64_t in = sizes[layer], out = sizes[layer + 1];
      std::normal_distribution<double> draw(0.0, 1.0 / std::sqrt(static_cast<double>(in)));
      std::vector<double> w(static_cast<size_t>(in * out));
      for (double& v : w) v = draw(gen);
      params.push_back(leaf(rt, w, {out, in}));
      params.push_back(leaf(rt, std::vector<double>(static_cast<size_t>(out), 0.0), {out}));
    }
  }

  Tensor forward(const Tensor& x) const {
    Tensor a = x;
    for (size_t layer = 0; layer < 3; ++layer) {
      Tensor z = a.matmul(params[2 * layer].transpose(0, 1)) + params[2 * layer + 1];
      a = layer < 2 ? z.relu() : z.sigmoid();
    }
    return a;
  }

  // Binary cross-entropy, mean over the batch.
  static Tensor loss(const Tensor& p, const Tensor& y) {
    Tensor terms = y * p.log() + (1.0 - y) * (1.0 - p).log();
    return -terms.mean();
  }

  // One step of SGD: forward, backward, w -= lr * w.grad under no_grad, .grad dropped.
  double step(const Tensor& x, const Tensor& y, double lr) {
    Tensor l = loss(forward(x), y);
    tsr_tensor* root = l.get();
    check(tsr_backward(1, &root, nullptr, 0, nullptr, nullptr));
    const int32_t mode = tsr_set_grad_enabled(0);
    for (Tensor& p : params) {
      Tensor g = grad_of(p);
      REQUIRE(g);
      p.inplace(TSR_OP_SUB, g * lr);
      check(tsr_tensor_set_grad(p.get(), nullptr));
    }
    tsr_set_grad_enabled(mode);
    return l.item_double();
  }

  std::vector<double> weights() const {
    std::vector<double> all;
    for (const Tensor& p : params) {
      std::vector<double> v = p.to_vector<double>();
      all.insert(all.end(), v.begin(), v.end());
    }
    return all;
  }
};

std::vector<double> train(tsr_runtime* rt, unsigned seed, int steps) {
  Moons data = moons(rt, 64, seed);
  Mlp mlp(rt, seed + 100);
  for (int i = 0; i < steps; ++i) mlp.step(data.x, data.y, 0.5);
  return mlp.weights();
}

long resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}

const char* config_path() {
  const char* env = std::getenv("TESSERA_STRESS_CONFIG");
  return env != nullptr && *env != '\0' ? env : test_paths::config;
}

tsr_runtime* create_runtime() {
  tsr_runtime_options opts = TSR_RUNTIME_OPTIONS_INIT;
  opts.config_path = config_path();
  tsr_runtime* rt = nullptr;
  check(tsr_runtime_create(&opts, &rt));
  return rt;
}

}  // namespace

TEST_CASE("four threads train their own MLP while a fifth runs under no_grad", "[threads]") {
  tsr_runtime* rt = create_runtime();
  constexpr int kThreads = 4, kSteps = 25;
  std::vector<std::vector<double>> concurrent(kThreads);
  std::vector<int> recorded(1, 0);
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k)
    threads.emplace_back([&, k] { concurrent[static_cast<size_t>(k)] = train(rt, 7u * static_cast<unsigned>(k + 1), kSteps); });
  threads.emplace_back([&] {
    tsr_set_grad_enabled(0);
    Moons data = moons(rt, 64, 99);
    Mlp mlp(rt, 5);
    for (int i = 0; i < 40; ++i) {
      Tensor p = mlp.forward(data.x);
      recorded[0] += tsr_tensor_requires_grad(p.get()) + (tsr_is_grad_enabled() ? 1 : 0);
    }
  });
  for (std::thread& t : threads) t.join();
  CHECK(recorded[0] == 0);
  CHECK(tsr_is_grad_enabled() == 1);  // the no_grad thread's mode is its own
  for (int k = 0; k < kThreads; ++k) {
    const std::vector<double> alone = train(rt, 7u * static_cast<unsigned>(k + 1), kSteps);
    REQUIRE(alone.size() == concurrent[static_cast<size_t>(k)].size());
    for (size_t i = 0; i < alone.size(); ++i)
      REQUIRE(std::abs(alone[i] - concurrent[static_cast<size_t>(k)][i]) <= 1e-12 * (1.0 + std::abs(alone[i])));
  }
  CHECK(tsr_runtime_destroy(rt) == TSR_OK);  // refused while a tensor is alive: nothing leaked
}

namespace {
// A C hook that counts its calls and keeps the gradient.
tsr_status count_call(void* calls, tsr_tensor*, tsr_tensor**) {
  static_cast<std::atomic<int>*>(calls)->fetch_add(1);
  return TSR_OK;
}
}  // namespace

TEST_CASE("hooks registered on a graph while other threads run backward through it", "[threads]") {
  // The first hook of a node is published atomically (Node::hook_list):
  // registering it races with the engine reading the node's hooks.
  tsr_runtime* rt = create_runtime();
  {
    Tensor x = leaf(rt, {1.0, 2.0, 3.0}, {3});
    std::vector<Tensor> ys, sums;
    for (int k = 0; k < 8; ++k) {
      tsr_tensor *y = nullptr, *s = nullptr;
      check(tsr_binary_scalar(TSR_OP_MUL, x.get(), tsr_scalar_float(2.0), 0, &y));
      ys.emplace_back(y);
      check(tsr_reduce(TSR_OP_SUM, y, 0, nullptr, 0, &s));
      sums.emplace_back(s);
    }
    constexpr int kRuns = 20;
    std::atomic<int> calls{0};
    std::vector<std::thread> threads;
    for (int k = 0; k < 2; ++k)
      threads.emplace_back([&] {
        tsr_autograd_options keep{TSR_AUTOGRAD_OPTIONS_STRUCT_SIZE, 1, 0, 0, 0};
        for (int i = 0; i < kRuns; ++i)
          for (Tensor& s : sums) {
            tsr_tensor* out = s.get();
            check(tsr_backward(1, &out, nullptr, 0, nullptr, &keep));
          }
      });
    threads.emplace_back([&] {
      for (Tensor& y : ys) {
        int64_t handle = 0;
        check(tsr_tensor_register_hook(y.get(), count_call, &calls, nullptr, &handle));
      }
    });
    for (std::thread& t : threads) t.join();
    // Every run added 2 to each element of x.grad; the hooks ran at most once per run through their node.
    std::vector<double> g(3);
    check(tsr_read(grad_of(x).get(), g.data(), g.size() * sizeof(double)));
    for (double v : g) CHECK(v == 2.0 * 2 * kRuns * 8);
    CHECK(calls.load() <= 2 * kRuns * 8);
  }
  CHECK(tsr_runtime_destroy(rt) == TSR_OK);
}

TEST_CASE("10,000 forward and backward steps keep resident memory flat", "[memory]") {
  tsr_runtime* rt = create_runtime();
  {
    Moons data = moons(rt, 256, 3);
    Mlp mlp(rt, 4);
    constexpr int kSteps = 10000, kWarm = 1000;
    long warm = 0;
    double first = 0, last = 0;
    for (int i = 0; i < kSteps; ++i) {
      const double l = mlp.step(data.x, data.y, 0.1);
      if (i == 0) first = l;
      last = l;
      if (i + 1 == kWarm) warm = resident_kib();
    }
    const long end = resident_kib();
    std::printf("autograd memory: resident %ld KiB after %d steps, %ld KiB after %d: growth %ld KiB; loss %.4f -> %.4f\n",
                warm, kWarm, end, kSteps, end - warm, first, last);
    CHECK(last < first);             // it trains
    CHECK(end - warm < 4 * 1024);    // flat: under 4 MiB over 9,000 steps
  }
  CHECK(tsr_runtime_destroy(rt) == TSR_OK);  // refused while a tensor is alive: nothing leaked
}
