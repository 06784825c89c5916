"""Gradient synchronisation in backward: the gradient of every distributed parameter is averaged
across ranks by an asynchronous all-reduce, launched as soon as backward has completed it.

Collectives pair up by their order, so every rank must issue the same ones in the same order,
whatever its own graph looks like. One backward's protocol:

The sync takes part in backward as a hook (``burn_torch.autodiff.hooks``), registered when this
module is imported; the engine does not know about it.

1. *Inspect* (the hook's ``check``, inside the engine's ``claim``, before any step is consumed): find the distributed
   leaves the graph reaches and each one's last consumer, the step after which its gradient is
   complete. Reject, with a [`DistributedError`][burn_torch.errors.DistributedError] and before any
   collective, a leaf on another backend than the loss, a parameter reached through two different
   leaves, and a missing process group. A graph without distributed leaves runs as a plain backward.
2. *Plan*: the sync list is the parameters reached plus the other marked parameters alive in
   this process (``leaf.registry``) on the loss's backend, ordered by ``(order, ParamId)``. Its
   signature (ParamIds, shapes, dtypes) is all-reduced first (MAX of ``[s, -s]``, async), and
   checked before the first gradient collective: ranks that disagree all raise, instead of
   exchanging mismatched tensors. Each distributed leaf is moved to run right after its last
   consumer, so the engine hands its gradient over (``GradientSync.submit``) once complete.
3. *Launch*: consecutive parameters of the sync list share a *bucket* (one flat buffer, one
   all-reduce) up to [`bucket_cap_mb`][burn_torch.distributed.sync.bucket_cap_mb] megabytes (DDP's
   default, 25; 0: one all-reduce per parameter; a parameter larger than the cap has its own bucket;
   a bucket holds one dtype). The buckets follow from the sync list and the cap, which is part of
   the signature, so every rank builds the same ones. A gradient is copied into its segment of the
   bucket, followed by one flag element, 1 (this rank has a gradient) or 0, and each bucket is
   all-reduced (SUM, ``async_op=True``) strictly in order, once it and all before it are ready; a
   parameter this rank did not reach is a zero segment, ready from the start, so parameters reached
   a different number of times (or not at all) on different ranks still pair up.
4. *Finish*: launch what is left (a reached leaf that got no gradient sends zeros), wait for
   every all-reduce, divide by the world size, and put each parameter some rank had a gradient
   for into the container: the full-batch average, the same on every rank.

A rank that dies or stops makes the others' collectives fail (or time out, after the process
group's timeout); that is raised as a [`DistributedError`][burn_torch.errors.DistributedError]
naming this rank. So does an error in one rank's backward once its syncs have started: the others
wait for the missing ones. Run one distributed backward at a time per process: the collectives of
two concurrent ones would interleave differently on each rank.
"""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

import torch
import torch.distributed as dist

from ..autodiff import hooks
from ..autodiff.distributed_leaf import DistributedLeaf, registry
from ..errors import DistributedError

if TYPE_CHECKING:
    from ..autodiff.graph import Node

__all__ = ["registry", "GradientSync", "signature", "agree", "bucket_cap_mb", "set_bucket_cap_mb"]

_bucket_cap = [25 * 1024 * 1024]  # bytes


def bucket_cap_mb() -> float:
    """The bucket size of the gradient all-reduce, in MiB (default 25, as DDP)."""
    return _bucket_cap[0] / (1024 * 1024)


def set_bucket_cap_mb(mb: float) -> None:
    """Sets the bucket size in MiB (0: one all-reduce per parameter). Every rank must use the
    same value (a mismatch is detected by the signature check). Raises TypeError for a non-number,
    ValueError for a negative or non-finite one."""
    if isinstance(mb, bool) or not isinstance(mb, (int, float)):
        raise TypeError(f"set_bucket_cap_mb: mb must be a number, got {type(mb).__name__}")
    if not mb >= 0 or mb == float("inf"):
        raise ValueError(f"set_bucket_cap_mb: mb must be finite and >= 0, got {mb!r}")
    _bucket_cap[0] = int(mb * 1024 * 1024)


def buckets(leaves: list, cap: int) -> list[list[int]]:
    """Indices of ``leaves`` grouped into consecutive buckets of at most ``cap`` bytes of
    gradient (one dtype per bucket; a larger leaf is alone in its bucket)."""
    out: list[list[int]] = []
    size = 0
    dtype = None
    for i, leaf in enumerate(leaves):
        nbytes = leaf.shape.numel() * leaf.dtype.itemsize
        if out and leaf.dtype == dtype and size + nbytes <= cap:
            out[-1].append(i)
            size += nbytes
        else:
            out.append([i])
            size = nbytes
            dtype = leaf.dtype
    return out


def _sync_key(leaf: DistributedLeaf):
    return leaf.order, leaf.param_id.val


