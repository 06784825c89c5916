"""burn-torch-port on its corpus: the per-program table (lines of model and loop code, translated,
left by reason, hand edits needed, verify_port, whether the port runs, translation time).

Each program (``tests/data/port_corpus/<name>.py``, or the checker's copy its record names) has
``<name>.expected.json``: the report the
translator must give (``summary``), the hand ``edits`` that make the port run (each says whether
its line is marked), how to verify it (``verify``: the arguments of
``burn_torch.compat.ported.verify_translation``) and the recorded outcomes (``verified``,
``runs``). ``tests/test_port_corpus.py`` checks the records; this script prints the table and
times the translation (the median CPU time of five runs).

Run: ``.venv/bin/python benchmarks/port_corpus.py [--run]`` (``--run`` also runs each original
and port end to end on tiny random data, with the stand-in torchvision).
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from burn_torch_check.port import summarize, translate_source

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "port_corpus"
FAKE_TORCHVISION = CORPUS / "fake_torchvision"
MARK = "# burn-torch-port:"


@dataclass
class Case:
    name: str
    source: Path
    expected: dict

    @property
    def split(self) -> str:
        return "held-out" if self.name.startswith("heldout_") else "tuning"


def cases() -> list[Case]:
    """Every corpus program with its record, tuning first. A record's ``source`` names a program
    another corpus of ``tests/data`` already holds (the checker's); otherwise it is
    ``<name>.py`` beside the record."""
    found = []
    for record in sorted(CORPUS.glob("*.expected.json")):
        name = record.name.removesuffix(".expected.json")
        expected = json.loads(record.read_text(encoding="utf-8"))
        source = CORPUS.parent / expected["source"] if "source" in expected else CORPUS / f"{name}.py"
        found.append(Case(name, source, expected))
    return sorted(found, key=lambda c: (c.split != "tuning", c.name))


def edited(code: str, edits: list[dict]) -> str:
    """``code`` with the recorded hand edits applied. Raises ValueError for an edit whose text is
    not in the port, or one recorded as marked whose line has no marker within the three lines
    above it (a marker comment, or the marked header of its block)."""
    for edit in edits:
        at = code.find(edit["find"])
        if at < 0:
            raise ValueError(f"edit not applicable: {edit['find']!r}")
        above = code[:at].splitlines()[-4:]
        if edit["marked"] != any(l.strip().startswith(MARK) for l in above):
            raise ValueError(f"edit recorded as marked={edit['marked']} but is not: {edit['find']!r}")
        code = code[:at] + edit["replace"] + code[at + len(edit["find"]):]
    return code


def port_of(case: Case) -> str:
    """The port with the recorded hand edits."""
    return edited(translate_source(case.source.read_text(encoding="utf-8")).code, case.expected["edits"])


def verify(case: Case, workdir: Path):
    """``verify_translation`` on the original and its edited port, as recorded (None when the
    program records no verification)."""
    spec = case.expected.get("verify")
    if spec is None:
        return None
    from burn_torch.compat.ported import verify_translation
    port = workdir / f"{case.name}_port.py"
    port.write_text(port_of(case), encoding="utf-8")
    options = dict(spec)
    return verify_translation(case.source, port, options.pop("model"), options.pop("inputs"),
                              options.pop("loss"), **options)


def run(path: Path, workdir: Path, timeout: int = 600) -> int:
    """Runs a program (an original or a port) in ``workdir`` with the stand-in torchvision;
    returns its exit status."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(FAKE_TORCHVISION), str(ROOT / "src")])}
    done = subprocess.run([sys.executable, str(path), "--epochs", "1", "--dry-run"] if "mnist_main" in path.name
                          else [sys.executable, str(path)], cwd=workdir, env=env, capture_output=True,
                          timeout=timeout)
    return done.returncode


def translation_seconds(text: str, repeat: int = 5) -> float:
    """The median CPU time (``time.process_time``) of translating ``text``: on a shared machine
    the wall clock mostly measures the other processes."""
    times = []
    for _ in range(repeat):
        start = time.process_time()
        translate_source(text)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main(argv: list[str]) -> None:
    run_programs = "--run" in argv
    rows = []
    texts = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for case in cases():
            text = case.source.read_text(encoding="utf-8")
            texts.append(text)
            summary = summarize(translate_source(text))
            edits = case.expected["edits"]
            report = verify(case, workdir)
            runs = ""
            if run_programs and case.expected["runs"] is not None:
                port = workdir / f"{case.name}_port.py"
                port.write_text(port_of(case), encoding="utf-8")
                runs = f"{run(case.source, workdir)}/{run(port, workdir)}"
            rows.append((case, summary, edits, report, runs, translation_seconds(text)))
        for case, summary, edits, report, runs, seconds in rows:
            model, loop = summary.parts["model"], summary.parts["loop"]
            reasons = "; ".join(f"{n} {r}" for p in (model, loop) for r, n in p.reasons.most_common()) or "-"
            marked = sum(e["marked"] for e in edits)
            verdict = "-" if report is None else ("PASS" if report.passed else "FAIL") + \
                f" {sum(c.passed for c in report.checks)}/{len(report.checks)}"
            print(f"{case.split:8} {case.name:28} model {model.no_edit:3}/{model.lines:<3} ({100 * model.share:5.1f}%) "
                  f"loop {loop.no_edit:3}/{loop.lines:<3} ({100 * loop.share:5.1f}%) edits {marked} marked + "
                  f"{len(edits) - marked} unmarked  verify {verdict:11} runs {runs or '-':5} {1000 * seconds:6.0f} ms cpu  "
                  f"left: {reasons}")
        big = "\n\n".join(texts)
        print(f"all {len(texts)} programs as one file ({big.count(chr(10)) + 1} lines): "
              f"{translation_seconds(big, 3):.2f} s CPU to translate")


if __name__ == "__main__":
    main(sys.argv[1:])
