"""Replace a file's contents all at once: readers see the old file or the new
one, never half of either, even if the process dies mid-write.

Why a temp file *in the same folder*: ``os.replace`` is atomic only within one
file system. Why fsync before the rename: without it a crash can leave the new
name pointing at an empty file (ext4 keeps the rename but may lose the data
not yet flushed).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from pathlib import Path


def atomic_write_text(path: Path, text: str, *, mode: int | None = None) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically, creating its folder.

    ``mode`` (e.g. ``0o600`` for secrets) is given to the temp file when it is
    created, so the data is never readable more widely than asked; without it
    the file gets what a plain ``open()`` gives (0666 less the umask). On
    failure the original file is untouched and no temp file is left behind.
    A file standing where a folder of ``path`` should be is
    :class:`NotADirectoryError` (mkdir says "File exists", which reads as if
    ``path`` itself were in the way).
    """
    make_folder(path.parent)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            if mode is not None:
                os.chmod(tmp, mode)  # exactly ``mode``, whatever the umask
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_dir(path.parent)


def make_folder(folder: Path) -> None:
    """Create ``folder`` and its parents (none if there). A file standing
    where one of them should be is :class:`NotADirectoryError`, not mkdir's
    "File exists", which reads as if the file inside were in the way."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(folder)) from None


def _fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (POSIX); a no-op where folders cannot be opened."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
