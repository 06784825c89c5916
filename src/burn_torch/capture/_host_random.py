"""The host's random generators a captured function could draw from without a kernel: Python's
``random`` module and numpy's global generator.

A plan replays kernels, so a draw from them while ``fn`` is recorded (a teacher-forcing coin
flip, ``random.choice`` of an augmentation) would be frozen into the plan: every replay would
take the recorded branch. A recording compares their states before and after ``fn`` and, when
either moved, makes the function unreplayable (it runs eagerly). torch's generators need no
such check: their random kernels run on every replay.
"""
from __future__ import annotations

import random
import sys


def host_random_state() -> tuple:
    """A comparable snapshot of Python's ``random`` state and, when numpy is loaded, of
    numpy's global generator (``numpy.random``'s legacy state); equal snapshots mean no draw
    was made in between (a Mersenne Twister's state moves with every draw)."""
    numpy = sys.modules.get("numpy")
    if numpy is None:
        return (random.getstate(), None)
    _, key, pos, has_gauss, gauss = numpy.random.get_state()
    return (random.getstate(), (key.tobytes(), pos, has_gauss, gauss))


def drew_from_host_random(before: tuple) -> str | None:
    """None when neither generator moved since the snapshot ``before``; else the reason a
    recording gives for running ``fn`` eagerly."""
    after = host_random_state()
    moved = [name for name, a, b in (("Python's random module", before[0], after[0]),
                                      ("numpy's global generator", before[1], after[1]))
             if a != b]
    if not moved:
        return None
    return (f"fn drew from {' and '.join(moved)} while being recorded: a replay would repeat "
            "the recorded draw (every call would take the same branch); draw with torch "
            "(Tensor.random, dropout: replayed as kernels) or pass the drawn value as an "
            "argument")
