// SPDX-License-Identifier: Apache-2.0
// cpu_tbb.so on its own: loaded with dlopen and driven through its C entry
// point and kernel table (no runtime). Every kernel runs on contiguous,
// transposed, step-sliced, expanded, 0-d and empty layouts and is compared
// with a float64 reference computed here; bytes outside each output view
// must stay untouched.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <sstream>

#include "../../backends/common/philox.hpp"
#include "cpu_tbb_test_support.hpp"

using namespace cpu_tbb_test;
using L = Layout;
using tessera::backend::Philox4x32;

namespace {

constexpr int kAllDtypes[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT8,   TSR_UINT8, TSR_INT16,
                              TSR_INT32,   TSR_INT64,   TSR_BOOL,    TSR_UINT16,   TSR_UINT32, TSR_UINT64};

// The support matrix the plugin promises (written independently of its own).
// The (op, dtype) pairs cpu_tbb implements, written out independently of
// the op table's DTYPES column (which the plugin's table is derived from).
bool expected_support(int op, int d) {
  static const std::set<int> all = {TSR_OP_FILL, TSR_OP_COPY, TSR_OP_WHERE, TSR_OP_MAXIMUM, TSR_OP_MINIMUM, TSR_OP_EQ,
                                    TSR_OP_NE,   TSR_OP_LT,   TSR_OP_LE,    TSR_OP_GT,      TSR_OP_GE,      TSR_OP_SUM,
                                    TSR_OP_MAX,  TSR_OP_MIN,  TSR_OP_ADD,   TSR_OP_MUL,     TSR_OP_PROD,    TSR_OP_CUMSUM,
                                    TSR_OP_GATHER, TSR_OP_SCATTER, TSR_OP_SORT, TSR_OP_ARGSORT, TSR_OP_NONZERO,
                                    TSR_OP_CUMPROD, TSR_OP_SEARCHSORTED};
  static const std::set<int> floating = {TSR_OP_DIV,  TSR_OP_EXP,  TSR_OP_LOG,          TSR_OP_SQRT,        TSR_OP_SIGMOID,
                                         TSR_OP_TANH, TSR_OP_MEAN, TSR_OP_RAND_UNIFORM, TSR_OP_RAND_NORMAL, TSR_OP_MATH,
                                         TSR_OP_ATAN2, TSR_OP_LOGADDEXP, TSR_OP_VAR, TSR_OP_STD, TSR_OP_GELU,
                                         TSR_OP_GELU_TANH, TSR_OP_SILU};
  static const std::set<int> bits = {TSR_OP_BITWISE_AND, TSR_OP_BITWISE_OR, TSR_OP_BITWISE_XOR};  // integers and bool
  static const std::set<int> shifts = {TSR_OP_SHIFT_LEFT, TSR_OP_SHIFT_RIGHT};                    // integers
  if (tsr_op_kind(op) == TSR_OP_KIND_LINALG) return d == TSR_FLOAT32 || d == TSR_FLOAT64;  // LAPACK's types
  if (op == TSR_OP_RFFT) return d == TSR_FLOAT32 || d == TSR_FLOAT64;  // real input
  if (op == TSR_OP_FFT || op == TSR_OP_IRFFT) return false;            // complex input only
  if (all.count(op)) return true;
  if (floating.count(op)) return is_float(d);
  if (bits.count(op)) return !is_float(d);
  if (shifts.count(op)) return !is_float(d) && d != TSR_BOOL;
  return d != TSR_BOOL;  // SUB, POW, NEG, ABS, RELU, MATMUL, ARGMAX, ARGMIN, ARANGE, LINSPACE, FLOOR_DIVIDE, REMAINDER, CLAMP
}

tsr_scalar fscalar(double v) { return {TSR_SCALAR_FLOAT, 0, v, 0}; }
tsr_scalar iscalar(int64_t v) { return {TSR_SCALAR_INT, 0, static_cast<double>(v), v}; }

tsr_status run_kernel(Plugin& p, int op, int key, Tensor& out, std::vector<Tensor*> ins,
                      std::vector<tsr_scalar> scalars = {}, std::vector<int64_t> params = {}) {
  auto it = p.kernels.find({op, key});
  if (it == p.kernels.end()) FAIL("no kernel for " << tsr_op_name(op) << "(" << tsr_dtype_name(key) << ")");
  std::vector<const tsr_tensor_desc*> descs;
  for (Tensor* t : ins) descs.push_back(&t->desc);
  tsr_kernel_args a{};
  a.struct_size = TSR_KERNEL_ARGS_STRUCT_SIZE;
  a.op = op;
  a.inputs = descs.data();
  a.num_inputs = static_cast<int32_t>(descs.size());
  a.output = &out.desc;
  a.scalars = scalars.data();
  a.num_scalars = static_cast<int32_t>(scalars.size());
  a.params = params.data();
  a.num_params = static_cast<int32_t>(params.size());
  return it->second(p.api->ctx, &a);
}

// Runs a kernel that must succeed.
void run_ok(Plugin& p, int op, int key, Tensor& out, std::vector<Tensor*> ins, std::vector<tsr_scalar> scalars = {},
            std::vector<int64_t> params = {}) {
  const tsr_status s = run_kernel(p, op, key, out, std::move(ins), std::move(scalars), std::move(params));
  INFO(g_last_error);
  REQUIRE(s == TSR_OK);
}

// Compares out (row-major) with `want`; empty when all match and nothing
// outside the view was written, else a description of the first problem.
std::string mismatch(Tensor& out, const std::vector<double>& want, const std::vector<double>& scale = {}) {
  for (int64_t i = 0; i < out.numel(); ++i) {
    const double got = out.get(i);
    if (!close(out.dtype(), got, want[i], scale.empty() ? 0 : scale[i])) {
      std::ostringstream m;
      m.precision(17);
      m << "element " << i << ": got " << got << ", want " << want[i];
      return m.str();
    }
  }
  return out.stray_writes();
}

// Deterministic inputs.
struct Rng {
  uint64_t state;
  uint64_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  }
  double uniform() { return static_cast<double>(next() % 1000000) / 1000000.0; }
  int64_t integer(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }
};

enum class Domain { Any, Positive, PowBase, PowExponent, Quarter };

double gen_value(int dtype, Domain dom, Rng& r) {
  if (dtype == TSR_BOOL) return static_cast<double>(r.integer(0, 1));
  if (!is_float(dtype)) {
    const bool u = tsr_dtype_is_unsigned(dtype);
    switch (dom) {
      case Domain::PowBase: return static_cast<double>(r.integer(u ? 0 : -4, 4));
      case Domain::PowExponent: return static_cast<double>(r.integer(u ? 0 : -2, 5));
      case Domain::Quarter: return static_cast<double>(r.integer(u ? 0 : -3, 3));
      default: return static_cast<double>(r.integer(u ? 0 : -10, 20));
    }
  }
  switch (dom) {
    case Domain::Positive: return 0.05 + 5 * r.uniform();
    case Domain::PowBase: return 0.1 + 3 * r.uniform();
    case Domain::PowExponent: return -2 + 4 * r.uniform();
    case Domain::Quarter: return static_cast<double>(r.integer(-8, 8)) / 4;
    default: {
      const int64_t k = r.integer(0, 39);  // a few specials among ordinary values
      if (k == 0) return std::numeric_limits<double>::quiet_NaN();
      if (k == 1) return std::numeric_limits<double>::infinity();
      if (k == 2) return -std::numeric_limits<double>::infinity();
      if (k == 3) return -0.0;
      return -4 + 8 * r.uniform();
    }
  }
}

Tensor make_filled(int dtype, const std::vector<int64_t>& shape, Layout layout, Domain dom, Rng& r) {
  Tensor t = make_tensor(dtype, shape, layout);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, gen_value(dtype, dom, r));
  return t;
}

// ---- pointwise references ----------------------------------------------------
double int_pow(double base, double exponent) {
  if (exponent < 0) return base == 1 ? 1 : base == -1 ? (static_cast<int64_t>(exponent) % 2 != 0 ? -1 : 1) : 0;
  double r = 1;
  for (int i = 0; i < exponent; ++i) r *= base;
  return r;
}

