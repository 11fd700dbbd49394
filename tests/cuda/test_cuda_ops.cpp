// SPDX-License-Identifier: Apache-2.0
// cuda.ops: every op x dtype x layout on cuda:0 against the CPU backend (the
// reference), through the public C API only. Inputs are made on the CPU,
// moved with tsr_to, and given the same view on both devices (the view is
// taken after the move, so the CUDA kernels see the strided layout). Results
// come back with tsr_to and are compared element by element: bit for bit
// where both backends compute the same IEEE operations, within a few ulp for
// transcendentals, sums and matmul. Outputs written in place into views of a
// sentinel-filled buffer check that nothing outside the view changes.
//
// Exit status: 0 all passed, 1 a failure, 77 no CUDA device (the reason is
// printed; ctest reports SKIP). `--quick` runs a reduced set (for
// compute-sanitizer), `--threads` only the case of several host threads at
// once (for ThreadSanitizer), `--only unary,reductions,...` only those groups
// (main() lists them), `--verbose` prints every case.
#include <atomic>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tessera/element.h"
#include "tessera/tessera.hpp"
#include "test_paths.hpp"

using tessera::Runtime;
using tessera::Scalar;
using tessera::Shape;
using tessera::Tensor;

namespace {

bool g_quick = false, g_verbose = false, g_threads_only = false;  // --threads: only threads()
std::string g_only;  // --only: comma-separated groups; empty: all
std::atomic<int> g_cases{0}, g_failures{0};  // threads() counts from several threads
tsr_device g_cpu, g_gpu;
Runtime* g_rt = nullptr;

constexpr tsr_dtype kAll[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT8,   TSR_UINT8, TSR_INT16,
                              TSR_INT32,   TSR_INT64,   TSR_BOOL,    TSR_UINT16,   TSR_UINT32, TSR_UINT64};
constexpr tsr_dtype kQuick[] = {TSR_FLOAT32, TSR_FLOAT16, TSR_INT64, TSR_BOOL, TSR_UINT64};

std::vector<tsr_dtype> dtypes() {
  if (g_quick) return std::vector<tsr_dtype>(std::begin(kQuick), std::end(kQuick));
  return std::vector<tsr_dtype>(std::begin(kAll), std::end(kAll));
}

bool is_float(tsr_dtype d) { return tsr_dtype_is_floating(d) != 0; }

// ---- host values --------------------------------------------------------------


std::vector<unsigned char> bytes_of(const Tensor& t) {
  Tensor host = t.to(g_cpu);
  std::vector<unsigned char> out(static_cast<size_t>(host.numel()) * host.element_size());
  tessera::check(tsr_read(host.get(), out.data(), out.size()));
  return out;
}

// How results must agree: bit for bit; within 8 or 64 units of the dtype's
// precision (relative); or within PyTorch's assert_close defaults (float64:
// rtol 1e-7, atol 1e-7), for float64 sums and products, whose rounding
// errors grow with the number of terms and depend on their order.
// kPoles: kLoose for tan and tanh of complex values, whose derivative
// (1 + tan^2, 1 - tanh^2) amplifies the rounding of the input near a pole:
// the scale is |f(z)|^2 there.
enum class Match { kExact, kUlps, kLoose, kClose, kPoles };

double eps_of(tsr_dtype d) {
  switch (d) {
    case TSR_FLOAT32: return 1.2e-7;
    case TSR_FLOAT64: return 2.3e-16;
    case TSR_FLOAT16: return 9.8e-4;
    case TSR_BFLOAT16: return 7.9e-3;
    default: return 0;
  }
}

// The dtype of a complex dtype's parts; d itself for the others.
tsr_dtype part_dtype(tsr_dtype d) { return static_cast<tsr_dtype>(tsr_dtype_real(d)); }

// Compares GPU and CPU results: dtype, shape, then every element (a complex
// one part by part, the tolerances relative to its magnitude).
void compare(const std::string& name, const Tensor& gpu, const Tensor& cpu, Match match) {
  ++g_cases;
  std::string why;
  if (gpu.dtype() != cpu.dtype()) why = std::string("dtype ") + tsr_dtype_name(gpu.dtype()) + " vs " + tsr_dtype_name(cpu.dtype());
  else if (gpu.shape() != cpu.shape()) why = "shape " + tessera::tuple_string(gpu.shape()) + " vs " + tessera::tuple_string(cpu.shape());
  else if (gpu.device().type != g_gpu.type) why = "the result is not on cuda";
  if (why.empty()) {
    const tsr_dtype d = cpu.dtype();
    const bool cplx = tsr_dtype_is_complex(d) != 0;
    // kLoose on complex values: the complex functions of libcu++ (the GPU)
    // and glibc (the CPU) differ by tens of ulps (asin, tan, pow), and by
    // an absolute ulp or so near the unit circle (log |z| by hypot: PyTorch's
    // CUDA kernels share it), so the scale does not go below 1.
    const double floor = cplx && (match == Match::kLoose || match == Match::kPoles) ? 1.0 : 1e-3;
    const size_t es = tsr_dtype_size(d);
    const std::vector<unsigned char> g = bytes_of(gpu), c = bytes_of(cpu);
    const double tol = match == Match::kExact ? 0 : (match == Match::kUlps ? 8 : 64) * eps_of(part_dtype(d));
    const bool poles = match == Match::kPoles;
    double rtol = 0, atol = 0;  // kClose
    switch (part_dtype(d)) {
      case TSR_FLOAT32: rtol = 1.3e-6, atol = 1e-5; break;
      case TSR_FLOAT16: rtol = 1e-3, atol = 1e-5; break;
      case TSR_BFLOAT16: rtol = 1.6e-2, atol = 1e-5; break;
      default: rtol = 1e-7, atol = 1e-7; break;
    }
    int bad = 0;
    for (size_t i = 0; i < g.size() / es; ++i) {
      const double yr = tsr_element_to_double(d, &c[i * es]), yi = cplx ? tsr_element_imag(d, &c[i * es]) : 0;
      const double magnitude = cplx ? std::hypot(yr, yi) : std::abs(yr);
      const double scale = poles ? magnitude * magnitude : magnitude;
      bool ok = true;
      for (int part = 0; part < (cplx ? 2 : 1); ++part) {
        const double x = part == 0 ? tsr_element_to_double(d, &g[i * es]) : tsr_element_imag(d, &g[i * es]);
        const double y = part == 0 ? yr : yi;
        if (std::isnan(x) || std::isnan(y)) ok = ok && std::isnan(x) && std::isnan(y);
        else if (match == Match::kExact) ok = ok && (x == y && (std::signbit(x) == std::signbit(y) || !is_float(part_dtype(d))));
        else if (match == Match::kClose) ok = ok && (x == y || std::abs(x - y) <= atol + rtol * scale);  // x == y: infinities
        else ok = ok && (x == y || std::abs(x - y) <= tol * std::max(scale, floor));
      }
      if (match == Match::kExact && !cplx && !std::isnan(yr))  // bit for bit, but +0 and -0 (checked below)
        ok = std::memcmp(&g[i * es], &c[i * es], es) == 0 || (yr == 0 && tsr_element_to_double(d, &g[i * es]) == 0 && is_float(d));
      if (!ok && bad++ < 3) {
        auto text = [&](const unsigned char* p) {
          return cplx ? "(" + std::to_string(tsr_element_to_double(d, p)) + ", " + std::to_string(tsr_element_imag(d, p)) + ")"
                      : std::to_string(tsr_element_to_double(d, p));
        };
        why += (why.empty() ? "" : "; ") + std::string("element ") + std::to_string(i) + ": cuda " + text(&g[i * es]) + ", cpu " + text(&c[i * es]);
      }
    }
    if (bad > 3) why += "; " + std::to_string(bad) + " elements differ";
    // -0.0 against +0.0 is a difference too for exact ops (signs are IEEE results).
    if (bad == 0 && match == Match::kExact && g != c && is_float(d)) {
      for (size_t i = 0; i < g.size() / es && why.empty(); ++i)
        if (std::memcmp(&g[i * es], &c[i * es], es) != 0 && !std::isnan(tsr_element_to_double(d, &c[i * es])))
          why = "element " + std::to_string(i) + ": the sign of zero differs";
    }
  }
  if (!why.empty()) {
    ++g_failures;
    std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
  } else if (g_verbose) {
    std::printf("ok   %s\n", name.c_str());
  }
}

// Runs f; a tessera::Error fails the case (both sides must succeed).
void attempt(const std::string& name, const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    ++g_cases;
    ++g_failures;
    std::printf("FAIL %s: %s\n", name.c_str(), e.what());
  }
}

// ---- inputs and layouts ----------------------------------------------------------

std::mt19937_64 g_rng(2024);

