// SPDX-License-Identifier: Apache-2.0
// mpi.collectives.*: every collective x reduce op x dtype x size (0, 1, odd,
// 2^20) through the public C API, run by every rank under mpirun. Each rank
// generates every rank's seeded data itself, so it computes the expected
// result exactly in float64 on the host (the values are small integers, so
// every dtype holds every sum, product and average exactly). Also:
// non-contiguous inputs, sliced outputs (the elements around them must stay
// as they were), asynchronous work, split, send/recv, and, with --mismatch,
// the checking mode's report of a shape, dtype and collective mismatch.
//
//   test_collectives CONFIG DEVICE [--mismatch | --exit-mid-collective | --hang | --large-float32-only]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tessera/element.h"
#include "tessera/tessera.h"

namespace {

int g_failures = 0;
int g_checks = 0;
int g_rank = 0;

#define CHECK(cond, ...)                                              \
  do {                                                                \
    ++g_checks;                                                       \
    if (!(cond)) {                                                    \
      ++g_failures;                                                   \
      std::fprintf(stderr, "rank %d: FAILED %s:%d: ", g_rank, __FILE__, __LINE__); \
      std::fprintf(stderr, __VA_ARGS__);                              \
      std::fprintf(stderr, "\n");                                     \
    }                                                                 \
  } while (0)

void ok(tsr_status st, const char* what) {
  if (st != TSR_OK) {
    std::fprintf(stderr, "rank %d: %s failed: %s: %s\n", g_rank, what, tsr_status_name(st), tsr_last_error_message());
    std::exit(2);
  }
}

struct Env {
  tsr_runtime* rt = nullptr;
  tsr_comm* comm = nullptr;
  tsr_device device{};
  int rank = 0, size = 1;
};

// Every rank's value at index i, for dtype and op: small integers.
double value(int rank, int64_t i, int32_t dtype, int32_t op) {
  uint64_t h = static_cast<uint64_t>(rank) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(i) * 0xBF58476D1CE4E5B9ull + 12345;
  h ^= h >> 31;
  h *= 0x94D049BB133111EBull;
  h ^= h >> 29;
  if (dtype == TSR_BOOL) return static_cast<double>(h & 1);
  const bool is_unsigned = dtype == TSR_UINT8;
  if (op == TSR_REDUCE_PROD) {
    const double m = 1.0 + static_cast<double>(h & 1);
    return (!is_unsigned && (h & 2)) ? -m : m;
  }
  const int64_t v = static_cast<int64_t>(h % 9);
  return is_unsigned ? static_cast<double>(v) : static_cast<double>(v - 4);
}

double combine(int32_t op, int32_t dtype, double a, double b) {
  if (dtype == TSR_BOOL) return (op == TSR_REDUCE_SUM || op == TSR_REDUCE_MAX) ? (a || b) : (a && b);
  switch (op) {
    case TSR_REDUCE_PROD: return a * b;
    case TSR_REDUCE_MIN: return std::min(a, b);
    case TSR_REDUCE_MAX: return std::max(a, b);
    default: return a + b;
  }
}

double reduced(int32_t op, int32_t dtype, int n, int64_t i) {
  double acc = value(0, i, dtype, op);
  for (int r = 1; r < n; ++r) acc = combine(op, dtype, acc, value(r, i, dtype, op));
  if (op == TSR_REDUCE_AVG) acc /= n;
  return acc;
}

// A tensor of n elements on the device holding f(i); with `strided`, a
// non-contiguous view (every other element of a buffer twice as long).
tsr_tensor* make(Env& e, int32_t dtype, int64_t n, bool strided, auto f) {
  const size_t item = tsr_dtype_itemsize(dtype);
  const int64_t len = strided ? 2 * n : n;
  std::vector<unsigned char> host(static_cast<size_t>(len) * item + 1);
  for (int64_t i = 0; i < len; ++i)
    tsr_element_from_double(dtype, &host[static_cast<size_t>(i) * item], strided && i % 2 ? 99 : f(strided ? i / 2 : i));
  tsr_tensor* base = nullptr;
  ok(tsr_from_host(e.rt, host.data(), 1, &len, static_cast<tsr_dtype>(dtype), e.device, &base), "from_host");
  if (!strided) return base;
  tsr_tensor* view = nullptr;
  ok(tsr_slice(base, 0, 0, len, 2, &view), "slice");
  tsr_tensor_release(base);
  return view;
}

std::vector<double> read(tsr_tensor* t) {
  const int32_t dtype = tsr_tensor_dtype(t);
  const int64_t n = tsr_tensor_numel(t);
  const size_t item = tsr_dtype_itemsize(dtype);
  std::vector<unsigned char> host(static_cast<size_t>(n) * item + 1);
  ok(tsr_read(t, host.data(), host.size()), "read");
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = tsr_element_to_double(dtype, &host[static_cast<size_t>(i) * item]);
  return out;
}

// An output of n elements, sliced out of a buffer of sentinels (index 1,
// step 2) when `sliced`; `whole` receives the buffer to check later.
tsr_tensor* make_output(Env& e, int32_t dtype, int64_t n, bool sliced, tsr_tensor** whole) {
  *whole = make(e, dtype, sliced ? 2 * n + 1 : n, false, [](int64_t) { return 77.0; });
  if (!sliced) {
    tsr_tensor_retain(*whole);
    return *whole;
  }
  tsr_tensor* view = nullptr;
  ok(tsr_slice(*whole, 0, 1, 2 * n + 1, 2, &view), "slice");
  return view;
}

void check_sentinels(tsr_tensor* whole, bool sliced, const std::string& what) {
  // A bool cannot hold the sentinel 77: its slices are checked by value only.
  if (!sliced || tsr_tensor_dtype(whole) == TSR_BOOL) return;
  std::vector<double> all = read(whole);
  for (size_t i = 0; i < all.size(); i += 2) CHECK(all[i] == 77.0, "%s: sentinel %zu overwritten (%g)", what.c_str(), i, all[i]);
}

// Exact, except within `rtol` where the result is a quotient (AVG on a world
// that is not a power of two: x / 3 rounds).
void expect_equal(const std::vector<double>& got, auto expected, const std::string& what, double rtol = 0) {
  int64_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double want = expected(static_cast<int64_t>(i));
    if (!(got[i] == want || std::fabs(got[i] - want) <= rtol * std::fabs(want))) {
      if (bad++ < 3) std::fprintf(stderr, "rank %d: %s: element %zu is %g, expected %g\n", g_rank, what.c_str(), i, got[i], want);
    }
  }
  CHECK(bad == 0, "%s: %lld wrong element(s)", what.c_str(), static_cast<long long>(bad));
}

