"""The headless demo tour's events file and history equal the golden
copies (contracts §5, §10 are contracts: outside tests read these files).

The golden files were first written by the code before the bus was typed;
the typed bus reproduces them key for key. Rewrite them only for a change
of behaviour, with ``.venv/bin/python tests/integration/golden_demo.py``,
and read the diff.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .golden_demo import GOLDEN, run_demo

pytestmark = pytest.mark.integration


def test_the_demo_tour_writes_the_golden_events_and_history(tmp_path: Path) -> None:
    events, history, proc = run_demo(tmp_path, tmp_path / "home")
    assert proc.returncode == 0, proc.stderr
    golden_events = [
        json.loads(line) for line in (GOLDEN / "demo_events.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    golden_history = json.loads((GOLDEN / "demo_history.json").read_text(encoding="utf-8"))
    assert events == golden_events
    assert history == golden_history
