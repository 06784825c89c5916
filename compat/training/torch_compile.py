"""torch.compile cannot compile a burn_torch module."""
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.compat.entry import Raises

ID = "torch_compile"
TITLE = "`torch.compile` does not apply: burn_torch runs eagerly"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ("torch_compile_call",)
WHAT = "torch.compile(model) cannot compile a burn_torch module: calling its result raises (call forward)"
WHY = """`torch.compile` traces torch operations and torch autograd to build fused kernels. A
burn_torch module is not a `torch.nn.Module`, and its backward is burn_torch's own autodiff,
which TorchDynamo cannot see, so there is nothing it can compile correctly; compiling
`model.forward` (a function) only falls back to eager Python with graph breaks. burn_torch runs
eagerly, with its op table dispatching straight to torch's kernels: drop the compile. Its
counterpart of a compiled training step is `burn_torch.capture.capture(step)`: the function that
runs a whole step up to the optimizer (forward, `backward()`, gradient reads or
`GradientsParams.from_grads`), with the model (or its parameters) as arguments, is recorded on
its first call and later calls with the same shapes replay its
kernels without per-op Python (CUDA graphs on CUDA), gradients bit-equal to eager."""
RECIPE = "remove torch.compile(...) and call model.forward(x); for speed, capture(step) a whole training step"


def torch_side():
    compiled = torch.compile(torch.nn.Linear(3, 1))   # compiles at its first call
    type(compiled).__name__


def burn_literal():
    compiled = torch.compile(nn.LinearConfig(3, 1).init(Device.cpu()))
    compiled(Tensor.ones([2, 3], Device.cpu()))


def burn_side():
    model = nn.LinearConfig(3, 1).init(Device.cpu())
    model.forward(Tensor.ones([2, 3], Device.cpu())).dims()


TORCH = {"type(compiled).__name__": "OptimizedModule"}
LITERAL = Raises(TypeError, "'Linear' object is not callable: burn_torch modules have no __call__")
BURN = {"model.forward(Tensor.ones([2, 3], Device.cpu())).dims()": [2, 1]}
