"""1-D and 2-D float32 convolutions are autotuned: torch's values to float32 rounding, not bit for bit."""
import torch
import torch.nn.functional as F

from burn_torch import Device, module_ops
from burn_torch.compat import from_torch

ID = "conv_kernel_autotuning"
TITLE = "Convolutions are autotuned: equal to `F.conv1d`/`F.conv2d` to float32 rounding, not bit for bit"
CATEGORY = "testing"
SEVERITY = "silent"
DETECTORS = ("deterministic_kernels",)
WHAT = "1-D and 2-D float32 convolutions are autotuned: values agree with F.conv1d/F.conv2d to float32 rounding, not bit for bit"
WHY = """As Burn's autotune does, burn_torch times torch's kernels on the first call of each
shape and runs the fastest from then on (`burn_torch.autotune`): a 1-D or 2-D float32 convolution on CPU
(forward and backward) runs torch's default `convolution` (oneDNN) or the `_slow_conv2d` kernels,
which can be several times faster for few input channels or small images. Both compute the same sums in a
different order, so a port's outputs and gradients can differ from PyTorch's in the last bits,
depending on which kernel won on this machine. A tolerance-based comparison is unaffected; a
test that checks a port against PyTorch with `torch.equal` may fail. Max pooling is tuned too,
but its kernels agree bit for bit. With tuning off every op runs torch's default kernel."""
RECIPE = "burn_torch.autotune.set_enabled(False) (or BURN_TORCH_AUTOTUNE=0) where a port must match torch bit for bit"


def torch_side():
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 16, 16, generator=gen)
    w = torch.randn(8, 3, 3, 3, generator=gen) / 6
    reference = F.conv2d(x, w, padding=1)  # the PyTorch model's output, saved earlier
    y = F.conv2d(x, w, padding=1)
    (y - reference).abs().max().item()


def burn_literal():
    device = Device.cpu()
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 16, 16, generator=gen)
    w = torch.randn(8, 3, 3, 3, generator=gen) / 6
    reference = F.conv2d(x, w, padding=1)
    options = module_ops.ConvOptions(stride=[1, 1], padding=[1, 1], dilation=[1, 1], groups=1)
    y = module_ops.conv2d(from_torch(x, device), from_torch(w, device), None, options)
    # the difference is 0.0 or a float32 rounding error, depending on the kernel tuning chose
    (y.to_torch() - reference).abs().max().item() <= 1e-5


def burn_side():
    from burn_torch import autotune
    device = Device.cpu()
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 16, 16, generator=gen)
    w = torch.randn(8, 3, 3, 3, generator=gen) / 6
    reference = F.conv2d(x, w, padding=1)
    options = module_ops.ConvOptions(stride=[1, 1], padding=[1, 1], dilation=[1, 1], groups=1)
    was_enabled = autotune.enabled()
    autotune.set_enabled(False)  # torch's default kernel, as F.conv2d
    try:
        y = module_ops.conv2d(from_torch(x, device), from_torch(w, device), None, options)
    finally:
        autotune.set_enabled(was_enabled)
    (y.to_torch() - reference).abs().max().item()


TORCH = {"(y - reference).abs().max().item()": 0.0}
LITERAL = {"(y.to_torch() - reference).abs().max().item() <= 1e-05": True}
BURN = {"(y.to_torch() - reference).abs().max().item()": 0.0}
