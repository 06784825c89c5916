"""ParamId: a parameter's identity (Burn's ``ParamId``), shared by modules, optimizers and
the distributed marking of leaves."""
from __future__ import annotations

import os


class ParamId(int):
    """A parameter's identity: optimizers and gradient containers key their entries by it.

    Ids are random 64-bit values (as Burn's), so ids loaded from a file do not collide with ids
    created in this process. Equal ids compare and hash equal; an id never equals a plain int
    (``ParamId(5) != 5``) or another type. ``str(id)`` / ``ParamId.parse`` round-trip.

    It is an ``int`` underneath so that dictionaries keyed by ids (every optimizer step looks
    each parameter up several times) hash them in C rather than through a Python method.
    """

    __slots__ = ()

    def __new__(cls, value: int) -> "ParamId":
        """The id ``value``; ValueError outside the unsigned 64-bit range."""
        value = int(value)
        if not 0 <= value < 2 ** 64:
            raise ValueError(f"a ParamId is an unsigned 64-bit value, got {value}")
        return int.__new__(cls, value)

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
        """The id as a plain integer."""
        return int(self)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ParamId) and int.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not (isinstance(other, ParamId) and int.__eq__(self, other))

    __hash__ = int.__hash__  # the C slot itself (defining __eq__ would otherwise unset it)

    def __bool__(self) -> bool:
        return True  # an id, not a number: ParamId(0) is as truthy as any other

    def __str__(self) -> str:
        return f"{int(self):016x}"

    def __repr__(self) -> str:
        return f"ParamId({self})"

    def __reduce__(self):
        return (ParamId, (int(self),))
