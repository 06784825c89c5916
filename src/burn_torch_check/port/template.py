"""The mapping table's output templates: ``{field}`` is a field's source code, ``<?...?>`` an
optional part kept only when every field it names is given.

``render("nn.LinearConfig({d_in}, {d_out})<?.with_bias({bias})?>.init({device})", fields)``
writes ``.with_bias(...)`` only when ``fields["bias"]`` is not None. No torch, no libcst.
"""
from __future__ import annotations

import re
from typing import Mapping

_OPTIONAL = re.compile(r"<\?(.*?)\?>", re.S)
_FIELD = re.compile(r"\{(\w+)\}")


def fields_of(template: str) -> set[str]:
    """The field names ``template`` reads (optional parts included)."""
    return set(_FIELD.findall(template))


def render(template: str, fields: Mapping[str, "str | None"]) -> str:
    """``template`` with its fields replaced by their source. Raises KeyError naming a field that
    a non-optional part needs and ``fields`` lacks (or gives as None)."""
    def optional(m: re.Match) -> str:
        names = _FIELD.findall(m.group(1))
        return m.group(1) if all(fields.get(n) is not None for n in names) else ""

    def field(m: re.Match) -> str:
        value = fields.get(m.group(1))
        if value is None:
            raise KeyError(f"template field {m.group(1)!r} has no value")
        return value

    return _FIELD.sub(field, _OPTIONAL.sub(optional, template))
