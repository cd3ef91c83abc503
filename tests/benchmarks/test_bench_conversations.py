"""benchmarks/bench_conversations.py runs end to end on small sizes and
reports every figure the issue asks for (open, search, save), side by side."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_conversations.py"


def test_the_conversations_benchmark_reports_open_search_and_save(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_AGENT_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--messages", "200", "--search-messages", "500", "--repeat", "3", "--json"],
        capture_output=True, text=True, timeout=120, env=env, check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    opened, search, save = report["open"], report["search"], report["save"]
    assert opened["big"]["widgets_drawn"] > 0 and opened["small"]["widgets_drawn"] > 0
    assert 0 < opened["big"]["first_paint"] <= opened["big"]["interactive"]
    assert opened["ratio_first_paint"] > 0 and opened["ratio_interactive"] > 0
    hit = report["open_hit"]  # at a search hit far back: a window, not everything after it
    assert 0 < hit["big"]["widgets_drawn"] < hit["big_to_end"]["widgets_drawn"] and hit["ratio_interactive"] > 0
    assert search["messages"] == 500 and search["fts"] is True
    assert {"fts_en", "fts_zh", "like_short", "all"} <= set(search)
    assert all(search[k]["hits"] > 0 for k in ("fts_en", "fts_zh", "like_short"))
    assert search["all"]["p50_ms"] <= search["all"]["p95_ms"]
    assert save["big_ms"] > 0 and save["small_ms"] > 0 and save["ratio"] > 0 and save["blob_ratio"] > 0
