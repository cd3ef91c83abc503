"""How many cores the local speech models may use."""

from __future__ import annotations

import os


def available_cores() -> int:
    """The cores this process may run on (its affinity mask where the OS
    has one: a container or ``taskset`` gives fewer than ``cpu_count``)."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        try:
            return max(1, len(affinity(0)))
        except OSError:
            pass
    return max(1, os.cpu_count() or 1)