// Random values suited to the dtype (and positive ones when asked).
Tensor random_tensor(const Shape& shape, tsr_dtype d, bool positive = false) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) {
    if (d == TSR_BOOL) x = static_cast<double>(g_rng() & 1u);
    else if (is_float(d)) x = std::uniform_real_distribution<double>(positive ? 0.01 : -4, 4)(g_rng);
    else if (d == TSR_UINT8) x = static_cast<double>(g_rng() % 40);
    // uint16/32/64 too: a negative value wraps to the top of the range (2^64 - 20 in uint64).
    else x = static_cast<double>(static_cast<int64_t>(g_rng() % 41) - (positive ? 0 : 20));
  }
  return Tensor::from_host<double>(*g_rt, v, shape, TSR_FLOAT64, g_cpu).to(d);
}

// A layout: the shape of the base tensor, and the view taken of it.
struct Layout {
  std::string name;
  Shape base;
  std::function<Tensor(const Tensor&)> view;
};

// Views of logical shape [5, 37] (or what `name` says).
std::vector<Layout> layouts() {
  std::vector<Layout> all = {
      {"contiguous", {5, 37}, [](const Tensor& t) { return t; }},
      {"transposed", {37, 5}, [](const Tensor& t) { return t.T(); }},
      {"step-sliced", {5, 75}, [](const Tensor& t) { return t.slice(1, 1, TSR_SLICE_NONE, 2); }},
      {"expanded", {1, 37}, [](const Tensor& t) { return t.expand({5, 37}); }},
      {"0-d", {}, [](const Tensor& t) { return t; }},
      {"empty", {5, 0}, [](const Tensor& t) { return t; }},
  };
  // Several blocks of threads with a ragged last one: in --quick too, the
  // grid-wide paths under the sanitizers (the other "large" ones take
  // minutes on cuda_emu under ASan).
  all.push_back({"large: several blocks", {9, 1001}, [](const Tensor& t) { return t; }});
  if (!g_quick) {
    all.push_back({"offset 1", {5 * 37 + 1}, [](const Tensor& t) { return t.slice(0, 1).view({5, 37}); }});
    all.push_back({"large", {300, 1000}, [](const Tensor& t) { return t; }});
    all.push_back({"large transposed", {1000, 300}, [](const Tensor& t) { return t.T(); }});
    all.push_back({"3-d permuted", {4, 6, 40}, [](const Tensor& t) { return t.permute({2, 0, 1}); }});
  }
  return all;
}

// An operand transposed against the output (a + b.T, casts and in-place
// updates from b.T): the tiled pointwise kernel, whole and edge tiles. In
// --quick too, so that compute-sanitizer sees that kernel.
const Layout kWide{"[70, 100]", {70, 100}, [](const Tensor& t) { return t; }};
const Layout kWideTransposed{"[70, 100] transposed", {100, 70}, [](const Tensor& t) { return t.T(); }};

// The same input on both devices: (cpu view, gpu view).
struct Pair {
  Tensor cpu, gpu;
};
// `base` (on the CPU) and its copy on the GPU, both seen through l's view.
Pair pair_of(const Layout& l, const Tensor& base) { return {l.view(base), l.view(base.to(g_gpu))}; }
Pair input(const Layout& l, tsr_dtype d, bool positive = false) { return pair_of(l, random_tensor(l.base, d, positive)); }

std::string label(const char* op, tsr_dtype d, const std::string& layout) {
  return std::string(op) + "(" + tsr_dtype_name(d) + ") " + layout;
}

bool cpu_has(tsr_op op, tsr_dtype d) { return tsr_runtime_has_kernel(g_rt->get(), g_cpu, op, d) != 0; }

// ---- the cases ---------------------------------------------------------------------

Match unary_match(tsr_op op) {
  switch (op) {
    case TSR_OP_EXP: case TSR_OP_LOG: case TSR_OP_SIGMOID: case TSR_OP_TANH: return Match::kUlps;
    // 1 + erf(x) and 1 + tanh(..) cancel for negative x: a few ulps of erf
    // become many of the result, on either device
    case TSR_OP_GELU: case TSR_OP_GELU_TANH: case TSR_OP_SILU: return Match::kClose;
    default: return Match::kExact;
  }
}

void unary_ops() {
  for (int op = 0; op < TSR_OP_COUNT; ++op) {
    if (tsr_op_kind(op) != TSR_OP_KIND_UNARY) continue;
    for (tsr_dtype d : dtypes()) {
      if (!cpu_has(static_cast<tsr_op>(op), d)) continue;
      for (const Layout& l : layouts()) {
        const std::string name = label(tsr_op_name(op), d, l.name);
        attempt(name, [&] {
          Pair x = input(l, d, op == TSR_OP_LOG || op == TSR_OP_SQRT);
          compare(name, x.gpu.unary(static_cast<tsr_op>(op)), x.cpu.unary(static_cast<tsr_op>(op)), unary_match(static_cast<tsr_op>(op)));
        });
      }
    }
  }
}

// MATH's twenty functions (ABI 1.5) on every floating dtype and the small
// layouts (the large ones' walks are the unary ops' own, checked above); the
// device's libm may differ from the host's in the last bits.
void math_ops() {
  for (tsr_dtype d : dtypes()) {
    if (!is_float(d)) continue;
    for (int fn = 0; fn < TSR_MATH_FN_COUNT; ++fn) {
      for (const Layout& l : layouts()) {
        if (l.name.rfind("large", 0) == 0) continue;
        const std::string name = label(tsr_math_fn_name(fn), d, l.name);
        attempt(name, [&] {
          // Positive inputs for the logarithms and acosh (its domain starts at 1: 1 + x).
          const bool positive = fn == TSR_MATH_LOG2 || fn == TSR_MATH_LOG10 || fn == TSR_MATH_LOG1P || fn == TSR_MATH_ACOSH;
          Pair x = input(l, d, positive);
          auto math = [&](const Tensor& t) {
            tsr_tensor* o = nullptr;
            tessera::check(tsr_math(fn, t.get(), &o));
            return Tensor(o);
          };
          const bool rounding = fn >= TSR_MATH_FLOOR && fn <= TSR_MATH_CONJ;  // floor .. conj are exact everywhere
          compare(name, math(x.gpu), math(x.cpu), rounding ? Match::kExact : Match::kUlps);
        });
      }
    }
  }
}

// The index kernels on the device: CUMSUM and CUMPROD along every dim,
// SEARCHSORTED in sorted lines (left and right), SORT and a
// stable ARGSORT along every dim both ways, GATHER (take along dim 1),
// SCATTER (stores through a permutation, adds with repeated indices),
// NONZERO. Each must run natively: with the CPU fallback on, a
// missing kernel would give the CPU's answer and pass unseen.
Tensor wrapped(const std::function<tsr_status(tsr_tensor**)>& f) {
  tsr_tensor* o = nullptr;
  tessera::check(f(&o));
  return Tensor(o);
}

