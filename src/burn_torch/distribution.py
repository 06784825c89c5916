"""Random distributions for ``Tensor.random``."""
from __future__ import annotations

import torch


class Distribution:
    """A distribution to sample tensors from: Burn's ``Distribution`` enum.

    Sampling uses the generator of the target torch device, so ``Device.seed`` makes it
    reproducible.
    """

    __slots__ = ("kind", "a", "b")

    def __init__(self, kind: str, a: float = 0.0, b: float = 0.0) -> None:
        self.kind = kind
        self.a = a
        self.b = b

    @classmethod
    def default(cls) -> "Distribution":
        """Uniform on [0, 1)."""
        return cls("uniform", 0.0, 1.0)

    @classmethod
    def uniform(cls, low: float, high: float) -> "Distribution":
        """Uniform on [low, high); raises ValueError unless low < high."""
        if not low < high:
            raise ValueError(f"uniform distribution needs low < high, got [{low}, {high})")
        return cls("uniform", float(low), float(high))

    @classmethod
    def normal(cls, mean: float, std: float) -> "Distribution":
        """Normal with the given mean and standard deviation; raises ValueError if std < 0."""
        if std < 0:
            raise ValueError(f"normal distribution needs std >= 0, got {std}")
        return cls("normal", float(mean), float(std))

    @classmethod
    def bernoulli(cls, p: float) -> "Distribution":
        """1 with probability ``p``, else 0; raises ValueError unless 0 <= p <= 1."""
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"bernoulli distribution needs 0 <= p <= 1, got {p}")
        return cls("bernoulli", float(p))

    def sample(self, shape, dtype: torch.dtype, device: torch.device, gen: torch.Generator) -> torch.Tensor:
        """Draws a tensor of ``shape`` from this distribution."""
        out = torch.empty(shape, dtype=dtype, device=device)
        if self.kind == "uniform":
            return out.uniform_(self.a, self.b, generator=gen)
        if self.kind == "normal":
            return out.normal_(self.a, self.b, generator=gen)
        return out.bernoulli_(self.a, generator=gen)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Distribution) and (self.kind, self.a, self.b) == (other.kind, other.a, other.b)

    def __hash__(self) -> int:
        return hash((self.kind, self.a, self.b))

    def __repr__(self) -> str:
        if self.kind == "bernoulli":
            return f"Distribution.bernoulli({self.a})"
        return f"Distribution.{self.kind}({self.a}, {self.b})"


#: Burn's distributions, as the TypeError for a value that is none of them lists them.
_CONSTRUCTORS = ("Distribution.default() (or 'default'), Distribution.uniform(low, high), "
                 "Distribution.normal(mean, std), Distribution.bernoulli(p)")


def as_distribution(value, op: str) -> Distribution:
    """``value`` if it is a [`Distribution`][burn_torch.distribution.Distribution],
    ``Distribution.default()`` for Burn's name ``"default"`` (any case); raises TypeError listing
    Burn's distributions otherwise (the others need their parameters)."""
    if isinstance(value, Distribution):
        return value
    if isinstance(value, str) and value.lower() == "default":
        return Distribution.default()
    raise TypeError(f"{op}: expected a burn_torch.Distribution, one of {_CONSTRUCTORS}; got {value!r}")
