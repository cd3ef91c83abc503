"""Process-table checks for tests: is anything with this marker still alive?"""

from __future__ import annotations

from pathlib import Path


def live_processes(marker: str) -> list[int]:
    """PIDs (not zombies) whose command line contains ``marker`` (Linux /proc)."""
    found: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state = stat.rsplit(")", 1)[-1].split()[0] if ")" in stat else "?"
        if marker in cmdline and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found
