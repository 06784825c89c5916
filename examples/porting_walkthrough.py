# %% [markdown]
# # Porting a PyTorch training script to burn_torch, step by step
#
# A short PyTorch script trains a classifier. The porting checker (`burn-torch-check`, or
# `python -m burn_torch.compat.check`) lists the lines that behave differently under burn_torch,
# each with the id of its entry in the compat catalog (`compat/`, and the migration guide's
# section of the same name). The port then proceeds one step at a time; each step names the
# catalog entries it resolves and shows the lines before and after it, and the checker's count
# after it. At the end both scripts run on the same data from the same initial weights: their
# losses, trained weights and accuracy must agree.
#
# The two scripts, their data and initial weights are written to
# `examples/output/porting_walkthrough/`, where `python train_torch.py` and
# `python train_burn_torch.py` run them.
#
# Run it with `.venv/bin/python examples/porting_walkthrough.py`, or open
# `examples/porting_walkthrough.ipynb`.

# %%
import contextlib
import os
import runpy
from pathlib import Path
from typing import Iterator, NamedTuple

import numpy as np
import torch

from burn_torch.compat import entry, to_torch_state_dict
from burn_torch.compat.check import check_source
from burn_torch.compat.check import main as burn_torch_check

from _side_by_side import Agreement, columns, compare_table, heading, output_path

FOLDER = output_path("porting_walkthrough/train_torch.py").parent


@contextlib.contextmanager
def working_directory(path: Path) -> Iterator[None]:
    """Runs the block in ``path`` (the scripts read their data from their own folder)."""
    previous = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(previous)


def run_checker(name: str) -> int:
    """Runs the porting checker on ``FOLDER / name`` as `burn-torch-check name` would; returns its
    exit status (1: a silent divergence was found)."""
    print(f"$ burn-torch-check {name}")
    with working_directory(FOLDER):
        status = burn_torch_check([name])
    print(f"(exit status {status})")
    return status


def findings(source: str) -> list:
    return check_source(source, "train.py")

# %% [markdown]
# ## The PyTorch script
# It reads a batch and the initial weights from files next to it (written here), trains with
# SGD and reports the accuracy.

# %%
TORCH_SCRIPT = '''\
# Trains a small classifier on batch.npz, from the weights in initial_state.pt.
import numpy as np
import torch
from torch import nn

STEPS = 100
batch = np.load("batch.npz")
x = torch.from_numpy(batch["x"])
y = torch.from_numpy(batch["y"])


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


model = Mlp()
model.load_state_dict(torch.load("initial_state.pt"))
opt = torch.optim.SGD(model.parameters(), lr=0.5)
losses = []
for step in range(STEPS):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    losses.append(loss.item())

model.eval()
with torch.no_grad():
    pred = model(x).argmax(dim=1)
accuracy = (pred == y).float().mean().item()
print(f"final loss {losses[-1]:.4f}, accuracy {accuracy:.3f}")
'''

rng = np.random.default_rng(0)
x_np = rng.standard_normal((64, 4)).astype(np.float32)
np.savez(FOLDER / "batch.npz", x=x_np, y=(x_np[:, 0] + x_np[:, 1] > 0) + (x_np[:, 2] > 0.5).astype(np.int64))
torch.manual_seed(0)
layers = {"fc1": torch.nn.Linear(4, 16), "fc2": torch.nn.Linear(16, 3)}
initial_state = {f"{name}.{key}": value
                 for name, layer in layers.items() for key, value in layer.state_dict().items()}
torch.save(initial_state, FOLDER / "initial_state.pt")
(FOLDER / "train_torch.py").write_text(TORCH_SCRIPT, encoding="utf-8")

# %% [markdown]
# ## What the checker says before the port

# %%
before_status = run_checker("train_torch.py")

# %% [markdown]
# ## The port, one step per catalog entry
# Each step replaces PyTorch lines with their burn_torch form (the entry's "how to port"). The
# checker's count drops when a step removes the idiom it detects; it stays when what the step
# changes is not yet a burn_torch value (the batch becomes one in step 1, the model in step 2);
# and it rises where a new burn_torch value first meets torch code (the batch given to
# `F.cross_entropy` after step 1, the model's parameters given to `torch.optim.SGD` after step
# 4): `mixing_torch_tensors` reports each meeting until a later step ports that code.

# %%
class Step(NamedTuple):
    entries: tuple[str, ...]  # the catalog entries the step resolves
    edits: tuple[tuple[str, str], ...]  # (PyTorch text, burn_torch text), each found exactly once


