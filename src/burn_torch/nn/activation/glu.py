"""Burn's ``GLU`` layer (gated linear unit along one dim)."""
from __future__ import annotations

from ...functional import activation as act
from ...module import Module, module_fields
from ...tensor import Tensor


@module_fields
class GLU(Module):
    """Gated linear unit along ``dim`` (Burn's ``GLU::new(dim)``): the first half of the input
    times the sigmoid of the second half; ``dim``'s size is halved."""

    dim: int

    def forward(self, input: Tensor) -> Tensor:
        return act.glu(input, self.dim)

    def __repr__(self) -> str:
        return f"GLU {{dim: {self.dim}}}"
