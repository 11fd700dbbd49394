// SPDX-License-Identifier: Apache-2.0
// The layout picture for the lesson's five views of x = arange(12).view(3, 4)
// (figure DL01.7.1-F3: x reads cells 0..11 in order; x.T reads cell 0 first,
// cell 4 second, cell 8 third, cell 1 fourth; x[:, 1::2] reads cells 1, 3, 5,
// 7, 9, 11; x[:, :1].expand(3, 4) reads cells 0, 4, 8 four times each), and
// the empty, 0-d, wrapped and elided cases. Golden strings, exact.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "layout_picture.hpp"

using tessera::rt::format_layout_picture;
using tessera::rt::LayoutPictureInput;

namespace {

std::string picture(std::vector<int64_t> shape, std::vector<int64_t> strides, int64_t offset, int64_t storage,
                    const std::vector<std::string>* values = nullptr, int max_cells = 48) {
  REQUIRE(shape.size() == strides.size());
  LayoutPictureInput in{static_cast<int32_t>(shape.size()), shape.data(), strides.data(), offset, storage,
                        values ? values->data() : nullptr};
  std::string out = format_layout_picture(in, max_cells);
  // Readable in an 80-column terminal.
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) CHECK(line.size() <= 80);
  return out;
}

}  // namespace

TEST_CASE("layout picture: x = arange(12).view(3, 4)") {
  CHECK(picture({3, 4}, {4, 1}, 0, 12) ==
        "shape (3, 4)  stride (4, 1)  offset 0  contiguous True\n"
        "storage 12 cells; the view reads 12 of them, 12 reads in all\n"
        "cell      0   1   2   3   4   5   6   7   8   9  10  11\n"
        "view      #   #   #   #   #   #   #   #   #   #   #   #\n"
        "order     0   1   2   3   4   5   6   7   8   9  10  11\n");
}

TEST_CASE("layout picture: x.T") {
  CHECK(picture({4, 3}, {1, 4}, 0, 12) ==
        "shape (4, 3)  stride (1, 4)  offset 0  contiguous False\n"
        "storage 12 cells; the view reads 12 of them, 12 reads in all\n"
        "cell      0   1   2   3   4   5   6   7   8   9  10  11\n"
        "view      #   #   #   #   #   #   #   #   #   #   #   #\n"
        "order     0   3   6   9   1   4   7  10   2   5   8  11\n");
}

TEST_CASE("layout picture: x[:, 1::2]") {
  CHECK(picture({3, 2}, {4, 2}, 1, 12) ==
        "shape (3, 2)  stride (4, 2)  offset 1  contiguous False\n"
        "storage 12 cells; the view reads 6 of them, 6 reads in all\n"
        "cell      0   1   2   3   4   5   6   7   8   9  10  11\n"
        "view      .   #   .   #   .   #   .   #   .   #   .   #\n"
        "order         0       1       2       3       4       5\n");
}

TEST_CASE("layout picture: x.unsqueeze(0)") {
  CHECK(picture({1, 3, 4}, {12, 4, 1}, 0, 12) ==
        "shape (1, 3, 4)  stride (12, 4, 1)  offset 0  contiguous True\n"
        "storage 12 cells; the view reads 12 of them, 12 reads in all\n"
        "cell      0   1   2   3   4   5   6   7   8   9  10  11\n"
        "view      #   #   #   #   #   #   #   #   #   #   #   #\n"
        "order     0   1   2   3   4   5   6   7   8   9  10  11\n");
}

TEST_CASE("layout picture: x[:, :1].expand(3, 4) reads cells several times") {
  CHECK(picture({3, 4}, {4, 0}, 0, 12) ==
        "shape (3, 4)  stride (4, 0)  offset 0  contiguous False\n"
        "storage 12 cells; the view reads 3 of them, 12 reads in all\n"
        "cell      0   1   2   3   4   5   6   7   8   9  10  11\n"
        "view      #   .   .   .   #   .   .   .   #   .   .   .\n"
        "order     0               4               8\n"
        "          1               5               9\n"
        "          2               6              10\n"
        "          3               7              11\n");
}

