# %% [markdown]
# # backward and gradients: seed 003's experiments, PyTorch and burn_torch side by side
#
# Seed 003 runs the same small programs with PyTorch and with Burn and prints both sides' output.
# Each section below is one of them: a PyTorch cell, a burn_torch cell, then both outputs in two
# columns (PyTorch's formatted as torch prints tensors, Burn's as the seed's Rust helper `v`
# prints an `Option<Tensor>`) and the values that must agree. The experiments: where the
# gradients go (two backward passes, summed by hand), `torch.autograd.grad`, non-scalar outputs,
# intermediate gradients, second order, and editing a gradient with `grad_replace`.
#
# Run it with `.venv/bin/python examples/backward_and_gradients.py`, or open
# `examples/backward_and_gradients.ipynb`.

# %%
import textwrap
import warnings

import torch

from burn_torch import AutodiffError, Device, Tensor

from _side_by_side import Agreement, columns, heading

ad = Device.cpu().autodiff()
agreement = Agreement(tol=1e-6)


def v(t: Tensor | None) -> str:
    """An `Option<Tensor>` as the seed's Rust helper prints it: `Some([2.0, 4.0])` or `None`."""
    return "None" if t is None else f"Some({t.to_data().to_list()!r})"


def flags(label: str, t: Tensor) -> str:
    """The seed's `flags` helper: the three autodiff properties, as Rust prints booleans."""
    def b(x: bool) -> str:
        return "true" if x else "false"
    return (f"{label:<10} is_autodiff={b(t.is_autodiff())} is_tracked={b(t.is_tracked())} "
            f"is_require_grad={b(t.is_require_grad())}")


# %% [markdown]
# ## 1. Where the gradients go
# The same forward `(x * x).sum()`, recomputed twice, one backward each. PyTorch adds each pass
# into `x.grad` (hence `zero_grad()` in every training loop); Burn returns a fresh `Gradients`
# container per pass and writes nothing on `x`, so accumulating is summing by hand.

# %%
# PyTorch
pt = []
x_pt = torch.tensor([1.0, 2.0], requires_grad=True)
for i in range(2):
    (x_pt * x_pt).sum().backward()
    pt.append(f"after backward {i}: x.grad = {x_pt.grad}")
    if i == 0 and x_pt.grad is not None:
        first_pt = x_pt.grad.clone()

# %%
# burn_torch
bt = []
x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
all_grads = []
for i in range(2):
    grads = (x.clone() * x.clone()).sum().backward()
    bt.append(f"backward {i}: x.grad = {v(x.grad(grads))}")
    all_grads.append(grads)
first, second = x.grad(all_grads[0]), x.grad(all_grads[1])
assert first is not None and second is not None  # Options in Burn: unwrapped
summed = first + second
bt.append(f"summed by hand: {v(summed)}")

# %%
heading("1. where the gradients go: two backward passes")
columns(pt, bt)
agreement.check("1. one backward pass", first_pt, x.grad(all_grads[0]))
agreement.check("1. accumulated .grad vs summed by hand", x_pt.grad, summed)

# %% [markdown]
# ## 2. `torch.autograd.grad`, PyTorch's closest counterpart
# Like Burn's `backward()`, the functional `torch.autograd.grad` hands the gradients back and
# leaves `.grad` alone.

# %%
# PyTorch
x_pt = torch.tensor([1.0, 2.0], requires_grad=True)
h_pt = x_pt * x_pt
(gx_pt,) = torch.autograd.grad((h_pt * 3).sum(), [x_pt])
pt = [f"autograd.grad: {gx_pt} | x.grad = {x_pt.grad}"]

# %%
# burn_torch
x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
h = x.clone() * x.clone()
grads = (h * 3.0).sum().backward()
bt = [f"backward: x.grad(grads) = {v(x.grad(grads))} | len(grads) = {len(grads)}"]

# %%
heading("2. torch.autograd.grad vs a returned container")
columns(pt, bt)
agreement.check("2. autograd.grad vs x.grad(grads)", gx_pt, x.grad(grads))

# %% [markdown]
# ## 3. Non-scalar outputs
# PyTorch's `backward()` needs a scalar or an explicit `gradient`; Burn seeds any output with
# ones, as if it were summed first. PyTorch's `y.backward(v)` is `(y * v).sum().backward()`.

# %%
# PyTorch
pt = []
x_pt = torch.tensor([1.0, 2.0], requires_grad=True)
y_pt = x_pt * x_pt
try:
    y_pt.backward()
except RuntimeError as e:
    pt.append(f"non-scalar backward: {e}")
