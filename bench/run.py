#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The benchmark suite: Tessera beside PyTorch and NumPy, in one run.

    /usr/bin/python3 bench/run.py [--build build] [--rounds 3] [--only NAME,...]

For every workload the three libraries take turns, round after round
(Tessera, PyTorch, NumPy, Tessera, ...), so that a disturbance of the
machine hits all of them alike. Tessera runs in build/bin/tessera_bench
(Google Benchmark over the C API); PyTorch and NumPy run here, from Python,
as their users call them. Every figure is the median, over all rounds and
repetitions, of the mean seconds per iteration of one repetition.

Writes <build>/bench/results.json — a list of
{"workload": name, "tessera": s, "torch": s, "numpy": s} (null where a
library cannot do it) — and prints a table of ratios with the targets of
bench/RESULTS.md. Everything runs on 2 threads: the machine's cores, Tessera's
CPU config (threads 0 = all cores) and torch.set_num_threads(2); NumPy's
elementwise ops use one thread (it has no others), its matmul OpenBLAS's.
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import timeit

THREADS = 2
MIN_TIME = 0.2   # seconds per repetition
REPS = 3         # repetitions per round and library

N24 = 1 << 24

# The linear algebra workloads' input a (float64, n x n, well-conditioned).
_LINALG_TORCH = ("a = torch.rand({n}, {n}, dtype=torch.float64) * 2 - 1; a = a + a.T if {sym} else a; "
                 "a = a + {n} * torch.eye({n}, dtype=torch.float64)")
_LINALG_NUMPY = ("a = np.random.rand({n}, {n}) * 2 - 1; a = a + a.T if {sym} else a; a = a + {n} * np.eye({n})")

