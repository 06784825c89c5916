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
        {example}

    def forward(self, x):
        {forward}
"""

_LOOP = _HEADER + """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x)


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = StepLR(optimizer, step_size=1, gamma=0.5)
criterion = nn.MSELoss()
{example}
"""


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
