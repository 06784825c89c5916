"""Jupyter notebooks: their code cells as one Python source, and each line's cell.

The cells are checked together (a model built in one cell and trained in another is followed
across them). IPython's magics and shell escapes (``%time``, ``!pip``, ``%%bash`` cells) are not
Python: their lines become blank comment lines, so line numbers still map back to the cell.
A finding's place is written ``notebook.ipynb:cell_N:LINE:COL`` (cells counted from 1, code
and markdown alike, as Jupyter shows them), the convention of nbQA.
"""
from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class NotebookSource:
    """The code of a notebook and, for each of its lines, (cell number, line in the cell)."""

    text: str
    places: tuple[tuple[int, int], ...]

    def place(self, line: int) -> tuple[int, int]:
        """The (cell, line in cell) of line ``line`` (1-based) of ``text``."""
        return self.places[line - 1]


def _python_line(line: str, cell_magic: bool) -> str:
    stripped = line.lstrip()
    if cell_magic or stripped.startswith(("%", "!")) or stripped.endswith("?") and not stripped.startswith("#"):
        return "#"
    return line


def read_notebook(raw: str) -> NotebookSource:
    """The code cells of the notebook JSON ``raw``. Raises ValueError for a file that is not a
    notebook (invalid JSON, no ``cells`` list)."""
    try:
        nb = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not a notebook: {exc}") from None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a notebook: no 'cells' list")
    lines: list[str] = []
    places: list[tuple[int, int]] = []
    for number, cell in enumerate(cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        cell_lines = source.splitlines() or [""]
        cell_magic = cell_lines[0].lstrip().startswith("%%")
        for i, line in enumerate(cell_lines, start=1):
            lines.append(_python_line(line, cell_magic))
            places.append((number, i))
    return NotebookSource("\n".join(lines) + "\n", tuple(places))
