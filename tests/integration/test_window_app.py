"""``python -m desktop_agent`` opens the window (offscreen here; the README
runs it under Xvfb), takes a screenshot and exits cleanly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def launch(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    mcp = tmp_path / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {}}))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_AGENT_LANG": "en"}
    return subprocess.run(
        [sys.executable, "-m", "desktop_agent", "--model", "demo", "--tts", "none", "--mcp-config", str(mcp), *extra],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )


def test_the_window_opens_shoots_and_quits_with_status_zero(tmp_path: Path) -> None:
    shot = tmp_path / "window.png"
    done = launch(tmp_path, "--screenshot", str(shot), "--quit-after-ms", "600")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    image = QImage(str(shot))
    assert (image.width(), image.height()) == (800, 760)  # 1100×760, fitted to the offscreen 800×800 screen


def test_a_bad_mcp_file_is_one_line_and_status_two(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-m", "desktop_agent", "--model", "demo", "--tts", "none", "--mcp-config", str(bad),
         "--quit-after-ms", "0"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 2
    errors = [line for line in done.stderr.splitlines() if line.startswith("desktop-agent: error:")]
    assert len(errors) == 1, done.stderr
    assert "Traceback" not in done.stderr


async def test_the_composition_root_hands_the_window_the_services(tmp_path: Path, qapp: QApplication) -> None:
    # window_deps asks QtMultimedia for the microphone: a Qt application exists then.
    from desktop_agent.app import window_deps
    from desktop_agent.core.history_items import UserMessage
    from desktop_agent.services import build_services

    mcp = tmp_path / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {}}))
    services = await build_services(mcp_config=mcp, tts="none", keep_conversations=True)
    try:
        deps = window_deps(services, None)
        assert deps.settings_feature is not None
        assert deps.settings_feature.apply == services.apply_settings  # the one way settings apply
        assert (deps.model_name, deps.is_demo, deps.settings) == ("demo", True, services.settings)
        deps.conversation.history.append(UserMessage("kept"))
        assert deps.keeper is not None
        deps.keeper.save(deps.conversation)
        fresh = deps.keeper.new(deps.conversation)
        assert fresh.conversation_id != deps.conversation.conversation_id and fresh.history == []
        assert services.resume_conversation().history == [UserMessage("kept")]
    finally:
        await services.aclose()
