"""Atomic file writes: after a write the target is either its old content or the complete new
content, never a mixture, whatever happens midway (an exception, Ctrl-C, a full disk).

A written file gets the mode an ordinary ``open(path, "w")`` would give it: a new file
``0o666`` less the process's umask, a replaced file keeps the mode it had (a ``chmod`` the user
made survives a rewrite). Durability is a separate choice: ``durable=True`` (the default)
flushes the content to the disk before the rename and the folder after it, so the new content
survives a power cut or a kernel crash; ``durable=False`` skips both fsyncs (the write is still
atomic for every reader and survives the process being killed), for files that are cheap to
lose and written often.
"""
from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path
from typing import BinaryIO, Callable

__all__ = ["atomic_write", "atomic_write_bytes", "fsync_folder"]

_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)


def _create_temporary(folder: Path, name: str) -> tuple[int, Path]:
    """An exclusive new file beside the target, created with mode 0o666 so the kernel applies
    the umask (``tempfile.mkstemp`` would force 0o600)."""
    while True:
        tmp = folder / f".{name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(tmp, _FLAGS, 0o666), tmp
        except FileExistsError:
            continue


def atomic_write(path: "str | os.PathLike", write: Callable[[BinaryIO], None],
                 durable: bool = True) -> None:
    """Calls ``write(f)`` on a temporary file in ``path``'s folder, gives it ``path``'s current
    mode when ``path`` exists, then renames it onto ``path`` (``os.replace``). With ``durable``
    the file is fsynced before the rename and the folder after it.

    Raises whatever ``write`` or the file system raises (``KeyboardInterrupt`` included), after
    removing the temporary file; ``path`` is then untouched.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    fd, tmp = _create_temporary(folder, target.name)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            if durable:
                os.fsync(f.fileno())
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
        except FileNotFoundError:
            pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    if durable:
        fsync_folder(folder)


def atomic_write_bytes(path: "str | os.PathLike", data: bytes, durable: bool = True) -> None:
    """Writes ``data`` to ``path`` atomically (see :func:`atomic_write`)."""
    atomic_write(path, lambda f: f.write(data), durable)


def fsync_folder(folder: "str | os.PathLike") -> None:
    """Makes the renames and creations in ``folder`` durable, where the platform allows
    opening a folder (elsewhere: nothing)."""
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
