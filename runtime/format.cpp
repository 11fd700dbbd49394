// SPDX-License-Identifier: Apache-2.0
// A port of PyTorch 1.13's tensor printing (torch/_tensor_str.py) for dense
// tensors; a complex one has a formatter for its real parts and one for its
// imaginary parts, as there. Names follow the Python so the two can be read side
// by side: a Formatter chooses one width and style for every element, then
// the nested-bracket text is built dim by dim, then the suffixes are added.
#include "format.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

#include "layout.hpp"
#include "tessera/dtype.h"

namespace tessera::rt {

namespace {

// printf into a std::string of the right size (values up to 1e308 in %f).
template <class... Args>
std::string printf_string(const char* format, Args... args) {
  int n = std::snprintf(nullptr, 0, format, args...);
  if (n <= 0) return std::string();
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), format, args...);
  out.resize(static_cast<size_t>(n));
  return out;
}

// Python spells non-finite values "nan", "inf", "-inf" in every float format.
bool nonfinite_text(double value, std::string& out) {
  if (std::isnan(value)) {
    out = "nan";
    return true;
  }
  if (std::isinf(value)) {
    out = value < 0 ? "-inf" : "inf";
    return true;
  }
  return false;
}

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

}  // namespace

std::string python_fixed(double value, int precision) {
  std::string out;
  if (nonfinite_text(value, out)) return out;
  return printf_string("%.*f", precision < 0 ? 0 : precision, value);
}

std::string python_sci(double value, int precision) {
  std::string out;
  if (nonfinite_text(value, out)) return out;
  return printf_string("%.*e", precision < 0 ? 0 : precision, value);
}

std::string python_float_repr(double value) {
  std::string out;
  if (nonfinite_text(value, out)) return out;
  // Shortest round-trip digits, as d.ddde[+-]x; then Python's layout rules
  // (float_repr_style 'short': scientific when the decimal point would sit
  // more than 16 places right or 4 or more places left of the digits).
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::scientific);
  std::string text(buf, result.ptr);
  bool negative = !text.empty() && text[0] == '-';
  if (negative) text.erase(0, 1);
  size_t e = text.find('e');
  std::string mantissa = text.substr(0, e);
  int exponent = std::stoi(text.substr(e + 1));
  std::string digits;
  for (char c : mantissa)
    if (c != '.') digits += c;
  int decpt = exponent + 1;  // value = 0.digits * 10^decpt
  int ndigits = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    out = digits.substr(0, 1);
    if (ndigits > 1) out += "." + digits.substr(1);
    out += exponent < 0 ? "e-" : "e+";
    std::string exp_digits = std::to_string(exponent < 0 ? -exponent : exponent);
    if (exp_digits.size() < 2) exp_digits = "0" + exp_digits;
    out += exp_digits;
  } else if (decpt <= 0) {
    out = "0." + std::string(static_cast<size_t>(-decpt), '0') + digits;
  } else if (decpt >= ndigits) {
    out = digits + std::string(static_cast<size_t>(decpt - ndigits), '0') + ".0";
  } else {
    out = digits.substr(0, static_cast<size_t>(decpt)) + "." + digits.substr(static_cast<size_t>(decpt));
  }
  return negative ? "-" + out : out;
}

namespace {

// _Formatter over floating values: one width and style for all of them.
struct FloatFormatter {
  bool int_mode = true;
  bool sci_mode = false;
  size_t max_width = 1;

  // _Formatter.__init__ for a floating tensor holding `all` values.
  void choose(const std::vector<double>& all, const PrintOptions& opts) {
    std::vector<double> values;  // the nonzero finite ones
    for (double v : all)
      if (std::isfinite(v) && v != 0.0) values.push_back(v);
    if (values.empty()) return;  // PyTorch returns before applying sci_mode here
    double lo = std::fabs(values[0]), hi = lo;
    for (double v : values) {
      lo = std::min(lo, std::fabs(v));
      hi = std::max(hi, std::fabs(v));
      if (v != std::ceil(v)) int_mode = false;
    }
    const int p = opts.precision;
    if (int_mode) {
      if (hi / lo > 1000.0 || hi > 1.0e8) {
        sci_mode = true;
        for (double v : values) max_width = std::max(max_width, python_sci(v, p).size());
      } else {
        for (double v : values) max_width = std::max(max_width, python_fixed(v, 0).size() + 1);
      }
    } else {
      if (hi / lo > 1000.0 || hi > 1.0e8 || lo < 1.0e-4) {
        sci_mode = true;
        for (double v : values) max_width = std::max(max_width, python_sci(v, p).size());
      } else {
        for (double v : values) max_width = std::max(max_width, python_fixed(v, p).size());
      }
    }
    if (opts.sci_mode >= 0) sci_mode = opts.sci_mode != 0;
  }

