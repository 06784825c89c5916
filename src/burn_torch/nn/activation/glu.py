"""Burn's ``GLU`` layer (gated linear unit along one dim)."""
from __future__ import annotations

from ...functional import activation as act
from ...module import Module
from ...tensor import Tensor


class GLU(Module):
    """Gated linear unit along ``dim`` (Burn's ``GLU::new(dim)``): the first half of the input
    times the sigmoid of the second half; ``dim``'s size is halved."""

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return act.glu(input, self.dim)

    def __repr__(self) -> str:
        return f"GLU {{dim: {self.dim}}}"
