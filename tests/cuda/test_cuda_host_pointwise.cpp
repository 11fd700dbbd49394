// SPDX-License-Identifier: Apache-2.0
// cuda.host.pointwise: the kernels' device check, and the pointwise driver: flat, strided
// (32- and 64-bit) and tiled paths over every layout, casts, where, fill.
// The CUDA backend's device code run on the CPU, no GPU needed (see
// test_cuda_host.hpp).
#include "test_cuda_host.hpp"

using namespace tessera_test_cuda_host;

TEST_CASE("a GPU kernel refuses operands that are not on its device") {
  HostTensor out = make_tensor(TSR_FLOAT32, {2, 3}, {3, 1}, 0), in = make_tensor(TSR_FLOAT32, {2, 3}, {3, 1}, 0);
  const tsr_tensor_desc* inputs[1] = {&in.desc};
  tsr_kernel_args k{};
  k.struct_size = TSR_KERNEL_ARGS_STRUCT_SIZE;
  k.op = TSR_OP_NEG;
  k.output = &out.desc;
  k.inputs = inputs;
  k.num_inputs = 1;
  auto check = [&] { tessera::backend::check_kernel_args("cuda", k, TSR_FLOAT32, 1, 0, 0, INT32_MAX, TSR_DEVICE_CUDA); };
  CHECK_NOTHROW(check());  // make_tensor puts both on cuda:0
  in.desc.device = tsr_device{TSR_DEVICE_CPU, 0};
  CHECK_THROWS_WITH(check(), "cuda: neg(float32): input is not on cuda:0");
  in.desc.device = tsr_device{TSR_DEVICE_CUDA, 1};
  CHECK_THROWS_WITH(check(), "cuda: neg(float32): input is not on cuda:0");
  in.desc.shape[0] = 0;  // empty: never dereferenced, any device will do
  out.desc.shape[0] = 0;
  CHECK_NOTHROW(check());
}

// ---- pointwise -----------------------------------------------------------------------

TEST_CASE("binary add float32 over every layout pair, 32- and 64-bit paths") {
  std::mt19937_64 rng(1);
  for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{{3, 5}, {4, 64}, {7, 130}, {33, 17}, {2, 1}, {1, 9}}) {
    for (const Layout& la : layouts(r, c)) {
      for (const Layout& lb : layouts(r, c)) {
        for (bool force_64 : {false, true}) {
          INFO(r << "x" << c << " a " << la.name << ", b " << lb.name << (force_64 ? ", 64-bit" : ""));
          HostTensor a = tensor_for(TSR_FLOAT32, la), b = tensor_for(TSR_FLOAT32, lb);
          HostTensor out = make_tensor(TSR_FLOAT32, {r, c}, {c, 1}, 0);
          fill_random<float>(a, rng);
          fill_random<float>(b, rng);
          check_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_ADD, float>{}, out, {&a, &b}, force_64,
                                               force_64 ? cu::PathKind::kStrided64 : cu::PathKind::kNone);
        }
      }
    }
  }
}

TEST_CASE("outputs in every layout, written in place and out of place") {
  std::mt19937_64 rng(2);
  for (const Layout& lo : layouts(9, 70)) {
    if (lo.name.find("expanded") != std::string::npos) continue;  // an output never overlaps itself
    INFO("out " << lo.name);
    HostTensor out = tensor_for(TSR_FLOAT64, lo);
    HostTensor a = make_tensor(TSR_FLOAT64, {9, 70}, {70, 1}, 0);
    fill_random<double>(a, rng);
    check_pointwise<double, double>(cu::UnaryFn<TSR_OP_NEG, double>{}, out, {&a}, false, cu::PathKind::kNone);
    // In place: the input is the output's own layout.
    fill_random<double>(out, rng);
    HostTensor same = tensor_for(TSR_FLOAT64, lo);
    std::memcpy(same.storage.get(), out.storage.get(), out.bytes);
    same.desc.data = out.storage.get();
    check_pointwise<double, double>(cu::UnaryFn<TSR_OP_ABS, double>{}, out, {&same}, false, cu::PathKind::kNone);
  }
}

