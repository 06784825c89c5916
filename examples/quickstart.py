# %% [markdown]
# # Quickstart: Burn's autodiff example in Python, next to PyTorch
#
# Seed 000 (Burn's autodiff chapter) gives this Rust program:
#
#     let device = Device::wgpu(Default::default()).autodiff();
#     let tensor = Tensor::<2>::ones([2, 2], &device).require_grad();
#     let output = tensor.clone().powf_scalar(2.0).sum();
#     let mut gradients = output.backward();
#     let tensor_grad = tensor.grad(&gradients);             // get
#     let tensor_grad = tensor.grad_remove(&mut gradients);  // pop
#
# burn_torch runs it line for line on torch's kernels; the PyTorch column computes the same with
# torch autograd. Then the four properties Burn keeps apart (autodiff association, graph
# tracking, gradient retention, checkpointing strategy) are printed for every tensor in it, next
# to the closest PyTorch attributes, and the gradient is checked against torch's.
#
# Run it with `.venv/bin/python examples/quickstart.py`, or open `examples/quickstart.ipynb`.

# %%
import torch

from burn_torch import Device, Tensor

from _side_by_side import Agreement, columns, heading

# %% [markdown]
# ## Burn's example
# Autodiff is a runtime property of the device, and `backward()` returns the gradients in a
# container instead of writing them on the tensors.

# %%
# burn_torch
device = Device.cpu().autodiff()          # autodiff is a runtime property of the device
tensor = Tensor.ones([2, 2], device).require_grad()
squared = tensor.clone().powf_scalar(2.0)  # a tracked intermediate
output = squared.sum()
gradients = output.backward()              # returns a container; nothing is written on tensors
tensor_grad = tensor.grad(gradients)       # get: the gradient stays in the container
assert tensor_grad is not None             # an Option in Burn: None when there is no gradient
print(f"backward returned {gradients!r}")

# %% [markdown]
# ## The same computation in PyTorch
# `backward()` returns None and writes the gradient on `x.grad`.

# %%
# PyTorch
x = torch.ones(2, 2, requires_grad=True)
x_squared = x.clone().pow(2.0)
x_output = x_squared.sum()
print(f"backward returned {x_output.backward()!r}; x.grad is now set")
assert x.grad is not None

# %% [markdown]
# ## Four properties of every tensor
# `is_require_grad() ⇒ is_tracked() ⇒ is_autodiff()`, and a tensor has a checkpointing strategy
# exactly when it has autodiff. PyTorch's closest attributes are `requires_grad` (which is
# `is_tracked()`, not `is_require_grad()`) and `is_leaf`. A torch tensor has no autodiff
# association to drop, so `without_autodiff()` has no counterpart; note how `detach()` differs:
# Burn's keeps a leaf's gradient retention.

# %%
rows = [
    ("tensor (leaf)", tensor, "x (leaf)", x),
    ("squared (powf_scalar)", squared, "x_squared (pow)", x_squared),
    ("output (sum)", output, "x_output (sum)", x_output),
    ("tensor.grad(gradients)", tensor_grad, "x.grad", x.grad),
    ("tensor.detach()", tensor.detach(), "x.detach()", x.detach()),
    ("tensor.without_autodiff()", tensor.without_autodiff(), "-", None),
]
burn_lines = [f"{'tensor':<25} {'is_autodiff':>11} {'is_tracked':>10} {'is_require_grad':>15}  strategy"]
torch_lines = [f"{'tensor':<15} {'requires_grad':>13} {'is_leaf':>7}"]
for name, t, torch_name, torch_t in rows:
    strategy = t.gradient_checkpointing_strategy()
    burn_lines.append(f"{name:<25} {t.is_autodiff()!s:>11} {t.is_tracked()!s:>10} "
                      f"{t.is_require_grad()!s:>15}  {strategy.name if strategy is not None else None}")
    torch_lines.append(f"{torch_name:<15}" if torch_t is None else
                       f"{torch_name:<15} {torch_t.requires_grad!s:>13} {torch_t.is_leaf!s:>7}")
    # Burn's invariants hold for every float tensor
    assert (not t.is_require_grad()) or t.is_tracked()
    assert (not t.is_tracked()) or t.is_autodiff()
    assert (strategy is not None) == t.is_autodiff()
columns(torch_lines, burn_lines)

# %% [markdown]
# ## The gradient, and popping it from the container

# %%
heading("gradient of sum(tensor ** 2) with respect to tensor")
columns([f"x.grad: {x.grad.tolist()}"], [f"tensor.grad(gradients): {tensor_grad.to_data().to_list()}"])
tensor_grad = tensor.grad_remove(gradients)  # pop: the entry leaves the container
print(f"after grad_remove: {len(gradients)} gradients left, tensor.grad -> {tensor.grad(gradients)}")

# %% [markdown]
# ## Agreement
# The gradient must equal PyTorch's and the analytic one, `2 * tensor`.

# %%
agreement = Agreement(tol=1e-6)
agreement.check("tensor.grad vs torch's x.grad", x.grad, tensor_grad)
agreement.check("tensor.grad vs 2 * tensor", 2 * x.detach(), tensor_grad)
agreement.report("the gradient equals 2 * tensor")
