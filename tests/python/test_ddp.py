# SPDX-License-Identifier: Apache-2.0
"""tessera.nn.parallel.DistributedDataParallel: its buckets in this process;
then ddp_worker.py's cases in a world of one (this interpreter's MPI
singleton) and under `mpirun -np 2`, against the same model trained in one
process on the whole batches: gradients to 1e-12, the all_reduces launched
while backward's hooks still run, no_sync, gradient_as_bucket_view,
parameters used twice, a parameter left without a gradient, state_dict.

The worker runs need mpi.so beside the library and Open MPI's mpirun; they
are skipped without them. Each mpirun job takes about a second."""
import json
import os
import shutil
import subprocess
import sys

import pytest

import tessera
import tessera.nn as nn
from tessera._lib import library_path
from tessera.nn.parallel import DistributedDataParallel as DDP
from tessera.nn.parallel.distributed import _Reducer

HERE = os.path.dirname(os.path.abspath(__file__))
PLUGINS = os.path.join(os.path.dirname(library_path), "tessera")
TOLERANCE = 1e-12


# ---- in this process: the buckets, and what is refused ----------------------------


def linears(*sizes, dtype=tessera.float64):
    tessera.manual_seed(0)
    layers = [nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])]
    return nn.Sequential(*layers).to(dtype)


def test_buckets_reverse_order_by_size():
    # Linear(10, 10) in float64: weight 800 bytes, bias 80. Reverse order:
    # b2 w2 b1 w1 b0 w0; a bucket closes once it holds 1000 bytes.
    params = list(linears(10, 10, 10, 10).parameters())
    buckets, bucket_of, slots = _Reducer._assign(params, 1000)
    assert [b.params for b in buckets] == [[5, 4, 3, 2], [1, 0]]
    for i, p in enumerate(params):
        assert bucket_of[i].params.count(i) == 1
        assert tuple(slots[i].shape) == tuple(p.shape)
    # Each parameter's view lies in its bucket's one flat buffer, in order.
    b0 = buckets[0]
    assert b0.buffer.numel() == 10 + 100 + 10 + 100
    offsets = [(slots[i].data_ptr() - b0.buffer.data_ptr()) // 8 for i in b0.params]
    assert offsets == [0, 10, 110, 120]


def test_buckets_first_is_one_mib_and_one_dtype_each():
    # 25 MB cap: the first bucket closes at 1 MiB (torch's first bucket), the rest hold all.
    big = linears(512, 512, 512, 512)  # weights of 2 MiB in float64
    buckets, _, _ = _Reducer._assign(list(big.parameters()), 25 * 2 ** 20)
    assert [b.params for b in buckets] == [[5, 4], [3, 2, 1, 0]]
    # Parameters of two dtypes never share a bucket.
    mixed = linears(4, 4, 4)
    mixed[1].to(tessera.float32)
    buckets, _, _ = _Reducer._assign(list(mixed.parameters()), 25 * 2 ** 20)
    assert sorted(b.params for b in buckets) == [[1, 0], [3, 2]]
    assert {str(b.buffer.dtype) for b in buckets} == {"tessera.float32", "tessera.float64"}


def test_refusals():
    m = linears(3, 2)
    with pytest.raises(NotImplementedError, match=r"find_unused_parameters=True\) is not supported"):
        DDP(m, find_unused_parameters=True)
    with pytest.raises(NotImplementedError, match="static_graph"):
        DDP(m, static_graph=True)
    m.requires_grad_(False)
    with pytest.raises(RuntimeError, match="doesn't have any parameter that requires a gradient"):
        DDP(m)
    m.requires_grad_(True)
    with pytest.raises(ValueError, match="only work with single-device"):
        DDP(m, device_ids=[0])
    with pytest.raises(RuntimeError, match="Default process group has not been initialized"):
        DDP(m)


# ---- under MPI ------------------------------------------------------------------------


def mpi_env(tmp):
    config = os.path.join(tmp, "mpi.json")
    with open(config, "w") as f:
        json.dump({"plugins": [{"name": "cpu_tbb", "library": "cpu_tbb.so", "options": {"threads": 1}},
                               {"name": "mpi", "library": "mpi.so"}],
                   "communicators": {"cpu": "mpi"}, "comm_timeout_s": 60}, f)
    env = dict(os.environ, TESSERA_CONFIG=config, TESSERA_LIBRARY=library_path,
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p),
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_btl="self,vader",
               OMPI_MCA_btl_vader_single_copy_mechanism="none", OMPI_MCA_rmaps_base_oversubscribe="1",
               OMPI_MCA_mpi_yield_when_idle="1")
    return env


