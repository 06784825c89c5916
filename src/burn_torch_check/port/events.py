"""What the translator records and returns: an ``Event`` per place it acted on, the
``Translation`` of a source, and ``Left``, which a rule raises for a place it leaves as
written (marked). Torch-free."""
from __future__ import annotations

from dataclasses import dataclass, field

MARK = "# burn-torch-port:"


@dataclass(frozen=True)
class Event:
    """One place the translator acted on: ``line`` of the original, ``kind`` ``translated`` or
    ``left``, the row (None for a torch call without a row) and, for a left place, the reason."""

    line: int
    kind: str
    row: str | None
    reason: str = ""
    code: str = ""


@dataclass
class Translation:
    """The port of one source: the original ``source``, the port's ``code`` and the events."""

    source: str
    code: str
    events: list[Event] = field(default_factory=list)


class Left(Exception):
    """Raised by a rule: the place stays as it was, marked with ``row``'s code and ``why``."""

    def __init__(self, row: str | None, why: str = "") -> None:
        super().__init__(why)
        self.row, self.why = row, why
