// SPDX-License-Identifier: Apache-2.0
// bench_cuda: the GPU benchmarks scripts/gpu-check runs beside PyTorch's
// (same shapes, same byte and FLOP counts, same timing: wall clock around N
// queued ops and one synchronisation, median of 5 repeats after a warm-up).
// Prints one "RESULT <name> <value> <unit>" line per benchmark.
//
//   add          f32 2^28 + 2^28                      GB/s  (3 x 1 GiB moved)
//   bcast_add    [16384, 16384] + [16384]             GB/s  (2 x 1 GiB)
//   add_t        [16384, 16384] + [16384, 16384].T    GB/s  (3 x 1 GiB)
//   transpose    [16384, 16384].T.contiguous()        GB/s  (2 x 1 GiB)
//   slice2       [16384, 16384][:, ::2].contiguous()  GB/s  (read + written elements x 4 bytes)
//   sum          f32 2^28 .sum()                      GB/s  (1 GiB)
//   matmul_*     8192^3 in fp32, tf32, bf16, fp16     TFLOP/s
//   h2d, d2h     a 1 GiB float32 tensor cpu -> cuda:0 and back (.to(device);
//                the CPU side is ordinary pageable memory)  GB/s
//   small_op_us  host time of one 1-element add on cuda:0 (tsr_binary + release), µs
//   mlp_fwd_bwd  the lesson's MLP forward and backward on a batch of 256
//                (float32, binary cross-entropy; issue 33), steps/s
//   mlp_train_step, transformer_train_step  issue 34's training steps
//                (tools/train_steps.hpp: forward, backward, AdamW), steps/s
//   sort, argsort, cumsum, take, unique, nonzero, concat, var_axis, std,
//   softmax      issue 18's workloads (bench/run.py's sizes), Gelem/s of
//                the input: sort 2^24 f32, argsort 2^22, cumsum 2^24, take
//                2^24 random indices, unique 2^22 int32 (<= 1024 values),
//                nonzero 2^24 bool (half true), concat 8 x 2^21, var along
//                the last axis of 4096^2, std 2^24, softmax of 4096^2
//                composed (x - max, exp, / sum) against torch.softmax
//   solve_8192, cholesky_8192, svd_2048, inv_32x10000, eigh_32x10000,
//   svd_32x10000 (float64, 1/s); matmul_c64 4096^3 complex64 TFLOP/s
//                issue 20's factorisations in float64 against torch.linalg,
//                calls/s: solve of an 8192^2 matrix (normal + n I) and
//                one right-hand side, cholesky of X X^T + n I, the reduced
//                SVD (U, S, Vh) of a 2048^2 normal matrix, the inverses of
//                10000 matrices of 32 x 32 (normal + 32 I)
//
// Usage: bench_cuda [--quick] [--index-only | --linalg-only | --autograd-only] [--config PATH]   (--quick: 16x
// smaller problems, a smoke test; --config: another runtime config, e.g. the
// emulated device's)
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "tessera/tessera.hpp"
#include "train_steps.hpp"

using tessera::Runtime;
using tessera::Tensor;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Seconds per call of `op`: median over 5 repeats of `n` queued calls, each
// repeat ended by a device synchronisation.
double time_op(const Runtime& rt, tsr_device dev, int n, const std::function<void()>& op) {
  for (int i = 0; i < 2; ++i) op();
  tessera::check(tsr_synchronize(rt.get(), dev));
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    const double t0 = now();
    for (int i = 0; i < n; ++i) op();
    tessera::check(tsr_synchronize(rt.get(), dev));
    t.push_back((now() - t0) / n);
  }
  std::sort(t.begin(), t.end());
  return t[2];
}

void result(const char* name, double value, const char* unit) {
  std::printf("RESULT %s %.3f %s\n", name, value, unit);
  std::fflush(stdout);
}

// A call of the C API that makes one tensor.
Tensor made(const std::function<tsr_status(tsr_tensor**)>& f) {
  tsr_tensor* o = nullptr;
  tessera::check(f(&o));
  return Tensor(o);
}

