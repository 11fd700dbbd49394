// SPDX-License-Identifier: Apache-2.0
// The FFT kind (Note [Kernel contracts], ABI 1.11): FFT, RFFT and IRFFT
// along params[0], through KissFFT (Debian's libkissfft-dev): its C library
// for float (the only precision Debian builds), its C++ template kissfft.hh
// for double. Plans are cached per (length, direction) in the plugin
// instance's Context and shared between threads (Note [FFT plans]). Lines along the dim are spread over the arena
// (each task reads lines through their strides, KissFFT's own strided
// input, into contiguous buffers); one long line is split instead (Note
// [Four-step FFT]). Lengths whose largest prime factor is large go through
// Bluestein's algorithm (Note [Bluestein's FFT]), so that no length costs
// O(n^2). Real transforms of even length are complex ones of half the
// length (the usual packing of even and odd samples).
#include <bit>
#include <cmath>
#include <complex>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <kiss_fft.h>
#include <kissfft.hh>
#include <tbb/enumerable_thread_specific.h>

#include "kernels.hpp"
#include "parallel.hpp"
#include "scratch.hpp"

namespace tessera::cpu_tbb {

namespace {

// Note [FFT plans]
//   A plan holds what one length and direction needs (KissFFT's twiddles
//   and factors, Bluestein's chirp and filter, the four-step split), made
//   once and then only read. The cache belongs to the plugin instance
//   (Context::fft_plans, an FftPlans made with the Context and freed with
//   it; no process-wide state): it hands the same plan to every thread and
//   every call of that instance (one mutex around its maps; the plan
//   itself is immutable and shared through shared_ptr, so a plan in use
//   outlives its eviction; at most kCachedPlans entries per map). Plans
//   that build others (Bluestein's, the four-step's) get them from the same
//   cache, while they are made, and keep them by shared_ptr.
//   KissFFT's C plans are read-only while they run. Its C++ template is
//   not, for a length with a factor above 5: its generic butterfly writes a
//   scratch vector inside the object. Such a plan keeps one copy of itself
//   per thread that ran it (a tbb::enumerable_thread_specific member: a
//   per-thread slot of the cached plan, made on that thread's first run and
//   freed with the plan), and the copy runs; the others are shared as they
//   are. Not the per-call Work: the four-step's passes run plans from
//   inside the arena's tasks, which have no Work, and a copy per call would
//   redo O(n) twiddles each time. Likewise the float plan's gather buffer
//   for lines whose reach overflows KissFFT's int stride.
//
// Note [Bluestein's FFT]
//   KissFFT's butterfly for a prime factor p costs O(p) per element, so a
//   large prime length costs O(n^2) and loses accuracy. Past kBluesteinPrime,
//   the transform is a convolution instead: with c_k = exp(s i pi k^2 / n),
//   X_k = c_k sum_j (x_j c_j) conj(c_{k-j}), computed by FFTs of a smooth
//   length m >= 2n - 1 (powers of 2, 3 and 5, KissFFT's fast radices). The
//   chirp's phases take k^2 mod 2n exactly in integers, so they stay
//   accurate for any n.
//
// Note [Four-step FFT]
//   A single long transform (n = n1 n2) is n2 FFTs of length n1 (the
//   columns x[j1 n2 + j2], read with stride n2), each multiplied by the
//   twiddles W_n^(j2 k1), then n1 FFTs of length n2 (the rows), written
//   transposed: X[k1 + n1 k2]. Each FFT is short enough to stay in cache,
//   which pays even on one thread (a line among many: KissFFT's one long
//   recursion walks its twiddles with large strides); a line alone has both
//   passes go over the arena's threads. The twiddles come from two
//   tables of about sqrt(n) entries each (W^(q L) and W^r, m = q L + r).

constexpr int64_t kBluesteinPrime = 47;      // larger prime factors go through Bluestein
constexpr int64_t kFourStepLength = 1 << 15;  // one line at least this long is split
constexpr size_t kCachedPlans = 256;          // per map of an FftPlans (Note [FFT plans])

template <class R> using Cx = std::complex<R>;

int64_t largest_prime_factor(int64_t n) {
  int64_t largest = 1;
  for (int64_t p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      largest = p;
      n /= p;
    }
  return n > 1 ? std::max(largest, n) : largest;
}

// The smallest 2^a 3^b 5^c >= n.
int64_t smooth_length(int64_t n) {
  int64_t best = std::numeric_limits<int64_t>::max();
  for (int64_t p5 = 1; p5 < best; p5 *= 5)
    for (int64_t p35 = p5; p35 < best; p35 *= 3) {
      int64_t v = p35;
      while (v < n) v *= 2;
      best = std::min(best, v);
    }
  return best;
}

// exp(sign 2 pi i num / den), in double.
Cx<double> unit_root(int64_t num, int64_t den, int sign) {
  const double phase = sign * 2.0 * std::numbers::pi * static_cast<double>(num) / static_cast<double>(den);
  return {std::cos(phase), std::sin(phase)};
}

// KissFFT for one length and direction: out = the unnormalised DFT of n
// elements of in read with stride `stride` (out contiguous, never in).
template <class R> class Kiss;

template <> class Kiss<float> {
 public:
  Kiss(int64_t n, bool inverse)
      : cfg_(kiss_fft_alloc(static_cast<int>(n), inverse ? 1 : 0, nullptr, nullptr)), n_(n) {
    if (cfg_ == nullptr) fail(TSR_ERR_OUT_OF_MEMORY, "cpu_tbb: KissFFT could not make a plan of length " + std::to_string(n));
  }
  ~Kiss() { kiss_fft_free(cfg_); }
  Kiss(const Kiss&) = delete;
  Kiss& operator=(const Kiss&) = delete;
  void run(const Cx<float>* in, int64_t stride, Cx<float>* out) const {
    // The C library steps through the input in int: a line whose reach does
    // not fit is gathered first (this thread's buffer, kept between calls).
    if (stride > 1 && n_ * stride > std::numeric_limits<int>::max()) {
      std::vector<Cx<float>>& line = lines_.local();
      line.resize(static_cast<size_t>(n_));
      for (int64_t j = 0; j < n_; ++j) line[static_cast<size_t>(j)] = in[j * stride];
      in = line.data();
      stride = 1;
    }
    kiss_fft_stride(cfg_, reinterpret_cast<const kiss_fft_cpx*>(in), reinterpret_cast<kiss_fft_cpx*>(out),
                    static_cast<int>(stride));
  }

 private:
  kiss_fft_cfg cfg_;
  int64_t n_;
  mutable tbb::enumerable_thread_specific<std::vector<Cx<float>>> lines_;  // per thread (Note [FFT plans])
};

template <> class Kiss<double> {
 public:
  Kiss(int64_t n, bool inverse)
      : fft_(static_cast<size_t>(n), inverse), shared_(largest_prime_factor(n) <= 5) {}
  void run(const Cx<double>* in, int64_t stride, Cx<double>* out) const {
    if (shared_) return fft_.transform(in, out, 0, 1, static_cast<size_t>(stride));
    // Note [FFT plans]: this thread's own copy of a plan with a scratch vector.
    std::optional<kissfft<double>>& copy = copies_.local();
    if (!copy) copy.emplace(fft_);
    copy->transform(in, out, 0, 1, static_cast<size_t>(stride));
  }

 private:
  kissfft<double> fft_;
  bool shared_;
  mutable tbb::enumerable_thread_specific<std::optional<kissfft<double>>> copies_;  // when !shared_
};

template <class R> class Plan;
template <class R> std::shared_ptr<const Plan<R>> plan_of(FftPlans& plans, int64_t n, bool inverse);

// Per-task scratch of a plan's run: buffers from the plugin's caching
// allocator (Note [Why the CPU plugin caches memory]), grown on demand.
template <class R> class Work {
 public:
  explicit Work(Context& ctx) : ctx_(ctx) {}
  Context& ctx() const { return ctx_; }
  // Buffer i (0 .. 3) of at least n elements.
  Cx<R>* buffer(int i, int64_t n) {
    Slot& s = slots_[i];
    if (s.size < n) {
      s.scratch.reset();
      s.scratch = std::make_unique<Scratch>(ctx_, static_cast<size_t>(n) * sizeof(Cx<R>));
      s.size = n;
    }
    return s.scratch->template as<Cx<R>>();
  }

 private:
  struct Slot {
    std::unique_ptr<Scratch> scratch;
    int64_t size = 0;
  };
  Context& ctx_;
  Slot slots_[4];
};

// The complex DFT of one length and direction (Note [FFT plans]).
template <class R> class Plan {
 public:
  // Sub-plans (Bluestein's, the four-step's) come from `plans`, the cache
  // that makes this one; nothing keeps a reference to it.
  Plan(FftPlans& plans, int64_t n, bool inverse) : n_(n), inverse_(inverse) {
    if (n > std::numeric_limits<int>::max() / 2)
      fail(TSR_ERR_INVALID_ARGUMENT, "cpu_tbb: an FFT of length " + std::to_string(n) + " is too long for KissFFT");
    const int sign = inverse ? 1 : -1;
    if (n > kBluesteinPrime && largest_prime_factor(n) > kBluesteinPrime) {
      // Note [Bluestein's FFT]
      m_ = smooth_length(2 * n - 1);
      forward_ = plan_of<R>(plans, m_, false);
      backward_ = plan_of<R>(plans, m_, true);
      chirp_.resize(static_cast<size_t>(n));
      std::vector<Cx<R>> b(static_cast<size_t>(m_));
      for (int64_t k = 0; k < n; ++k) {
        const auto k2 = static_cast<int64_t>(static_cast<unsigned __int128>(k) * static_cast<unsigned __int128>(k) %
                                             static_cast<unsigned __int128>(2 * n));
        const Cx<double> c = unit_root(k2, 2 * n, sign);
        chirp_[static_cast<size_t>(k)] = Cx<R>(c);
        b[static_cast<size_t>(k)] = Cx<R>(std::conj(c) / static_cast<double>(m_));
        if (k > 0) b[static_cast<size_t>(m_ - k)] = b[static_cast<size_t>(k)];
      }
      filter_.resize(static_cast<size_t>(m_));
      forward_->direct(b.data(), 1, filter_.data());
      return;
    }
    kiss_.emplace(n, inverse);
    if (n >= kFourStepLength) {
      // Note [Four-step FFT]: n1 the divisor of n nearest sqrt(n) from below.
      int64_t n1 = static_cast<int64_t>(std::sqrt(static_cast<double>(n)));
      while (n % n1 != 0) --n1;
      if (n1 >= 32) {
        n1_ = n1;
        n2_ = n / n1;
        rows_ = plan_of<R>(plans, n2_, inverse);
        cols_ = plan_of<R>(plans, n1_, inverse);
        int64_t l = 1;
        while (l * l < n) l *= 2;
        low_.resize(static_cast<size_t>(l));
        high_.resize(static_cast<size_t>((n + l - 1) / l));
        for (int64_t r = 0; r < l; ++r) low_[static_cast<size_t>(r)] = Cx<R>(unit_root(r, n, sign));
        for (size_t q = 0; q < high_.size(); ++q) high_[q] = Cx<R>(unit_root(static_cast<int64_t>(q) * l, n, sign));
        twiddle_block_ = l;
      }
    }
  }

  int64_t length() const { return n_; }

  // out[0..n) = the DFT of in[0], in[stride], ...; out contiguous and not
  // overlapping in. ctx non-null: a long one may run over the arena.
  void run(const Cx<R>* in, int64_t stride, Cx<R>* out, Work<R>& work, Context* ctx) const {
    if (m_ == 0) {
      // Split even on one thread: the short FFTs stay in cache (Note [Four-step FFT]).
      if (n1_ > 0) return four_step(in, stride, out, work.ctx(), ctx != nullptr && ctx->threads > 1);
      return direct(in, stride, out);
    }
    // Note [Bluestein's FFT] (buffers 2 and 3: the kernel's are 0 and 1)
    Cx<R>* a = work.buffer(2, m_);
    Cx<R>* b = work.buffer(3, m_);
    for (int64_t j = 0; j < n_; ++j) a[j] = in[j * stride] * chirp_[static_cast<size_t>(j)];
    std::fill(a + n_, a + m_, Cx<R>(0));
    forward_->run(a, 1, b, work, ctx);
    for (int64_t k = 0; k < m_; ++k) b[k] *= filter_[static_cast<size_t>(k)];
    backward_->run(b, 1, a, work, ctx);
    for (int64_t k = 0; k < n_; ++k) out[k] = a[k] * chirp_[static_cast<size_t>(k)];
  }

  // KissFFT alone (no Bluestein plan comes here).
  void direct(const Cx<R>* in, int64_t stride, Cx<R>* out) const {
    if (n_ == 1) *out = *in;
    else kiss_->run(in, stride, out);
  }

 private:
  // Note [Four-step FFT], in blocks of kBlock columns and rows, so that
  // every pass reads and writes runs of kBlock elements, not single ones.
  void four_step(const Cx<R>* in, int64_t stride, Cx<R>* out, Context& ctx, bool parallel) const {
    constexpr int64_t kBlock = 16;
    const Scratch t_scratch(ctx, static_cast<size_t>(n_) * sizeof(Cx<R>));
    Cx<R>* t = t_scratch.as<Cx<R>>();
    const int64_t n1 = n1_, n2 = n2_, n = n_;
    const int shift = std::countr_zero(static_cast<uint64_t>(twiddle_block_));
    const int64_t mask = twiddle_block_ - 1;
    const Cx<R>* high = high_.data();
    const Cx<R>* low = low_.data();
    // Columns j2: FFT_n1 of x[j1 n2 + j2] times W^(j2 k1), into t[k1 n2 + j2].
    auto columns = [&](int64_t c0, int64_t c1) {
      const Scratch buf(ctx, static_cast<size_t>(2 * kBlock * n1) * sizeof(Cx<R>));
      Cx<R>* gathered = buf.as<Cx<R>>();
      Cx<R>* spectra = gathered + kBlock * n1;
      for (int64_t j2 = c0 * kBlock; j2 < std::min(n2, c1 * kBlock); j2 += kBlock) {
        const int64_t cols = std::min(kBlock, n2 - j2);
        for (int64_t j1 = 0; j1 < n1; ++j1)
          for (int64_t b = 0; b < cols; ++b) gathered[b * n1 + j1] = in[(j1 * n2 + j2 + b) * stride];
        for (int64_t b = 0; b < cols; ++b) cols_->direct(gathered + b * n1, 1, spectra + b * n1);
        int64_t m[kBlock] = {};  // (j2 + b) k1 mod n
        for (int64_t k1 = 0; k1 < n1; ++k1) {
          Cx<R>* row = t + k1 * n2 + j2;
          for (int64_t b = 0; b < cols; ++b) {
            row[b] = spectra[b * n1 + k1] * (high[m[b] >> shift] * low[m[b] & mask]);
            m[b] += j2 + b;
            if (m[b] >= n) m[b] -= n;
          }
        }
      }
    };
    const int64_t column_blocks = (n2 + kBlock - 1) / kBlock;
    if (parallel) ctx.parallel_for(column_blocks, std::max<int64_t>(1, column_blocks / (8 * ctx.threads)), columns);
    else columns(0, column_blocks);
    // Rows k1: FFT_n2 of t[k1 n2 + j2], into out[k1 + n1 k2].
    auto rows = [&](int64_t r0, int64_t r1) {
      const Scratch buf(ctx, static_cast<size_t>(kBlock * n2) * sizeof(Cx<R>));
      Cx<R>* spectra = buf.as<Cx<R>>();
      for (int64_t k1 = r0 * kBlock; k1 < std::min(n1, r1 * kBlock); k1 += kBlock) {
        const int64_t count = std::min(kBlock, n1 - k1);
        for (int64_t b = 0; b < count; ++b) rows_->direct(t + (k1 + b) * n2, 1, spectra + b * n2);
        for (int64_t k2 = 0; k2 < n2; ++k2)
          for (int64_t b = 0; b < count; ++b) out[k1 + b + n1 * k2] = spectra[b * n2 + k2];
      }
    };
    const int64_t row_blocks = (n1 + kBlock - 1) / kBlock;
    if (parallel) ctx.parallel_for(row_blocks, std::max<int64_t>(1, row_blocks / (8 * ctx.threads)), rows);
    else rows(0, row_blocks);
  }

  int64_t n_;
  bool inverse_;
  std::optional<Kiss<R>> kiss_;
  // Bluestein (m_ > 0)
  int64_t m_ = 0;
  std::shared_ptr<const Plan<R>> forward_, backward_;
  std::vector<Cx<R>> chirp_, filter_;
  // four-step (n1_ > 0)
  int64_t n1_ = 0, n2_ = 0, twiddle_block_ = 1;
  std::shared_ptr<const Plan<R>> rows_, cols_;
  std::vector<Cx<R>> low_, high_;
};

template <class R> using PlanMap = std::map<std::pair<int64_t, bool>, std::shared_ptr<const Plan<R>>>;
template <class R> using TwiddleMap = std::map<std::pair<int64_t, bool>, std::shared_ptr<const std::vector<Cx<R>>>>;

}  // namespace

// Note [FFT plans]: one instance's cache, keyed by (length, inverse).
struct FftPlans {
  std::mutex mutex;  // around every map below
  PlanMap<float> plans_f;
  PlanMap<double> plans_d;
  TwiddleMap<float> twiddles_f;
  TwiddleMap<double> twiddles_d;

