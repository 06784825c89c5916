"""The torch-only tensor method names, stored as data so the checker never imports torch.

``methods.json`` next to this module holds ``torch_only``: the public methods of
``torch.Tensor`` that ``burn_torch.Tensor`` lacks (in-place ``*_`` methods apart: they have their
own catalog entry), and ``ambiguous``: those of them that ``numpy.ndarray``, ``torch.nn.Module``
or a Python container or string also has, so a call on a value of unknown type is only reported
when the name is a tensor's alone; and ``configured_layers``: the ``torch.nn`` classes whose name
``burn_torch.nn`` also has, with an ``XConfig`` to build them (there ``nn.X(4, 128)`` takes the
numbers as fields, silently).
``python -m burn_torch_check.methods`` regenerates the file (it imports torch, burn_torch and
numpy); a test keeps the stored file equal to what they say.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

METHODS_JSON = Path(__file__).with_name("methods.json")


def _public_methods(cls) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_") and callable(getattr(cls, n, None))}


def generate() -> dict[str, list[str]]:
    """The method lists from the installed torch, burn_torch and numpy."""
    import numpy
    import torch
    from burn_torch import Tensor

    from burn_torch import nn

    # hasattr, not dir(): Tensor carries a raising descriptor per torch-only name (torch_spellings)
    torch_only = {n for n in _public_methods(torch.Tensor) if not hasattr(Tensor, n) and not n.endswith("_")}
    others = set().union(*(dir(c) for c in (numpy.ndarray, torch.nn.Module, dict, list, str, set)))
    layers = {n for n in dir(torch.nn) if n[:1].isupper() and hasattr(nn, n) and hasattr(nn, f"{n}Config")}
    return {"torch_only": sorted(torch_only), "ambiguous": sorted(torch_only & others),
            "configured_layers": sorted(layers)}


@lru_cache(maxsize=1)
def stored() -> dict[str, frozenset[str]]:
    """The stored lists, as sets."""
    raw = json.loads(METHODS_JSON.read_text(encoding="utf-8"))
    return {key: frozenset(names) for key, names in raw.items()}


if __name__ == "__main__":
    METHODS_JSON.write_text(json.dumps(generate(), indent=1) + "\n", encoding="utf-8")
    print(f"written: {METHODS_JSON}")
