"""``# noqa`` comments: which findings a line suppresses.

``# noqa`` alone suppresses every finding on its line; ``# noqa: BT201, retain_graph``
suppresses the findings whose code or catalog entry id is listed (other tools' codes in the
same list, such as ``E501``, are ignored).
"""
from __future__ import annotations

import io
import re
import tokenize

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z0-9_]+(?:[\s,]+[A-Za-z0-9_]+)*))?", re.IGNORECASE)
ALL = frozenset({"*"})


def suppressions(text: str) -> dict[int, frozenset[str]]:
    """Line number → what its ``# noqa`` comment suppresses (``ALL`` for a bare ``# noqa``).

    Reads comments with ``tokenize``, so ``"# noqa"`` inside a string does not count; on a
    file tokenize cannot read (it was parsed already, so this is rare) returns what it found."""
    found: dict[int, frozenset[str]] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type != tokenize.COMMENT:
                continue
            m = _NOQA.search(tok.string)
            if m is None:
                continue
            codes = m.group("codes")
            found[tok.start[0]] = ALL if not codes else frozenset(
                c.lower() for c in re.split(r"[\s,]+", codes) if c)
    except (tokenize.TokenError, SyntaxError):
        pass
    return found


def suppressed(noqa: frozenset[str] | None, code: str, entry_id: str) -> bool:
    """Whether a finding with ``code`` / ``entry_id`` is suppressed by a line's ``noqa``."""
    return noqa is not None and (noqa is ALL or code.lower() in noqa or entry_id.lower() in noqa)


_OURS = re.compile(r"^(bt\d+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+)$")


def unknown_tokens(noqa: dict[int, frozenset[str]], entries) -> list[tuple[int, str]]:
    """(line, token) for each ``# noqa`` token that looks like this checker's (``BT`` and
    digits, or an entry-id-like ``snake_case`` name) but names no code or entry of
    ``entries``: a typo that silences nothing. Other tools' codes (``E501``) are not ours."""
    known = {e.code.lower() for e in entries} | {e.id for e in entries}
    return [(line, token) for line, tokens in sorted(noqa.items()) if tokens is not ALL
            for token in sorted(tokens) if _OURS.match(token) and token not in known]
