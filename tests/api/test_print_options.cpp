// SPDX-License-Identifier: Apache-2.0
// Print precision is settable per runtime, as torch.set_printoptions.
#include <catch2/catch.hpp>

#include "runtime_fixture.hpp"

using namespace tessera;
using tessera::test::cpu;
using tessera::test::runtime;

TEST_CASE("print precision", "[print]") {
  const Runtime& rt = runtime();
  Tensor third = Tensor::full(rt, {2}, 1.0 / 3.0, TSR_FLOAT64, cpu());
  CHECK(third.str() == "tensor([0.3333, 0.3333], dtype=tessera.float64)");
  rt.set_print_precision(8);
  CHECK(third.str() == "tensor([0.33333333, 0.33333333], dtype=tessera.float64)");
  rt.set_print_precision(2);
  CHECK(Tensor::full(rt, {}, 1.0 / 3.0, TSR_FLOAT32, cpu()).str() == "tensor(0.33)");
  rt.set_print_precision(4);
  CHECK(tsr_set_print_precision(rt.get(), -1) == TSR_ERR_INVALID_ARGUMENT);
  CHECK(Tensor::full(rt, {}, 1.0 / 3.0, TSR_FLOAT32, cpu()).str() == "tensor(0.3333)");
}
