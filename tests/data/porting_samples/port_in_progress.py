"""A port in progress: burn_torch values beside torch ones (porting-checker sample; never run)."""
import torch

from burn_torch import Device, Tensor, nn

device = Device.cpu().autodiff()
layer = nn.LinearConfig(4, 2).init(device)
x = Tensor.from_floats([[1.0, 2.0, 3.0, 4.0]], device).require_grad()
c = Tensor.from_floats([[3.0, 4.0, 5.0, 6.0]], Device.cpu())
k = Tensor.from_floats([[1.0, 1.0, 1.0, 1.0]], device.gradient_checkpointing())
out = layer(x * c + k * x)
t = torch.ones(4)
mixed = x * t
both = torch.cat([x, x], 1)
loss = out.sum()
print(loss.into_scalar() > 0.5)
