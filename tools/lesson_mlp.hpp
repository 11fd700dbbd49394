// SPDX-License-Identifier: Apache-2.0
// The lesson's MLP forward, shared by `tessera demo` and the lesson tests:
// two-moons points, a 2-16-16-1 network with ReLU hidden layers and a
// sigmoid output, a plain float64 reference and the forward on Tessera.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "tessera/tessera.hpp"

namespace tessera::lesson {

// Two interleaving half circles with Gaussian noise (scikit-learn's
// make_moons recipe), generated from the runtime's seeded generator.
inline void make_moons(const Runtime& rt, int n, double noise, std::vector<double>& X) {
  int n_out = n / 2, n_in = n - n_out;
  Tensor z = Tensor::randn(rt, {n, 2}, TSR_FLOAT64, rt.device("cpu"));
  std::vector<double> e = z.to_vector<double>();
  X.assign(static_cast<size_t>(2 * n), 0.0);
  const double pi = std::acos(-1.0);
  for (int i = 0; i < n; ++i) {
    bool outer = i < n_out;
    int k = outer ? i : i - n_out;
    int m = outer ? n_out : n_in;
    double t = m > 1 ? pi * k / (m - 1) : 0.0;
    double x0 = outer ? std::cos(t) : 1.0 - std::cos(t);
    double x1 = outer ? std::sin(t) : 0.5 - std::sin(t);
    X[static_cast<size_t>(2 * i)] = x0 + noise * e[static_cast<size_t>(2 * i)];
    X[static_cast<size_t>(2 * i + 1)] = x1 + noise * e[static_cast<size_t>(2 * i + 1)];
  }
}

struct Layer {
  std::vector<double> W;  // (out, in), row-major
  std::vector<double> b;  // (out,)
  int in, out;
};

// The plain float64 reference forward (what the lesson computes with NumPy).
inline std::vector<double> forward_reference(const std::vector<double>& X, int n, const std::vector<Layer>& layers) {
  std::vector<double> A = X;
  int width = 2;
  for (size_t l = 0; l < layers.size(); ++l) {
    const Layer& L = layers[l];
    std::vector<double> Z(static_cast<size_t>(n * L.out));
    for (int i = 0; i < n; ++i)
      for (int o = 0; o < L.out; ++o) {
        double s = L.b[static_cast<size_t>(o)];
        for (int k = 0; k < width; ++k) s += A[static_cast<size_t>(i * width + k)] * L.W[static_cast<size_t>(o * L.in + k)];
        bool last = l + 1 == layers.size();
        Z[static_cast<size_t>(i * L.out + o)] = last ? 1.0 / (1.0 + std::exp(-s)) : std::max(s, 0.0);
      }
    A = std::move(Z);
    width = L.out;
  }
  return A;
}

inline Tensor forward(Tensor A, const std::vector<std::pair<Tensor, Tensor>>& layers) {
  for (size_t l = 0; l < layers.size(); ++l) {
    Tensor Z = A.matmul(layers[l].first.T()) + layers[l].second;
    A = l + 1 < layers.size() ? Z.relu() : Z.sigmoid();
  }
  return A;
}

struct MlpResult {
  Tensor out64, out32, expected;  // (n, 1) each; expected is the float64 reference
  double gap;                     // max |out32 - reference|
};

// Seeds the generator, draws the points and the weights (normal with
// standard deviation 1/sqrt(fan_in), zero biases) and runs the forward.
inline MlpResult run_mlp(const Runtime& rt, tsr_device dev, int n = 200) {
  rt.manual_seed(0);
  std::vector<double> X;
  make_moons(rt, n, 0.2, X);
  std::vector<Layer> layers;
  const int sizes[] = {2, 16, 16, 1};
  for (int l = 0; l < 3; ++l) {
    int in = sizes[l], out = sizes[l + 1];
    Tensor w = Tensor::randn(rt, {out, in}, TSR_FLOAT64, rt.device("cpu")) * (1.0 / std::sqrt(static_cast<double>(in)));
    layers.push_back(Layer{w.to_vector<double>(), std::vector<double>(static_cast<size_t>(out), 0.0), in, out});
  }
  std::vector<double> ref = forward_reference(X, n, layers);
  auto on_device = [&](tsr_dtype dtype) {
    std::vector<std::pair<Tensor, Tensor>> ls;
    for (const Layer& L : layers)
      ls.emplace_back(Tensor::from_host(rt, L.W, {L.out, L.in}, TSR_FLOAT64, dev).to(dtype),
                      Tensor::from_host(rt, L.b, {L.out}, TSR_FLOAT64, dev).to(dtype));
    return forward(Tensor::from_host(rt, X, {n, 2}, TSR_FLOAT64, dev).to(dtype), ls);
  };
  MlpResult r;
  r.expected = Tensor::from_host(rt, ref, {n, 1}, TSR_FLOAT64, dev);
  r.out64 = on_device(TSR_FLOAT64);
  r.out32 = on_device(TSR_FLOAT32);
  r.gap = (r.out32.to_double() - r.expected).abs().max().item_double();
  return r;
}

}  // namespace tessera::lesson
