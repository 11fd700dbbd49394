// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the view and shape API against an element-address oracle.
//
// The input is a program: each byte picks a call — creation, transpose,
// permute, slice, select, (un)squeeze, expand, view, reshape, flatten,
// as_strided, contiguous, clone, to, copy_, fill_, broadcasting add, add
// into an existing tensor (out=, whose inputs may share its storage),
// broadcast_shapes, release — and the bytes after it its arguments, in or
// just out of range. Beside the tensors the fuzzer keeps its own model:
// for each tensor, the storage cell of every element (row-major), computed
// by a plain reference implementation of each view (index lists, no
// strides), and a mirror of every storage's cells. After every call:
//
//   * the call succeeds exactly when the model says it must (for view, whose
//     rule is intricate: it must succeed on a contiguous input);
//   * every element of a view lives at storage[offset + sum(i * stride)],
//     that address is inside the storage and is the cell the model expects;
//   * the raw storage cell there, and the value tsr_read returns, equal the
//     mirror's value; is_contiguous holds exactly when the cells are
//     consecutive;
//   * a failed call leaves its output alone and says why.
//
// Copies (contiguous, clone, to, reshape of a non-viewable tensor, copy_,
// add, add out=) carry values: the model checks those. After each input every tensor
// is released and the runtime must count no live tensor or storage.
//
// The CPU plugin is $TESSERA_FUZZ_PLUGIN (a path to cpu_tbb.so), or the fuzz
// build's own; it runs with one thread.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "runtime.hpp"
#include "tessera/element.h"
#include "tessera/tessera.h"

const char* const fuzz::kTarget = "fuzz_views";