bool floating(int32_t dtype) {
  return dtype == TSR_FLOAT32 || dtype == TSR_FLOAT64 || dtype == TSR_FLOAT16 || dtype == TSR_BFLOAT16;
}

// One case of every collective for (dtype, op, n, layout).
void run_case(Env& e, int32_t dtype, int32_t op, int64_t n, bool strided, bool async) {
  const int R = e.rank, N = e.size;
  char label[160];
  std::snprintf(label, sizeof label, "%s %s n=%lld%s%s", tsr_dtype_get_name(dtype), tsr_reduce_op_name(op),
                static_cast<long long>(n), strided ? " strided" : "", async ? " async" : "");
  const auto vals = [&](int r) { return [=](int64_t i) { return value(r, i, dtype, op); }; };
  tsr_work* w = nullptr;
  tsr_work** wp = async ? &w : nullptr;
  // Reads w after the call has set it (an argument would be read before).
  const auto finish = [&](tsr_status st, const char* what) {
    ok(st, what);
    if (w) {
      int32_t done = 0;
      ok(tsr_work_test(w, &done), "work_test");
      ok(tsr_work_wait(w), "work_wait");
      ok(tsr_work_test(w, &done), "work_test");
      CHECK(done == 1, "%s: test after wait says not done", what);
      tsr_work_release(w);
      w = nullptr;
    }
  };
  const bool avg_ok = op != TSR_REDUCE_AVG || floating(dtype);
  // AVG divides by N: exact when N is a power of two, else rounded once
  // (float32 arithmetic, then the dtype).
  const double rtol = op != TSR_REDUCE_AVG || (N & (N - 1)) == 0 ? 0.0
                      : dtype == TSR_FLOAT64 ? 1e-15 : dtype == TSR_FLOAT32 ? 1e-7 : 1e-2;
  if (avg_ok) {
    // all_reduce, in place.
    tsr_tensor* t = make(e, dtype, n, strided, vals(R));
    finish(tsr_all_reduce(e.comm, t, op, nullptr, wp), "all_reduce");
    expect_equal(read(t), [&](int64_t i) { return reduced(op, dtype, N, i); }, std::string("all_reduce ") + label, rtol);
    tsr_tensor_release(t);
    // reduce to the last rank.
    const int root = N - 1;
    t = make(e, dtype, n, strided, vals(R));
    finish(tsr_comm_reduce(e.comm, t, root, op, nullptr, wp), "reduce");
    if (R == root)
      expect_equal(read(t), [&](int64_t i) { return reduced(op, dtype, N, i); }, std::string("reduce ") + label, rtol);
    else
      expect_equal(read(t), vals(R), std::string("reduce (non-root unchanged) ") + label);
    tsr_tensor_release(t);
    // reduce_scatter: input N*n, output n (sliced when strided).
    tsr_tensor* in = make(e, dtype, N * n, strided, vals(R));
    tsr_tensor* whole = nullptr;
    tsr_tensor* out = make_output(e, dtype, n, strided, &whole);
    finish(tsr_reduce_scatter(e.comm, out, in, op, nullptr, wp), "reduce_scatter");
    expect_equal(read(out), [&](int64_t i) { return reduced(op, dtype, N, R * n + i); },
                 std::string("reduce_scatter ") + label, rtol);
    check_sentinels(whole, strided, std::string("reduce_scatter ") + label);
    tsr_tensor_release(in);
    tsr_tensor_release(out);
    tsr_tensor_release(whole);
  } else {
    // AVG on an integer dtype is refused, on every rank alike.
    tsr_tensor* t = make(e, dtype, n, strided, vals(R));
    const tsr_status st = tsr_all_reduce(e.comm, t, op, nullptr, nullptr);
    CHECK(st == TSR_ERR_TYPE, "all_reduce avg on %s: status %s", tsr_dtype_get_name(dtype), tsr_status_name(st));
    CHECK(std::strstr(tsr_last_error_message(), "AVG") != nullptr, "message: %s", tsr_last_error_message());
    tsr_tensor_release(t);
  }
  if (op != TSR_REDUCE_SUM) return;  // the rest do not reduce: once per dtype and size
  // broadcast from rank N-1.
  tsr_tensor* t = make(e, dtype, n, strided, vals(R));
  finish(tsr_broadcast(e.comm, t, N - 1, nullptr, wp), "broadcast");
  expect_equal(read(t), vals(N - 1), std::string("broadcast ") + label);
  tsr_tensor_release(t);
  // all_gather: output N*n.
  tsr_tensor* in = make(e, dtype, n, strided, vals(R));
  tsr_tensor* whole = nullptr;
  tsr_tensor* out = make_output(e, dtype, N * n, strided, &whole);
  finish(tsr_all_gather(e.comm, out, in, nullptr, wp), "all_gather");
  expect_equal(read(out), [&](int64_t i) { return value(static_cast<int>(i / std::max<int64_t>(n, 1)), i % std::max<int64_t>(n, 1), dtype, op); },
               std::string("all_gather ") + label);
  check_sentinels(whole, strided, std::string("all_gather ") + label);
  tsr_tensor_release(in);
  tsr_tensor_release(out);
  tsr_tensor_release(whole);
  // all_to_all: N*n each way; block j of the output is block R of rank j's input.
  in = make(e, dtype, N * n, strided, vals(R));
  out = make_output(e, dtype, N * n, strided, &whole);
  finish(tsr_all_to_all(e.comm, out, in, nullptr, wp), "all_to_all");
  expect_equal(read(out), [&](int64_t i) { const int64_t j = i / std::max<int64_t>(n, 1); return value(static_cast<int>(j), R * n + i % std::max<int64_t>(n, 1), dtype, op); },
               std::string("all_to_all ") + label);
  check_sentinels(whole, strided, std::string("all_to_all ") + label);
  tsr_tensor_release(in);
  tsr_tensor_release(out);
  tsr_tensor_release(whole);
  // send/recv around a ring: send asynchronously, receive, then wait.
  in = make(e, dtype, n, strided, vals(R));
  out = make_output(e, dtype, n, strided, &whole);
  tsr_work* sent = nullptr;
  ok(tsr_send(e.comm, in, (R + 1) % N, 7, nullptr, &sent), "send");
  ok(tsr_recv(e.comm, out, (R + N - 1) % N, 7, nullptr, nullptr), "recv");
  ok(tsr_work_wait(sent), "send wait");
  tsr_work_release(sent);
  expect_equal(read(out), vals((R + N - 1) % N), std::string("send/recv ") + label);
  check_sentinels(whole, strided, std::string("send/recv ") + label);
  tsr_tensor_release(in);
  tsr_tensor_release(out);
  tsr_tensor_release(whole);
}

