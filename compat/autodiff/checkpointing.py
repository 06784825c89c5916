"""torch.utils.checkpoint vs a per-tensor checkpointing strategy."""
import torch

from burn_torch import Device, Tensor

ID = "checkpointing"
TITLE = "Checkpointing is a strategy each tensor carries, not `torch.utils.checkpoint`"
CATEGORY = "autodiff"
SEVERITY = "silent"
DETECTORS = ("checkpoint_call",)
WHAT = "torch.utils.checkpoint does nothing to burn_torch tensors; checkpointing is a per-tensor strategy"
WHY = """Burn chooses checkpointing per tensor: the device's autodiff context carries a
`GradientCheckpointingStrategy` that tensors created on it inherit (`BALANCED` recomputes the
outputs of memory-bound operations during backward instead of keeping them). torch's
`checkpoint(fn, x)` only changes how torch autograd saves tensors, which burn_torch never uses:
called with burn_torch tensors it just runs `fn`, with the same gradients and no memory saved."""
RECIPE = "create the inputs on device.autodiff().gradient_checkpointing() (or with_gradient_checkpointing_strategy(BALANCED))"


def torch_side():
    from torch.utils.checkpoint import checkpoint
    x = torch.tensor([0.0, 1.0], requires_grad=True)
    y = checkpoint(torch.exp, x, use_reentrant=True)
    y.sum().backward()
    type(y.grad_fn).__name__
    x.grad.tolist()


def burn_literal():
    from torch.utils.checkpoint import checkpoint
    ad = Device.cpu().autodiff()
    x = Tensor.from_floats([0.0, 1.0], ad).require_grad()
    y = checkpoint(Tensor.exp, x, use_reentrant=True)
    grads = y.sum().backward()
    y.gradient_checkpointing_strategy().name
    x.grad(grads).to_data().to_list()


def burn_side():
    ck = Device.cpu().autodiff().gradient_checkpointing()
    x = Tensor.from_floats([0.0, 1.0], ck).require_grad()
    y = x.exp()
    grads = y.sum().backward()
    y.gradient_checkpointing_strategy().name
    x.grad(grads).to_data().to_list()


TORCH = {"type(y.grad_fn).__name__": "CheckpointFunctionBackward", "x.grad.tolist()": [1.0, 2.7182817459106445]}
LITERAL = {"y.gradient_checkpointing_strategy().name": "DISABLED",
           "x.grad(grads).to_data().to_list()": [1.0, 2.7182817459106445]}
BURN = {"y.gradient_checkpointing_strategy().name": "BALANCED",
        "x.grad(grads).to_data().to_list()": [1.0, 2.7182817459106445]}
