// SPDX-License-Identifier: Apache-2.0
// Bad calls through the public C API: each returns a status with a message
// (PyTorch's, where PyTorch has one), leaves the out-pointer NULL, writes
// nothing, and never aborts the process.
#include <functional>

#include "ops_common.hpp"

using namespace ops;

namespace {

Tensor f32(const Shape& shape) { return make_input(shape, TSR_FLOAT32, Layout::Contiguous).view; }

// Values outside the enums that C++ can still represent in them (an enum
// whose values span -1..10 holds -16..15), so the test itself has no UB.
const tsr_dtype kBadDtype = static_cast<tsr_dtype>(15);
const tsr_op kBadOp = static_cast<tsr_op>(63);

struct BadCall {
  const char* what;
  std::function<tsr_status(tsr_tensor**)> call;
  tsr_status status;  // TSR_OK: any failure status
  const char* message;
};

tsr_status zeros(const Shape& s, tsr_dtype d, tsr_tensor** o) {
  return tsr_zeros(runtime().get(), static_cast<int32_t>(s.size()), s.data(), d, cpu(), o);
}

}  // namespace

TEST_CASE("bad calls return an error with a message and no tensor") {
  tsr_runtime* rt = runtime().get();
  const Tensor a34 = f32({3, 4}), a5 = f32({5}), a3 = f32({3}), a4 = f32({4}), a0 = f32({}), e03 = f32({0, 3});
  const Tensor i64 = make_input({3}, TSR_INT64, Layout::Contiguous).view;
  const Tensor b3 = make_input({3}, TSR_BOOL, Layout::Contiguous).view;
  const Tensor d45 = make_input({4, 5}, TSR_FLOAT64, Layout::Contiguous).view;
  auto reduce = [](tsr_op op, const Tensor& t, std::vector<int32_t> dims) {
    return [op, t, dims](tsr_tensor** o) {
      return tsr_reduce(op, t.get(), static_cast<int32_t>(dims.size()), dims.empty() ? nullptr : dims.data(), 0, o);
    };
  };
  auto view = [](const Tensor& t, Shape s) {
    return [t, s](tsr_tensor** o) { return tsr_view(t.get(), static_cast<int32_t>(s.size()), s.data(), o); };
  };
  auto reshape = [](const Tensor& t, Shape s) {
    return [t, s](tsr_tensor** o) { return tsr_reshape(t.get(), static_cast<int32_t>(s.size()), s.data(), o); };
  };
  auto expand = [](const Tensor& t, Shape s) {
    return [t, s](tsr_tensor** o) { return tsr_expand(t.get(), static_cast<int32_t>(s.size()), s.data(), o); };
  };
  const tsr_scalar one = int_scalar(1), bad_kind{7, 0, 0.0, 0};
  const int64_t huge = int64_t{1} << 40, seventeen[17] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

  const BadCall calls[] = {
      // Shapes that do not broadcast or multiply.
      {"(3,4) + (5,)", [&](tsr_tensor** o) { return tsr_binary(TSR_OP_ADD, a34.get(), a5.get(), o); }, TSR_ERR_SHAPE,
       "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 1"},
      {"where (3,) (5,)", [&](tsr_tensor** o) { return tsr_where(b3.get(), a3.get(), a5.get(), o); }, TSR_ERR_SHAPE,
       "must match the size of tensor b"},
      {"(2,3) @ (4,5)", [&](tsr_tensor** o) { return tsr_matmul(f32({2, 3}).get(), f32({4, 5}).get(), o); },
       TSR_ERR_SHAPE, "mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"},
      {"(3,) @ (4,)", [&](tsr_tensor** o) { return tsr_matmul(a3.get(), a4.get(), o); }, TSR_ERR_SHAPE,
       "inconsistent tensor size, expected tensor [3] and src [4] to have the same number of elements, but got 3 and 4 "
       "elements respectively"},
      {"0-d @ (3,)", [&](tsr_tensor** o) { return tsr_matmul(a0.get(), a3.get(), o); }, TSR_ERR_SHAPE,
       "both arguments to matmul need to be at least 1D, but they are 0D and 1D"},
      {"(2,3,4) @ (3,4,5)", [&](tsr_tensor** o) { return tsr_matmul(f32({2, 3, 4}).get(), f32({3, 4, 5}).get(), o); },
       TSR_ERR_SHAPE, "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"},
      // Dtypes an op does not take.
      {"float32 @ float64", [&](tsr_tensor** o) { return tsr_matmul(a34.get(), d45.get(), o); }, TSR_ERR_TYPE,
       "expected scalar type float32 but found float64"},
      {"where with a float condition", [&](tsr_tensor** o) { return tsr_where(a3.get(), a3.get(), a3.get(), o); },
       TSR_ERR_TYPE, "where expected condition to be a boolean tensor, but got a tensor with dtype float32"},
      {"mean of int64", reduce(TSR_OP_MEAN, i64, {}), TSR_ERR_TYPE,
       "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: int64"},
      {"bool - bool", [&](tsr_tensor** o) { return tsr_binary(TSR_OP_SUB, b3.get(), b3.get(), o); }, TSR_ERR_TYPE,
       "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator "
       "instead."},
      {"int64 - bool", [&](tsr_tensor** o) { return tsr_binary(TSR_OP_SUB, i64.get(), b3.get(), o); }, TSR_ERR_TYPE,
       "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the "
       "`~` or `logical_not()` operator instead."},
      {"-bool", [&](tsr_tensor** o) { return tsr_unary(TSR_OP_NEG, b3.get(), o); }, TSR_ERR_TYPE,
       "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` "
       "or `logical_not()` operator instead."},
      {"rand int64", [&](tsr_tensor** o) { return tsr_rand(rt, 1, seventeen, TSR_INT64, cpu(), o); }, TSR_ERR_TYPE,
       "rand"},
      {"randn int32", [&](tsr_tensor** o) { return tsr_randn(rt, 1, seventeen, TSR_INT32, cpu(), o); }, TSR_ERR_TYPE,
       "randn"},
      {"to dtype 15", [&](tsr_tensor** o) { return tsr_to_dtype(a3.get(), kBadDtype, o); },
       TSR_ERR_INVALID_ARGUMENT, "15"},
      {"zeros dtype 15", [&](tsr_tensor** o) { return zeros({2}, kBadDtype, o); },
       TSR_ERR_INVALID_ARGUMENT, "15"},
      // Dims and indices out of range.
      {"sum(dim=3) of 2-D", reduce(TSR_OP_SUM, a34, {3}), TSR_ERR_INDEX,
       "Dimension out of range (expected to be in range of [-2, 1], but got 3)"},
      {"max(dim=-3) of 2-D", reduce(TSR_OP_MAX, a34, {-3}), TSR_ERR_INDEX,
       "Dimension out of range (expected to be in range of [-2, 1], but got -3)"},
      {"sum(dim=(0, -2))", reduce(TSR_OP_SUM, a34, {0, -2}), TSR_ERR_INVALID_ARGUMENT,
       "dim 0 appears multiple times in the list of dims"},
      {"argmax over two dims", reduce(TSR_OP_ARGMAX, a34, {0, 1}), TSR_ERR_INVALID_ARGUMENT, "argmax"},
      {"max() of an empty tensor", reduce(TSR_OP_MAX, e03, {}), TSR_OK,
       "max(): Expected reduction dim to be specified for input.numel() == 0."},
      {"argmax(dim=0) of (0,3)", reduce(TSR_OP_ARGMAX, e03, {0}), TSR_ERR_INDEX,
       "argmax(): Expected reduction dim 0 to have non-zero size."},
      {"transpose(0, 2) of 2-D", [&](tsr_tensor** o) { return tsr_transpose(a34.get(), 0, 2, o); }, TSR_ERR_INDEX,
       "Dimension out of range (expected to be in range of [-2, 1], but got 2)"},
      {"unsqueeze(5) of 2-D", [&](tsr_tensor** o) { return tsr_unsqueeze(a34.get(), 5, o); }, TSR_ERR_INDEX,
       "Dimension out of range (expected to be in range of [-3, 2], but got 5)"},
      {"x[5] of (3,4)", [&](tsr_tensor** o) { return tsr_select(a34.get(), 0, 5, o); }, TSR_ERR_INDEX,
       "index 5 is out of bounds for dimension 0 with size 3"},
      {"x[-4] of (3,)", [&](tsr_tensor** o) { return tsr_select(a3.get(), 0, -4, o); }, TSR_ERR_INDEX,
       "index -4 is out of bounds for dimension 0 with size 3"},
      // PyTorch says "select() cannot be applied to a 0-dim tensor." or, for
      // x[0], "invalid index of a 0-dim tensor. ...": either will do.
      {"select of 0-d", [&](tsr_tensor** o) { return tsr_select(a0.get(), 0, 0, o); }, TSR_ERR_INDEX, "0-dim tensor"},
      {"slice dim 2 of 2-D", [&](tsr_tensor** o) { return tsr_slice(a34.get(), 2, 0, 1, 1, o); }, TSR_ERR_INDEX,
       "Dimension out of range"},
      // Invalid views.
      {"x[::0]", [&](tsr_tensor** o) { return tsr_slice(a34.get(), 1, TSR_SLICE_NONE, TSR_SLICE_NONE, 0, o); },
       TSR_ERR_INVALID_ARGUMENT, "slice step must be positive"},
      {"x[::-1]", [&](tsr_tensor** o) { return tsr_slice(a34.get(), 1, TSR_SLICE_NONE, TSR_SLICE_NONE, -1, o); },
       TSR_ERR_INVALID_ARGUMENT, "slice step must be positive"},
      {"x.T.view(12)", view(a34.T(), {12}), TSR_ERR_SHAPE,
       "view size is not compatible with input tensor's size and stride (at least one dimension spans across two "
       "contiguous subspaces). Use .reshape(...) instead."},
      {"view(5) of 12", view(a34, {5}), TSR_ERR_SHAPE, "shape '[5]' is invalid for input of size 12"},
      {"view(-1, 5) of 12", view(a34, {-1, 5}), TSR_ERR_SHAPE, "shape '[-1, 5]' is invalid for input of size 12"},
      {"reshape(-1, -1)", reshape(a34, {-1, -1}), TSR_ERR_SHAPE, "only one dimension can be inferred"},
      {"reshape(3, 0, -1) of 0 elements", reshape(e03, {3, 0, -1}), TSR_ERR_SHAPE,
       "cannot reshape tensor of 0 elements into shape [3, 0, -1] because the unspecified dimension size -1 can be "
       "any value and is ambiguous"},
      {"expand (3,4) to (2,4)", expand(a34, {2, 4}), TSR_ERR_SHAPE,
       "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0.  Target "
       "sizes: [2, 4].  Tensor sizes: [3, 4]"},
      {"expand (3,4) to (-1,4,4)", expand(a34, {-1, 4, 4}), TSR_ERR_SHAPE,
       "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target "
       "sizes: [-1, 4, 4].  Tensor sizes: [3, 4]"},
      {"permute(0, 0)",
       [&](tsr_tensor** o) {
         const int32_t dims[2] = {0, 0};
         return tsr_permute(a34.get(), 2, dims, o);
       },
       TSR_ERR_INVALID_ARGUMENT, "permute(): duplicate dims are not allowed."},
      {"flatten(1, 0)", [&](tsr_tensor** o) { return tsr_flatten(a34.get(), 1, 0, o); }, TSR_ERR_INVALID_ARGUMENT,
       "flatten() has invalid args: start_dim cannot come after end_dim"},
      {"as_strided past the storage",
       [&](tsr_tensor** o) {
         const int64_t shape[2] = {5, 5}, strides[2] = {5, 1};
         return tsr_as_strided(a34.get(), 2, shape, strides, 0, o);
       },
       TSR_ERR_INVALID_ARGUMENT,
       "as_strided: sizes [5, 5], strides [5, 1], storage offset 0, and itemsize 4 requiring a storage size of 100 are "
       "out of bounds for storage of size 48"},
      {"as_strided with a negative stride",
       [&](tsr_tensor** o) {
         const int64_t shape[1] = {2}, strides[1] = {-1};
         return tsr_as_strided(a34.get(), 1, shape, strides, 3, o);
       },
       TSR_ERR_INVALID_ARGUMENT, "as_strided: Negative strides are not supported at the moment, got strides: [-1]"},
      // Sizes: negative, overflowing, too many dims.
      {"zeros(-1, 2)", [&](tsr_tensor** o) { return zeros({-1, 2}, TSR_FLOAT32, o); }, TSR_ERR_INVALID_ARGUMENT,
       "Trying to create tensor with negative dimension -1: [-1, 2]"},
      {"zeros(2^40, 2^40)", [&](tsr_tensor** o) { return zeros({huge, huge}, TSR_FLOAT32, o); },
       TSR_ERR_INVALID_ARGUMENT, "Storage size calculation overflowed with sizes=[1099511627776, 1099511627776]"},
      {"zeros(2^61, 2) float32 (bytes overflow)",
       [&](tsr_tensor** o) { return zeros({int64_t{1} << 61, 2}, TSR_FLOAT32, o); }, TSR_ERR_INVALID_ARGUMENT,
       "Storage size calculation overflowed with sizes=[2305843009213693952, 2]"},
      {"ones with 17 dims", [&](tsr_tensor** o) { return tsr_ones(rt, 17, seventeen, TSR_FLOAT32, cpu(), o); },
       TSR_ERR_INVALID_ARGUMENT, "17"},
      {"view with a negative size", view(a34, {-2, 6}), TSR_ERR_INVALID_ARGUMENT, "invalid shape dimension -2"},
      {"arange step 0", [&](tsr_tensor** o) { return tsr_arange(rt, int_scalar(0), int_scalar(10), int_scalar(0), TSR_DTYPE_UNDEFINED, cpu(), o); },
       TSR_ERR_INVALID_ARGUMENT, "step must be nonzero"},
      {"arange(0, 10, -1)", [&](tsr_tensor** o) { return tsr_arange(rt, int_scalar(0), int_scalar(10), int_scalar(-1), TSR_DTYPE_UNDEFINED, cpu(), o); },
       TSR_ERR_INVALID_ARGUMENT, "upper bound and larger bound inconsistent with step sign"},
      {"linspace steps -1", [&](tsr_tensor** o) { return tsr_linspace(rt, 0, 1, -1, TSR_FLOAT32, cpu(), o); },
       TSR_ERR_INVALID_ARGUMENT, "number of steps must be non-negative"},
      {"full((2,), 300, int8)", [&](tsr_tensor** o) { return tsr_full(rt, 1, seventeen, int_scalar(300), TSR_INT8, cpu(), o); },
       TSR_OK, "value cannot be converted to type int8_t without overflow"},
      {"full with scalar kind 7", [&](tsr_tensor** o) { return tsr_full(rt, 0, nullptr, bad_kind, TSR_FLOAT32, cpu(), o); },
       TSR_ERR_INVALID_ARGUMENT, "7"},
      // Not ops of that kind; NULL handles.
      {"binary EXP", [&](tsr_tensor** o) { return tsr_binary(TSR_OP_EXP, a3.get(), a3.get(), o); },
       TSR_ERR_INVALID_ARGUMENT, "exp"},
      {"binary_scalar op 63", [&](tsr_tensor** o) { return tsr_binary_scalar(kBadOp, a3.get(), one, 0, o); },
       TSR_ERR_INVALID_ARGUMENT, ""},
      {"unary ADD", [&](tsr_tensor** o) { return tsr_unary(TSR_OP_ADD, a3.get(), o); }, TSR_ERR_INVALID_ARGUMENT, "add"},
      {"reduce MATMUL", reduce(TSR_OP_MATMUL, a34, {}), TSR_ERR_INVALID_ARGUMENT, "matmul"},
      {"binary NULL + x", [&](tsr_tensor** o) { return tsr_binary(TSR_OP_ADD, nullptr, a3.get(), o); },
       TSR_ERR_INVALID_ARGUMENT, "NULL"},
      {"unary NULL", [&](tsr_tensor** o) { return tsr_unary(TSR_OP_NEG, nullptr, o); }, TSR_ERR_INVALID_ARGUMENT, "NULL"},
      {"matmul x @ NULL", [&](tsr_tensor** o) { return tsr_matmul(a3.get(), nullptr, o); }, TSR_ERR_INVALID_ARGUMENT,
       "NULL"},
      {"clone NULL", [&](tsr_tensor** o) { return tsr_clone(nullptr, o); }, TSR_ERR_INVALID_ARGUMENT, "NULL"},
      {"reduce NULL", reduce(TSR_OP_SUM, Tensor(), {}), TSR_ERR_INVALID_ARGUMENT, "NULL"},
  };
  for (const BadCall& c : calls) {
    INFO(c.what);
    check_error(attempt(c.call), c.status, c.message);
  }
}