// Issue 18's workloads on the device, in Gelem/s of the input.
void index_workloads(const Runtime& rt, tsr_device gpu, bool quick) {
  const int64_t n24 = quick ? int64_t{1} << 20 : int64_t{1} << 24, n22 = n24 / 4, side = quick ? 1024 : 4096;
  auto rate = [&](const char* name, int64_t elems, int n, const std::function<void()>& op) {
    result(name, static_cast<double>(elems) / time_op(rt, gpu, n, op) / 1e9, "Gelem/s");
  };
  rt.manual_seed(3);
  Tensor x = Tensor::rand(rt, {n24}, TSR_FLOAT32, gpu);
  rate("sort", n24, 10, [&] { Tensor v = made([&](tsr_tensor** o) { return tsr_sort(x.get(), nullptr, o, nullptr); }); });
  Tensor x22 = Tensor::rand(rt, {n22}, TSR_FLOAT32, gpu);
  rate("argsort", n22, 10, [&] { Tensor i = made([&](tsr_tensor** o) { return tsr_sort(x22.get(), nullptr, nullptr, o); }); });
  rate("cumsum", n24, 20, [&] { Tensor c = made([&](tsr_tensor** o) { return tsr_cumsum(x.get(), 0, TSR_DTYPE_UNDEFINED, o); }); });
  Tensor idx = (Tensor::rand(rt, {n24}, TSR_FLOAT32, gpu) * static_cast<double>(n24)).to(TSR_INT64);
  rate("take", n24, 20, [&] { Tensor t = made([&](tsr_tensor** o) { return tsr_take(x.get(), idx.get(), 0, o); }); });
  Tensor small = (Tensor::rand(rt, {n22}, TSR_FLOAT32, gpu) * 1024.0).to(TSR_INT32);
  rate("unique", n22, 10, [&] { Tensor u = made([&](tsr_tensor** o) { return tsr_unique(small.get(), o, nullptr, nullptr, nullptr); }); });
  Tensor mask = Tensor::rand(rt, {n24}, TSR_FLOAT32, gpu) < Tensor::full(rt, {1}, 0.5, TSR_FLOAT32, gpu);
  rate("nonzero", n24, 10, [&] { Tensor z = made([&](tsr_tensor** o) { return tsr_nonzero(mask.get(), o); }); });
  std::vector<Tensor> parts;
  std::vector<tsr_tensor*> handles;
  for (int i = 0; i < 8; ++i) parts.push_back(Tensor::rand(rt, {n24 / 8}, TSR_FLOAT32, gpu));
  for (const Tensor& t : parts) handles.push_back(t.get());
  rate("concat", n24, 20, [&] { Tensor c = made([&](tsr_tensor** o) { return tsr_concat(handles.data(), 8, 0, o); }); });
  Tensor m = Tensor::rand(rt, {side, side}, TSR_FLOAT32, gpu);
  const int32_t last = -1;
  tsr_reduce_options opts{};
  opts.struct_size = sizeof opts;
  opts.dims = &last;
  opts.num_dims = 1;
  opts.correction = 1;
  rate("var_axis", side * side, 20, [&] { Tensor v = made([&](tsr_tensor** o) { return tsr_reduce_ex(TSR_OP_VAR, m.get(), &opts, o); }); });
  tsr_reduce_options all{};
  all.struct_size = sizeof all;
  all.correction = 1;
  rate("std", n24, 20, [&] { Tensor v = made([&](tsr_tensor** o) { return tsr_reduce_ex(TSR_OP_STD, x.get(), &all, o); }); });
  rate("softmax", side * side, 20, [&] {
    Tensor e = (m - m.max({1}, true)).exp();
    Tensor s = e / e.sum({1}, true);
  });
}