y_pt.backward(torch.ones_like(y_pt))
pt.append(f"y.backward(ones): x.grad = {x_pt.grad}")
assert x_pt.grad is not None
ones_pt = x_pt.grad.clone()
x_pt.grad = None
y_pt = x_pt * x_pt
y_pt.backward(torch.tensor([1.0, 10.0]))
pt.append(f"y.backward([1, 10]): x.grad = {x_pt.grad}")

# %%
# burn_torch
bt = []
x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
y = x.clone() * x.clone()
ones = x.grad(y.backward())
bt.append(f"y.backward() on [2]: x.grad = {v(ones)}")
y = x.clone() * x.clone()
weights = Tensor.from_floats([1.0, 10.0], ad)
weighted = x.grad((y * weights).sum().backward())
bt.append(f"(y * [1, 10]).sum(): x.grad = {v(weighted)}")

# %%
heading("3. non-scalar outputs")
columns(pt, bt)
agreement.check("3. y.backward(ones) vs y.backward()", ones_pt, ones)
agreement.check("3. y.backward(v) vs (y * v).sum().backward()", x_pt.grad, weighted)

# %% [markdown]
# ## 4. Intermediate gradients
# Neither side keeps the gradient of an intermediate: PyTorch warns and suggests `retain_grad()`;
# Burn frees it during backward, silently, and has no `retain_grad`.

# %%
# PyTorch
x_pt = torch.tensor([1.0, 2.0], requires_grad=True)
h_pt = x_pt * x_pt
(h_pt * 3).sum().backward()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    h_grad_pt = h_pt.grad
    pt = [f"h.grad = {h_grad_pt}"]
pt += [f"UserWarning: {line}" for w in caught for line in str(w.message).split(". ")[:2]]

# %%
# burn_torch
x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
h = x.clone() * x.clone()
grads = (h.clone() * 3.0).sum().backward()
bt = [f"h.grad = {v(h.grad(grads))} | x.grad = {v(x.grad(grads))}"]

# %%
heading("4. intermediate gradients")
columns(pt, bt)
agreement.check("4. h.grad (None on both sides)", h_grad_pt, h.grad(grads))
agreement.check("4. x.grad", x_pt.grad, x.grad(grads))

# %% [markdown]
# ## 5. Second order
# PyTorch's `create_graph=True` makes the gradient differentiable. Burn's gradients carry no
# autodiff association: first order only, and a backward through a gradient raises.

# %%
# PyTorch
x_pt = torch.tensor([1.0, 2.0], requires_grad=True)
(g_pt,) = torch.autograd.grad((x_pt ** 3).sum(), [x_pt], create_graph=True)
(g2_pt,) = torch.autograd.grad(g_pt.sum(), [x_pt])
pt = [f"dy/dx = {g_pt} requires_grad = {g_pt.requires_grad}", f"d2y/dx2 = {g2_pt}"]

# %%
# burn_torch
x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
g = x.grad(x.clone().powi_scalar(3).sum().backward())
assert g is not None
bt = [flags("x.grad", g), f"dy/dx = {v(g)}"]
try:
    g.sum().backward()
except AutodiffError as e:
    bt += [f"backward on the gradient: {type(e).__name__}:", *textwrap.wrap(str(e), 64)]

# %%
heading("5. second order")
columns(pt, bt)
agreement.check("5. dy/dx", g_pt, g)

# %% [markdown]
# ## 6. Editing a gradient
# PyTorch clamps `x.grad` in place. Burn's gradient lives in the container: take it out,
# compute, and put the result back with `grad_replace`.

# %%
# PyTorch
x_pt = torch.tensor([1.0, 2.0], requires_grad=True)
(x_pt * x_pt * 10.0).sum().backward()
pt = [f"x.grad = {x_pt.grad}"]
assert x_pt.grad is not None
x_pt.grad.clamp_(-5, 5)
pt.append(f"after x.grad.clamp_(-5, 5): {x_pt.grad}")

# %%
# burn_torch
x = Tensor.from_floats([1.0, 2.0], ad).require_grad()
grads = (x.clone() * x.clone() * 10.0).sum().backward()
bt = [f"x.grad = {v(x.grad(grads))}"]
g = x.grad(grads)
assert g is not None
x.grad_replace(grads, g.clamp(-5.0, 5.0))
bt.append(f"after grad_replace(clamp): {v(x.grad(grads))}")
clamped = x.grad_remove(grads)
bt.append(f"grad_remove: {v(clamped)} then grad: {v(x.grad(grads))}")

# %%
heading("6. editing a gradient")
columns(pt, bt)
agreement.check("6. clamped gradient", x_pt.grad, clamped)

# %% [markdown]
# ## Agreement
# Every value both sides compute must agree.

# %%
agreement.report()
