// SPDX-License-Identifier: Apache-2.0
// Many threads on one runtime: 8 threads x 10,000 mixed ops — creation,
// views, elementwise, reductions, matmul, printing, in-place writes and
// errors on purpose — on shared tensors (read by every thread; one shared
// storage written by all, each thread in its own row) and on private ones.
// Every op folds its outcome (values, metadata, status and message) into a
// digest; the concurrent run must give, thread for thread, the digests of a
// single-threaded run of the same programs. `make test-tsan` runs it under
// ThreadSanitizer with serial_kernels.json (see CMakeLists.txt here).
//
// TESSERA_STRESS_OPS overrides the ops per thread (e.g. for a quick run);
// TESSERA_STRESS_CONFIG the config (serial_kernels.json keeps every kernel
// on its calling thread, out of oneTBB).
#include <catch2/catch.hpp>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tessera/tessera.h"
#include "test_paths.hpp"

namespace {

constexpr int kThreads = 8;
constexpr int kDefaultOps = 10000;

// ---- small tools ---------------------------------------------------------------

// splitmix64: a thread's ops depend only on its id.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  int64_t below(int64_t n) { return static_cast<int64_t>(next() % static_cast<uint64_t>(n)); }
  int32_t below32(int64_t n) { return static_cast<int32_t>(below(n)); }
  bool coin() { return (next() & 1) != 0; }
};

// FNV-1a over everything an op produced.
struct Digest {
  uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  void i64(int64_t v) { bytes(&v, sizeof v); }
  void str(const std::string& s) {
    i64(static_cast<int64_t>(s.size()));
    bytes(s.data(), s.size());
  }
};

// An unexpected failure: ends the thread's program with a message.
struct Unexpected : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void must(tsr_status st, const char* what) {
  if (st != TSR_OK) throw Unexpected(std::string(what) + ": " + tsr_last_error_message());
}

// One reference to a tensor.
class Ref {
 public:
  Ref() = default;
  explicit Ref(tsr_tensor* adopt) : t_(adopt) {}
  Ref(const Ref& o) : t_(o.t_) { tsr_tensor_retain(t_); }
  Ref(Ref&& o) noexcept : t_(o.t_) { o.t_ = nullptr; }
  Ref& operator=(Ref o) noexcept {
    std::swap(t_, o.t_);
    return *this;
  }
  ~Ref() { tsr_tensor_release(t_); }
  tsr_tensor* get() const { return t_; }
  explicit operator bool() const { return t_ != nullptr; }

 private:
  tsr_tensor* t_ = nullptr;
};

// Runs call(&out); a failure throws (for calls that must work).
template <class F>
Ref make(F&& call, const char* what) {
  tsr_tensor* out = nullptr;
  must(call(&out), what);
  return Ref(out);
}

tsr_scalar fscalar(double v) {
  tsr_scalar s{};
  s.kind = TSR_SCALAR_FLOAT;
  s.f = v;
  return s;
}

tsr_scalar iscalar(int64_t v) {
  tsr_scalar s{};
  s.kind = TSR_SCALAR_INT;
  s.i = v;
  s.f = static_cast<double>(v);
  return s;
}

std::vector<int64_t> shape_of(tsr_tensor* t) {
  return std::vector<int64_t>(tsr_tensor_shape(t), tsr_tensor_shape(t) + tsr_tensor_ndim(t));
}

// Metadata and every value (read in row-major order).
void fold_tensor(Digest& d, tsr_tensor* t) {
  d.i64(tsr_tensor_dtype(t));
  d.i64(tsr_tensor_ndim(t));
  for (int32_t i = 0; i < tsr_tensor_ndim(t); ++i) {
    d.i64(tsr_tensor_shape(t)[i]);
    d.i64(tsr_tensor_strides(t)[i]);
  }
  d.i64(tsr_tensor_storage_offset(t));
  std::vector<unsigned char> bytes(static_cast<size_t>(tsr_tensor_numel(t)) * tsr_tensor_element_size(t));
  must(tsr_read(t, bytes.data(), bytes.size()), "read");
  d.bytes(bytes.data(), bytes.size());
}

