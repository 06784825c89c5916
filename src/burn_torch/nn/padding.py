"""Burn's ``PaddingConfig1d`` / ``PaddingConfig2d``: how convolutions and pools pad their input.

Each is ``valid()`` (no padding), ``same()`` (the output keeps ``ceil(size / stride)`` entries;
an odd total puts the extra entry at the end, as ONNX and Burn do) or ``explicit(...)``.
``pairs(...)`` returns the ``(start, end)`` padding of each spatial dim for a given input.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


def same_padding(kernel_size: int, stride: int, size_in: int) -> tuple[int, int]:
    """``(start, end)`` padding so that the output has ``ceil(size_in / stride)`` entries."""
    size_out = -(-size_in // stride)
    total = max(0, (size_out - 1) * stride + kernel_size - size_in) if size_out > 0 else 0
    start = total // 2
    return start, total - start


def _non_negative(owner: str, values: Sequence[int]) -> tuple[int, ...]:
    out = tuple(values)
    if any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in out):
        raise ValueError(f"{owner}: explicit padding must be non-negative ints, got {list(out)}")
    return out


@dataclass(frozen=True)
class _Padding:
    kind: str
    explicit_pairs: tuple[tuple[int, int], ...] = ()

    def is_asymmetric(self) -> bool:
        """Whether explicit padding differs between the start and the end of a dim."""
        return any(start != end for start, end in self.explicit_pairs)

    def pairs(self, sizes: Sequence[int], kernel_size: Sequence[int],
              stride: Sequence[int]) -> list[tuple[int, int]]:
        """``(start, end)`` padding of each spatial dim of an input with spatial ``sizes``."""
        if self.kind == "valid":
            return [(0, 0)] * len(sizes)
        if self.kind == "same":
            return [same_padding(k, s, n) for n, k, s in zip(sizes, kernel_size, stride)]
        return list(self.explicit_pairs)

    def __str__(self) -> str:
        if self.kind != "explicit":
            return self.kind.capitalize()
        starts = [p[0] for p in self.explicit_pairs]
        ends = [p[1] for p in self.explicit_pairs]
        return f"Explicit{tuple(starts + ends)}"


@dataclass(frozen=True)
class PaddingConfig1d(_Padding):
    """Padding of a 1-D operator: ``valid()``, ``same()`` or ``explicit(left, right=left)``."""

    @classmethod
    def valid(cls) -> "PaddingConfig1d":
        return cls("valid")

    @classmethod
    def same(cls) -> "PaddingConfig1d":
        return cls("same")

    @classmethod
    def explicit(cls, left: int, right: int | None = None) -> "PaddingConfig1d":
        """``left`` entries before and ``right`` (default ``left``) after; ValueError if negative."""
        left, right = _non_negative("PaddingConfig1d", (left, left if right is None else right))
        return cls("explicit", ((left, right),))


@dataclass(frozen=True)
class PaddingConfig2d(_Padding):
    """Padding of a 2-D operator: ``valid()``, ``same()`` or ``explicit(top, left, bottom=top,
    right=left)`` (Burn's ``Explicit(top, left, bottom, right)``)."""

    @classmethod
    def valid(cls) -> "PaddingConfig2d":
        return cls("valid")

    @classmethod
    def same(cls) -> "PaddingConfig2d":
        return cls("same")

    @classmethod
    def explicit(cls, top: int, left: int, bottom: int | None = None,
                 right: int | None = None) -> "PaddingConfig2d":
        """Explicit padding; ``bottom``/``right`` default to ``top``/``left``. ValueError if negative."""
        top, left, bottom, right = _non_negative("PaddingConfig2d", (
            top, left, top if bottom is None else bottom, left if right is None else right))
        return cls("explicit", ((top, bottom), (left, right)))


@dataclass(frozen=True)
class PaddingConfig3d(_Padding):
    """Padding of a 3-D operator: ``valid()``, ``same()`` or ``explicit(depth, height, width)``
    (Burn's ``Explicit(depth, height, width)``: the same padding on both sides of each dim).
    ``same()`` with an even kernel would pad asymmetrically, which Burn does not support in 3-D:
    [`symmetric`][burn_torch.nn.padding.PaddingConfig3d.symmetric] raises ValueError then."""

    @classmethod
    def valid(cls) -> "PaddingConfig3d":
        return cls("valid")

    @classmethod
    def same(cls) -> "PaddingConfig3d":
        return cls("same")

    @classmethod
    def explicit(cls, depth: int, height: int, width: int) -> "PaddingConfig3d":
        """Symmetric explicit padding per dim; ValueError if negative."""
        values = _non_negative("PaddingConfig3d", (depth, height, width))
        return cls("explicit", tuple((v, v) for v in values))

    def symmetric(self, sizes: Sequence[int], kernel_size: Sequence[int],
                  stride: Sequence[int]) -> list[int]:
        """The padding of each dim (the same at both ends); ValueError for asymmetric ``same``."""
        pairs = self.pairs(sizes, kernel_size, stride)
        if any(start != end for start, end in pairs):
            raise ValueError("Asymmetric 3D 'Same' padding is not supported. Use odd kernel "
                             f"sizes for symmetric padding (kernel {list(kernel_size)}).")
        return [start for start, _ in pairs]
