"""``burn-torch-check``: the porting checker's command line (no torch import).

``burn-torch-check PATH...`` (``python -m burn_torch_check``; ``-`` reads stdin) prints one
line per finding, ``path:line:col: BTnnn entry_id: what differs → how to port``, then a summary.
Directories are walked for ``*.py`` files and notebooks (``*.ipynb``, their code cells), skipping
virtual environments, build output and what ``.gitignore`` ignores (see ``.files``).
Options: ``--format text|json|github``, ``--select``/``--ignore`` (codes, code prefixes, entry
ids, ``silent``, ``loud``), ``--exit-zero``, ``--fix`` (rewrite what is certain, see
``burn_torch_check.fix``), ``--diff`` (show those rewrites as a diff, write nothing),
``--stdin-filename``, ``--list-rules``, ``--explain CODE``, ``--version``. Settings may also
live in ``[tool.burn-torch-check]`` of the nearest ``pyproject.toml``
(``burn_torch_check.config``). A ``# noqa`` naming a code or entry the catalog does not have
is reported on stderr.

Exit status: 0 when nothing was found (or ``--exit-zero``; with ``--diff``, when nothing would
change), 1 when findings remain (``--diff``: when a file would change), 2 for a usage error (a
bad option, an unknown code, a bad configuration, a file that cannot be read or parsed).
"""
from __future__ import annotations

import argparse
import dataclasses
import difflib
import os
import sys
from pathlib import Path
from typing import Iterable, Sequence

from .catalog import catalog
from .check import Finding, Selection, check_source
from .config import FORMATS, ConfigError, find_pyproject, load_config
from .files import source_files
from .noqa import suppressions, unknown_tokens
from .report import explain, render, rule_list, version

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _tokens(values: Iterable[str] | None) -> list[str]:
    return [t.strip() for v in (values or ()) for t in v.split(",") if t.strip()]


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="burn-torch-check",
                                description="Find PyTorch idioms that behave differently in burn_torch.")
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="Python files, notebooks or directories; - for stdin")
    p.add_argument("--format", choices=FORMATS, help="output format (default: text)")
    p.add_argument("--select", action="append", metavar="CODES",
                   help="report only these codes, code prefixes, entry ids, silent or loud")
    p.add_argument("--ignore", action="append", metavar="CODES", help="do not report these")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when findings remain")
    p.add_argument("--fix", action="store_true", help="apply the certain rewrites (libcst)")
    p.add_argument("--diff", action="store_true",
                   help="print the certain rewrites as a unified diff instead of writing them")
    p.add_argument("--stdin-filename", default="-", metavar="NAME",
                   help="the name to report for stdin")
    p.add_argument("--list-rules", action="store_true", help="list every code and entry, then exit")
    p.add_argument("--explain", metavar="CODE", help="print one entry (a code or an entry id), then exit")
    p.add_argument("--version", action="version", version=f"burn-torch-check {version()}")
    return p


def python_files(paths: Iterable[str], exclude: Sequence[str] = (), root: Path | None = None) -> list[Path]:
    """The files a run checks (see ``burn_torch_check.files.source_files``)."""
    return source_files(paths, exclude, root)


def _in_notebook(findings: list[Finding], source) -> list[Finding]:
    """``findings`` placed in their notebook cells (``nb.ipynb:cell_3``, line in the cell)."""
    out = []
    for f in findings:
        cell, line = source.place(f.line)
        out.append(dataclasses.replace(f, path=f"{f.path}:cell_{cell}", line=line))
    return out


def _check_one(text: str, name: str, selection: Selection, rewrite: bool) -> tuple[list[Finding], str | None]:
    """The findings in one file's text and, with ``rewrite``, the fixed text (None when no
    certain rewrite applies)."""
    findings = check_source(text, name, selection=selection)
    if not rewrite or not any(f.fix for f in findings):
        return findings, None
    from .fix import fix_source
    new_text, _ = fix_source(text, findings)
    return check_source(new_text, name, selection=selection), new_text


def _warn_unknown_noqa(text: str, name: str) -> None:
    if "noqa" not in text.lower():
        return
    for line, token in unknown_tokens(suppressions(text), catalog()):
        print(f"{name}:{line}: warning: # noqa names no burn-torch-check code or entry: {token}",
              file=sys.stderr)


def _diff(old: str, new: str, name: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                        f"a/{name}", f"b/{name}"))


def _run(args) -> int:
    if args.list_rules:
        print(rule_list(catalog()))
        return EXIT_CLEAN
    if args.explain:
        text = explain(args.explain, catalog())
        if text is None:
            print(f"burn-torch-check: error: {args.explain!r} is no code or entry id "
                  "(see --list-rules)", file=sys.stderr)
            return EXIT_USAGE
        print(text)
        return EXIT_CLEAN
    if not args.paths:
        print("burn-torch-check: error: give at least one PATH (or - for stdin)", file=sys.stderr)
        return EXIT_USAGE
    try:
        start = Path(args.paths[0]) if args.paths[0] != "-" else Path.cwd()
        config = load_config(find_pyproject(start if start.exists() else Path.cwd()))
        selection = Selection(_tokens(args.select) or config.select or ("ALL",),
                              [*config.ignore, *_tokens(args.ignore)])
    except (ConfigError, ValueError) as exc:
        print(f"burn-torch-check: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    fmt = args.format or config.format or "text"
    rewrite = args.fix or args.diff
    findings: list[Finding] = []
    status = EXIT_CLEAN
    n_files = 0
    stdin_output = None
    diffs: list[str] = []
    for raw in args.paths:
        targets = [None] if raw == "-" else python_files([raw], config.exclude, config.root)
        for path in targets:
            name = args.stdin_filename if path is None else str(path)
            notebook = name.endswith(".ipynb")
            try:
                text = sys.stdin.read() if path is None else path.read_text(encoding="utf-8")
                if notebook:
                    from .notebook import read_notebook
                    source = read_notebook(text)
                    found, new_text = _check_one(source.text, name, selection, False)
                    if rewrite and any(f.fix for f in found):
                        print(f"{name}: notebooks are not rewritten: apply the rewrites to the cells "
                              "by hand (or to a jupytext .py copy)", file=sys.stderr)
                    found = _in_notebook(found, source)
                    _warn_unknown_noqa(source.text, name)
                else:
                    found, new_text = _check_one(text, name, selection, rewrite)
                    _warn_unknown_noqa(text, name)
            except (OSError, SyntaxError, UnicodeDecodeError, ValueError) as exc:
                print(f"{name}: cannot check: {exc}", file=sys.stderr)
                status = EXIT_USAGE
                continue
            n_files += 1
            findings += found
            if new_text is None or new_text == text:
                continue
            if args.diff:
                diffs.append(_diff(text, new_text, name))
            elif path is None:
                stdin_output = new_text
            else:
                path.write_text(new_text, encoding="utf-8")
    if args.diff:
        sys.stdout.write("".join(diffs))
        return status or (EXIT_FINDINGS if diffs else EXIT_CLEAN)
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


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the checker; returns the exit status (see the module docstring). A reader that
    closes the pipe early (``| head``) ends the run quietly."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse's usage errors (and --help, --version)
        return EXIT_USAGE if exc.code else EXIT_CLEAN
    try:
        status = _run(args)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        # the reader went away: point stdout at devnull so the interpreter's final flush is quiet
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_FINDINGS


if __name__ == "__main__":
    sys.exit(main())
