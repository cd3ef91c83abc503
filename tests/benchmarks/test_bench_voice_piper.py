"""benchmarks/bench_voice.py's Piper section (8) runs end to end, briefly:
both engines reach the sink through the real pipeline and queue, and the
summary judges the relative target (no wall-clock threshold here)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_voice.py"
pytestmark = pytest.mark.integration


def test_the_piper_section_measures_both_engines_side_by_side(tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_AGENT_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, str(SCRIPT), "--piper", "--runs", "2"],
                          capture_output=True, text=True, timeout=110, env=env, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("8 ")]
    for kind in ("short first clause", "long first sentence"):
        for engine in ("espeak-ng", "piper"):
            row = f"8 first token → first PCM at sink, {engine} streamed, {kind}"
            assert any(re.fullmatch(rf"{row}\s+2(\s+\d+\.\d){{3}}\s*", line) for line in lines), (row, lines)
        summary = rf"8 {kind}: piper - espeak-ng = [+-]\d+ ms p50, [+-]\d+ ms p95 \(target p50 ≤ \+150 ms\): (ok|OVER)"
        assert any(re.fullmatch(summary, line) for line in lines), lines
    assert any(re.fullmatch(r"8 piper real-time factor: \d+\.\d\d p50, \d+\.\d\d p95", line) for line in lines)