// large_all: 2^20 elements for every dtype and op; otherwise for float32 only
// (the 4-rank jobs: twice the ranks on the same two cores).
void sweep(Env& e, bool device_subset, bool large_all) {
  const int32_t all_dtypes[] = {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16, TSR_INT8,
                                TSR_UINT8,   TSR_INT16,   TSR_INT32,   TSR_INT64,    TSR_BOOL};
  const int32_t subset[] = {TSR_FLOAT32, TSR_FLOAT16, TSR_INT64, TSR_BOOL};
  const int64_t sizes[] = {0, 1, 1001, int64_t{1} << 20};
  const int32_t* dtypes = device_subset ? subset : all_dtypes;
  const size_t count = device_subset ? std::size(subset) : std::size(all_dtypes);
  for (size_t d = 0; d < count; ++d)
    for (int64_t n : sizes)
      for (int32_t op = 0; op < TSR_REDUCE_OP_COUNT; ++op) {
        if ((device_subset || !large_all) && n == (int64_t{1} << 20) && dtypes[d] != TSR_FLOAT32) continue;
        run_case(e, dtypes[d], op, n, false, false);
        // Layouts and async once per dtype on the odd size.
        if (n == 1001) {
          run_case(e, dtypes[d], op, n, true, false);
          if (op == TSR_REDUCE_SUM || op == TSR_REDUCE_MAX) run_case(e, dtypes[d], op, n, false, true);
        }
      }
}

