# SPDX-License-Identifier: Apache-2.0
"""DistributedDataParallel: torch 1.13's nn.parallel.DistributedDataParallel
over tessera.distributed.

    dist.init_process_group(backend="mpi")       # under mpirun -np N
    model = DistributedDataParallel(MyModel())   # rank 0's weights everywhere
    opt = tessera.optim.SGD(model.parameters(), lr=0.1)
    loss_fn(model(my_shard), my_targets).backward()   # .grad: the mean over ranks
    opt.step()

Note [DDP's reduction during backward]
  At construction every rank checks that the others have the same
  parameters (count and sizes), then rank 0's parameters and buffers are
  broadcast. The parameters that require grad are grouped into buckets in
  reverse registration order (the order backward produces their
  gradients), one (dtype, device) per bucket, each closed once it holds
  bucket_cap_mb (the first 1 MiB, torch's _DEFAULT_FIRST_BUCKET_BYTES). A
  bucket owns one flat buffer; each parameter owns a view of it.

  Each parameter carries a tensor hook (Tensor.register_hook). Tessera's
  hooks on a leaf run once per backward, on the gradient summed over its
  uses, just before it is accumulated into .grad; the engine runs a leaf's
  accumulation as soon as its gradient is ready (as torch's AccumulateGrad,
  whose sequence number is the largest), so the hooks fire while the rest
  of backward still has to run. A hook copies .grad + grad (the local
  gradient, including what no_sync() steps accumulated) into its view and
  marks the parameter ready. When a bucket is complete, and every bucket
  before it has been launched (so that all ranks start their all_reduces
  in one order), its buffer is divided by the world size and an
  all_reduce(SUM, async_op=True) is started; the backward goes on while it
  runs. Each later hook polls the works in flight (Work.is_completed),
  which is what advances a communicator that progresses inside its calls
  (mpi.so polls MPI_Testall).

  The end of backward: tessera's autograd has no callback queued for the
  end of backward (torch's Variable._execution_engine.queue_callback). The
  last expected hook stands in for it: the hook that makes the last
  parameter ready launches the remaining buckets, waits for every work,
  and writes the averages into every .grad before it returns. The other
  parameters' accumulations into .grad have already run by then (each runs
  right after its own hooks); for this last parameter, whose accumulation
  follows the hook, the hook writes its .grad itself and hands the engine a
  zero gradient to add. So when backward() returns, every .grad holds the
  mean over ranks, as in torch.

  Limits, each checked:
  - Every parameter that requires grad must get a gradient in each synced
    backward: that is how the last hook is known. A backward that leaves
    some out is found at the next forward, with torch's "Expected to have
    finished reduction in the prior iteration" error.
    find_unused_parameters=True and static_graph=True are refused: finding
    the parameters a forward did not use needs a walk of the recorded graph
    (torch's grad_fn.next_functions), which tessera's autograd does not
    expose.
  - A hook runs only for a backward that follows a forward through this
    wrapper with grad enabled, outside no_sync() (torch's rule); under
    no_sync() gradients accumulate locally into .grad, and the next synced
    backward reduces the accumulated sum.
  - Moving the module (to(), double()) after wrapping gives its
    parameters new handles without the hooks, as in torch: wrap last.
  - create_graph=True: the reduction runs, but it is not recorded (the
    averaged gradients are not differentiable), as in torch's DDP.
"""
import time
import weakref
from contextlib import contextmanager

from ... import distributed as dist
from ...autograd import is_grad_enabled, no_grad
from ... import _creation
from ..._creation import zeros, zeros_like
from ..._types import int64
from ..module import Module

__all__ = ["DistributedDataParallel"]

_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024  # torch.distributed's

_UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error "
    "indicates that your module has parameters that were not used in producing loss. tessera's "
    "DistributedDataParallel needs every parameter that requires grad to receive a gradient in each backward "
    "(find_unused_parameters=True is not supported); make sure all `forward` function outputs participate in "
    "calculating loss. Parameter indices which did not receive grad on rank {rank}: {missing}")


class _Bucket:
    """Parameters (indices) whose gradients travel in one flat buffer."""

    __slots__ = ("index", "params", "buffer", "pending", "work", "done")

    def __init__(self, index, params, buffer):
        self.index = index
        self.params = params
        self.buffer = buffer
        self.pending = len(params)
        self.work = None
        self.done = False


