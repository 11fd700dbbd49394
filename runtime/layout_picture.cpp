// SPDX-License-Identifier: Apache-2.0
#include "layout_picture.hpp"

#include <algorithm>
#include <vector>

#include "layout.hpp"

namespace tessera::rt {

namespace {

constexpr int kLineWidth = 80;
constexpr size_t kLabelWidth = 7;         // "order  "
constexpr int64_t kMargin = 4;            // unread cells shown beside the read span when cut
constexpr int64_t kOrderRows = 4;         // positions listed under one cell
constexpr int64_t kMaxReads = int64_t{1} << 24;  // reads walked, to bound the time
constexpr int64_t kMaxBitmap = int64_t{1} << 26; // cells tracked for the distinct count

// What the picture shows of one storage cell.
struct CellReads {
  int64_t count = 0;
  std::vector<int64_t> first;  // up to kOrderRows positions
};

// Cells [begin, end) shown from column `column` on.
struct Range {
  int64_t begin, end;
  int64_t column = 0;
};

// One column of the strip: a cell, or the "..." that stands for skipped cells.
struct Column {
  int64_t cell = -1;  // -1: elision
};

bool is_contiguous(const LayoutPictureInput& in) {
  int64_t numel = 1;
  for (int32_t d = 0; d < in.ndim; ++d) numel *= in.shape[d];
  if (numel == 0) return true;
  int64_t expected = 1;
  for (int32_t d = in.ndim - 1; d >= 0; --d) {
    if (in.shape[d] == 1) continue;
    if (in.strides[d] != expected) return false;
    expected *= in.shape[d];
  }
  return true;
}

// Calls visit(position, cell) for the view's elements in row-major order,
// at most `limit` of them; returns how many it visited.
template <class F>
int64_t walk(const LayoutPictureInput& in, int64_t limit, F&& visit) {
  for (int32_t d = 0; d < in.ndim; ++d)
    if (in.shape[d] <= 0) return 0;
  std::vector<int64_t> index(static_cast<size_t>(in.ndim), 0);
  int64_t cell = in.offset;
  for (int64_t position = 0; position < limit; ++position) {
    visit(position, cell);
    int32_t d = in.ndim - 1;
    for (; d >= 0; --d) {  // odometer step
      if (++index[d] < in.shape[d]) {
        cell += in.strides[d];
        break;
      }
      cell -= (in.shape[d] - 1) * in.strides[d];
      index[d] = 0;
    }
    if (d < 0) return position + 1;
  }
  return limit;
}

std::string right(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string left(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

}  // namespace

std::string format_layout_picture(const LayoutPictureInput& in, int max_cells) {
  const int64_t n = std::max<int64_t>(in.storage_numel, 0);
  const int64_t window = std::max(max_cells, 2);
  int64_t numel = 1;
  for (int32_t d = 0; d < in.ndim; ++d) numel *= std::max<int64_t>(in.shape[d], 0);

  std::string out = "shape " + format_tuple(in.shape, in.ndim) + "  stride " + format_tuple(in.strides, in.ndim) +
                    "  offset " + std::to_string(in.offset) + "  contiguous " +
                    (is_contiguous(in) ? "True" : "False") + "\n";

  // First pass: the span of cells read, so the window can be chosen.
  int64_t lo = -1, hi = -1;
  const int64_t walked = walk(in, std::min(numel, kMaxReads), [&](int64_t, int64_t cell) {
    if (cell < 0 || cell >= n) return;
    if (lo < 0 || cell < lo) lo = cell;
    if (cell > hi) hi = cell;
  });

  // The columns: every cell, or, for a long storage, the cells read with a
  // few on either side (or the two ends of the span when it is too long).
  std::vector<Range> ranges;
  if (n <= window) {
    ranges.push_back({0, n});
  } else if (lo < 0) {
    ranges.push_back({0, window});
  } else if (hi - lo + 1 + 2 * kMargin <= window) {
    ranges.push_back({std::max<int64_t>(0, lo - kMargin), std::min(n, hi + 1 + kMargin)});
  } else if (hi - lo + 1 <= window) {
    const int64_t start = std::clamp(lo - (window - (hi - lo + 1)) / 2, int64_t{0}, n - window);
    ranges.push_back({start, start + window});
  } else {
    const int64_t head = window / 2;
    ranges.push_back({lo, lo + head});
    ranges.push_back({hi + 1 - (window - head), hi + 1});
  }
  std::vector<Column> columns;
  int64_t next = 0;
  for (Range& r : ranges) {
    if (r.begin > next) columns.push_back(Column{});
    r.column = static_cast<int64_t>(columns.size());
    for (int64_t c = r.begin; c < r.end; ++c) columns.push_back(Column{c});
    next = r.end;
  }
  if (next < n) columns.push_back(Column{});

  // Second pass: the reads of the cells shown, and the distinct cells read.
  std::vector<CellReads> reads(columns.size());
  auto slot = [&](int64_t cell) -> int64_t {
    for (const Range& r : ranges)
      if (cell >= r.begin && cell < r.end) return r.column + (cell - r.begin);
    return -1;
  };
  const bool count_distinct = lo >= 0 && hi - lo + 1 <= kMaxBitmap;
  std::vector<bool> seen(count_distinct ? static_cast<size_t>(hi - lo + 1) : 0);
  int64_t distinct = 0;
  walk(in, walked, [&](int64_t position, int64_t cell) {
    if (cell < 0 || cell >= n) return;
    if (count_distinct && !seen[cell - lo]) {
      seen[cell - lo] = true;
      ++distinct;
    }
    const int64_t s = slot(cell);
    if (s < 0) return;
    CellReads& r = reads[s];
    if (static_cast<int64_t>(r.first.size()) < kOrderRows) r.first.push_back(position);
    ++r.count;
  });

  out += "storage " + std::to_string(n) + (n == 1 ? " cell" : " cells");
  if (count_distinct)
    out += "; the view reads " + std::to_string(distinct) + " of them, " + std::to_string(numel) +
           (numel == 1 ? " read" : " reads") + " in all";
  else if (lo >= 0)
    out += "; the view reads cells " + std::to_string(lo) + " to " + std::to_string(hi) + ", " +
           std::to_string(numel) + " reads in all";
  else
    out += "; the view reads none of them";
  out += walked < numel ? " (the first " + std::to_string(walked) + " drawn)\n" : "\n";
  if (columns.empty()) return out;

  // The text of every row of every column.
  int64_t order_rows = 0;
  for (const CellReads& r : reads) order_rows = std::max<int64_t>(order_rows, std::min(r.count, kOrderRows));
  bool capped = false;
  struct Texts {
    std::string cell, value, mark;
    std::vector<std::string> order;
  };
  std::vector<Texts> texts(columns.size());
  size_t width = 1;
  for (size_t i = 0; i < columns.size(); ++i) {
    Texts& t = texts[i];
    t.order.assign(static_cast<size_t>(order_rows), "");
    if (columns[i].cell < 0) {
      t.cell = "...";
    } else {
      const int64_t cell = columns[i].cell;
      t.cell = std::to_string(cell);
      if (in.cell_values) t.value = in.cell_values[cell];
      const CellReads& r = reads[i];
      t.mark = r.count > 0 ? "#" : ".";
      for (size_t k = 0; k < r.first.size(); ++k) t.order[k] = std::to_string(r.first[k]);
      if (r.count > kOrderRows) {  // the last row says how many reads are not listed
        t.order[kOrderRows - 1] = "+" + std::to_string(r.count - (kOrderRows - 1));
        capped = true;
      }
    }
    width = std::max({width, t.cell.size(), t.value.size()});
    for (const std::string& s : t.order) width = std::max(width, s.size());
  }
  const size_t column_width = width + 2;
  const size_t per_row = std::max<size_t>(1, (kLineWidth - kLabelWidth) / column_width);

  auto line = [&](const std::string& label, size_t begin, size_t end, auto&& text_of) {
    std::string s = left(label, kLabelWidth);
    for (size_t i = begin; i < end; ++i) s += right(text_of(texts[i]), column_width);
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out += s + "\n";
  };
  for (size_t begin = 0; begin < columns.size(); begin += per_row) {
    const size_t end = std::min(columns.size(), begin + per_row);
    if (begin > 0) out += "\n";
    line("cell", begin, end, [](const Texts& t) { return t.cell; });
    if (in.cell_values) line("value", begin, end, [](const Texts& t) { return t.value; });
    line("view", begin, end, [](const Texts& t) { return t.mark; });
    for (int64_t k = 0; k < order_rows; ++k)
      line(k == 0 ? "order" : "", begin, end, [k](const Texts& t) { return t.order[static_cast<size_t>(k)]; });
  }
  if (capped) out += "(+N: the cell is read N more times)\n";
  return out;
}

}  // namespace tessera::rt