  // _Formatter.format.
  std::string format(double v, const PrintOptions& opts) const {
    std::string s;
    if (sci_mode) {
      s = python_sci(v, opts.precision);
    } else if (int_mode) {
      s = python_fixed(v, 0);
      if (std::isfinite(v)) s += ".";
    } else {
      s = python_fixed(v, opts.precision);
    }
    return pad_left(s, max_width);
  }
};

// One tensor's printing state: the options, the element reader and the
// row-major strides used to walk sub-tensors by flat index.
struct Printer {
  const HostTensor& t;
  const PrintOptions& opts;
  bool summarize = false;
  std::vector<int64_t> row_strides;

  // _Formatter's state: integers and bool by width alone, floating values by
  // `real`, complex ones by `real` (real parts) and `imag` (imaginary parts).
  bool floating = false;
  bool complex = false;
  size_t max_width = 1;
  FloatFormatter real, imag;

  Printer(const HostTensor& tensor, const PrintOptions& options) : t(tensor), opts(options) {
    complex = tsr_dtype_is_complex(t.dtype) != 0;
    floating = tsr_dtype_is_floating(t.dtype) != 0 || complex;
    row_strides.assign(static_cast<size_t>(t.ndim), 1);
    for (int32_t d = t.ndim - 2; d >= 0; --d) row_strides[d] = row_strides[d + 1] * t.shape[d + 1];
  }

  int64_t edge() const { return opts.edgeitems < 0 ? 0 : opts.edgeitems; }
  bool cut(int64_t size) const { return summarize && size > 2 * edge(); }

  // get_summarized_data: the flat indices the formatter looks at. For 1-d,
  // self[-0:] is the whole row, so edgeitems 0 keeps every element there.
  void summarized_indices(int32_t d, int64_t base, std::vector<int64_t>& out) const {
    if (d == t.ndim) {
      out.push_back(base);
      return;
    }
    int64_t n = t.shape[d];
    auto walk = [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) summarized_indices(d + 1, base + i * row_strides[d], out);
    };
    if (!cut(n)) {
      walk(0, n);
    } else {
      walk(0, edge());
      bool one_d = d == t.ndim - 1;
      walk(one_d && edge() == 0 ? 0 : n - edge(), n);
    }
  }

  std::string int_text(int64_t index) const {
    if (t.dtype == TSR_BOOL) return value_as_int64(t.dtype, t.data, index) != 0 ? "True" : "False";
    const int64_t v = value_as_int64(t.dtype, t.data, index);
    return t.dtype == TSR_UINT64 ? std::to_string(static_cast<uint64_t>(v)) : std::to_string(v);
  }

  // _Formatter.__init__.
  void choose_format() {
    std::vector<int64_t> indices;
    if (summarize) {
      summarized_indices(0, 0, indices);
    } else {
      int64_t n = host_numel(t);
      indices.reserve(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) indices.push_back(i);
    }
    if (!floating) {
      for (int64_t i : indices) max_width = std::max(max_width, int_text(i).size());
      return;
    }
    std::vector<double> reals, imags;
    for (int64_t i : indices) {
      const std::complex<double> v = value_as_complex(t.dtype, t.data, i);
      reals.push_back(v.real());
      if (complex) imags.push_back(v.imag());
    }
    real.choose(reals, opts);
    if (complex) imag.choose(imags, opts);
  }

  // _Formatter.format, and _vector_str's _val_formatter for complex values:
  // the imaginary part's text, stripped, with "j" and a sign.
  std::string format(int64_t index) const {
    if (!floating) return pad_left(int_text(index), max_width);
    const std::complex<double> v = value_as_complex(t.dtype, t.data, index);
    std::string s = real.format(v.real(), opts);
    if (!complex) return s;
    std::string im = imag.format(v.imag(), opts) + "j";
    im.erase(0, im.find_first_not_of(' '));
    return s + (im[0] == '+' || im[0] == '-' ? "" : "+") + im;
  }

  // The width of one element's text.
  int64_t element_width() const {
    if (!floating) return static_cast<int64_t>(max_width);
    if (!complex) return static_cast<int64_t>(real.max_width);
    return static_cast<int64_t>(real.max_width + imag.max_width + 1);  // the "j"
  }