TEST_CASE("the flat kernel's warps read and write consecutive vectors") {
  // float: V = 4 elements per 16-byte vector, U = kFlatUnroll vectors per thread.
  constexpr int V = 4, U = cu::kFlatUnroll, B = cu::kPointwiseBlock;
  std::vector<int> hits(static_cast<size_t>(3 * B * V * U), 0);
  for (uint64_t t = 0; t < 3 * static_cast<uint64_t>(B); ++t)
    for (int u = 0; u < U; ++u) {
      const uint64_t first = cu::flat_vector_first<V, U>(t, u);
      // One access instruction of a warp: lane l + 1 starts where lane l ends.
      if (t % 32 != 31) CHECK(cu::flat_vector_first<V, U>(t + 1, u) == first + V);
      // Each block owns B * V * U consecutive elements.
      CHECK(first / (B * V * U) == t / B);
      for (int j = 0; j < V; ++j) ++hits.at(first + j);
    }
  CHECK(std::count(hits.begin(), hits.end(), 1) == static_cast<long>(hits.size()));  // each element exactly once
}

TEST_CASE("the kernel paths the benchmarks rely on are the ones taken") {
  std::mt19937_64 rng(3);
  // add: one contiguous run, aligned -> flat.
  HostTensor a = make_tensor(TSR_FLOAT32, {4096}, {1}, 0), b = make_tensor(TSR_FLOAT32, {4096}, {1}, 0);
  HostTensor o = make_tensor(TSR_FLOAT32, {4096}, {1}, 0);
  fill_random<float>(a, rng);
  fill_random<float>(b, rng);
  check_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_ADD, float>{}, o, {&a, &b}, false, cu::PathKind::kFlat);
  // A tail that is not a whole number of vectors.
  HostTensor a2 = make_tensor(TSR_FLOAT32, {4099}, {1}, 0), b2 = make_tensor(TSR_FLOAT32, {4099}, {1}, 0);
  HostTensor o2 = make_tensor(TSR_FLOAT32, {4099}, {1}, 0);
  fill_random<float>(a2, rng);
  fill_random<float>(b2, rng);
  check_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_ADD, float>{}, o2, {&a2, &b2}, false, cu::PathKind::kFlat);

  // Broadcast add [64, 256] + [256]: strided, every operand vectorised.
  HostTensor x = make_tensor(TSR_FLOAT32, {64, 256}, {256, 1}, 0), row = make_tensor(TSR_FLOAT32, {64, 256}, {0, 1}, 0);
  HostTensor bo = make_tensor(TSR_FLOAT32, {64, 256}, {256, 1}, 0);
  fill_random<float>(x, rng);
  fill_random<float>(row, rng);
  {
    const auto plan = cu::make_plan(std::array<const tsr_tensor_desc*, 3>{&bo.desc, &x.desc, &row.desc}, true);
    const auto L = cu::plan_pointwise(plan, 4, cu::kFlatUnroll);
    CHECK(L.kind == cu::PathKind::kStrided32);
    CHECK(L.s32.vec_mask == 0b111u);
  }
  check_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_ADD, float>{}, bo, {&x, &row}, false, cu::PathKind::kStrided32);

  // Step-2 slice copy [64, 128] of [64, 256]: the input takes the pair path.
  HostTensor src = make_tensor(TSR_FLOAT32, {64, 128}, {256, 2}, 0), dst = make_tensor(TSR_FLOAT32, {64, 128}, {128, 1}, 0);
  fill_random<float>(src, rng);
  {
    const auto plan = cu::make_plan(std::array<const tsr_tensor_desc*, 2>{&dst.desc, &src.desc}, true);
    const auto L = cu::plan_pointwise(plan, 4, cu::kFlatUnroll);
    CHECK(L.kind == cu::PathKind::kStrided32);
    CHECK(L.s32.vec_mask == 0b01u);
    CHECK(L.s32.pair_mask == 0b10u);
  }
  check_pointwise<float, float>(Identity<float>{}, dst, {&src}, false, cu::PathKind::kStrided32);

  // A one-element add (the small-op benchmark): the flat kernel's scalar
  // tail, also at offsets no vector load could use.
  for (const int64_t off : {int64_t{0}, int64_t{1}, int64_t{3}}) {
    INFO("offset " << off);
    HostTensor s1 = make_tensor(TSR_FLOAT32, {1, 1}, {1, 1}, off), s2 = make_tensor(TSR_FLOAT32, {1, 1}, {0, 0}, 2 * off);
    HostTensor so = make_tensor(TSR_FLOAT32, {1, 1}, {7, 1}, off);
    fill_random<float>(s1, rng);
    fill_random<float>(s2, rng);
    check_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_ADD, float>{}, so, {&s1, &s2}, false, cu::PathKind::kFlat);
  }
}

