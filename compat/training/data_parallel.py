"""DataParallel / DistributedDataParallel vs burn_torch.distributed."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.compat.entry import Raises

ID = "data_parallel"
TITLE = "Data parallelism is `burn_torch.distributed`, not `DataParallel`/`DistributedDataParallel`"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ("data_parallel_wrap",)
WHAT = "torch's DataParallel/DistributedDataParallel wrap torch.nn.Modules; a burn_torch module is not one"
WHY = """PyTorch's wrappers call the wrapped `nn.Module` and hook torch autograd to all-reduce
`.grad`; neither exists for a burn_torch module (it is not callable, and torch autograd is
never used). `burn_torch.distributed` is the Burn way on torch's process groups, launched by
`torchrun` as DDP is: `dist.init()`, `dist.broadcast_module(model).distributed()` marks the
parameters, each `backward()` then averages their gradients across ranks, and `dist.shard`
splits the batch. Single-process multi-GPU `DataParallel` has no counterpart: run one process
per device."""
RECIPE = "device = dist.init().autodiff(); model = dist.broadcast_module(model).distributed() (torchrun)"


def torch_side():
    model = torch.nn.DataParallel(torch.nn.Linear(3, 1))
    list(model(torch.ones(2, 3)).shape)


def burn_literal():
    model = torch.nn.DataParallel(nn.LinearConfig(3, 1).init(Device.cpu()))
    model(Tensor.ones([2, 3], Device.cpu()))


def burn_side():
    from burn_torch import distributed as dist
    model = nn.LinearConfig(3, 1).init(Device.cpu())
    if dist.is_initialized():                        # under torchrun, after dist.init()
        model = dist.broadcast_module(model).distributed()
    model.forward(Tensor.ones([2, 3], Device.cpu())).dims()


TORCH = {"list(model(torch.ones(2, 3)).shape)": [2, 1]}
LITERAL = Raises(TypeError, "'Linear' object is not callable")
BURN = {"model.forward(Tensor.ones([2, 3], Device.cpu())).dims()": [2, 1]}
