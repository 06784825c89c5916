"""torch.autocast / GradScaler do not apply to burn_torch: choose dtypes explicitly."""
import torch

from burn_torch import Device, DType, Tensor, nn
from burn_torch.compat.entry import Raises

ID = "amp_autocast"
TITLE = "No automatic mixed precision: no `autocast`, no `GradScaler`; cast explicitly"
CATEGORY = "training"
SEVERITY = "loud"
DETECTORS = ("autocast_or_grad_scaler",)
WHAT = "torch.autocast around burn_torch code changes kernels' dtypes behind autodiff's back; backward fails"
WHY = """Burn has no autocast: each tensor has one dtype, chosen when it is created or cast, and
its gradient has the same dtype. `torch.autocast` rewrites the dtypes inside torch's kernels,
which burn_torch uses for its forward, so a forward under autocast returns a lower-precision
result that the (unaware) backward then mixes with float32 tensors, and fails. `GradScaler`
works on torch tensors with `.grad` and cannot read a burn_torch loss. Compute in float32, or
cast the inputs and the model's parameters to the dtype you want (`Tensor.cast`, a
`ModuleMapper`); with float16, scale the loss yourself and divide the gradients."""
RECIPE = "drop autocast/GradScaler; compute in float32 or cast explicitly with x.cast(DType.BF16)"


def torch_side():
    lin = torch.nn.Linear(2, 2)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = lin(torch.ones(1, 2))
    y.sum().backward()
    [str(y.dtype), str(lin.weight.grad.dtype)]


def burn_literal():
    device = Device.cpu().autodiff()
    lin = nn.LinearConfig(2, 2).init(device)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = lin.forward(Tensor.ones([1, 2], device))
    y.sum().backward()


def burn_side():
    device = Device.cpu().autodiff()
    lin = nn.LinearConfig(2, 2).init(device)
    y = lin.forward(Tensor.ones([1, 2], device))
    grads = y.sum().backward()
    [y.dtype().name, lin.weight.val().grad(grads).dtype().name]


TORCH = {"[str(y.dtype), str(lin.weight.grad.dtype)]": ["torch.bfloat16", "torch.float32"]}
LITERAL = Raises(RuntimeError, "same dtype")
BURN = {"[y.dtype().name, lin.weight.val().grad(grads).dtype().name]": ["F32", "F32"]}