// Several all_reduces in flight at once on one communicator, waited for in
// reverse order, three times over with the sizes rotated: mpi.so keeps
// finished requests with their buffers for reuse (Note [Reused requests]),
// so a later, larger operation lands on a request whose scratch was sized
// for a smaller one, and more are in flight than it keeps.
void in_flight(Env& e) {
  struct Case {
    int32_t dtype;
    int32_t op;
    int64_t n;
  };
  // Recursive doubling (small), the ring (above 64 KiB), halves in float32.
  std::vector<Case> cases = {{TSR_FLOAT32, TSR_REDUCE_SUM, 1},         {TSR_FLOAT32, TSR_REDUCE_SUM, 70001},
                             {TSR_INT64, TSR_REDUCE_MAX, 1001},        {TSR_FLOAT16, TSR_REDUCE_SUM, 40000},
                             {TSR_FLOAT64, TSR_REDUCE_MIN, 20000},     {TSR_INT32, TSR_REDUCE_PROD, 3},
                             {TSR_FLOAT32, TSR_REDUCE_AVG, 1 << 18}};
  for (int round = 0; round < 3; ++round) {
    std::vector<tsr_tensor*> ts;
    std::vector<tsr_work*> works;
    for (const Case& c : cases) {
      ts.push_back(make(e, c.dtype, c.n, false, [&](int64_t i) { return value(e.rank, i, c.dtype, c.op); }));
      tsr_work* w = nullptr;
      ok(tsr_all_reduce(e.comm, ts.back(), c.op, nullptr, &w), "all_reduce in flight");
      works.push_back(w);
    }
    // Even ranks poll every operation in the order started before waiting,
    // so their rounds advance in another order than the odd ranks': each
    // operation's messages must still meet their own.
    if (e.rank % 2 == 0)
      for (int pass = 0; pass < 50; ++pass)
        for (tsr_work* w : works) {
          int32_t done = 0;
          ok(tsr_work_test(w, &done), "work_test in flight");
        }
    for (size_t k = works.size(); k-- > 0;) {
      ok(tsr_work_wait(works[k]), "work_wait in flight");
      tsr_work_release(works[k]);
    }
    for (size_t k = 0; k < cases.size(); ++k) {
      const Case& c = cases[k];
      char label[96];
      std::snprintf(label, sizeof label, "in flight, round %d: %s %s n=%lld", round, tsr_dtype_get_name(c.dtype),
                    tsr_reduce_op_name(c.op), static_cast<long long>(c.n));
      // AVG is exact when the world is a power of two, else rounded once.
      const double rtol = c.op == TSR_REDUCE_AVG && (e.size & (e.size - 1)) != 0 ? 1e-7 : 0.0;
      expect_equal(read(ts[k]), [&](int64_t i) { return reduced(c.op, c.dtype, e.size, i); }, label, rtol);
      tsr_tensor_release(ts[k]);
    }
    std::rotate(cases.begin(), cases.begin() + 1, cases.end());
  }
}

