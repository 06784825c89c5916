"""``[tool.burn-torch-check]`` in a project's ``pyproject.toml``.

Keys: ``select`` and ``ignore`` (lists of codes, code prefixes, entry ids, ``silent``/``loud``),
``exclude`` (glob patterns of paths not to check, matched against each file's path relative to
the directory holding ``pyproject.toml``), ``format`` (``text``, ``json`` or ``github``) and
``exit-zero`` (a bool). Command-line options override them.
"""
from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

SECTION = "burn-torch-check"
FORMATS = ("text", "json", "github")


class ConfigError(ValueError):
    """A ``[tool.burn-torch-check]`` table with an unknown key or a value of the wrong type."""


@dataclass(frozen=True)
class Config:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    format: str | None = None
    exit_zero: bool = False
    root: Path | None = field(default=None)  # the directory holding the pyproject.toml read


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` that has a ``[tool.burn-torch-check]``
    table, else None."""
    start = start.resolve()
    for directory in [start, *start.parents] if start.is_dir() else start.parents:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError):
                continue
            if SECTION in data.get("tool", {}):
                return candidate
    return None


def load_config(path: Path | None) -> Config:
    """The settings of the ``[tool.burn-torch-check]`` table of ``path`` (defaults for None).

    Raises ConfigError for an unknown key, a value of the wrong type or an unknown format."""
    if path is None:
        return Config()
    table = tomllib.loads(path.read_text(encoding="utf-8"))["tool"][SECTION]
    known = {"select", "ignore", "exclude", "format", "exit-zero"}
    unknown = set(table) - known
    if unknown:
        raise ConfigError(f"{path}: unknown [tool.{SECTION}] keys: {', '.join(sorted(unknown))} "
                          f"(known: {', '.join(sorted(known))})")
    lists = {}
    for key in ("select", "ignore", "exclude"):
        value = table.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be a list of strings")
        lists[key] = tuple(value)
    fmt = table.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise ConfigError(f"{path}: [tool.{SECTION}] format must be one of {', '.join(FORMATS)}")
    exit_zero = table.get("exit-zero", False)
    if not isinstance(exit_zero, bool):
        raise ConfigError(f"{path}: [tool.{SECTION}] exit-zero must be true or false")
    return Config(lists["select"], lists["ignore"], lists["exclude"], fmt, exit_zero, path.parent)