# name -> {lib: (setup code, statement)}; setup runs once per workload with
# `torch` or `np` imported. Absent library: null in the results.
WORKLOADS = {
    # c = a + b into an existing third tensor: tsr_binary_out, out=c.
    "add_out_2^24": {
        "torch": ("a = torch.rand(N24); b = torch.rand(N24); c = torch.rand(N24)", "torch.add(a, b, out=c)"),
        "numpy": ("a = np.random.rand(N24).astype(np.float32); b = np.random.rand(N24).astype(np.float32); "
                  "c = np.random.rand(N24).astype(np.float32)", "np.add(a, b, out=c)"),
    },
    "add_alloc_2^24": {
        "torch": ("a = torch.rand(N24); b = torch.rand(N24)", "a + b"),
        "numpy": ("a = np.random.rand(N24).astype(np.float32); b = np.random.rand(N24).astype(np.float32)", "a + b"),
    },
    "bcast_add_4096x4096": {
        "torch": ("x = torch.rand(4096, 4096); v = torch.rand(4096)", "x + v"),
        "numpy": ("x = np.random.rand(4096, 4096).astype(np.float32); v = np.random.rand(4096).astype(np.float32)",
                  "x + v"),
    },
    "relu_2^24": {
        "torch": ("x = torch.rand(N24) * 8 - 4", "torch.relu(x)"),
        "numpy": ("x = (np.random.rand(N24) * 8 - 4).astype(np.float32)", "np.maximum(x, 0)"),
    },
    "sigmoid_2^24": {
        "torch": ("x = torch.rand(N24) * 8 - 4", "torch.sigmoid(x)"),
        "numpy": ("x = (np.random.rand(N24) * 8 - 4).astype(np.float32)", "1 / (1 + np.exp(-x))"),
    },
    "sum_2^24": {
        "torch": ("x = torch.rand(N24)", "x.sum()"),
        "numpy": ("x = np.random.rand(N24).astype(np.float32)", "x.sum()"),
    },
    "transpose_contiguous_4096": {
        "torch": ("x = torch.rand(4096, 4096)", "x.T.contiguous()"),
        "numpy": ("x = np.random.rand(4096, 4096).astype(np.float32)", "np.ascontiguousarray(x.T)"),
    },
    "slice2_copy_4096": {
        "torch": ("x = torch.rand(4096, 4096)", "x[:, ::2].contiguous()"),
        "numpy": ("x = np.random.rand(4096, 4096).astype(np.float32)", "np.ascontiguousarray(x[:, ::2])"),
    },
    "matmul_1024_f32": {
        "torch": ("a = torch.rand(1024, 1024); b = torch.rand(1024, 1024)", "a @ b"),
        "numpy": ("a = np.random.rand(1024, 1024).astype(np.float32); b = np.random.rand(1024, 1024).astype(np.float32)",
                  "a @ b"),
    },
    "matmul_2048_f32": {
        "torch": ("a = torch.rand(2048, 2048); b = torch.rand(2048, 2048)", "a @ b"),
        "numpy": ("a = np.random.rand(2048, 2048).astype(np.float32); b = np.random.rand(2048, 2048).astype(np.float32)",
                  "a @ b"),
    },
    "matmul_1024_f64": {
        "torch": ("a = torch.rand(1024, 1024, dtype=torch.float64); b = torch.rand(1024, 1024, dtype=torch.float64)",
                  "a @ b"),
        "numpy": ("a = np.random.rand(1024, 1024); b = np.random.rand(1024, 1024)", "a @ b"),
    },
    # Issue 20: complex64 (cgemm), 8 real flops per complex multiply-add.
    "matmul_1024_c64": {
        "torch": ("a = torch.rand(1024, 1024, dtype=torch.complex64); b = torch.rand(1024, 1024, dtype=torch.complex64)",
                  "a @ b"),
        "numpy": ("a = (np.random.rand(1024, 1024) + 1j * np.random.rand(1024, 1024)).astype(np.complex64); "
                  "b = (np.random.rand(1024, 1024) + 1j * np.random.rand(1024, 1024)).astype(np.complex64)", "a @ b"),
    },
    "tiny_add": {
        "torch": ("a = torch.rand(1); b = torch.rand(1)", "a + b"),
        "numpy": ("a = np.random.rand(1).astype(np.float32); b = np.random.rand(1).astype(np.float32)", "a + b"),
    },
    # The lesson's 2-16-16-1 forward on 200 points, float32, written as its
    # users write it: Z = A @ W.T + b, ReLU hidden layers, sigmoid output.
    "mlp_forward": {
        "torch": ("""
X = torch.randn(200, 2)
layers = [(torch.randn(o, i) / i ** 0.5, torch.zeros(o)) for i, o in ((2, 16), (16, 16), (16, 1))]
def forward(A, layers):
    for l, (W, b) in enumerate(layers):
        Z = A @ W.T + b
        A = torch.relu(Z) if l + 1 < len(layers) else torch.sigmoid(Z)
    return A
""", "forward(X, layers)"),
        "numpy": ("""
X = np.random.randn(200, 2).astype(np.float32)
layers = [((np.random.randn(o, i) / i ** 0.5).astype(np.float32), np.zeros(o, np.float32))
          for i, o in ((2, 16), (16, 16), (16, 1))]
def forward(A, layers):
    for l, (W, b) in enumerate(layers):
        Z = A @ W.T + b
        A = np.maximum(Z, 0) if l + 1 < len(layers) else 1 / (1 + np.exp(-Z))
    return A
""", "forward(X, layers)"),
    },
    # Issue 33: an op's record (the tensor a requires grad; tessera's figure
    # is reported above its own tiny_add), and the lesson's MLP forward and
    # backward on a batch of 256, float32, with the binary cross-entropy.
    "autograd_record": {
        "torch": ("a = torch.rand(1, requires_grad=True); b = torch.rand(1)", "a + b"),
    },
    "mlp_forward_backward": {
        "torch": ("""
X = torch.randn(256, 2)
y = (torch.arange(256) >= 128).float().reshape(256, 1)
layers = [((torch.randn(o, i) / i ** 0.5).requires_grad_(), torch.zeros(o, requires_grad=True))
          for i, o in ((2, 16), (16, 16), (16, 1))]
def step():
    A = X
    for l, (W, b) in enumerate(layers):
        Z = A @ W.T + b
        A = torch.relu(Z) if l + 1 < len(layers) else torch.sigmoid(Z)
    loss = -(y * torch.log(A) + (1 - y) * torch.log(1 - A)).mean()
    loss.backward()
    for W, b in layers:
        W.grad = None
        b.grad = None
""", "step()"),
    },
    # Issue 34: training steps, float32, forward + backward + AdamW, as
    # torch users write them (torch.nn modules, F.cross_entropy, AdamW with
    # its CPU default, the single-tensor form).
    "mlp_train_step": {
        "torch": ("""
model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(),
                            torch.nn.Linear(512, 10))
opt = torch.optim.AdamW(model.parameters())
X = torch.rand(256, 784) * 2 - 1
y = torch.arange(256) * 7 % 10
def step():
    loss = torch.nn.functional.cross_entropy(model(X), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
""", "step()"),
    },
    "transformer_block_train_step": {
        "torch": ("""
B, T, d, H, V = 8, 128, 256, 4, 256
dh = d // H
F = torch.nn.functional
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2, self.lnf = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.qkv, self.proj = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.fc1, self.fc2, self.head = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d), torch.nn.Linear(d, V)
        self.register_buffer("mask", torch.full((T, T), float("-inf")).triu(1))
    def forward(self, x):
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (t.reshape(B, T, H, dh).permute(0, 2, 1, 3) for t in (q, k, v))
        att = F.softmax(q @ k.transpose(2, 3) * dh ** -0.5 + self.mask, dim=-1)
        x = x + self.proj((att @ v).permute(0, 2, 1, 3).reshape(B, T, d))
        x = x + self.fc2(F.gelu(self.fc1(self.ln2(x))))
        return self.head(self.lnf(x))
model = Block()
opt = torch.optim.AdamW(model.parameters())
x = torch.rand(B, T, d) * 2 - 1
y = torch.arange(B * T) * 7 % V
def step():
    loss = F.cross_entropy(model(x).reshape(B * T, V), y)
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
""", "step()"),
    },
    # Issue 18's workloads: the Array API's functions on the CPU.
    "sort_2^24": {
        "torch": ("x = torch.rand(N24)", "torch.sort(x).values"),
        "numpy": ("x = np.random.rand(N24).astype(np.float32)", "np.sort(x)"),
    },
    "argsort_2^22": {
        "torch": ("x = torch.rand(N24 // 4)", "torch.argsort(x)"),
        "numpy": ("x = np.random.rand(N24 // 4).astype(np.float32)", "np.argsort(x)"),
    },
    "cumsum_2^24": {
        "torch": ("x = torch.rand(N24)", "torch.cumsum(x, 0)"),
        "numpy": ("x = np.random.rand(N24).astype(np.float32)", "np.cumsum(x)"),
    },
    "concat_8x2^21": {
        "torch": ("xs = [torch.rand(N24 // 8) for _ in range(8)]", "torch.cat(xs)"),
        "numpy": ("xs = [np.random.rand(N24 // 8).astype(np.float32) for _ in range(8)]", "np.concatenate(xs)"),
    },
    "take_2^24": {
        "torch": ("x = torch.rand(N24); i = torch.randint(0, N24, (N24,))", "torch.take(x, i)"),
        "numpy": ("x = np.random.rand(N24).astype(np.float32); i = np.random.randint(0, N24, N24)", "np.take(x, i)"),
    },
    "var_axis_4096x4096": {
        "torch": ("x = torch.rand(4096, 4096)", "torch.var(x, dim=1)"),
        "numpy": ("x = np.random.rand(4096, 4096).astype(np.float32)", "np.var(x, axis=1, ddof=1)"),
    },
    "std_2^24": {
        "torch": ("x = torch.rand(N24)", "torch.std(x)"),
        "numpy": ("x = np.random.rand(N24).astype(np.float32)", "np.std(x, ddof=1)"),
    },
    "softmax_4096x4096": {
        "torch": ("x = torch.rand(4096, 4096)", "torch.softmax(x, dim=1)"),
        "numpy": ("x = np.random.rand(4096, 4096).astype(np.float32)",
                  "(lambda e: e / e.sum(axis=1, keepdims=True))(np.exp(x - x.max(axis=1, keepdims=True)))"),
    },
    "unique_2^22": {
        "torch": ("x = torch.randint(0, 1024, (N24 // 4,), dtype=torch.int32)", "torch.unique(x)"),
        "numpy": ("x = np.random.randint(0, 1024, N24 // 4).astype(np.int32)", "np.unique(x)"),
    },
    "nonzero_2^24": {
        "torch": ("x = torch.rand(N24) < 0.5", "torch.nonzero(x)"),
        "numpy": ("x = np.random.rand(N24) < 0.5", "np.argwhere(x)"),
    },
    # Issue 36's functions of the Array API 2023.12-2024.12 (float32).
    "searchsorted_2^24": {
        "torch": ("s = torch.sort(torch.rand(N24 // 16)).values; v = torch.rand(N24)", "torch.searchsorted(s, v)"),
        "numpy": ("s = np.sort(np.random.rand(N24 // 16).astype(np.float32)); v = np.random.rand(N24).astype(np.float32)",
                  "np.searchsorted(s, v)"),
    },
    "clip_2^24": {
        "torch": ("x = torch.rand(N24)", "torch.clamp(x, 0.25, 0.75)"),
        "numpy": ("x = np.random.rand(N24).astype(np.float32)", "np.clip(x, np.float32(0.25), np.float32(0.75))"),
    },
    "diff_2^24": {
        "torch": ("x = torch.rand(N24)", "torch.diff(x)"),
        "numpy": ("x = np.random.rand(N24).astype(np.float32)", "np.diff(x)"),
    },
    # Issue 20's linear algebra (float64): a uniform matrix in [-1, 1) plus n
    # on the diagonal (made symmetric first for cholesky and eigh), as
    # tessera_bench builds it.
    "solve_1024": {
        "torch": (_LINALG_TORCH.format(n=1024, sym=False) + "; b = torch.rand(1024, 1024, dtype=torch.float64)",
                  "torch.linalg.solve(a, b)"),
        "numpy": (_LINALG_NUMPY.format(n=1024, sym=False) + "; b = np.random.rand(1024, 1024)",
                  "np.linalg.solve(a, b)"),
    },
    "inv_1024": {
        "torch": (_LINALG_TORCH.format(n=1024, sym=False), "torch.linalg.inv(a)"),
        "numpy": (_LINALG_NUMPY.format(n=1024, sym=False), "np.linalg.inv(a)"),
    },
    "cholesky_2048": {
        "torch": (_LINALG_TORCH.format(n=2048, sym=True), "torch.linalg.cholesky(a)"),
        "numpy": (_LINALG_NUMPY.format(n=2048, sym=True), "np.linalg.cholesky(a)"),
    },
    "qr_1024": {
        "torch": (_LINALG_TORCH.format(n=1024, sym=False), "torch.linalg.qr(a)"),
        "numpy": (_LINALG_NUMPY.format(n=1024, sym=False), "np.linalg.qr(a)"),
    },
    "svd_512": {
        "torch": (_LINALG_TORCH.format(n=512, sym=False), "torch.linalg.svd(a, full_matrices=False)"),
        "numpy": (_LINALG_NUMPY.format(n=512, sym=False), "np.linalg.svd(a, full_matrices=False)"),
    },
    "eigh_512": {
        "torch": (_LINALG_TORCH.format(n=512, sym=True), "torch.linalg.eigh(a)"),
        "numpy": (_LINALG_NUMPY.format(n=512, sym=True), "np.linalg.eigh(a)"),
    },
    # Issue 36's fft extension: one long real transform (float64) and a batch
    # of complex64 lines along the last dim (NumPy 1.24 computes complex64 in
    # complex128 and returns complex128; torch keeps complex64).
    "rfft_2^22": {
        "torch": ("x = torch.rand(1 << 22, dtype=torch.float64)", "torch.fft.rfft(x)"),
        "numpy": ("x = np.random.rand(1 << 22)", "np.fft.rfft(x)"),
    },
    "fft_batch_1024x4096": {
        "torch": ("x = torch.rand(1024, 4096, dtype=torch.complex64)", "torch.fft.fft(x)"),
        "numpy": ("x = (np.random.rand(1024, 4096) + 1j * np.random.rand(1024, 4096)).astype(np.complex64)",
                  "np.fft.fft(x)"),
    },
    "triad_2^24": {},  # plain C++ in tessera_bench: the bandwidth reference
    "read_2^24": {},   # plain C++ two-thread read of 64 MiB: the bound of sum_2^24
    "startup": {},     # process wall time, measured below for all three
}

