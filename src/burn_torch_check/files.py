"""Which files a run checks: the files named, and the Python files and notebooks under the
directories named, less what a linter should never walk into.

Under a directory the walk skips ``DEFAULT_EXCLUDES`` (virtual environments, build output,
caches, version-control metadata) and whatever the ``.gitignore`` files between the directory
and the file ignore (read with ``pathspec``, git's own pattern rules); ``exclude`` globs from
the configuration apply to every file. A file named explicitly is always checked unless an
``exclude`` glob matches it.
"""
from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Iterable, Iterator, Sequence

#: Directory names never walked into (a virtual environment holds thousands of third-party files).
DEFAULT_EXCLUDES = frozenset({".venv", "venv", ".git", ".hg", ".svn", "build", "dist", ".tox",
                              ".nox", "__pycache__", ".eggs", ".mypy_cache", ".pytest_cache",
                              ".ruff_cache", ".ipynb_checkpoints", "node_modules", "site-packages"})
SUFFIXES = (".py", ".ipynb")


def _gitignore(directory: Path):
    """The ``.gitignore`` of ``directory`` as a pathspec matcher, or None."""
    path = directory / ".gitignore"
    if not path.is_file():
        return None
    import pathspec  # only directory walks need it
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _walk(top: Path) -> Iterator[Path]:
    """The Python files and notebooks under ``top``, in sorted order, pruning excluded and
    ignored directories before entering them."""
    specs: list[tuple[Path, object]] = []
    for parent in [top, *top.parents]:  # .gitignore files above the walk apply too
        spec = _gitignore(parent)
        if spec is not None:
            specs.append((parent, spec))
        if (parent / ".git").exists():
            break

    def ignored(path: Path, is_dir: bool) -> bool:
        for base, spec in specs:
            try:
                rel = path.relative_to(base).as_posix()
            except ValueError:
                continue
            if spec.match_file(rel + "/" if is_dir else rel):
                return True
        return False

    for directory, dirnames, filenames in os.walk(top):
        here = Path(directory)
        spec = _gitignore(here) if here != top else None
        if spec is not None:
            specs.append((here, spec))
        dirnames[:] = sorted(d for d in dirnames if d not in DEFAULT_EXCLUDES
                             and not d.endswith(".egg-info") and not ignored(here / d, True))
        for name in sorted(filenames):
            path = here / name
            if name.endswith(SUFFIXES) and not ignored(path, False):
                yield path


def source_files(paths: Iterable[str], exclude: Sequence[str] = (), root: Path | None = None) -> list[Path]:
    """The files named, and the ``*.py`` and ``*.ipynb`` files under the directories named, in
    order, less those an ``exclude`` glob matches (relative to ``root``, or by file name)."""
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(_walk(p) if p.is_dir() else [p])
    if not exclude:
        return files

    def excluded(f: Path) -> bool:
        rel = f.resolve()
        if root is not None:
            try:
                rel = rel.relative_to(root.resolve())
            except ValueError:
                pass
        return any(fnmatch.fnmatch(str(rel), pattern) or fnmatch.fnmatch(f.name, pattern)
                   for pattern in exclude)
    return [f for f in files if not excluded(f)]