double ref_binary(int op, int dtype, double a, double b) {
  const bool nan = std::isnan(a) || std::isnan(b);
  switch (op) {
    case TSR_OP_ADD: return a + b;
    case TSR_OP_SUB: return a - b;
    case TSR_OP_MUL: return a * b;
    case TSR_OP_DIV: return a / b;
    case TSR_OP_MAXIMUM: return nan ? NAN : std::max(a, b);
    case TSR_OP_MINIMUM: return nan ? NAN : std::min(a, b);
    case TSR_OP_POW: return is_float(dtype) ? std::pow(a, b) : int_pow(a, b);
    case TSR_OP_EQ: return a == b;
    case TSR_OP_NE: return a != b;
    case TSR_OP_LT: return a < b;
    case TSR_OP_LE: return a <= b;
    case TSR_OP_GT: return a > b;
    default: return a >= b;
  }
}

double ref_unary(int op, double a) {
  switch (op) {
    case TSR_OP_NEG: return -a;
    case TSR_OP_ABS: return std::abs(a);
    case TSR_OP_EXP: return std::exp(a);
    case TSR_OP_LOG: return std::log(a);
    case TSR_OP_SQRT: return std::sqrt(a);
    case TSR_OP_RELU: return a < 0 ? 0 : a;
    case TSR_OP_SIGMOID: return 1 / (1 + std::exp(-a));
    case TSR_OP_GELU: return a * 0.5 * (1 + std::erf(a * M_SQRT1_2));
    case TSR_OP_GELU_TANH: return 0.5 * a * (1 + std::tanh(M_SQRT2 * M_2_SQRTPI * 0.5 * (a + 0.044715 * a * a * a)));
    case TSR_OP_SILU: return a / (1 + std::exp(-a));
    default: return std::tanh(a);
  }
}

struct PointwiseCase {
  std::vector<int64_t> shape;
  Layout out;
  Layout in[3];
};

// Big cases cross the plugin's parallel threshold (32768 elements).
const PointwiseCase kPointwiseCases[] = {
    {{5, 7}, L::Contiguous, {L::Contiguous, L::Contiguous, L::Contiguous}},
    {{5, 7}, L::Contiguous, {L::Transposed, L::Sliced, L::Transposed}},
    {{5, 7}, L::Transposed, {L::Contiguous, L::Transposed, L::Contiguous}},
    {{4, 6}, L::Sliced, {L::Sliced, L::Contiguous, L::Sliced}},
    {{5, 7}, L::Contiguous, {L::Broadcast0, L::BroadcastLast, L::Contiguous}},
    {{5, 7}, L::Sliced, {L::BroadcastLast, L::Broadcast0, L::Broadcast0}},
    {{3, 2, 4, 5}, L::Sliced, {L::Transposed, L::Broadcast0, L::Sliced}},
    {{3, 40, 33}, L::Contiguous, {L::SwapLast, L::Sliced, L::SwapLast}},  // walked in tiles
    {{40, 50}, L::SwapLast, {L::Contiguous, L::Contiguous, L::Broadcast0}},
    {{}, L::Contiguous, {L::Contiguous, L::Contiguous, L::Contiguous}},
    {{0, 3}, L::Contiguous, {L::Contiguous, L::Transposed, L::Contiguous}},
    {{190, 180}, L::Contiguous, {L::Contiguous, L::Broadcast0, L::Contiguous}},
    {{190, 180}, L::Transposed, {L::Contiguous, L::Sliced, L::BroadcastLast}},
};

// The parallel paths are dtype-independent templates: big inputs run for a
// few representative dtypes only, to keep the test fast.
bool skip_big(int dtype, const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n > 30000 && dtype != TSR_FLOAT32 && dtype != TSR_FLOAT16 && dtype != TSR_INT32 && dtype != TSR_BOOL;
}

std::string case_name(const PointwiseCase& c) {
  std::ostringstream s;
  s << "shape [";
  for (size_t i = 0; i < c.shape.size(); ++i) s << (i ? ", " : "") << c.shape[i];
  s << "], out " << layout_name(c.out) << ", inputs " << layout_name(c.in[0]) << " / " << layout_name(c.in[1]);
  return s.str();
}

}  // namespace

TEST_CASE("cpu_tbb: init checks the ABI version and the options") {
  const tsr_plugin_api* api = nullptr;
  tsr_plugin_init_args args{TSR_PLUGIN_INIT_ARGS_STRUCT_SIZE, TSR_MAKE_VERSION(2, 0), 0, host_api(), "{}", "cpu"};
  CHECK(plugin_entry()(&args, &api) == TSR_ERR_VERSION);
  CHECK(g_last_error.find("2.0") != std::string::npos);
  CHECK(g_last_error.find(std::to_string(TSR_ABI_VERSION_MAJOR) + "." + std::to_string(TSR_ABI_VERSION_MINOR)) !=
        std::string::npos);
  CHECK(api == nullptr);

  args.abi_version = TSR_ABI_VERSION;
  for (const char* bad : {"{\"threads\": \"4\"}", "{\"threads\": 2.5}", "{\"threads\": -1}", "{\"threads\": true}",
                          "{\"threads\": }", "not json", "{\"threads\": 3"}) {
    INFO(bad);
    args.options_json = bad;
    g_last_error.clear();
    CHECK(plugin_entry()(&args, &api) == TSR_ERR_CONFIG);
    CHECK(!g_last_error.empty());
  }

  Plugin& p = plugin(2);
  CHECK(p.api->abi_version == TSR_ABI_VERSION);
  CHECK(p.api->device_type == TSR_DEVICE_CPU);
  CHECK(std::string(p.api->device_type_name) == "cpu");
  CHECK(std::string(p.api->plugin_name) == "cpu_tbb");
  CHECK(p.api->device->device_count(p.api->ctx) == 1);
  tsr_device_properties props{};
  props.struct_size = sizeof props;
  REQUIRE(p.api->device->get_properties(p.api->ctx, 0, &props) == TSR_OK);
  CHECK(std::string(props.name) == "CPU (oneTBB, 2 threads)");
  CHECK(props.host_accessible == 1);
  CHECK(props.compute_units == 2);
  CHECK(props.total_memory > (uint64_t{64} << 20));
  CHECK(p.api->device->get_properties(p.api->ctx, 1, &props) == TSR_ERR_INDEX);

  // An older caller's smaller struct: nothing past its struct_size is written.
  tsr_device_properties small;
  std::memset(&small, 0xEE, sizeof small);
  small.struct_size = TSR_STRUCT_SIZE(tsr_device_properties, name);
  REQUIRE(p.api->device->get_properties(p.api->ctx, 0, &small) == TSR_OK);
  CHECK(std::string(small.name) == "CPU (oneTBB, 2 threads)");
  CHECK(small.total_memory == 0xEEEEEEEEEEEEEEEEull);
}

