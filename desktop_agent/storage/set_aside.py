"""Keeping an unreadable file aside as ``<name>.corrupt-<n>``, so the app
starts without it and nothing the user wrote is lost."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def set_aside(path: Path, *, companions: tuple[str, ...] = ()) -> Path | None:
    """Move ``path`` to the first free ``<name>.corrupt-<n>``; None when it
    cannot be moved (then it stays where it is). ``companions``: suffixes
    of files that belong with it (a database's ``-wal``), moved beside it
    under the new name, so none is left to be taken for the next file's."""
    for n in range(1, 1000):
        candidate = path.with_name(f"{path.name}.corrupt-{n}")
        if not candidate.exists():
            try:
                os.replace(path, candidate)
            except OSError:
                return None
            for suffix in companions:
                with contextlib.suppress(FileNotFoundError):
                    os.replace(f"{path}{suffix}", f"{candidate}{suffix}")
            return candidate
    return None
