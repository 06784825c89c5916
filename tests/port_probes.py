"""Programs around the mapping table's examples: the context each row's example is translated
in (``tests/test_port_table.py``) and the probe models the mutation test verifies
(``tests/test_port_mutations.py``)."""
from __future__ import annotations

import textwrap

START, END = "# <example>", "# </example>"

_HEADER = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim.lr_scheduler import StepLR
"""

_MODULE = _HEADER + """
class Block(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(n, n)

    def forward(self, x):
        return self.fc(x)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.scale = nn.Parameter(torch.ones(4))
        self.rnn = nn.LSTM(4, 4)
        self.bias = nn.Parameter(torch.zeros(4)) if True else None
        {example}

    def forward(self, x):
        {forward}
"""

#: A model with one Linear layer, built as ``model``.
_NET = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


model = Net()
"""

#: The training probe's setup: the model, SGD with a step schedule and a loss.
TRAINING_SETUP = _NET + """optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=1, gamma=0.5)
criterion = nn.MSELoss()
"""

_LOOP = _HEADER + TRAINING_SETUP + "{example}\n"


def _block(lines: str, indent: int) -> str:
    return textwrap.indent(f"{START}\n{lines}\n{END}", " " * indent).lstrip()


def context(section: str, example: str) -> str:
    """A program whose marked lines are ``example``, in the place its ``section`` belongs."""
    if section == "module":
        return _MODULE.format(example=_block(example, 8), forward="return x")
    if section in ("forward", "loss"):
        return _MODULE.format(example="", forward=_block(example, 8) + "\n        return x")
    return _LOOP.format(example=_block(example, 0))


def marked(code: str) -> str:
    """The lines between the example markers of ``code`` (a translation of a context), dedented,
    without the translator's own comments."""
    inside = code.split(START, 1)[1].split(END, 1)[0]
    lines = [l for l in textwrap.dedent(inside).strip("\n").splitlines()
             if not l.strip().startswith("#")]
    return "\n".join(l.rstrip() for l in lines).strip()


# ------------------------------------------------------------------------ mutation probes ----
#: probe → (the model program, with {example}; the input batch expression, evaluated with torch)
PROBE_MODELS: dict[str, tuple[str, str]] = {
    "dense": ("""
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        x = self.fc(x)
        {example}
        return y
""", "torch.randn(2, 3, 4, generator=generator)"),
    "index": ("""
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        x = self.fc(x)
        {example}
        return y.float() + x.mean()
""", "torch.randn(2, 3, 4, generator=generator)"),
    "parameter": ("""
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.scale = nn.Parameter(torch.rand(4) + 0.5)

    def forward(self, x):
        x = self.fc(x)
        {example}
        return y
""", "torch.randn(2, 4, generator=generator)"),
    "image": ("""
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding=1)

    def forward(self, x):
        x = self.conv(x)
        {example}
        return y
""", "torch.randn(2, 1, 8, 8, generator=generator)"),
}

#: probe → (the input batch expression, the forward body) for a layer row: the example defines
#: the layer as ``self.<field>`` in ``__init__``
LAYER_PROBES: dict[str, tuple[str, str, str]] = {
    "linear": ("torch.randn(2, 4, generator=generator)", "nn.Linear(4, 4)", "return self.{field}(self.pre(x))"),
    "conv1d": ("torch.randn(2, 2, 8, generator=generator)", "nn.Conv1d(2, 2, 1)", "return self.{field}(self.pre(x))"),
    "conv2d": ("torch.randn(2, 1, 8, 8, generator=generator)", "nn.Conv2d(1, 1, 1)",
               "return self.{field}(self.pre(x))"),
    "image4": ("torch.randn(2, 4, 5, 5, generator=generator)", "nn.Conv2d(4, 4, 1)",
               "return self.{field}(self.pre(x))"),
    "embedding": ("torch.randint(0, 10, (2, 3), generator=generator)", "nn.Identity()", "return self.{field}(x)"),
    "lstm": ("torch.randn(5, 2, 4, generator=generator)", "nn.Identity()",
             "out, _ = self.{field}(x)\n        return out"),
    "sequential": ("torch.randn(2, 4, generator=generator)", "nn.Identity()", "return self.{field}(x)"),
    "module_list": ("torch.randn(2, 4, generator=generator)", "nn.Identity()",
                    "for block in self.{field}:\n            x = block(x)\n        return x"),
    "scale": ("torch.randn(2, 4, generator=generator)", "nn.Linear(4, 4)", "return self.pre(x) * self.{field}"),
}

LAYER_MODEL = """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.pre = {pre}
        {example}

    def forward(self, x):
        {forward}
"""

LOSS_PROGRAM = """
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        return self.fc(x)


def loss_fn(x, t):
    {example}
    return loss
"""

OPTIMIZER_PROGRAM = _NET + "{example}\n"

#: The training probe: a loop over three batches with SGD and a step schedule. The translated
#: loop must end with the weights torch's loop ends with.
TRAINING_LOOP = """
for x, y in train_loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    scheduler.step()
"""


def layer_field(example: str) -> str:
    return example.split("=", 1)[0].strip().removeprefix("self.")


def probe_program(row) -> tuple[str, str]:
    """(the torch program, the input batch expression) that exercises ``row``."""
    if row.probe in PROBE_MODELS:
        body, inputs = PROBE_MODELS[row.probe]
        return _HEADER + body.replace("{example}", row.example), inputs
    inputs, pre, forward = LAYER_PROBES[row.probe]
    body = LAYER_MODEL.replace("{example}", row.example).replace("{pre}", pre).replace(
        "{forward}", forward.replace("{field}", layer_field(row.example)))
    return _HEADER + body, inputs