void index_ops() {
  for (tsr_op op : {TSR_OP_CUMSUM, TSR_OP_CUMPROD, TSR_OP_GATHER, TSR_OP_SCATTER, TSR_OP_NONZERO, TSR_OP_SORT,
                    TSR_OP_ARGSORT, TSR_OP_SEARCHSORTED})
    for (tsr_dtype d : dtypes())
      if (cpu_has(op, d) && tsr_runtime_has_kernel(g_rt->get(), g_gpu, op, d) == 0) {
        ++g_cases;
        ++g_failures;
        std::printf("FAIL %s(%s): no CUDA kernel\n", tsr_op_name(op), tsr_dtype_name(d));
      }
  for (tsr_dtype d : dtypes()) {
    for (const Layout& l : layouts()) {
      const int rank = static_cast<int>(l.name == "0-d" ? 0 : l.name == "3-d permuted" ? 3 : 2);
      for (int dim = 0; dim < std::max(rank, 1); ++dim) {
        const std::string name = label("cumsum", d, l.name + " dim " + std::to_string(dim));
        attempt(name, [&] {
          Pair x = input(l, d);
          auto cumsum = [&](const Tensor& t) { return wrapped([&](tsr_tensor** o) { return tsr_cumsum(t.get(), dim, TSR_DTYPE_UNDEFINED, o); }); };
          compare(name, cumsum(x.gpu), cumsum(x.cpu), is_float(d) ? Match::kClose : Match::kExact);
        });
      }
      for (int dim = 0; dim < std::max(rank, 1); ++dim) {
        const std::string name = label("cumprod", d, l.name + " dim " + std::to_string(dim));
        attempt(name, [&] {
          Pair x = input(l, d);
          auto cumprod = [&](const Tensor& t) { return wrapped([&](tsr_tensor** o) { return tsr_cumprod(t.get(), dim, TSR_DTYPE_UNDEFINED, o); }); };
          compare(name, cumprod(x.gpu), cumprod(x.cpu), is_float(d) ? Match::kClose : Match::kExact);
        });
      }
      if (!tsr_dtype_is_complex(d))
        for (int right = 0; right < 2; ++right) {
          // Each line of x sorted on both devices, then x's values searched in
          // it: every value ties with an element; rows of any layout.
          const std::string name = label("searchsorted", d, l.name + (right ? " right" : " left"));
          attempt(name, [&] {
            Pair x = input(l, d);
            tsr_sort_options so = TSR_SORT_OPTIONS_INIT;
            auto sorted = [&](const Tensor& t) { return wrapped([&](tsr_tensor** o) { return tsr_sort(t.get(), &so, o, nullptr); }); };
            tsr_searchsorted_options o = TSR_SEARCHSORTED_OPTIONS_INIT;
            o.right = right;
            auto search = [&](const Tensor& s, const Tensor& v) {
              return wrapped([&](tsr_tensor** r) { return tsr_searchsorted(s.get(), v.get(), &o, r); });
            };
            if (x.cpu.shape().empty()) return;  // a 0-d x has no line to search
            compare(name, search(sorted(x.gpu), x.gpu), search(sorted(x.cpu), x.cpu), Match::kExact);
          });
        }
      for (int dim = 0; dim < std::max(rank, 1); ++dim)
        for (int descending = 0; descending < 2; ++descending) {
          const std::string name = label("sort", d, l.name + " dim " + std::to_string(dim) + (descending ? " descending" : ""));
          attempt(name, [&] {
            Pair x = input(l, d);
            tsr_sort_options o{};
            o.struct_size = sizeof o;
            o.dim = dim;
            o.descending = descending;
            o.stable = 1;
            auto sort = [&](const Tensor& t, bool values) {
              return wrapped([&](tsr_tensor** r) { return values ? tsr_sort(t.get(), &o, r, nullptr) : tsr_sort(t.get(), &o, nullptr, r); });
            };
            compare(name, sort(x.gpu, true), sort(x.cpu, true), Match::kExact);
            compare(name + " (argsort)", sort(x.gpu, false), sort(x.cpu, false), Match::kExact);
          });
        }
      const std::string nz = label("nonzero", d, l.name);
      attempt(nz, [&] {
        Pair x = input(l, d);
        auto nonzero = [&](const Tensor& t) { return wrapped([&](tsr_tensor** o) { return tsr_nonzero(t.get(), o); }); };
        compare(nz, nonzero(x.gpu), nonzero(x.cpu), Match::kExact);
      });
      if (rank != 2 || l.name == "empty") continue;
      const std::string take = label("take", d, l.name + " along dim 1");
      attempt(take, [&] {
        Pair x = input(l, d);
        const int64_t n = x.cpu.shape()[1];
        std::vector<int64_t> idx(static_cast<size_t>(2 * n + 3));
        for (int64_t& i : idx) i = static_cast<int64_t>(g_rng() % static_cast<uint64_t>(2 * n)) - n;  // negatives too
        Tensor ic = Tensor::from_host<int64_t>(*g_rt, idx, {static_cast<int64_t>(idx.size())}, TSR_INT64, g_cpu);
        Tensor ig = ic.to(g_gpu);
        auto take_ = [&](const Tensor& t, const Tensor& i) { return wrapped([&](tsr_tensor** o) { return tsr_take(t.get(), i.get(), 1, o); }); };
        compare(take, take_(x.gpu, ig), take_(x.cpu, ic), Match::kExact);
      });
      for (int add = 0; add < 2; ++add) {
        // No writes into an expanded view (its rows share memory: the stores would race).
        if ((add == 1 && d == TSR_BOOL) || l.name == "expanded") continue;
        const std::string name = label(add ? "scatter_add" : "scatter", d, l.name + " along dim 1");
        attempt(name, [&] {
          // Adds of small integers (floating ones too): exact in any order,
          // which the contract leaves open, so both devices must agree.
          auto small_ints = [&](const Shape& shape) {
            int64_t count = 1;
            for (int64_t e : shape) count *= e;
            std::vector<double> v(static_cast<size_t>(count));
            for (double& x : v) x = static_cast<double>(static_cast<int64_t>(g_rng() % 9) - (d == TSR_UINT8 || tsr_dtype_is_unsigned(d) ? 0 : 4));
            return Tensor::from_host<double>(*g_rt, v, shape, TSR_FLOAT64, g_cpu).to(d);
          };
          Pair out = pair_of(l, add ? small_ints(l.base) : random_tensor(l.base, d));
          const int64_t rows = out.cpu.shape()[0], n = out.cpu.shape()[1];
          // Stores: each row a permutation (no two stores meet). Adds: indices
          // anywhere in [-n, n), so that some meet.
          std::vector<int64_t> idx(static_cast<size_t>(rows * n));
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t j = 0; j < n; ++j)
              idx[static_cast<size_t>(r * n + j)] =
                  add ? static_cast<int64_t>(g_rng() % static_cast<uint64_t>(2 * n)) - n : (n - 1 - j + r) % n;
          Tensor ic = Tensor::from_host<int64_t>(*g_rt, idx, {rows, n}, TSR_INT64, g_cpu);
          Tensor ig = ic.to(g_gpu);
          const Layout whole{"src", {rows, n}, [](const Tensor& t) { return t; }};
          Pair src = pair_of(whole, add ? small_ints(whole.base) : random_tensor(whole.base, d));
          tessera::check(tsr_scatter_(out.gpu.get(), 1, ig.get(), src.gpu.get(), add));
          tessera::check(tsr_scatter_(out.cpu.get(), 1, ic.get(), src.cpu.get(), add));
          compare(name, out.gpu, out.cpu, Match::kExact);
        });
      }
    }
  }
}

void binary_ops() {
  for (int op = 0; op < TSR_OP_COUNT; ++op) {
    if (tsr_op_kind(op) != TSR_OP_KIND_BINARY && tsr_op_kind(op) != TSR_OP_KIND_COMPARE) continue;
    for (tsr_dtype d : dtypes()) {
      if (!cpu_has(static_cast<tsr_op>(op), d)) continue;
      const std::vector<Layout> ls = layouts();
      for (size_t i = 0; i < ls.size(); ++i) {
        // Both operands in one layout (a broadcast row follows below).
        const Layout& la = ls[i];
        const Layout& lb = ls[i];
        const std::string name = label(tsr_op_name(op), d, la.name);
        const Match m = (op == TSR_OP_POW && is_float(d)) ? Match::kUlps : Match::kExact;
        attempt(name, [&] {
          Pair a = input(la, d), b = input(lb, d, op == TSR_OP_POW);
          compare(name, a.gpu.binary(static_cast<tsr_op>(op), b.gpu), a.cpu.binary(static_cast<tsr_op>(op), b.cpu), m);
        });
      }
      const std::string name = label(tsr_op_name(op), d, "[5, 37] with a broadcast [37]");
      attempt(name, [&] {
        Pair a = input(ls[0], d);
        Layout row{"row", {37}, [](const Tensor& t) { return t; }};
        Pair b = input(row, d, op == TSR_OP_POW);
        compare(name, a.gpu.binary(static_cast<tsr_op>(op), b.gpu), a.cpu.binary(static_cast<tsr_op>(op), b.cpu),
                (op == TSR_OP_POW && is_float(d)) ? Match::kUlps : Match::kExact);
      });
      const std::string tname = label(tsr_op_name(op), d, "[70, 100] with a transposed [70, 100]");
      attempt(tname, [&] {
        Pair a = input(kWide, d), b = input(kWideTransposed, d, op == TSR_OP_POW);
        compare(tname, a.gpu.binary(static_cast<tsr_op>(op), b.gpu), a.cpu.binary(static_cast<tsr_op>(op), b.cpu),
                (op == TSR_OP_POW && is_float(d)) ? Match::kUlps : Match::kExact);
      });
    }
  }
}

// Destinations inside a sentinel-filled [7, 80] buffer: a strided slice and
// a transposed one, each of shape [5, 37]. The whole buffer is compared, so a
// write outside the view shows.
struct Dest {
  const char* name;
  std::function<Tensor(const Tensor&)> view;
  Shape base;
};
std::vector<Dest> destinations() {
  return {{"into a strided view", [](const Tensor& t) { return t.slice(0, 1, 6).slice(1, 3, 77, 2); }, {7, 80}},
          {"into a transposed view", [](const Tensor& t) { return t.slice(0, 2, 39).slice(1, 1, 6).T(); }, {40, 8}}};
}

