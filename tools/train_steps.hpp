// SPDX-License-Identifier: Apache-2.0
// Issue 34's two training workloads, on any device, through the public C
// API (tessera/nn.h, tessera/optim.h) and the C++ wrapper: one step is a
// forward, a backward and an AdamW update, the parameters initialised as
// torch's (U(-1/sqrt(fan_in), 1/sqrt(fan_in)); layer_norm 1 and 0).
// bench/tessera_bench.cpp times them on the CPU beside torch (bench/run.py
// has the torch side), tests/cuda/bench_cuda.cpp on cuda:0 (scripts/gpu-check).
//   MlpTrainStep              784-512-512-10, ReLU, batch 256, cross_entropy
//   TransformerBlockTrainStep a pre-norm block: d 256, 4 heads, sequence 128,
//                             batch 8, causal softmax attention, a 4d GELU
//                             MLP, layer_norm, a 256-class linear head with
//                             cross_entropy
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "tessera/tessera.h"
#include "tessera/tessera.hpp"

namespace tessera::train {

// A call of the C API that returns a tensor, as a Tensor.
template <class F> Tensor call(F f) {
  tsr_tensor* out = nullptr;
  check(f(&out));
  return Tensor(out);
}
inline Tensor linear(const Tensor& x, const std::pair<Tensor, Tensor>& layer) {
  return call([&](tsr_tensor** o) { return tsr_linear(x.get(), layer.first.get(), layer.second.get(), o); });
}
inline Tensor layer_norm(const Tensor& x, const std::pair<Tensor, Tensor>& affine) {
  return call([&](tsr_tensor** o) { return tsr_layer_norm(x.get(), 1, affine.first.get(), affine.second.get(), 1e-5, o); });
}
inline Tensor cross_entropy(const Tensor& logits, const Tensor& target) {
  return call([&](tsr_tensor** o) { return tsr_cross_entropy(logits.get(), target.get(), nullptr, o); });
}

// Float32 parameters on one device, and the AdamW optimizer over them.
class Trainer {
 public:
  Trainer(const Runtime& rt, tsr_device device) : rt_(rt), device_(device) {}
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;
  ~Trainer() { tsr_optimizer_destroy(opt_); }

  // U(-1/sqrt(fan_in), 1/sqrt(fan_in)), requiring grad.
  Tensor uniform(const Shape& shape, int64_t fan_in) {
    const double bound = 1 / std::sqrt(static_cast<double>(fan_in));
    return keep(Tensor::rand(rt_, shape, TSR_FLOAT32, device_) * (2 * bound) - bound);
  }
  Tensor constant(const Shape& shape, double value) {
    return keep(Tensor::full(rt_, shape, Scalar(value), TSR_FLOAT32, device_));
  }
  std::pair<Tensor, Tensor> linear_layer(int64_t in, int64_t out) { return {uniform({out, in}, in), uniform({out}, in)}; }
  std::pair<Tensor, Tensor> norm_layer(int64_t d) { return {constant({d}, 1.0), constant({d}, 0.0)}; }
  // Called once every parameter is made.
  void start() {
    tsr_optimizer_options o;
    check(tsr_optimizer_defaults(TSR_OPTIMIZER_ADAMW, &o));
    std::vector<tsr_tensor*> raw;
    for (const Tensor& p : params_) raw.push_back(p.get());
    check(tsr_optimizer_create(static_cast<int32_t>(raw.size()), raw.data(), &o, &opt_));
  }
  void step(const Tensor& loss) {
    tsr_tensor* root = loss.get();
    check(tsr_backward(1, &root, nullptr, 0, nullptr, nullptr));
    check(tsr_optimizer_step(opt_));
    check(tsr_optimizer_zero_grad(opt_, 1));
  }
  // Class targets (i * 7) % classes, int64.
  Tensor targets(int64_t n, int64_t classes) const {
    std::vector<int64_t> t(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) t[static_cast<size_t>(i)] = (i * 7) % classes;
    return Tensor::from_host(rt_, t, {n}, TSR_INT64, device_);
  }
  const Runtime& runtime() const { return rt_; }
  tsr_device device() const { return device_; }