TEST_CASE("layout picture: empty view and 0-d view") {
  CHECK(picture({0, 3}, {3, 1}, 0, 12) ==
        "shape (0, 3)  stride (3, 1)  offset 0  contiguous True\n"
        "storage 12 cells; the view reads none of them\n"
        "cell      0   1   2   3   4   5   6   7   8   9  10  11\n"
        "view      .   .   .   .   .   .   .   .   .   .   .   .\n");
  CHECK(picture({0}, {1}, 0, 0) ==
        "shape (0,)  stride (1,)  offset 0  contiguous True\n"
        "storage 0 cells; the view reads none of them\n");
  CHECK(picture({}, {}, 5, 12) ==
        "shape ()  stride ()  offset 5  contiguous True\n"
        "storage 12 cells; the view reads 1 of them, 1 read in all\n"
        "cell      0   1   2   3   4   5   6   7   8   9  10  11\n"
        "view      .   .   .   .   .   #   .   .   .   .   .   .\n"
        "order                         0\n");
}

TEST_CASE("layout picture: cell values, and many reads of one cell") {
  const std::vector<std::string> values = {"0.", "0.5", "1.", "1.5", "2.", "2.5"};
  CHECK(picture({2, 2}, {1, 2}, 0, 6, &values) ==
        "shape (2, 2)  stride (1, 2)  offset 0  contiguous False\n"
        "storage 6 cells; the view reads 4 of them, 4 reads in all\n"
        "cell       0    1    2    3    4    5\n"
        "value     0.  0.5   1.  1.5   2.  2.5\n"
        "view       #    #    #    #    .    .\n"
        "order      0    2    1    3\n");
  // A row of 4 expanded to (100, 4): each cell read 100 times.
  CHECK(picture({100, 4}, {0, 1}, 0, 4) ==
        "shape (100, 4)  stride (0, 1)  offset 0  contiguous False\n"
        "storage 4 cells; the view reads 4 of them, 400 reads in all\n"
        "cell       0    1    2    3\n"
        "view       #    #    #    #\n"
        "order      0    1    2    3\n"
        "           4    5    6    7\n"
        "           8    9   10   11\n"
        "         +97  +97  +97  +97\n"
        "(+N: the cell is read N more times)\n");
}

TEST_CASE("layout picture: long strips wrap and elide") {
  // 60 cells fit max_cells = 64 and wrap in rows of 18.
  CHECK(picture({30}, {2}, 0, 60, nullptr, 64) ==
        "shape (30,)  stride (2,)  offset 0  contiguous False\n"
        "storage 60 cells; the view reads 30 of them, 30 reads in all\n"
        "cell      0   1   2   3   4   5   6   7   8   9  10  11  12  13  14  15  16  17\n"
        "view      #   .   #   .   #   .   #   .   #   .   #   .   #   .   #   .   #   .\n"
        "order     0       1       2       3       4       5       6       7       8\n"
        "\n"
        "cell     18  19  20  21  22  23  24  25  26  27  28  29  30  31  32  33  34  35\n"
        "view      #   .   #   .   #   .   #   .   #   .   #   .   #   .   #   .   #   .\n"
        "order     9      10      11      12      13      14      15      16      17\n"
        "\n"
        "cell     36  37  38  39  40  41  42  43  44  45  46  47  48  49  50  51  52  53\n"
        "view      #   .   #   .   #   .   #   .   #   .   #   .   #   .   #   .   #   .\n"
        "order    18      19      20      21      22      23      24      25      26\n"
        "\n"
        "cell     54  55  56  57  58  59\n"
        "view      #   .   #   .   #   .\n"
        "order    27      28      29\n");
  // A 3-element slice in the middle of 1000 cells: the cells around it.
  CHECK(picture({3}, {1}, 500, 1000) ==
        "shape (3,)  stride (1,)  offset 500  contiguous True\n"
        "storage 1000 cells; the view reads 3 of them, 3 reads in all\n"
        "cell     ...  496  497  498  499  500  501  502  503  504  505  506  ...\n"
        "view            .    .    .    .    #    #    #    .    .    .    .\n"
        "order                               0    1    2\n");
  // A span longer than max_cells: its two ends.
  CHECK(picture({2, 2}, {900, 1}, 10, 1000, nullptr, 8) ==
        "shape (2, 2)  stride (900, 1)  offset 10  contiguous False\n"
        "storage 1000 cells; the view reads 4 of them, 4 reads in all\n"
        "cell     ...   10   11   12   13  ...  908  909  910  911  ...\n"
        "view            #    #    .    .         .    .    #    #\n"
        "order           0    1                             2    3\n");
}