void inplace_ops() {
  for (tsr_dtype d : dtypes()) {
    const Scalar sentinel = d == TSR_BOOL ? Scalar(true) : (is_float(d) ? Scalar(-123.25) : Scalar(77));
    for (const Dest& dest : destinations()) {
      auto fresh = [&](Tensor& cpu_buf, Tensor& gpu_buf) {
        cpu_buf = Tensor::full(*g_rt, dest.base, sentinel, d, g_cpu);
        gpu_buf = cpu_buf.to(g_gpu);
      };
      for (int op : {TSR_OP_ADD, TSR_OP_MUL, TSR_OP_SUB, TSR_OP_DIV, TSR_OP_MAXIMUM, TSR_OP_LT}) {
        if (!cpu_has(static_cast<tsr_op>(op), d)) continue;
        const std::string name = label(tsr_op_name(op), d, std::string("in place ") + dest.name);
        attempt(name, [&] {
          Tensor cb, gb;
          fresh(cb, gb);
          Pair b = input(layouts()[1], d);
          dest.view(cb).inplace(static_cast<tsr_op>(op), b.cpu);
          dest.view(gb).inplace(static_cast<tsr_op>(op), b.gpu);
          compare(name, gb, cb, Match::kExact);
        });
      }
      for (int op : {TSR_OP_NEG, TSR_OP_EXP}) {
        if (!cpu_has(static_cast<tsr_op>(op), d)) continue;
        const std::string name = label(tsr_op_name(op), d, std::string("in place ") + dest.name);
        attempt(name, [&] {
          Tensor cb, gb;
          fresh(cb, gb);
          tessera::check(tsr_unary_(static_cast<tsr_op>(op), dest.view(cb).get()));
          tessera::check(tsr_unary_(static_cast<tsr_op>(op), dest.view(gb).get()));
          compare(name, gb, cb, unary_match(static_cast<tsr_op>(op)));
        });
      }
      {
        const std::string name = label("fill", d, dest.name);
        attempt(name, [&] {
          Tensor cb, gb;
          fresh(cb, gb);
          const Scalar v = d == TSR_BOOL ? Scalar(false) : Scalar(3);
          dest.view(cb).fill_(v);
          dest.view(gb).fill_(v);
          compare(name, gb, cb, Match::kExact);
        });
      }
      // COPY from every source dtype and layout (casts), into the view (below:
      // the wide destination).
      for (tsr_dtype s : dtypes()) {
        for (const Layout& l : layouts()) {
          if (l.name == "empty" || l.name.rfind("large", 0) == 0 || l.name == "3-d permuted") continue;  // not [5, 37]
          const std::string name = label("copy", d, std::string("from ") + tsr_dtype_name(s) + " " + l.name + " " + dest.name);
          attempt(name, [&] {
            Tensor cb, gb;
            fresh(cb, gb);
            Pair src = input(l, s);
            dest.view(cb).copy_(src.cpu);
            dest.view(gb).copy_(src.gpu);
            compare(name, gb, cb, Match::kExact);
          });
        }
      }
    }
    // A [70, 100] destination inside a sentinel-filled [72, 104] buffer,
    // updated in place from a transposed operand and written by a copy (a cast
    // but for the same dtype) from one: the tiled kernels, edges included.
    auto wide_dest = [](const Tensor& t) { return t.slice(0, 1, 71).slice(1, 2, 102); };
    auto wide_fresh = [&](Tensor& cpu_buf, Tensor& gpu_buf) {
      cpu_buf = Tensor::full(*g_rt, {72, 104}, sentinel, d, g_cpu);
      gpu_buf = cpu_buf.to(g_gpu);
    };
    for (int op : {TSR_OP_ADD, TSR_OP_MUL, TSR_OP_MAXIMUM, TSR_OP_LT}) {
      if (!cpu_has(static_cast<tsr_op>(op), d)) continue;
      const std::string name = label(tsr_op_name(op), d, "in place into a [70, 100] view, from a transposed [70, 100]");
      attempt(name, [&] {
        Tensor cb, gb;
        wide_fresh(cb, gb);
        Pair b = input(kWideTransposed, d);
        wide_dest(cb).inplace(static_cast<tsr_op>(op), b.cpu);
        wide_dest(gb).inplace(static_cast<tsr_op>(op), b.gpu);
        compare(name, gb, cb, Match::kExact);
      });
    }
    for (tsr_dtype s : dtypes()) {
      const std::string name = label("copy", d, std::string("from ") + tsr_dtype_name(s) + " transposed [70, 100] into a [70, 100] view");
      attempt(name, [&] {
        Tensor cb, gb;
        wide_fresh(cb, gb);
        Pair src = input(kWideTransposed, s);
        wide_dest(cb).copy_(src.cpu);
        wide_dest(gb).copy_(src.gpu);
        compare(name, gb, cb, Match::kExact);
      });
    }
  }
}

void where_ops() {
  for (tsr_dtype d : dtypes()) {
    const std::string mixed = label("where", d, "[70, 100]: condition, transposed, broadcast row");
    attempt(mixed, [&] {
      Layout row{"row", {100}, [](const Tensor& t) { return t; }};
      Pair c = input(kWide, TSR_BOOL), a = input(kWideTransposed, d), b = input(row, d);
      compare(mixed, tessera::where(c.gpu, a.gpu, b.gpu), tessera::where(c.cpu, a.cpu, b.cpu), Match::kExact);
    });
    for (const Layout& l : layouts()) {
      const std::string name = label("where", d, l.name);
      attempt(name, [&] {
        Pair c = input(l, TSR_BOOL), a = input(l, d), b = input(l, d);
        compare(name, tessera::where(c.gpu, a.gpu, b.gpu), tessera::where(c.cpu, a.cpu, b.cpu), Match::kExact);
      });
    }
  }
}

void reductions() {
  for (int op = 0; op < TSR_OP_COUNT; ++op) {
    if (tsr_op_kind(op) != TSR_OP_KIND_REDUCE) continue;
    for (tsr_dtype d : dtypes()) {
      if (!cpu_has(static_cast<tsr_op>(op), d)) continue;
      // Sums accumulate in double on both devices but in another order: float32
      // and narrower round the double once (a few ulps apart at most); float64
      // keeps the order's rounding error.
      // VAR and STD: the CPU's one-pass kernel works in double (Note [One-pass
      // variance] in backends/cpu_tbb/reduce.cpp), the device's composite in
      // the dtype's own arithmetic (its mean, deviations and squares rounded
      // to it): apart by the composite's rounding, a few ulps of the dtype.
      const bool sum = op == TSR_OP_SUM || op == TSR_OP_MEAN || op == TSR_OP_PROD;
      const bool variance = op == TSR_OP_VAR || op == TSR_OP_STD;
      const bool arg = op == TSR_OP_ARGMAX || op == TSR_OP_ARGMIN;
      const Match m = (sum || variance) && d == TSR_FLOAT64 ? Match::kClose
                      : sum && is_float(d)                  ? Match::kUlps
                      : variance                            ? Match::kLoose
                                                            : Match::kExact;
      for (const Layout& l : layouts()) {
        if (l.name == "empty" && (op == TSR_OP_MAX || op == TSR_OP_MIN || arg)) continue;  // an error on both
        const int nd = static_cast<int>(l.view(random_tensor(l.base, d)).dim());
        std::vector<std::vector<int32_t>> dim_sets = {{}};
        for (int k = 0; k < nd; ++k) dim_sets.push_back({k});
        if (nd >= 2 && !arg) dim_sets.push_back({0, nd - 1});
        for (const auto& dims : dim_sets) {
          for (bool keep : {false, true}) {
            std::string dims_s = "dims [";
            for (int32_t k : dims) dims_s += std::to_string(k) + " ";
            const std::string name = label(tsr_op_name(op), d, l.name + " " + dims_s + "]" + (keep ? " keepdim" : ""));
            attempt(name, [&] {
              Pair x = input(l, d);
              compare(name, x.gpu.reduce(static_cast<tsr_op>(op), dims, keep), x.cpu.reduce(static_cast<tsr_op>(op), dims, keep), m);
            });
          }
        }
      }
      // Long rows: sliced reductions with a second pass. uint16 and uint32 run
      // the templates int16 and int32 run, at their sizes: uint64 stands for
      // the new dtypes here, to stay fast.
      if (!g_quick && d != TSR_UINT16 && d != TSR_UINT32) {
        const std::string name = label(tsr_op_name(op), d, "[3, 200000] over dim 1 and all");
        attempt(name, [&] {
          Layout big{"big", {3, 200000}, [](const Tensor& t) { return t; }};
          Pair x = input(big, d);
          compare(name, x.gpu.reduce(static_cast<tsr_op>(op), {1}), x.cpu.reduce(static_cast<tsr_op>(op), {1}), m);
          compare(name + " (all)", x.gpu.reduce(static_cast<tsr_op>(op)), x.cpu.reduce(static_cast<tsr_op>(op)), m);
          compare(name + " (dim 0)", x.gpu.reduce(static_cast<tsr_op>(op), {0}), x.cpu.reduce(static_cast<tsr_op>(op), {0}), m);
        });
      }
    }
  }
}