// A call allowed to fail: its status and message, or its result.
template <class F>
Ref fold_attempt(Digest& d, F&& call) {
  tsr_tensor* out = nullptr;
  tsr_status st = call(&out);
  d.i64(st);
  if (st != TSR_OK) {
    if (out != nullptr) throw Unexpected("a failed call wrote its output");
    d.str(tsr_last_error_message());
    return Ref();
  }
  return Ref(out);
}

const char* config_path() {
  const char* env = std::getenv("TESSERA_STRESS_CONFIG");
  return env != nullptr && *env != '\0' ? env : test_paths::config;
}

// ---- the shared world ------------------------------------------------------------

std::atomic<int> g_shared_external_deletes{0};

struct Shared {
  tsr_runtime* rt = nullptr;
  tsr_device cpu{};
  Ref s0;   // float32 (64, 48), read only
  Ref s1;   // float32 (48,), read only
  Ref s2;   // int64 (8, 6, 5), read only
  Ref s3;   // bool (64, 48), read only
  Ref big;  // float32 (256, 160): large enough for the parallel kernels
  Ref ext;  // float64 (32, 32) over external memory, read only
  Ref w;    // float32 (kThreads, 1024): thread i writes row i only
  std::vector<double> ext_memory = std::vector<double>(32 * 32);
};

template <class T>
Ref from_values(const Shared& sh, std::vector<int64_t> shape, tsr_dtype dtype, T (*value)(int64_t)) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<T> data(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) data[static_cast<size_t>(i)] = value(i);
  return make([&](tsr_tensor** o) {
    return tsr_from_host(sh.rt, data.data(), static_cast<int32_t>(shape.size()), shape.data(), dtype, sh.cpu, o);
  }, "from_host");
}

void build_shared(Shared& sh) {
  sh.s0 = from_values<float>(sh, {64, 48}, TSR_FLOAT32, [](int64_t i) { return float(i % 997) * 0.25f - 100.0f; });
  sh.s1 = from_values<float>(sh, {48}, TSR_FLOAT32, [](int64_t i) { return float(i % 7) - 3.0f; });
  sh.s2 = from_values<int64_t>(sh, {8, 6, 5}, TSR_INT64, [](int64_t i) { return i % 97 - 40; });
  sh.s3 = from_values<uint8_t>(sh, {64, 48}, TSR_BOOL, [](int64_t i) { return uint8_t(i % 3 == 0); });
  sh.big = from_values<float>(sh, {256, 160}, TSR_FLOAT32, [](int64_t i) { return float(i % 1000) * 0.5f - 200.0f; });
  for (size_t i = 0; i < sh.ext_memory.size(); ++i) sh.ext_memory[i] = static_cast<double>(i) * 0.5;
  const int64_t ext_shape[2] = {32, 32};
  sh.ext = make([&](tsr_tensor** o) {
    return tsr_from_external(sh.rt, sh.ext_memory.data(), 2, ext_shape, nullptr, 0, TSR_FLOAT64, sh.cpu,
                             [](void*, void*) { g_shared_external_deletes.fetch_add(1); }, nullptr, o);
  }, "from_external");
  const int64_t w_shape[2] = {kThreads, 1024};
  sh.w = make([&](tsr_tensor** o) { return tsr_zeros(sh.rt, 2, w_shape, TSR_FLOAT32, sh.cpu, o); }, "zeros");
}

// ---- one thread's program --------------------------------------------------------

class Program {
 public:
  Program(const Shared& sh, int id) : sh_(sh), id_(id), rng_{0x5EEDull * 1000003ull + static_cast<uint64_t>(id)} {}

  // One digest per op.
  std::vector<uint64_t> run(int ops) {
    std::vector<uint64_t> out;
    out.reserve(static_cast<size_t>(ops));
    for (op_ = 0; op_ < ops; ++op_) {
      Digest d;
      step(d);
      out.push_back(d.h);
    }
    return out;
  }

