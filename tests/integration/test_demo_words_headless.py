"""The headless demo model answers in words: ``what time is it``
prints a sentence with the time and the day, no JSON, in English and in
Chinese (the real time server, everything approved)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration


def _ask(prompt: str, home: Path) -> str:
    env = {**os.environ, "DESKTOP_AGENT_HOME": str(home)}
    env.pop("OPENAI_BASE_URL", None)
    env.pop("OPENAI_API_KEY", None)
    proc = subprocess.run(
        [sys.executable, "-m", "desktop_agent", "--cli", "--model", "demo", "--prompt", prompt,
         "--approve", "all", "--tts", "none"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, env=env, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize(
    ("prompt", "sentence"),
    [
        ("what time is it", r"It is \d\d:\d\d UTC, (Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\."),
        ("现在几点", r"现在是 UTC \d\d:\d\d，星期[一二三四五六日]。"),
    ],
)
def test_the_time_is_printed_as_a_sentence_not_json(tmp_path: Path, prompt: str, sentence: str) -> None:
    out = _ask(prompt, tmp_path / "home")
    last = out.strip().splitlines()[-1]
    assert re.fullmatch(sentence, last), out
    assert "{" not in out and "datetime" not in out
