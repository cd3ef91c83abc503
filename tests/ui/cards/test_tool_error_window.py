"""A tool's error result in a Chinese window: the card's details say what
kind of failure it is in Chinese (``ui/common/error_wording.py``), and the
tool's own message stays below it as the tool wrote it. The real window
over the scripted model, the real run_command. Screenshot under the test's
folder and ``/work/shots27/tidy/``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from desktop_agent.testing.scripted_server import Reply, ToolCallScript, text_reply
from desktop_agent.testing.window_rig import laid_out, scripted_window
from desktop_agent.texts import CHINESE
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.usefixtures("keep_loop_on_close")
SHOTS = Path("/work/shots27/tidy")


async def _save(window: MainWindow, tmp_path: Path, name: str) -> None:
    await laid_out(window)
    path = tmp_path / name
    assert window.grab().save(str(path))
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / name)


async def test_a_tools_error_is_worded_in_chinese_above_the_tools_own_message(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    calls = (
        ToolCallScript("nope", "{}"),
        ToolCallScript("run_command", json.dumps({"command": "ls", "cwd": str(gone)})),
    )
    script = [text_reply("看一下。<need_tool>"), Reply(tool_calls=calls), text_reply("好的。")]
    async with scripted_window(script, texts=CHINESE) as rig:
        rig.window.resize(860, 760)
        assert rig.window.send_text("列出文件")
        kind, call_id = await rig.waiting.wait_for(timeout=20)
        assert kind == "approval"
        view = rig.window.view
        assert view is not None
        view.cards[call_id].approve_button.click()
        assert await rig.turns.wait_for(timeout=20) == ("completed",)

        unknown, no_folder = [w for w in rig.window.chat.items() if isinstance(w, ToolCardWidget)]
        for card in (unknown, no_folder):
            assert card.state.is_error
            card.set_expanded(True)
            assert card.result_label.isVisibleTo(card) and card.result.isVisibleTo(card)
        assert unknown.result_label.text() == "模型调用了不存在的工具：nope"
        assert unknown.result.text().startswith("Error: unknown tool 'nope'")  # the agent's own words, kept
        assert no_folder.result_label.text() == f"工作文件夹不存在：{gone}"
        assert no_folder.result.text() == f"run_command: cwd does not exist or is not a folder: {gone}"
        await _save(rig.window, tmp_path, "tool_error_zh.png")
