"""Reading a file that something in the user's data names (a hook's
``prompt_file``, a skill's ``SKILL.md``, a file picked for import), so that
what is named cannot reach past where it should.

Three rules, checked in this order, each a :class:`UserFileError` with its
own ``code``:

- ``outside``: with ``within``, the path, symlinks followed, must lie inside
  that folder (``"prompt_file": "../secrets.json"`` would otherwise send the
  stored key to the model);
- ``not_regular``: only a regular file is read. A named pipe would block the
  reader until someone writes to it (start-up hung, and no signal stopped
  it), a device could be endless. The file is opened with ``O_NONBLOCK``
  and checked on the open descriptor, so a swap between the check and the
  read changes nothing;
- ``too_large``: at most ``limit`` bytes (whatever the file claims, no more
  than ``limit + 1`` bytes are ever read).

And the usual ones: ``missing``, ``unreadable`` (with the OS's ``errno``
and words), ``not_utf8`` (:func:`read_user_text` only).
"""

from __future__ import annotations

import errno as errno_codes
import os
import stat
from pathlib import Path
from typing import Literal

UserFileProblem = Literal["outside", "not_regular", "too_large", "missing", "unreadable", "not_utf8"]


class UserFileError(Exception):
    """Why a named file was not read. ``str(exc)`` is a short English reason
    (``"is outside /x/hooks"``, ``"is larger than 64 KB"``) that callers put
    after the file's name; ``code`` and ``fields`` let the window word it."""

    def __init__(self, path: Path, code: UserFileProblem, reason: str, **fields: object) -> None:
        super().__init__(reason)
        self.path = path
        self.code: UserFileProblem = code
        self.reason = reason
        self.fields: dict[str, object] = {"path": str(path), **fields}


def size_words(limit: int) -> str:
    """``65536`` → ``"64 KB"``; ``262144`` → ``"256 KB"``; ``10485760`` → ``"10 MB"``."""
    if limit >= 1 << 20 and limit % (1 << 20) == 0:
        return f"{limit >> 20} MB"
    if limit >= 1 << 10:
        return f"{limit / 1024:g} KB"
    return f"{limit} bytes"


def read_user_bytes(path: Path, *, limit: int, within: Path | None = None) -> bytes:
    """The file's bytes, by the rules above. Never blocks on a pipe."""
    if "\0" in str(path):  # no file has such a name; os.open would raise ValueError
        raise UserFileError(path, "missing", "is missing")
    if within is not None:
        inside(path, within)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise UserFileError(path, "missing", "is missing") from None
    except OSError as exc:
        if exc.errno == errno_codes.ENXIO:  # a socket, or a FIFO opened without a reader on some systems
            raise _not_regular(path) from None
        raise _unreadable(path, exc) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):  # said as the OS says it ("Is a directory"), which the UI words
            raise _unreadable(path, IsADirectoryError(errno_codes.EISDIR, os.strerror(errno_codes.EISDIR)))
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path)
        if info.st_size > limit:
            raise _too_large(path, limit)
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew after the fstat
            raise _too_large(path, limit)
        return b"".join(chunks)
    except OSError as exc:
        raise _unreadable(path, exc) from None
    finally:
        os.close(fd)


def read_user_text(path: Path, *, limit: int, within: Path | None = None, encoding: str = "utf-8") -> str:
    """:func:`read_user_bytes` decoded (``utf-8-sig`` drops a BOM)."""
    data = read_user_bytes(path, limit=limit, within=within)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError:
        raise UserFileError(path, "not_utf8", "is not UTF-8 text") from None


def inside(path: Path, folder: Path) -> Path:
    """``path`` resolved (symlinks followed), when it lies inside ``folder``
    (resolved too); else :class:`UserFileError` ``outside``."""
    try:
        resolved = path.resolve()
        root = folder.resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python 3.11)
        raise UserFileError(path, "unreadable", "cannot be resolved (a symlink loop?)",
                            error=str(exc)) from None
    if resolved != root and root not in resolved.parents:
        raise UserFileError(path, "outside", f"is outside {folder}", folder=str(folder))
    return resolved


def _not_regular(path: Path) -> UserFileError:
    return UserFileError(path, "not_regular", "is not a regular file")


def _too_large(path: Path, limit: int) -> UserFileError:
    words = size_words(limit)
    return UserFileError(path, "too_large", f"is larger than {words}", limit=words)


def _unreadable(path: Path, exc: OSError) -> UserFileError:
    why = exc.strerror or type(exc).__name__
    return UserFileError(path, "unreadable", f"cannot be read ({why})", error=why, errno=exc.errno)


__all__ = ["UserFileError", "UserFileProblem", "inside", "read_user_bytes", "read_user_text", "size_words"]
