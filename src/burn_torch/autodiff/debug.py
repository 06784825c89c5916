"""Debug mode: what torch's ``detect_anomaly`` offers, which Burn does not have.

While it is on (``debug_mode``, or ``BURN_TORCH_DEBUG=1`` in the environment when burn_torch
is imported), every recorded step keeps the source line of the user's code that recorded it,
and backward checks every gradient a rule produces: an error raised by a rule, or a NaN or an
infinity in a gradient, is reported with the op and that line (and an entry declared exact that
gives a gradient of another shape or dtype than its input's is reported too). Off, it costs nothing: the
recorder creates plain nodes and no backward hook is registered. The switch is process-wide.
"""
from __future__ import annotations

import contextlib
import linecache
import os
import sys
import threading
from types import FrameType
from typing import Iterator

import torch

from . import checkpoint, hooks, recorder
from .graph import Node

__all__ = ["debug_mode", "is_enabled", "ExactnessCheck"]

_PACKAGE = __name__.split(".")[0] + "."
_lock = threading.Lock()
_depth = 0
_unregister = None


def _user_line() -> str:
    """``file:line in function: source`` of the innermost caller outside burn_torch."""
    f: FrameType | None = sys._getframe(2)
    while f is not None and (f.f_globals.get("__name__", "") + ".").startswith(_PACKAGE):
        f = f.f_back
    if f is None:
        return "<unknown>"
    code = f.f_code
    source = linecache.getline(code.co_filename, f.f_lineno).strip()
    return f"{code.co_filename}:{f.f_lineno} in {code.co_name}: {source}"


class DebugNode(Node):
    """A node that remembers where the user's code recorded it (``origin``)."""

    __slots__ = ("origin",)

    def __init__(self, *args) -> None:
        Node.__init__(self, *args)
        self.origin = _user_line() if self.op is not None else None


class ExactnessCheck(hooks.BackwardHook):
    """Raises RuntimeError when an entry declared ``exact`` (see ``ops.table``) gives a gradient
    whose shape or dtype is not its input's: the engine would have kept it as it is. Part of
    debug mode; the op spec table registers it for every row."""

    __slots__ = ()

    def step(self, node, grad, input_grads, grads, recomputer) -> None:
        if not node.op.exact:
            return
        for i, (p, pg) in enumerate(zip(node.parents, input_grads)):
            if p is not None and pg is not None and (pg.shape != p.shape or pg.dtype != p.dtype):
                raise RuntimeError(
                    f"op {node.op.name} is declared exact, but its rule for input {i} gave a "
                    f"{list(pg.shape)} {pg.dtype} gradient for a {list(p.shape)} {p.dtype} input; "
                    "fix the rule or declare the entry exact=False")


class _DebugCheck(ExactnessCheck):
    """Also raises FloatingPointError when a rule produces a NaN or an infinity."""

    __slots__ = ()

    def step(self, node, grad, input_grads, grads, recomputer) -> None:
        ExactnessCheck.step(self, node, grad, input_grads, grads, recomputer)
        for i, pg in enumerate(input_grads):
            if pg is not None and pg.is_floating_point() and not bool(torch.isfinite(pg).all()):
                kind = "NaN" if bool(pg.isnan().any()) else "an infinity"
                origin = getattr(node, "origin", None) or "<recorded before debug mode was on>"
                raise FloatingPointError(
                    f"backward of {node.op.name} (step #{node.id}) produced {kind} in the gradient "
                    f"of input {i} (shape {list(pg.shape)}); the step was recorded at {origin}")


def _check_for_pass(root, seed):
    return _DebugCheck()


def _switch(on: bool) -> None:
    global _unregister
    node_class = DebugNode if on else Node
    recorder.NodeClass = node_class
    checkpoint.NodeClass = node_class
    if on:
        _unregister = hooks.register(_check_for_pass)
    elif _unregister is not None:
        _unregister()
        _unregister = None


def is_enabled() -> bool:
    """Whether debug mode is on."""
    return _depth > 0


@contextlib.contextmanager
def debug_mode() -> Iterator[None]:
    """Turns debug mode on inside the block (process-wide; blocks nest).

    Steps recorded inside keep their source line; backward passes run inside raise
    FloatingPointError naming the op and that line when a gradient has a NaN or an infinity, and
    a failing rule's error names it too.
    """
    global _depth
    with _lock:
        _depth += 1
        if _depth == 1:
            _switch(True)
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                _switch(False)


if os.environ.get("BURN_TORCH_DEBUG", "").strip().lower() in ("1", "true", "yes", "on"):
    _depth = 1
    _switch(True)
