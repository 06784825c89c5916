"""The encodings a recorder writes a record in: MessagePack (the ``msgpack`` library), JSON
(compact or pretty, the standard ``json`` module) and gzip on top of either (``gzip``).

A record here is Burn's ``BurnRecord`` as plain values: ``{"metadata": {...}, "item": ...,
"burn_torch": {"sha256": ...}}``, where tensors are Burn's ``TensorData`` maps whose ``bytes``
is a byte string. MessagePack stores byte strings as they are; JSON writes them as arrays of
numbers, as ``serde_json`` writes Burn's ``Bytes``, and reading turns them back.

Each ``parse`` raises [`FormatError`][burn_torch.record.formats.FormatError] for bytes that are not
a complete value of its encoding (truncated, corrupt, another format).
"""
from __future__ import annotations

import gzip
import json
import zlib

import msgpack  # type: ignore[import-untyped]  # msgpack ships no type information

from . import serde


class FormatError(ValueError):
    """Bytes that are not a complete, well-formed value of the expected encoding."""


class Format:
    """One encoding: ``dump(value) -> bytes`` and ``parse(bytes) -> value``."""

    name = ""

    def dump(self, value) -> bytes:
        raise NotImplementedError

    def parse(self, raw: bytes):
        raise NotImplementedError


class MessagePack(Format):
    name = "MessagePack"

    def dump(self, value) -> bytes:
        return msgpack.packb(value, use_bin_type=True)

    def parse(self, raw: bytes):
        try:
            return msgpack.unpackb(raw, raw=False, strict_map_key=False)
        except (ValueError, TypeError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as e:
            raise FormatError(f"{type(e).__name__}: {e}") from None


class Json(Format):
    """JSON, pretty-printed (2-space indent, as ``serde_json::to_writer_pretty``) or compact."""

    def __init__(self, pretty: bool) -> None:
        self.pretty = pretty
        self.name = "pretty JSON" if pretty else "JSON"

    def dump(self, value) -> bytes:
        text = json.dumps(_bytes_as_lists(value), indent=2 if self.pretty else None,
                          separators=None if self.pretty else (",", ":"), allow_nan=True)
        return text.encode("utf-8")

    def parse(self, raw: bytes):
        try:
            return _lists_as_bytes(json.loads(raw.decode("utf-8")))
        except (UnicodeDecodeError, json.JSONDecodeError, ValueError, TypeError) as e:
            raise FormatError(f"{type(e).__name__}: {e}") from None


class Gzip(Format):
    """``inner``'s bytes, gzip-compressed (no timestamp: equal records give equal files)."""

    def __init__(self, inner: Format) -> None:
        self.inner = inner
        self.name = f"gzip-compressed {inner.name}"

    def dump(self, value) -> bytes:
        return gzip.compress(self.inner.dump(value), mtime=0)

    def parse(self, raw: bytes):
        try:
            data = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:   # BadGzipFile is an OSError
            raise FormatError(f"not gzip data, or truncated ({type(e).__name__}: {e})") from None
        return self.inner.parse(data)


def _bytes_as_lists(value):
    if isinstance(value, (bytes, bytearray)):
        return list(value)
    if isinstance(value, dict):
        return {k: _bytes_as_lists(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_bytes_as_lists(v) for v in value]
    return value


def _lists_as_bytes(value):
    """A parsed JSON value with each tensor's ``bytes`` array back as a byte string."""
    if isinstance(value, dict):
        out = {k: _lists_as_bytes(v) for k, v in value.items()}
        if serde.is_tensor(out) and isinstance(out["bytes"], list):
            out["bytes"] = bytes(out["bytes"])   # ValueError for a number outside 0..255
        return out
    if isinstance(value, list):
        return [_lists_as_bytes(v) for v in value]
    return value


MSGPACK = MessagePack()
JSON = Json(pretty=False)
PRETTY_JSON = Json(pretty=True)