TEST_CASE("cpu_tbb: memory interface allocates aligned blocks and copies") {
  Plugin& p = plugin(2);
  const tsr_device_iface& dev = *p.api->device;
  for (size_t n : {size_t{1}, size_t{100}, size_t{5} << 20}) {
    void* block = nullptr;
    REQUIRE(dev.allocate(p.api->ctx, 0, n, &block) == TSR_OK);
    CHECK(reinterpret_cast<uintptr_t>(block) % (n >= (size_t{4} << 20) ? (size_t{2} << 20) : 64) == 0);
    std::vector<unsigned char> src(n), back(n, 0);
    for (size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
    void* other = nullptr;
    REQUIRE(dev.allocate(p.api->ctx, 0, n, &other) == TSR_OK);
    CHECK(dev.copy_host_to_device(p.api->ctx, 0, block, src.data(), n, nullptr) == TSR_OK);
    CHECK(dev.copy_device_to_device(p.api->ctx, 0, other, 0, block, n, nullptr) == TSR_OK);
    CHECK(dev.copy_device_to_host(p.api->ctx, 0, back.data(), other, n, nullptr) == TSR_OK);
    CHECK(back == src);
    CHECK(dev.synchronize(p.api->ctx, 0) == TSR_OK);
    dev.deallocate(p.api->ctx, 0, block, n);
    dev.deallocate(p.api->ctx, 0, other, n);
  }
  void* block = nullptr;
  CHECK(dev.allocate(p.api->ctx, 3, 64, &block) == TSR_ERR_INDEX);
  CHECK(dev.allocate(p.api->ctx, 0, std::numeric_limits<size_t>::max() / 2, &block) == TSR_ERR_OUT_OF_MEMORY);
  CHECK(g_last_error.find("bytes") != std::string::npos);
}

TEST_CASE("cpu_tbb: the kernel table has exactly the supported (op, dtype) pairs") {
  Plugin& p = plugin();
  std::set<std::pair<int, int>> seen;
  for (size_t i = 0; i < p.api->kernels->count; ++i) {
    const tsr_kernel_entry& e = p.api->kernels->entries[i];
    INFO(tsr_op_name(e.op) << "(" << tsr_dtype_name(e.dtype) << ")");
    CHECK(e.fn != nullptr);
    CHECK(seen.insert({e.op, e.dtype}).second);  // no duplicates
  }
  for (int op = 0; op < TSR_OP_COUNT; ++op) {
    for (int d : kAllDtypes) {
      INFO(tsr_op_name(op) << "(" << tsr_dtype_name(d) << ")");
      CHECK(seen.count({op, d}) == (expected_support(op, d) ? 1u : 0u));
    }
  }
}

TEST_CASE("cpu_tbb: a kernel called with bad arguments says what is wrong and writes nothing") {
  Plugin& p = plugin();
  const tsr_kernel_fn add = p.kernels.at({TSR_OP_ADD, TSR_FLOAT32});
  float a_data[6] = {1, 2, 3, 4, 5, 6}, b_data[6] = {1, 1, 1, 1, 1, 1}, out_data[6] = {-7, -7, -7, -7, -7, -7};
  auto desc = [](float* data) {
    tsr_tensor_desc d{};
    d.struct_size = TSR_TENSOR_DESC_STRUCT_SIZE;
    d.data = data;
    d.ndim = 2;
    d.shape[0] = 2;
    d.shape[1] = 3;
    d.strides[0] = 3;
    d.strides[1] = 1;
    d.dtype = TSR_FLOAT32;
    d.device = tsr_device{TSR_DEVICE_CPU, 0};
    return d;
  };
  struct Case {
    const char* name;
    std::function<void(tsr_kernel_args&, tsr_tensor_desc&, tsr_tensor_desc&, tsr_tensor_desc&)> spoil;
    tsr_status status;
    const char* message;
  };
  const Case cases[] = {
      {"args struct too small", [](auto& k, auto&, auto&, auto&) { k.struct_size = 8; }, TSR_ERR_INVALID_ARGUMENT,
       "add(float32): kernel args struct too small"},
      {"device 1", [](auto& k, auto&, auto&, auto&) { k.device_index = 1; }, TSR_ERR_INDEX, "add(float32): no device 1"},
      {"one input", [](auto& k, auto&, auto&, auto&) { k.num_inputs = 1; }, TSR_ERR_INVALID_ARGUMENT,
       "add(float32): expects 2 inputs, got 1"},
      {"NULL inputs", [](auto& k, auto&, auto&, auto&) { k.inputs = nullptr; }, TSR_ERR_INVALID_ARGUMENT,
       "add(float32): expects 2 inputs, got 2"},
      {"NULL output", [](auto& k, auto&, auto&, auto&) { k.output = nullptr; }, TSR_ERR_INVALID_ARGUMENT,
       "add(float32): output is NULL"},
      {"descriptor too small", [](auto&, auto& o, auto&, auto&) { o.struct_size = 16; }, TSR_ERR_INVALID_ARGUMENT,
       "add(float32): output: descriptor too small"},
      {"ndim too large", [](auto&, auto&, auto& x, auto&) { x.ndim = TSR_MAX_DIMS + 1; }, TSR_ERR_INVALID_ARGUMENT, "add(float32): input: ndim 17 out of range"},
      {"unknown dtype", [](auto&, auto&, auto&, auto& y) { y.dtype = 42; }, TSR_ERR_TYPE, "add(float32): input: unknown dtype 42"},
      {"negative size", [](auto&, auto& o, auto&, auto&) { o.shape[1] = -3; }, TSR_ERR_INVALID_ARGUMENT,
       "add(float32): output: negative size"},
      {"negative stride", [](auto&, auto&, auto& x, auto&) { x.strides[0] = -3; }, TSR_ERR_INVALID_ARGUMENT,
       "add(float32): input: negative stride"},
      {"negative offset", [](auto&, auto&, auto&, auto& y) { y.offset = -1; }, TSR_ERR_INVALID_ARGUMENT,
       "add(float32): input: negative offset"},
      {"NULL data", [](auto&, auto& o, auto&, auto&) { o.data = nullptr; }, TSR_ERR_INVALID_ARGUMENT,
       "add(float32): output: NULL data"},
      {"wrong input dtype", [](auto&, auto&, auto& x, auto&) { x.dtype = TSR_FLOAT64; }, TSR_ERR_TYPE,
       "add(float32): input 0 is float64, expected float32"},
      {"wrong shape", [](auto&, auto&, auto&, auto& y) { y.shape[0] = 1; }, TSR_ERR_SHAPE,
       "add(float32): input 1 does not have the output's shape"},
  };
  // out = inputs[0] + inputs[1]
  auto args = [](tsr_tensor_desc& out, const tsr_tensor_desc** inputs) {
    tsr_kernel_args k{};
    k.struct_size = TSR_KERNEL_ARGS_STRUCT_SIZE;
    k.op = TSR_OP_ADD;
    k.output = &out;
    k.inputs = inputs;
    k.num_inputs = 2;
    return k;
  };
  for (const Case& c : cases) {
    INFO(c.name);
    tsr_tensor_desc out = desc(out_data), x = desc(a_data), y = desc(b_data);
    const tsr_tensor_desc* inputs[2] = {&x, &y};
    tsr_kernel_args k = args(out, inputs);
    c.spoil(k, out, x, y);
    g_last_error.clear();
    CHECK(add(p.api->ctx, &k) == c.status);
    CHECK_THAT(g_last_error, Catch::Contains(c.message));
    for (float v : out_data) CHECK(v == -7);
  }
  // An empty tensor needs no data.
  tsr_tensor_desc out = desc(nullptr), x = desc(nullptr), y = desc(nullptr);
  out.shape[0] = x.shape[0] = y.shape[0] = 0;
  const tsr_tensor_desc* inputs[2] = {&x, &y};
  tsr_kernel_args k = args(out, inputs);
  CHECK(add(p.api->ctx, &k) == TSR_OK);
}

TEST_CASE("cpu_tbb: binary ops and comparisons match float64 on every layout") {
  const int ops[] = {TSR_OP_ADD, TSR_OP_SUB, TSR_OP_MUL, TSR_OP_DIV, TSR_OP_MAXIMUM, TSR_OP_MINIMUM, TSR_OP_POW,
                     TSR_OP_EQ,  TSR_OP_NE,  TSR_OP_LT,  TSR_OP_LE,  TSR_OP_GT,      TSR_OP_GE};
  Rng rng{1};
  for (int op : ops) {
    for (int d : kAllDtypes) {
      if (!expected_support(op, d)) continue;
      const bool cmp = tsr_op_kind(op) == TSR_OP_KIND_COMPARE;
      const int out_dtype = cmp ? TSR_BOOL : d;
      for (const PointwiseCase& c : kPointwiseCases) {
        if (skip_big(d, c.shape)) continue;
        INFO(tsr_op_name(op) << "(" << tsr_dtype_name(d) << ") " << case_name(c));
        const bool pow = op == TSR_OP_POW;
        Tensor a = make_filled(d, c.shape, c.in[0], pow ? Domain::PowBase : Domain::Any, rng);
        Tensor b = make_filled(d, c.shape, c.in[1], pow ? Domain::PowExponent : Domain::Any, rng);
        Tensor out = make_tensor(out_dtype, c.shape, c.out);
        run_ok(plugin(), op, d, out, {&a, &b});
        std::vector<double> want(static_cast<size_t>(out.numel()));
        for (int64_t i = 0; i < out.numel(); ++i) want[i] = round_to(out_dtype, ref_binary(op, d, a.get(i), b.get(i)));
        CHECK(mismatch(out, want) == "");
      }
    }
  }
}

TEST_CASE("cpu_tbb: unary ops, fill and where match float64 on every layout") {
  const int ops[] = {TSR_OP_NEG,     TSR_OP_ABS,  TSR_OP_EXP,  TSR_OP_LOG,       TSR_OP_SQRT, TSR_OP_RELU,
                     TSR_OP_SIGMOID, TSR_OP_TANH, TSR_OP_GELU, TSR_OP_GELU_TANH, TSR_OP_SILU};
  Rng rng{2};
  for (int d : kAllDtypes) {
    for (const PointwiseCase& c : kPointwiseCases) {
      if (skip_big(d, c.shape)) continue;
      INFO(tsr_dtype_name(d) << " " << case_name(c));
      for (int op : ops) {
        if (!expected_support(op, d)) continue;
        INFO(tsr_op_name(op));
        const bool positive = op == TSR_OP_LOG || op == TSR_OP_SQRT;
        Tensor a = make_filled(d, c.shape, c.in[0], positive ? Domain::Positive : Domain::Any, rng);
        Tensor out = make_tensor(d, c.shape, c.out);
        run_ok(plugin(), op, d, out, {&a});
        std::vector<double> want(static_cast<size_t>(out.numel()));
        for (int64_t i = 0; i < out.numel(); ++i) want[i] = round_to(d, ref_unary(op, a.get(i)));
        CHECK(mismatch(out, want) == "");
      }
      for (const tsr_scalar& s : {fscalar(2.75), iscalar(-3), tsr_scalar{TSR_SCALAR_BOOL, 0, 1.0, 1}}) {
        Tensor out = make_tensor(d, c.shape, c.out);
        run_ok(plugin(), TSR_OP_FILL, d, out, {}, {s});
        const double v = s.kind == TSR_SCALAR_FLOAT ? s.f : static_cast<double>(s.i);
        CHECK(mismatch(out, std::vector<double>(static_cast<size_t>(out.numel()), round_to(d, v))) == "");
      }
      Tensor cond = make_filled(TSR_BOOL, c.shape, c.in[2], Domain::Any, rng);
      Tensor x = make_filled(d, c.shape, c.in[0], Domain::Any, rng);
      Tensor y = make_filled(d, c.shape, c.in[1], Domain::Any, rng);
      Tensor out = make_tensor(d, c.shape, c.out);
      run_ok(plugin(), TSR_OP_WHERE, d, out, {&cond, &x, &y});
      std::vector<double> want(static_cast<size_t>(out.numel()));
      for (int64_t i = 0; i < out.numel(); ++i) want[i] = cond.get(i) != 0 ? x.get(i) : y.get(i);
      CHECK(mismatch(out, want) == "");
    }
  }
}

TEST_CASE("cpu_tbb: copy casts between every pair of dtypes on every layout") {
  Rng rng{3};
  for (int from : kAllDtypes) {
    for (int to : kAllDtypes) {
      for (const PointwiseCase& c : kPointwiseCases) {
        if (skip_big(from, c.shape) || skip_big(to, c.shape)) continue;
        INFO(tsr_dtype_name(from) << " -> " << tsr_dtype_name(to) << " " << case_name(c));
        Tensor in = make_filled(from, c.shape, c.in[0], Domain::Any, rng);
        Tensor out = make_tensor(to, c.shape, c.out);
        run_ok(plugin(), TSR_OP_COPY, to, out, {&in});
        std::vector<double> want(static_cast<size_t>(out.numel()));
        for (int64_t i = 0; i < out.numel(); ++i) {
          const double v = in.get(i);
          // float -> int truncates; only NaN / inf stay out of this comparison (checked below).
          want[i] = !is_float(to) && to != TSR_BOOL ? (std::isfinite(v) ? round_to(to, std::trunc(v)) : out.get(i))
                                                    : round_to(to, v);
        }
        CHECK(mismatch(out, want) == "");
      }
    }
  }
}

TEST_CASE("cpu_tbb: casts out of range and to narrow floats follow PyTorch") {
  struct Cast {
    int from, to;
    std::vector<double> in, want;  // want: printed by torch 1.13
  };
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const Cast casts[] = {
      {TSR_FLOAT32, TSR_UINT8, {-1.0, 300.0, -129.7, 1e10, nan}, {255, 44, 127, 0, 0}},
      {TSR_FLOAT32, TSR_INT8, {-1.0, 300.0, -129.7, 1e10, nan}, {-1, 44, 127, 0, 0}},
      {TSR_FLOAT32, TSR_INT16, {-1.0, 70000.0, -129.7, 1e10, nan}, {-1, 4464, -129, 0, 0}},
      {TSR_FLOAT32, TSR_INT32, {-1.0, 70000.0, -129.7, 1e10, nan}, {-1, 70000, -129, -2147483648.0, -2147483648.0}},
      {TSR_FLOAT32, TSR_INT64, {-1.0, 70000.0, -129.7, 1e20, nan}, {-1, 70000, -129, -9223372036854775808.0, -9223372036854775808.0}},
      {TSR_FLOAT32, TSR_BOOL, {nan, 0.0, -0.0, 0.1}, {1, 0, 0, 1}},
      // The unsigned dtypes PyTorch lacks: Note [Casts] (through int64 then wrap; uint64 exact from 2^63).
      {TSR_FLOAT32, TSR_UINT16, {-1.0, 70000.0, -129.7, 1e10, nan}, {65535, 4464, 65407, 58368, 0}},
      {TSR_FLOAT32, TSR_UINT32, {-1.0, 70000.0, -129.7, 1e10, nan}, {4294967295.0, 70000, 4294967167.0, 1410065408, 0}},
      {TSR_FLOAT64, TSR_UINT64, {-1.0, 0x1p63 + 2048, -129.7, 1e20, nan}, {0x1p64, 0x1p63 + 2048, 0x1p64, 0, 0x1p63}},
      {TSR_FLOAT64, TSR_FLOAT16, {1.5, -1.5, 2.5, 1e-8, 65519., 65520., 3.4e38, -7.0e4, inf}, {1.5, -1.5, 2.5, 0.0, 65504.0, inf, inf, -inf, inf}},
      {TSR_FLOAT64, TSR_BFLOAT16, {1.00390625, 1.01171875, 3.4e38, -1e39, 1e-40}, {1.0, 1.015625, inf, -inf, 9.183549615799121e-41}},
  };
  for (const Cast& c : casts) {
    INFO(tsr_dtype_name(c.from) << " -> " << tsr_dtype_name(c.to));
    const int64_t n = static_cast<int64_t>(c.in.size());
    Tensor in = make_tensor(c.from, {n}, L::Contiguous);
    for (int64_t i = 0; i < n; ++i) in.set(i, c.in[i]);
    Tensor out = make_tensor(c.to, {n}, L::Sliced);
    run_ok(plugin(), TSR_OP_COPY, c.to, out, {&in});
    for (int64_t i = 0; i < n; ++i) CHECK(out.get(i) == c.want[i]);
    CHECK(out.stray_writes() == "");
  }
}

namespace {

// Reference reduction: out has the input's ndim with size 1 on reduced dims.
// argmax_flat: positions are row-major over all reduced dims.
std::vector<double> ref_reduce(int op, Tensor& in, const std::vector<bool>& reduced, std::vector<double>* scale) {
  const int n = static_cast<int>(in.shape.size());
  std::vector<int64_t> out_shape = in.shape;
  for (int d = 0; d < n; ++d)
    if (reduced[d]) out_shape[d] = 1;
  int64_t n_out = 1, count = 1;
  for (int d = 0; d < n; ++d) n_out *= out_shape[d], count *= reduced[d] ? in.shape[d] : 1;
  std::vector<double> acc(static_cast<size_t>(n_out), 0), best_index(static_cast<size_t>(n_out), -1), abs_sum(static_cast<size_t>(n_out), 0);
  for (int64_t i = 0; i < in.numel(); ++i) {
    int64_t rest = i, o = 0, ostride = 1, pos = 0, pstride = 1;
    for (int d = n - 1; d >= 0; --d) {
      const int64_t idx = rest % in.shape[d];
      rest /= in.shape[d];
      if (reduced[d]) {
        pos += idx * pstride, pstride *= in.shape[d];
      } else {
        o += idx * ostride;
      }
      ostride *= out_shape[d];
    }
    const double v = in.get(i);
    abs_sum[o] += std::abs(v);
    if (op == TSR_OP_SUM || op == TSR_OP_MEAN) {
      acc[o] += v;
    } else if (best_index[o] < 0 || std::isnan(acc[o])) {
      if (best_index[o] < 0) acc[o] = v, best_index[o] = static_cast<double>(pos);
    } else {
      const bool better = op == TSR_OP_MIN ? (v < acc[o] || std::isnan(v)) : (v > acc[o] || std::isnan(v));
      if (better) acc[o] = v, best_index[o] = static_cast<double>(pos);
    }
  }
  if (scale != nullptr) *scale = abs_sum;
  if (op == TSR_OP_MEAN)
    for (double& a : acc) a /= static_cast<double>(count);
  if (op == TSR_OP_MEAN && scale != nullptr)
    for (double& s : *scale) s /= static_cast<double>(count);
  return op == TSR_OP_ARGMAX ? best_index : acc;
}

int reduce_out_dtype(int op, int d) {
  if (op == TSR_OP_ARGMAX) return TSR_INT64;
  if (op == TSR_OP_SUM && !is_float(d)) return d == TSR_UINT16 || d == TSR_UINT32 || d == TSR_UINT64 ? TSR_UINT64 : TSR_INT64;
  return d;
}

struct ReduceCase {
  std::vector<int64_t> shape;
  Layout in;
  std::vector<int> dims;
  Layout out = L::Contiguous;
};

}  // namespace

TEST_CASE("cpu_tbb: reductions match float64 on every layout") {
  std::vector<ReduceCase> cases;
  for (Layout l : {L::Contiguous, L::Transposed, L::Sliced, L::Broadcast0})
    for (std::vector<int> dims : std::vector<std::vector<int>>{{0}, {1}, {2}, {0, 2}, {0, 1, 2}, {}})
      cases.push_back({{4, 5, 6}, l, dims});
  cases.push_back({{4, 5, 6}, L::Contiguous, {1}, L::Transposed});
  cases.push_back({{4, 5, 6}, L::Sliced, {0, 2}, L::Sliced});
  cases.push_back({{4, 1, 6}, L::Contiguous, {1}});
  cases.push_back({{40, 3}, L::Contiguous, {0}});
  cases.push_back({{6, 20}, L::Contiguous, {0}, L::Sliced});           // column path, strided output
  cases.push_back({{3, 4, 10}, L::Contiguous, {0, 1}, L::Transposed});
  cases.push_back({{10, 9}, L::Transposed, {1}, L::Sliced});
  cases.push_back({{}, L::Contiguous, {}});
  cases.push_back({{3, 0}, L::Contiguous, {0}});  // empty output
  const std::vector<ReduceCase> big = {
      {{3, 70000}, L::Contiguous, {1}},       // rows, blocked
      {{3, 70000}, L::Contiguous, {0}},       // columns
      {{70000, 3}, L::Contiguous, {0}},       // few columns: strided rows, blocked
      {{200, 400}, L::Transposed, {0, 1}},    // full, strided
      {{100000}, L::Contiguous, {0}},         // full, contiguous, parallel blocks
      {{20, 3000}, L::Sliced, {0}},           // columns, strided
  };
  const int ops[] = {TSR_OP_SUM, TSR_OP_MEAN, TSR_OP_MAX, TSR_OP_MIN};
  Rng rng{4};
  for (int op : ops) {
    for (int d : kAllDtypes) {
      if (!expected_support(op, d)) continue;
      auto run_case = [&](const ReduceCase& c, Domain dom) {
        std::ostringstream name;
        name << tsr_op_name(op) << "(" << tsr_dtype_name(d) << ") input " << layout_name(c.in) << " of " << c.shape.size()
             << " dims, reducing " << c.dims.size() << " dims, first " << (c.dims.empty() ? -1 : c.dims[0]) << ", shape[0] "
             << (c.shape.empty() ? 0 : c.shape[0]);
        INFO(name.str());
        Tensor in = make_filled(d, c.shape, c.in, dom, rng);
        std::vector<bool> reduced(c.shape.size(), false);
        std::vector<int64_t> out_shape = c.shape;
        for (int dim : c.dims) reduced[dim] = true, out_shape[dim] = 1;
        Tensor out = make_tensor(reduce_out_dtype(op, d), out_shape, c.out);
        run_ok(plugin(), op, d, out, {&in});
        std::vector<double> scale;
        std::vector<double> want = ref_reduce(op, in, reduced, &scale);
        for (double& w : want) w = round_to(out.dtype(), w);
        CHECK(mismatch(out, want, scale) == "");
      };
      for (const ReduceCase& c : cases) run_case(c, Domain::Any);
      // Big sums without NaN / inf, which would hide everything else.
      const bool big_too = d == TSR_FLOAT32 || (op == TSR_OP_SUM && !skip_big(d, {1 << 20})) ||
                           (op != TSR_OP_MEAN && d == TSR_INT32);
      if (big_too)
        for (const ReduceCase& c : big) run_case(c, Domain::PowExponent);
    }
  }
}

namespace {

// VAR (or STD) of `in` over the reduced dims in float64, two passes per output.
std::vector<double> ref_variance(bool root, Tensor& in, const std::vector<bool>& reduced, double correction) {
  std::vector<double> mean = ref_reduce(TSR_OP_MEAN, in, reduced, nullptr);
  const int n = static_cast<int>(in.shape.size());
  int64_t count = 1;
  for (int d = 0; d < n; ++d) count *= reduced[d] ? in.shape[d] : 1;
  std::vector<double> m2(mean.size(), 0);
  for (int64_t i = 0; i < in.numel(); ++i) {
    int64_t rest = i, o = 0, ostride = 1;
    for (int d = n - 1; d >= 0; --d) {
      const int64_t idx = rest % in.shape[d];
      rest /= in.shape[d];
      if (!reduced[d]) o += idx * ostride, ostride *= in.shape[d];
    }
    const double dev = in.get(i) - mean[static_cast<size_t>(o)];
    m2[static_cast<size_t>(o)] += dev * dev;
  }
  for (double& v : m2) {
    v /= std::max(0.0, static_cast<double>(count) - correction);
    if (root) v = std::sqrt(v);
  }
  return m2;
}

}  // namespace

// Note [One-pass variance] (reduce.cpp): every path of the reducer, against
// float64's two passes, including data far from zero (1e4 + x: one pass of
// sums of squares would lose the variance to cancellation in float32).
TEST_CASE("cpu_tbb: var and std match float64's two passes on every path") {
  std::vector<ReduceCase> cases;
  for (Layout l : {L::Contiguous, L::Transposed, L::Sliced, L::Broadcast0})
    for (std::vector<int> dims : std::vector<std::vector<int>>{{0}, {1}, {2}, {0, 2}, {0, 1, 2}, {}})
      cases.push_back({{4, 5, 6}, l, dims});
  cases.push_back({{6, 20}, L::Contiguous, {0}, L::Sliced});  // column path, strided output
  cases.push_back({{}, L::Contiguous, {}});                    // one element
  cases.push_back({{3, 0}, L::Contiguous, {0}});               // empty output
  cases.push_back({{3, 70000}, L::Contiguous, {1}});           // rows, blocked: runs merged
  cases.push_back({{3, 70000}, L::Contiguous, {0}});           // columns, shifted sums
  cases.push_back({{70000, 3}, L::Contiguous, {0}});           // few columns: strided rows, blocked
  cases.push_back({{200, 400}, L::Transposed, {0, 1}});        // full, strided
  cases.push_back({{100000}, L::Contiguous, {0}});             // full, contiguous, parallel blocks
  cases.push_back({{1000, 7}, L::Contiguous, {0, 1}});         // full over short runs
  Rng rng{11};
  for (int op : {TSR_OP_VAR, TSR_OP_STD})
    for (int d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16})
      for (double correction : {1.0, 0.0, 2.5})
        for (double offset : {0.0, 1e4}) {
          if (offset != 0 && (d == TSR_FLOAT16 || d == TSR_BFLOAT16)) continue;  // 1e4 + x is not x there
          for (const ReduceCase& c : cases) {
            const bool big = c.shape.size() >= 1 && c.shape.size() <= 2 && (c.shape[0] * (c.shape.size() == 2 ? c.shape[1] : 1)) > 1000;
            if (big && d != TSR_FLOAT32 && d != TSR_FLOAT64) continue;
            INFO(tsr_op_name(op) << "(" << tsr_dtype_name(d) << ") correction " << correction << " offset " << offset
                                 << ", input " << layout_name(c.in) << " shape[0] " << (c.shape.empty() ? 0 : c.shape[0])
                                 << ", reducing " << c.dims.size() << " dims, first " << (c.dims.empty() ? -1 : c.dims[0]));
            Tensor in = make_tensor(d, c.shape, c.in);
            for (int64_t i = 0; i < in.numel(); ++i) in.set(i, offset + gen_value(d, Domain::Any, rng));
            std::vector<bool> reduced(c.shape.size(), false);
            std::vector<int64_t> out_shape = c.shape;
            for (int dim : c.dims) reduced[dim] = true, out_shape[dim] = 1;
            Tensor out = make_tensor(d, out_shape, c.out);
            run_ok(plugin(), op, d, out, {&in}, {fscalar(correction)});
            std::vector<double> want = ref_variance(op == TSR_OP_STD, in, reduced, correction);
            for (double& w : want) w = round_to(d, w);
            CHECK(mismatch(out, want) == "");
          }
        }
  // A count not above the correction: inf (m2 > 0) or NaN (0 / 0), as PyTorch's.
  Tensor two = make_tensor(TSR_FLOAT32, {2}, L::Contiguous);
  two.set(0, 1.0);
  two.set(1, 3.0);
  Tensor out = make_tensor(TSR_FLOAT32, {1}, L::Contiguous);
  run_ok(plugin(), TSR_OP_VAR, TSR_FLOAT32, out, {&two}, {fscalar(2)});
  CHECK(std::isinf(out.get(0)));
  Tensor none = make_tensor(TSR_FLOAT32, {0}, L::Contiguous);
  run_ok(plugin(), TSR_OP_STD, TSR_FLOAT32, out, {&none}, {fscalar(1)});
  CHECK(std::isnan(out.get(0)));
}

