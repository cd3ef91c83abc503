"""The demo tour's events file and history, normalised so two runs compare
equal: the session id, clock readings and form ids vary, nothing else may.

Run as a script to (re)write the golden files from the current code:
``.venv/bin/python tests/integration/golden_demo.py`` (then read the diff).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).parent / "golden"

_SUBSTITUTIONS = [
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?[+-]\d\d:\d\d"), "<DATETIME>"),
    (re.compile(r'"day_of_week": "\w+"'), '"day_of_week": "<DAY>"'),
    (re.compile(r"\b\w{3} \w{3} +\d{1,2} \d\d:\d\d:\d\d \w+ \d{4}\b"), "<DATE>"),
    (re.compile(r"form-[0-9a-f]{12}"), "<FORM_ID>"),
    # the demo's reading of the time ("It is 20:21 UTC, Monday."), after <DATE> took the command's
    (re.compile(r"\b\d\d:\d\d UTC\b"), "<HH:MM> UTC"),
    (re.compile(r"\b(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b"), "<DAY>"),
]


def normalise_text(text: str) -> str:
    for pattern, replacement in _SUBSTITUTIONS:
        text = pattern.sub(replacement, text)
    return text


def normalise(value: Any) -> Any:
    if isinstance(value, str):
        return normalise_text(value)
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, dict):
        return {k: ("<SESSION>" if k == "session_id" else normalise(v)) for k, v in value.items()}
    return value


def run_demo(tmp: Path, home: Path) -> tuple[list[Any], list[Any], subprocess.CompletedProcess[str]]:
    """The demo tour, headless, everything approved, no speech, no input."""
    events, history = tmp / "events.jsonl", tmp / "history.json"
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home)}
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)
    proc = subprocess.run(
        [sys.executable, "-m", "desktop_agent", "--cli", "--model", "demo", "--prompt", "demo",
         "--approve", "all", "--tts", "none", "--events-jsonl", str(events), "--history-json", str(history)],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, env=env, check=False,
    )
    got_events = [normalise(json.loads(line)) for line in events.read_text(encoding="utf-8").splitlines()]
    got_history = normalise(json.loads(history.read_text(encoding="utf-8")))
    return got_events, got_history, proc


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        events, history, proc = run_demo(Path(tmp), Path(tmp) / "home")
    if proc.returncode != 0:
        sys.exit(f"demo run failed ({proc.returncode}): {proc.stderr}")
    GOLDEN.mkdir(exist_ok=True)
    (GOLDEN / "demo_events.jsonl").write_text(
        "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in events), encoding="utf-8"
    )
    (GOLDEN / "demo_history.json").write_text(
        json.dumps(history, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main()
