"""The flake8 plugin: ``flake8 --select BT`` reports the porting checker's findings.

Registered as the ``BT`` extension (``[project.entry-points."flake8.extension"]``); flake8 handles
``# noqa`` and selection itself, by code. It is **off by default**: installing burn_torch must not
make a plain ``flake8`` report BT findings on ordinary torch code. A run enables it by naming it:
``--select``/``--extend-select`` with a ``BT`` code or prefix, or ``--enable-extensions BT``
(also in a flake8 configuration file).
"""
from __future__ import annotations

import ast
import sys
from typing import Iterator, Sequence

from .check import check_tree
from .report import version


def _names_bt(values) -> bool:
    if not values:
        return False
    if isinstance(values, str):
        values = values.split(",")
    return any(str(v).strip().upper().startswith("BT") for v in values)


class Plugin:
    """flake8's AST plugin protocol: constructed with the parsed file, ``run()`` yields
    ``(line, column (0-based), "BTnnn message", type)`` when the run enabled the plugin."""

    name = "burn-torch-check"
    version = version()
    enabled = False

    def __init__(self, tree: ast.Module, filename: str = "stdin") -> None:
        self.tree = tree
        self.filename = filename

    @classmethod
    def parse_options(cls, option_manager, options, filenames) -> None:
        """Reads whether this run named the plugin (``--select BT``, ``--extend-select BT2``,
        ``--enable-extensions BT``, or ``enable-extensions = BT`` in a configuration file).
        flake8 consumes ``--enable-extensions`` before plugins see the options, so that setting
        is read from the command line and the configuration file themselves."""
        cls.enabled = any(_names_bt(getattr(options, attr, None))
                          for attr in ("select", "extend_select", "enable_extensions")) \
            or _names_bt(_enable_extensions_flag(sys.argv[1:])) \
            or _names_bt(_enable_extensions_configured(options))

    def run(self) -> Iterator[tuple[int, int, str, type]]:
        if not self.enabled:
            return
        for f in check_tree(self.tree, self.filename):
            yield f.line, f.col - 1, f"{f.code} {f.message}", type(self)


def _enable_extensions_configured(options) -> str:
    """``enable-extensions`` of the flake8 configuration this run reads ("" when unset)."""
    from flake8.options.config import load_config
    try:
        cfg, _ = load_config(getattr(options, "config", None), getattr(options, "append_config", []) or [],
                             isolated=getattr(options, "isolated", False))
    except Exception:  # an unreadable configuration: flake8 itself reports it
        return ""
    for key in ("enable-extensions", "enable_extensions"):
        if cfg.has_option("flake8", key):
            return cfg.get("flake8", key)
    return ""


def _enable_extensions_flag(argv: Sequence[str]) -> list[str]:
    """The values of ``--enable-extensions`` in ``argv`` (``--enable-extensions=BT`` or
    ``--enable-extensions BT``)."""
    values = []
    for i, arg in enumerate(argv):
        if arg.startswith("--enable-extensions="):
            values.append(arg.partition("=")[2])
        elif arg == "--enable-extensions" and i + 1 < len(argv):
            values.append(argv[i + 1])
    return values
