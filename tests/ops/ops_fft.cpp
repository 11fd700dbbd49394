// SPDX-License-Identifier: Apache-2.0
// tsr_fft (tessera/fft.h, ABI 1.11) on the CPU through the public C API,
// against the O(n^2) DFT computed here in long double: every length 1..64,
// primes (KissFFT's generic butterflies and Bluestein's algorithm), smooth
// composites, each kind and direction, strided inputs, and the errors.
#include <cmath>
#include <complex>
#include <numbers>
#include <string>
#include <vector>

#include "ops_common.hpp"

using namespace ops;

namespace {

using cld = std::complex<long double>;

// The DFT of x with sign s and the given scale, in long double.
std::vector<cld> dft(const std::vector<cld>& x, int64_t n, int sign, long double scale) {
  std::vector<cld> root(static_cast<size_t>(n));  // exp(s 2 pi i m / n): exact phases, no loss for large j k
  for (int64_t m = 0; m < n; ++m) {
    const long double phase = sign * 2.0L * std::numbers::pi_v<long double> * static_cast<long double>(m) / n;
    root[static_cast<size_t>(m)] = cld(std::cos(phase), std::sin(phase));
  }
  std::vector<cld> out(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    cld sum = 0;
    int64_t jk = 0;
    for (int64_t j = 0; j < n; ++j, jk = (jk + k) % n) sum += x[static_cast<size_t>(j)] * root[static_cast<size_t>(jk)];
    out[static_cast<size_t>(k)] = sum * scale;
  }
  return out;
}

std::vector<cld> samples(int64_t n, uint32_t seed, bool real) {
  std::vector<cld> x(static_cast<size_t>(n));
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
  auto next = [&] {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    return static_cast<long double>(s % 2001) / 1000.0L - 1.0L;
  };
  for (auto& v : x) v = real ? cld(next(), 0) : cld(next(), next());
  return x;
}

Tensor tensor_of(const std::vector<cld>& x, tsr_dtype dtype) {
  const int64_t n = static_cast<int64_t>(x.size());
  if (tsr_dtype_is_complex(dtype)) {
    std::vector<std::complex<double>> v;
    for (const cld& e : x) v.emplace_back(static_cast<double>(e.real()), static_cast<double>(e.imag()));
    return Tensor::from_host(runtime(), v, {n}, TSR_COMPLEX128, cpu()).to(dtype);
  }
  std::vector<double> v;
  for (const cld& e : x) v.push_back(static_cast<double>(e.real()));
  return Tensor::from_host(runtime(), v, {n}, TSR_FLOAT64, cpu()).to(dtype);
}

std::vector<cld> read(const Tensor& t) {
  const Tensor c = t.to(tsr_dtype_is_complex(t.dtype()) ? TSR_COMPLEX128 : TSR_FLOAT64).contiguous();
  const int64_t n = c.numel();
  const bool complex = tsr_dtype_is_complex(c.dtype());
  std::vector<double> flat(static_cast<size_t>(n * (complex ? 2 : 1)));
  REQUIRE(tsr_read(c.get(), flat.data(), flat.size() * sizeof(double)) == TSR_OK);
  std::vector<cld> out;
  for (int64_t i = 0; i < n; ++i)
    out.emplace_back(complex ? flat[static_cast<size_t>(2 * i)] : flat[static_cast<size_t>(i)],
                     complex ? flat[static_cast<size_t>(2 * i + 1)] : 0.0);
  return out;
}

// The relative error in the 2-norm, as the contract bounds it.
long double rel_error(const std::vector<cld>& got, const std::vector<cld>& want) {
  REQUIRE(got.size() == want.size());
  long double diff = 0, norm = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    diff += std::norm(got[i] - want[i]);
    norm += std::norm(want[i]);
  }
  return norm == 0 ? std::sqrt(diff) : std::sqrt(diff / norm);
}

Tensor run_fft(const Tensor& x, int32_t kind, bool inverse, int32_t norm, int64_t n) {
  tsr_fft_options o;
  REQUIRE(tsr_fft_options_init(&o) == TSR_OK);
  o.kind = kind;
  o.inverse = inverse ? 1 : 0;
  o.norm = norm;
  o.num_dims = 1;
  o.dims[0] = -1;
  o.n[0] = n;
  tsr_tensor* out = nullptr;
  const tsr_status st = tsr_fft(x.get(), &o, &out);
  INFO(tsr_last_error_message());
  REQUIRE(st == TSR_OK);
  return Tensor(out);
}

// The 2-norm error bound: a few ulps times log2(n), for the precision.
long double bound(tsr_dtype d, int64_t n) {
  const long double ulp = (d == TSR_COMPLEX64 || d == TSR_FLOAT32) ? 6e-8L : 1.2e-16L;
  return 8 * ulp * (1 + std::log2(static_cast<long double>(n)));
}

std::vector<int64_t> lengths() {
  std::vector<int64_t> ns;
  for (int64_t n = 1; n <= 64; ++n) ns.push_back(n);
  for (int64_t n : {97, 127, 128, 257, 360, 1000, 1009, 1024, 4096, 7919}) ns.push_back(n);
  return ns;
}

}  // namespace