  // _vector_str.
  std::string vector_str(int64_t base, int64_t indent) const {
    const int64_t n = t.shape[t.ndim - 1];
    const int64_t element_length = element_width() + 2;
    const int64_t per_line = std::max<int64_t>(
        1, static_cast<int64_t>(std::floor(static_cast<double>(opts.linewidth - indent) / element_length)));
    std::vector<std::string> data;
    auto add = [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) data.push_back(format(base + i));
    };
    if (cut(n)) {
      add(0, edge());
      data.push_back(" ...");
      add(edge() == 0 ? 0 : n - edge(), n);
    } else {
      add(0, n);
    }
    std::string out = "[";
    const std::string line_break = ",\n" + std::string(static_cast<size_t>(indent + 1), ' ');
    for (size_t i = 0; i < data.size(); ++i) {
      if (i > 0) out += (static_cast<int64_t>(i) % per_line == 0) ? line_break : ", ";
      out += data[i];
    }
    return out + "]";
  }

  // _tensor_str_with_formatter, for the sub-tensor at dim d starting at base.
  std::string tensor_str(int32_t d, int64_t base, int64_t indent) const {
    const int32_t dims_left = t.ndim - d;
    if (dims_left == 0) return format(base);
    if (dims_left == 1) return vector_str(base, indent);
    const int64_t n = t.shape[d];
    std::vector<std::string> slices;
    auto add = [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) slices.push_back(tensor_str(d + 1, base + i * row_strides[d], indent + 1));
    };
    if (cut(n)) {
      add(0, edge());
      slices.push_back("...");
      add(n - edge(), n);
    } else {
      add(0, n);
    }
    const std::string separator =
        "," + std::string(static_cast<size_t>(dims_left - 1), '\n') + std::string(static_cast<size_t>(indent + 1), ' ');
    std::string out = "[";
    for (size_t i = 0; i < slices.size(); ++i) {
      if (i > 0) out += separator;
      out += slices[i];
    }
    return out + "]";
  }
};

// _add_suffixes: each suffix goes on the same line while it fits in
// linewidth, else on a new line at the indent of "tensor(".
std::string add_suffixes(std::string text, const std::vector<std::string>& suffixes, int64_t indent,
                         int linewidth) {
  size_t newline = text.rfind('\n');
  // len - rfind + 1, with rfind == -1 when there is no newline (as in Python).
  int64_t last_line_len = static_cast<int64_t>(text.size()) -
                          (newline == std::string::npos ? -1 : static_cast<int64_t>(newline)) + 1;
  for (const std::string& suffix : suffixes) {
    const int64_t len = static_cast<int64_t>(suffix.size());
    if (last_line_len + len + 2 > linewidth) {
      text += ",\n" + std::string(static_cast<size_t>(indent), ' ') + suffix;
      last_line_len = indent + len;
    } else {
      text += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return text + ")";
}

}  // namespace

std::string format_tensor(const HostTensor& t, const PrintOptions& opts, const std::string& device_text,
                          const std::string& grad_suffix) {
  const std::string prefix = "tensor(";
  const int64_t indent = static_cast<int64_t>(prefix.size());
  const std::string dtype_suffix = std::string("dtype=tessera.") + tsr_dtype_name(t.dtype);
  std::vector<std::string> suffixes;
  if (device_text != "cpu") suffixes.push_back("device='" + device_text + "'");

  const int64_t numel = host_numel(t);
  std::string body;
  if (numel == 0) {
    // No elements to show the dtype by, so only float32 (the default) omits it.
    if (t.ndim != 1) suffixes.push_back("size=" + format_tuple(t.shape, t.ndim));
    if (t.dtype != TSR_FLOAT32) suffixes.push_back(dtype_suffix);
    body = "[]";
  } else {
    // complex64 is the default complex dtype (the default float's).
    if (t.dtype != TSR_FLOAT32 && t.dtype != TSR_COMPLEX64 && t.dtype != TSR_INT64 && t.dtype != TSR_BOOL)
      suffixes.push_back(dtype_suffix);
    Printer printer(t, opts);
    printer.summarize = numel > opts.threshold;
    printer.choose_format();
    body = printer.tensor_str(0, 0, indent);
  }
  if (!grad_suffix.empty()) suffixes.push_back(grad_suffix);
  return add_suffixes(prefix + body, suffixes, indent, opts.linewidth);
}

}  // namespace tessera::rt