 private:
  void step(Digest& d) {
    // A private runtime now and then: plugins load and unload while others work.
    if (op_ % 2500 == 1234) return private_runtime(d);
    const int64_t r = rng_.below(100);
    d.i64(r);
    if (r < 8) return create(d);
    if (r < 28) return view_chain(d);
    if (r < 42) return elementwise(d);
    if (r < 53) return reduction(d);
    if (r < 60) return matmul(d);
    if (r < 66) return print(d);
    if (r < 74) return errors(d);
    if (r < 81) return inplace_private(d);
    if (r < 86) return write_own_row(d);
    if (r < 88) return big(d);
    if (r < 91) return churn(d);
    if (r < 94) return random_values(d);
    if (r < 97) return external(d);
    return runtime_queries(d);
  }

  // A row range of s0 as a (k, 48) view.
  Ref rows_of_s0(int64_t max_rows) {
    const int64_t start = rng_.below(64 - max_rows), k = 1 + rng_.below(max_rows);
    return make([&](tsr_tensor** o) { return tsr_slice(sh_.s0.get(), 0, start, start + k, 1, o); }, "slice");
  }

  // Some tensor to take views of: shared or private.
  Ref source() {
    switch (rng_.below(5)) {
      case 0: return sh_.s0;
      case 1: return sh_.s2;
      case 2: return sh_.ext;
      case 3: return sh_.s3;
      default: return pool_.empty() ? sh_.s0 : pool_[static_cast<size_t>(rng_.below(static_cast<int64_t>(pool_.size())))];
    }
  }

  void remember(Ref t) {
    if (pool_.size() < 12) pool_.push_back(std::move(t));
    else pool_[static_cast<size_t>(rng_.below(12))] = std::move(t);
  }

  void create(Digest& d) {
    const int32_t ndim = 1 + rng_.below32(3);
    std::vector<int64_t> shape(static_cast<size_t>(ndim));
    for (auto& s : shape) s = rng_.below(6);  // 0 included
    const tsr_dtype dtypes[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_INT32, TSR_INT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_UINT8};
    const tsr_dtype dt = dtypes[rng_.below(7)];
    Ref t;
    switch (rng_.below(5)) {
      case 0: t = make([&](tsr_tensor** o) { return tsr_zeros(sh_.rt, ndim, shape.data(), dt, sh_.cpu, o); }, "zeros"); break;
      case 1: t = make([&](tsr_tensor** o) { return tsr_ones(sh_.rt, ndim, shape.data(), dt, sh_.cpu, o); }, "ones"); break;
      case 2:
        t = make([&](tsr_tensor** o) {
          return tsr_full(sh_.rt, ndim, shape.data(), iscalar(id_ + 3), dt, sh_.cpu, o);
        }, "full");
        break;
      case 3: {
        const int64_t n = rng_.below(40);
        t = make([&](tsr_tensor** o) {
          return tsr_arange(sh_.rt, iscalar(-n), iscalar(n), iscalar(1 + rng_.below(3)), dt, sh_.cpu, o);
        }, "arange");
        break;
      }
      default:
        t = make([&](tsr_tensor** o) {
          return tsr_linspace(sh_.rt, -1.5, 2.5, rng_.below(20), TSR_FLOAT32, sh_.cpu, o);
        }, "linspace");
    }
    fold_tensor(d, t.get());
    remember(std::move(t));
  }

