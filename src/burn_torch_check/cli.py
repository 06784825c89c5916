"""``burn-torch-check``: the porting checker's command line (no torch import).

``burn-torch-check PATH...`` (``python -m burn_torch_check``; ``-`` reads stdin) prints one
line per finding, ``path:line:col: BTnnn entry_id: what differs → how to port``, then a summary.
Options: ``--format text|json|github``, ``--select``/``--ignore`` (codes, code prefixes, entry
ids, ``silent``, ``loud``), ``--exit-zero``, ``--fix`` (rewrite what is certain, see
``burn_torch_check.fix``), ``--stdin-filename``. Settings may also live in
``[tool.burn-torch-check]`` of the nearest ``pyproject.toml`` (``burn_torch_check.config``).

Exit status: 0 when nothing was found (or ``--exit-zero``), 1 when findings remain, 2 for a
usage error (a bad option, an unknown code, a bad configuration, a file that cannot be read or
parsed).
"""
from __future__ import annotations

import argparse
import fnmatch
import sys
from pathlib import Path
from typing import Iterable, Sequence

from .check import Finding, Selection, check_source
from .config import FORMATS, ConfigError, find_pyproject, load_config
from .report import render

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _tokens(values: Iterable[str] | None) -> list[str]:
    return [t.strip() for v in (values or ()) for t in v.split(",") if t.strip()]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="burn-torch-check",
                                description="Find PyTorch idioms that behave differently in burn_torch.")
    p.add_argument("paths", nargs="+", metavar="PATH", help="Python files or directories; - for stdin")
    p.add_argument("--format", choices=FORMATS, help="output format (default: text)")
    p.add_argument("--select", action="append", metavar="CODES",
                   help="report only these codes, code prefixes, entry ids, silent or loud")
    p.add_argument("--ignore", action="append", metavar="CODES", help="do not report these")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    p.add_argument("--fix", action="store_true", help="apply the certain rewrites (libcst)")
    p.add_argument("--stdin-filename", default="-", metavar="NAME",
                   help="the name to report for stdin")
    return p


def python_files(paths: Iterable[str], exclude: Sequence[str] = (), root: Path | None = None) -> list[Path]:
    """The files named, and the ``*.py`` files under the directories named, in order, less
    those matching an ``exclude`` glob (relative to ``root``)."""
    files: list[Path] = []
    for p in map(Path, paths):
        files.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
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


def _check_one(text: str, name: str, selection: Selection, fix: bool) -> tuple[list[Finding], str | None]:
    findings = check_source(text, name, selection=selection)
    if not fix or not any(f.fix for f in findings):
        return findings, None
    from .fix import fix_source
    new_text, _ = fix_source(text, findings)
    return check_source(new_text, name, selection=selection), new_text


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the checker; returns the exit status (see the module docstring)."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse's usage errors (and --help)
        return EXIT_USAGE if exc.code else EXIT_CLEAN
    try:
        start = Path(args.paths[0]) if args.paths[0] != "-" else Path.cwd()
        config = load_config(find_pyproject(start if start.exists() else Path.cwd()))
        selection = Selection(_tokens(args.select) or config.select or ("ALL",),
                              [*config.ignore, *_tokens(args.ignore)])
    except (ConfigError, ValueError) as exc:
        print(f"burn-torch-check: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    fmt = args.format or config.format or "text"
    findings: list[Finding] = []
    status = EXIT_CLEAN
    n_files = 0
    stdin_output = None
    for raw in args.paths:
        targets = [None] if raw == "-" else python_files([raw], config.exclude, config.root)
        for path in targets:
            name = args.stdin_filename if path is None else str(path)
            try:
                text = sys.stdin.read() if path is None else path.read_text(encoding="utf-8")
                found, new_text = _check_one(text, name, selection, args.fix)
            except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as exc:
                print(f"{name}: cannot check: {exc}", file=sys.stderr)
                status = EXIT_USAGE
                continue
            n_files += 1
            findings += found
            if new_text is not None:
                if path is None:
                    stdin_output = new_text
                else:
                    path.write_text(new_text, encoding="utf-8")
    if stdin_output is not None:  # --fix on stdin writes the fixed source, like formatters do
        sys.stdout.write(stdin_output)
        print(render(fmt, findings, n_files), file=sys.stderr)
    else:
        out = render(fmt, findings, n_files)
        if out:
            print(out)
    if status:
        return status
    return EXIT_FINDINGS if findings and not (args.exit_zero or config.exit_zero) else EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