void matmuls() {
  struct Case {
    const char* name;
    Shape a, b;
    std::function<Tensor(const Tensor&)> va, vb;
  };
  auto id = [](const Tensor& t) { return t; };
  auto tr = [](const Tensor& t) { return t.transpose(-1, -2); };
  std::vector<Case> cases = {
      {"[5,7]x[7,3]", {5, 7}, {7, 3}, id, id},
      {"[5,7]^T x [3,5]^T", {7, 5}, {3, 7}, tr, tr},
      {"batched [2,5,7]x[7,3]", {2, 5, 7}, {7, 3}, id, id},
      {"batched broadcast [4,1,6,8]x[3,8,2]", {4, 1, 6, 8}, {3, 8, 2}, id, id},
      {"1-d x 2-d", {7}, {7, 3}, id, id},
      {"2-d x 1-d", {5, 7}, {7}, id, id},
      {"K = 0", {5, 0}, {0, 3}, id, id},
      {"step-sliced", {5, 14}, {7, 3}, [](const Tensor& t) { return t.slice(1, 0, TSR_SLICE_NONE, 2); }, id},
  };
  if (!g_quick) cases.push_back({"[300,500]x[500,200]", {300, 500}, {500, 200}, id, id});
  for (tsr_dtype d : dtypes()) {
    if (!cpu_has(TSR_OP_MATMUL, d)) continue;
    const Match m = d == TSR_FLOAT64 ? Match::kClose : (is_float(d) ? Match::kLoose : Match::kExact);
    for (const Case& c : cases) {
      const std::string name = label("matmul", d, c.name);
      attempt(name, [&] {
        Tensor a = random_tensor(c.a, d), b = random_tensor(c.b, d);
        Tensor ga = c.va(a.to(g_gpu)), gb = c.vb(b.to(g_gpu));
        Tensor ref = c.va(a).matmul(c.vb(b));
        if (is_float(d) && d != TSR_FLOAT64) {
          // Float32 on OpenBLAS, float16/bfloat16 in another order: compare
          // against the float64 product with a bound that scales with K.
          Tensor exact = c.va(a.to(TSR_FLOAT64)).matmul(c.vb(b.to(TSR_FLOAT64)));
          Tensor got = ga.matmul(gb);
          ++g_cases;
          const std::vector<unsigned char> gbytes = bytes_of(got.to(TSR_FLOAT64)), ebytes = bytes_of(exact);
          const int64_t K = c.a.empty() ? 0 : c.a.back();
          const double tol = (d == TSR_FLOAT32 ? 1e-5 : (d == TSR_FLOAT16 ? 4e-3 : 3e-2)) * std::sqrt(static_cast<double>(std::max<int64_t>(K, 1))) * 16;
          int bad = 0;
          for (size_t i = 0; i < gbytes.size() / 8; ++i) {
            const double x = tsr_element_to_double(TSR_FLOAT64, &gbytes[i * 8]), y = tsr_element_to_double(TSR_FLOAT64, &ebytes[i * 8]);
            if (!(std::abs(x - y) <= tol)) ++bad;
          }
          if (got.shape() != ref.shape() || got.dtype() != d || bad > 0) {
            ++g_failures;
            std::printf("FAIL %s: %d elements off by more than %g (or shape/dtype)\n", name.c_str(), bad, tol);
          } else if (g_verbose) {
            std::printf("ok   %s\n", name.c_str());
          }
          return;
        }
        compare(name, ga.matmul(gb), ref, m);
      });
    }
  }
}

void factories() {
  for (tsr_dtype d : dtypes()) {
    if (cpu_has(TSR_OP_ARANGE, d)) {
      const std::string name = label("arange", d, "0..37 step 3");
      attempt(name, [&] {
        compare(name, Tensor::arange(*g_rt, 0, 37, 3, d, g_gpu), Tensor::arange(*g_rt, 0, 37, 3, d, g_cpu), Match::kExact);
        if (is_float(d))
          compare(name + " (fractional)", Tensor::arange(*g_rt, -1.5, 2.3, 0.1, d, g_gpu), Tensor::arange(*g_rt, -1.5, 2.3, 0.1, d, g_cpu),
                  Match::kExact);
      });
    }
    if (cpu_has(TSR_OP_LINSPACE, d)) {
      const std::string name = label("linspace", d, "-3..10, 101 steps");
      attempt(name, [&] {
        compare(name, Tensor::linspace(*g_rt, -3, 10, 101, d, g_gpu), Tensor::linspace(*g_rt, -3, 10, 101, d, g_cpu), Match::kExact);
      });
    }
    if (is_float(d)) {
      for (bool normal : {false, true}) {
        const std::string name = label(normal ? "randn" : "rand", d, "[33, 65] seed 7");
        attempt(name, [&] {
          g_rt->manual_seed(7);
          Tensor g = normal ? Tensor::randn(*g_rt, {33, 65}, d, g_gpu) : Tensor::rand(*g_rt, {33, 65}, d, g_gpu);
          g_rt->manual_seed(7);
          Tensor c = normal ? Tensor::randn(*g_rt, {33, 65}, d, g_cpu) : Tensor::rand(*g_rt, {33, 65}, d, g_cpu);
          // Uniforms are exact; normals go through double log/cos, whose last
          // bit may differ between libdevice and glibc (float64 only).
          compare(name, g, c, (normal && d == TSR_FLOAT64) ? Match::kUlps : Match::kExact);
        });
      }
    }
  }
}

void transfers() {
  for (tsr_dtype d : dtypes()) {
    // One element, a small slot, and 5 Mi elements: 16 MiB pieces pipelined
    // for elements of 4 and 8 bytes, each memcpy split across threads.
    for (int64_t n : {int64_t{1}, int64_t{1000}, int64_t{5} << 20}) {
      if (g_quick && n > 1000) continue;
      const std::string name = label("to", d, std::to_string(n) + " elements cpu -> cuda -> cpu, and cuda -> cuda");
      attempt(name, [&] {
        Tensor c = random_tensor({n}, d);
        Tensor g = c.to(g_gpu);
        compare(name, g, c, Match::kExact);
        compare(name + " (clone)", g.clone(), c, Match::kExact);
      });
    }
  }
  // Uploads queued faster than they complete: every staging slot (64 small,
  // 4 large of 16 MiB; 3 uploads of 20 MiB take 6) reused before anything is
  // read back, so an upload that refilled a slot its previous copy still had
  // to read would change an earlier tensor.
  const std::string name = "200 small and 3 pipelined uploads queued before any read";
  attempt(name, [&] {
    std::vector<Tensor> host, device;
    for (int i = 0; i < 203; ++i) {
      host.push_back(random_tensor({i < 200 ? int64_t{1000} : int64_t{5} << 20}, TSR_FLOAT32));
      device.push_back(host.back().to(g_gpu));
    }
    for (size_t i = 0; i < host.size(); ++i) compare(name + " #" + std::to_string(i), device[i], host[i], Match::kExact);
  });
}

// Several host threads driving cuda:0 at once, as a server's request threads
// would: uploads, pointwise, tiled copies, reductions, cuBLAS and downloads
// interleave on the device's one stream, its allocator and its staging
// slots. Inputs come from the runtime's generator (safe from any thread);
// each thread checks its own results against the CPU.
void threads() {
  constexpr int kThreads = 4, kRounds = 12;
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([t] {
      for (int r = 0; r < kRounds; ++r) {
        const std::string name = "thread " + std::to_string(t) + " round " + std::to_string(r);
        attempt(name, [&] {
          const int64_t n = 64 + 16 * t + r;
          Tensor a = Tensor::rand(*g_rt, {n, 48}, TSR_FLOAT32, g_cpu), b = Tensor::rand(*g_rt, {48, n}, TSR_FLOAT32, g_cpu);
          Tensor ga = a.to(g_gpu), gb = b.to(g_gpu);
          compare(name + " add", ga + gb.T(), a + b.T(), Match::kExact);
          compare(name + " transpose", gb.T().contiguous(), b.T().contiguous(), Match::kExact);
          compare(name + " sum", (ga * 2.0).sum({1}), (a * 2.0).sum({1}), Match::kClose);
          compare(name + " matmul", ga.matmul(gb), a.matmul(b), Match::kClose);
        });
      }
    });
  }
  for (std::thread& th : pool) th.join();
}

// ---- complex64 and complex128 -----------------------------------------------------

