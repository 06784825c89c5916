"""The catalog of PyTorch → burn_torch divergences, machine-readable and torch-free.

The entries themselves are executable files under the repository's ``compat/`` directory (see
``burn_torch.compat.entry``); ``python -m burn_torch.compat.guide`` writes their metadata to
``burn_torch_check/catalog.json`` (next to this module), and a test keeps that file equal to
what the entries say.
The porting checker and the migration guide read the catalog through this module (re-exported
as [`burn_torch.compat.catalog`][burn_torch.compat.catalog]), so an installed package needs no
checkout, and reading it imports neither torch nor burn_torch.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path


CATALOG_JSON = Path(__file__).with_name("catalog.json")

#: Guide sections in the order a port proceeds: (category, title, guide file).
SECTIONS: tuple[tuple[str, str, str], ...] = (
    ("tensors", "Tensors", "1-tensors.md"),
    ("autodiff", "Autodiff", "2-autodiff.md"),
    ("training", "The training loop", "3-training-loop.md"),
    ("modules", "Modules and weights", "4-modules-and-weights.md"),
    ("evaluation", "Evaluation and inference", "5-evaluation.md"),
    ("testing", "Testing your port against PyTorch", "6-testing-against-torch.md"),
)


@dataclass(frozen=True)
class CatalogEntry:
    """One divergence: ``severity`` is ``"silent"`` (the same code runs and gives different
    results) or ``"loud"`` (the same code raises); ``what`` and ``recipe`` are one line each;
    ``detectors`` name the porting checker's detectors that find the PyTorch idiom; ``code`` is
    the checker's stable ``BTnnn`` code (assigned once, see ``burn_torch_check.codes``)."""

    id: str
    title: str
    category: str
    severity: str
    what: str
    why: str
    recipe: str
    detectors: tuple[str, ...]
    code: str = field(default="", kw_only=True)

    @classmethod
    def from_dict(cls, fields: dict) -> "CatalogEntry":
        """The entry for one ``catalog.json`` record (what ``SourceEntry.metadata()`` returns)."""
        return cls(**{**fields, "detectors": tuple(fields["detectors"])})

    @property
    def silent(self) -> bool:
        return self.severity == "silent"

    def guide_link(self) -> str:
        """The entry's place in the migration guide, relative to ``migration_guide/``."""
        return f"{section_file(self.category)}#{self.id}"


def section_file(category: str) -> str:
    """The guide file of ``category``. Raises KeyError for an unknown category."""
    return {c: f for c, _, f in SECTIONS}[category]


@lru_cache(maxsize=1)
def catalog() -> tuple[CatalogEntry, ...]:
    """Every entry, in guide order (section, then the order the section's guide lists them)."""
    raw = json.loads(CATALOG_JSON.read_text(encoding="utf-8"))
    return tuple(CatalogEntry.from_dict(e) for e in raw)


def entry(entry_id: str) -> CatalogEntry:
    """The entry with ``entry_id``. Raises KeyError when there is none."""
    for e in catalog():
        if e.id == entry_id:
            return e
    raise KeyError(f"no catalog entry {entry_id!r}")
