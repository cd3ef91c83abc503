"""The window paints on its own thread: Qt's GUI thread pool stays off
(``ui/common/painting.py``), so a busy machine cannot keep the window
waiting for pool threads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_agent.ui.common.painting import POOL_OFF, paint_on_one_thread

ROOT = Path(__file__).resolve().parents[3]

# The real window, shown at 900x800 with a chat longer than the view (a
# scroll bar 700+ px tall, the fill Qt splits across threads), painted and
# scrolled; then the names of the process's threads.
WINDOW = """
import asyncio
import json
import sys
from pathlib import Path
from PySide6.QtWidgets import QApplication
from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormManager
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.window_rig import build_window, run_on_qasync
from desktop_agent.ui.chat.scroll_column import ScrollColumn

if "--pool-on" in sys.argv:  # the control: the window without the switch
    import desktop_agent.ui.shell.main_window as main_window
    main_window.paint_on_one_thread = lambda: None
app = QApplication([])

async def main():
    window, _ = build_window(Conversation(AgentClient(ScriptedLLM([]), ToolRouter([]))), FormManager())
    window.resize(900, 800)
    window.show()
    for i in range(30):
        window.chat.add_user(f"question {i}")
        window.chat.add_assistant_text("an answer " * 60)
        window.chat.end_bubble()
    bar = window.findChild(ScrollColumn).verticalScrollBar()
    for step in range(10):
        app.processEvents()
        bar.setValue(bar.maximum() - 40 * step)
        window.repaint()
        await asyncio.sleep(0.02)
    assert bar.maximum() > 800, bar.maximum()
    print("THREADS", json.dumps(sorted(Path(t, "comm").read_text().strip() for t in Path("/proc/self/task").iterdir())))
    window.close()
    await window.shutdown()

run_on_qasync(main, timeout=60)
"""


def _threads_after_painting(env: dict[str, str], *flags: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", WINDOW, *flags], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("THREADS ")]
    assert done.returncode == 0 and lines, done.stderr[-2000:]
    names: list[str] = json.loads(lines[0].removeprefix("THREADS "))
    return names


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="thread names are read from /proc")
def test_the_window_paints_a_long_chat_without_qts_paint_threads() -> None:
    env = {k: v for k, v in os.environ.items() if k != POOL_OFF}
    env["QT_QPA_PLATFORM"] = "offscreen"
    names = _threads_after_painting(env)
    assert "Thread (pooled)" not in names, names
    # The check can fail: a window that leaves the pool on starts it with the same painting.
    assert "Thread (pooled)" in _threads_after_painting(env, "--pool-on")


def test_a_value_the_user_set_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(POOL_OFF, "yes")
    paint_on_one_thread()
    assert os.environ[POOL_OFF] == "yes"
    monkeypatch.delenv(POOL_OFF)
    paint_on_one_thread()
    assert os.environ[POOL_OFF] == "1"