TEST_CASE("cpu_tbb: reductions over zero elements") {
  Tensor in = make_tensor(TSR_FLOAT32, {0, 3}, L::Contiguous);
  Tensor out = make_tensor(TSR_FLOAT32, {1, 3}, L::Sliced);
  run_ok(plugin(), TSR_OP_SUM, TSR_FLOAT32, out, {&in});
  CHECK(mismatch(out, {0, 0, 0}) == "");
  run_ok(plugin(), TSR_OP_MEAN, TSR_FLOAT32, out, {&in});
  CHECK(mismatch(out, {NAN, NAN, NAN}) == "");
  Tensor iin = make_tensor(TSR_INT8, {0, 3}, L::Contiguous);
  Tensor iout = make_tensor(TSR_INT64, {1, 3}, L::Contiguous);
  run_ok(plugin(), TSR_OP_SUM, TSR_INT8, iout, {&iin});
  CHECK(mismatch(iout, {0, 0, 0}) == "");
  for (int op : {TSR_OP_MAX, TSR_OP_MIN}) {
    CHECK(run_kernel(plugin(), op, TSR_FLOAT32, out, {&in}) == TSR_ERR_INVALID_ARGUMENT);
    CHECK(g_last_error.find("zero elements") != std::string::npos);
  }
  Tensor aout = make_tensor(TSR_INT64, {1, 3}, L::Contiguous);
  CHECK(run_kernel(plugin(), TSR_OP_ARGMAX, TSR_FLOAT32, aout, {&in}, {}, {0, 0}) == TSR_ERR_INVALID_ARGUMENT);
}