  // One to three view calls; a call may fail (then its error is the result).
  void view_chain(Digest& d) {
    Ref t = source();
    const int steps = 1 + rng_.below32(3);
    for (int i = 0; i < steps && t; ++i) {
      tsr_tensor* x = t.get();
      const int32_t nd = tsr_tensor_ndim(x);
      const int32_t dim = nd == 0 ? 0 : rng_.below32(nd);
      switch (rng_.below(11)) {
        case 0: t = fold_attempt(d, [&](tsr_tensor** o) { return tsr_transpose(x, dim, nd == 0 ? 0 : rng_.below32(nd), o); }); break;
        case 1: t = fold_attempt(d, [&](tsr_tensor** o) { return tsr_t(x, o); }); break;
        case 2: {
          std::vector<int32_t> perm(static_cast<size_t>(nd));
          for (int32_t k = 0; k < nd; ++k) perm[static_cast<size_t>(k)] = k;
          for (int32_t k = nd - 1; k > 0; --k) std::swap(perm[static_cast<size_t>(k)], perm[static_cast<size_t>(rng_.below(k + 1))]);
          t = fold_attempt(d, [&](tsr_tensor** o) { return tsr_permute(x, nd, perm.data(), o); });
          break;
        }
        case 3: {
          const int64_t a = rng_.below(9) - 4, b = rng_.below(12) - 2, step = 1 + rng_.below(3);
          t = fold_attempt(d, [&](tsr_tensor** o) { return tsr_slice(x, dim, a, b, step, o); });
          break;
        }
        case 4: t = fold_attempt(d, [&](tsr_tensor** o) { return tsr_select(x, dim, rng_.below(6) - 2, o); }); break;
        case 5: t = fold_attempt(d, [&](tsr_tensor** o) { return tsr_unsqueeze(x, rng_.below32(nd + 1), o); }); break;
        case 6: t = fold_attempt(d, [&](tsr_tensor** o) { return tsr_squeeze_all(x, o); }); break;
        case 7: {
          std::vector<int64_t> shape = shape_of(x);
          shape.insert(shape.begin(), 1 + rng_.below(3));
          t = fold_attempt(d, [&](tsr_tensor** o) {
            return tsr_expand(x, static_cast<int32_t>(shape.size()), shape.data(), o);
          });
          break;
        }
        case 8: t = fold_attempt(d, [&](tsr_tensor** o) { return tsr_flatten(x, 0, -1, o); }); break;
        case 9: {
          const int64_t flat = -1;
          t = fold_attempt(d, [&](tsr_tensor** o) { return rng_.coin() ? tsr_view(x, 1, &flat, o) : tsr_reshape(x, 1, &flat, o); });
          break;
        }
        default: {
          const int64_t shape[2] = {1 + rng_.below(4), 1 + rng_.below(4)};
          const int64_t strides[2] = {rng_.below(5), rng_.below(3)};
          t = fold_attempt(d, [&](tsr_tensor** o) { return tsr_as_strided(x, 2, shape, strides, rng_.below(8), o); });
        }
      }
    }
    if (t) fold_tensor(d, t.get());
  }

  void elementwise(Digest& d) {
    Ref x = rows_of_s0(8);
    const int64_t row = rng_.below(64);
    Ref y = rng_.coin() ? sh_.s1
                        : make([&](tsr_tensor** o) { return tsr_select(sh_.s0.get(), 0, row, o); }, "select");
    Ref out;
    switch (rng_.below(4)) {
      case 0: {
        const tsr_op ops[] = {TSR_OP_ADD, TSR_OP_SUB, TSR_OP_MUL, TSR_OP_DIV, TSR_OP_MAXIMUM, TSR_OP_MINIMUM,
                              TSR_OP_EQ, TSR_OP_LT, TSR_OP_GE, TSR_OP_POW};
        const tsr_op op = ops[rng_.below(10)];
        out = make([&](tsr_tensor** o) { return tsr_binary(op, x.get(), y.get(), o); }, "binary");
        break;
      }
      case 1: {
        const tsr_op ops[] = {TSR_OP_NEG, TSR_OP_ABS, TSR_OP_EXP, TSR_OP_LOG, TSR_OP_SQRT, TSR_OP_RELU, TSR_OP_SIGMOID,
                              TSR_OP_TANH};
        const tsr_op op = ops[rng_.below(8)];
        out = make([&](tsr_tensor** o) { return tsr_unary(op, x.get(), o); }, "unary");
        break;
      }
      case 2: {
        const tsr_scalar s = rng_.coin() ? iscalar(rng_.below(9) - 4) : fscalar(0.5 * static_cast<double>(rng_.below(9)));
        const int32_t reversed = rng_.coin() ? 1 : 0;
        Ref ints = make([&](tsr_tensor** o) { return tsr_select(sh_.s2.get(), 0, rng_.below(8), o); }, "select");
        tsr_tensor* a = rng_.coin() ? x.get() : ints.get();
        const tsr_op op = rng_.coin() ? TSR_OP_MUL : TSR_OP_ADD;
        out = make([&](tsr_tensor** o) { return tsr_binary_scalar(op, a, s, reversed, o); }, "binary_scalar");
        break;
      }
      default: {
        const int64_t rows = tsr_tensor_shape(x.get())[0];
        Ref cond = make([&](tsr_tensor** o) { return tsr_slice(sh_.s3.get(), 0, 0, rows, 1, o); }, "slice");
        out = make([&](tsr_tensor** o) { return tsr_where(cond.get(), x.get(), y.get(), o); }, "where");
      }
    }
    fold_tensor(d, out.get());
  }

