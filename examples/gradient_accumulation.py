# %% [markdown]
# # Gradient accumulation: seed 003's MLP experiment, PyTorch and burn_torch side by side
#
# A 4 → 8 → 3 MLP with cross entropy, the same weights on both sides. A batch of 4 rows is split
# into two halves of 2 rows, each half's loss divided by 2: the accumulated gradients must equal
# the full batch's. PyTorch accumulates by *not* calling `zero_grad()` between the two backward
# passes; every Burn backward returns a fresh container, so burn_torch sums the halves' gradients
# explicitly with a `GradientsAccumulator`. As the seed does, four pairs are compared per
# parameter (weights in PyTorch's `[out, in]` layout) with tolerance 1e-6: full_pt vs full_burn,
# acc_pt vs acc_burn, full_pt vs acc_pt and full_burn vs acc_burn.
#
# Run it with `.venv/bin/python examples/gradient_accumulation.py`, or open
# `examples/gradient_accumulation.ipynb`.

# %%
import torch

from burn_torch import Device, Tensor, nn
from burn_torch.compat import load_torch_state_dict
from burn_torch.module import Module
from burn_torch.optim import GradientsAccumulator, GradientsParams

from _side_by_side import Agreement, columns, compare_table, heading, torch_grads, torch_layout_grads

TOL = 1e-6
HALVES = (slice(0, 2), slice(2, 4))
gen = torch.Generator().manual_seed(3)
x_data = torch.randn(4, 4, generator=gen)
y_data = torch.tensor([0, 2, 1, 2])

# %% [markdown]
# ## The model on both sides
# The same two layers; burn_torch's `Linear` stores its weight `[d_input, d_output]`, so the
# PyTorch weights are loaded through `load_torch_state_dict`, which transposes them.

# %%
# PyTorch
class TorchMlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


torch.manual_seed(3)
torch_model = TorchMlp()

# %%
# burn_torch
class Mlp(Module):
    def __init__(self, device: Device) -> None:
        super().__init__()
        self.fc1 = nn.LinearConfig(4, 8).init(device)
        self.fc2 = nn.LinearConfig(8, 3).init(device)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc2.forward(nn.relu(self.fc1.forward(x)))


device = Device.cpu().autodiff()
model, _ = load_torch_state_dict(Mlp(device), torch_model.state_dict())
model = model.train()

# %% [markdown]
# ## Full batch, then two half batches
# PyTorch: `zero_grad()`, one backward for the full batch; `zero_grad()` again, then one
# backward per half with nothing in between, so `.grad` adds them up.

# %%
# PyTorch
ce = torch.nn.functional.cross_entropy
torch_model.zero_grad()
ce(torch_model(x_data), y_data).backward()
full_pt = torch_grads(torch_model)

pt = []
torch_model.zero_grad()
for part in HALVES:
    half_loss = ce(torch_model(x_data[part]), y_data[part]) / 2
    half_loss.backward()
    pt.append(f"half {part.start}:{part.stop}  loss/2 = {half_loss.item():.6f}")
acc_pt = torch_grads(torch_model)

# %% [markdown]
# burn_torch: each backward returns a new container; `GradientsParams.from_grads` keys it by
# parameter, and the accumulator sums the halves. `grads()` hands the sum over and empties the
# accumulator, as PyTorch's next `zero_grad()` would.

# %%
# burn_torch
loss_fn = nn.CrossEntropyLossConfig().init(device)
x = Tensor.from_data(x_data, device)
y = Tensor.from_data(y_data, device)
loss = loss_fn.forward(model.forward(x), y)
full_burn = torch_layout_grads(model, GradientsParams.from_grads(loss.backward(), model))

bt = []
accumulator = GradientsAccumulator()
for part in HALVES:
    loss = loss_fn.forward(model.forward(x.slice([part])), y.slice([part])) / 2.0
    accumulator.accumulate(model, GradientsParams.from_grads(loss.backward(), model))
    bt.append(f"half {part.start}:{part.stop}  loss/2 = {loss.into_scalar():.6f}")
acc_burn = torch_layout_grads(model, accumulator.grads())
bt.append(f"accumulator emptied by grads(): {len(accumulator) == 0}")

# %%
heading("two half batches")
columns(pt, bt)

# %% [markdown]
# ## The four comparisons
# Even on one side, full batch and two halves are not bit-identical: the sums run in a
# different order. Both sides agree to a few float32 ulps.

# %%
agreement = Agreement(TOL)
for (left, a), (right, b) in [(("full_pt", full_pt), ("full_burn", full_burn)),
                              (("acc_pt", acc_pt), ("acc_burn", acc_burn)),
                              (("full_pt", full_pt), ("acc_pt", acc_pt)),
                              (("full_burn", full_burn), ("acc_burn", acc_burn))]:
    agreement.add(f"{left} vs {right}", compare_table(left, a, right, b, TOL))
agreement.report()
