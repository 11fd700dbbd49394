// SPDX-License-Identifier: Apache-2.0
// The GPU's element types are the shared ones (backends/common/element_types.hpp).
#pragma once

#include <type_traits>

#include "element_types.hpp"

namespace tessera::cuda {
using namespace tessera::backend;  // Half, storage_t, convert, load, store, wrap_*, m_*, for_each_dtype

// What complex sums, products and scans accumulate in: (double, double), as
// the CPU's complex<double>. Trivially constructible, so that it fits
// __shared__ arrays and warp shuffles (Note [Complex element types]).
struct ComplexAcc {
  double re, im;
  ComplexAcc() = default;
  TSR_HD constexpr ComplexAcc(double r, double i = 0) : re(r), im(i) {}
  template <class T> TSR_HD explicit ComplexAcc(complex_t<T> z) : re(z.real()), im(z.imag()) {}
  TSR_HD complex_t<double> value() const { return complex_t<double>(re, im); }
  TSR_HD ComplexAcc& operator+=(const ComplexAcc& b) {
    re += b.re;
    im += b.im;
    return *this;
  }
  // libcu++'s product: Annex G's infinities, as the CPU's complex<double>.
  TSR_HD ComplexAcc& operator*=(const ComplexAcc& b) { return *this = ComplexAcc(value() * b.value()); }
  TSR_HD friend ComplexAcc operator+(ComplexAcc a, const ComplexAcc& b) { return a += b; }
  TSR_HD friend ComplexAcc operator*(ComplexAcc a, const ComplexAcc& b) { return a *= b; }
  TSR_HD friend ComplexAcc operator/(const ComplexAcc& a, double d) { return ComplexAcc(a.re / d, a.im / d); }
};

// A sum's accumulator type for dtype D: ComplexAcc for complex, double for
// floating, wrapping uint64 for integers and bool.
template <int D>
using wide_acc_t = std::conditional_t<is_complex_v<D>, ComplexAcc, std::conditional_t<is_floating_v<D>, double, uint64_t>>;

// x (storage of dtype D) as wide_acc_t<D>.
template <int D> TSR_HD wide_acc_t<D> widen(storage_t<D> x) {
  if constexpr (is_complex_v<D>) return ComplexAcc(load(x));
  else if constexpr (is_floating_v<D>) return static_cast<double>(load(x));
  else return static_cast<uint64_t>(static_cast<int64_t>(load(x)));
}
// An accumulator stored as storage type O (SUM's dtype of D).
template <class O, class Acc> TSR_HD O narrow(const Acc& a) {
  if constexpr (std::is_same_v<Acc, ComplexAcc>) return convert<O>(a.value());
  else if constexpr (std::is_same_v<Acc, double>) return convert<O>(a);
  else return static_cast<O>(a);
}

}  // namespace tessera::cuda