def signature(parts) -> int:
    """A 56-bit digest of ``parts`` (their ``repr``s), the same in every process."""
    h = hashlib.blake2b(digest_size=7)
    for p in parts:
        h.update(repr(p).encode())
        h.update(b";")
    return int.from_bytes(h.digest(), "little")


def _launch_agreement(sig: int, device: torch.device):
    """Starts the all-reduce that tells whether every rank has ``sig``; returns (buffer, work)."""
    buf = torch.tensor([sig, -sig], dtype=torch.int64, device=device)
    return buf, dist.all_reduce(buf, op=dist.ReduceOp.MAX, async_op=True)


def _agreed(sig: int, buf: torch.Tensor) -> bool:
    high, neg_low = buf.tolist()
    return high == sig and -neg_low == sig


def agree(sig: int, device: torch.device) -> bool:
    """Whether every rank passed the same ``sig`` (a blocking collective every rank must call)."""
    buf, work = _launch_agreement(sig, device)
    work.wait()
    return _agreed(sig, buf)


def failure(e: Exception, doing: str) -> DistributedError:
    """The error a failed collective becomes: which rank, doing what, and the likely cause."""
    return DistributedError(
        f"rank {dist.get_rank()} failed while {doing}: {e}\n"
        "Another rank probably crashed, stopped or timed out: check its output.")


class GradientSync(hooks.BackwardHook):
    """One backward pass's gradient synchronisation, a backward hook (see the module docstring).
    A pass that reaches no distributed leaf runs as a plain backward: every later method is then
    a no-op."""

    __slots__ = ("device", "last", "leaves", "index", "bufs", "works", "next", "sig", "agreement",
                 "buckets", "where", "pending")

    def __init__(self, loss_device: torch.device) -> None:
        self.device = loss_device
        self.last: dict = {}  # distributed leaf reached -> its last consumer (None: it is the root)

    @classmethod
    def for_pass(cls, root, seed: torch.Tensor) -> "GradientSync | None":
        """The hook factory: a sync for every backward while distributed leaves exist."""
        return cls(seed.device) if registry else None

    # -- 1. inspect ---------------------------------------------------------------------------
    def check(self, nodes) -> None:
        """Finds the distributed leaves among ``nodes`` and their last consumers; raises
        DistributedError when backward cannot synchronise them. Consumes nothing."""
        last: dict[Node, Node | None] = {}  # each distributed leaf's last consumer
        for n in nodes:
            parents = n.parents
            if parents is None:
                if n.__class__ is DistributedLeaf:
                    last.setdefault(n, None)
                continue
            nid = n.id
            for p in parents:
                if p.__class__ is DistributedLeaf:
                    cur = last.get(p)
                    if cur is None or nid < cur.id:
                        last[p] = n
        if last:
            _check(nodes, sorted(last, key=_sync_key), self.device.type)
        self.last = last

    # -- 2. plan ------------------------------------------------------------------------------
    def begin(self, nodes: list, grads: dict) -> list:
        """Builds the sync list, launches its signature's agreement and returns ``nodes`` with
        each distributed leaf right after its last consumer."""
        reached = self.last
        if not reached:
            return nodes
        ids = {leaf.param_id for leaf in reached}
        backend = self.device.type
        others = [leaf for pid, leaf in list(registry.items())
                  if pid not in ids and leaf.device.type == backend]
        self.leaves = leaves = sorted([*reached, *others], key=_sync_key)
        self.index = {leaf: i for i, leaf in enumerate(leaves) if leaf in reached}
        cap = _bucket_cap[0]
        self.buckets = groups = buckets(leaves, cap)
        # leaf index -> (bucket, offset); every entry is filled below
        where: list[tuple[int, int]] = [None] * len(leaves)  # type: ignore[list-item]
        self.where = where
        self.bufs: list[torch.Tensor] = []
        self.pending = []
        for b, members in enumerate(groups):
            offset = 0
            for i in members:
                where[i] = (b, offset)
                offset += leaves[i].shape.numel() + 1
            self.bufs.append(torch.zeros(offset, dtype=leaves[members[0]].dtype,
                                         device=leaves[members[0]].device))
            self.pending.append(sum(1 for i in members if leaves[i] in reached))
        self.works: list[dist.Work] = []
        self.next = 0
        self.sig = signature([cap, *((leaf.param_id.val, tuple(leaf.shape), leaf.dtype)
                                     for leaf in leaves)])
        try:
            self.agreement = _launch_agreement(self.sig, self.device)
        except RuntimeError as e:
            raise failure(e, "starting the gradient synchronisation") from e
        return _schedule(nodes, reached)

    # -- 3. launch ----------------------------------------------------------------------------
    def leaf(self, leaf, grad: torch.Tensor) -> bool:
        """Takes the complete gradient of ``leaf`` if it is a distributed leaf of this backward
        (and launches every all-reduce now ready); returns whether it took it."""
        if not self.last:
            return False
        i = self.index.get(leaf)
        if i is None:
            return False
        b, offset = self.where[i]
        n = grad.numel()
        seg = self.bufs[b][offset:offset + n + 1]
        seg[:-1].view(grad.shape).copy_(grad)
        seg[-1] = 1
        self.pending[b] -= 1
        self._launch_ready()
        return True

    def _launch_ready(self) -> None:
        bufs = self.bufs
        pending = self.pending
        b = self.next
        while b < len(bufs) and pending[b] == 0:
            if b == 0:
                self._check_agreement()
            try:
                self.works.append(dist.all_reduce(bufs[b], async_op=True))
            except RuntimeError as e:
                names = ", ".join(self.leaves[i].name for i in self.buckets[b])
                raise failure(e, f"launching the all-reduce of {names}") from e
            b += 1
        self.next = b

    def _check_agreement(self) -> None:
        buf, work = self.agreement
        try:
            work.wait()
        except RuntimeError as e:
            raise failure(e, "agreeing on the distributed parameters of this backward") from e
        if not _agreed(self.sig, buf):
            raise DistributedError(
                f"rank {dist.get_rank()}: the ranks disagree on the distributed parameters of this "
                f"backward ({len(self.leaves)} here: their ParamIds, shapes or dtypes differ). "
                "Build the same model on every rank, broadcast it with "
                "burn_torch.distributed.broadcast_module(model), and mark it with "
                "model.distributed() on every rank.")

    # -- 4. finish ----------------------------------------------------------------------------
    def finish(self, result: dict) -> None:
        """Launches what is left, waits for every all-reduce and stores the averaged gradients
        into ``result`` ({leaf node id: gradient})."""
        if not self.last:
            return
        bufs = self.bufs
        self.pending = [0] * len(bufs)   # reached leaves that got no gradient send zeros
        self._launch_ready()
        for members, work in zip(self.buckets, self.works):
            try:
                work.wait()
            except RuntimeError as e:
                names = ", ".join(self.leaves[i].name for i in members)
                raise failure(e, f"averaging the gradient of {names}") from e
        world = dist.get_world_size()
        where = self.where
        flags = torch.stack([bufs[b][o + leaf.shape.numel()]
                             for leaf, (b, o) in zip(self.leaves, where)]).tolist()
        for b, members in enumerate(self.buckets):
            buf = bufs[b]
            for i in members:
                leaf = self.leaves[i]
                if flags[i] > 0:
                    o = where[i][1]
                    n = leaf.shape.numel()
                    seg = buf[o:o + n]
                    # a bucket of one: its own buffer, averaged in place (as per parameter);
                    # shared: a fresh tensor, so the container does not keep the bucket alive
                    result[leaf.id] = (seg.div_(world) if len(members) == 1 else
                                       seg.div(world)).view(leaf.shape)
            bufs[b] = None  # type: ignore[call-overload]  # released: at most one shared bucket is copied at a time