// Random complex values: both parts uniform in (-4, 4) (the real part in
// (0.01, 4) when `positive`); `unit`: magnitudes near 1, for products of many
// factors; `zeros`: every third element 0 and every fifth purely imaginary.
enum class Fill { kPlain, kPositive, kUnit, kZeros };
Tensor random_complex(const Shape& shape, tsr_dtype d, Fill fill = Fill::kPlain) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<std::complex<double>> v(static_cast<size_t>(n));
  std::uniform_real_distribution<double> part(-4, 4), positive(0.01, 4), angle(-3.14159, 3.14159), radius(0.9, 1.1);
  for (size_t i = 0; i < v.size(); ++i) {
    if (fill == Fill::kUnit) v[i] = std::polar(radius(g_rng), angle(g_rng));
    else v[i] = {fill == Fill::kPositive ? positive(g_rng) : part(g_rng), part(g_rng)};
    if (fill == Fill::kZeros && i % 3 == 0) v[i] = 0;
    if (fill == Fill::kZeros && i % 5 == 1) v[i] = {0, v[i].imag()};
  }
  return Tensor::from_host<std::complex<double>>(*g_rt, v, shape, TSR_COMPLEX128, g_cpu).to(d);
}
Pair complex_input(const Layout& l, tsr_dtype d, Fill fill = Fill::kPlain) { return pair_of(l, random_complex(l.base, d, fill)); }

// Every op that takes complex dtypes, run natively on cuda (a missing
// kernel is a failure: the CPU fallback would answer for it unseen), on the
// small layouts and one of several blocks. The device's complex library is
// libcu++'s and the CPU's glibc's: functions agree within a few ulps of the
// value's magnitude, and exactly where both compute the same IEEE operations.
void complex_ops() {
  constexpr tsr_dtype kComplex[] = {TSR_COMPLEX64, TSR_COMPLEX128};
  std::vector<Layout> ls;
  for (const Layout& l : layouts())
    if (l.name.rfind("large", 0) != 0 || l.name == "large: several blocks") ls.push_back(l);
  for (tsr_dtype d : kComplex) {
    for (int op = 0; op < TSR_OP_COUNT; ++op) {
      const tsr_op o = static_cast<tsr_op>(op);
      if (tsr_op_role(op) != TSR_OP_ROLE_PRIMITIVE || !cpu_has(o, d)) continue;
      if (tsr_runtime_has_kernel(g_rt->get(), g_gpu, o, d) == 0) {
        ++g_cases;
        ++g_failures;
        std::printf("FAIL %s(%s): no CUDA kernel\n", tsr_op_name(op), tsr_dtype_name(d));
      }
    }
    for (const Layout& l : ls) {
      for (int op = 0; op < TSR_OP_COUNT; ++op) {
        const tsr_op o = static_cast<tsr_op>(op);
        if (!cpu_has(o, d)) continue;
        const int kind = tsr_op_kind(op);
        if (kind == TSR_OP_KIND_UNARY) {
          const std::string name = label(tsr_op_name(op), d, l.name);
          attempt(name, [&] {
            Pair x = complex_input(l, d);
            const Match m = op == TSR_OP_NEG ? Match::kExact : op == TSR_OP_ABS ? Match::kUlps : op == TSR_OP_TANH ? Match::kPoles : Match::kLoose;
            compare(name, x.gpu.unary(o), x.cpu.unary(o), m);
          });
        } else if (kind == TSR_OP_KIND_BINARY || kind == TSR_OP_KIND_COMPARE) {
          const std::string name = label(tsr_op_name(op), d, l.name);
          const bool exact = op == TSR_OP_ADD || op == TSR_OP_SUB || kind == TSR_OP_KIND_COMPARE;
          const Match m = exact ? Match::kExact : op == TSR_OP_POW ? Match::kLoose : Match::kUlps;
          attempt(name, [&] {
            Pair a = complex_input(l, d), b = complex_input(l, d, op == TSR_OP_POW ? Fill::kPositive : Fill::kPlain);
            compare(name, a.gpu.binary(o, b.gpu), a.cpu.binary(o, b.cpu), m);
            compare(name + " (with itself)", a.gpu.binary(o, a.gpu), a.cpu.binary(o, a.cpu), m);
          });
        }
      }
      for (int fn = 0; fn < TSR_MATH_FN_COUNT; ++fn) {
        if (fn == TSR_MATH_FLOOR || fn == TSR_MATH_CEIL || fn == TSR_MATH_TRUNC || fn == TSR_MATH_ERF) continue;  // not defined on complex numbers
        const std::string name = label(tsr_math_fn_name(fn), d, l.name);
        attempt(name, [&] {
          Pair x = complex_input(l, d);
          auto math = [&](const Tensor& t) { return wrapped([&](tsr_tensor** r) { return tsr_math(fn, t.get(), r); }); };
          const Match m = fn == TSR_MATH_CONJ || fn == TSR_MATH_ROUND ? Match::kExact : fn == TSR_MATH_TAN ? Match::kPoles : Match::kLoose;
          compare(name, math(x.gpu), math(x.cpu), m);
        });
      }
      const std::string where_name = label("where", d, l.name);
      attempt(where_name, [&] {
        Pair c = input(l, TSR_BOOL), a = complex_input(l, d), b = complex_input(l, d);
        compare(where_name, tessera::where(c.gpu, a.gpu, b.gpu), tessera::where(c.cpu, a.cpu, b.cpu), Match::kExact);
      });
      // Reductions over every dim set; products of factors near the unit circle.
      const int nd = static_cast<int>(l.view(random_complex(l.base, d)).dim());
      std::vector<std::vector<int32_t>> dim_sets = {{}};
      for (int k = 0; k < nd; ++k) dim_sets.push_back({k});
      for (int op : {TSR_OP_SUM, TSR_OP_MEAN, TSR_OP_PROD}) {
        for (const auto& dims : dim_sets) {
          std::string dims_s = " dims [";
          for (int32_t k : dims) dims_s += std::to_string(k) + " ";
          const std::string name = label(tsr_op_name(op), d, l.name + dims_s + "]");
          attempt(name, [&] {
            Pair x = complex_input(l, d, op == TSR_OP_PROD ? Fill::kUnit : Fill::kPlain);
            const tsr_op o = static_cast<tsr_op>(op);
            compare(name, x.gpu.reduce(o, dims), x.cpu.reduce(o, dims), d == TSR_COMPLEX128 ? Match::kClose : Match::kUlps);
          });
        }
      }
      for (int dim = 0; dim < std::max(nd, 1); ++dim) {
        const std::string name = label("cumsum", d, l.name + " dim " + std::to_string(dim));
        attempt(name, [&] {
          Pair x = complex_input(l, d);
          auto cumsum = [&](const Tensor& t) { return wrapped([&](tsr_tensor** o) { return tsr_cumsum(t.get(), dim, TSR_DTYPE_UNDEFINED, o); }); };
          compare(name, cumsum(x.gpu), cumsum(x.cpu), d == TSR_COMPLEX128 ? Match::kClose : Match::kUlps);
        });
      }
      const std::string nz = label("nonzero", d, l.name);
      attempt(nz, [&] {
        Pair x = complex_input(l, d, Fill::kZeros);
        auto nonzero = [&](const Tensor& t) { return wrapped([&](tsr_tensor** o) { return tsr_nonzero(t.get(), o); }); };
        compare(nz, nonzero(x.gpu), nonzero(x.cpu), Match::kExact);
      });
      // Casts both ways, with every real dtype and the other complex one.
      if (l.name.rfind("large", 0) != 0 && l.name != "3-d permuted") {
        for (tsr_dtype s : kAll) {
          const std::string into = label("copy", d, std::string("from ") + tsr_dtype_name(s) + " " + l.name);
          attempt(into, [&] {
            Pair src = input(l, s);
            compare(into, src.gpu.to(d), src.cpu.to(d), Match::kExact);
          });
          const std::string from = label("copy", s, std::string("from ") + tsr_dtype_name(d) + " " + l.name);
          attempt(from, [&] {
            Pair src = complex_input(l, d);
            compare(from, src.gpu.to(s), src.cpu.to(s), Match::kExact);
          });
        }
        const tsr_dtype other = d == TSR_COMPLEX64 ? TSR_COMPLEX128 : TSR_COMPLEX64;
        const std::string name = label("copy", other, std::string("from ") + tsr_dtype_name(d) + " " + l.name);
        attempt(name, [&] {
          Pair src = complex_input(l, d);
          compare(name, src.gpu.to(other), src.cpu.to(other), Match::kExact);
          compare(name + " (clone)", src.gpu.clone(), src.cpu.clone(), Match::kExact);
        });
      }
    }
    // An operand transposed against the output (the tiled pointwise kernel,
    // 16-byte elements staged for complex128), and in-place updates, fills and
    // copies into views of a sentinel-filled buffer.
    const std::string tname = label("mul", d, "[70, 100] with a transposed [70, 100]");
    attempt(tname, [&] {
      Pair a = complex_input(kWide, d), b = complex_input(kWideTransposed, d);
      compare(tname, a.gpu * b.gpu, a.cpu * b.cpu, Match::kUlps);
      compare(tname + " (copy)", b.gpu.contiguous(), b.cpu.contiguous(), Match::kExact);
    });
    Scalar sentinel(0.0), value(0.0);
    sentinel.value = tsr_scalar_complex(-123.25, 7.5);
    value.value = tsr_scalar_complex(3, -2);
    for (const Dest& dest : destinations()) {
      for (int op : {TSR_OP_ADD, TSR_OP_MUL, TSR_OP_DIV}) {
        const std::string name = label(tsr_op_name(op), d, std::string("in place ") + dest.name);
        attempt(name, [&] {
          Tensor cb = Tensor::full(*g_rt, dest.base, sentinel, d, g_cpu), gb = cb.to(g_gpu);
          Pair b = complex_input(layouts()[1], d);
          dest.view(cb).inplace(static_cast<tsr_op>(op), b.cpu);
          dest.view(gb).inplace(static_cast<tsr_op>(op), b.gpu);
          compare(name, gb, cb, op == TSR_OP_ADD ? Match::kExact : Match::kUlps);
        });
      }
      const std::string fill = label("fill", d, dest.name);
      attempt(fill, [&] {
        Tensor cb = Tensor::full(*g_rt, dest.base, sentinel, d, g_cpu), gb = cb.to(g_gpu);
        dest.view(cb).fill_(value);
        dest.view(gb).fill_(value);
        compare(fill, gb, cb, Match::kExact);
      });
      const std::string copy = label("copy", d, std::string("from float32 transposed ") + dest.name);
      attempt(copy, [&] {
        Tensor cb = Tensor::full(*g_rt, dest.base, sentinel, d, g_cpu), gb = cb.to(g_gpu);
        Pair src = input(layouts()[1], TSR_FLOAT32);
        dest.view(cb).copy_(src.cpu);
        dest.view(gb).copy_(src.gpu);
        compare(copy, gb, cb, Match::kExact);
      });
    }
    // GATHER (take along dim 1) and SCATTER (stores through a permutation;
    // adds of small Gaussian integers, exact in any order).
    const std::string take = label("take", d, "[5, 37] along dim 1");
    attempt(take, [&] {
      Pair x = complex_input(layouts()[0], d);
      std::vector<int64_t> idx(77);
      for (int64_t& i : idx) i = static_cast<int64_t>(g_rng() % 74) - 37;
      Tensor ic = Tensor::from_host<int64_t>(*g_rt, idx, {77}, TSR_INT64, g_cpu), ig = ic.to(g_gpu);
      auto take_ = [&](const Tensor& t, const Tensor& i) { return wrapped([&](tsr_tensor** o) { return tsr_take(t.get(), i.get(), 1, o); }); };
      compare(take, take_(x.gpu, ig), take_(x.cpu, ic), Match::kExact);
    });
    for (int add = 0; add < 2; ++add) {
      const std::string name = label(add ? "scatter_add" : "scatter", d, "[5, 37] along dim 1");
      attempt(name, [&] {
        auto gaussian_ints = [&](const Shape& shape) {
          std::vector<std::complex<double>> v(static_cast<size_t>(shape[0] * shape[1]));
          for (auto& z : v) z = {static_cast<double>(static_cast<int64_t>(g_rng() % 9) - 4), static_cast<double>(static_cast<int64_t>(g_rng() % 9) - 4)};
          return Tensor::from_host<std::complex<double>>(*g_rt, v, shape, TSR_COMPLEX128, g_cpu).to(d);
        };
        Tensor oc = gaussian_ints({5, 37}), og = oc.to(g_gpu);
        std::vector<int64_t> idx(5 * 37);
        for (int64_t r = 0; r < 5; ++r)
          for (int64_t j = 0; j < 37; ++j)
            idx[static_cast<size_t>(r * 37 + j)] = add ? static_cast<int64_t>(g_rng() % 74) - 37 : (36 - j + r) % 37;
        Tensor ic = Tensor::from_host<int64_t>(*g_rt, idx, {5, 37}, TSR_INT64, g_cpu), ig = ic.to(g_gpu);
        Tensor sc = gaussian_ints({5, 37}), sg = sc.to(g_gpu);
        tessera::check(tsr_scatter_(og.get(), 1, ig.get(), sg.get(), add));
        tessera::check(tsr_scatter_(oc.get(), 1, ic.get(), sc.get(), add));
        compare(name, og, oc, Match::kExact);
      });
    }
    // MATMUL through cuBLAS's CGEMM / ZGEMM, against the CPU's cgemm / zgemm.
    struct MatmulCase {
      const char* name;
      Shape a, b;
      bool transposed;
    };
    for (const MatmulCase& c : {MatmulCase{"[5,7]x[7,3]", {5, 7}, {7, 3}, false}, MatmulCase{"[5,7]^T x [3,5]^T", {7, 5}, {3, 7}, true},
                                MatmulCase{"batched broadcast [4,1,6,8]x[3,8,2]", {4, 1, 6, 8}, {3, 8, 2}, false},
                                MatmulCase{"[60,200]x[200,50]", {60, 200}, {200, 50}, false}, MatmulCase{"K = 0", {5, 0}, {0, 3}, false}}) {
      const std::string name = label("matmul", d, c.name);
      attempt(name, [&] {
        auto view = [&](const Tensor& t) { return c.transposed ? t.transpose(-1, -2) : t; };
        Tensor a = random_complex(c.a, d), b = random_complex(c.b, d);
        Tensor got = view(a.to(g_gpu)).matmul(view(b.to(g_gpu)));
        if (d == TSR_COMPLEX128) {
          compare(name, got, view(a).matmul(view(b)), Match::kClose);
          return;
        }
        // complex64: float sums in another order than OpenBLAS's; against the
        // complex128 product, with the float32 case's bound (4 times: four
        // products a term).
        Tensor exact = view(a.to(TSR_COMPLEX128)).matmul(view(b.to(TSR_COMPLEX128)));
        Tensor ref = view(a).matmul(view(b));
        ++g_cases;
        const std::vector<unsigned char> gb = bytes_of(got.to(TSR_COMPLEX128)), eb = bytes_of(exact);
        const int64_t K = c.a.back();
        const double tol = 4 * 1e-5 * std::sqrt(static_cast<double>(std::max<int64_t>(K, 1))) * 16;
        int bad = 0;
        for (size_t i = 0; i < gb.size() / 16; ++i)
          if (!(std::abs(tsr_element_to_double(TSR_COMPLEX128, &gb[i * 16]) - tsr_element_to_double(TSR_COMPLEX128, &eb[i * 16])) <= tol &&
                std::abs(tsr_element_imag(TSR_COMPLEX128, &gb[i * 16]) - tsr_element_imag(TSR_COMPLEX128, &eb[i * 16])) <= tol))
            ++bad;
        if (got.shape() != ref.shape() || got.dtype() != d || bad > 0) {
          ++g_failures;
          std::printf("FAIL %s: %d elements off by more than %g (or shape/dtype)\n", name.c_str(), bad, tol);
        } else if (g_verbose) {
          std::printf("ok   %s\n", name.c_str());
        }
      });
    }
  }
}