TEST_CASE("cpu_tbb: argmax along one dim and over all dims") {
  Rng rng{5};
  for (int d : kAllDtypes) {
    if (!expected_support(TSR_OP_ARGMAX, d)) continue;
    for (Layout l : {L::Contiguous, L::Transposed, L::Sliced, L::Broadcast0}) {
      for (std::vector<int64_t> shape : std::vector<std::vector<int64_t>>{{4, 5, 6}, {3, 70000}}) {
        if (skip_big(d, shape) || (shape[0] == 3 && l != L::Contiguous && l != L::Transposed)) continue;
        INFO(tsr_dtype_name(d) << " " << layout_name(l) << " shape[1] " << shape[1]);
        Tensor in = make_filled(d, shape, l, Domain::Any, rng);  // small ints: many ties; floats: some NaN
        const int n = static_cast<int>(shape.size());
        for (int dim = -1; dim < n; ++dim) {  // -1: all dims, params[0] = 1
          INFO("dim " << dim);
          std::vector<bool> reduced(shape.size(), dim < 0);
          std::vector<int64_t> out_shape = shape;
          if (dim >= 0) reduced[dim] = true, out_shape[dim] = 1;
          Tensor out = make_tensor(TSR_INT64, dim < 0 ? std::vector<int64_t>{} : out_shape, L::Contiguous);
          run_ok(plugin(), TSR_OP_ARGMAX, d, out, {&in}, {}, {dim < 0 ? 1 : 0, dim < 0 ? 0 : dim});
          CHECK(mismatch(out, ref_reduce(TSR_OP_ARGMAX, in, reduced, nullptr)) == "");
        }
      }
    }
  }
  // Ties pick the first; the first NaN wins; all-ones output for a full argmax.
  Tensor x = make_tensor(TSR_FLOAT32, {2, 4}, L::Contiguous);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double values[] = {1, 7, 7, 2, 3, nan, 9, nan};
  for (int i = 0; i < 8; ++i) x.set(i, values[i]);
  Tensor all = make_tensor(TSR_INT64, {1, 1}, L::Contiguous);
  run_ok(plugin(), TSR_OP_ARGMAX, TSR_FLOAT32, all, {&x}, {}, {1, 0});
  CHECK(all.get(0) == 5);
  Tensor rows = make_tensor(TSR_INT64, {2, 1}, L::Contiguous);
  run_ok(plugin(), TSR_OP_ARGMAX, TSR_FLOAT32, rows, {&x}, {}, {0, 1});
  CHECK(rows.get(0) == 1);
  CHECK(rows.get(1) == 1);
  Tensor scalar = make_tensor(TSR_INT32, {}, L::Contiguous), zero = make_tensor(TSR_INT64, {}, L::Contiguous);
  scalar.set(0, 5);
  run_ok(plugin(), TSR_OP_ARGMAX, TSR_INT32, zero, {&scalar}, {}, {0, 0});  // argmax(0-d, dim=0) = 0
  CHECK(zero.get(0) == 0);
  Tensor m = make_tensor(TSR_FLOAT32, {2, 1}, L::Contiguous);
  run_ok(plugin(), TSR_OP_MAX, TSR_FLOAT32, m, {&x});
  CHECK(m.get(0) == 7);
  CHECK(std::isnan(m.get(1)));
}

