// SPDX-License-Identifier: Apache-2.0
// `tessera bench`: how fast each device of a config runs the common ops,
// through the public C API only, so it measures any plugin (the CPU, cuda.so,
// a vendor's) the way an application sees it: dispatch, the plugin's kernel,
// and tsr_synchronize at the end of each timed repetition.
//
// Every workload first runs once and is checked against a float64 reference
// computed on the cpu device (when the config has one), so a fast wrong
// kernel shows as FAILED, not as a good figure. Rates are the bytes an ideal
// kernel moves (each input read once, the output written once) or the
// multiply-adds of a matmul (2·M·N·K flops). bench/ holds the side-by-side
// comparison with PyTorch and NumPy; this is the tool an operator or plugin
// author runs on their own machine.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "tessera/tessera.hpp"

namespace tessera::tool {
namespace {

using Clock = std::chrono::steady_clock;

struct Record {
  std::string device, workload, dtype, size, check;
  double seconds = 0;  // median per iteration
  double bytes = 0, flops = 0;
};

// One workload on one device: `run` is the timed call; `result` what it wrote
// (on the device) and `reference` the same values computed in float64 on the cpu.
struct Workload {
  std::string name;
  tsr_dtype dtype = TSR_FLOAT32;
  std::string size;
  double bytes = 0, flops = 0;
  double rtol = 1.3e-6, atol = 1e-5;
  std::function<void()> run;
  std::function<Tensor()> result;
  std::function<Tensor()> reference;  // empty: not verified
};

struct Setup {
  const Runtime& rt;
  tsr_device dev;
  std::optional<tsr_device> cpu;  // the reference device, when the config has one
  int64_t n = 0;                  // elements of the elementwise workloads
};

std::string human_seconds(double s) {
  char buf[32];
  if (s >= 1) std::snprintf(buf, sizeof buf, "%.3g s", s);
  else if (s >= 1e-3) std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
  else if (s >= 1e-6) std::snprintf(buf, sizeof buf, "%.3g us", s * 1e6);
  else std::snprintf(buf, sizeof buf, "%.3g ns", s * 1e9);
  return buf;
}

std::string rate(const Record& r) {
  char buf[32];
  if (r.flops > 0) std::snprintf(buf, sizeof buf, "%.1f GFLOP/s", r.flops / r.seconds * 1e-9);
  else if (r.bytes > 0) std::snprintf(buf, sizeof buf, "%.1f GB/s", r.bytes / r.seconds * 1e-9);
  else return "-";
  return buf;
}

// Inputs: uniform in [-1, 1) ([0, 1) when !signed_values), made on the cpu
// when there is one (the same numbers on every device), else on the device.
Tensor input(const Setup& s, const Shape& shape, tsr_dtype dtype, bool signed_values = true) {
  const tsr_device where = s.cpu ? *s.cpu : s.dev;
  Tensor u = Tensor::rand(s.rt, shape, TSR_FLOAT32, where);
  if (signed_values) u = u.binary(TSR_OP_MUL, 2.0).binary(TSR_OP_SUB, 1.0);
  return u.to(dtype).to(s.dev);
}

Tensor on_cpu64(const Setup& s, const Tensor& t) { return t.to(*s.cpu).to(TSR_FLOAT64); }

// The bytes of `elements` elements of `dtype`.
double bytes_of(int64_t elements, tsr_dtype dtype) {
  return static_cast<double>(elements) * static_cast<double>(tsr_dtype_size(dtype));
}

// The workloads by name, each built when it runs, so that only one
// workload's tensors are alive at a time (a device may be small).
struct Entry {
  std::string name;
  tsr_dtype dtype;
  tsr_op op;  // the op it times: a device without its native kernel runs it through the CPU fallback
  std::function<Workload(const Setup&)> build;
};
std::vector<Entry> workloads() {
  std::vector<Entry> w;
  const tsr_dtype f32 = TSR_FLOAT32;
  auto verified = [](const Setup& s, std::function<Tensor()> ref) { return s.cpu ? ref : std::function<Tensor()>{}; };
  w.push_back({"add_out", f32, TSR_OP_ADD, [=](const Setup& s) {  // c = a + b into an existing c
    const int64_t n = s.n;
    Tensor a = input(s, {n}, f32), b = input(s, {n}, f32), c = Tensor::empty(s.rt, {n}, f32, s.dev);
    return Workload{"add_out", f32, std::to_string(n), bytes_of(3 * n, f32), 0, 1.3e-6, 1e-5,
                    [=] { check(tsr_binary_out(TSR_OP_ADD, a.get(), b.get(), c.get())); }, [=] { return c; },
                    verified(s, [=, &s] { return on_cpu64(s, a).binary(TSR_OP_ADD, on_cpu64(s, b)); })};
  }});
  w.push_back({"bcast_add_out", f32, TSR_OP_ADD, [=](const Setup& s) {  // (rows, cols) + (cols,) into an existing output
    const int64_t cols = std::min<int64_t>(s.n, 4096), rows = std::max<int64_t>(s.n / cols, 1);
    Tensor x = input(s, {rows, cols}, f32), v = input(s, {cols}, f32), c = Tensor::empty(s.rt, {rows, cols}, f32, s.dev);
    return Workload{"bcast_add_out", f32, std::to_string(rows) + "x" + std::to_string(cols),
                    bytes_of(2 * rows * cols + cols, f32), 0, 1.3e-6, 1e-5,
                    [=] { check(tsr_binary_out(TSR_OP_ADD, x.get(), v.get(), c.get())); }, [=] { return c; },
                    verified(s, [=, &s] { return on_cpu64(s, x).binary(TSR_OP_ADD, on_cpu64(s, v)); })};
  }});
  w.push_back({"add_transposed_out", f32, TSR_OP_ADD, [=](const Setup& s) {  // a.T + b: one operand read across its rows
    const int64_t side = std::max<int64_t>(static_cast<int64_t>(std::sqrt(static_cast<double>(s.n))), 1);
    Tensor a = input(s, {side, side}, f32), b = input(s, {side, side}, f32);
    Tensor c = Tensor::empty(s.rt, {side, side}, f32, s.dev);
    return Workload{"add_transposed_out", f32, std::to_string(side) + "x" + std::to_string(side),
                    bytes_of(3 * side * side, f32), 0, 1.3e-6, 1e-5,
                    [=] { check(tsr_binary_out(TSR_OP_ADD, a.T().get(), b.get(), c.get())); }, [=] { return c; },
                    verified(s, [=, &s] { return on_cpu64(s, a).T().binary(TSR_OP_ADD, on_cpu64(s, b)); })};
  }});
  for (tsr_op op : {TSR_OP_RELU, TSR_OP_SIGMOID, TSR_OP_EXP}) {
    const std::string name = std::string(tsr_op_name(op)) + "_out";
    w.push_back({name, f32, op, [=](const Setup& s) {  // op(a) into an existing output
      Tensor a = input(s, {s.n}, f32), c = Tensor::empty(s.rt, {s.n}, f32, s.dev);
      return Workload{name, f32, std::to_string(s.n), bytes_of(2 * s.n, f32), 0, 1.3e-6, 1e-5,
                      [=] { check(tsr_unary_out(op, a.get(), c.get())); }, [=] { return c; },
                      verified(s, [=, &s] { return on_cpu64(s, a).unary(op); })};
    }});
  }
  w.push_back({"sum", f32, TSR_OP_SUM, [=](const Setup& s) {  // a full sum of values in [0, 1): no cancellation
    Tensor a = input(s, {s.n}, f32, false);
    auto out = std::make_shared<Tensor>(nullptr);
    return Workload{"sum", f32, std::to_string(s.n), bytes_of(s.n, f32), 0, 1e-5, 0, [=] { *out = a.sum(); },
                    [=] { return *out; }, verified(s, [=, &s] { return on_cpu64(s, a).sum(); })};
  }});
  w.push_back({"transpose_copy", f32, TSR_OP_COPY, [=](const Setup& s) {  // dst = src.T, into an existing square tensor
    const int64_t side = std::max<int64_t>(static_cast<int64_t>(std::sqrt(static_cast<double>(s.n))), 1);
    Tensor src = input(s, {side, side}, f32), dst = Tensor::empty(s.rt, {side, side}, f32, s.dev);
    return Workload{"transpose_copy", f32, std::to_string(side) + "x" + std::to_string(side),
                    bytes_of(2 * side * side, f32), 0, 0, 0, [=] { Tensor d = dst; d.copy_(src.T()); },
                    [=] { return dst; }, verified(s, [=, &s] { return on_cpu64(s, src).T(); })};
  }});
  // Square matmuls of about 64·n multiply-adds (1024^3 for n = 2^24), in each float dtype.
  for (tsr_dtype d : {TSR_FLOAT32, TSR_FLOAT64, TSR_FLOAT16, TSR_BFLOAT16}) {
    w.push_back({"matmul", d, TSR_OP_MATMUL, [=](const Setup& s) {
      const int64_t side = std::clamp<int64_t>(
          static_cast<int64_t>(std::cbrt(64.0 * static_cast<double>(s.n)) / 16) * 16, 16, 4096);
      Tensor a = input(s, {side, side}, d), b = input(s, {side, side}, d);
      auto out = std::make_shared<Tensor>(nullptr);
      // Each result sums `side` products of values in [-1, 1): about sqrt(side) in size. The
      // tolerances allow float32 with TF32 tensor cores (allow_tf32) and float16's and bfloat16's
      // rounding of the result; a wrong kernel is off by far more.
      const bool narrow = d == TSR_FLOAT16 || d == TSR_BFLOAT16;
      const double rtol = d == TSR_FLOAT64 ? 1e-12 : narrow ? 2e-2 : 1e-3;
      const double atol = (d == TSR_FLOAT64 ? 1e-12 : narrow ? 2e-2 : 1e-3) * std::sqrt(static_cast<double>(side));
      return Workload{"matmul", d, std::to_string(side) + "^3", 0, 2.0 * std::pow(static_cast<double>(side), 3),
                      rtol, atol, [=] { *out = a.matmul(b); }, [=] { return *out; },
                      verified(s, [=, &s] { return on_cpu64(s, a).matmul(on_cpu64(s, b)); })};
    }});
  }
  w.push_back({"tiny_add", f32, TSR_OP_ADD, [=](const Setup& s) {  // a one-element add with a new result: the per-op cost
    Tensor a = input(s, {1}, f32), b = input(s, {1}, f32);
    auto out = std::make_shared<Tensor>(nullptr);
    return Workload{"tiny_add", f32, "1", 0, 0, 1.3e-6, 1e-5, [=] { *out = a.binary(TSR_OP_ADD, b); },
                    [=] { return *out; },
                    verified(s, [=, &s] { return on_cpu64(s, a).binary(TSR_OP_ADD, on_cpu64(s, b)); })};
  }});
  return w;
}

// "ok", or what is wrong with the result.
std::string verify(const Setup& s, const Workload& w) {
  if (!w.reference) return "not verified (no cpu device)";
  Tensor got = w.result().to(*s.cpu).to(TSR_FLOAT64);
  Tensor want = w.reference().contiguous();
  if (tsr_assert_close(got.get(), want.get(), w.rtol, w.atol, 1) == TSR_OK) return "ok";
  std::string why = std::string("FAILED: ") + tsr_last_error_message(), line;  // one line: "a; b; c"
  for (char c : why) {
    if (c != '\n') line += c;
    else if (!line.empty() && line.back() != ' ') line += "; ";
  }
  return line;
}

// The median seconds per iteration over five repetitions of at least
// `seconds` / 5 each.
double time_it(const Setup& s, const Workload& w, double seconds) {
  auto timed = [&](int64_t iters) {
    const auto t0 = Clock::now();
    for (int64_t i = 0; i < iters; ++i) w.run();
    check(tsr_synchronize(s.rt.get(), s.dev));
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  const double target = std::max(seconds / 5, 1e-4);
  int64_t iters = 1;
  double t = timed(iters);
  while (t < target && iters < (int64_t{1} << 40)) {
    iters = std::max<int64_t>(iters * 2, static_cast<int64_t>(static_cast<double>(iters) * target / std::max(t, 1e-9)));
    t = timed(iters);
  }
  std::vector<double> per{t / static_cast<double>(iters)};
  for (int k = 0; k < 4; ++k) per.push_back(timed(iters) / static_cast<double>(iters));
  std::sort(per.begin(), per.end());
  return per[per.size() / 2];
}

std::string json_string(const std::string& v) {
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
    out += c;
  }
  return out + "\"";
}

void print_json(const std::vector<Record>& records) {
  std::printf("[");
  for (size_t i = 0; i < records.size(); ++i) {
    const Record& r = records[i];
    std::printf("%s\n  {\"device\": %s, \"workload\": %s, \"dtype\": %s, \"size\": %s, \"seconds\": %.6g, "
                "\"bytes\": %.17g, \"flops\": %.17g, \"check\": %s}",
                i ? "," : "", json_string(r.device).c_str(), json_string(r.workload).c_str(),
                json_string(r.dtype).c_str(), json_string(r.size).c_str(), r.seconds, r.bytes, r.flops,
                json_string(r.check).c_str());
  }
  std::printf("\n]\n");
}

}  // namespace

int bench(const Options& opts) {
  if (opts.size < 0 || opts.seconds < 0) {
    std::fprintf(stderr, "tessera bench: --size and --seconds must not be negative\n");
    return 2;
  }
  try {
    Runtime rt(opts.config);
    const std::vector<tsr_device> devices = chosen_devices(rt, opts.device);
    std::optional<tsr_device> cpu;
    tsr_device found;
    if (tsr_device_parse(rt.get(), "cpu", &found) == TSR_OK) cpu = found;
    const int64_t n = opts.size > 0 ? opts.size : int64_t{1} << 24;
    const double seconds = opts.seconds > 0 ? opts.seconds : 0.5;
    std::vector<Record> records;
    bool failed = false, any = false;
    for (tsr_device dev : devices) {
      const Setup setup{rt, dev, cpu, n};
      const std::string device = rt.device_name(dev);
      if (!opts.json)
        std::printf("\ntessera bench on %s: %lld-element float32 operands, %.2g s per workload\n%-19s %-9s %-12s %10s %16s  %s\n",
                    device.c_str(), static_cast<long long>(n), seconds, "workload", "dtype", "size", "time", "rate", "check");
      for (const Entry& entry : workloads()) {
        if (!opts.op.empty() && opts.op != entry.name) continue;
        any = true;
        Record r{device, entry.name, tsr_dtype_name(entry.dtype), "", "", 0, 0, 0};
        try {
          const Workload w = entry.build(setup);
          r.size = w.size;
          r.bytes = w.bytes;
          r.flops = w.flops;
          w.run();
          r.check = verify(setup, w);
          // A row timed through the CPU fallback measures copies, not the
          // device; one built from primitives (Note [Primitives]) measures
          // several kernels: say so.
          if (tsr_runtime_has_kernel(rt.get(), dev, entry.op, entry.dtype) == 0)
            r.check += std::string(tsr_op_role(entry.op) == TSR_OP_ROLE_COMPOSITE ? " (composite" : " (CPU fallback") +
                       ": no native " + tsr_op_name(entry.op) + " " + tsr_dtype_name(entry.dtype) + " kernel)";
          if (r.check.rfind("FAILED", 0) != 0) r.seconds = time_it(setup, w, seconds);  // a wrong result has no speed
        } catch (const Error& e) {
          r.check = e.status() == TSR_ERR_UNSUPPORTED ? std::string("not supported") : std::string("ERROR: ") + e.what();
        }
        const bool bad = r.check.rfind("FAILED", 0) == 0 || r.check.rfind("ERROR", 0) == 0;
        failed = failed || bad;
        if (!opts.json)
          std::printf("%-19s %-9s %-12s %10s %16s  %s\n", r.workload.c_str(), r.dtype.c_str(), r.size.c_str(),
                      r.seconds > 0 ? human_seconds(r.seconds).c_str() : "-", r.seconds > 0 ? rate(r).c_str() : "-",
                      r.check.c_str());
        records.push_back(std::move(r));
      }
    }
    if (!any && !opts.op.empty()) {
      std::fprintf(stderr, "tessera bench: no workload named \"%s\" (add_out, bcast_add_out, add_transposed_out, "
                           "relu_out, sigmoid_out, exp_out, sum, transpose_copy, matmul, tiny_add)\n", opts.op.c_str());
      return 2;
    }
    if (opts.json) print_json(records);
    return failed ? 1 : 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "tessera bench: %s\n", e.what());
    return e.status() == TSR_ERR_CONFIG ? 2 : 1;
  }
}

}  // namespace tessera::tool