STEPS = [
    Step(("tensor_constructor", "from_data_copies"), (
        ("from torch import nn\n", "from torch import nn\n\nfrom burn_torch import Device, Tensor\n"),
        ('x = torch.from_numpy(batch["x"])\ny = torch.from_numpy(batch["y"])\n',
         'device = Device.cpu().autodiff()\nx = Tensor.from_data(batch["x"], device)\n'
         'y = Tensor.from_data(batch["y"], device)\n'))),
    Step(("linear_weight_layout", "module_constructor_arguments"), (
        ("from torch import nn\n", ""),
        ("from burn_torch import Device, Tensor\n",
         "from burn_torch import Device, Tensor, nn\nfrom burn_torch.module import Module\n"),
        ("class Mlp(nn.Module):\n    def __init__(self):\n",
         "class Mlp(Module):\n    def __init__(self, device):\n"),
        ("nn.Linear(4, 16)\n", "nn.LinearConfig(4, 16).init(device)\n"),
        ("nn.Linear(16, 3)\n", "nn.LinearConfig(16, 3).init(device)\n"),
        ("model = Mlp()\n", "model = Mlp(device)\n"))),
    Step(("module_call",), (
        ("return self.fc2(torch.relu(self.fc1(x)))", "return self.fc2.forward(nn.relu(self.fc1.forward(x)))"),
        ("losses = []\n", "loss_fn = nn.CrossEntropyLossConfig().init(device)\nlosses = []\n"),
        ("nn.functional.cross_entropy(model(x), y)", "loss_fn.forward(model.forward(x), y)"),
        ("pred = model(x)", "pred = model.forward(x)"))),
    Step(("load_state_dict",), (
        ("from burn_torch import Device, Tensor, nn\n",
         "from burn_torch import Device, Tensor, nn\nfrom burn_torch.compat import load_torch_state_dict\n"),
        ('model = Mlp(device)\nmodel.load_state_dict(torch.load("initial_state.pt"))\n',
         'model, _ = load_torch_state_dict(Mlp(device), torch.load("initial_state.pt"))\n'))),
    Step(("no_zero_grad",), (
        ("    opt.zero_grad()\n", ""),)),
    Step(("backward_returns_container",), (
        ("from burn_torch.module import Module\n",
         "from burn_torch.module import Module\nfrom burn_torch.optim import GradientsParams\n"),
        ("    loss.backward()\n", "    grads = GradientsParams.from_grads(loss.backward(), model)\n"))),
    Step(("optimizer_step_returns_module", "parameters_iteration"), (
        ("import GradientsParams\n", "import GradientsParams, SgdConfig\n"),
        ("opt = torch.optim.SGD(model.parameters(), lr=0.5)\n", "opt = SgdConfig().init()\n"),
        ("    opt.step()\n", "    model = opt.step(0.5, model, grads)\n"))),
    Step(("renamed_methods", "reductions_return_shape_1"), (
        ("losses.append(loss.item())", "losses.append(loss.into_scalar())"),
        (".float().mean().item()", ".float().mean().into_scalar()"))),
    Step(("eval_is_valid", "no_grad_has_no_effect"), (
        ("model.eval()\nwith torch.no_grad():\n    pred = model.forward(x)",
         "model_valid = model.valid()\npred = model_valid.forward(x.without_autodiff())"),)),
    Step(("argmax_keeps_dim",), (
        (".argmax(dim=1)", ".argmax(1).squeeze_dim(1)"),)),
    Step(("comparison_operators",), (
        ("(pred == y)", "pred.equal(y)"),)),
]


def apply(source: str, step: Step) -> str:
    """``source`` with the step's edits made. Raises ValueError when a PyTorch text is not
    found exactly once."""
    for old, new in step.edits:
        if source.count(old) != 1:
            raise ValueError(f"{step.entries}: {old!r} occurs {source.count(old)} times")
        source = source.replace(old, new)
    return source


source = TORCH_SCRIPT
for number, step in enumerate(STEPS, 1):
    heading(f"step {number}: {', '.join(step.entries)}")
    for entry_id in step.entries:
        e = entry(entry_id)
        print(f"{e.id} ({'⚠ silent' if e.silent else 'loud'}): {e.what}")
    torch_lines, burn_lines = list[str](), list[str]()
    for old, new in step.edits:
        old_lines, new_lines = old.rstrip("\n").splitlines(), new.rstrip("\n").splitlines() or ["(deleted)"]
        rows = max(len(old_lines), len(new_lines))
        separator = ["···"] if torch_lines else []
        torch_lines += separator + old_lines + [""] * (rows - len(old_lines))
        burn_lines += separator + new_lines + [""] * (rows - len(new_lines))
    columns(torch_lines, burn_lines)
    ported = apply(source, step)
    print(f"checker: {len(findings(source))} findings before this step, {len(findings(ported))} after")
    source = ported
BURN_SCRIPT = source.replace("Trains a small classifier", "Trains a small classifier with burn_torch")
(FOLDER / "train_burn_torch.py").write_text(BURN_SCRIPT, encoding="utf-8")

# %% [markdown]
# ## What the checker says after the port
# The checker knows which values are burn_torch's: `loss.backward()` whose gradients go to
# `GradientsParams`, the squeezed `argmax` and the `mean()` read with `into_scalar()` are the
# entries' recipes, not PyTorch idioms, so nothing is left to report and it exits 0.

# %%
after_status = run_checker("train_burn_torch.py")
resolved = {entry_id for step in STEPS for entry_id in step.entries}
assert {f.entry.id for f in findings(TORCH_SCRIPT)} <= resolved, "a PyTorch finding has no step"
assert {f.entry.id for f in findings(BURN_SCRIPT)} <= resolved, "the port has an unresolved finding"
print(f"every finding before the port is resolved by a step ({len(findings(TORCH_SCRIPT))} findings, "
      f"{len(resolved)} catalog entries)")

# %% [markdown]
# ## Both scripts, the same data, the same initial weights

# %%
with working_directory(FOLDER):
    print("$ python train_torch.py")
    torch_run = runpy.run_path("train_torch.py")
    print("$ python train_burn_torch.py")
    burn_run = runpy.run_path("train_burn_torch.py")

heading("trained weights")
agreement = Agreement(tol=1e-5)
agreement.add("trained weights", compare_table(
    "train_torch.py", {k: v.detach() for k, v in torch_run["model"].state_dict().items()},
    "train_burn_torch.py", to_torch_state_dict(burn_run["model"]), 1e-5))
agreement.check("loss at every step", torch_run["losses"], burn_run["losses"])
agreement.check("accuracy", torch_run["accuracy"], burn_run["accuracy"])
agreement.report("the port trains the same model as the PyTorch script")
