"""The checker's stable ``BTnnn`` codes, one per catalog entry.

A code is assigned once, when an entry first appears, and never changes: ``compat/_codes.json``
(in the repository) records every code ever assigned, and the guide generator copies each
entry's code into ``catalog.json``. The hundreds digit is the entry's guide section when the code
was assigned (BT1xx tensors, BT2xx autodiff, BT3xx training, BT4xx modules, BT5xx evaluation,
BT6xx testing); a new entry takes the next free number of its section.
"""
from __future__ import annotations

import re
from typing import Iterable

from .catalog import SECTIONS

CODE = re.compile(r"^BT[1-9][0-9]{2}$")


def section_base(category: str) -> int:
    """100 for the first guide section, 200 for the second... Raises KeyError for an unknown one."""
    return 100 * (1 + [c for c, _, _ in SECTIONS].index(category))


def assign_codes(entries: Iterable[tuple[str, str]], registry: dict[str, str]) -> dict[str, str]:
    """``registry`` (entry id → code) extended with a code for each new ``(id, category)``.

    Existing codes are kept, also for entries no longer present (a code is never reused).
    Raises ValueError for a malformed or duplicated code in ``registry`` and when a section has
    run out of its 99 codes."""
    codes = dict(registry)
    seen = set()
    for entry_id, code in codes.items():
        if not CODE.match(code) or code in seen:
            raise ValueError(f"bad or duplicated code {code!r} for {entry_id!r}")
        seen.add(code)
    for entry_id, category in entries:
        if entry_id in codes:
            continue
        base = section_base(category)
        used = [int(c[2:]) for c in codes.values() if base < int(c[2:]) < base + 100]
        number = max(used, default=base) + 1
        if number >= base + 100:
            raise ValueError(f"section {category!r} has no free code left")
        codes[entry_id] = f"BT{number}"
    return codes
