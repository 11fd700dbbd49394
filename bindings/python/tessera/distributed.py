# SPDX-License-Identifier: Apache-2.0
"""tessera.distributed: torch.distributed's names and meanings over the C API
of tessera/distributed.h (a communicator plugin such as mpi.so, chosen by the
config's "communicators"). Launch the same script with `mpirun -np N` (or
srun); every rank calls the same collectives in the same order.

    import tessera, tessera.distributed as dist
    dist.init_process_group(backend="mpi")
    t = tessera.ones(4) * dist.get_rank()
    dist.all_reduce(t)                      # in place, op=ReduceOp.SUM
    dist.destroy_process_group()
"""
from . import _C
from ._creation import empty as _empty
from ._tensor import Tensor

__all__ = ["ReduceOp", "Work", "ProcessGroup", "GroupMember", "is_available", "is_initialized",
           "init_process_group", "destroy_process_group", "get_rank", "get_world_size", "get_backend",
           "new_group", "all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
           "reduce_scatter_tensor", "all_to_all_single", "send", "recv", "isend", "irecv", "barrier"]


class ReduceOp:
    """torch.distributed.ReduceOp (tsr_reduce_op)."""
    SUM = 0
    PRODUCT = 1
    MIN = 2
    MAX = 3
    AVG = 4


class ProcessGroup:
    """A communicator (tsr_comm*, a C object that releases it when
    collected): its ranks, in order."""

    def __init__(self, handle, backend):
        self._h = handle
        self._backend = backend

    def rank(self):
        return _C.comm_rank(self._h)

    def size(self):
        return _C.comm_size(self._h)

    def _release(self):
        if self._h is not None:
            _C.comm_release(self._h)
            self._h = None


class GroupMember:
    WORLD = None
    NON_GROUP_MEMBER = object()  # what new_group returns on ranks outside it


class Work:
    """An operation in flight (tsr_work*, a C object whose release, when
    collected, lets the operation finish first): wait() blocks until it is
    done and raises its failure; is_completed() never blocks."""

    def __init__(self, handle, keep, after=None):
        self._h = handle
        self._keep = keep  # the tensors, alive until done
        self._after = after
        self._done = False

    def _finish(self):
        if not self._done:
            self._done = True
            if self._after is not None:
                self._after()
            self._keep = None

    def wait(self, timeout=None):
        _C.work_wait(self._h)
        self._finish()
        return True

    def is_completed(self):
        done = _C.work_test(self._h)
        if done:
            self._finish()
        return done


_world = None


def is_available():
    return True


def is_initialized():
    return _world is not None


def _backend_device_type(backend):
    if backend is None:
        return None
    b = str(backend).lower()
    return "cuda" if b == "nccl" else "cpu"  # mpi, gloo: host memory


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None):
    """The world of the launch environment (mpirun, srun). world_size and
    rank, when given, must agree with it. The timeout is the config's
    comm_timeout_s (a `timeout` here is not supported yet and refused)."""
    global _world
    if _world is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    if timeout is not None:
        raise ValueError("tessera.distributed: set the timeout with the config's \"comm_timeout_s\"")
    group = ProcessGroup(_C.comm_world(_backend_device_type(backend)), backend or "mpi")
    if world_size not in (-1, None) and world_size != group.size():
        group._release()
        raise ValueError(f"world_size={world_size}, but the launcher started {group.size()} processes")
    if rank not in (-1, None) and rank != group.rank():
        group._release()
        raise ValueError(f"rank={rank}, but the launcher made this process rank {group.rank()}")
    _world = group


def _group(group):
    if group is None:
        if _world is None:
            raise RuntimeError("Default process group has not been initialized, please make sure to call "
                               "init_process_group.")
        return _world
    if group is GroupMember.NON_GROUP_MEMBER:
        raise RuntimeError("this rank is not a member of the group")
    return group


def destroy_process_group(group=None):
    global _world
    if group is None or group is _world:
        if _world is not None:
            _world._release()
        _world = None
    elif group is not GroupMember.NON_GROUP_MEMBER:
        group._release()


def get_rank(group=None):
    return _group(group).rank()


def get_world_size(group=None):
    return _group(group).size()


def get_backend(group=None):
    return _group(group)._backend


