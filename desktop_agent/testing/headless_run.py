"""The headless mode in a process of its own, as a user runs it, for tests
that check its exit status, its stderr and the files it writes."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any


async def run_cli(home: Path, *args: str, stdin: bytes = b"", timeout_s: float = 90.0) -> tuple[int, str]:
    """``python -m desktop_agent --cli ARGS`` with its data folder ``home``;
    ``stdin`` is what the terminal types. Returns (exit status, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop_agent", "--cli", *args,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        env={**os.environ, "DESKTOP_AGENT_HOME": str(home)},
    )
    async with asyncio.timeout(timeout_s):
        _out, err = await proc.communicate(stdin)
    assert proc.returncode is not None
    return proc.returncode, err.decode()


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """A JSON-lines file (``--events-jsonl``, ``--audit-log``) as its objects."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