  void reduction(Digest& d) {
    Ref t;
    switch (rng_.below(3)) {
      case 0: t = rows_of_s0(16); break;
      case 1: t = sh_.s2; break;
      default: t = sh_.ext;
    }
    const tsr_op ops[] = {TSR_OP_SUM, TSR_OP_MEAN, TSR_OP_MAX, TSR_OP_MIN, TSR_OP_ARGMAX};
    const tsr_op op = ops[rng_.below(5)];
    const int32_t nd = tsr_tensor_ndim(t.get());
    int32_t dims[2] = {rng_.below32(nd), rng_.below32(nd)};
    const int32_t num = rng_.below32(3);  // 0: all dims; 2 may repeat a dim (an error)
    // mean of int64 and argmax over two dims are errors too: digested as such.
    Ref out = fold_attempt(d, [&](tsr_tensor** o) { return tsr_reduce(op, t.get(), num, dims, rng_.coin() ? 1 : 0, o); });
    if (out) fold_tensor(d, out.get());
  }

  void matmul(Digest& d) {
    Ref a = rows_of_s0(16);
    Ref b;
    switch (rng_.below(3)) {
      case 0: b = sh_.s1; break;
      case 1: {
        const int64_t n = 1 + rng_.below(12);
        const int64_t shape[2] = {48, n};
        std::vector<float> v(static_cast<size_t>(48 * n));
        for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>((static_cast<int64_t>(i) + id_) % 5) - 2.0f;
        b = make([&](tsr_tensor** o) { return tsr_from_host(sh_.rt, v.data(), 2, shape, TSR_FLOAT32, sh_.cpu, o); }, "from_host");
        break;
      }
      default: {
        // a's own transpose: (k, 48) @ (48, k), a non-contiguous operand.
        b = make([&](tsr_tensor** o) { return tsr_transpose(a.get(), 0, 1, o); }, "transpose");
      }
    }
    if (rng_.coin()) {  // batched: (2, k, 48) by expanding
      std::vector<int64_t> shape = shape_of(a.get());
      shape.insert(shape.begin(), 2);
      a = make([&](tsr_tensor** o) { return tsr_expand(a.get(), 3, shape.data(), o); }, "expand");
    }
    Ref out = make([&](tsr_tensor** o) { return tsr_matmul(a.get(), b.get(), o); }, "matmul");
    fold_tensor(d, out.get());
  }

  void print(Digest& d) {
    Ref t;
    switch (rng_.below(3)) {
      case 0: {
        Ref rows = rows_of_s0(3);
        t = make([&](tsr_tensor** o) { return tsr_slice(rows.get(), 1, 0, 1 + rng_.below(8), 1, o); }, "slice");
        break;
      }
      case 1: t = make([&](tsr_tensor** o) { return tsr_select(sh_.s2.get(), 0, rng_.below(8), o); }, "select"); break;
      default: t = make([&](tsr_tensor** o) { return tsr_slice(sh_.ext.get(), 0, 0, 1 + rng_.below(3), 1, o); }, "slice");
    }
    char* text = nullptr;
    must(rng_.below(4) == 0 ? tsr_format_layout(t.get(), &text) : tsr_format(t.get(), &text), "format");
    d.str(text);
    tsr_string_free(text);
  }