TEST_CASE("casts between element sizes, where, fill, 0-d and empty tensors") {
  std::mt19937_64 rng(4);
  for (const Layout& l : layouts(5, 37)) {
    INFO(l.name);
    HostTensor in8 = tensor_for(TSR_UINT8, l);
    fill_random<uint8_t>(in8, rng);
    HostTensor of = make_tensor(TSR_FLOAT32, {5, 37}, {37, 1}, 0);
    check_pointwise<float, uint8_t>(cu::Convert<float, uint8_t>{}, of, {&in8}, false, cu::PathKind::kNone);
    HostTensor ind = tensor_for(TSR_FLOAT64, l);
    fill_random<double>(ind, rng);
    HostTensor oi = make_tensor(TSR_INT8, {5, 37}, {1, 5}, 0);  // a transposed output
    check_pointwise<int8_t, double>(cu::Convert<int8_t, double>{}, oi, {&ind}, false, cu::PathKind::kNone);
    HostTensor oh = make_tensor(TSR_FLOAT16, {5, 37}, {37, 1}, 1);
    check_pointwise<cu::Half, double>(cu::Convert<cu::Half, double>{}, oh, {&ind}, false, cu::PathKind::kNone);
    HostTensor cmp = make_tensor(TSR_BOOL, {5, 37}, {37, 1}, 0);
    HostTensor other = make_tensor(TSR_FLOAT64, {5, 37}, {37, 1}, 0);
    fill_random<double>(other, rng);
    check_pointwise<cu::Bool, double, double>(cu::CompareFn<TSR_OP_LT, double>{}, cmp, {&ind, &other}, false, cu::PathKind::kNone);
    HostTensor cond = tensor_for(TSR_BOOL, l);
    fill_random<cu::Bool>(cond, rng);
    HostTensor u = make_tensor(TSR_INT16, {5, 37}, {1, 5}, 0), v = tensor_for(TSR_INT16, l);
    fill_random<int16_t>(u, rng);
    fill_random<int16_t>(v, rng);
    HostTensor w = make_tensor(TSR_INT16, {5, 37}, {37, 1}, 0);
    check_pointwise<int16_t, cu::Bool, int16_t, int16_t>(cu::WhereFn<int16_t>{}, w, {&cond, &u, &v}, false, cu::PathKind::kNone);
    HostTensor filled = tensor_for(TSR_INT64, l.name.find("expanded") == std::string::npos ? l : layouts(5, 37)[0]);
    check_pointwise<int64_t>(cu::FillFn<int64_t>{-77}, filled, {}, false, cu::PathKind::kNone);
  }
  // 0-d: one element, any path; empty: nothing written.
  HostTensor s0 = make_tensor(TSR_FLOAT32, {}, {}, 3), s1 = make_tensor(TSR_FLOAT32, {}, {}, 0), s2 = make_tensor(TSR_FLOAT32, {}, {}, 1);
  fill_random<float>(s1, rng);
  fill_random<float>(s2, rng);
  check_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_MUL, float>{}, s0, {&s1, &s2}, false, cu::PathKind::kNone);
  HostTensor e0 = make_tensor(TSR_FLOAT32, {4, 0}, {0, 1}, 0), e1 = make_tensor(TSR_FLOAT32, {4, 0}, {0, 1}, 0);
  check_pointwise<float, float>(cu::UnaryFn<TSR_OP_EXP, float>{}, e0, {&e1}, false, cu::PathKind::kNone);
  // Size-1 dims, 3-d permutes, bfloat16 math.
  HostTensor p_in = make_tensor(TSR_BFLOAT16, {3, 1, 20, 6}, {1, 999, 18, 3}, 0);
  for (int64_t i = 0; i < numel(p_in.desc); ++i) at<cu::BFloat16>(p_in, i).bits = cu::float_to_bfloat16(static_cast<float>(i % 17) - 8.f);
  HostTensor p_out = make_tensor(TSR_BFLOAT16, {3, 1, 20, 6}, {120, 120, 6, 1}, 0);
  check_pointwise<cu::BFloat16, cu::BFloat16>(cu::UnaryFn<TSR_OP_SIGMOID, cu::BFloat16>{}, p_out, {&p_in}, false, cu::PathKind::kNone);
}

