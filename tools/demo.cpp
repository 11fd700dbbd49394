// SPDX-License-Identifier: Apache-2.0
// `tessera demo`: the lesson's walk-through on every enabled device — the
// precision of float32, the five views and their layout pictures, view
// against reshape, broadcasting with stride 0, writes through views, and the
// 2-16-16-1 MLP forward on two-moons points in float64 and float32.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "commands.hpp"
#include "lesson_mlp.hpp"
#include "tessera/tessera.hpp"

namespace tessera::tool {
namespace {

std::string yes_no(bool b) { return b ? "True" : "False"; }

void section(const char* title) { std::printf("\n== %s\n", title); }

void precision(const Runtime& rt, tsr_device dev) {
  section("dtypes and precision");
  Tensor a = Tensor::from_host<float>(rt, {1.0f, 2.0f, 3.0f}, {3}, TSR_FLOAT32, dev);
  Tensor i = Tensor::from_host<int64_t>(rt, {1, 2}, {2}, TSR_INT64, dev);
  std::printf("tessera.%s %s %s\n", tsr_dtype_name(a.dtype()), tuple_string(a.shape()).c_str(),
              rt.device_name(a.device()).c_str());
  std::printf("tessera.%s\n", tsr_dtype_name(i.dtype()));
  Tensor third = Tensor::full(rt, {}, 1.0 / 3.0, TSR_FLOAT32, dev);
  std::printf("%s\n", third.str().c_str());
  Tensor tenth = Tensor::full(rt, {}, 0.1, TSR_FLOAT32, dev);
  std::printf("0.1 stored as float32: %.17f\n", tenth.item_double());
  tsr_finfo f32{}, f64{};
  f32.struct_size = f64.struct_size = TSR_FINFO_STRUCT_SIZE;
  check(tsr_get_finfo(TSR_FLOAT32, &f32));
  check(tsr_get_finfo(TSR_FLOAT64, &f64));
  std::printf("spacing near 1: %.17g %.16g\n", f32.eps, f64.eps);
}

// Reads v[index] from the storage strip by offset + sum(i_j * stride_j).
int64_t element(const Tensor& storage, const Tensor& v, const std::vector<int64_t>& index) {
  int64_t place = v.storage_offset();
  Shape strides = v.stride();
  for (size_t j = 0; j < index.size(); ++j) place += index[j] * strides[j];
  return storage.select(0, place).item_int();
}

void views(const Runtime& rt, tsr_device dev) {
  section("five views of one storage");
  Tensor x = Tensor::arange(rt, 12, dev).view({3, 4});
  struct Named {
    const char* name;
    Tensor t;
  };
  std::vector<Named> all = {{"x", x},
                            {"x.T", x.T()},
                            {"x[:, 1::2]", x.slice(1, 1, TSR_SLICE_NONE, 2)},
                            {"x.unsqueeze(0)", x.unsqueeze(0)},
                            {"x[:, :1].expand(3, 4)", x.slice(1, 0, 1).expand({3, 4})}};
  for (const Named& n : all)
    std::printf("%-22s shape %-10s stride %-11s offset %lld  contiguous %s\n", n.name,
                tuple_string(n.t.shape()).c_str(), tuple_string(n.t.stride()).c_str(),
                static_cast<long long>(n.t.storage_offset()), yes_no(n.t.is_contiguous()).c_str());
  for (const Named& n : all) std::printf("\n%s\n%s", n.name, n.t.layout_picture().c_str());

  section("the address formula, view and reshape");
  Tensor storage = Tensor::arange(rt, 12, dev);
  std::printf("%lld %lld %lld\n", static_cast<long long>(element(storage, x.T(), {2, 1})),
              static_cast<long long>(x.T().select(0, 2).select(0, 1).item_int()),
              static_cast<long long>(element(storage, x.slice(1, 1, TSR_SLICE_NONE, 2), {2, 1})));
  try {
    x.T().view({12});
  } catch (const Error& e) {
    std::printf("view failed: %s\n", e.what());
  }
  std::printf("%s %s %s\n", yes_no(x.same_storage(x.T())).c_str(), yes_no(x.same_storage(x.T().reshape({12}))).c_str(),
              yes_no(x.same_storage(x.view({12}))).c_str());

  section("broadcasting");
  Tensor r = Tensor::from_host<int64_t>(rt, {0, 10, 20, 30}, {4}, TSR_INT64, dev);
  Tensor total = x + r;
  std::printf("%s %s %s\n", tuple_string(total.shape()).c_str(), tuple_string(r.expand({3, 4}).stride()).c_str(),
              yes_no(total.same_storage(x)).c_str());
  std::printf("tessera.Size(%s)\n", [&] {
    Shape s = broadcast_shapes({3, 1}, {1, 4});
    std::string t = "[";
    for (size_t k = 0; k < s.size(); ++k) t += (k ? ", " : "") + std::to_string(s[k]);
    return t + "]";
  }().c_str());
  std::printf("%s\n", total.str().c_str());

  section("writes through views reach the base");
  Tensor y = x.slice(1, 1, TSR_SLICE_NONE, 2);
  y.select(0, 0).select(0, 0).fill_(100);
  std::printf("after y[0, 0] = 100: x[0, 1] = %lld\n", static_cast<long long>(x.select(0, 0).select(0, 1).item_int()));
  Tensor corner = x.slice(0, 1).slice(1, 0, TSR_SLICE_NONE, 3);
  corner.add_(1);
  std::printf("after x[1:, ::3] += 1:\n%s\n", x.str().c_str());
}

void mlp(const Runtime& rt, tsr_device dev) {
  section("the 2-16-16-1 MLP forward on 200 two-moons points");
  lesson::MlpResult r = lesson::run_mlp(rt, dev);
  assert_close(r.out64, r.expected);  // float64 against float64: throws if not close
  std::printf("%s tessera.%s tessera.%s largest float32 gap %.1e\n", tuple_string(r.out64.shape()).c_str(),
              tsr_dtype_name(r.out64.dtype()), tsr_dtype_name(r.out32.dtype()), r.gap);
  std::printf("assert_close(float64, reference): passed\n");
  try {
    assert_close(r.out32, r.expected);
    std::printf("assert_close(float32, float64 reference): passed (unexpected)\n");
  } catch (const Error& e) {
    std::string first = e.what();
    first = first.substr(0, first.find('\n'));
    std::printf("assert_close: %.45s\n", first.c_str());
  }
  assert_close(r.out32.to_double(), r.expected, 1.3e-6, 1e-5);
  std::printf("assert_close(float32 as float64, reference, float32 tolerances): passed\n");
  std::printf("first outputs: %s\n", r.out64.slice(0, 0, 3).str().c_str());
}

}  // namespace

int demo(const Options& opts) {
  try {
    Runtime rt(opts.config);
    const std::vector<tsr_device> devices = chosen_devices(rt, opts.device);
    std::printf("Tessera demo: %zu device(s):", devices.size());
    for (tsr_device d : devices) std::printf(" %s", rt.device_name(d).c_str());
    std::printf("\n");
    for (tsr_device dev : devices) {
      std::printf("\n######## device %s\n", rt.device_name(dev).c_str());
      precision(rt, dev);
      views(rt, dev);
      mlp(rt, dev);
    }
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "tessera demo: %s\n", e.what());
    return 1;
  }
}

}  // namespace tessera::tool
