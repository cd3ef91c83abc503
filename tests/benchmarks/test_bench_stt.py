"""benchmarks/bench_stt.py runs end to end, briefly: Whisper base and
pocketsphinx side by side on the real fixtures, each figure reported (no
thresholds: timings belong to the machine)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_stt.py"
FIGURES = {"load_s", "rss_mib", "wer_en", "cer_zh", "latency_p50_s", "latency_p95_s", "rtf_median"}


def test_the_recognition_benchmark_reports_each_engine_side_by_side(tmp_path: Path) -> None:
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--runs", "1", "--engines", "whisper,pocketsphinx,sensevoice", "--json"],
        capture_output=True, text=True, timeout=300, env=env, check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    report = json.loads(lines[-1])
    whisper, sphinx, sensevoice = report["engines"]
    assert (whisper["engine"], sphinx["engine"]) == ("whisper", "pocketsphinx")
    assert sensevoice == {"engine": "sensevoice", "error": "no SenseVoice model on disk: skipped"}
    for engine in (whisper, sphinx):
        assert FIGURES <= set(engine) and all(engine[name] >= 0 for name in FIGURES), engine
        assert sorted(engine["heard"]) == ["en1", "en2", "en3", "zh1", "zh2", "zh3"]
    assert whisper["heard"]["zh1"] == "现在几点了"
    assert set(whisper["stages_s"]) == {"convert", "vad", "features", "encoder", "language", "decoder"}
    assert whisper["naive_s"] > 0
    assert lines[1].split() == ["engine", "WER", "en", "CER", "zh", "p50", "s", "p95", "s", "RTF", "en2", "s",
                                "load", "s", "RSS", "MiB"]
    assert [line.split()[0] for line in lines[3:6]] == ["whisper", "pocketsphinx", "sensevoice"]
