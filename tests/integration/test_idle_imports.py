"""What an idle window has not loaded (so it stays light): the audio
backend (made at the first clip or press), the keyring (read when a real
endpoint needs the key), the openai SDK (the demo model never needs it) and
the Markdown parser (warmed at the first key typed or message sent); nor
does it keep the source of the modules it imported (PySide6's import hook
would, in ``linecache``: ui/shell/source_scan.py). A real ``run_gui``
process, with the default speech settings and no saved conversation."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
NEVER_AT_IDLE = ("PySide6.QtMultimedia", "keyring", "openai", "edge_tts", "sherpa_onnx", "pocketsphinx", "markdown_it",
                 "faster_whisper", "ctranslate2", "opencc")

CHILD = """
import argparse, json, linecache, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from desktop_agent.app import run_gui
def report():
    print("LOADED", json.dumps(sorted({m.split(".")[0] if m.split(".")[0] != "PySide6" else m for m in sys.modules})), flush=True)
    print("SOURCES", json.dumps(sorted(linecache.cache)), flush=True)
    for w in QApplication.topLevelWidgets():
        if w.isWindow() and w.isVisible():
            w.close()
def shown():
    window = next(w for w in QApplication.topLevelWidgets() if hasattr(w, "attached"))
    window.attached.connect(lambda: QTimer.singleShot(500, report))
args = argparse.Namespace(model="demo", mcp_config=sys.argv[1])
args.on_window_shown = shown
sys.exit(run_gui(args))
"""


def test_an_idle_demo_window_has_loaded_no_audio_backend_keyring_or_sdk(tmp_path: Path) -> None:
    mcp = tmp_path / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {}}))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_AGENT_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(mcp)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("LOADED ")]
    loaded = set(json.loads(line.removeprefix("LOADED ")))
    assert "desktop_agent" in loaded and "PySide6.QtWidgets" in loaded  # the report saw the app
    assert sorted(loaded & set(NEVER_AT_IDLE)) == []
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("SOURCES ")]
    kept = json.loads(line.removeprefix("SOURCES "))
    assert [path for path in kept if "/desktop_agent/" in path] == []
    assert len(kept) < 20, kept  # anyio reads its own two package files; PySide6's hook kept ~640


SHOWN_CHILD = """
import argparse, json, sys
from PySide6.QtWidgets import QApplication
from desktop_agent.app import run_gui
def shown():
    print("AT_SHOW", json.dumps(sorted({m.split(".")[0] for m in sys.modules} | set(sys.modules))), flush=True)
    for w in QApplication.topLevelWidgets():
        if w.isWindow() and w.isVisible():
            w.close()
args = argparse.Namespace(model="demo", mcp_config=sys.argv[1])
args.on_window_shown = shown
sys.exit(run_gui(args))
"""

BEFORE_THE_WINDOW_NEVER = ("mcp", "desktop_agent.mcp_engine", "openai", "httpx")
"""Loaded only after the window is up: the MCP SDK and the openai SDK cost
about a second of start-up (a notice line that imported the MCP engine's
errors for its wording once put the first window 1.2 s later)."""


def test_the_first_window_is_shown_before_any_mcp_or_llm_sdk_is_loaded(tmp_path: Path) -> None:
    mcp = tmp_path / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {"time": {"command": "true"}}}))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_AGENT_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", SHOWN_CHILD, str(mcp)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("AT_SHOW ")]
    loaded = set(json.loads(line.removeprefix("AT_SHOW ")))
    assert "desktop_agent.ui.shell.notice_line" in loaded  # the notice line is up
    assert sorted(loaded & set(BEFORE_THE_WINDOW_NEVER)) == []