// The FFT kind (ABI 1.11, cuFFT): tsr_fft's transforms along each dim of
// every layout, C2C both ways, R2C and C2R (lengths 37 and 5: odd, and even
// 1000 / 300 in the large layouts), each norm, n padding and trimming, and
// a 2-d transform; each must run natively (a missing kernel would give the
// CPU fallback's answer unseen).
Tensor fft_of(const Tensor& x, int32_t kind, bool inverse, int32_t norm, std::vector<int64_t> dims,
              std::vector<int64_t> ns) {
  tsr_fft_options o;
  tessera::check(tsr_fft_options_init(&o));
  o.kind = kind;
  o.inverse = inverse ? 1 : 0;
  o.norm = norm;
  o.num_dims = static_cast<int32_t>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    o.dims[i] = dims[i];
    o.n[i] = i < ns.size() ? ns[i] : TSR_FFT_N_DEFAULT;
  }
  return wrapped([&](tsr_tensor** out) { return tsr_fft(x.get(), &o, out); });
}

// An FFT's error is bounded relative to the whole result, not each element
// (Note [Kernel contracts], kind FFT: a 2-norm error of order log2(n)
// ulps): GPU and CPU results agree to 32 ulps times log2 of the longest dim,
// in the 2-norm, after compare's dtype and shape checks.
void compare_fft(const std::string& name, const Tensor& gpu, const Tensor& cpu) {
  if (gpu.dtype() != cpu.dtype() || gpu.shape() != cpu.shape()) return compare(name, gpu, cpu, Match::kExact);
  ++g_cases;
  const tsr_dtype d = cpu.dtype();
  const bool cplx = tsr_dtype_is_complex(d) != 0;
  const size_t es = tsr_dtype_size(d);
  const std::vector<unsigned char> g = bytes_of(gpu), c = bytes_of(cpu);
  double diff = 0, norm = 0;
  for (size_t i = 0; i < g.size() / es; ++i)
    for (int part = 0; part < (cplx ? 2 : 1); ++part) {
      const double x = part == 0 ? tsr_element_to_double(d, &g[i * es]) : tsr_element_imag(d, &g[i * es]);
      const double y = part == 0 ? tsr_element_to_double(d, &c[i * es]) : tsr_element_imag(d, &c[i * es]);
      diff += (x - y) * (x - y);
      norm += y * y;
    }
  int64_t longest = 1;
  for (int64_t s : cpu.shape()) longest = std::max(longest, s);
  const double bound = 32 * eps_of(part_dtype(d)) * (1 + std::log2(static_cast<double>(longest)));
  const double error = std::sqrt(diff / std::max(norm, 1e-300));
  if (!(error <= bound)) {
    ++g_failures;
    std::printf("FAIL %s: relative 2-norm error %g above %g\n", name.c_str(), error, bound);
  } else if (g_verbose) {
    std::printf("ok   %s\n", name.c_str());
  }
}