  // Calls that must fail; the status and message are the result.
  void errors(Digest& d) {
    tsr_tensor* out = nullptr;
    tsr_status st = TSR_OK;
    switch (rng_.below(7)) {
      case 0: st = tsr_binary(TSR_OP_ADD, sh_.s0.get(), sh_.s2.get(), &out); break;  // shapes do not broadcast
      case 1: st = tsr_select(sh_.s0.get(), 0, 64 + rng_.below(10), &out); break;
      case 2: {
        Ref tr = make([&](tsr_tensor** o) { return tsr_t(sh_.s0.get(), o); }, "t");
        const int64_t flat = -1;
        st = tsr_view(tr.get(), 1, &flat, &out);  // not viewable
        break;
      }
      case 3: {
        const int64_t shape = 2, stride = -1;
        st = tsr_as_strided(sh_.s0.get(), 1, &shape, &stride, 0, &out);
        break;
      }
      case 4: {
        const int32_t dim = 2 + rng_.below32(5);
        st = tsr_reduce(TSR_OP_SUM, sh_.s0.get(), 1, &dim, 0, &out);
        break;
      }
      case 5: st = tsr_matmul(sh_.s0.get(), sh_.s0.get(), &out); break;  // (64, 48) @ (64, 48)
      default: st = tsr_fill_(sh_.s2.get(), fscalar(1e30)); break;     // does not fit int64: nothing written
    }
    if (st == TSR_OK || out != nullptr) throw Unexpected("a call that must fail succeeded");
    d.i64(st);
    d.str(tsr_last_error_message());
  }

  void inplace_private(Digest& d) {
    Ref rows = rows_of_s0(6);
    Ref t = make([&](tsr_tensor** o) { return tsr_clone(rows.get(), o); }, "clone");
    switch (rng_.below(4)) {
      case 0: must(tsr_binary_scalar_(TSR_OP_MUL, t.get(), fscalar(0.5)), "mul_"); break;
      case 1: must(tsr_unary_(TSR_OP_TANH, t.get()), "tanh_"); break;
      case 2: must(tsr_fill_(t.get(), iscalar(id_)), "fill_"); break;
      default: must(tsr_binary_(TSR_OP_ADD, t.get(), sh_.s1.get()), "add_");
    }
    fold_tensor(d, t.get());
    remember(std::move(t));
  }

  // Thread id writes row id of the one shared storage `w`, and reads it back.
  void write_own_row(Digest& d) {
    Ref row = make([&](tsr_tensor** o) { return tsr_select(sh_.w.get(), 0, id_, o); }, "select");
    switch (rng_.below(3)) {
      case 0: must(tsr_fill_(row.get(), iscalar(op_ % 101)), "fill_"); break;
      case 1: {
        Ref src = make([&](tsr_tensor** o) {
          return tsr_arange(sh_.rt, iscalar(0), iscalar(1024), iscalar(1), TSR_FLOAT32, sh_.cpu, o);
        }, "arange");
        must(tsr_copy_(row.get(), src.get()), "copy_");
        break;
      }
      default: must(tsr_binary_scalar_(TSR_OP_ADD, row.get(), iscalar(1)), "add_");
    }
    fold_tensor(d, row.get());
  }

  // Large enough for the plugin's parallel (oneTBB) paths.
  void big(Digest& d) {
    Ref out;
    switch (rng_.below(3)) {
      case 0: {
        const int32_t dim = rng_.below32(2);
        out = make([&](tsr_tensor** o) { return tsr_reduce(TSR_OP_SUM, sh_.big.get(), 1, &dim, 0, o); }, "sum");
        break;
      }
      case 1: out = make([&](tsr_tensor** o) { return tsr_binary_scalar(TSR_OP_MUL, sh_.big.get(), fscalar(1.5), 0, o); }, "mul"); break;
      default: {
        Ref tr = make([&](tsr_tensor** o) { return tsr_t(sh_.big.get(), o); }, "t");
        out = make([&](tsr_tensor** o) { return tsr_contiguous(tr.get(), o); }, "contiguous");
      }
    }
    fold_tensor(d, out.get());
  }