# Targets, all ratios within the same run (absolute times move from machine
# to machine and minute to minute; the libraries take turns, so ratios hold):
# "min_speedup": (reference) / tessera must be at least this; "max_ratio":
# tessera / (reference) must be at most this. The reference is the faster of
# torch and numpy, or the library "vs" names (for startup: the wall time of
# `python3 -c "import torch"` / `"import numpy"`, measured interleaved).
TARGETS = {
    "add_out_2^24": {"min_speedup": 1.0},
    "bcast_add_4096x4096": {"min_speedup": 1.0},
    "relu_2^24": {"min_speedup": 1.0},
    "sigmoid_2^24": {"min_speedup": 1.0},
    "sum_2^24": {"min_speedup": 1.0},
    "slice2_copy_4096": {"min_speedup": 1.0},
    "transpose_contiguous_4096": {"min_speedup": 3.0, "vs": "numpy"},
    "matmul_1024_f32": {"min_speedup": 0.95, "vs": "torch"},
    "matmul_2048_f32": {"min_speedup": 0.95, "vs": "torch"},
    "matmul_1024_f64": {"min_speedup": 0.95, "vs": "torch"},
    "tiny_add": {"max_ratio": 0.5, "vs": "numpy"},
    "mlp_forward": {"max_ratio": 0.3},
    "autograd_record": {"max_seconds_above": ("tiny_add", 0.3e-6)},
    "mlp_forward_backward": {"min_speedup": 1.0, "vs": "torch"},
    "mlp_train_step": {"min_speedup": 1.0, "vs": "torch"},
    "transformer_block_train_step": {"min_speedup": 1.0, "vs": "torch"},
    "startup": {"max_ratio": 0.1, "vs": "numpy"},
    "sort_2^24": {"min_speedup": 1.0},
    "argsort_2^22": {"min_speedup": 1.0},
    "cumsum_2^24": {"min_speedup": 1.0},
    "concat_8x2^21": {"min_speedup": 1.0},
    "take_2^24": {"min_speedup": 1.0},
    "var_axis_4096x4096": {"min_speedup": 1.0},
    "std_2^24": {"min_speedup": 1.0},
    "softmax_4096x4096": {"min_speedup": 1.0, "vs": "torch"},
    "unique_2^22": {"min_speedup": 1.0},
    "nonzero_2^24": {"min_speedup": 1.0},
    "searchsorted_2^24": {"min_speedup": 1.0},
    "clip_2^24": {"min_speedup": 1.0},
    "diff_2^24": {"min_speedup": 1.0},
    "solve_1024": {"min_speedup": 1.0},
    "inv_1024": {"min_speedup": 1.0},
    "cholesky_2048": {"min_speedup": 1.0},
    "qr_1024": {"min_speedup": 1.0},
    "svd_512": {"min_speedup": 1.0},
    "eigh_512": {"min_speedup": 1.0},
    "matmul_1024_c64": {"min_speedup": 1.0},
    "rfft_2^22": {"min_speedup": 1.0},
    "fft_batch_1024x4096": {"min_speedup": 1.0},
}


