# %% [markdown]
# # Gradient checkpointing: DISABLED and BALANCED, with the memory the graph holds
#
# The same 8-block residual network (layer norm, linear, GELU in each block) runs with Burn's two
# checkpointing strategies. Under DISABLED every step keeps what its backward rule needs; under
# BALANCED the memory-bound steps (layer norm's arithmetic, GELU, the residual adds) keep only
# how to recompute their output, and backward recomputes it when a rule needs it. The strategy is
# a property of the tensors: the model created on `Device.cpu().autodiff().gradient_checkpointing()`
# records BALANCED steps. Gradients must be identical (same kernels, same order);
# `burn_torch.memory` shows what the graph holds after the forward pass (`graph_bytes`) and at
# most during backward (`track`).
#
# The PyTorch column runs the same network with plain autograd and with
# `torch.utils.checkpoint` around each block (which recomputes whole blocks, matmuls included),
# counting the bytes autograd saves with `torch.autograd.graph.saved_tensors_hooks`. Both sides'
# gradients must agree.
#
# Run it with `.venv/bin/python examples/checkpointing_memory.py`, or open
# `examples/checkpointing_memory.ipynb`.

# %%
import torch
from torch.utils.checkpoint import checkpoint

from burn_torch import Device, GradientCheckpointingStrategy, Tensor, memory, nn
from burn_torch.compat import load_torch_state_dict
from burn_torch.module import Module
from burn_torch.optim import GradientsParams

from _side_by_side import Agreement, columns, heading, largest_diff, torch_grads, torch_layout_grads

WIDTH, BLOCKS, BATCH = 64, 8, 32
TOL = 1e-5
x_data = torch.randn(BATCH, WIDTH, generator=torch.Generator().manual_seed(0))


def kib(n: int) -> str:
    return f"{n / 1024:7.1f} KiB"

# %% [markdown]
# ## The network on both sides

# %%
# PyTorch
class TorchBlock(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(WIDTH)
        self.linear = torch.nn.Linear(WIDTH, WIDTH)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.nn.functional.gelu(self.linear(self.norm(x)))


class TorchNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = torch.nn.ModuleList(TorchBlock() for _ in range(BLOCKS))
        self.head = torch.nn.Linear(WIDTH, 1)

    def forward(self, x: torch.Tensor, checkpointed: bool = False) -> torch.Tensor:
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False) if checkpointed else block(x)
        return self.head(x).square().mean()


torch.manual_seed(0)
torch_net = TorchNet()

# %%
# burn_torch
class Block(Module):
    def __init__(self, device: Device) -> None:
        super().__init__()
        self.norm = nn.LayerNormConfig(WIDTH).init(device)
        self.linear = nn.LinearConfig(WIDTH, WIDTH).init(device)

    def forward(self, x: Tensor) -> Tensor:
        return x + nn.gelu(self.linear.forward(self.norm.forward(x)))


class Net(Module):
    def __init__(self, device: Device) -> None:
        super().__init__()
        self.blocks = [Block(device) for _ in range(BLOCKS)]
        self.head = nn.LinearConfig(WIDTH, 1).init(device)

    def forward(self, x: Tensor) -> Tensor:
        for block in self.blocks:
            x = block.forward(x)
        return self.head.forward(x).square().mean()

# %% [markdown]
# ## PyTorch: plain autograd, then `torch.utils.checkpoint` per block

# %%
# PyTorch
def torch_run(checkpointed: bool) -> tuple[torch.Tensor, int, dict[str, torch.Tensor]]:
    """The loss, the bytes autograd saved for backward (each storage once) and the gradients."""
    saved = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        saved[storage.data_ptr()] = storage.nbytes()
        return t

    torch_net.zero_grad()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        loss = torch_net(x_data, checkpointed)
    loss.backward()
    return loss.detach(), sum(saved.values()), torch_grads(torch_net)


torch_results = {name: torch_run(flag) for name, flag in (("autograd", False), ("checkpoint", True))}
pt = [f"{name:<11} saved for backward {kib(held)}" for name, (_, held, _) in torch_results.items()]

# %% [markdown]
# ## burn_torch: the same weights under DISABLED and BALANCED
# `load_torch_state_dict` keeps each parameter's device, and with it the strategy the model was
# created with.

# %%
# burn_torch
def burn_run(device: Device) -> tuple[Tensor, int, memory.MemoryTrace, dict[str, torch.Tensor]]:
    """The loss, the bytes the graph holds after forward, the backward trace and the gradients."""
    model, _ = load_torch_state_dict(Net(device), torch_net.state_dict())
    model = model.train()
    loss = model.forward(Tensor.from_data(x_data, device))
    held = memory.graph_bytes(loss)
    with memory.track() as trace:
        grads = GradientsParams.from_grads(loss.backward(), model)
    return loss, held, trace, torch_layout_grads(model, grads)


autodiff = Device.cpu().autodiff()
burn_results = {strategy.name: burn_run(device) for strategy, device in (
    (GradientCheckpointingStrategy.DISABLED, autodiff),
    (GradientCheckpointingStrategy.BALANCED, autodiff.gradient_checkpointing()))}
bt = [f"{name:<8} graph holds {kib(held)}, backward peak {kib(trace.peak_bytes)}"
      for name, (_, held, trace, _) in burn_results.items()]

# %%
heading("memory held for backward")
columns(pt, bt)
print("(the columns count different graphs: torch's LayerNorm is one fused op saving its statistics,\n"
      " burn_torch's is several recorded ops; what compares is each side's two rows)")

# %% [markdown]
# ## Gradients
# BALANCED recomputes with the same kernels in the same order as DISABLED's forward, so its
# gradients are bit-identical; both match PyTorch's within float32 rounding.

# %%
disabled_held, disabled_trace, disabled_grads = burn_results["DISABLED"][1:]
balanced_held, balanced_trace, balanced_grads = burn_results["BALANCED"][1:]
identical = all(torch.equal(disabled_grads[k], balanced_grads[k]) for k in disabled_grads)
print(f"BALANCED gradients equal DISABLED's bit for bit: {identical}")
print(f"BALANCED holds {balanced_held / disabled_held:.0%} of DISABLED's graph after forward and "
      f"peaks at {balanced_trace.peak_bytes / disabled_trace.peak_bytes:.0%} of it during backward")
assert identical and balanced_held < disabled_held, "BALANCED must hold less, with the same gradients"

agreement = Agreement(TOL)
for torch_name, burn_name in (("autograd", "DISABLED"), ("checkpoint", "BALANCED")):
    torch_loss, torch_g = torch_results[torch_name][0], torch_results[torch_name][2]
    burn_loss, burn_g = burn_results[burn_name][0], burn_results[burn_name][3]
    agreement.check(f"loss: torch {torch_name} vs burn {burn_name}", torch_loss, burn_loss)
    agreement.add(f"gradients: torch {torch_name} vs burn {burn_name}", largest_diff(torch_g, burn_g))
agreement.report()