  // References to shared handles taken and dropped many times.
  void churn(Digest& d) {
    const int n = 1 + rng_.below32(16);
    tsr_tensor* s = sh_.s0.get();
    for (int i = 0; i < n; ++i) tsr_tensor_retain(s);
    std::vector<Ref> views;
    for (int i = 0; i < n; ++i)
      views.push_back(make([&](tsr_tensor** o) { return tsr_select(s, 1, i, o); }, "select"));
    for (int i = 0; i < n; ++i) tsr_tensor_release(s);
    d.i64(tsr_tensor_storage_offset(views.back().get()));
    d.i64(tsr_tensor_storage_data(views.front().get()) == tsr_tensor_storage_data(s));
  }

  // Values depend on how many numbers other threads drew first, so only
  // their range is checked.
  void random_values(Digest& d) {
    const int64_t shape[2] = {3, 1 + rng_.below(6)};
    const bool normal = rng_.coin();
    Ref t = make([&](tsr_tensor** o) {
      return normal ? tsr_randn(sh_.rt, 2, shape, TSR_FLOAT32, sh_.cpu, o) : tsr_rand(sh_.rt, 2, shape, TSR_FLOAT32, sh_.cpu, o);
    }, "rand");
    std::vector<float> v(static_cast<size_t>(tsr_tensor_numel(t.get())));
    must(tsr_read(t.get(), v.data(), v.size() * sizeof(float)), "read");
    for (float x : v)
      if (!std::isfinite(x) || (!normal && (x < 0.0f || x >= 1.0f))) throw Unexpected("rand value out of range");
    d.i64(static_cast<int64_t>(v.size()));
  }

  // Thread-private external memory, and views of the shared external tensor.
  void external(Digest& d) {
    if (rng_.coin()) {
      Ref t = make([&](tsr_tensor** o) { return tsr_slice(sh_.ext.get(), 1, rng_.below(8), 32, 1 + rng_.below(4), o); }, "slice");
      fold_tensor(d, t.get());
      return;
    }
    std::vector<int32_t> mine(24);
    for (size_t i = 0; i < mine.size(); ++i) mine[i] = static_cast<int32_t>(i) * (id_ + 1);
    int deletes = 0;
    const int64_t shape[2] = {4, 6};
    {
      Ref t = make([&](tsr_tensor** o) {
        return tsr_from_external(sh_.rt, mine.data(), 2, shape, nullptr, 0, TSR_INT32, sh_.cpu,
                                 [](void* ctx, void*) { ++*static_cast<int*>(ctx); }, &deletes, o);
      }, "from_external");
      Ref v = make([&](tsr_tensor** o) { return tsr_t(t.get(), o); }, "t");
      t = Ref();
      if (deletes != 0) throw Unexpected("external memory freed while a view lives");
      fold_tensor(d, v.get());
    }
    if (deletes != 1) throw Unexpected("external deleter ran " + std::to_string(deletes) + " times");
  }

  void runtime_queries(Digest& d) {
    tsr_device dev{};
    must(tsr_device_parse(sh_.rt, "cpu:0", &dev), "device_parse");
    d.i64(dev.type);
    d.i64(tsr_runtime_has_kernel(sh_.rt, dev, TSR_OP_MATMUL, TSR_FLOAT32));
    d.i64(tsr_runtime_device_count(sh_.rt));
    must(tsr_set_print_precision(sh_.rt, 4), "set_print_precision");  // the value every thread uses
    char* text = nullptr;
    must(tsr_runtime_describe(sh_.rt, 1, &text), "describe");
    d.i64(std::strstr(text, "cpu_tbb") != nullptr);
    tsr_string_free(text);
  }

  void private_runtime(Digest& d) {
    tsr_runtime_options opts{};
    opts.struct_size = TSR_RUNTIME_OPTIONS_STRUCT_SIZE;
    opts.config_path = config_path();
    tsr_runtime* rt = nullptr;
    must(tsr_runtime_create(&opts, &rt), "runtime_create");
    {
      const int64_t shape[2] = {5, 7};
      Ref t = make([&](tsr_tensor** o) { return tsr_full(rt, 2, shape, iscalar(id_), TSR_INT64, sh_.cpu, o); }, "full");
      Ref s = make([&](tsr_tensor** o) { return tsr_reduce(TSR_OP_SUM, t.get(), 0, nullptr, 0, o); }, "sum");
      fold_tensor(d, s.get());
    }
    tsr_runtime_destroy(rt);
  }

