"""A real ``run_gui`` process with dark and Chinese saved: the window is
dark and Chinese when it is first shown, before the services (or asyncio)
are loaded; and it opens again where it was closed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_agent.texts import text_in

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import argparse, json, sys
from PySide6.QtCore import QEvent, QObject, QRect
from PySide6.QtWidgets import QApplication
from desktop_agent.app import run_gui
from desktop_agent.ui.common.theme import palette_is_dark
class FirstShow(QObject):
    seen = None
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Show and hasattr(watched, "send_button") and FirstShow.seen is None:
            g = watched.geometry()
            FirstShow.seen = [watched.windowTitle(), watched.send_button.text(), palette_is_dark(watched.palette()),
                              "desktop_agent.services" in sys.modules, [g.x(), g.y(), g.width(), g.height()]]
        return False
probe = FirstShow()
QApplication.instance() or QApplication(sys.argv[:1])
QApplication.instance().installEventFilter(probe)
def shown():
    print("SEEN", json.dumps(FirstShow.seen), flush=True)
    window = next(w for w in QApplication.topLevelWidgets() if hasattr(w, "send_button"))
    window.setGeometry(QRect(30, 40, 620, 480))  # moved and resized by the user, then closed
    window.close()
args = argparse.Namespace(model="demo", mcp_config=sys.argv[1], tts="none")
args.on_window_shown = shown
sys.exit(run_gui(args))
"""


def first_show(tmp_path: Path) -> list[object]:
    mcp = tmp_path / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": {}}))
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DESKTOP_AGENT_HOME": str(tmp_path / "home")}
    env.pop("DESKTOP_AGENT_LANG", None)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(mcp)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("SEEN ")]
    seen = json.loads(line.removeprefix("SEEN "))
    assert isinstance(seen, list)
    return seen


def test_the_first_shown_window_is_dark_and_chinese_and_opens_where_it_was_closed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "settings.json").write_text(json.dumps({"language": "zh", "theme": "dark"}))
    title, send, dark, services_loaded, _geometry = first_show(tmp_path)
    assert (title, send, dark, services_loaded) == (text_in("zh", "app_title"), text_in("zh", "send"), True, False)
    assert json.loads((home / "window.json").read_text())["width"] == 620
    *_, geometry = first_show(tmp_path)
    assert geometry == [30, 40, 620, 480]