# all_reduce on 2 ranks under mpirun (float32, sum, in place): `tessera
# allreduce-bench` (tsr_all_reduce through mpi.so) beside torch.distributed
# with gloo (bench/gloo_allreduce.py) and bare MPI_Allreduce
# (bench/mpi_allreduce.c), the three jobs taking turns round after round.
# In the records "torch" is gloo and "mpi" bare MPI; the targets (RESULTS.md):
# bus bandwidth >= 0.95x MPI's and >= 1.0x gloo's from 1 MiB up, and at 4 KiB
# a latency within 2 us of MPI's.
ALL_REDUCE = {"all_reduce_4KiB": 4096, "all_reduce_1MiB": 1 << 20, "all_reduce_64MiB": 64 << 20}
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_btl": "self,vader",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}


def all_reduce_samples(build, rounds):
    """{workload: {"tessera": [s], "torch": [s], "mpi": [s]}}, seconds per call."""
    here = os.path.dirname(os.path.abspath(__file__))
    config = os.path.join(build, "share", "tessera", "configs", "mpi.json")
    sizes = sorted(ALL_REDUCE.values())
    jobs = {
        "tessera": [os.path.join(build, "bin", "tessera"), "--config", config, "allreduce-bench", "--json",
                    "--min-bytes", str(sizes[0]), "--max-bytes", str(sizes[-1])],
        "mpi": [os.path.join(build, "bin", "mpi_allreduce"), str(sizes[0]), str(sizes[-1])],
        "torch": ["/usr/bin/python3", os.path.join(here, "gloo_allreduce.py"), str(sizes[0]), str(sizes[-1])],
    }
    env = dict(os.environ, **MPI_ENV)
    samples = {name: {lib: [] for lib in jobs} for name in ALL_REDUCE}
    for _ in range(rounds):
        for lib, cmd in jobs.items():
            out = subprocess.run(["mpirun", "-np", "2"] + cmd, check=True, stdout=subprocess.PIPE, text=True,
                                 env=env).stdout
            rows = {r["bytes"]: r for r in (json.loads(l) for l in out.splitlines() if l.startswith("{"))}
            for name, nbytes in ALL_REDUCE.items():
                if rows[nbytes]["wrong"]:
                    raise RuntimeError("%s: %s gave %d wrong elements" % (name, lib, rows[nbytes]["wrong"]))
                samples[name][lib].append(rows[nbytes]["time_us"] * 1e-6)
    return samples