def new_group(ranks=None, timeout=None, backend=None, pg_options=None):
    """Collective over the world: the ranks listed form a group (ordered as
    listed after sorting, as torch); others get GroupMember.NON_GROUP_MEMBER."""
    world = _group(None)
    me = world.rank()
    ranks = sorted(range(world.size())) if ranks is None else sorted(int(r) for r in ranks)
    color = 0 if me in ranks else -1
    key = ranks.index(me) if me in ranks else 0
    handle = _C.comm_split(world._h, color, key)
    if handle is None:
        return GroupMember.NON_GROUP_MEMBER
    return ProcessGroup(handle, world._backend)


def _tensor(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name} must be a tessera.Tensor, got {type(x).__name__}")
    return x


def _run(call, async_op, keep, after=None):
    """Runs call(async): blocking unless async_op (then a Work). The _C
    collectives run without the GIL and return a work when asked for one."""
    if not async_op:
        call(False)
        if after is not None:
            after()
        return None
    return Work(call(True), keep, after)


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    g, t = _group(group), _tensor(tensor, "tensor")
    return _run(lambda w: _C.all_reduce(g._h, t, int(op), w), async_op, [t])


def broadcast(tensor, src, group=None, async_op=False):
    g, t = _group(group), _tensor(tensor, "tensor")
    return _run(lambda w: _C.broadcast(g._h, t, int(src), w), async_op, [t])


def reduce(tensor, dst, op=ReduceOp.SUM, group=None, async_op=False):
    g, t = _group(group), _tensor(tensor, "tensor")
    return _run(lambda w: _C.comm_reduce(g._h, t, int(dst), int(op), w), async_op, [t])


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """output = every rank's input, concatenated along dim 0 (or stacked:
    any output shape with world size times the input's elements)."""
    g = _group(group)
    o, i = _tensor(output_tensor, "output_tensor"), _tensor(input_tensor, "input_tensor")
    return _run(lambda w: _C.all_gather(g._h, o, i, w), async_op, [o, i])


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fills tensor_list[r] with rank r's tensor."""
    g, t = _group(group), _tensor(tensor, "tensor")
    n = g.size()
    if len(tensor_list) != n:
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} tensors; the group has {n} ranks")
    flat = _empty((n,) + tuple(t.shape), dtype=t.dtype, device=t.device)

    def scatter_back():
        for r, dst in enumerate(tensor_list):
            dst.copy_(flat[r])

    return _run(lambda w: _C.all_gather(g._h, flat, t, w), async_op, [flat, t] + list(tensor_list),
                scatter_back)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    g = _group(group)
    o, i = _tensor(output, "output"), _tensor(input, "input")
    return _run(lambda w: _C.reduce_scatter(g._h, o, i, int(op), w), async_op, [o, i])


def all_to_all_single(output, input, output_split_sizes=None, input_split_sizes=None, group=None,
                      async_op=False):
    """Equal splits along dim 0 (uneven split sizes are not supported yet)."""
    g = _group(group)
    o, i = _tensor(output, "output"), _tensor(input, "input")
    n = g.size()
    for sizes, name, t in ((output_split_sizes, "output_split_sizes", o), (input_split_sizes, "input_split_sizes", i)):
        if sizes is not None and (len(sizes) != n or len(set(sizes)) > 1 or sum(sizes) != t.shape[0]):
            raise NotImplementedError(f"all_to_all_single: only equal splits are supported; {name}={list(sizes)}")
    return _run(lambda w: _C.all_to_all(g._h, o, i, w), async_op, [o, i])


def isend(tensor, dst, group=None, tag=0):
    g, t = _group(group), _tensor(tensor, "tensor")
    return _run(lambda w: _C.send(g._h, t, int(dst), int(tag), w), True, [t])


def irecv(tensor, src=None, group=None, tag=0):
    if src is None:
        raise NotImplementedError("recv from any source is not supported: name src")
    g, t = _group(group), _tensor(tensor, "tensor")
    return _run(lambda w: _C.recv(g._h, t, int(src), int(tag), w), True, [t])


def send(tensor, dst, group=None, tag=0):
    g, t = _group(group), _tensor(tensor, "tensor")
    _run(lambda w: _C.send(g._h, t, int(dst), int(tag), w), False, [t])


def recv(tensor, src=None, group=None, tag=0):
    """Returns the sender's rank, as torch does."""
    if src is None:
        raise NotImplementedError("recv from any source is not supported: name src")
    g, t = _group(group), _tensor(tensor, "tensor")
    _run(lambda w: _C.recv(g._h, t, int(src), int(tag), w), False, [t])
    return int(src)


def barrier(group=None, async_op=False, device_ids=None):
    g = _group(group)
    return _run(lambda w: _C.barrier(g._h, w), async_op, [])
