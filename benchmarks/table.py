"""Every step benchmark in one table: eager, captured and floor ratios against torch, per size.

Runs each step benchmark of this folder (a subprocess each, its own flags passed on) and
collects the ratios it prints: eager burn_torch / torch autograd, the same step through
``burn_torch.capture`` / torch, and the hand-written tape-free floor / torch, where the
benchmark has them. With ``--base REV`` it also runs the benchmarks on commit ``REV``'s library
and benchmark files (exported with ``git archive`` into a temporary folder) and prints before/after columns, each run
twice in the order base, head, head, base (A/B then B/A), so that a load that changes during the
run weighs on both sides; each cell then reads ``first / second`` run.

Usage: python benchmarks/table.py [--quick] [--threads N] [--base REV] [--only NAME ...]
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# the benchmark files whose rows this table reads, in the order they are printed
BENCHMARKS = ["mlp_step", "cnn_step", "transformer_step", "gpt_step", "mnist_cnn_step",
              "rnn_step", "decoder_step", "sequence_loop_step", "train_step", "programs_step"]
_NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


def parse_rows(output: str) -> dict[str, dict[str, float]]:
    """The rows of a benchmark's output: name -> {"eager", "captured", "floor"} ratios.

    A row is a line of ``|``-separated cells whose first cell names the size and whose cells
    include at least one ratio; the header line before it says which cell is which (a cell
    headed ``ratio`` follows the column it is the ratio of: ``burn_torch``, ``captured`` or
    ``floor``; a header may have more cells than its rows, as ``max|grad diff|`` does, and a size
    label with a ``|`` of its own)."""
    rows: dict[str, dict[str, float]] = {}
    header: list[str] | None = None
    for line in output.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) < 3:
            continue
        if "ratio" in cells:
            # the size label may hold a "|" itself (rnn_step's "kind,B,T,H,V|D"): the header's
            # columns are counted from its first timing column, torch's
            first = next((i for i, c in enumerate(cells) if c.startswith("torch")), 1)
            header = ["size", *cells[first:]]
            continue
        if header is None or len(cells) > len(header):
            continue
        ratios = {}
        for i, head in enumerate(header):
            if head == "ratio" and _NUMBER.match(cells[i]):
                before = header[i - 1]
                kind = ("captured" if before.startswith("captured") else
                        "floor" if before.startswith("floor") else "eager")
                ratios[kind] = float(cells[i])
        if ratios:
            rows[cells[0]] = ratios
    return rows


def run_benchmark(name: str, root: Path, flags: list[str], python: str) -> dict:
    """Runs ``benchmarks/<name>.py`` of the tree at ``root`` on that tree's library; its rows."""
    env = dict(os.environ, PYTHONPATH=str(root / "src"))
    proc = subprocess.run([python, str(root / "benchmarks" / f"{name}.py"), *flags],
                          cwd=root / "benchmarks", env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).splitlines()[-5:])
        print(f"  {name} ({root}) failed:\n{tail}", file=sys.stderr)
        return {}
    return parse_rows(proc.stdout)


def _cell(runs: list[dict], row: str, kind: str) -> str:
    values = [r.get(row, {}).get(kind) for r in runs]
    return " / ".join("-" if v is None else f"{v:.2f}" for v in values)


def print_table(name: str, columns: list[tuple[str, list[dict]]]) -> None:
    """One benchmark's table: per row, per kind, the cell of each column (``label``, runs)."""
    rows: list[str] = []
    kinds: list[str] = []
    for _, runs in columns:
        for run in runs:
            for row, ratios in run.items():
                if row not in rows:
                    rows.append(row)
                kinds.extend(k for k in ratios if k not in kinds)
    kinds.sort(key=["eager", "captured", "floor"].index)
    heads = [f"{kind} {label}".strip() for kind in kinds for label, _ in columns]
    width = max([len(r) for r in rows] + [4])
    print(f"\n{name}\n{'size':>{width}} | " + " | ".join(f"{h:>13}" for h in heads))
    for row in rows:
        cells = [_cell(runs, row, kind) for kind in kinds for _, runs in columns]
        print(f"{row:>{width}} | " + " | ".join(f"{c:>13}" for c in cells), flush=True)


def export(rev: str, into: Path) -> None:
    """Writes commit ``rev``'s ``src/`` and ``benchmarks/`` under ``into`` (``git archive``: the
    repository's worktrees and refs are left as they are). CalledProcessError for an unknown
    ``rev``."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src", "benchmarks"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer rounds in every benchmark")
    ap.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    ap.add_argument("--base", default=None, help="a commit to compare with (before/after)")
    ap.add_argument("--only", nargs="*", choices=BENCHMARKS, help="these benchmarks only")
    args = ap.parse_args()
    flags = (["--quick"] if args.quick else []) + (
        ["--threads", str(args.threads)] if args.threads else [])
    python = sys.executable
    names = args.only or BENCHMARKS
    load = os.getloadavg()[0]
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cpus, load "
          f"average {load:.1f}; ratios to torch (lower is faster)"
          + ("; cells: base run 1 / run 2 (A/B, then B/A)" if args.base else ""))
    if args.base is None:
        for name in names:
            print_table(name, [("", [run_benchmark(name, ROOT, flags, python)])])
        return
    with tempfile.TemporaryDirectory(prefix="burn_torch_base_") as tmp:
        base = Path(tmp)
        export(args.base, base)
        for name in names:
            before, after = [], []
            for tree, into in ((base, before), (ROOT, after), (ROOT, after), (base, before)):
                if (tree / "benchmarks" / f"{name}.py").exists():
                    into.append(run_benchmark(name, tree, flags, python))
            print_table(name, [("before", before), ("after", after)])


if __name__ == "__main__":
    main()