void split_and_barrier(Env& e) {
  // Even and odd ranks; key reverses the order.
  tsr_comm* sub = nullptr;
  ok(tsr_comm_split(e.comm, e.rank % 2, -e.rank, &sub), "split");
  const int sub_size = (e.size + 1 - e.rank % 2) / 2;
  CHECK(sub != nullptr && tsr_comm_size(sub) == sub_size, "split size %d, expected %d", tsr_comm_size(sub), sub_size);
  int64_t one = 1;
  std::vector<double> expected_rank;
  tsr_tensor* t = nullptr;
  double mine = e.rank;
  ok(tsr_from_host(e.rt, &mine, 1, &one, TSR_FLOAT64, e.device, &t), "from_host");
  ok(tsr_all_reduce(sub, t, TSR_REDUCE_SUM, nullptr, nullptr), "all_reduce on split");
  double want = 0;
  for (int r = e.rank % 2; r < e.size; r += 2) want += r;
  CHECK(read(t)[0] == want, "split all_reduce: %g, expected %g", read(t)[0], want);
  tsr_tensor_release(t);
  tsr_comm_release(sub);
  // A negative color: in the split, with no communicator.
  ok(tsr_comm_split(e.comm, e.rank == 0 ? -1 : 0, 0, &sub), "split with -1");
  CHECK((sub == nullptr) == (e.rank == 0), "negative color gives no communicator");
  tsr_comm_release(sub);
  ok(tsr_barrier(e.comm, nullptr, nullptr), "barrier");
  tsr_work* w = nullptr;
  ok(tsr_barrier(e.comm, nullptr, &w), "async barrier");
  ok(tsr_work_wait(w), "barrier wait");
  tsr_work_release(w);
  // Bad arguments fail on the calling rank alone, before any exchange.
  int64_t four = 4, five = 5;
  tsr_tensor *a = nullptr, *b = nullptr;
  float zeros[5] = {0};
  ok(tsr_from_host(e.rt, zeros, 1, &four, TSR_FLOAT32, e.device, &a), "from_host");
  ok(tsr_from_host(e.rt, zeros, 1, &five, TSR_FLOAT32, e.device, &b), "from_host");
  tsr_status st = tsr_all_gather(e.comm, b, a, nullptr, nullptr);
  CHECK(st == TSR_ERR_SHAPE && std::strstr(tsr_last_error_message(), "all_gather on rank") != nullptr,
        "all_gather with a wrong output: %s", tsr_last_error_message());
  st = tsr_broadcast(e.comm, a, e.size, nullptr, nullptr);
  CHECK(st == TSR_ERR_INVALID_ARGUMENT && std::strstr(tsr_last_error_message(), "root") != nullptr,
        "broadcast root out of range: %s", tsr_last_error_message());
  tsr_tensor_release(a);
  tsr_tensor_release(b);
}

