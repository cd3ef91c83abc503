"""benchmarks/soak.py, run as a script for five turns: it reports every
figure at the start, middle and end, the slopes, and one JSON line."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "soak.py"
FIELDS = {"turn", "rss", "traced", "peak", "fds", "threads", "children", "turn_s", "history", "history_mem", "log_mem"}


async def test_five_turns_report_the_samples_slopes_and_one_json_line(tmp_path: Path) -> None:
    saved = tmp_path / "soak.json"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(SCRIPT), "--turns", "5", "--json", str(saved),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    lines = out.decode().splitlines()
    data = json.loads(lines[-1])
    assert data == json.loads(saved.read_text())
    assert data["turns"] == 5
    assert set(data["points"]) == {"start", "middle", "end"}
    assert [p["turn"] for p in data["points"].values()] == [1, 3, 5]
    for point in data["points"].values():
        assert set(point) == FIELDS
        assert point["rss"] > 0 and point["traced"] > 0 and point["fds"] > 0 and point["threads"] > 0
    # Each turn's echo was reaped; the history grew by the same turn five times.
    assert data["points"]["end"]["children"] == 0
    assert data["history_slope_bytes_per_turn"] > 0
    for key in ("rss_slope_bytes_per_turn", "traced_slope_bytes_per_turn", "peak_slope_bytes_per_turn",
                "history_mem_slope_bytes_per_turn", "fds_growth", "threads_growth"):
        assert isinstance(data[key], int | float)
    assert data["retained_per_conversation"] == data["traced_slope_bytes_per_turn"] / (
        data["history_mem_slope_bytes_per_turn"] + data["log_mem_slope_bytes_per_turn"])
    assert data["retained_per_history"] == (
        data["traced_slope_bytes_per_turn"] / data["history_mem_slope_bytes_per_turn"])
    table = "\n".join(lines[:-1])
    for word in ("RSS MiB", "traced MiB", "peak MiB", "fds", "threads", "children", "ms/turn", "history KB",
                 "in memory", "KB/turn", "retained / history",
                 "display log in mem", "retained / conversation"):
        assert word in table