// Issue 20's factorisations on the device (float64), in calls/s.
void linalg_workloads(const Runtime& rt, tsr_device gpu, bool quick) {
  const int64_t big = quick ? 512 : 8192, svd_n = quick ? 128 : 2048, batch = quick ? 100 : 10000;
  auto rate = [&](const char* name, int n, const std::function<void()>& op) { result(name, 1.0 / time_op(rt, gpu, n, op), "1/s"); };
  rt.manual_seed(4);
  auto n_eye = [&](int64_t n) {  // n I
    return made([&](tsr_tensor** o) { return tsr_eye(rt.get(), n, n, 0, TSR_FLOAT64, gpu, o); }) * static_cast<double>(n);
  };
  {
    Tensor a = Tensor::randn(rt, {big, big}, TSR_FLOAT64, gpu) + n_eye(big), b = Tensor::randn(rt, {big, 1}, TSR_FLOAT64, gpu);
    rate("solve_8192", 1, [&] { Tensor x = made([&](tsr_tensor** o) { return tsr_linalg_solve(a.get(), b.get(), o); }); });
    Tensor x = Tensor::randn(rt, {big, big}, TSR_FLOAT64, gpu);
    Tensor spd = x.matmul(x.T()) + n_eye(big);
    rate("cholesky_8192", 1, [&] { Tensor l = made([&](tsr_tensor** o) { return tsr_linalg_cholesky(spd.get(), 0, o); }); });
  }
  {
    Tensor a = Tensor::randn(rt, {svd_n, svd_n}, TSR_FLOAT64, gpu);
    rate("svd_2048", 1, [&] {
      tsr_tensor *u = nullptr, *s = nullptr, *vh = nullptr;
      tessera::check(tsr_linalg_svd(a.get(), 0, &u, &s, &vh));
      Tensor tu(u), ts(s), tv(vh);
    });
  }
  {
    Tensor a = Tensor::randn(rt, {batch, 32, 32}, TSR_FLOAT64, gpu) + n_eye(32);
    rate("inv_32x10000", 1, [&] { Tensor x = made([&](tsr_tensor** o) { return tsr_linalg_inv(a.get(), o); }); });
    // The batched Jacobi routines (syevjBatched, gesvdjBatched).
    Tensor sym = a + a.transpose(-1, -2);
    rate("eigh_32x10000", 1, [&] {
      tsr_tensor *w = nullptr, *v = nullptr;
      tessera::check(tsr_linalg_eigh(sym.get(), &w, &v));
      Tensor tw(w), tv(v);
    });
    rate("svd_32x10000", 1, [&] {
      tsr_tensor *u = nullptr, *s = nullptr, *vh = nullptr;
      tessera::check(tsr_linalg_svd(a.get(), 0, &u, &s, &vh));
      Tensor tu(u), ts(s), tv(vh);
    });
  }
  {
    // CGEMM: 8 real flops a complex multiply-add.
    const int64_t n = quick ? 1024 : 4096;
    Tensor a = Tensor::randn(rt, {n, n}, TSR_FLOAT32, gpu).to(TSR_COMPLEX64), b = Tensor::randn(rt, {n, n}, TSR_FLOAT32, gpu).to(TSR_COMPLEX64);
    result("matmul_c64", 8.0 * n * n * n / time_op(rt, gpu, 10, [&] { Tensor c = a.matmul(b); }) / 1e12, "TFLOP/s");
  }
}