TEST_CASE("integer and float functors follow the CPU backend's rules") {
  CHECK(cu::int_pow<int32_t>(3, 4) == 81);
  CHECK(cu::int_pow<int32_t>(2, -1) == 0);
  CHECK(cu::int_pow<int32_t>(-1, -3) == -1);
  CHECK(cu::int_pow<int8_t>(2, 7) == -128);  // wraps
  CHECK(cu::int_pow<uint8_t>(3, 5) == static_cast<uint8_t>(243));
  CHECK(std::isnan(cu::maximum(1.0f, NAN)));
  CHECK(std::isnan(cu::minimum(static_cast<double>(NAN), 1.0)));
  CHECK(cu::apply_unary<TSR_OP_ABS, int8_t>(-128) == -128);
  CHECK(cu::apply_unary<TSR_OP_NEG, int64_t>(INT64_MIN) == INT64_MIN);
  CHECK(std::signbit(cu::apply_unary<TSR_OP_RELU, float>(-0.0f)));
  CHECK(std::isnan(cu::apply_unary<TSR_OP_RELU, float>(NAN)));
  CHECK(cu::apply_unary<TSR_OP_SIGMOID, double>(-1000.0) == 0.0);
  CHECK(cu::apply_unary<TSR_OP_SIGMOID, double>(1000.0) == 1.0);
  CHECK(cu::apply_binary<TSR_OP_ADD, bool>(true, true) == true);
  CHECK(cu::apply_binary<TSR_OP_ADD, int16_t>(32767, 1) == -32768);
}

