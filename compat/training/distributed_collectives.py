"""dist.all_reduce(t) writes into t; burn_torch's collectives return a new tensor."""
import torch

from burn_torch import Device, Tensor
from burn_torch.compat.entry import Raises

ID = "distributed_collectives"
TITLE = "Collectives return a new tensor: `x = dist.all_reduce(x)`"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ("distributed_collective_call",)
WHAT = "torch.distributed's all_reduce/all_gather/broadcast write into torch tensors and reject burn_torch ones"
WHY = """`torch.distributed.all_reduce(t)` sums `t` over the ranks by writing into it (it returns
None), and so do `broadcast` and `all_gather` into their output list. burn_torch tensors are
immutable values that torch.distributed does not accept; `burn_torch.distributed.all_reduce`,
`all_gather` and `broadcast` return the result as a new (untracked) tensor and leave their
argument unchanged. Gradients need none of these: a module marked with `.distributed()` has its
gradients averaged by backward itself (see data parallelism)."""
RECIPE = "x = dist.all_reduce(x) (or \"mean\", \"max\"...), x = dist.broadcast(x, src), all = dist.all_gather(x, dim)"


def torch_side():
    import torch.distributed as tdist
    tdist.init_process_group("gloo", store=tdist.HashStore(), rank=0, world_size=1)
    t = torch.tensor([1.0, 2.0])
    returned = tdist.all_reduce(t)
    tdist.destroy_process_group()
    returned
    t.tolist()


def burn_literal():
    x = Tensor.from_floats([1.0, 2.0], Device.cpu())
    torch.distributed.all_reduce(x)


def burn_side():
    from burn_torch import distributed as dist
    dist.init()
    x = Tensor.from_floats([1.0, 2.0], Device.cpu())
    x = dist.all_reduce(x)
    dist.shutdown()
    x.to_data().to_list()


TORCH = {"returned": None, "t.tolist()": [1.0, 2.0]}
LITERAL = Raises(TypeError, "write x = burn_torch.distributed.all_reduce(x)")
BURN = {"x.to_data().to_list()": [1.0, 2.0]}