def print_all_reduce(records):
    """The all_reduce table: times, bus bandwidths (2 ranks: busbw = algbw), targets."""
    met_all = True
    print("%-18s %11s %11s %11s %10s %10s  %s" % ("workload", "tessera", "gloo", "mpi", "vs mpi", "vs gloo",
                                                  "target"))
    for r in records:
        t, gloo, mpi = r["tessera"], r["torch"], r["mpi"]
        if ALL_REDUCE[r["workload"]] < (1 << 20):
            met = t - mpi <= 2e-6
            target = "latency <= mpi + 2 us (%+.2f us)" % ((t - mpi) * 1e6)
        else:
            met = mpi / t >= 0.95 and gloo / t >= 1.0
            target = "busbw >= 0.95x mpi, >= 1.0x gloo"
        met_all = met_all and met
        print("%-18s %11s %11s %11s %9.2fx %9.2fx  %s %s" % (r["workload"], fmt_time(t), fmt_time(gloo),
                                                         fmt_time(mpi), mpi / t, gloo / t, target,
                                                         "ok" if met else "MISSED"))
    print("vs = reference time / tessera time = tessera's bus bandwidth / the reference's (2 ranks)")
    return met_all


def log(*args):
    print(*args, file=sys.stderr, flush=True)


# ---- Tessera ------------------------------------------------------------------

