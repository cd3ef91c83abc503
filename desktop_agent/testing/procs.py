"""Process-table checks for tests: is anything with this marker still alive?"""

from __future__ import annotations

import psutil

_GONE = (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)


def live_processes(marker: str) -> list[int]:
    """PIDs (not zombies) whose command line contains ``marker``."""
    found: list[int] = []
    for process in psutil.process_iter(["cmdline", "status"]):
        # process_iter puts None where a process was inaccessible or vanished.
        cmdline, status = process.info["cmdline"], process.info["status"]
        if cmdline is None or status is None or status in _GONE:
            continue
        if marker in " ".join(cmdline):
            found.append(process.pid)
    return found