// Issue 33: the lesson's 2-16-16-1 MLP forward and backward on a batch of
// 256 (float32, binary cross-entropy, .grad dropped after each), as
// bench/run.py's mlp_forward_backward, on cuda:0.
void autograd_workloads(const Runtime& rt, tsr_device gpu) {
  const int64_t n = 256;
  Tensor x = Tensor::randn(rt, {n, 2}, TSR_FLOAT32, gpu);
  std::vector<float> labels(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) labels[static_cast<size_t>(i)] = i < n / 2 ? 0.0f : 1.0f;
  Tensor y = Tensor::from_host(rt, labels, {n, 1}, TSR_FLOAT32, gpu);
  std::vector<std::pair<Tensor, Tensor>> layers;
  const int64_t sizes[] = {2, 16, 16, 1};
  for (int l = 0; l < 3; ++l) {
    layers.emplace_back(Tensor::randn(rt, {sizes[l + 1], sizes[l]}, TSR_FLOAT32, gpu) * (1.0 / std::sqrt(double(sizes[l]))),
                        Tensor::zeros(rt, {sizes[l + 1]}, TSR_FLOAT32, gpu));
    tessera::check(tsr_tensor_set_requires_grad(layers.back().first.get(), 1));
    tessera::check(tsr_tensor_set_requires_grad(layers.back().second.get(), 1));
  }
  const double t = time_op(rt, gpu, 50, [&] {
    Tensor a = x;
    for (size_t l = 0; l < layers.size(); ++l) {
      Tensor z = a.matmul(layers[l].first.T()) + layers[l].second;
      a = l + 1 < layers.size() ? z.relu() : z.sigmoid();
    }
    Tensor loss = -(y * a.log() + (1.0 - y) * (1.0 - a).log()).mean();
    tsr_tensor* root = loss.get();
    tessera::check(tsr_backward(1, &root, nullptr, 0, nullptr, nullptr));
    for (auto& [w, b] : layers) {
      tessera::check(tsr_tensor_set_grad(w.get(), nullptr));
      tessera::check(tsr_tensor_set_grad(b.get(), nullptr));
    }
  });
  result("mlp_fwd_bwd", 1 / t, "1/s");
  // Issue 34: forward, backward and AdamW (tools/train_steps.hpp), steps/s.
  tessera::train::MlpTrainStep mlp(rt, gpu);
  result("mlp_train_step", 1 / time_op(rt, gpu, 20, [&] { mlp(); }), "1/s");
  tessera::train::TransformerBlockTrainStep block(rt, gpu);
  result("transformer_train_step", 1 / time_op(rt, gpu, 10, [&] { block(); }), "1/s");
}