namespace {

using fuzz::finding;
using fuzz::runtime;

constexpr int64_t kMaxModelElements = 4096;  // larger results are not built
constexpr size_t kMaxTensors = 8;

const tsr_device kCpu{TSR_DEVICE_CPU, 0};

// ---- the input, read as arguments ----------------------------------------------

class Input {
 public:
  Input(const uint8_t* p, size_t n) : p_(p), n_(n) {}
  bool done() const { return i_ >= n_; }
  uint8_t byte() { return i_ < n_ ? p_[i_++] : 0; }
  // Uniform-ish in [lo, hi].
  int64_t in(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(byte()) % (hi - lo + 1); }
  bool coin() { return (byte() & 1) != 0; }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t i_ = 0;
};

// ---- the model -------------------------------------------------------------------

using Shape = std::vector<int64_t>;

int64_t numel_of(const Shape& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

// Every multi-index of `shape` in row-major order.
template <class F>
void for_each_index(const Shape& shape, F&& f) {
  const int64_t n = numel_of(shape);
  std::vector<int64_t> i(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    f(k, i);
    for (size_t d = shape.size(); d-- > 0;) {
      if (++i[d] < shape[d]) break;
      i[d] = 0;
    }
  }
}

int64_t linear(const std::vector<int64_t>& i, const Shape& shape) {
  int64_t k = 0;
  for (size_t d = 0; d < shape.size(); ++d) k = k * shape[d] + i[d];
  return k;
}

// A storage's cells as the fuzzer believes them to be.
struct Mirror {
  void* data = nullptr;
  int64_t cells = 0;
  int32_t dtype = TSR_FLOAT64;
  std::vector<double> value;
  std::vector<char> known;
};

struct Model {
  tsr_tensor* t = nullptr;  // owned
  size_t storage = 0;       // index into mirrors
  Shape shape;
  std::vector<int64_t> cell;  // the storage cell of each element, row-major
};

double load(int32_t dtype, const void* base, int64_t i) {
  const size_t size = tsr_dtype_size(dtype);
  if (size == 0) finding("unexpected dtype");
  return tsr_element_to_double(dtype, static_cast<const char*>(base) + i * static_cast<int64_t>(size));
}

const tsr_dtype kDtypes[] = {TSR_INT64, TSR_INT32, TSR_INT16, TSR_FLOAT32, TSR_FLOAT64};

// PyTorch's maybe_wrap_dim: false when out of range.
bool wrap(int64_t dim, int64_t ndim, int64_t& out) {
  const int64_t n = ndim <= 0 ? 1 : ndim;
  if (dim < -n || dim >= n) return false;
  out = dim < 0 ? dim + n : dim;
  return true;
}

bool consecutive(const std::vector<int64_t>& cells) {
  for (size_t k = 1; k < cells.size(); ++k)
    if (cells[k] != cells[0] + static_cast<int64_t>(k)) return false;
  return true;
}

class Session {
 public:
  ~Session() {
    for (Model& m : pool_) tsr_tensor_release(m.t);
  }

  void run(Input& in) {
    while (!in.done()) step(in);
  }

 private:
  // ---- checks ----

  // The tensor agrees with its model: shape, addresses, raw cells, read values.
  void verify(const Model& m) {
    tsr_tensor* t = m.t;
    const Mirror& s = mirrors_[m.storage];
    EXPECT(tsr_tensor_ndim(t) == static_cast<int32_t>(m.shape.size()), "ndim");
    EXPECT(std::equal(m.shape.begin(), m.shape.end(), tsr_tensor_shape(t)), "shape");
    EXPECT(tsr_tensor_dtype(t) == s.dtype, "dtype");
    const int64_t n = numel_of(m.shape);
    EXPECT(tsr_tensor_numel(t) == n, "numel");
    EXPECT(static_cast<int64_t>(m.cell.size()) == n, "model size");
    if (s.cells > 0) EXPECT(tsr_tensor_storage_data(t) == s.data, "a view left its storage");
    EXPECT(static_cast<int64_t>(tsr_tensor_storage_nbytes(t)) == s.cells * static_cast<int64_t>(tsr_dtype_size(s.dtype)),
           "storage size");
    const int64_t* stride = tsr_tensor_strides(t);
    const int64_t offset = tsr_tensor_storage_offset(t);
    std::vector<double> read(static_cast<size_t>(n));
    if (n > 0) {
      std::vector<unsigned char> bytes(static_cast<size_t>(n) * tsr_dtype_size(s.dtype));
      EXPECT(tsr_read(t, bytes.data(), bytes.size()) == TSR_OK, "read");
      for (int64_t k = 0; k < n; ++k) read[static_cast<size_t>(k)] = load(s.dtype, bytes.data(), k);
    }
    for_each_index(m.shape, [&](int64_t k, const std::vector<int64_t>& i) {
      int64_t address = offset;
      for (size_t d = 0; d < i.size(); ++d) address += i[d] * stride[d];
      // The element-address oracle.
      EXPECT(address == m.cell[static_cast<size_t>(k)], "element at the wrong address");
      EXPECT(address >= 0 && address < s.cells, "element outside its storage");
      const size_t a = static_cast<size_t>(address);
      if (s.known[a]) {
        EXPECT(load(s.dtype, s.data, address) == s.value[a], "storage cell differs from the mirror");
        EXPECT(read[static_cast<size_t>(k)] == s.value[a], "read value differs from the storage cell");
      }
    });
    EXPECT((tsr_tensor_is_contiguous(t) != 0) == consecutive(m.cell), "is_contiguous");
  }

  void verify_storage(size_t storage) {
    for (const Model& m : pool_)
      if (m.storage == storage) verify(m);
  }

  // A failed call: no output, a status and a message.
  void failed(tsr_status st, tsr_tensor* out, const char* what) {
    EXPECT(st != TSR_OK, std::string(what) + " succeeded where it must fail");
    EXPECT(out == nullptr, std::string(what) + " failed but wrote its output");
    EXPECT(std::strlen(tsr_last_error_message()) > 0, std::string(what) + " failed without a message");
  }

  // ---- the pool ----

  Model* pick(Input& in) {
    if (pool_.empty()) return nullptr;
    return &pool_[static_cast<size_t>(in.byte()) % pool_.size()];
  }

  void keep(Model m) {
    verify(m);
    if (pool_.size() >= kMaxTensors) {
      tsr_tensor_release(pool_.front().t);
      pool_.erase(pool_.begin());
    }
    pool_.push_back(std::move(m));
  }

  // A view result: it must share src's storage; its cells come from the model.
  void keep_view(const Model& src, tsr_tensor* out, Shape shape, std::vector<int64_t> cells) {
    keep(Model{out, src.storage, std::move(shape), std::move(cells)});
  }

  // A fresh storage holding `values` (row-major): the mirror learns its cells
  // from the tensor's own layout, which must place every element in bounds
  // and never two on one cell.
  void keep_copy(tsr_tensor* out, const Shape& shape, const std::vector<double>& values) {
    Mirror s;
    s.dtype = tsr_tensor_dtype(out);
    s.data = tsr_tensor_storage_data(out);
    s.cells = static_cast<int64_t>(tsr_tensor_storage_nbytes(out) / tsr_dtype_size(s.dtype));
    s.value.assign(static_cast<size_t>(s.cells), 0.0);
    s.known.assign(static_cast<size_t>(s.cells), 0);
    std::vector<int64_t> cells(values.size());
    const int64_t* stride = tsr_tensor_strides(out);
    const int64_t offset = tsr_tensor_storage_offset(out);
    for_each_index(shape, [&](int64_t k, const std::vector<int64_t>& i) {
      int64_t address = offset;
      for (size_t d = 0; d < i.size(); ++d) address += i[d] * stride[d];
      EXPECT(address >= 0 && address < s.cells, "a copy's element outside its storage");
      const size_t a = static_cast<size_t>(address);
      EXPECT(!s.known[a], "a copy puts two elements on one cell");
      s.known[a] = 1;
      s.value[a] = values[static_cast<size_t>(k)];
      cells[static_cast<size_t>(k)] = address;
    });
    mirrors_.push_back(std::move(s));
    keep(Model{out, mirrors_.size() - 1, shape, std::move(cells)});
  }

  std::vector<double> values_of(const Model& m) const {
    const Mirror& s = mirrors_[m.storage];
    std::vector<double> v(m.cell.size());
    for (size_t k = 0; k < v.size(); ++k) v[k] = s.value[static_cast<size_t>(m.cell[k])];
    return v;
  }

  bool all_known(const Model& m) const {
    const Mirror& s = mirrors_[m.storage];
    return std::all_of(m.cell.begin(), m.cell.end(), [&](int64_t c) { return s.known[static_cast<size_t>(c)] != 0; });
  }

  // Gathers the model of a view: new element -> old element.
  template <class F>
  std::vector<int64_t> remap(const Model& m, const Shape& shape, F&& old_index) const {
    std::vector<int64_t> cells(static_cast<size_t>(numel_of(shape)));
    std::vector<int64_t> o(m.shape.size());
    for_each_index(shape, [&](int64_t k, const std::vector<int64_t>& i) {
      old_index(i, o);
      cells[static_cast<size_t>(k)] = m.cell[static_cast<size_t>(linear(o, m.shape))];
    });
    return cells;
  }

  Shape random_shape(Input& in, int max_ndim, int64_t max_size) {
    Shape s(static_cast<size_t>(in.in(0, max_ndim)));
    for (int64_t& v : s) v = in.in(0, max_size);
    return s;
  }

  // ---- the calls ----

  void step(Input& in) {
    switch (in.byte() % 23) {
      case 0: return create(in);
      case 1: return transpose(in);
      case 2: return permute(in);
      case 3: return slice(in);
      case 4: return select(in);
      case 5: return unsqueeze(in);
      case 6: return squeeze(in);
      case 7: return expand(in);
      case 8: return view_or_reshape(in, false);
      case 9: return view_or_reshape(in, true);
      case 10: return flatten(in);
      case 11: return as_strided(in);
      case 12: return reverse(in);
      case 13: return contiguous(in);
      case 14: return clone(in);
      case 15: return to_dtype(in);
      case 16: return copy(in);
      case 17: return fill(in);
      case 18: return add(in);
      case 19: return broadcast_shapes(in);
      case 20: return squeeze_all(in);
      case 21: return add_out(in);
      default: return release(in);
    }
  }

  void create(Input& in) {
    const tsr_dtype dtype = kDtypes[in.byte() % 5];
    tsr_tensor* out = nullptr;
    if (in.coin()) {  // arange: cell k holds k
      const int64_t n = in.in(0, 64);
      tsr_scalar start{}, end{}, step{};
      start.kind = end.kind = step.kind = TSR_SCALAR_INT;
      end.i = n, end.f = static_cast<double>(n);
      step.i = 1, step.f = 1;
      EXPECT(tsr_arange(runtime(), start, end, step, dtype, kCpu, &out) == TSR_OK, "arange");
      std::vector<double> v(static_cast<size_t>(n));
      std::iota(v.begin(), v.end(), 0.0);
      keep_copy(out, Shape{n}, v);
      return;
    }
    Shape shape = random_shape(in, 4, 5);
    const int64_t n = numel_of(shape);
    std::vector<double> v(static_cast<size_t>(n));
    for (int64_t k = 0; k < n; ++k) v[static_cast<size_t>(k)] = static_cast<double>(3 * k + 1);
    std::vector<unsigned char> host(static_cast<size_t>(n) * tsr_dtype_size(dtype));
    for (int64_t k = 0; k < n; ++k) {
      const double x = v[static_cast<size_t>(k)];
      char* p = reinterpret_cast<char*>(host.data()) + k * static_cast<int64_t>(tsr_dtype_size(dtype));
      tsr_element_from_double(dtype, p, x);
    }
    EXPECT(tsr_from_host(runtime(), host.data(), static_cast<int32_t>(shape.size()), shape.data(), dtype, kCpu, &out) ==
               TSR_OK,
           "from_host");
    keep_copy(out, shape, v);
  }

  void transpose(Input& in) {
    Model* m = pick(in);
    if (m == nullptr) return;
    const int64_t nd = static_cast<int64_t>(m->shape.size());
    const int32_t d0 = static_cast<int32_t>(in.in(-nd - 2, nd + 1)), d1 = static_cast<int32_t>(in.in(-nd - 2, nd + 1));
    int64_t a = 0, b = 0;
    const bool ok = wrap(d0, nd, a) && wrap(d1, nd, b);
    tsr_tensor* out = nullptr;
    const tsr_status st = tsr_transpose(m->t, d0, d1, &out);
    if (!ok) return failed(st, out, "transpose");
    EXPECT(st == TSR_OK, "transpose failed");
    Shape shape = m->shape;
    if (nd > 0) std::swap(shape[static_cast<size_t>(a)], shape[static_cast<size_t>(b)]);
    auto cells = remap(*m, shape, [&](const std::vector<int64_t>& i, std::vector<int64_t>& o) {
      o = i;
      if (nd > 0) std::swap(o[static_cast<size_t>(a)], o[static_cast<size_t>(b)]);
    });
    keep_view(*m, out, shape, cells);
  }

  void permute(Input& in) {
    Model* m = pick(in);
    if (m == nullptr) return;
    const int32_t nd = static_cast<int32_t>(m->shape.size());
    std::vector<int32_t> dims(static_cast<size_t>(nd));
    std::iota(dims.begin(), dims.end(), 0);
    for (int32_t k = nd - 1; k > 0; --k) std::swap(dims[static_cast<size_t>(k)], dims[static_cast<size_t>(in.in(0, k))]);
    int32_t count = nd;
    if (in.byte() % 8 == 0 && nd > 0) dims[static_cast<size_t>(in.in(0, nd - 1))] = static_cast<int32_t>(in.in(-nd - 1, nd));
    if (in.byte() % 16 == 0) count = static_cast<int32_t>(in.in(0, nd));  // usually a wrong length
    bool ok = count == nd;
    std::vector<int64_t> wrapped(static_cast<size_t>(nd));
    std::vector<char> seen(static_cast<size_t>(nd), 0);
    for (int32_t k = 0; ok && k < nd; ++k) {
      int64_t w = 0;
      ok = wrap(dims[static_cast<size_t>(k)], nd, w) && !seen[static_cast<size_t>(w)];
      if (ok) seen[static_cast<size_t>(w)] = 1, wrapped[static_cast<size_t>(k)] = w;
    }
    tsr_tensor* out = nullptr;
    const tsr_status st = tsr_permute(m->t, count, dims.data(), &out);
    if (!ok) return failed(st, out, "permute");
    EXPECT(st == TSR_OK, "permute failed");
    Shape shape(static_cast<size_t>(nd));
    for (int32_t k = 0; k < nd; ++k) shape[static_cast<size_t>(k)] = m->shape[static_cast<size_t>(wrapped[static_cast<size_t>(k)])];
    auto cells = remap(*m, shape, [&](const std::vector<int64_t>& i, std::vector<int64_t>& o) {
      for (int32_t k = 0; k < nd; ++k) o[static_cast<size_t>(wrapped[static_cast<size_t>(k)])] = i[static_cast<size_t>(k)];
    });
    keep_view(*m, out, shape, cells);
  }

  void slice(Input& in) {
    Model* m = pick(in);
    if (m == nullptr) return;
    const int64_t nd = static_cast<int64_t>(m->shape.size());
    const int32_t dim = static_cast<int32_t>(in.in(-nd - 1, nd));
    const int64_t start = in.byte() % 5 == 0 ? TSR_SLICE_NONE : in.in(-8, 8);
    const int64_t stop = in.byte() % 5 == 0 ? TSR_SLICE_NONE : in.in(-8, 8);
    const int64_t step = in.byte() % 16 == 0 ? in.in(-1, 0) : in.in(1, 4);
    int64_t d = 0;
    const bool ok = nd > 0 && wrap(dim, nd, d) && step > 0;
    tsr_tensor* out = nullptr;
    const tsr_status st = tsr_slice(m->t, dim, start, stop, step, &out);
    if (!ok) return failed(st, out, "slice");
    EXPECT(st == TSR_OK, "slice failed");
    const int64_t size = m->shape[static_cast<size_t>(d)];
    // Python's clamping.
    int64_t a = start == TSR_SLICE_NONE ? 0 : start, b = stop == TSR_SLICE_NONE ? size : stop;
    if (a < 0) a = std::max<int64_t>(a + size, 0);
    if (b < 0) b = std::max<int64_t>(b + size, 0);
    a = std::min(a, size);
    b = std::clamp(b, a, size);
    Shape shape = m->shape;
    shape[static_cast<size_t>(d)] = b == a ? 0 : (b - a - 1) / step + 1;
    auto cells = remap(*m, shape, [&](const std::vector<int64_t>& i, std::vector<int64_t>& o) {
      o = i;
      o[static_cast<size_t>(d)] = a + i[static_cast<size_t>(d)] * step;
    });
    keep_view(*m, out, shape, cells);
  }

  void select(Input& in) {
    Model* m = pick(in);
    if (m == nullptr) return;
    const int64_t nd = static_cast<int64_t>(m->shape.size());
    const int32_t dim = static_cast<int32_t>(in.in(-nd - 1, nd));
    int64_t d = 0;
    const bool dim_ok = nd > 0 && wrap(dim, nd, d);
    const int64_t size = dim_ok ? m->shape[static_cast<size_t>(d)] : 0;
    const int64_t index = in.in(-size - 2, size + 1);
    const bool ok = dim_ok && index >= -size && index < size;
    tsr_tensor* out = nullptr;
    const tsr_status st = tsr_select(m->t, dim, index, &out);
    if (!ok) return failed(st, out, "select");
    EXPECT(st == TSR_OK, "select failed");
    const int64_t at = index < 0 ? index + size : index;
    Shape shape = m->shape;
    shape.erase(shape.begin() + d);
    auto cells = remap(*m, shape, [&](const std::vector<int64_t>& i, std::vector<int64_t>& o) {
      for (int64_t k = 0, j = 0; k < nd; ++k) o[static_cast<size_t>(k)] = k == d ? at : i[static_cast<size_t>(j++)];
    });
    keep_view(*m, out, shape, cells);
  }

  void unsqueeze(Input& in) {
    Model* m = pick(in);
    if (m == nullptr) return;
    const int64_t nd = static_cast<int64_t>(m->shape.size());
    const int32_t dim = static_cast<int32_t>(in.in(-nd - 2, nd + 1));
    int64_t d = 0;
    const bool ok = wrap(dim, nd + 1, d) && nd + 1 <= TSR_MAX_DIMS;
    tsr_tensor* out = nullptr;
    const tsr_status st = tsr_unsqueeze(m->t, dim, &out);
    if (!ok) return failed(st, out, "unsqueeze");
    EXPECT(st == TSR_OK, "unsqueeze failed");
    Shape shape = m->shape;
    shape.insert(shape.begin() + d, 1);
    keep_view(*m, out, shape, m->cell);  // row-major order is unchanged
  }

  void squeeze(Input& in) {
    Model* m = pick(in);
    if (m == nullptr) return;
    const int64_t nd = static_cast<int64_t>(m->shape.size());
    const int32_t dim = static_cast<int32_t>(in.in(-nd - 1, nd));
    int64_t d = 0;
    const bool ok = wrap(dim, nd, d);
    tsr_tensor* out = nullptr;
    const tsr_status st = tsr_squeeze(m->t, dim, &out);
    if (!ok) return failed(st, out, "squeeze");
    EXPECT(st == TSR_OK, "squeeze failed");
    Shape shape = m->shape;
    if (nd > 0 && shape[static_cast<size_t>(d)] == 1) shape.erase(shape.begin() + d);
    keep_view(*m, out, shape, m->cell);
  }

  void squeeze_all(Input& in) {
    Model* m = pick(in);
    if (m == nullptr) return;
    tsr_tensor* out = nullptr;
    EXPECT(tsr_squeeze_all(m->t, &out) == TSR_OK, "squeeze_all");
    Shape shape;
    for (int64_t s : m->shape)
      if (s != 1) shape.push_back(s);
    keep_view(*m, out, shape, m->cell);
  }

  void expand(Input& in) {
    Model* m = pick(in);
    if (m == nullptr) return;
    const int64_t nd = static_cast<int64_t>(m->shape.size());
    const int64_t lead = in.in(0, 2) - (in.byte() % 16 == 0 ? 1 : 0);  // -1: too few sizes
    Shape sizes;
    for (int64_t k = 0; k < lead; ++k) sizes.push_back(in.byte() % 16 == 0 ? -1 : in.in(0, 3));
    for (int64_t s : m->shape) {
      const int64_t r = in.byte() % 8;
      sizes.push_back(r == 0 ? -1 : r == 1 ? in.in(-2, 4) : s == 1 ? in.in(0, 3) : s);
    }
    if (lead < 0 && !sizes.empty()) sizes.erase(sizes.begin());
    const int64_t n = static_cast<int64_t>(sizes.size());
    // ATen's rules, right-aligned.
    bool ok = n >= nd && n <= TSR_MAX_DIMS;
    Shape shape(sizes.size());
    for (int64_t k = n - 1; ok && k >= 0; --k) {
      const int64_t d = k - (n - nd);
      const int64_t have = d >= 0 ? m->shape[static_cast<size_t>(d)] : 1;
      int64_t want = sizes[static_cast<size_t>(k)];
      if (want == -1) {
        if (d < 0) ok = false;
        want = have;
      }
      if (ok && want != have && (have != 1 || want < 0)) ok = false;
      shape[static_cast<size_t>(k)] = want;
    }
    if (ok && numel_of(shape) > kMaxModelElements) return;
    tsr_tensor* out = nullptr;
    const tsr_status st = tsr_expand(m->t, static_cast<int32_t>(n), sizes.data(), &out);
    if (!ok) return failed(st, out, "expand");
    EXPECT(st == TSR_OK, "expand failed");
    auto cells = remap(*m, shape, [&](const std::vector<int64_t>& i, std::vector<int64_t>& o) {
      for (int64_t d = 0; d < nd; ++d) {
        const int64_t k = d + (n - nd);
        o[static_cast<size_t>(d)] = m->shape[static_cast<size_t>(d)] == 1 ? 0 : i[static_cast<size_t>(k)];
      }
    });
    keep_view(*m, out, shape, cells);
  }

  // A shape with the same numel (or, now and then, not), one size maybe -1.
  Shape reshape_target(Input& in, int64_t numel) {
    Shape s;
    int64_t rest = numel;
    const int64_t parts = in.in(0, 4);
    for (int64_t k = 0; k < parts && rest > 0; ++k) {
      std::vector<int64_t> divisors;
      for (int64_t d = 1; d <= rest; ++d)
        if (rest % d == 0) divisors.push_back(d);
      const int64_t d = divisors[static_cast<size_t>(in.byte()) % divisors.size()];
      s.push_back(d);
      rest /= d;
    }
    if (rest != 1 || numel == 0) s.push_back(rest);
    if (in.byte() % 8 == 0) s.push_back(in.in(0, 2));  // may break the count
    if (!s.empty() && in.coin()) s[static_cast<size_t>(in.byte()) % s.size()] = -1;
    return s;
  }

  // ATen's infer_size: false when the shape does not fit numel.
  static bool infer(Shape& s, int64_t numel) {
    int64_t product = 1, at = -1;
    for (size_t k = 0; k < s.size(); ++k) {
      if (s[k] == -1) {
        if (at >= 0) return false;
        at = static_cast<int64_t>(k);
      } else if (s[k] < 0) {
        return false;
      } else {
        product *= s[k];
      }
    }
    if (at < 0) return product == numel;
    if (product == 0 || numel % product != 0) return false;
    s[static_cast<size_t>(at)] = numel / product;
    return true;
  }

  void view_or_reshape(Input& in, bool reshape) {
    Model* m = pick(in);
    if (m == nullptr) return;
    const int64_t numel = numel_of(m->shape);
    Shape sizes = reshape_target(in, numel);
    if (sizes.size() > TSR_MAX_DIMS) return;
    Shape shape = sizes;
    const bool ok = infer(shape, numel);
    tsr_tensor* out = nullptr;
    const int32_t n = static_cast<int32_t>(sizes.size());
    const tsr_status st = reshape ? tsr_reshape(m->t, n, sizes.data(), &out) : tsr_view(m->t, n, sizes.data(), &out);
    if (!ok) return failed(st, out, reshape ? "reshape" : "view");
    if (!reshape && st != TSR_OK) {
      // A view of a contiguous tensor always exists.
      EXPECT(!consecutive(m->cell), "view of a contiguous tensor failed");
      return failed(st, out, "view");
    }
    EXPECT(st == TSR_OK, "reshape failed");
    const bool shares = numel == 0 || tsr_tensor_storage_data(out) == tsr_tensor_storage_data(m->t);
    if (shares) {
      keep_view(*m, out, shape, m->cell);  // the same elements in the same order
    } else {
      EXPECT(reshape, "a view copied");
      EXPECT(!consecutive(m->cell), "reshape copied a contiguous tensor");
      if (!all_known(*m)) return tsr_tensor_release(out);
      keep_copy(out, shape, values_of(*m));
    }
  }

  void flatten(Input& in) {
    Model* m = pick(in);
    if (m == nullptr) return;
    const int64_t nd = static_cast<int64_t>(m->shape.size());
    const int32_t s0 = static_cast<int32_t>(in.in(-nd - 1, nd)), s1 = static_cast<int32_t>(in.in(-nd - 1, nd));
    int64_t a = 0, b = 0;
    const bool ok = wrap(s0, nd, a) && wrap(s1, nd, b) && a <= b;
    tsr_tensor* out = nullptr;
    const tsr_status st = tsr_flatten(m->t, s0, s1, &out);
    if (!ok) return failed(st, out, "flatten");
    EXPECT(st == TSR_OK, "flatten failed");
    Shape shape;
    if (nd == 0) {
      shape = {1};
    } else {
      for (int64_t k = 0; k < a; ++k) shape.push_back(m->shape[static_cast<size_t>(k)]);
      int64_t merged = 1;
      for (int64_t k = a; k <= b; ++k) merged *= m->shape[static_cast<size_t>(k)];
      shape.push_back(merged);
      for (int64_t k = b + 1; k < nd; ++k) shape.push_back(m->shape[static_cast<size_t>(k)]);
    }
    const bool shares = numel_of(shape) == 0 || tsr_tensor_storage_data(out) == tsr_tensor_storage_data(m->t);
    if (shares) return keep_view(*m, out, shape, m->cell);
    if (!all_known(*m)) return tsr_tensor_release(out);
    keep_copy(out, shape, values_of(*m));
  }

  void as_strided(Input& in) {
    Model* m = pick(in);
    if (m == nullptr) return;
    const Mirror& s = mirrors_[m->storage];
    const int64_t nd = in.in(0, 4);
    Shape shape(static_cast<size_t>(nd)), strides(static_cast<size_t>(nd));
    for (int64_t k = 0; k < nd; ++k) {
      shape[static_cast<size_t>(k)] = in.byte() % 32 == 0 ? -1 : in.in(0, 5);
      strides[static_cast<size_t>(k)] = in.byte() % 32 == 0 ? -1 : in.in(0, 8);
    }
    const int64_t offset = in.byte() % 32 == 0 ? -1 : in.in(0, s.cells + 2);
    bool ok = offset >= 0;
    int64_t last = offset;
    bool empty = false;
    for (int64_t k = 0; k < nd; ++k) {
      ok = ok && shape[static_cast<size_t>(k)] >= 0 && strides[static_cast<size_t>(k)] >= 0;
      if (shape[static_cast<size_t>(k)] == 0) empty = true;
      if (ok && shape[static_cast<size_t>(k)] > 0) last += (shape[static_cast<size_t>(k)] - 1) * strides[static_cast<size_t>(k)];
    }
    if (ok && !empty && last >= s.cells) ok = false;
    tsr_tensor* out = nullptr;
    const tsr_status st = tsr_as_strided(m->t, static_cast<int32_t>(nd), shape.data(), strides.data(), offset, &out);
    if (!ok) return failed(st, out, "as_strided");
    EXPECT(st == TSR_OK, "as_strided failed");
    // The oracle itself: storage[offset + sum(i * stride)].
    std::vector<int64_t> cells(static_cast<size_t>(numel_of(shape)));
    for_each_index(shape, [&](int64_t k, const std::vector<int64_t>& i) {
      int64_t c = offset;
      for (size_t d = 0; d < i.size(); ++d) c += i[d] * strides[d];
      cells[static_cast<size_t>(k)] = c;
    });
    keep_view(*m, out, shape, cells);
  }

  void reverse(Input& in) {
    Model* m = pick(in);
    if (m == nullptr) return;
    tsr_tensor* out = nullptr;
    EXPECT(tsr_t(m->t, &out) == TSR_OK, "t");
    Shape shape(m->shape.rbegin(), m->shape.rend());
    const size_t nd = shape.size();
    auto cells = remap(*m, shape, [&](const std::vector<int64_t>& i, std::vector<int64_t>& o) {
      for (size_t k = 0; k < nd; ++k) o[nd - 1 - k] = i[k];
    });
    keep_view(*m, out, shape, cells);
  }

  void contiguous(Input& in) {
    Model* m = pick(in);
    if (m == nullptr || !all_known(*m)) return;
    tsr_tensor* out = nullptr;
    EXPECT(tsr_contiguous(m->t, &out) == TSR_OK, "contiguous");
    if (consecutive(m->cell)) {
      EXPECT(out == m->t, "contiguous copied a contiguous tensor");
      return keep_view(*m, out, m->shape, m->cell);
    }
    EXPECT(tsr_tensor_is_contiguous(out), "contiguous gave a non-contiguous tensor");
    keep_copy(out, m->shape, values_of(*m));
  }

  void clone(Input& in) {
    Model* m = pick(in);
    if (m == nullptr || !all_known(*m)) return;
    tsr_tensor* out = nullptr;
    EXPECT(tsr_clone(m->t, &out) == TSR_OK, "clone");
    EXPECT(numel_of(m->shape) == 0 || tsr_tensor_storage_data(out) != tsr_tensor_storage_data(m->t), "clone shares");
    keep_copy(out, m->shape, values_of(*m));
  }

  void to_dtype(Input& in) {
    Model* m = pick(in);
    if (m == nullptr || !all_known(*m)) return;
    const tsr_dtype dtype = kDtypes[in.byte() % 5];
    tsr_tensor* out = nullptr;
    EXPECT(tsr_to_dtype(m->t, dtype, &out) == TSR_OK, "to_dtype");
    if (dtype == mirrors_[m->storage].dtype) {
      EXPECT(out == m->t, "to() of the same dtype copied");
      return keep_view(*m, out, m->shape, m->cell);
    }
    keep_copy(out, m->shape, values_of(*m));  // small whole numbers: exact in every dtype here
  }

  // dst[...] = src, broadcasting src; all of src is read before dst is written.
  void copy(Input& in) {
    Model* dst = pick(in);
    Model* src = pick(in);
    if (dst == nullptr || !all_known(*src)) return;
    std::vector<int64_t> sorted = dst->cell;
    std::sort(sorted.begin(), sorted.end());
    // Overlapping writes would depend on their order: only write tensors
    // whose elements have cells of their own (the API refuses stride 0).
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return;
    const Shape& ds = dst->shape;
    const Shape& ss = src->shape;
    bool ok = ss.size() <= ds.size();
    for (size_t k = 0; ok && k < ss.size(); ++k) {
      const int64_t have = ss[ss.size() - 1 - k], want = ds[ds.size() - 1 - k];
      ok = have == want || have == 1;
    }
    const std::vector<double> from = values_of(*src);
    const tsr_status st = tsr_copy_(dst->t, src->t);
    if (!ok) {
      EXPECT(st != TSR_OK, "copy_ of a shape that does not broadcast");
      return;
    }
    EXPECT(st == TSR_OK, std::string("copy_ failed: ") + tsr_last_error_message());
    const size_t off = ds.size() - ss.size();
    Mirror& mirror = mirrors_[dst->storage];
    for_each_index(ds, [&](int64_t k, const std::vector<int64_t>& i) {
      int64_t j = 0;
      for (size_t d = 0; d < ss.size(); ++d) j = j * ss[d] + (ss[d] == 1 ? 0 : i[d + off]);
      const size_t c = static_cast<size_t>(dst->cell[static_cast<size_t>(k)]);
      mirror.value[c] = from[static_cast<size_t>(j)];
      mirror.known[c] = 1;
    });
    verify_storage(dst->storage);
  }

  void fill(Input& in) {
    Model* m = pick(in);
    if (m == nullptr) return;
    tsr_scalar v{};
    v.kind = TSR_SCALAR_INT;
    v.i = in.in(-50, 50);
    v.f = static_cast<double>(v.i);
    EXPECT(tsr_fill_(m->t, v) == TSR_OK, "fill_");
    Mirror& mirror = mirrors_[m->storage];
    for (int64_t c : m->cell) {
      mirror.value[static_cast<size_t>(c)] = v.f;
      mirror.known[static_cast<size_t>(c)] = 1;
    }
    verify_storage(m->storage);
  }

  // NumPy broadcasting of two model shapes.
  static bool broadcast(const Shape& a, const Shape& b, Shape& out) {
    const size_t n = std::max(a.size(), b.size());
    out.assign(n, 1);
    for (size_t k = 0; k < n; ++k) {
      const int64_t x = k < a.size() ? a[a.size() - 1 - k] : 1, y = k < b.size() ? b[b.size() - 1 - k] : 1;
      if (x != y && x != 1 && y != 1) return false;
      out[n - 1 - k] = x == 1 ? y : x;
    }
    return true;
  }

  // a + b (their values now) broadcast to `shape`, in double.
  std::vector<double> broadcast_sum(const Model& a, const Model& b, const Shape& shape) const {
    const std::vector<double> x = values_of(a), y = values_of(b);
    std::vector<double> sum(static_cast<size_t>(numel_of(shape)));
    for_each_index(shape, [&](int64_t k, const std::vector<int64_t>& i) {
      auto at = [&](const Shape& s) {
        int64_t j = 0;
        const size_t off = shape.size() - s.size();
        for (size_t d = 0; d < s.size(); ++d) j = j * s[d] + (s[d] == 1 ? 0 : i[d + off]);
        return static_cast<size_t>(j);
      };
      sum[static_cast<size_t>(k)] = x[at(a.shape)] + y[at(b.shape)];
    });
    return sum;
  }

  // PyTorch's result_type for two tensors: a 0-d operand only counts when
  // its category (integral < floating) is above the other's.
  static tsr_dtype result_type(const Model& a, const Model& b) {
    const tsr_dtype da = tsr_tensor_dtype(a.t), db = tsr_tensor_dtype(b.t);
    const bool a0 = a.shape.empty(), b0 = b.shape.empty();
    if (a0 == b0) return tsr_promote_types(da, db);
    const tsr_dtype dim = a0 ? db : da, zero = a0 ? da : db;
    return tsr_dtype_is_floating(zero) && !tsr_dtype_is_floating(dim) ? tsr_promote_types(dim, zero) : dim;
  }

  void add(Input& in) {
    Model* a = pick(in);
    Model* b = pick(in);
    if (a == nullptr || !all_known(*a) || !all_known(*b)) return;
    Shape shape;
    const bool ok = broadcast(a->shape, b->shape, shape);
    if (ok && numel_of(shape) > kMaxModelElements) return;
    tsr_tensor* out = nullptr;
    const tsr_status st = tsr_binary(TSR_OP_ADD, a->t, b->t, &out);
    if (!ok) return failed(st, out, "add");
    EXPECT(st == TSR_OK, std::string("add failed: ") + tsr_last_error_message());
    const std::vector<double> sum = broadcast_sum(*a, *b, shape);
    EXPECT(tsr_tensor_dtype(out) == result_type(*a, *b), "add's dtype");
    // int16 + int16 may wrap; such sums are not compared.
    for (double v : sum)
      if (std::fabs(v) > 30000) return tsr_tensor_release(out);
    keep_copy(out, shape, sum);
  }

  // out = a + b into an existing tensor: a, b and out are views from the
  // pool, often of one storage (exactly, partly or not at all overlapping).
  // The model reads a and b first, then writes out (Note [Outputs that share
  // memory with inputs] in runtime/elementwise.cpp).
  void add_out(Input& in) {
    Model* a = pick(in);
    Model* b = pick(in);
    Model* out = pick(in);
    if (a == nullptr || !all_known(*a) || !all_known(*b)) return;
    std::vector<int64_t> sorted = out->cell;  // as copy: no cell written twice
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return;
    Shape sa, sb;
    const bool shapes_ok = broadcast(a->shape, out->shape, sa) && sa == out->shape &&
                           broadcast(b->shape, out->shape, sb) && sb == out->shape;
    auto floating = [](int32_t d) { return d == TSR_FLOAT32 || d == TSR_FLOAT64; };
    const bool cast_ok = !floating(result_type(*a, *b)) || floating(tsr_tensor_dtype(out->t));
    std::vector<double> sum;
    if (shapes_ok) {
      sum = broadcast_sum(*a, *b, out->shape);
      for (double v : sum)
        if (std::fabs(v) > 30000) return;  // int16 could wrap: not compared
    }
    const tsr_status st = tsr_binary_out(TSR_OP_ADD, a->t, b->t, out->t);
    if (!shapes_ok || !cast_ok) {
      EXPECT(st != TSR_OK, "add out= accepted a shape that does not broadcast to out, or a float into an integer");
      verify_storage(out->storage);  // nothing written
      return;
    }
    EXPECT(st == TSR_OK, std::string("add out= failed: ") + tsr_last_error_message());
    Mirror& mirror = mirrors_[out->storage];
    for (size_t k = 0; k < sum.size(); ++k) {
      const size_t c = static_cast<size_t>(out->cell[k]);
      mirror.value[c] = sum[k];
      mirror.known[c] = 1;
    }
    verify_storage(out->storage);
  }

  void broadcast_shapes(Input& in) {
    const Shape a = random_shape(in, 5, 3), b = random_shape(in, 5, 3);
    Shape want;
    const bool ok = broadcast(a, b, want);
    int32_t n = -7;
    int64_t got[TSR_MAX_DIMS];
    const tsr_status st = tsr_broadcast_shapes(static_cast<int32_t>(a.size()), a.data(), static_cast<int32_t>(b.size()),
                                               b.data(), &n, got);
    if (!ok) {
      EXPECT(st == TSR_ERR_SHAPE && n == -7, "broadcast_shapes accepted shapes that do not broadcast");
      return;
    }
    EXPECT(st == TSR_OK && n == static_cast<int32_t>(want.size()) && std::equal(want.begin(), want.end(), got),
           "broadcast_shapes");
  }

  void release(Input& in) {
    if (pool_.empty()) return;
    const size_t k = static_cast<size_t>(in.byte()) % pool_.size();
    tsr_tensor_release(pool_[k].t);
    pool_.erase(pool_.begin() + static_cast<std::ptrdiff_t>(k));
  }

  std::vector<Mirror> mirrors_;
  std::vector<Model> pool_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tsr_runtime* rt = runtime();
  {
    Input in(data, size);
    Session session;
    session.run(in);
  }
  // Every tensor and storage went with its last reference.
  EXPECT(rt->live_tensors.load() == 0 && rt->live_storages.load() == 0, "tensors or storages outlive their handles");
  return 0;
}