def _check(nodes, leaves: list, backend: str) -> None:
    """Raises DistributedError if the graph's distributed ``leaves`` cannot be synchronised."""
    for leaf in leaves:
        if leaf.device.type != backend:
            raise DistributedError(
                f"distributed backward: parameter {leaf.name} is on the {leaf.device.type} backend "
                f"but the loss is on the {backend} backend; every distributed parameter must use "
                "the same backend as the loss. Nothing was consumed or synchronised.")
    by_id: dict = {}
    by_param: dict = {}
    for leaf in leaves:
        if by_id.setdefault(leaf.id, leaf) is not leaf or by_param.setdefault(leaf.param_id, leaf) is not leaf:
            raise _two_leaves(leaf)
    for n in nodes:
        if n.op is None and n.id in by_id and n.__class__ is not DistributedLeaf:
            raise _two_leaves(by_id[n.id])
    if not (dist.is_available() and dist.is_initialized()):
        raise DistributedError(
            f"distributed backward: parameter {leaves[0].name} is marked distributed but no "
            "torch.distributed process group is initialised; call burn_torch.distributed.init() "
            "first (under torchrun it reads the launcher's environment). Nothing was consumed.")


def _two_leaves(leaf: DistributedLeaf) -> DistributedError:
    return DistributedError(
        f"distributed backward: parameter {leaf.name} reaches this graph through two different "
        "leaves (handles marked differently, or one marked and one not); use one marked handle "
        "of each parameter in the forward pass. Nothing was consumed.")


def _schedule(nodes: list, last: dict) -> list:
    """``nodes`` (reverse topological order) with each distributed leaf right after its last
    consumer, where its gradient is complete; a root leaf stays where it is."""
    after: dict = {}
    for leaf, consumer in last.items():
        if consumer is not None:
            after.setdefault(consumer, []).append(leaf)
    out = []
    for n in nodes:
        if n.__class__ is DistributedLeaf and last.get(n) is not None:
            continue
        out.append(n)
        moved = after.get(n)
        if moved is not None:
            out.extend(moved)
    return out


hooks.register(GradientSync.for_pass)
