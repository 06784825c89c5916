"""Shape: a tensor's dimensions, as Burn's ``Shape``."""
from __future__ import annotations


class Shape:
    """Immutable list of dimension sizes; compares equal to lists and tuples of the same sizes."""

    __slots__ = ("dims",)

    def __init__(self, dims) -> None:
        self.dims = [int(d) for d in dims]

    def num_elements(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n

    def num_dims(self) -> int:
        return len(self.dims)

    def __len__(self) -> int:
        return len(self.dims)

    def __getitem__(self, i):
        return self.dims[i]

    def __iter__(self):
        return iter(self.dims)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Shape):
            return self.dims == other.dims
        if isinstance(other, (list, tuple)):
            return self.dims == list(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self.dims))

    def __repr__(self) -> str:
        return f"Shape({self.dims})"