TEST_CASE("bad in-place calls fail and write nothing") {
  auto in = [](Layout l, tsr_dtype d = TSR_FLOAT32, Shape s = {3, 4}) { return make_input(s, d, l); };
  const Tensor f34 = f32({3, 4}), f24 = f32({2, 4});
  struct Case {
    const char* what;
    Input target;
    std::function<tsr_status(const Tensor&)> call;
    tsr_status status;
    const char* message;
  };
  const char* overlap =
      "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
      "Please clone() the tensor before performing the operation.";
  const Case cases[] = {
      {"int32 += float32", in(Layout::Contiguous, TSR_INT32),
       [&](const Tensor& t) { return tsr_binary_(TSR_OP_ADD, t.get(), f34.get()); }, TSR_ERR_TYPE,
       "result type float32 can't be cast to the desired output type int32"},
      {"int8 /= int8", in(Layout::Sliced, TSR_INT8), [&](const Tensor& t) { return tsr_binary_(TSR_OP_DIV, t.get(), t.get()); },
       TSR_ERR_TYPE, "result type float32 can't be cast to the desired output type int8"},
      {"bool += 1", in(Layout::Contiguous, TSR_BOOL),
       [&](const Tensor& t) { return tsr_binary_scalar_(TSR_OP_ADD, t.get(), int_scalar(1)); }, TSR_ERR_TYPE,
       "result type int64 can't be cast to the desired output type bool"},
      {"int64.exp_()", in(Layout::Transposed, TSR_INT64), [&](const Tensor& t) { return tsr_unary_(TSR_OP_EXP, t.get()); },
       TSR_ERR_TYPE, "result type float32 can't be cast to the desired output type int64"},
      {"(1,4) += (3,4)", in(Layout::Contiguous, TSR_FLOAT32, {1, 4}),
       [&](const Tensor& t) { return tsr_binary_(TSR_OP_ADD, t.get(), f34.get()); }, TSR_ERR_SHAPE,
       "output with shape [1, 4] doesn't match the broadcast shape [3, 4]"},
      {"expanded += 1", in(Layout::Expanded), [&](const Tensor& t) { return tsr_binary_scalar_(TSR_OP_ADD, t.get(), int_scalar(1)); },
       TSR_ERR_INVALID_ARGUMENT, overlap},
      {"expanded.exp_()", in(Layout::Expanded), [&](const Tensor& t) { return tsr_unary_(TSR_OP_EXP, t.get()); },
       TSR_ERR_INVALID_ARGUMENT, overlap},
      {"expanded.copy_(x)", in(Layout::Expanded), [&](const Tensor& t) { return tsr_copy_(t.get(), f34.get()); },
       TSR_ERR_INVALID_ARGUMENT, overlap},
      {"(3,4).copy_((2,4))", in(Layout::Transposed), [&](const Tensor& t) { return tsr_copy_(t.get(), f24.get()); },
       TSR_ERR_SHAPE, "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"},
      // fill_ checks the value fits, as c10's checked_convert (negative ints
      // down to -max wrap into unsigned types: uint8.fill_(-3) is 253).
      {"uint8.fill_(-256)", in(Layout::Sliced, TSR_UINT8), [&](const Tensor& t) { return tsr_fill_(t.get(), int_scalar(-256)); },
       TSR_OK, "value cannot be converted to type uint8_t without overflow"},
      {"uint8.fill_(-0.5)", in(Layout::Sliced, TSR_UINT8), [&](const Tensor& t) { return tsr_fill_(t.get(), float_scalar(-0.5)); },
       TSR_OK, "value cannot be converted to type uint8_t without overflow"},
      {"int8.fill_(300)", in(Layout::Sliced, TSR_INT8), [&](const Tensor& t) { return tsr_fill_(t.get(), int_scalar(300)); },
       TSR_OK, "value cannot be converted to type int8_t without overflow"},
      {"int8.fill_(127.9)", in(Layout::Transposed, TSR_INT8), [&](const Tensor& t) { return tsr_fill_(t.get(), float_scalar(127.9)); },
       TSR_OK, "value cannot be converted to type int8_t without overflow"},
      {"float16.fill_(70000.0)", in(Layout::Sliced, TSR_FLOAT16), [&](const Tensor& t) { return tsr_fill_(t.get(), float_scalar(70000.0)); },
       TSR_OK, "value cannot be converted to type at::Half without overflow"},
      {"float.sub_(bool)", in(Layout::Contiguous), [&](const Tensor& t) {
         return tsr_binary_(TSR_OP_SUB, t.get(), make_input({3, 4}, TSR_BOOL, Layout::Contiguous).view.get());
       },
       TSR_ERR_TYPE, "Subtraction, the `-` operator, with a bool tensor is not supported."},
      {"NULL += x", in(Layout::Contiguous), [&](const Tensor&) { return tsr_binary_(TSR_OP_ADD, nullptr, f34.get()); },
       TSR_ERR_INVALID_ARGUMENT, "NULL"},
      {"x.copy_(NULL)", in(Layout::Contiguous), [&](const Tensor& t) { return tsr_copy_(t.get(), nullptr); },
       TSR_ERR_INVALID_ARGUMENT, "NULL"},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    check_inplace(c.target, error_of(c.status, c.message), [&] { return c.call(c.target.view); },
                  [] { return std::vector<double>{}; });
  }
}

