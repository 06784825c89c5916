# %% [markdown]
# # Porting pytorch/examples' MNIST CNN, verified with verify_port
#
# The model is `Net` from pytorch/examples `mnist/main.py` (commit
# 77f55b912142e11fcfdf5b530231fb9c52f181e8, BSD-3-Clause), unchanged. Its layers are standard
# `torch.nn` layers, so `from_torch_module` converts each with its weights; only `forward` is
# ported by hand. `verify_port` then compares the two models on one synthetic batch: the forward
# output, the loss, every parameter's gradient under its PyTorch name, and a few training steps
# side by side.
#
# Two catalog entries shape the port: the model ends in `log_softmax` and trains with
# `F.nll_loss`, which burn_torch does not have (`nll_loss`: `CrossEntropyLoss` on the same
# log-probabilities gives the same loss and gradients), and `Dropout` must be off on both sides
# for the comparison (`verify_port` runs both models in eval mode by default).
#
# Run it with `.venv/bin/python examples/port_mnist_cnn.py`, or open
# `examples/port_mnist_cnn.ipynb`.

# %%
import torch
import torch.nn as tnn
import torch.nn.functional as F

from _side_by_side import DISAGREE, output_path, show_image
from burn_torch import Device, module_ops, nn
from burn_torch.compat import from_torch_module, verify_port
from burn_torch.module import Module
from burn_torch.optim import MomentumConfig, SgdConfig

torch.manual_seed(0)
device = Device.cpu().autodiff()


# %%
# PyTorch: the original model (pytorch/examples mnist/main.py)
class Net(tnn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = tnn.Conv2d(1, 32, 3, 1)
        self.conv2 = tnn.Conv2d(32, 64, 3, 1)
        self.dropout1 = tnn.Dropout(0.25)
        self.dropout2 = tnn.Dropout(0.5)
        self.fc1 = tnn.Linear(9216, 128)
        self.fc2 = tnn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


torch_net = Net()


# %%
# burn_torch: the layers converted, forward ported line by line
class BurnNet(Module):
    def __init__(self, net: Net, device: Device):
        super().__init__()
        for name in ("conv1", "conv2", "dropout1", "dropout2", "fc1", "fc2"):
            setattr(self, name, from_torch_module(getattr(net, name), device))

    def forward(self, x):
        x = self.conv1.forward(x)
        x = nn.relu(x)
        x = self.conv2.forward(x)
        x = nn.relu(x)
        x = module_ops.max_pool2d(x, [2, 2], [2, 2], [0, 0], [1, 1])
        x = self.dropout1.forward(x)
        x = x.flatten(1, 3)
        x = self.fc1.forward(x)
        x = nn.relu(x)
        x = self.dropout2.forward(x)
        x = self.fc2.forward(x)
        return nn.log_softmax(x, 1)


burn_net = BurnNet(torch_net, device)
nll = nn.CrossEntropyLossConfig().init(device)   # on log-probabilities: the same as F.nll_loss

# %%
# One synthetic batch (MNIST's shape: 1×28×28 images, 10 classes)
gen = torch.Generator().manual_seed(1)
images = torch.randn(4, 1, 28, 28, generator=gen) * 0.3081 + 0.1307
labels = torch.randint(0, 10, (4,), generator=gen)

# %%
# Verify: forward, loss, every gradient, then 3 SGD steps with matched settings
# The original trains with Adadelta, which burn_torch does not have yet; SGD with momentum
# needs dampening 0 on the Burn side (Burn's default is 0.1).
report = verify_port(
    torch_net, burn_net, (images, labels), F.nll_loss, nll.forward, steps=3,
    torch_optimizer=torch.optim.SGD(torch_net.parameters(), lr=0.05, momentum=0.9),
    burn_optimizer=SgdConfig(momentum=MomentumConfig(0.9, dampening=0.0)))
report.print()

# %%
# The loss curves
ax = report.plot_losses()
plot = output_path("port_mnist_cnn/losses.png")
ax.figure.savefig(plot, dpi=80)
print(f"plot written to {plot}")
show_image(plot)

# %%
# Agreement
assert report.passed, f"{DISAGREE}: {report.summary()}"
print(f"OK: the MNIST CNN port agrees with PyTorch (max forward diff {report.max_forward_diff:.2g}, "
      f"max gradient diff {report.max_grad_diff:.2g})")
