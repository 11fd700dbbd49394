/* SPDX-License-Identifier: Apache-2.0 */
/* Bare MPI_Allreduce (float32, sum, in place), timed as `tessera
 * allreduce-bench` times tsr_all_reduce: one checked warm-up call, then the
 * mean of ~1 GiB of calls (5 to 1000), the slowest rank's. One JSON line per
 * size, the tool's format. bench/run.py runs it under mpirun beside the tool.
 *   mpirun -np 2 mpi_allreduce MIN_BYTES MAX_BYTES */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static float value(int rank, long long i) { return (float)((i + rank) % 7 + rank); }

int main(int argc, char** argv) {
  int rank, n;
  long long min_bytes = argc > 1 ? atoll(argv[1]) : 4, max_bytes = argc > 2 ? atoll(argv[2]) : (256ll << 20);
  long long bytes;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  for (bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
    long long count = bytes / 4 > 0 ? bytes / 4 : 1, i, wrong = 0;
    long long iters = (1ll << 30) / bytes;
    float* data = malloc((size_t)count * sizeof(float));
    double t0, seconds, stats[2];
    int k, r;
    if (iters < 5) iters = 5;
    if (iters > 1000) iters = 1000;
    for (i = 0; i < count; ++i) data[i] = value(rank, i);
    MPI_Allreduce(MPI_IN_PLACE, data, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (i = 0; i < count; ++i) {
      float want = 0;
      for (r = 0; r < n; ++r) want += value(r, i);
      wrong += data[i] != want;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (k = 0; k < iters; ++k) MPI_Allreduce(MPI_IN_PLACE, data, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    seconds = (MPI_Wtime() - t0) / (double)iters;
    stats[0] = seconds;
    stats[1] = (double)wrong;
    MPI_Allreduce(MPI_IN_PLACE, stats, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
      double algbw = (double)(count * 4) / stats[0] / 1e9;
      printf("{\"bytes\": %lld, \"count\": %lld, \"time_us\": %.3f, \"algbw\": %.4f, \"busbw\": %.4f, \"wrong\": %d}\n",
             count * 4, count, stats[0] * 1e6, algbw, algbw * 2.0 * (n - 1) / n, (int)stats[1]);
      fflush(stdout);
    }
    free(data);
  }
  MPI_Finalize();
  return 0;
}
