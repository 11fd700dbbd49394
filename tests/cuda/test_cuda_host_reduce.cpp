// SPDX-License-Identifier: Apache-2.0
// cuda.host.reduce: the reductions (sum, mean, max, min, argmax): the three kernels
// mirrored on the host, their combining order and the chosen split.
// The CUDA backend's device code run on the CPU, no GPU needed (see
// test_cuda_host.hpp).
#include "test_cuda_host.hpp"

using namespace tessera_test_cuda_host;

// ---- reductions ---------------------------------------------------------------------------
// The host mirror of reduce_impl.cuh's three kernels: the per-thread folds are
// the device's own functions; the combining order is the kernels' (lanes by
// the warp butterfly, then warps 0..7, then slices through finish).

namespace {

// Reduces `in` over the dims marked in `reduced` into a keepdim output; checks
// against a row-major loop (sums to a relative 1e-12, the rest exactly), and
// that the expected kernel and split were chosen.
template <class R, class Ref>
void check_reduce(HostTensor& in, const std::vector<bool>& reduced, const Ref& ref, int expect_team, bool expect_slices) {
  using out_t = typename R::out_t;
  const int nd = in.desc.ndim;
  std::vector<int64_t> oshape(static_cast<size_t>(nd));
  for (int d = 0; d < nd; ++d) oshape[static_cast<size_t>(d)] = reduced[static_cast<size_t>(d)] ? 1 : in.desc.shape[d];
  HostTensor out = make_tensor(in.desc.dtype == TSR_BOOL || !std::is_same_v<out_t, typename R::in_t> ? TSR_INT64 : in.desc.dtype, oshape,
                               row_major(oshape), 1);
  if constexpr (std::is_same_v<out_t, typename R::in_t>) out.desc.dtype = in.desc.dtype;
  bool red[TSR_MAX_DIMS] = {};
  for (int d = 0; d < nd; ++d) red[d] = reduced[static_cast<size_t>(d)];
  const cu::ReducePlan rp = cu::make_reduce_plan(in.desc, out.desc, red, R::uses_index);
  cu::ReduceParams p = cu::plan_reduce(rp, reinterpret_cast<const char*>(in.storage.get()) + in.desc.offset * static_cast<int64_t>(sizeof(typename R::in_t)),
                                       reinterpret_cast<char*>(out.storage.get()) + out.desc.offset * static_cast<int64_t>(sizeof(out_t)),
                                       sizeof(typename R::in_t), 16 / static_cast<int>(sizeof(typename R::in_t)));
  CHECK(p.team == expect_team);
  CHECK((p.slices > 1) == expect_slices);
  std::vector<typename R::acc_t> partial(p.slices > 1 ? static_cast<size_t>(p.n_out * p.slices) : 0);
  p.partial = partial.data();
  cu::reduce_on_host<R>(p);
  // The reference: for each output, its elements in row-major order.
  const int64_t n_out = numel(out.desc);
  for (int64_t o = 0; o < n_out; ++o) {
    std::vector<int64_t> idx(static_cast<size_t>(nd));
    int64_t rest = o;
    for (int d = nd - 1; d >= 0; --d) {
      idx[static_cast<size_t>(d)] = rest % oshape[static_cast<size_t>(d)];
      rest /= oshape[static_cast<size_t>(d)];
    }
    std::vector<typename R::in_t> elems;
    std::function<void(int)> walk = [&](int d) {
      if (d == nd) {
        int64_t off = in.desc.offset;
        for (int k = 0; k < nd; ++k) off += idx[static_cast<size_t>(k)] * in.desc.strides[k];
        elems.push_back(reinterpret_cast<const typename R::in_t*>(in.storage.get())[off]);
        return;
      }
      if (!red[d]) return walk(d + 1);
      for (int64_t i = 0; i < in.desc.shape[d]; ++i) {
        idx[static_cast<size_t>(d)] = i;
        walk(d + 1);
      }
      idx[static_cast<size_t>(d)] = 0;
    };
    walk(0);
    const out_t got = at<out_t>(out, o);
    ref(elems, got);
  }
}

double as_double(float x) { return x; }
double as_double(double x) { return x; }
double as_double(cu::Half x) { return cu::load(x); }

template <class S> auto sum_ref(bool mean) {
  return [mean](const std::vector<S>& elems, S got) {
    double s = 0;
    for (const S& x : elems) s += as_double(x);
    if (mean) s /= static_cast<double>(elems.size());
    const double g = as_double(got);
    if (std::isnan(s)) {
      CHECK(std::isnan(g));
      return;
    }
    double magnitude = 0;
    for (const S& x : elems) magnitude += std::abs(as_double(x));
    if constexpr (std::is_same_v<S, double>) CHECK(std::abs(g - s) <= 1e-12 * std::max(1.0, magnitude));
    else CHECK(g == as_double(cu::convert<S>(s)));  // one rounding of the double sum (near-ties aside)
  };
}

}  // namespace

