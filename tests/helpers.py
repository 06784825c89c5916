"""What several test modules share: the devices and strategies they run on, random leaves, and
seed 003's 4 -> 8 -> 3 MLP on both sides (burn_torch and PyTorch, with the same parameter names).

Test modules import it by name (``from helpers import AD, Mlp``): pytest puts ``tests/`` on the
import path, as there is no ``tests/__init__.py``. Shared fixtures live in ``conftest.py``.
"""
from __future__ import annotations

import torch

from burn_torch import Device, GradientCheckpointingStrategy, Tensor, nn
from burn_torch.module import Module

CPU = Device.cpu()
AD = CPU.autodiff()
CK = AD.gradient_checkpointing()
DISABLED = GradientCheckpointingStrategy.DISABLED
BALANCED = GradientCheckpointingStrategy.BALANCED


def randn_leaf(generator: torch.Generator, *shape: int) -> Tensor:
    """A leaf on ``AD`` that requires grad, standard-normal values of ``shape`` drawn from
    ``generator``."""
    return Tensor.from_data(torch.randn(*shape, generator=generator), AD).require_grad()


class Mlp(Module):
    """Seed 003's MLP: ``fc1`` (4 -> 8), relu, ``fc2`` (8 -> 3)."""

    def __init__(self, device: Device) -> None:
        super().__init__()
        self.fc1 = nn.LinearConfig(4, 8).init(device)
        self.fc2 = nn.LinearConfig(8, 3).init(device)

    def forward(self, x: Tensor) -> Tensor:
        return self.fc2.forward(nn.relu(self.fc1.forward(x)))


class TorchMlp(torch.nn.Module):
    """:class:`Mlp` in PyTorch, the same names (weights in PyTorch's ``[out, in]`` layout)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))
