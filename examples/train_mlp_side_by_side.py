# %% [markdown]
# # Training a classifier with PyTorch and with burn_torch, side by side
#
# A small MLP (2 → 32 → 32 → 3) learns to separate three interleaved spirals, trained for 300
# full-batch steps of SGD with momentum twice: once with torch autograd and `torch.optim.SGD`,
# once with burn_torch (Burn's autodiff, `GradientsParams`, `SgdConfig`). Both start from the same
# weights: the PyTorch model's state dict is loaded into the burn_torch model with
# `burn_torch.compat.load_torch_state_dict`. Every 50 steps both losses are printed; at the end the
# loss curves are plotted on one figure (written to `examples/output/`) and the weights compared
# parameter by parameter: they must agree to 1e-5 after 300 steps.
#
# Run it with `./scripts/demo` (or `.venv/bin/python examples/train_mlp_side_by_side.py`), or open
# `examples/train_mlp_side_by_side.ipynb`.

# %%
import math

import torch
from matplotlib.figure import Figure

from burn_torch import Device, Tensor, nn
from burn_torch.compat import load_torch_state_dict, to_torch_state_dict
from burn_torch.module import Module
from burn_torch.optim import GradientsParams, MomentumConfig, SgdConfig

from _side_by_side import Agreement, compare_table, heading, output_path, show_image, spirals

STEPS, EVERY, LR = 300, 50, 0.1
TOL = 1e-5


x_data, y_data = spirals(100)

# %% [markdown]
# ## The model on both sides
# Same layers, same names. burn_torch's `Linear` keeps Burn's `[d_input, d_output]` weight
# layout; `load_torch_state_dict` transposes PyTorch's `[out, in]` weights on the way in.

# %%
# PyTorch
class TorchMlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(2, 32)
        self.fc2 = torch.nn.Linear(32, 32)
        self.fc3 = torch.nn.Linear(32, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


torch.manual_seed(0)
torch_model = TorchMlp()
torch_opt = torch.optim.SGD(torch_model.parameters(), lr=LR, momentum=0.9)


def torch_step() -> float:
    torch_opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(torch_model(x_data), y_data)
    loss.backward()
    torch_opt.step()
    return loss.item()

# %%
# burn_torch
class Mlp(Module):
    def __init__(self, device: Device) -> None:
        super().__init__()
        self.fc1 = nn.LinearConfig(2, 32).init(device)
        self.fc2 = nn.LinearConfig(32, 32).init(device)
        self.fc3 = nn.LinearConfig(32, 3).init(device)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc3.forward(nn.relu(self.fc2.forward(nn.relu(self.fc1.forward(x)))))


device = Device.cpu().autodiff()
model, _ = load_torch_state_dict(Mlp(device), torch_model.state_dict())  # the same initial weights
model = model.train()
# Burn's momentum dampens by 0.1 by default, torch's by 0 (compat entry optimizer_defaults)
optimizer = SgdConfig().with_momentum(MomentumConfig(momentum=0.9, dampening=0.0)).init()
loss_fn = nn.CrossEntropyLossConfig().init(device)
x, y = Tensor.from_data(x_data, device), Tensor.from_data(y_data, device)


def burn_step() -> float:
    global model
    loss = loss_fn.forward(model.forward(x), y)
    grads = GradientsParams.from_grads(loss.backward(), model)  # no zero_grad: a fresh container
    model = optimizer.step(LR, model, grads)                     # returns the updated model
    return loss.into_scalar()

# %% [markdown]
# ## Training, one step of each per iteration

# %%
torch_losses, burn_losses = [], []
print(f"{'step':>5} │ {'PyTorch loss':>12} │ {'burn_torch loss':>15} │ {'|diff|':>8}")
for step in range(STEPS):
    torch_losses.append(torch_step())
    burn_losses.append(burn_step())
    if step % EVERY == 0 or step == STEPS - 1:
        print(f"{step:>5} │ {torch_losses[-1]:>12.6f} │ {burn_losses[-1]:>15.6f} │ "
              f"{abs(torch_losses[-1] - burn_losses[-1]):>8.1e}")

# %% [markdown]
# ## Both loss curves on one figure
# The curves overlap: at some steps the two losses differ in their last float32 bits (each side
# computes the cross entropy with its own kernels), while the weights stay together.

# %%
fig = Figure(figsize=(9, 3.6), layout="constrained")  # no pyplot: rendered by the Agg backend
curves, gap = fig.subplots(1, 2)
curves.plot(torch_losses, label="PyTorch (torch autograd)", linewidth=3, alpha=0.6)
curves.plot(burn_losses, "--", label="burn_torch (Burn's autodiff)", linewidth=1.5)
curves.set(xlabel="step", ylabel="cross-entropy loss", yscale="log", title="training loss")
curves.legend()
gap.plot([abs(a - b) or math.nan for a, b in zip(torch_losses, burn_losses)], ".", color="tab:red")
gap.set(xlabel="step", ylabel="|loss difference| (exact ties not shown)", yscale="log",
        title="PyTorch vs burn_torch")
plot = output_path("train_mlp_side_by_side.png")
fig.savefig(plot, dpi=100)
print(f"plot written to {plot}")
show_image(plot)

# %% [markdown]
# ## Agreement after training
# The trained weights (burn_torch's exported in PyTorch's layout), the losses and the accuracy.

# %%
heading(f"final weights after {STEPS} steps")
trained_torch = {k: v.detach() for k, v in torch_model.state_dict().items()}
trained_burn = to_torch_state_dict(model)
largest = compare_table("PyTorch", trained_torch, "burn_torch", trained_burn, TOL)
agreement = Agreement(TOL)
agreement.add("weights (largest difference)", largest)
agreement.add("loss at every step", max(abs(a - b) for a, b in zip(torch_losses, burn_losses)))
torch_accuracy = (torch_model(x_data).argmax(1) == y_data).float().mean().item()
predicted = model.valid().forward(x.without_autodiff()).argmax(1).squeeze_dim(1)
burn_accuracy = predicted.equal(y.without_autodiff()).float().mean().into_scalar()
print(f"accuracy: PyTorch {torch_accuracy:.3f}, burn_torch {burn_accuracy:.3f}")
agreement.check("accuracy", torch_accuracy, burn_accuracy)
agreement.report(f"both sides trained the same model: largest weight difference {largest:.1e}")
