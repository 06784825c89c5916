"""The flake8 plugin: ``flake8 --select BT`` reports the porting checker's findings.

Registered as the ``BT`` extension (``[project.entry-points."flake8.extension"]``); flake8 handles
``# noqa`` and selection itself, by code.
"""
from __future__ import annotations

import ast
from typing import Iterator

from .check import check_tree


class Plugin:
    """flake8's AST plugin protocol: constructed with the parsed file, ``run()`` yields
    ``(line, column (0-based), "BTnnn message", type)``."""

    name = "burn-torch-check"
    version = "0.1.0"

    def __init__(self, tree: ast.Module, filename: str = "stdin") -> None:
        self.tree = tree
        self.filename = filename

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        for f in check_tree(self.tree, self.filename):
            yield f.line, f.col - 1, f"{f.code} {f.message}", type(self)