// Lines of 2048 elements and more are radix sorted (Note [Radix sort]), one
// long line in parallel chunks; shorter ones compare. The reference is
// std::stable_sort with the contract's order: NaN above everything, -0 and
// +0 equal, descending stable keeping ascending positions among ties.
TEST_CASE("cpu_tbb: sort, argsort and nonzero on long lines match std::stable_sort") {
  Rng rng{11};
  struct Case {
    std::vector<int64_t> shape;
    Layout layout;
    int dim;
    int64_t narrow_from = 0;  // integers: 1000 values from here (100 for one byte); 0: wide
  };
  // The narrow cases' keys share their high bits, so SORT counts them.
  const Case cases[] = {{{3, 2047}, L::Contiguous, 1},     {{3, 5000}, L::Contiguous, 1},
                        {{4100, 2}, L::Transposed, 0},     {{1, 140000}, L::Contiguous, 1},
                        {{3, 5000}, L::Contiguous, 1, -1500}, {{1, 300000}, L::Contiguous, 1, 7}};
  for (int d : kAllDtypes) {
    for (const Case& c : cases) {
      if (skip_big(d, c.shape)) continue;
      Tensor in = make_tensor(d, c.shape, c.layout);
      for (int64_t i = 0; i < in.numel(); ++i) {
        // Wide integers, so that every digit pass runs (narrow ones: counted);
        // floats with specials.
        double v = gen_value(d, Domain::Any, rng);
        if (!is_float(d) && d != TSR_BOOL && c.narrow_from != 0) {
          const bool byte = tsr_dtype_size(d) == 1;
          const double lo = tsr_dtype_is_unsigned(d) ? 7 : byte ? -120 : static_cast<double>(c.narrow_from);
          v = std::floor(lo + (byte ? 100 : 1000) * rng.uniform());
        } else if (!is_float(d) && d != TSR_BOOL) {
          const double span = tsr_dtype_size(d) >= 4 ? 2e9 : tsr_dtype_size(d) == 2 ? 30000 : 120;
          const double lo = tsr_dtype_is_unsigned(d) ? 0 : -span;
          v = std::floor(lo + (span - lo) * rng.uniform());
        }
        in.set(i, v);
      }
      const int64_t lines = in.numel() / c.shape[c.dim], n = c.shape[c.dim];
      const int64_t stride = c.dim == 1 ? 1 : c.shape[1];  // row-major stride of the dim
      for (int descending = 0; descending < 2; ++descending) {
        INFO(tsr_dtype_name(d) << " shape [" << c.shape[0] << ", " << c.shape[1] << "] dim " << c.dim
                               << (descending ? " descending" : ""));
        Tensor values = make_tensor(d, c.shape, L::Contiguous);
        Tensor order = make_tensor(TSR_INT64, c.shape, L::Contiguous);
        run_ok(plugin(), TSR_OP_SORT, d, values, {&in}, {}, {c.dim, descending});
        run_ok(plugin(), TSR_OP_ARGSORT, d, order, {&in}, {}, {c.dim, descending, 1});
        std::vector<double> want_values(static_cast<size_t>(in.numel())), want_order(want_values.size());
        for (int64_t l = 0; l < lines; ++l) {
          const int64_t base = c.dim == 1 ? l * n : l;  // the line's first row-major index
          std::vector<int64_t> idx(static_cast<size_t>(n));
          std::vector<double> key(static_cast<size_t>(n));
          for (int64_t j = 0; j < n; ++j) idx[j] = j, key[j] = in.get(base + j * stride);
          // rank: NaN largest; -0 == +0 falls out of ==.
          auto less = [&](int64_t a, int64_t b) {
            const double x = key[a], y = key[b];
            if (std::isnan(x)) return false;
            if (std::isnan(y)) return true;
            return x < y;
          };
          if (descending) std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return less(b, a); });
          else std::stable_sort(idx.begin(), idx.end(), less);
          for (int64_t j = 0; j < n; ++j) {
            want_order[base + j * stride] = static_cast<double>(idx[j]);
            want_values[base + j * stride] = key[idx[j]];
          }
        }
        CHECK(mismatch(values, want_values) == "");
        CHECK(mismatch(order, want_order) == "");
      }
      // NONZERO over the same input: rows in row-major order.
      if (c.layout == L::Contiguous || d == TSR_BOOL) {
        std::vector<double> rows;
        for (int64_t i = 0; i < in.numel(); ++i)
          if (in.get(i) != 0) rows.push_back(static_cast<double>(i / c.shape[1])), rows.push_back(static_cast<double>(i % c.shape[1]));
        Tensor out = make_tensor(TSR_INT64, {static_cast<int64_t>(rows.size() / 2), 2}, L::Contiguous);
        INFO("nonzero of " << tsr_dtype_name(d) << " " << layout_name(c.layout));
        run_ok(plugin(), TSR_OP_NONZERO, d, out, {&in});
        CHECK(mismatch(out, rows) == "");
      }
    }
  }
}

