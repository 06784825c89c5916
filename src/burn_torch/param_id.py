"""ParamId: a parameter's identity (Burn's ``ParamId``), shared by modules, optimizers and
the distributed marking of leaves."""
from __future__ import annotations

import os


class ParamId:
    """A parameter's identity: optimizers and gradient containers key their entries by it.

    Ids are random 64-bit values (as Burn's), so ids loaded from a file do not collide with ids
    created in this process. Equal ids compare and hash equal; ``str(id)`` / ``ParamId.parse``
    round-trip.
    """

    __slots__ = ("_value",)

    def __init__(self, value: int) -> None:
        value = int(value)
        if not 0 <= value < 2 ** 64:
            raise ValueError(f"a ParamId is an unsigned 64-bit value, got {value}")
        self._value = value

    @classmethod
    def new(cls) -> "ParamId":
        """A fresh random id."""
        return cls(int.from_bytes(os.urandom(8), "little"))

    @classmethod
    def parse(cls, text: str) -> "ParamId":
        """The id whose ``str()`` is ``text``; ValueError if ``text`` is not one."""
        try:
            return cls(int(text, 16))
        except (TypeError, ValueError):
            raise ValueError(f"{text!r} is not a ParamId") from None

    @property
    def val(self) -> int:
        """The id as an integer."""
        return self._value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ParamId) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __lt__(self, other: "ParamId") -> bool:
        return self._value < other._value

    def __str__(self) -> str:
        return f"{self._value:016x}"

    def __repr__(self) -> str:
        return f"ParamId({self})"

    def __reduce__(self):
        return (ParamId, (self._value,))