// A runtime with the CPU and CUDA plugins (found by name in the plugin
// directory), through a config file written for it: TF32 is off unless
// asked for through tsr_set_float32_matmul_precision.
Runtime cuda_runtime() {
  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp != nullptr ? tmp : "/tmp") + "/bench_cuda_" + std::to_string(getpid()) + ".json";
  {
    std::ofstream f(path);
    f << R"({"plugins": [{"name": "cpu_tbb", "library": "cpu_tbb.so"}, {"name": "cuda", "library": "cuda.so", "options": {"allow_tf32": false}}]})"
      << "\n";
  }
  Runtime r(path);
  std::remove(path.c_str());
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = false, index_only = false, linalg_only = false, autograd_only = false;
  std::string config;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--index-only") index_only = true;  // issue 18's workloads alone
    else if (a == "--linalg-only") linalg_only = true;  // issue 20's alone
    else if (a == "--autograd-only") autograd_only = true;  // issue 33's alone
    else if (a == "--config" && i + 1 < argc) config = argv[++i];  // e.g. cuda_emu's, as a smoke test
    else {
      std::printf("bench_cuda: unknown argument '%s' (--quick, --index-only, --linalg-only, --autograd-only, --config PATH)\n",
                  a.c_str());
      return 2;
    }
  }
  try {
    Runtime rt = config.empty() ? cuda_runtime() : Runtime(config);
    const tsr_device gpu = rt.device("cuda:0");
    if (index_only || linalg_only || autograd_only) {
      if (index_only) index_workloads(rt, gpu, quick);
      else if (linalg_only) linalg_workloads(rt, gpu, quick);
      else autograd_workloads(rt, gpu);
      return 0;
    }
    rt.manual_seed(1);
    const int64_t side = quick ? 4096 : 16384;  // side^2 = 2^28 elements at full size
    const double elems = static_cast<double>(side) * side;
    {
      Tensor a = Tensor::rand(rt, {side * side}, TSR_FLOAT32, gpu), b = Tensor::rand(rt, {side * side}, TSR_FLOAT32, gpu);
      const double t = time_op(rt, gpu, 20, [&] { Tensor c = a + b; });
      result("add", 3 * elems * 4 / t / 1e9, "GB/s");
      const double ts = time_op(rt, gpu, 20, [&] { Tensor s = a.sum(); });
      result("sum", elems * 4 / ts / 1e9, "GB/s");
      const double mean = a.sum().item_double() / elems;
      if (mean < 0.49 || mean > 0.51) std::printf("WARNING: mean of rand is %f\n", mean);
    }
    {
      Tensor x = Tensor::rand(rt, {side, side}, TSR_FLOAT32, gpu), row = Tensor::rand(rt, {side}, TSR_FLOAT32, gpu);
      const double tb = time_op(rt, gpu, 20, [&] { Tensor c = x + row; });
      result("bcast_add", (2 * elems + side) * 4 / tb / 1e9, "GB/s");
      Tensor y = Tensor::rand(rt, {side, side}, TSR_FLOAT32, gpu);
      const double tat = time_op(rt, gpu, 20, [&] { Tensor c = x + y.T(); });
      result("add_t", 3 * elems * 4 / tat / 1e9, "GB/s");
      const double tt = time_op(rt, gpu, 20, [&] { Tensor c = x.T().contiguous(); });
      result("transpose", 2 * elems * 4 / tt / 1e9, "GB/s");
      const double t2 = time_op(rt, gpu, 20, [&] { Tensor c = x.slice(1, 0, TSR_SLICE_NONE, 2).contiguous(); });
      result("slice2", 2 * (elems / 2) * 4 / t2 / 1e9, "GB/s");
    }
    {
      const tsr_device cpu = rt.device("cpu");
      Tensor h = Tensor::rand(rt, {side * side}, TSR_FLOAT32, cpu);
      const double th = time_op(rt, gpu, 3, [&] { Tensor d = h.to(gpu); });
      result("h2d", elems * 4 / th / 1e9, "GB/s");
      Tensor d = h.to(gpu);
      const double td = time_op(rt, gpu, 3, [&] { Tensor back = d.to(cpu); });
      result("d2h", elems * 4 / td / 1e9, "GB/s");
    }
    const int64_t n = quick ? 2048 : 8192;
    const double flops = 2.0 * n * n * n;
    struct Mm {
      const char* name;
      tsr_dtype dtype;
      bool tf32;
    };
    for (const Mm& m : {Mm{"matmul_fp32", TSR_FLOAT32, false}, Mm{"matmul_tf32", TSR_FLOAT32, true},
                        Mm{"matmul_bf16", TSR_BFLOAT16, false}, Mm{"matmul_fp16", TSR_FLOAT16, false}}) {
      // TF32 through the API (torch.set_float32_matmul_precision("high")'s twin).
      rt.set_float32_matmul_precision(m.tf32 ? TSR_MATMUL_PRECISION_HIGH : TSR_MATMUL_PRECISION_HIGHEST);
      rt.manual_seed(2);
      Tensor a = Tensor::randn(rt, {n, n}, m.dtype, gpu), b = Tensor::randn(rt, {n, n}, m.dtype, gpu);
      const double t = time_op(rt, gpu, m.dtype == TSR_FLOAT32 && !m.tf32 ? 5 : 20, [&] { Tensor c = a.matmul(b); });
      result(m.name, flops / t / 1e12, "TFLOP/s");
    }
    rt.set_float32_matmul_precision(TSR_MATMUL_PRECISION_HIGHEST);
    index_workloads(rt, gpu, quick);
    linalg_workloads(rt, gpu, quick);
    {
      Tensor a = Tensor::ones(rt, {1}, TSR_FLOAT32, gpu), b = Tensor::ones(rt, {1}, TSR_FLOAT32, gpu);
      for (int i = 0; i < 1000; ++i) Tensor c = a + b;
      tessera::check(tsr_synchronize(rt.get(), gpu));
      // Host time only: 200 queued ops (well within the launch queue), then a sync outside the clock.
      std::vector<double> per_op;
      for (int r = 0; r < 50; ++r) {
        const double t0 = now();
        for (int i = 0; i < 200; ++i) Tensor c = a + b;
        per_op.push_back((now() - t0) / 200);
        tessera::check(tsr_synchronize(rt.get(), gpu));
      }
      std::sort(per_op.begin(), per_op.end());
      result("small_op_us", per_op[per_op.size() / 2] * 1e6, "us");
    }
    autograd_workloads(rt, gpu);
  } catch (const std::exception& e) {
    std::printf("bench_cuda failed: %s\n", e.what());
    return 1;
  }
  return 0;
}
