"""Burn's ``Identity`` layer."""
from __future__ import annotations

from typing import Any

from ..module import Module


class Identity(Module):
    """Returns its input unchanged (Burn's ``Identity::new()``)."""

    def forward(self, input: Any) -> Any:
        return input

    def __repr__(self) -> str:
        return "Identity"
