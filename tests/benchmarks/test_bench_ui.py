"""benchmarks/bench_ui.py's turn figures run end to end on small sizes: a
streamed reply, quiet and beside CPU burners the benchmark starts itself,
and one whose always-allowed chatty command runs first (the bench's
settings must name the tool as approvals key it today)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_ui.py"


def test_the_ui_benchmark_completes_a_streamed_turn_quiet_and_loaded_and_a_chatty_command(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_AGENT_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--tokens", "60", "--messages", "10", "--skip", "startup", "--skip", "bundle",
         "--burners", "1"],
        capture_output=True, text=True, timeout=150, env=env, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    stalls, loaded, chatty = report["stalls"], report["stalls_loaded"], report["chatty"]
    assert (stalls["status"], loaded["status"], chatty["status"]) == ("completed", "completed", "completed")
    assert loaded["burners"] == 1 and loaded["beats"] > 0
    assert all(r["cpu_gap_max_ms"] >= r["cpu_gap_p99_ms"] >= 0 for r in (stalls, loaded))  # the window thread's own CPU
    assert "| loaded (1 CPU burners)" in done.stdout
    assert stalls["beats"] > 0 and stalls["widgets"] >= 10
    assert chatty["output_lines"] == 200_000 and chatty["command_s"] > 0