 private:
  Tensor keep(Tensor p) {
    check(tsr_tensor_set_requires_grad(p.get(), 1));
    params_.push_back(p);
    return p;
  }
  const Runtime& rt_;
  tsr_device device_;
  std::vector<Tensor> params_;
  tsr_optimizer* opt_ = nullptr;
};

class MlpTrainStep {
 public:
  MlpTrainStep(const Runtime& rt, tsr_device device, int64_t batch = 256)
      : t_(rt, device), x_(Tensor::rand(rt, {batch, 784}, TSR_FLOAT32, device) * 2.0 - 1.0), y_(t_.targets(batch, 10)) {
    layers_ = {t_.linear_layer(784, 512), t_.linear_layer(512, 512), t_.linear_layer(512, 10)};
    t_.start();
  }
  // One step; returns the loss (before the update).
  Tensor operator()() {
    Tensor a = x_;
    for (size_t l = 0; l < layers_.size(); ++l) {
      a = linear(a, layers_[l]);
      if (l + 1 < layers_.size()) a = a.relu();
    }
    Tensor loss = cross_entropy(a, y_);
    t_.step(loss);
    return loss;
  }

 private:
  Trainer t_;
  Tensor x_, y_;
  std::vector<std::pair<Tensor, Tensor>> layers_;
};

class TransformerBlockTrainStep {
 public:
  static constexpr int64_t T = 128, d = 256, H = 4, dh = d / H, V = 256;
  TransformerBlockTrainStep(const Runtime& rt, tsr_device device, int64_t batch = 8)
      : B_(batch), t_(rt, device), x_(Tensor::rand(rt, {batch, T, d}, TSR_FLOAT32, device) * 2.0 - 1.0),
        y_(t_.targets(batch * T, V)) {
    std::vector<float> m(static_cast<size_t>(T * T));
    for (int64_t i = 0; i < T; ++i)
      for (int64_t j = 0; j < T; ++j) m[static_cast<size_t>(i * T + j)] = j > i ? -INFINITY : 0.0f;
    mask_ = Tensor::from_host(rt, m, {T, T}, TSR_FLOAT32, device);
    ln1_ = t_.norm_layer(d);
    qkv_ = t_.linear_layer(d, 3 * d);
    proj_ = t_.linear_layer(d, d);
    ln2_ = t_.norm_layer(d);
    fc1_ = t_.linear_layer(d, 4 * d);
    fc2_ = t_.linear_layer(4 * d, d);
    lnf_ = t_.norm_layer(d);
    head_ = t_.linear_layer(d, V);
    t_.start();
  }
  Tensor operator()() {
    const int64_t B = B_;
    // [B, T, 3d] -> q, k or v as [B, H, T, dh]
    auto heads = [&](const Tensor& all, int64_t which) {
      return all.slice(2, which * d, (which + 1) * d).reshape({B, T, H, dh}).permute({0, 2, 1, 3});
    };
    Tensor all = linear(layer_norm(x_, ln1_), qkv_);
    Tensor q = heads(all, 0), k = heads(all, 1), v = heads(all, 2);
    Tensor scores = q.matmul(k.transpose(2, 3)) * (1 / std::sqrt(static_cast<double>(dh))) + mask_;
    Tensor att = call([&](tsr_tensor** o) { return tsr_softmax(scores.get(), -1, o); });
    Tensor x1 = x_ + linear(att.matmul(v).permute({0, 2, 1, 3}).reshape({B, T, d}), proj_);
    Tensor hidden = linear(layer_norm(x1, ln2_), fc1_);
    hidden = call([&](tsr_tensor** o) { return tsr_gelu(hidden.get(), 0, o); });
    Tensor x2 = x1 + linear(hidden, fc2_);
    Tensor logits = linear(layer_norm(x2, lnf_), head_);
    Tensor loss = cross_entropy(logits.reshape({B * T, V}), y_);
    t_.step(loss);
    return loss;
  }

 private:
  int64_t B_;
  Trainer t_;
  Tensor x_, y_, mask_;
  std::pair<Tensor, Tensor> ln1_, qkv_, proj_, ln2_, fc1_, fc2_, lnf_, head_;
};

}  // namespace tessera::train