def run_worker(tmp_path_factory, np):
    if not os.path.exists(os.path.join(PLUGINS, "mpi.so")):
        pytest.skip("mpi.so is not built")
    mpirun = shutil.which("mpirun")
    if np > 1 and mpirun is None:
        pytest.skip("mpirun is not installed")
    out = str(tmp_path_factory.mktemp("ddp_np%d" % np))
    cmd = [sys.executable, os.path.join(HERE, "ddp_worker.py"), out]
    if np > 1:
        cmd = [mpirun, "--oversubscribe", "-np", str(np)] + cmd
    proc = subprocess.run(cmd, env=mpi_env(out), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = []
    for r in range(np):
        with open(os.path.join(out, "rank%d.json" % r)) as f:
            results.append(json.load(f))
    return results


@pytest.fixture(scope="module", params=[1, 2], ids=["world1", "mpirun_np2"])
def ranks(request, tmp_path_factory):
    return run_worker(tmp_path_factory, request.param)


def test_world(ranks):
    assert [r["rank"] for r in ranks] == list(range(len(ranks)))
    assert all(r["world"] == len(ranks) for r in ranks)


def test_broadcast_from_rank0(ranks):
    for r in ranks:
        assert r["broadcast"] == {"same_as_rank0": True, "rank0_values": True}


def test_gradients_equal_full_batch(ranks):
    for r in ranks:
        g = r["grads"]
        assert g["buckets"] == [[5, 4, 3], [2], [1, 0]]
        assert max(g["diffs"]) < TOLERANCE, g["diffs"]
        assert all(g["grad_kept"])  # .grad stays the tensor zero_grad zeroed
        assert g["same_as_rank0"]
        if len(ranks) == 1:
            assert max(g["diffs"]) == 0.0  # a world of one: the single-process arithmetic


def test_all_reduce_overlaps_backward(ranks):
    # Each bucket's all_reduce starts as soon as its parameters' hooks have
    # run, before the hooks of the parameters backward reaches later.
    for r in ranks:
        events = [tuple(e) for e in r["grads"]["events"] if e[0] != "complete"]
        assert events == [("hook", 5), ("hook", 4), ("hook", 3), ("launch", 0), ("hook", 2), ("launch", 1),
                          ("hook", 1), ("hook", 0), ("launch", 2), ("wait", 0), ("wait", 1), ("wait", 2)]
        hooks, launches = r["grads"]["hook_times"], r["grads"]["launch_times"]
        assert launches[0] < hooks[3] < launches[1] < hooks[4]


def test_no_sync_accumulates_then_reduces(ranks):
    for r in ranks:
        assert r["no_sync"]["launched_in_no_sync"] == 0
        assert r["no_sync"]["diff"] < TOLERANCE


def test_gradient_as_bucket_view(ranks):
    for r in ranks:
        v = r["bucket_view"]
        assert v["views"]
        assert max(v["diffs"]) < TOLERANCE
        assert v["weights"] < TOLERANCE


def test_training_steps(ranks):
    for r in ranks:
        assert r["training"]["weights"] < TOLERANCE
        assert r["training"]["same_as_rank0"]


def test_parameter_used_twice(ranks):
    for r in ranks:
        assert r["shared"]["diff"] < TOLERANCE


def test_unused_parameter_is_an_error_at_next_forward(ranks):
    for r in ranks:
        assert r["unused"]["error"].startswith("Expected to have finished reduction in the prior iteration")
        assert "did not receive grad on rank %d: [2, 3]" % r["rank"] in r["unused"]["error"]


def test_state_dict(ranks):
    for r in ranks:
        s = r["state_dict"]
        assert s["keys"] == ["module.0.weight", "module.0.bias", "module.2.weight", "module.2.bias",
                             "module.4.weight", "module.4.bias"]
        assert s["loaded"] and s["module"]


def test_leaf_hooks_run_as_soon_as_ready_as_torch():
    # The order of hooks on the parameters and on an intermediate result
    # through backward, in a second iteration (the leaves' accumulators made
    # long before this graph): torch runs each leaf's as soon as its
    # gradient is ready, which DDP's overlap rests on.
    import torch

    def order(lib, lin):
        log = []
        x = lib.ones(3, 4, dtype=lib.float64)
        layers = [lin(4, 8), lin(8, 8), lin(8, 2)]
        for k, layer in enumerate(layers):
            layer.double()
            layer.weight.register_hook(lambda g, k=k: log.append("w%d" % k))
            layer.bias.register_hook(lambda g, k=k: log.append("b%d" % k))
        for _ in range(2):
            log.clear()
            h = layers[0](x)
            h.register_hook(lambda g: log.append("h0"))
            layers[2](layers[1](h).tanh()).sum().backward()
        return log

    assert order(tessera, nn.Linear) == order(torch, torch.nn.Linear)