// TESSERA_DISTRIBUTED_DEBUG=1: every kind of mismatch is reported on every
// rank, naming the ranks, and the communicator stays usable.
int mismatch(Env& e) {
  const int64_t n = e.rank == 1 ? 5 : 4;
  float data[5] = {1, 2, 3, 4, 5};
  tsr_tensor* t = nullptr;
  ok(tsr_from_host(e.rt, data, 1, &n, TSR_FLOAT32, e.device, &t), "from_host");
  tsr_status st = tsr_all_reduce(e.comm, t, TSR_REDUCE_SUM, nullptr, nullptr);
  const std::string m = tsr_last_error_message();
  std::printf("rank %d: %s: %s\n", e.rank, tsr_status_name(st), m.c_str());
  CHECK(st == TSR_ERR_SHAPE, "shape mismatch: status %s", tsr_status_name(st));
  CHECK(m.find("disagree on the input shape") != std::string::npos && m.find("rank 1: (5,)") != std::string::npos &&
            m.find("rank 0: (4,)") != std::string::npos,
        "shape mismatch message: %s", m.c_str());
  tsr_tensor_release(t);
  // dtype
  int64_t four = 4;
  ok(tsr_from_host(e.rt, data, 1, &four, e.rank == 0 ? TSR_FLOAT32 : TSR_INT32, e.device, &t), "from_host");
  st = tsr_all_reduce(e.comm, t, TSR_REDUCE_SUM, nullptr, nullptr);
  CHECK(st == TSR_ERR_TYPE && std::strstr(tsr_last_error_message(), "the dtype (rank 0: float32; rank") != nullptr,
        "dtype mismatch: %s", tsr_last_error_message());
  // collective
  st = e.rank == 0 ? tsr_broadcast(e.comm, t, 0, nullptr, nullptr) : tsr_all_reduce(e.comm, t, TSR_REDUCE_SUM, nullptr, nullptr);
  CHECK(st == TSR_ERR_INVALID_ARGUMENT && std::strstr(tsr_last_error_message(), "disagree on the collective (rank 0: broadcast") != nullptr,
        "collective mismatch: %s", tsr_last_error_message());
  tsr_tensor_release(t);
  // Still usable afterwards.
  ok(tsr_from_host(e.rt, data, 1, &four, TSR_FLOAT32, e.device, &t), "from_host");
  ok(tsr_all_reduce(e.comm, t, TSR_REDUCE_SUM, nullptr, nullptr), "all_reduce after the mismatches");
  CHECK(read(t)[3] == 4.0 * e.size, "all_reduce after the mismatches");
  tsr_tensor_release(t);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CONFIG DEVICE [--mismatch | --exit-mid-collective | --hang]\n", argv[0]);
    return 2;
  }
  const std::string mode = argc > 3 ? argv[3] : "";
  const auto t0 = std::chrono::steady_clock::now();
  Env e;
  tsr_runtime_options o = TSR_RUNTIME_OPTIONS_INIT;
  o.config_path = argv[1];
  o.strict_plugins = 1;
  ok(tsr_runtime_create(&o, &e.rt), "runtime_create");
  ok(tsr_device_parse(e.rt, argv[2], &e.device), "device_parse");
  ok(tsr_comm_world(e.rt, nullptr, &e.comm), "comm_world");
  e.rank = g_rank = tsr_comm_rank(e.comm);
  e.size = tsr_comm_size(e.comm);

  if (mode == "--exit-mid-collective" || mode == "--hang") {
    // Rank 1 leaves (or stalls) while the others are in an all_reduce: they
    // must fail within the config's timeout, naming their rank.
    int64_t n = 1024;
    std::vector<float> data(1024, 1.0f);
    tsr_tensor* t = nullptr;
    ok(tsr_from_host(e.rt, data.data(), 1, &n, TSR_FLOAT32, e.device, &t), "from_host");
    // One that completes first, so that the failure falls in an operation
    // rather than in a communicator's set-up (nccl.so makes its NCCL
    // communicator on the first device operation).
    ok(tsr_all_reduce(e.comm, t, TSR_REDUCE_SUM, nullptr, nullptr), "first all_reduce");
    if (e.rank == 1) {
      if (mode == "--hang") std::this_thread::sleep_for(std::chrono::seconds(60));
      std::fprintf(stderr, "rank 1: leaving in the middle of the all_reduce\n");
      std::fflush(stderr);
      _exit(3);
    }
    const tsr_status st = tsr_all_reduce(e.comm, t, TSR_REDUCE_SUM, nullptr, nullptr);
    std::fprintf(stderr, "rank %d: all_reduce: %s: %s\n", e.rank, tsr_status_name(st), tsr_last_error_message());
    // A broken communicator fails fast afterwards.
    const auto b0 = std::chrono::steady_clock::now();
    const tsr_status again = tsr_barrier(e.comm, nullptr, nullptr);
    const double fast = std::chrono::duration<double>(std::chrono::steady_clock::now() - b0).count();
    std::fprintf(stderr, "rank %d: then barrier: %s after %.3f s: %s\n", e.rank, tsr_status_name(again), fast,
                 tsr_last_error_message());
    tsr_tensor_release(t);
    tsr_comm_release(e.comm);
    tsr_runtime_destroy(e.rt);
    return st == TSR_OK ? 0 : 1;
  }

  if (mode == "--mismatch") {
    mismatch(e);
  } else {
    const bool host = tsr_device_is_host_accessible(e.rt, e.device) != 0;
    sweep(e, !host, mode != "--large-float32-only");
    in_flight(e);
    split_and_barrier(e);
  }
  tsr_comm_release(e.comm);
  ok(tsr_runtime_destroy(e.rt), "runtime_destroy");
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("rank %d of %d: %d checks, %d failed (%s, %.1f s)\n", e.rank, e.size, g_checks, g_failures, argv[2], s);
  return g_failures == 0 ? 0 : 1;
}