TEST_CASE("fft, ifft, rfft and irfft match the DFT for every length 1..64, primes and composites") {
  for (int64_t n : lengths()) {
    for (tsr_dtype c : {TSR_COMPLEX64, TSR_COMPLEX128}) {
      const tsr_dtype r = c == TSR_COMPLEX64 ? TSR_FLOAT32 : TSR_FLOAT64;
      CAPTURE(n, dtype_name(c));
            const std::vector<cld> x = samples(n, static_cast<uint32_t>(n), false);
      // C2C both ways, with the three norms' scales.
      CHECK(rel_error(read(run_fft(tensor_of(x, c), TSR_FFT_C2C, false, TSR_FFT_NORM_BACKWARD, -1)),
                      dft(x, n, -1, 1)) < bound(c, n));
      CHECK(rel_error(read(run_fft(tensor_of(x, c), TSR_FFT_C2C, true, TSR_FFT_NORM_BACKWARD, -1)),
                      dft(x, n, 1, 1.0L / n)) < bound(c, n));
      CHECK(rel_error(read(run_fft(tensor_of(x, c), TSR_FFT_C2C, false, TSR_FFT_NORM_ORTHO, -1)),
                      dft(x, n, -1, 1.0L / std::sqrt(static_cast<long double>(n)))) < bound(c, n));
      // R2C: the first n/2 + 1 values of the real input's DFT.
      const std::vector<cld> xr = samples(n, static_cast<uint32_t>(n) + 7, true);
      std::vector<cld> want = dft(xr, n, -1, 1.0L / n);
      want.resize(static_cast<size_t>(n / 2 + 1));
      CHECK(rel_error(read(run_fft(tensor_of(xr, r), TSR_FFT_R2C, false, TSR_FFT_NORM_FORWARD, -1)), want) <
            bound(c, n));
      // C2R: the Hermitian half of that DFT back to the real input.
      const std::vector<cld> half(want.begin(), want.end());
      CHECK(rel_error(read(run_fft(tensor_of(half, c), TSR_FFT_C2R, true, TSR_FFT_NORM_FORWARD, n)), xr) <
            bound(c, n));
    }
  }
}

TEST_CASE("fft reads strided lines and pads or trims to n") {
  // A [5, 3] complex128 tensor transposed: lines along dim 1 of the view
  // have stride 3 in memory.
  const int64_t rows = 3, cols = 5;
  const std::vector<cld> x = samples(rows * cols, 11, false);
  Tensor base = tensor_of(x, TSR_COMPLEX128).view({cols, rows});
  Tensor t = base.transpose(0, 1);  // [3, 5], strides (1, 3)
  for (int64_t n : {5, 3, 8}) {
    CAPTURE(n);
    const std::vector<cld> got = read(run_fft(t, TSR_FFT_C2C, false, TSR_FFT_NORM_BACKWARD, n));
    REQUIRE(got.size() == static_cast<size_t>(rows * n));
    for (int64_t i = 0; i < rows; ++i) {
      std::vector<cld> line(static_cast<size_t>(n), 0);
      for (int64_t j = 0; j < std::min(n, cols); ++j) line[static_cast<size_t>(j)] = x[static_cast<size_t>(j * rows + i)];
      const std::vector<cld> want = dft(line, n, -1, 1);
      const std::vector<cld> row(got.begin() + i * n, got.begin() + (i + 1) * n);
      CHECK(rel_error(row, want) < bound(TSR_COMPLEX128, n));
    }
  }
}

TEST_CASE("tsr_fft refuses bad lengths, dims and dtypes with torch.fft's messages") {
  tsr_fft_options o;
  REQUIRE(tsr_fft_options_init(&o) == TSR_OK);
  tsr_tensor* out = reinterpret_cast<tsr_tensor*>(1);
  const Tensor c = tensor_of(samples(4, 1, false), TSR_COMPLEX64);
  auto fails = [&](tsr_status status, const std::string& message) {
    out = reinterpret_cast<tsr_tensor*>(1);
    CHECK(tsr_fft(c.get(), &o, &out) == status);
    CHECK(out == nullptr);
    CHECK(std::string(tsr_last_error_message()).find(message) != std::string::npos);
  };
  o.num_dims = 1;
  o.dims[0] = 0;
  o.n[0] = 0;
  fails(TSR_ERR_INVALID_ARGUMENT, "Invalid number of data points (0) specified");
  o.n[0] = -1;
  o.dims[0] = 1;
  fails(TSR_ERR_INDEX, "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  Tensor m = c.view({2, 2});
  o.num_dims = 2;
  o.dims[0] = 0;
  o.dims[1] = -2;
  o.n[1] = -1;
  out = nullptr;
  CHECK(tsr_fft(m.get(), &o, &out) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(std::string(tsr_last_error_message()) == "FFT dims must be unique");
  o.num_dims = 1;
  o.dims[0] = 0;
  o.kind = TSR_FFT_R2C;
  fails(TSR_ERR_TYPE, "rfft expects a real input tensor, but got complex64");
  o.struct_size = 8;
  fails(TSR_ERR_INVALID_ARGUMENT, "options->struct_size 8 is smaller");
}