TEST_CASE("an operand transposed against the output takes the tiled kernel") {
  std::mt19937_64 rng(6);
  // a + b.T: whole tiles, edge tiles, and both.
  for (auto [r, c] : std::vector<std::pair<int64_t, int64_t>>{{64, 96}, {100, 37}, {33, 70}, {16, 16}}) {
    INFO(r << "x" << c);
    HostTensor a = make_tensor(TSR_FLOAT32, {r, c}, {c, 1}, 0), b = make_tensor(TSR_FLOAT32, {r, c}, {1, r}, 3);
    HostTensor out = make_tensor(TSR_FLOAT32, {r, c}, {c, 1}, 1);
    fill_random<float>(a, rng);
    fill_random<float>(b, rng);
    check_tiled_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_ADD, float>{}, out, {&a, &b});
    // The output transposed against both inputs: both are staged.
    HostTensor ot = make_tensor(TSR_FLOAT32, {r, c}, {1, r}, 0);
    check_tiled_pointwise<float, float, float>(cu::BinaryFn<TSR_OP_SUB, float>{}, ot, {&a, &a});
  }
  // where(cond, x.T, row): three inputs of three kinds (read along a, staged, broadcast).
  HostTensor cond = make_tensor(TSR_BOOL, {70, 40}, {40, 1}, 0), x = make_tensor(TSR_FLOAT64, {70, 40}, {1, 70}, 0);
  HostTensor row = make_tensor(TSR_FLOAT64, {70, 40}, {0, 1}, 0), wout = make_tensor(TSR_FLOAT64, {70, 40}, {40, 1}, 0);
  fill_random<cu::Bool>(cond, rng);
  fill_random<double>(x, rng);
  fill_random<double>(row, rng);
  check_tiled_pointwise<double, cu::Bool, double, double>(cu::WhereFn<double>{}, wout, {&cond, &x, &row});
  // A cast of a transposed tensor (int32 -> float16 storage).
  HostTensor xi = make_tensor(TSR_INT32, {50, 80}, {1, 50}, 0), xh = make_tensor(TSR_FLOAT16, {50, 80}, {80, 1}, 0);
  fill_random<int32_t>(xi, rng);
  check_tiled_pointwise<cu::Half, int32_t>(cu::Convert<cu::Half, int32_t>{}, xh, {&xi});
  // A batch dim: [50, 3, 40] permuted to [40, 3, 50].
  HostTensor pin = make_tensor(TSR_FLOAT32, {40, 3, 50}, {1, 40, 120}, 0), pout = make_tensor(TSR_FLOAT32, {40, 3, 50}, {150, 50, 1}, 0);
  fill_random<float>(pin, rng);
  check_tiled_pointwise<float, float>(cu::UnaryFn<TSR_OP_NEG, float>{}, pout, {&pin});
  // Too small a side, or no unit-stride dim to stage along: not tiled.
  HostTensor narrow = make_tensor(TSR_FLOAT32, {100, 8}, {1, 100}, 0), nout = make_tensor(TSR_FLOAT32, {100, 8}, {8, 1}, 0);
  fill_random<float>(narrow, rng);
  check_pointwise<float, float>(cu::UnaryFn<TSR_OP_NEG, float>{}, nout, {&narrow}, false, cu::PathKind::kStrided32);
  HostTensor step = make_tensor(TSR_FLOAT32, {40, 40}, {2, 160}, 0), sout = make_tensor(TSR_FLOAT32, {40, 40}, {40, 1}, 0);
  fill_random<float>(step, rng);
  check_pointwise<float, float>(cu::UnaryFn<TSR_OP_NEG, float>{}, sout, {&step}, false, cu::PathKind::kStrided32);
}

TEST_CASE("a tiled operand whose offsets pass 32 bits takes the checked path") {
  HostTensor a = make_tensor(TSR_FLOAT32, {64, 64}, {64, 1}, 0), out = make_tensor(TSR_FLOAT32, {64, 64}, {64, 1}, 0);
  tsr_tensor_desc wide = a.desc;  // never read: the plan only looks at the descriptor
  // b = the output's dim 1 (out stride 1): wide is unit-stride along dim 0 and strided along dim 1.
  wide.strides[0] = 1;
  for (const int64_t s : {int64_t{69273665}, int64_t{69273666}}) {  // 31 x (s + 1) < 2^31 for the first only
    wide.strides[1] = s;
    const auto plan = cu::make_plan(std::array<const tsr_tensor_desc*, 3>{&out.desc, &a.desc, &wide}, true);
    const auto L = cu::plan_pointwise(plan, 4, cu::kFlatUnroll);
    REQUIRE(L.kind == cu::PathKind::kTiled);
    CHECK(L.tiled.staged_mask == 0b100u);
    CHECK(L.tiled.offsets32 == (s == 69273665));
  }
}
