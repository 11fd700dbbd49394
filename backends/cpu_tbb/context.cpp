// SPDX-License-Identifier: Apache-2.0
// Context::parallel_for: the one instantiation of oneTBB's parallel loop that
// the kernels share (Note [One parallel loop] in context.hpp).
#include "context.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>

namespace tessera::cpu_tbb {

void Context::parallel_for(int64_t n, int64_t piece, RangeFn body) {
  arena.execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<int64_t>(0, n, piece), [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); },
        tbb::simple_partitioner());
  });
}

}  // namespace tessera::cpu_tbb