TEST_CASE("cpu_tbb: matmul on every layout, batched and broadcast") {
  struct MatmulCase {
    std::vector<int64_t> a, b;
    Layout la, lb, lo;
  };
  const MatmulCase cases[] = {
      {{3, 4}, {4, 5}, L::Contiguous, L::Contiguous, L::Contiguous},
      {{2, 3, 4}, {2, 4, 5}, L::Contiguous, L::Contiguous, L::Contiguous},
      {{2, 3, 4}, {2, 4, 5}, L::SwapLast, L::SwapLast, L::Contiguous},
      {{2, 3, 4}, {2, 4, 5}, L::Transposed, L::Sliced, L::SwapLast},
      {{2, 3, 4}, {2, 4, 5}, L::Sliced, L::Broadcast0, L::Sliced},
      {{2, 3, 4}, {2, 4, 5}, L::BroadcastLast, L::Contiguous, L::Transposed},
      {{1, 4}, {4, 1}, L::Contiguous, L::Transposed, L::Contiguous},
      {{3, 1}, {1, 5}, L::Sliced, L::Contiguous, L::Contiguous},
      {{3, 0}, {0, 5}, L::Contiguous, L::Contiguous, L::Sliced},
      {{0, 4}, {4, 5}, L::Contiguous, L::Contiguous, L::Contiguous},
      {{64, 8, 8}, {64, 8, 8}, L::Contiguous, L::SwapLast, L::Contiguous},
      {{70, 80}, {80, 90}, L::Contiguous, L::SwapLast, L::Contiguous},
  };
  Rng rng{6};
  for (int d : kAllDtypes) {
    if (!expected_support(TSR_OP_MATMUL, d)) continue;
    for (const MatmulCase& c : cases) {
      INFO(tsr_dtype_name(d) << " a " << layout_name(c.la) << " b " << layout_name(c.lb) << " out " << layout_name(c.lo)
                             << " a.shape[0] " << c.a[0] << " ndim " << c.a.size());
      // Quarter steps in [-2, 2]: float sums are exact, so float dtypes match to the last bit.
      Tensor a = make_filled(d, c.a, c.la, Domain::Quarter, rng);
      Tensor b = make_filled(d, c.b, c.lb, Domain::Quarter, rng);
      const size_t n = c.a.size();
      std::vector<int64_t> os = c.a;
      os[n - 1] = c.b[n - 1];
      const int64_t M = c.a[n - 2], K = c.a[n - 1], N = c.b[n - 1];
      Tensor out = make_tensor(d, os, c.lo);
      run_ok(plugin(), TSR_OP_MATMUL, d, out, {&a, &b}, {}, {0});
      std::vector<double> want(static_cast<size_t>(out.numel()));
      for (int64_t i = 0; i < out.numel(); ++i) {
        const int64_t batch = i / (M * N), m = i / N % M, col = i % N;
        double s = 0;
        for (int64_t k = 0; k < K; ++k) s += a.get((batch * M + m) * K + k) * b.get((batch * K + k) * N + col);
        want[i] = round_to(d, s);
      }
      CHECK(mismatch(out, want) == "");
    }
  }
}

TEST_CASE("cpu_tbb: arange and linspace follow PyTorch's arithmetic") {
  for (int d : kAllDtypes) {
    if (!expected_support(TSR_OP_ARANGE, d)) continue;
    INFO(tsr_dtype_name(d));
    for (Layout l : {L::Contiguous, L::Sliced}) {
      Tensor out = make_tensor(d, {10}, l);
      run_ok(plugin(), TSR_OP_ARANGE, d, out, {}, {iscalar(2), iscalar(3)});
      std::vector<double> want;
      for (int i = 0; i < 10; ++i) want.push_back(round_to(d, 2 + 3 * i));
      CHECK(mismatch(out, want) == "");
      // Integral dtypes truncate float scalars first, as PyTorch: start -1, step 2.
      run_ok(plugin(), TSR_OP_ARANGE, d, out, {}, {fscalar(-1.5), fscalar(2.5)});
      want.clear();
      for (int i = 0; i < 10; ++i) want.push_back(round_to(d, is_float(d) ? -1.5 + 2.5 * i : -1 + 2 * i));
      CHECK(mismatch(out, want) == "");
    }
  }
  struct Expect {
    int op, dtype;
    double s0, s1;
    std::vector<double> want;  // printed by torch 1.13
  };
  const Expect expects[] = {
      {TSR_OP_ARANGE, TSR_FLOAT32, -1.5, 0.3,
       {-1.5, -1.2000000476837158, -0.8999999761581421, -0.6000000238418579, -0.30000001192092896, -5.551115123125783e-17,
        0.30000001192092896, 0.6000000238418579, 0.8999999761581421, 1.2000000476837158, 1.5, 1.7999999523162842,
        2.0999999046325684, 2.4000000953674316, 2.700000047683716}},
      {TSR_OP_ARANGE, TSR_FLOAT16, 1, 0.125, {1.0, 1.125, 1.25, 1.375, 1.5, 1.625, 1.75, 1.875, 2.0, 2.125, 2.25, 2.375}},
      {TSR_OP_LINSPACE, TSR_INT64, 0, 10, {0, 3, 6, 10}},
      {TSR_OP_LINSPACE, TSR_INT32, -2.5, 7.9, {-2, 0, 2, 4, 7}},
      {TSR_OP_LINSPACE, TSR_INT8, 10, -3, {10, 7, 4, 2, 0, -3}},
      {TSR_OP_LINSPACE, TSR_FLOAT32, 0.1, 2.9,
       {0.10000000149011612, 0.3800000250339508, 0.6600000858306885, 0.9400001168251038, 1.220000147819519, 1.5,
        1.7799999713897705, 2.059999942779541, 2.3400001525878906, 2.620000123977661, 2.9000000953674316}},
      {TSR_OP_LINSPACE, TSR_FLOAT64, -3, 5,
       {-3.0, -1.8571428571428572, -0.7142857142857144, 0.4285714285714284, 1.5714285714285716, 2.7142857142857144,
        3.857142857142857, 5.0}},
      {TSR_OP_LINSPACE, TSR_FLOAT16, 0.1, 1.3,
       {0.0999755859375, 0.300048828125, 0.5, 0.69970703125, 0.8994140625, 1.099609375, 1.2998046875}},
      {TSR_OP_LINSPACE, TSR_BFLOAT16, -1, 1, {-1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0}},
      {TSR_OP_LINSPACE, TSR_INT16, 5, 5, {5}},
      {TSR_OP_LINSPACE, TSR_FLOAT32, 0, 1, {0}},
  };
  for (const Expect& e : expects) {
    INFO(tsr_op_name(e.op) << "(" << tsr_dtype_name(e.dtype) << ") " << e.s0 << ", " << e.s1);
    Tensor out = make_tensor(e.dtype, {static_cast<int64_t>(e.want.size())}, L::Sliced);
    run_ok(plugin(), e.op, e.dtype, out, {}, {fscalar(e.s0), fscalar(e.s1)});
    CHECK(mismatch(out, e.want) == "");
  }
}