def tessera_times(build, name):
    """Seconds per iteration of each repetition of one tessera_bench workload."""
    cmd = [os.path.join(build, "bin", "tessera_bench"),
           "--config", os.path.join(build, "share", "tessera", "configs", "cpu.json"),
           "--benchmark_filter=^%s(/real_time)?$" % re.escape(name),
           "--benchmark_min_time=%g" % MIN_TIME, "--benchmark_repetitions=%d" % REPS,
           "--benchmark_format=json"]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
    times = [b["real_time"] * scale[b["time_unit"]] for b in json.loads(out)["benchmarks"]
             if b.get("run_type") == "iteration"]
    if not times:
        raise RuntimeError("tessera_bench ran no benchmark named %s" % name)
    return times


# ---- PyTorch and NumPy ------------------------------------------------------------

def python_times(stmt, env):
    """Seconds per iteration of REPS timeit repetitions of ~MIN_TIME each."""
    timer = timeit.Timer(stmt, globals=env)
    number, elapsed = 1, timer.timeit(1)  # the first call also warms up
    while elapsed < MIN_TIME / 4:
        number *= 4 if elapsed < MIN_TIME / 40 else 2
        elapsed = timer.timeit(number)
    number = max(1, int(number * MIN_TIME / max(elapsed, 1e-9)))
    return [timer.timeit(number) / number for _ in range(REPS)]