  template <class R> PlanMap<R>& plans() {
    if constexpr (std::is_same_v<R, float>) return plans_f;
    else return plans_d;
  }
  template <class R> TwiddleMap<R>& twiddles() {
    if constexpr (std::is_same_v<R, float>) return twiddles_f;
    else return twiddles_d;
  }
};

void FftPlansDeleter::operator()(FftPlans* p) const noexcept { delete p; }
FftPlansPtr make_fft_plans() { return FftPlansPtr(new FftPlans); }

namespace {

template <class R> std::shared_ptr<const Plan<R>> plan_of(FftPlans& plans, int64_t n, bool inverse) {
  PlanMap<R>& cache = plans.plans<R>();
  {
    std::lock_guard<std::mutex> lock(plans.mutex);
    auto it = cache.find({n, inverse});
    if (it != cache.end()) return it->second;
  }
  // Made outside the lock: a plan may ask for others (Bluestein's, the
  // four-step's). Two threads may both make one; the first stored wins.
  auto plan = std::make_shared<const Plan<R>>(plans, n, inverse);
  std::lock_guard<std::mutex> lock(plans.mutex);
  if (cache.size() >= kCachedPlans) cache.clear();  // plans in use live on through their shared_ptr
  return cache.emplace(std::make_pair(n, inverse), std::move(plan)).first->second;
}

// The twiddles of the real transforms' packing: W^k = exp(sign 2 pi i k/n)
// for k in [0, n/2], per (n, direction), cached as plans are.
template <class R> std::shared_ptr<const std::vector<Cx<R>>> half_twiddles(FftPlans& plans, int64_t n, bool inverse) {
  TwiddleMap<R>& cache = plans.twiddles<R>();
  std::lock_guard<std::mutex> lock(plans.mutex);
  auto it = cache.find({n, inverse});
  if (it != cache.end()) return it->second;
  auto w = std::make_shared<std::vector<Cx<R>>>(static_cast<size_t>(n / 2 + 1));
  for (int64_t k = 0; k <= n / 2; ++k) (*w)[static_cast<size_t>(k)] = Cx<R>(unit_root(k, n, inverse ? 1 : -1));
  if (cache.size() >= kCachedPlans) cache.clear();
  return cache.emplace(std::make_pair(n, inverse), std::move(w)).first->second;
}

template <int Op, int D> struct FftKernel {
  static constexpr bool kReal = Op == TSR_OP_RFFT;  // the key is the real input's dtype
  using R = std::conditional_t<D == TSR_FLOAT64 || D == TSR_COMPLEX128, double, float>;
  using C = Cx<R>;
  static constexpr int kComplexDtype = std::is_same_v<R, double> ? TSR_COMPLEX128 : TSR_COMPLEX64;
  static constexpr int kRealDtype = std::is_same_v<R, double> ? TSR_FLOAT64 : TSR_FLOAT32;

  static void run(Context& ctx, const tsr_kernel_args& a) {
    check_args(a, D, 1, 1, Op == TSR_OP_FFT ? 2 : 1);
    const tsr_tensor_desc& in = *a.inputs[0];
    const tsr_tensor_desc& out = *a.output;
    const int in_dtype = Op == TSR_OP_RFFT ? kRealDtype : kComplexDtype;
    const int out_dtype = Op == TSR_OP_IRFFT ? kRealDtype : kComplexDtype;
    backend::check_dtype("cpu_tbb", a, D, in, in_dtype, "input 0");
    backend::check_dtype("cpu_tbb", a, D, out, out_dtype, "output");
    const int64_t dim = a.params[0];
    if (in.ndim < 1 || dim < 0 || dim >= in.ndim || out.ndim != in.ndim)
      fail(TSR_ERR_INDEX, where(a, D) + "dim " + std::to_string(dim) + " is not a dim of a " +
                              std::to_string(in.ndim) + "-d input and " + std::to_string(out.ndim) + "-d output");
    // n: the transform's length; in and out have n (or n/2 + 1) on dim.
    const int64_t n = Op == TSR_OP_IRFFT ? out.shape[dim] : in.shape[dim];
    const int64_t in_len = Op == TSR_OP_IRFFT ? n / 2 + 1 : n;
    const int64_t out_len = Op == TSR_OP_RFFT ? n / 2 + 1 : n;
    bool ok = n >= 1 && in.shape[dim] == in_len && out.shape[dim] == out_len;
    for (int d = 0; d < in.ndim; ++d)
      if (d != dim && in.shape[d] != out.shape[d]) ok = false;
    if (!ok)
      fail(TSR_ERR_SHAPE, where(a, D) + "input of " + std::to_string(in.shape[dim]) + " and output of " +
                              std::to_string(out.shape[dim]) + " elements on dim " + std::to_string(dim) +
                              " do not make a transform (or their other dims differ)");
    const bool inverse = Op == TSR_OP_IRFFT || (Op == TSR_OP_FFT && a.params[1] != 0);
    const R scale = static_cast<R>(scalar_as_double(a.scalars[0]));

    const LineSet lines(out, static_cast<int>(dim));
    if (lines.count == 0) return;
    int64_t in_strides[TSR_MAX_DIMS] = {}, out_strides[TSR_MAX_DIMS] = {};
    LineSet::drop(in.strides, in.ndim, static_cast<int>(dim), in_strides);
    LineSet::drop(out.strides, out.ndim, static_cast<int>(dim), out_strides);
    const int64_t si = in.strides[dim], so = out.strides[dim];
    using In = std::conditional_t<Op == TSR_OP_RFFT, R, C>;
    using Out = std::conditional_t<Op == TSR_OP_IRFFT, R, C>;
    const In* x = static_cast<const In*>(in.data) + in.offset;
    Out* y = static_cast<Out*>(out.data) + out.offset;

    // The complex transform: n itself, or n/2 for the real ones of even n.
    const bool half = Op != TSR_OP_FFT && n % 2 == 0;
    FftPlans& plans = *ctx.fft_plans;  // Note [FFT plans]
    const std::shared_ptr<const Plan<R>> plan = plan_of<R>(plans, half ? n / 2 : n, inverse);
    std::shared_ptr<const std::vector<C>> twiddles;
    if (half) twiddles = half_twiddles<R>(plans, n, inverse);
    // One line alone may use the arena itself (Note [Four-step FFT]).
    Context* inner = lines.count < ctx.threads ? &ctx : nullptr;

    // Over [0, count): in parallel for a line that has the arena to itself.
    auto each = [&](int64_t count, auto&& f) {
      if (inner != nullptr && count >= kParallelThreshold)
        ctx.parallel_for(count, piece_size(count, ctx.threads), f);
      else
        f(int64_t{0}, count);
    };
    auto body = [&](int64_t l0, int64_t l1) {
      StridedWalk<2> walk(lines.ndim, lines.shape, {in_strides, out_strides}, l0);
      Work<R> work(ctx);
      const int64_t m = plan->length();
      C* buf = work.buffer(0, m);
      C* res = work.buffer(1, m);
      for (int64_t l = l0; l < l1; ++l, walk.next()) {
        const In* xl = x + walk.off[0];
        Out* yl = y + walk.off[1];
        if constexpr (Op == TSR_OP_FFT) {
          // A contiguous output line (not the input's own) takes the result directly.
          const bool direct = so == 1 && static_cast<const void*>(xl) != static_cast<const void*>(yl);
          plan->run(xl, si, direct ? yl : res, work, inner);
          if (!direct || scale != R(1))
            each(n, [&](int64_t k0, int64_t k1) {
              const C* from = direct ? yl : res;
              for (int64_t k = k0; k < k1; ++k) yl[k * so] = from[k] * scale;
            });
        } else if constexpr (Op == TSR_OP_RFFT) {
          if (!half) {
            for (int64_t j = 0; j < n; ++j) buf[j] = C(xl[j * si], 0);
            plan->run(buf, 1, res, work, inner);
            for (int64_t k = 0; k < out_len; ++k) yl[k * so] = res[k] * scale;
          } else {
            // z_j = x_2j + i x_2j+1; Z = FFT_N(z); X_k = E_k + W^k O_k.
            const int64_t h = n / 2;
            each(h, [&](int64_t j0, int64_t j1) {
              for (int64_t j = j0; j < j1; ++j) buf[j] = C(xl[2 * j * si], xl[(2 * j + 1) * si]);
            });
            plan->run(buf, 1, res, work, inner);
            const C* w = twiddles->data();
            const R half_scale = scale / 2;
            each(h + 1, [&](int64_t k0, int64_t k1) {
              for (int64_t k = k0; k < k1; ++k) {
                const C zk = res[k == h ? 0 : k];
                const C zc = std::conj(res[k == 0 ? 0 : h - k]);
                const C e = zk + zc, o = C(zk.imag() - zc.imag(), zc.real() - zk.real());  // (zk - zc) / i
                yl[k * so] = (e + w[k] * o) * half_scale;
              }
            });
          }
        } else {  // IRFFT
          auto load = [&](int64_t k) {
            C v = xl[k * si];
            if (k == 0 || 2 * k == n) v.imag(0);  // the parts the contract ignores
            return v;
          };
          if (!half) {
            for (int64_t k = 0; k < in_len; ++k) buf[k] = load(k);
            for (int64_t k = in_len; k < n; ++k) buf[k] = std::conj(buf[n - k]);
            plan->run(buf, 1, res, work, inner);
            for (int64_t j = 0; j < n; ++j) yl[j * so] = res[j].real() * scale;
          } else {
            // Z_k = (X_k + conj X_{N-k}) + i W^-k (X_k - conj X_{N-k}), W the forward root; z = IFFT_N(Z).
            const int64_t h = n / 2;
            const C* w = twiddles->data();
            each(h, [&](int64_t k0, int64_t k1) {
              for (int64_t k = k0; k < k1; ++k) {
                const C xk = load(k), xc = std::conj(load(h - k));
                const C d = w[k] * (xk - xc);
                buf[k] = (xk + xc) + C(-d.imag(), d.real());
              }
            });
            plan->run(buf, 1, res, work, inner);
            each(h, [&](int64_t j0, int64_t j1) {
              for (int64_t j = j0; j < j1; ++j) {
                yl[2 * j * so] = res[j].real() * scale;
                yl[(2 * j + 1) * so] = res[j].imag() * scale;
              }
            });
          }
        }
      }
    };
    if (inner != nullptr || lines.count == 1) {
      body(0, lines.count);
    } else {
      const int64_t work = lines.count * n * 8;
      maybe_parallel(ctx, lines.count, work, 1, body);
    }
  }
};

}  // namespace

void add_fft_kernels(KernelList& list) { add_kernels_of_kind<FftKernel, TSR_OP_KIND_FFT>(list); }

}  // namespace tessera::cpu_tbb
