"""Fault matrix, memory row: a long conversation keeps, per turn, at most
twice what the conversation itself grows by (its history and its display
log). The soak (``benchmarks/soak.py``) runs the turns in a real process
against the scripted server in another; the figures are slopes over the
same turns of that one run (tracemalloc's traced memory, and the history's
and display log's own objects), so the rule is a ratio, free of the
machine's speed and load."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SOAK = Path(__file__).resolve().parents[2] / "benchmarks" / "soak.py"
TURNS, WARMUP = 80, 20
"""Enough turns after the warm-up (caches, the SDK's first requests) for a
steady slope, few enough for CI."""


@pytest.mark.timeout(600)
async def test_a_long_conversation_keeps_at_most_twice_its_own_growth_per_turn(tmp_path: Path) -> None:
    result = tmp_path / "soak.json"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(SOAK), "--turns", str(TURNS), "--warmup", str(WARMUP), "--json", str(result),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(540):
            out, err = await proc.communicate()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, err.decode()
    data = json.loads(result.read_text())
    history = data["history_mem_slope_bytes_per_turn"]
    log = data["log_mem_slope_bytes_per_turn"]
    retained = data["traced_slope_bytes_per_turn"]
    assert data["turns"] == TURNS
    assert 500 < history < 4000, history  # every turn adds the same four typed items
    assert 0 < log < 4000, log  # and its display log one packed turn
    table = "\n".join(out.decode().splitlines()[:-1])
    assert retained <= 2 * (history + log), (
        f"each turn keeps {retained:.0f} bytes against {history:.0f} of history and {log:.0f} of display log "
        f"({data['retained_per_conversation']:.2f}x):\n{table}")
