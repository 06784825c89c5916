"""Atomic file writes: after a write the target is either its old content or the complete new
content, never a mixture, whatever happens midway (an exception, Ctrl-C, a full disk)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable

__all__ = ["atomic_write", "atomic_write_bytes"]


def atomic_write(path: "str | os.PathLike", write: Callable[[BinaryIO], None]) -> None:
    """Calls ``write(f)`` on a temporary file in ``path``'s folder, flushes and fsyncs it, then
    renames it onto ``path`` (``os.replace``) and fsyncs the folder.

    Raises whatever ``write`` or the file system raises (``KeyboardInterrupt`` included), after
    removing the temporary file; ``path`` is then untouched.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_folder(folder)


def atomic_write_bytes(path: "str | os.PathLike", data: bytes) -> None:
    """Writes ``data`` to ``path`` atomically (see :func:`atomic_write`)."""
    atomic_write(path, lambda f: f.write(data))


def _fsync_folder(folder: Path) -> None:
    """Makes the rename durable where the platform allows opening a folder."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