TEST_CASE("reading and item: bad calls") {
  const Tensor a3 = f32({3});
  float small[2];
  CHECK(tsr_read(a3.get(), small, sizeof small) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(tsr_last_error_message(), Catch::Contains("bytes"));
  CHECK(tsr_last_error_status() == TSR_ERR_INVALID_ARGUMENT);
  tsr_scalar s{};
  CHECK(tsr_item(a3.get(), &s) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(tsr_last_error_message(), Catch::Contains("a Tensor with 3 elements cannot be converted to Scalar"));
  CHECK(tsr_item(f32({0, 3}).get(), &s) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(tsr_last_error_message(), Catch::Contains("a Tensor with 0 elements cannot be converted to Scalar"));
  tsr_device d{};
  CHECK(tsr_device_parse(runtime().get(), "tpu", &d) == TSR_ERR_INVALID_ARGUMENT);
  CHECK_THAT(tsr_last_error_message(), Catch::Contains("tpu"));
}

TEST_CASE("a dtype without a kernel is reported, not crashed on") {
  tsr_runtime* rt = runtime().get();
  CHECK(tsr_runtime_has_kernel(rt, cpu(), TSR_OP_MEAN, TSR_INT64) == 0);
  CHECK(tsr_runtime_has_kernel(rt, cpu(), TSR_OP_DIV, TSR_INT32) == 0);  // integer division promotes to float
  CHECK(tsr_runtime_has_kernel(rt, cpu(), TSR_OP_RAND_UNIFORM, TSR_INT64) == 0);
  CHECK(tsr_runtime_has_kernel(rt, cpu(), TSR_OP_ADD, TSR_FLOAT32) == 1);
  CHECK(tsr_runtime_has_kernel(rt, cpu(), TSR_OP_MEAN, TSR_BFLOAT16) == 1);
  CHECK(tsr_runtime_has_kernel(rt, cpu(), TSR_OP_SUM, TSR_BOOL) == 1);
  // Every op whose contract takes float32 has a float32 kernel on the cpu
  // (the composites too); the others none.
  for (int op = TSR_OP_FILL; op < TSR_OP_COUNT; ++op) {
    INFO(tsr_op_name(op));
    const bool native = tsr_op_takes_dtype(op, TSR_FLOAT32);
    CHECK(tsr_runtime_has_kernel(rt, cpu(), static_cast<tsr_op>(op), TSR_FLOAT32) == (native ? 1 : 0));
  }
  CHECK(tsr_runtime_has_kernel(rt, cpu(), TSR_OP_BITWISE_AND, TSR_BOOL) == 1);
  CHECK(tsr_runtime_has_kernel(rt, cpu(), TSR_OP_SHIFT_LEFT, TSR_BOOL) == 0);
}