void fft_ops() {
  for (tsr_op op : {TSR_OP_FFT, TSR_OP_RFFT, TSR_OP_IRFFT})
    for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_COMPLEX64, TSR_COMPLEX128})
      if (cpu_has(op, d) && tsr_runtime_has_kernel(g_rt->get(), g_gpu, op, d) == 0) {
        ++g_cases;
        ++g_failures;
        std::printf("FAIL %s(%s): no CUDA kernel\n", tsr_op_name(op), tsr_dtype_name(d));
      }
  for (tsr_dtype real : {TSR_FLOAT32, TSR_FLOAT64}) {
    const tsr_dtype cplx = static_cast<tsr_dtype>(tsr_dtype_complex(real));
    for (const Layout& l : layouts()) {
      if (l.base.size() < 2 || l.name == "empty") continue;
      for (int64_t dim : {int64_t{0}, int64_t{-1}}) {
        const std::string where = l.name + " dim " + std::to_string(dim);
        for (int32_t norm : {TSR_FFT_NORM_BACKWARD, TSR_FFT_NORM_ORTHO, TSR_FFT_NORM_FORWARD}) {
          const std::string norms = norm == TSR_FFT_NORM_BACKWARD ? "" : norm == TSR_FFT_NORM_ORTHO ? " ortho" : " forward";
          std::string name = label("fft", cplx, where + norms);
          attempt(name, [&] {
            Pair x = complex_input(l, cplx);
            compare_fft(name, fft_of(x.gpu, TSR_FFT_C2C, false, norm, {dim}, {}), fft_of(x.cpu, TSR_FFT_C2C, false, norm, {dim}, {}));
          });
          name = label("ifft", cplx, where + norms + " n 8");
          attempt(name, [&] {
            Pair x = complex_input(l, cplx);
            compare_fft(name, fft_of(x.gpu, TSR_FFT_C2C, true, norm, {dim}, {8}), fft_of(x.cpu, TSR_FFT_C2C, true, norm, {dim}, {8}));
          });
          name = label("rfft", real, where + norms);
          attempt(name, [&] {
            Pair x = input(l, real);
            compare_fft(name, fft_of(x.gpu, TSR_FFT_R2C, false, norm, {dim}, {}), fft_of(x.cpu, TSR_FFT_R2C, false, norm, {dim}, {}));
          });
          for (int64_t n : {int64_t{9}, int64_t{16}}) {
            name = label("irfft", cplx, where + norms + " n " + std::to_string(n));
            attempt(name, [&] {
              Pair x = complex_input(l, cplx);
              compare_fft(name, fft_of(x.gpu, TSR_FFT_C2R, true, norm, {dim}, {n}), fft_of(x.cpu, TSR_FFT_C2R, true, norm, {dim}, {n}));
            });
          }
        }
      }
      const std::string name = label("rfftn", real, l.name + " 2-d");
      attempt(name, [&] {
        Pair x = input(l, real);
        compare_fft(name, fft_of(x.gpu, TSR_FFT_R2C, false, TSR_FFT_NORM_BACKWARD, {0, 1}, {}),
                fft_of(x.cpu, TSR_FFT_R2C, false, TSR_FFT_NORM_BACKWARD, {0, 1}, {}));
      });
    }
  }
}

void errors() {
  const std::string name = "out of memory: a status, the bytes asked and free, and the runtime still works";
  ++g_cases;
  tsr_tensor* t = nullptr;
  const int64_t huge[1] = {int64_t{1} << 46};  // 256 TiB of float32
  const tsr_status st = tsr_empty(g_rt->get(), 1, huge, TSR_FLOAT32, g_gpu, &t);
  const std::string msg = tsr_last_error_message();
  bool ok = st == TSR_ERR_OUT_OF_MEMORY && msg.find("281474976710656") != std::string::npos && msg.find("free") != std::string::npos;
  if (t != nullptr) tsr_tensor_release(t);
  try {
    Tensor x = Tensor::ones(*g_rt, {4}, TSR_FLOAT32, g_gpu);
    ok = ok && (x + x).sum().item_double() == 8.0;
  } catch (const std::exception&) {
    ok = false;
  }
  if (!ok) {
    ++g_failures;
    std::printf("FAIL %s: status %s, message \"%s\"\n", name.c_str(), tsr_status_name(st), msg.c_str());
  } else if (g_verbose) {
    std::printf("ok   %s (%s)\n", name.c_str(), msg.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string config = test_paths::cuda_config;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--quick") g_quick = true;
    else if (a == "--threads") g_threads_only = true;
    else if (a == "--verbose") g_verbose = true;
    else if (a == "--only" && i + 1 < argc) g_only = "," + std::string(argv[++i]) + ",";
    else config = a;
  }
  try {
    Runtime rt(config);
    g_rt = &rt;
    g_cpu = rt.device("cpu");
    // The plugin must have loaded; a GPU may be missing.
    const std::string described = rt.describe(true);
    tsr_device gpu{};
    if (tsr_device_parse(rt.get(), "cuda:0", &gpu) != TSR_OK) {
      std::printf("FAIL: the cuda plugin did not load from %s:\n%s\n", config.c_str(), rt.describe(false).c_str());
      return 1;
    }
    g_gpu = gpu;
    bool present = false;
    for (const tsr_device& d : rt.devices()) present = present || (d.type == gpu.type && d.index == 0);
    if (!present) {
      tsr_tensor* t = nullptr;
      const int64_t one[1] = {1};
      (void)tsr_empty(rt.get(), 1, one, TSR_FLOAT32, gpu, &t);
      std::printf("SKIP: no CUDA device: %s\n", tsr_last_error_message());
      return 77;
    }
    std::printf("cuda.ops on %s%s\n", rt.device_name(gpu).c_str(), g_quick ? " (quick)" : g_threads_only ? " (threads)" : "");
    if (g_threads_only) {
      threads();
      tessera::check(tsr_synchronize(rt.get(), gpu));
      std::printf("cuda.ops: %d cases, %d failed\n", g_cases.load(), g_failures.load());
      return g_failures == 0 ? 0 : 1;
    }
    const std::pair<const char*, void (*)()> groups[] = {
        {"unary", unary_ops},   {"math", math_ops},     {"binary", binary_ops}, {"inplace", inplace_ops}, {"where", where_ops},
        {"reductions", reductions}, {"matmuls", matmuls}, {"factories", factories}, {"index", index_ops}, {"transfers", transfers},
        {"threads", threads},   {"complex", complex_ops},   {"fft", fft_ops},   {"errors", errors}};
    std::string unknown = g_only;  // what --only names that no group is
    for (const auto& [group, run] : groups) {
      const std::string key = "," + std::string(group) + ",";
      if (const size_t at = unknown.find(key); at != std::string::npos) unknown.erase(at, key.size() - 1);
    }
    if (unknown.find_first_not_of(',') != std::string::npos) {
      std::printf("FAIL: --only names an unknown group in '%s'\n", g_only.c_str());
      return 2;
    }
    for (const auto& [group, run] : groups)
      if (g_only.empty() || g_only.find("," + std::string(group) + ",") != std::string::npos) run();
    tessera::check(tsr_synchronize(rt.get(), gpu));
  } catch (const std::exception& e) {
    std::printf("FAIL: %s\n", e.what());
    return 1;
  }
  std::printf("cuda.ops: %d cases, %d failed\n", g_cases.load(), g_failures.load());
  return g_failures == 0 ? 0 : 1;
}