TEST_CASE("cpu_tbb: Philox4x32-10 known answers (Random123)") {
  using tessera::backend::philox4x32_10;
  struct Kat {
    Philox4x32 ctr;
    uint32_t k0, k1;
    Philox4x32 want;
  };
  const Kat kats[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}}},
      {{{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, 0xffffffffu, 0xffffffffu,
       {{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}}},
      {{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u,
       {{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}}},
  };
  for (const Kat& k : kats) {
    const Philox4x32 got = philox4x32_10(k.ctr, k.k0, k.k1);
    for (int i = 0; i < 4; ++i) CHECK(got.x[i] == k.want.x[i]);
  }
}

namespace {

// The formulas of Note [Counter-based random numbers], written out again.
double expected_random(int op, int dtype, uint64_t seed, uint64_t counter, double s0, double s1) {
  const Philox4x32 r = tessera::backend::philox4x32_10(
      {{static_cast<uint32_t>(counter), static_cast<uint32_t>(counter >> 32), 0, 0}}, static_cast<uint32_t>(seed),
      static_cast<uint32_t>(seed >> 32));
  const uint64_t w01 = (static_cast<uint64_t>(r.x[0]) << 32) | r.x[1], w23 = (static_cast<uint64_t>(r.x[2]) << 32) | r.x[3];
  if (op == TSR_OP_RAND_NORMAL) {
    const double u1 = static_cast<double>((w01 >> 11) + 1) / 9007199254740992.0;
    const double u2 = static_cast<double>(w23 >> 11) / 9007199254740992.0;
    return round_to(dtype, s0 + s1 * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2));
  }
  double u = static_cast<double>(r.x[0] >> 8) / 16777216.0;
  if (dtype == TSR_FLOAT16) u = static_cast<double>(r.x[0] >> 21) / 2048.0;
  if (dtype == TSR_BFLOAT16) u = static_cast<double>(r.x[0] >> 24) / 256.0;
  if (dtype == TSR_FLOAT64) u = static_cast<double>(w01 >> 11) / 9007199254740992.0;
  return round_to(dtype, s0 + u * (s1 - s0));
}

}  // namespace

TEST_CASE("cpu_tbb: rand and randn are the counter-based numbers of their row-major index") {
  const uint64_t seed = 0x0123456789ABCDEFull;
  for (int op : {TSR_OP_RAND_UNIFORM, TSR_OP_RAND_NORMAL}) {
    for (int d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16}) {
      for (Layout l : {L::Contiguous, L::Transposed, L::Sliced}) {
        INFO(tsr_op_name(op) << "(" << tsr_dtype_name(d) << ") " << layout_name(l));
        Tensor out = make_tensor(d, {30, 40}, l);
        const double s0 = op == TSR_OP_RAND_NORMAL ? 1.5 : -2, s1 = 3;
        run_ok(plugin(), op, d, out, {}, {fscalar(s0), fscalar(s1)}, {static_cast<int64_t>(seed), 77});
        std::vector<double> want;
        for (int64_t i = 0; i < out.numel(); ++i) want.push_back(expected_random(op, d, seed, 77 + static_cast<uint64_t>(i), s0, s1));
        CHECK(mismatch(out, want) == "");
      }
    }
  }
  // Statistics: 100k draws.
  const int64_t n = 100000;
  Tensor u = make_tensor(TSR_FLOAT32, {n}, L::Contiguous);
  run_ok(plugin(), TSR_OP_RAND_UNIFORM, TSR_FLOAT32, u, {}, {fscalar(0), fscalar(1)}, {42, 0});
  double sum = 0, lo = 1, hi = 0;
  for (int64_t i = 0; i < n; ++i) sum += u.get(i), lo = std::min(lo, u.get(i)), hi = std::max(hi, u.get(i));
  CHECK(lo >= 0);
  CHECK(hi < 1);
  CHECK(std::abs(sum / n - 0.5) < 0.01);
  Tensor z = make_tensor(TSR_FLOAT32, {n}, L::Contiguous);
  run_ok(plugin(), TSR_OP_RAND_NORMAL, TSR_FLOAT32, z, {}, {fscalar(0), fscalar(1)}, {42, 0});
  double s = 0, s2 = 0;
  for (int64_t i = 0; i < n; ++i) s += z.get(i), s2 += z.get(i) * z.get(i);
  CHECK(std::abs(s / n) < 0.02);
  CHECK(std::abs(s2 / n - (s / n) * (s / n) - 1) < 0.03);
}

TEST_CASE("cpu_tbb: results do not depend on the thread count") {
  Rng rng{7};
  Tensor x = make_filled(TSR_FLOAT32, {300000}, L::Contiguous, Domain::PowExponent, rng);
  Tensor m = make_filled(TSR_FLOAT32, {3, 70000}, L::Contiguous, Domain::PowExponent, rng);
  auto run_all = [&](Plugin& p) {
    std::vector<std::vector<unsigned char>> results;
    auto keep = [&](Tensor& t) { results.push_back(t.bytes); };
    Tensor full = make_tensor(TSR_FLOAT32, {1}, L::Contiguous);
    run_ok(p, TSR_OP_SUM, TSR_FLOAT32, full, {&x});
    keep(full);
    Tensor rows = make_tensor(TSR_FLOAT32, {3, 1}, L::Contiguous);
    run_ok(p, TSR_OP_MEAN, TSR_FLOAT32, rows, {&m});
    keep(rows);
    Tensor cols = make_tensor(TSR_FLOAT32, {1, 70000}, L::Contiguous);
    run_ok(p, TSR_OP_SUM, TSR_FLOAT32, cols, {&m});
    keep(cols);
    for (int op : {TSR_OP_RAND_UNIFORM, TSR_OP_RAND_NORMAL}) {
      Tensor r = make_tensor(TSR_FLOAT32, {100000}, L::Contiguous);
      run_ok(p, op, TSR_FLOAT32, r, {}, {fscalar(0), fscalar(1)}, {9, 1000});
      keep(r);
    }
    return results;
  };
  const auto one = run_all(plugin(1));
  const auto two = run_all(plugin(2));
  REQUIRE(one.size() == two.size());
  for (size_t i = 0; i < one.size(); ++i) {
    INFO("result " << i);
    CHECK(one[i] == two[i]);
  }
}

TEST_CASE("cpu_tbb: bad kernel calls return a status and a message") {
  Tensor a = make_tensor(TSR_FLOAT32, {2, 3}, L::Contiguous);
  Tensor b = make_tensor(TSR_FLOAT64, {2, 3}, L::Contiguous);
  Tensor c = make_tensor(TSR_FLOAT32, {3, 2}, L::Contiguous);
  Tensor out = make_tensor(TSR_FLOAT32, {2, 3}, L::Contiguous);
  CHECK(run_kernel(plugin(), TSR_OP_ADD, TSR_FLOAT32, out, {&a, &b}) == TSR_ERR_TYPE);
  CHECK(g_last_error.find("add(float32)") != std::string::npos);
  CHECK(run_kernel(plugin(), TSR_OP_ADD, TSR_FLOAT32, out, {&a, &c}) == TSR_ERR_SHAPE);
  CHECK(run_kernel(plugin(), TSR_OP_ADD, TSR_FLOAT32, out, {&a}) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(run_kernel(plugin(), TSR_OP_MATMUL, TSR_FLOAT32, out, {&a, &a}) == TSR_ERR_SHAPE);
  CHECK(run_kernel(plugin(), TSR_OP_RAND_UNIFORM, TSR_FLOAT32, out, {}, {fscalar(0), fscalar(1)}) == TSR_ERR_INVALID_ARGUMENT);
  Tensor r = make_tensor(TSR_FLOAT32, {2, 1}, L::Contiguous);
  CHECK(run_kernel(plugin(), TSR_OP_ARGMAX, TSR_FLOAT32, r, {&a}, {}, {0, 1}) == TSR_ERR_TYPE);  // out must be int64
  CHECK(out.stray_writes() == "");
}
