"""``burn-torch-port``: translate a PyTorch program into a burn_torch port (no torch import).

``burn-torch-port SRC.py [-o PORT.py]`` (``python -m burn_torch_check.port``) writes the port
(default ``SRC_port.py`` beside the source), a verification script beside it
(``SRC_port_verify.py``, unless ``--no-verify-script``) and prints the report: lines of model
and loop code translated, unchanged and left, by reason (``--format json`` for a machine-readable
report, ``-`` as SRC reads stdin and writes the port to stdout).

Exit status: 0 when every line needs no hand edit, 1 when marked lines remain (the port is
written either way), 2 for a usage error (an unreadable or invalid source).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from .summary import summarize
from .translate import translate_source
from .verify_script import script

EXIT_CLEAN, EXIT_MARKED, EXIT_USAGE = 0, 1, 2


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="burn-torch-port",
                                description="Translate a PyTorch model and its training loop into burn_torch.")
    p.add_argument("source", metavar="SRC.py", help="the PyTorch program; - for stdin")
    p.add_argument("-o", "--output", metavar="PORT.py", help="where to write the port (default: SRC_port.py)")
    p.add_argument("--no-verify-script", action="store_true", help="do not write SRC_port_verify.py")
    p.add_argument("--format", choices=("text", "json"), default="text", help="the report's format")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the translator; returns the exit status (see the module docstring)."""
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:
        return EXIT_USAGE if exc.code else EXIT_CLEAN
    stdin = args.source == "-"
    try:
        text = sys.stdin.read() if stdin else Path(args.source).read_text(encoding="utf-8")
        translation = translate_source(text)
    except (OSError, SyntaxError, UnicodeDecodeError) as exc:
        print(f"burn-torch-port: cannot translate {args.source}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    summary = summarize(translation)
    report = summary.json() if args.format == "json" else summary.text(args.source)
    if stdin and args.output is None:
        sys.stdout.write(translation.code)
        print(report, file=sys.stderr)
    else:
        source = Path("stdin.py") if stdin else Path(args.source)
        out = Path(args.output) if args.output else source.with_name(source.stem + "_port.py")
        out.write_text(translation.code, encoding="utf-8")
        lines = [report, f"  port written to {out}"]
        if not args.no_verify_script and not stdin:
            text_script = script(source, out, text)
            if text_script is not None:
                verify = out.with_name(out.stem + "_verify.py")
                verify.write_text(text_script, encoding="utf-8")
                lines.append(f"  verification script written to {verify} (run it with python)")
        print("\n".join(lines) if args.format == "text" else report)
    marked = any(p.left for p in summary.parts.values())
    return EXIT_MARKED if marked else EXIT_CLEAN


if __name__ == "__main__":
    sys.exit(main())