def process_seconds(cmd, runs):
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        out.append(time.perf_counter() - t0)
    return out


def startup_times(build, rounds):
    """Process wall times. The target compares tessera with `import numpy`, so
    those two alternate run by run (10 each per round); torch's ~1 s import
    runs 3 times per round."""
    tessera = [os.path.join(build, "bin", "tessera"), "--config",
               os.path.join(build, "share", "tessera", "configs", "cpu.json"), "info"]
    cmds = {"tessera": tessera, "torch": [sys.executable, "-c", "import torch"],
            "numpy": [sys.executable, "-c", "import numpy"]}
    for cmd in cmds.values():
        process_seconds(cmd, 1)  # page cache
    samples = {lib: [] for lib in cmds}
    for _ in range(rounds):
        for _ in range(10):
            samples["tessera"] += process_seconds(cmds["tessera"], 1)
            samples["numpy"] += process_seconds(cmds["numpy"], 1)
        samples["torch"] += process_seconds(cmds["torch"], 3)
    return samples


# ---- the table ------------------------------------------------------------------

def fmt_time(s):
    if s is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            return "%.3g %s" % (s / scale, unit)
    return "%.3g ns" % (s / 1e-9)


def verdict(record, by_name):
    """(ratio text, target text, met) for one record."""
    name, t = record["workload"], record["tessera"]
    others = [record[lib] for lib in ("torch", "numpy") if record[lib] is not None]
    best = min(others) if others else None
    ratio = "%.2fx" % (best / t) if best and t else "-"
    target = TARGETS.get(name)
    if name == "add_alloc_2^24":
        own = by_name.get("add_out_2^24", {}).get("tessera")
        return ratio, "<= 2x own add_out (%.2fx)" % (t / own), t <= 2 * own
    if name == "add_out_2^24" and "triad_2^24" in by_name:
        triad = by_name["triad_2^24"]["tessera"]
        met = t is not None and best / t >= target["min_speedup"] and triad / t >= 0.85
        return ratio, ">= 1.0x, >= 85%% triad (%.0f%%)" % (100 * triad / t), met
    if name in ("triad_2^24", "read_2^24"):
        return ratio, "reference", None
    if target is not None and "max_seconds_above" in target:
        base, limit = target["max_seconds_above"]
        own = by_name.get(base, {}).get("tessera")
        if t is None or own is None:
            return ratio, "no %s measured" % base, False
        return ratio, "<= %s above own %s (%s)" % (fmt_time(limit), base, fmt_time(t - own)), t - own <= limit
    if target is None:
        return ratio, "", None
    ref = record[target["vs"]] if "vs" in target else best
    if t is None or ref is None:
        return ratio, "no reference measured", False
    if "max_ratio" in target:
        share = t / ref
        text = "<= %.2fx %s (%.3fx)" % (target["max_ratio"], target.get("vs", "best"), share)
        return ratio, text, share <= target["max_ratio"]
    speed = ref / t
    text = ">= %.2fx %s" % (target["min_speedup"], target.get("vs", "best"))
    if "vs" in target:
        text += " (%.2fx)" % speed
    elif name == "sum_2^24" and by_name.get("read_2^24", {}).get("tessera"):
        text += " (%.0f%% of read)" % (100 * by_name["read_2^24"]["tessera"] / t)
    return ratio, text, speed >= target["min_speedup"]


