"""benchmarks/bench_voice.py's barge-in section (6) runs end to end, briefly:
the real window plays espeak-ng through OutputTap, the microphone speaks
over it, and the rows say how long from the onset to the barge-in and to
the playback stopped, beside the rule before (no wall-clock threshold here:
the target is the bench's to judge)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_voice.py"
pytestmark = pytest.mark.integration


def test_the_barge_in_section_reports_onset_to_playback_stopped_beside_the_rule_before(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_AGENT_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, str(SCRIPT), "--barge", "--runs", "2"],
                          capture_output=True, text=True, timeout=110, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = {line[:60].rstrip(): line for line in done.stdout.splitlines() if line.startswith("6 ")}
    numbers = r"(\s+-?\d+\.\d){3}"
    expected = {
        "6 barge-in before: 300 ms of speech in a row (the old rule, same clip)": rf"\s+1{numbers}\s*",
        "6 barge-in: speech onset → barge-in fired (audio time)": rf"\s+2{numbers}\s*",
        "6 barge-in: that frame → playback stopped": rf"\s+2{numbers}\s*",
        "6 barge-in: speech onset → playback stopped": rf"\s+2{numbers}\s+≤ 300\s+(ok|OVER)",
    }
    for name, rest in expected.items():
        line = next((line for line in rows.values() if line.startswith(name)), None)
        assert line is not None and re.fullmatch(re.escape(name) + rest, line), (name, done.stdout)