class _Reducer:
    """The buckets and the state of one backward (torch's Reducer)."""

    def __init__(self, params, group, bucket_bytes_cap, gradient_as_bucket_view):
        self.params = params
        self.group = group
        self.world = dist.get_world_size(group)
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.buckets, self.bucket_of, self.slots = self._assign(params, bucket_bytes_cap)
        self.saved = [None] * len(params)  # the .grad a hook took off, written back at the end
        self.expect_hooks = False
        self.pending = 0
        self.next_bucket = 0
        self.ready = [False] * len(params)
        self.events = []  # (what, index, perf_counter seconds) of the last backward: "hook" (a parameter's),
        # "launch", "complete" (seen done by a later hook, before the end of backward), "wait" (a bucket's)

    @staticmethod
    def _assign(params, cap):
        """torch's compute_bucket_assignment_by_size over the parameters in
        reverse order: per (dtype, device), a bucket closes once it reaches
        its limit (1 MiB for the first, then cap). Buckets are ordered by
        their first parameter in that order."""
        order = list(reversed(range(len(params))))
        open_ = {}  # key -> [indices, bytes, number of buckets closed]
        closed = []
        for i in order:
            p = params[i]
            key = (str(p.dtype), str(p.device))
            entry = open_.setdefault(key, [[], 0, 0])
            entry[0].append(i)
            entry[1] += p.numel() * p.element_size()
            limit = min(_DEFAULT_FIRST_BUCKET_BYTES, cap) if entry[2] == 0 else cap
            if entry[1] >= limit:
                closed.append(entry[0])
                open_[key] = [[], 0, entry[2] + 1]
        closed.extend(e[0] for e in open_.values() if e[0])
        position = {i: k for k, i in enumerate(order)}
        closed.sort(key=lambda idx: position[idx[0]])
        buckets, bucket_of, slots = [], [None] * len(params), [None] * len(params)
        for b, idx in enumerate(closed):
            first = params[idx[0]]
            buffer = zeros((sum(params[i].numel() for i in idx),), dtype=first.dtype, device=first.device)
            bucket = _Bucket(b, idx, buffer)
            offset = 0
            for i in idx:
                n = params[i].numel()
                slots[i] = buffer[offset:offset + n].view(tuple(params[i].shape))
                bucket_of[i] = bucket
                offset += n
            buckets.append(bucket)
        return buckets, bucket_of, slots

    def prepare_for_backward(self):
        """A forward with grad sync: the next backward reduces."""
        if self.expect_hooks and 0 < self.pending < len(self.params):
            missing = [i for i, r in enumerate(self.ready) if not r]
            self.reset()
            raise RuntimeError(_UNFINISHED.format(rank=self.group.rank(), missing=missing))
        self.reset()
        self.expect_hooks = True

    def reset(self):
        for b in self.buckets:
            b.pending = len(b.params)
            b.work = None
            b.done = False
        self.pending = len(self.params)
        self.next_bucket = 0
        self.ready = [False] * len(self.params)
        self.saved = [None] * len(self.params)
        self.expect_hooks = False
        self.events = []

    def _is_slot(self, grad, i):
        slot = self.slots[i]
        return grad.data_ptr() == slot.data_ptr() and grad.shape == slot.shape and grad.stride() == slot.stride()

    def hook(self, i, grad):
        """Parameter i's gradient for this backward (before accumulation)."""
        if not self.expect_hooks:
            return None
        try:
            with no_grad():
                return self._hook(i, grad)
        except BaseException:
            self.reset()
            raise

    def _hook(self, i, grad):
        if self.ready[i]:
            raise RuntimeError(
                "Expected to mark a variable ready only once. This error is caused by one of the following reasons: "
                "1) Use of a module parameter outside the `forward` function, or 2) reused parameters in multiple "
                "reentrant backward passes. Parameter index %d was marked ready twice." % i)
        self.events.append(("hook", i, time.perf_counter()))
        p, slot = self.params[i], self.slots[i]
        old = p.grad
        if old is None:
            slot.copy_(grad)
        else:
            # The local gradient is .grad + grad; .grad is taken off so that
            # the engine's accumulation after this hook writes a fresh
            # tensor (never the bucket, which may be in flight by then).
            if not (self.gradient_as_bucket_view and self._is_slot(old, i)):
                slot.copy_(old)
                self.saved[i] = old
            slot.add_(grad)
            p.grad = None
        self.ready[i] = True
        self.pending -= 1
        bucket = self.bucket_of[i]
        bucket.pending -= 1
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            self._launch(self.buckets[self.next_bucket])
            self.next_bucket += 1
        if self.pending > 0:
            for b in self.buckets[:self.next_bucket]:  # progress for communicators that need calls
                if b.work is not None and not b.done and b.work.is_completed():
                    b.done = True
                    self.events.append(("complete", b.index, time.perf_counter()))
            return None
        self._finish(i)
        return zeros_like(grad)  # the engine adds it into the .grad just written

    def _launch(self, bucket):
        self.events.append(("launch", bucket.index, time.perf_counter()))
        if self.world > 1:
            bucket.buffer.div_(self.world)
        bucket.work = dist.all_reduce(bucket.buffer, op=dist.ReduceOp.SUM, group=self.group, async_op=True)

    def _finish(self, last):
        for b in self.buckets:
            b.work.wait()
            self.events.append(("wait", b.index, time.perf_counter()))
        for i, p in enumerate(self.params):
            slot = self.slots[i]
            if self.gradient_as_bucket_view:
                p.grad = slot
                continue
            target = self.saved[i] if self.saved[i] is not None else (None if i == last else p.grad)
            if target is None:
                p.grad = slot.clone()
            else:
                target.copy_(slot)
                if self.saved[i] is not None:
                    p.grad = target
        self.saved = [None] * len(self.params)
        self.expect_hooks = False