TEST_CASE("sum and mean: full, rows, columns, strided, sliced, empty") {
  std::mt19937_64 rng(6);
  {  // a full contiguous reduction long enough to be cut into slices: vectors + finish
    HostTensor x = make_tensor(TSR_FLOAT64, {100003}, {1}, 0);
    fill_random<double>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT64, false>>(x, {true}, sum_ref<double>(false), 256, true);
  }
  {  // the same misaligned (no vectors)
    HostTensor x = make_tensor(TSR_FLOAT64, {50001}, {1}, 1);
    fill_random<double>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT64, true>>(x, {true}, sum_ref<double>(true), 256, true);
  }
  {  // rows of a matrix, short rows: a warp per row
    HostTensor x = make_tensor(TSR_FLOAT64, {300, 45}, {45, 1}, 0);
    fill_random<double>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT64, false>>(x, {false, true}, sum_ref<double>(false), 32, false);
  }
  {  // columns of a matrix: the column kernel, sliced (few outputs)
    HostTensor x = make_tensor(TSR_FLOAT64, {1000, 40}, {40, 1}, 0);
    fill_random<double>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT64, false>>(x, {true, false}, sum_ref<double>(false), 0, true);
  }
  {  // columns of a transposed matrix: rows in memory
    HostTensor x = make_tensor(TSR_FLOAT64, {40, 1000}, {1, 40}, 0);
    fill_random<double>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT64, false>>(x, {true, false}, sum_ref<double>(false), 32, false);
  }
  {  // two reduced dims that do not merge, and a kept one between them
    HostTensor x = make_tensor(TSR_FLOAT64, {6, 5, 70}, {700, 1, 10}, 3);
    fill_random<double>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT64, false>>(x, {true, false, true}, sum_ref<double>(false), 32, false);
  }
  {  // float32: vectors, in double, sliced rows
    HostTensor x = make_tensor(TSR_FLOAT32, {5, 100003}, {100003, 1}, 0);
    fill_random<float>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT32, false>>(x, {false, true}, sum_ref<float>(false), 256, true);
    HostTensor y = make_tensor(TSR_FLOAT32, {1 << 18}, {1}, 0);
    fill_random<float>(y, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT32, true>>(y, {true}, sum_ref<float>(true), 256, true);
  }
  {  // float16 sums accumulate in double and round once
    HostTensor x = make_tensor(TSR_FLOAT16, {8, 3000}, {3000, 1}, 0);
    fill_random<cu::Half>(x, rng);
    check_reduce<cu::SumReducer<TSR_FLOAT16, false>>(x, {false, true}, sum_ref<cu::Half>(false), 256, false);
  }
  {  // integer sums wrap in 64 bits; bool counts
    HostTensor x = make_tensor(TSR_INT32, {7, 999}, {999, 1}, 0);
    fill_random<int32_t>(x, rng);
    check_reduce<cu::SumReducer<TSR_INT32, false>>(x, {false, true}, [](const std::vector<int32_t>& e, int64_t got) {
      uint64_t s = 0;
      for (int32_t v : e) s += static_cast<uint64_t>(static_cast<int64_t>(v));
      CHECK(got == static_cast<int64_t>(s));
    }, 32, false);
    HostTensor b = make_tensor(TSR_BOOL, {3000}, {1}, 0);
    fill_random<cu::Bool>(b, rng);
    check_reduce<cu::SumReducer<TSR_BOOL, false>>(b, {true}, [](const std::vector<cu::Bool>& e, int64_t got) {
      int64_t s = 0;
      for (cu::Bool v : e) s += v.value;
      CHECK(got == s);
    }, 256, false);
  }
  {  // zero elements: sum 0, mean NaN
    HostTensor x = make_tensor(TSR_FLOAT32, {4, 0}, {0, 1}, 0);
    check_reduce<cu::SumReducer<TSR_FLOAT32, false>>(x, {false, true}, [](const std::vector<float>& e, float got) {
      CHECK(e.empty());
      CHECK(got == 0.0f);
    }, 32, false);
    check_reduce<cu::SumReducer<TSR_FLOAT32, true>>(x, {false, true}, [](const std::vector<float>&, float got) { CHECK(std::isnan(got)); }, 32, false);
  }
}

TEST_CASE("max, min and argmax: NaN wins, ties pick the first index") {
  std::mt19937_64 rng(8);
  auto argmax_ref = [](const std::vector<float>& e, int64_t got) {
    int64_t best = 0;
    for (size_t i = 1; i < e.size(); ++i) {
      const float v = e[i], b = e[static_cast<size_t>(best)];
      if (std::isnan(b)) break;
      if (std::isnan(v) || v > b) best = static_cast<int64_t>(i);
    }
    CHECK(got == best);
  };
  auto max_ref = [](const std::vector<float>& e, float got) {
    float m = -INFINITY;
    bool nan = false;
    for (float v : e) {
      nan = nan || std::isnan(v);
      m = std::max(m, v);
    }
    if (nan) CHECK(std::isnan(got));
    else CHECK(got == m);
  };
  for (int64_t n : {int64_t{10}, int64_t{2000}, int64_t{70000}}) {
    for (int nan_at : {-1, 5, static_cast<int>(n) - 1}) {
      INFO("n " << n << " NaN at " << nan_at);
      HostTensor x = make_tensor(TSR_FLOAT32, {3, n}, {n, 1}, 0);
      for (int64_t i = 0; i < 3 * n; ++i) at<float>(x, i) = static_cast<float>(rng() % 7);  // many ties
      if (nan_at >= 0) at<float>(x, n + nan_at) = NAN;
      const int team = n >= 1024 ? 256 : 32;
      const bool sliced = n > 16384;
      check_reduce<cu::ArgmaxReducer<TSR_FLOAT32, false>>(x, {false, true}, argmax_ref, team, sliced);
      check_reduce<cu::ExtremumReducer<TSR_FLOAT32, true>>(x, {false, true}, max_ref, team, sliced);
      // The same rows seen as columns of a transposed view: still rows in memory.
      HostTensor t = make_tensor(TSR_FLOAT32, {n, 3}, {1, n}, 0);
      std::memcpy(t.storage.get(), x.storage.get(), x.bytes < t.bytes ? x.bytes : t.bytes);
      check_reduce<cu::ArgmaxReducer<TSR_FLOAT32, false>>(t, {true, false}, argmax_ref, team, sliced);
    }
  }
  {  // column kernel proper: kept dim innermost
    HostTensor x = make_tensor(TSR_FLOAT32, {500, 64}, {64, 1}, 0);
    for (int64_t i = 0; i < 500 * 64; ++i) at<float>(x, i) = static_cast<float>(rng() % 5);
    check_reduce<cu::ArgmaxReducer<TSR_FLOAT32, false>>(x, {true, false}, argmax_ref, 0, true);
    check_reduce<cu::ExtremumReducer<TSR_FLOAT32, true>>(x, {true, false}, max_ref, 0, true);
  }
  {  // integer min, bool max (any)
    HostTensor x = make_tensor(TSR_INT8, {9, 33}, {33, 1}, 0);
    fill_random<int8_t>(x, rng);
    check_reduce<cu::ExtremumReducer<TSR_INT8, false>>(x, {false, true}, [](const std::vector<int8_t>& e, int8_t got) {
      CHECK(got == *std::min_element(e.begin(), e.end()));
    }, 32, false);
    HostTensor b = make_tensor(TSR_BOOL, {9, 33}, {33, 1}, 0);
    for (int64_t i = 0; i < 9 * 33; ++i) at<cu::Bool>(b, i).value = i == 40 ? 1 : 0;
    check_reduce<cu::ExtremumReducer<TSR_BOOL, true>>(b, {false, true}, [](const std::vector<cu::Bool>& e, cu::Bool got) {
      bool any = false;
      for (cu::Bool v : e) any = any || v.value;
      CHECK(got.value == (any ? 1 : 0));
    }, 32, false);
  }
}
