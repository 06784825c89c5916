# %% [markdown]
# # Property-testing a custom layer against its torch twin
#
# A layer written against the burn_torch API (an RMS-normalised, gated projection) is checked
# against the PyTorch code it was ported from with `burn_torch.testing.assert_matches_torch`:
# outputs and every input's gradient, torch's side under real torch autograd, under both of
# Burn's checkpointing strategies and against float64 finite differences. Hypothesis then draws
# inputs with the edges where gradients are decided (zeros, exact ties). Finally a deliberate bug
# (a custom op whose backward rule is wrong) shows how a report localises it: the argument, the
# index, both values, and the op and source line whose rule disagrees.
#
# Run it with `.venv/bin/python examples/testing_custom_layer.py`, or open
# `examples/testing_custom_layer.ipynb`.

# %%
import numpy as np
import torch
from hypothesis import given, settings

from burn_torch import Tensor, activation
from burn_torch.autodiff.recorder import apply1
from burn_torch.ops import OPS
from burn_torch.ops.table import MEMORY, defop, vjp
from burn_torch.testing import assert_matches_torch
from burn_torch.testing.strategies import edge_arrays

rng = np.random.default_rng(0)
X, W = rng.standard_normal((3, 4)), rng.standard_normal((1, 4)) + 1.0

# %% [markdown]
# ## The layer, and its torch twin
# The burn_torch layer keeps Burn's shapes (`mean_dim` keeps the dim); the torch twin is the
# code it was ported from.

# %%
# burn_torch
def rms_gate(x: Tensor, w: Tensor) -> Tensor:
    normed = x / (x.square().mean_dim(1) + 1e-6).sqrt() * w
    return normed * activation.sigmoid(normed)


# %%
# PyTorch
def torch_rms_gate(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    normed = x / (x.square().mean(1, keepdim=True) + 1e-6).sqrt() * w
    return normed * torch.sigmoid(normed)


# %% [markdown]
# ## One check
# Float arrays become tracked leaves; the result holds burn_torch's outputs and gradients, and
# notes on anything the check could not judge (a non-smooth point, for instance).

# %%
res = assert_matches_torch(rms_gate, torch_rms_gate, X, W)
print("gradients:", [g.dims() for g in res.grads if g is not None], "notes:", res.notes)

# %% [markdown]
# ## A property test
# `edge_arrays` lets hypothesis draw every value, often exactly 0 and with exact ties; float32
# inputs are judged against a float64 run of the torch twin.

# %%
@settings(max_examples=40, deadline=None, database=None)
@given(x=edge_arrays((2, 4), dtype=np.float32), w=edge_arrays((1, 4), 0.5, 1.5, edges=(1.0,), dtype=np.float32))
def test_rms_gate_matches_its_torch_twin(x, w):
    assert_matches_torch(rms_gate, torch_rms_gate, x + 0.1, w)


test_rms_gate_matches_its_torch_twin()
print("40 hypothesis examples passed")

# %% [markdown]
# ## A deliberate bug, localised
# A custom op, softsign `x / (1 + |x|)`, declared with a wrong backward rule (its derivative is
# `1 / (1 + |x|)^2`). The report names the argument and index that differ, and the first op
# whose rule disagrees with torch autograd of its own kernel, with the line that recorded it.

# %%
SOFTSIGN = OPS.get("example_softsign") or defop(
    "example_softsign", lambda x: x / (1 + x.abs()), MEMORY,
    vjp=(vjp(lambda g, s: g / (1 + s.x.abs()), "x"),))  # the bug: the square is missing


def rms_softsign(x: Tensor, w: Tensor) -> Tensor:
    return apply1(SOFTSIGN, rms_gate(x, w))


def torch_rms_softsign(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    y = torch_rms_gate(x, w)
    return y / (1 + y.abs())


try:
    assert_matches_torch(rms_softsign, torch_rms_softsign, X, W)
    report = ""
except AssertionError as err:
    report = str(err)
print(report)

# %%
assert "gradient of x (input 0)" in report and "first op whose rule disagrees" in report
assert "example_softsign" in report and "return apply1(SOFTSIGN, rms_gate(x, w))" in report
print("OK: the layer matches its torch twin, and the deliberate bug is localised to its op")
