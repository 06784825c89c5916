"""Data-parallel training on torch.distributed (gloo on CPU, NCCL on CUDA), launched by torchrun.

Every rank builds the same model, takes rank 0's parameters and marks them distributed; each
backward then averages the marked parameters' gradients across ranks, overlapping the
all-reduces with the rest of backward (see ``sync``)::

    from burn_torch import distributed as dist

    device = dist.init().autodiff()                        # reads torchrun's environment
    model = dist.broadcast_module(Model(device).train()).distributed()
    for batch in batches:
        x, y = dist.shard(batch.x), dist.shard(batch.y)  # this rank's share
        grads = loss_fn(model.forward(x), y).backward()  # gradients averaged over the ranks
        model = optim.step(lr, model, GradientsParams.from_grads(grads, model)).distributed()

``init``/``shutdown``/``rank``/``world_size``/``local_rank``/``barrier``: the process group
(``process``); ``shard``/``ShardSampler``: splitting data (``sharding``); ``broadcast_module``:
equal replicas (``replica``); ``Tensor.set_distributed`` / ``Module.distributed()``: marking
(``burn_torch.autodiff.distributed_leaf``); ``bucket_cap_mb``/``set_bucket_cap_mb``: how many MiB
of gradients share one all-reduce (``sync``); ``all_reduce``/``all_gather``/``broadcast``:
collectives on values, returning new tensors (``collective``). Misuse raises
[`DistributedError`][burn_torch.errors.DistributedError], an ``AutodiffError``.
"""
from .sharding import ShardSampler, shard
from ..errors import DistributedError
from .process import barrier, init, is_initialized, local_rank, rank, shutdown, world_size
from .replica import broadcast_module
from .sync import bucket_cap_mb, set_bucket_cap_mb
from .collective import all_gather, all_reduce, broadcast

__all__ = ["init", "shutdown", "is_initialized", "rank", "world_size", "local_rank", "barrier",
           "shard", "ShardSampler", "broadcast_module", "DistributedError", "bucket_cap_mb", "set_bucket_cap_mb",
           "all_reduce", "all_gather", "broadcast"]
