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
import threading
from pathlib import Path
from typing import BinaryIO, Callable

__all__ = ["atomic_write", "atomic_write_bytes", "atomic_write_group", "fsync_folder"]

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


def _keep_mode(tmp: Path, target: Path) -> None:
    """Gives ``tmp`` the mode of ``target`` when ``target`` exists."""
    try:
        os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
    except FileNotFoundError:
        pass


def atomic_write(path: "str | os.PathLike", write: Callable[[BinaryIO], object],
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
        _keep_mode(tmp, target)
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
    """Writes ``data`` to ``path`` atomically (see
    [`atomic_write`][burn_torch.atomic_file.atomic_write])."""
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


def atomic_write_group(files: "list[tuple[str | os.PathLike, bytes]]") -> None:
    """Writes each ``(path, data)`` atomically and durably, faster than one
    [`atomic_write_bytes`][burn_torch.atomic_file.atomic_write_bytes] each: every temporary file is
    written, the temporaries are fsynced concurrently (the file system can commit them together),
    then all are renamed, then each folder is fsynced once. A failure leaves every target that was
    not yet renamed untouched (earlier ones hold their new content) and no temporary file behind."""
    staged: list[tuple[Path, Path]] = []
    descriptors: list[int] = []
    try:
        for path, data in files:
            target = Path(path)
            folder = target.parent if str(target.parent) else Path(".")
            fd, tmp = _create_temporary(folder, target.name)
            staged.append((tmp, target))
            descriptors.append(fd)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            _keep_mode(tmp, target)
        _fsync_all(descriptors)
        for fd in descriptors:
            os.close(fd)
        descriptors.clear()
        for tmp, target in staged:
            os.replace(tmp, target)
    except BaseException:
        for fd in descriptors:
            os.close(fd)
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise
    for folder in dict.fromkeys(target.parent for _, target in staged):
        fsync_folder(folder if str(folder) else Path("."))


def _fsync_all(descriptors: list[int], max_threads: int = 8) -> None:
    """fsyncs every descriptor, up to ``max_threads`` at once (this thread among them);
    raises the first failure."""
    errors: list[BaseException] = []
    todo = iter(list(descriptors))
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                fd = next(todo, None)
            if fd is None:
                return
            try:
                os.fsync(fd)
            except BaseException as e:
                errors.append(e)

    helpers = [threading.Thread(target=work) for _ in range(min(len(descriptors), max_threads) - 1)]
    for t in helpers:
        t.start()
    work()
    for t in helpers:
        t.join()
    if errors:
        raise errors[0]