def _hook_for(reducer_ref, i):
    def hook(grad):
        reducer = reducer_ref()
        return None if reducer is None else reducer.hook(i, grad)
    return hook


class DistributedDataParallel(Module):
    """torch.nn.parallel.DistributedDataParallel (torch 1.13): the module's
    gradients averaged over the ranks of process_group during backward,
    bucketed, each bucket's all_reduce started as soon as its gradients are
    ready (Note [DDP's reduction during backward])."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=25, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        if find_unused_parameters:
            raise NotImplementedError(
                "DistributedDataParallel(find_unused_parameters=True) is not supported by tessera: finding the "
                "parameters a forward did not use needs a walk of the recorded graph, which tessera's autograd "
                "does not expose. Every parameter that requires grad must receive a gradient in each backward.")
        if static_graph:
            raise NotImplementedError("DistributedDataParallel(static_graph=True) is not supported by tessera")
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        devices = {str(p.device) for p in module.parameters()}
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        if len(devices) > 1:
            raise ValueError("DistributedDataParallel's input module must be on the same type of devices, but "
                             "input module parameters locate in %s." % sorted(devices))
        if device_ids is not None or output_device is not None:
            dev = next(iter(devices))
            if dev == "cpu":
                raise ValueError(
                    "DistributedDataParallel device_ids and output_device arguments only work with single-device/"
                    "multiple-device GPU modules or CPU modules, but got device_ids %s, output_device %s, and "
                    "module parameters %s." % (device_ids, output_device, {p.device for p in module.parameters()}))
        self.module = module
        self.device_ids = None if device_ids is None else [_index(d) for d in device_ids]
        self.output_device = (None if output_device is None else _index(output_device)) if device_ids else None
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.process_group = dist._group(process_group)
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.bucket_bytes_cap = int(bucket_cap_mb * 1024 * 1024)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True

        all_params = list(module.parameters())
        self._verify_same_model(all_params)
        with no_grad():
            for t in all_params + list(module.buffers()):  # rank 0's values (torch's _sync_module_states)
                dist.broadcast(t.detach(), src=0, group=self.process_group)
        self._reducer = _Reducer(params, self.process_group, self.bucket_bytes_cap, gradient_as_bucket_view)
        ref = weakref.ref(self._reducer)
        self._hook_handles = [p.register_hook(_hook_for(ref, i)) for i, p in enumerate(params)]

    def _verify_same_model(self, params):
        """torch's _verify_param_shape_across_processes: the count, then
        each parameter's size, compared through MIN and MAX all_reduces."""
        g = self.process_group

        def agree(values):
            lo = _creation.tensor(values, dtype=int64)
            hi = lo.clone()
            dist.all_reduce(lo, op=dist.ReduceOp.MIN, group=g)
            dist.all_reduce(hi, op=dist.ReduceOp.MAX, group=g)
            lo, hi = lo.tolist(), hi.tolist()
            return next((k for k in range(len(values)) if lo[k] != hi[k]), None), lo, hi

        bad, lo, hi = agree([len(params)])
        if bad is not None:
            raise RuntimeError("DDP expects same model across all ranks, but rank %d has %d params, while ranks "
                               "have between %d and %d." % (g.rank(), len(params), lo[0], hi[0]))
        if params:
            bad, lo, hi = agree([p.numel() for p in params])
            if bad is not None:
                raise RuntimeError("DDP expects same model across all ranks, but parameter %d has %d elements on "
                                   "rank %d, while ranks have between %d and %d." %
                                   (bad, params[bad].numel(), g.rank(), lo[bad], hi[bad]))

    def __del__(self):
        for h in getattr(self, "_hook_handles", ()):
            try:
                h.remove()
            except Exception:
                pass

    def forward(self, *inputs, **kwargs):
        if self.require_forward_param_sync and self.broadcast_buffers and self.process_group.size() > 1:
            with no_grad():
                for b in self.module.buffers():
                    dist.broadcast(b.detach(), src=0, group=self.process_group)
        sync = is_grad_enabled() and self.require_backward_grad_sync
        if sync:
            self._reducer.prepare_for_backward()
        elif self._reducer.expect_hooks and self._reducer.pending == len(self._reducer.params):
            self._reducer.expect_hooks = False  # a forward without sync after one that had no backward
        output = self.module(*inputs, **kwargs)
        self.require_forward_param_sync = sync
        return output

    @contextmanager
    def no_sync(self):
        """Gradients accumulate locally (no all_reduce) for the backward
        passes of forwards run inside; the first synced backward after
        reduces the sum."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def extra_repr(self):
        return ""


def _index(device):
    """A device id: an int, or a device ("cuda:1") whose index it is."""
    if isinstance(device, int):
        return device
    s = str(device)
    return int(s.split(":")[1]) if ":" in s else 0