  const Shared& sh_;
  const int id_;
  Rng rng_;
  int op_ = 0;
  std::vector<Ref> pool_;  // private tensors
};

struct Outcome {
  std::vector<uint64_t> digests;
  std::string failure;  // empty when the program ran to its end
};

Outcome run_program(const Shared& sh, int id, int ops) {
  Outcome out;
  try {
    out.digests = Program(sh, id).run(ops);
  } catch (const std::exception& e) {
    out.failure = "thread " + std::to_string(id) + ": " + e.what();
  }
  return out;
}

int ops_per_thread() {
  const char* env = std::getenv("TESSERA_STRESS_OPS");
  return env != nullptr && std::atoi(env) > 0 ? std::atoi(env) : kDefaultOps;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("8 threads of mixed ops give the results of a single-threaded run", "[stress]") {
  const int ops = ops_per_thread();
  tsr_runtime_options opts{};
  opts.struct_size = TSR_RUNTIME_OPTIONS_STRUCT_SIZE;
  opts.config_path = config_path();
  tsr_runtime* rt = nullptr;
  INFO("config: " << config_path());
  REQUIRE(tsr_runtime_create(&opts, &rt) == TSR_OK);
  g_shared_external_deletes = 0;
  {
    Shared sh;
    sh.rt = rt;
    REQUIRE(tsr_device_parse(rt, "cpu", &sh.cpu) == TSR_OK);
    build_shared(sh);

    auto t0 = std::chrono::steady_clock::now();
    std::vector<Outcome> expected;
    for (int id = 0; id < kThreads; ++id) expected.push_back(run_program(sh, id, ops));
    const double serial_s = seconds_since(t0);
    for (const Outcome& e : expected) REQUIRE(e.failure == "");

    // Row i of w holds what program i last wrote: clear it so the concurrent
    // run starts from the same state.
    REQUIRE(tsr_fill_(sh.w.get(), iscalar(0)) == TSR_OK);

    t0 = std::chrono::steady_clock::now();
    std::vector<Outcome> actual(kThreads);
    std::vector<std::thread> threads;
    for (int id = 0; id < kThreads; ++id)
      threads.emplace_back([&, id] { actual[static_cast<size_t>(id)] = run_program(sh, id, ops); });
    for (std::thread& t : threads) t.join();
    const double threaded_s = seconds_since(t0);
    std::printf("stress: %d threads x %d ops (%s): single-threaded %.2f s, concurrent %.2f s\n", kThreads, ops,
                config_path(), serial_s, threaded_s);

    for (int id = 0; id < kThreads; ++id) {
      INFO("thread " << id);
      const Outcome& a = actual[static_cast<size_t>(id)];
      const Outcome& e = expected[static_cast<size_t>(id)];
      REQUIRE(a.failure == "");
      REQUIRE(a.digests.size() == e.digests.size());
      size_t first_mismatch = a.digests.size();
      for (size_t i = 0; i < a.digests.size() && first_mismatch == a.digests.size(); ++i)
        if (a.digests[i] != e.digests[i]) first_mismatch = i;
      INFO("first op whose result differs: " << first_mismatch);
      CHECK(first_mismatch == a.digests.size());
    }
    // The shared external storage is alive until its last view goes.
    CHECK(g_shared_external_deletes.load() == 0);
  }
  CHECK(g_shared_external_deletes.load() == 1);
  // Every tensor is gone: destroy succeeds (it reports survivors as an error
  // and then keeps the runtime alive).
  tsr_tensor* none = nullptr;
  REQUIRE(tsr_view(nullptr, 0, nullptr, &none) == TSR_ERR_INVALID_ARGUMENT);  // a known last error
  tsr_runtime_destroy(rt);
  CHECK(std::string(tsr_last_error_message()) == "tensor is NULL");
}