def print_table(records):
    by_name = {r["workload"]: r for r in records}
    print("%-26s %11s %11s %11s %9s  %-34s %s" % ("workload", "tessera", "torch", "numpy", "speedup", "target", ""))
    met_all = True
    for r in records:
        ratio, target, met = verdict(r, by_name)
        mark = "" if met is None else ("ok" if met else "MISSED")
        met_all = met_all and met is not False
        print("%-26s %11s %11s %11s %9s  %-34s %s" % (r["workload"], fmt_time(r["tessera"]), fmt_time(r["torch"]),
                                                  fmt_time(r["numpy"]), ratio, target, mark))
    print("speedup = min(torch, numpy) / tessera (> 1: Tessera is faster); median seconds per iteration;")
    print("target ratios in parentheses: this run's tessera / reference (<=) or reference / tessera (>=)")
    print("all targets met" if met_all else "some targets MISSED (see bench/RESULTS.md)")
    return met_all


def machine():
    model = "?"
    try:
        with open("/proc/cpuinfo") as f:
            model = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return "%s, %d cores, %s, Python %s" % (model, os.cpu_count(), platform.platform(), platform.python_version())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="the CMake build folder (default: build)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds of interleaved runs (default: 3)")
    ap.add_argument("--only", default="", help="comma-separated workloads to run (default: all)")
    args = ap.parse_args()
    names = [n for n in WORKLOADS if not args.only or n in args.only.split(",")]
    reduce_names = [n for n in ALL_REDUCE if not args.only or n in args.only.split(",")]

    import numpy as np
    import torch
    torch.set_num_threads(THREADS)
    log("machine: %s; torch %s (%d threads), numpy %s" % (machine(), torch.__version__, torch.get_num_threads(),
                                                          np.__version__))
    started = time.time()
    load_before = os.getloadavg()
    records = []
    for name in names:
        samples = {"tessera": [], "torch": [], "numpy": []}
        if name == "startup":
            samples = startup_times(args.build, args.rounds)
        else:
            envs = {}
            for lib, (setup, _) in WORKLOADS[name].items():
                env = {"torch": torch, "np": np, "N24": N24}
                exec(setup, env)
                envs[lib] = env
            for _ in range(args.rounds):
                samples["tessera"] += tessera_times(args.build, name)
                for lib, (_, stmt) in WORKLOADS[name].items():
                    samples[lib] += python_times(stmt, envs[lib])
            del envs
        record = {"workload": name}
        for lib in ("tessera", "torch", "numpy"):
            record[lib] = statistics.median(samples[lib]) if samples[lib] else None
        records.append(record)
        log("%-26s tessera %-10s torch %-10s numpy %-10s (%.0f s so far)" % (
            name, fmt_time(record["tessera"]), fmt_time(record["torch"]), fmt_time(record["numpy"]),
            time.time() - started))

    if reduce_names:
        reduce_samples = all_reduce_samples(args.build, args.rounds)
        for name in reduce_names:
            record = {"workload": name, "numpy": None}
            for lib in ("tessera", "torch", "mpi"):
                record[lib] = statistics.median(reduce_samples[name][lib])
            records.append(record)
            log("%-26s tessera %-10s gloo %-10s mpi %-10s (%.0f s so far)" % (
                name, fmt_time(record["tessera"]), fmt_time(record["torch"]), fmt_time(record["mpi"]),
                time.time() - started))

    out_dir = os.path.join(args.build, "bench")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "results.json")
    with open(path, "w") as f:
        json.dump(records, f, indent=1)
        f.write("\n")
    print("machine: %s" % machine())
    # Other processes on a shared machine slow all three libraries alike
    # (interleaving), but they do shift the absolute figures.
    print("load average (1, 5, 15 min): %.2f %.2f %.2f before, %.2f %.2f %.2f after" % (load_before + os.getloadavg()))
    print("torch %s and numpy %s at %d threads; %d rounds x %d repetitions of >= %.1f s; %.0f s in all" % (
        torch.__version__, np.__version__, THREADS, args.rounds, REPS, MIN_TIME, time.time() - started))
    met = print_table([r for r in records if r["workload"] not in ALL_REDUCE])
    reduce_records = [r for r in records if r["workload"] in ALL_REDUCE]
    if reduce_records:
        print()
        met = print_all_reduce(reduce_records) and met
    print("results: %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
