"""Keeping an unreadable file aside as ``<name>.corrupt-<n>`` (issue 12),
so the app starts without it and nothing the user wrote is lost."""

from __future__ import annotations

import os
from pathlib import Path


def set_aside(path: Path) -> Path | None:
    """Move ``path`` to the first free ``<name>.corrupt-<n>``; None when it
    cannot be moved (then it stays where it is)."""
    for n in range(1, 1000):
        candidate = path.with_name(f"{path.name}.corrupt-{n}")
        if not candidate.exists():
            try:
                os.replace(path, candidate)
            except OSError:
                return None
            return candidate
    return None
