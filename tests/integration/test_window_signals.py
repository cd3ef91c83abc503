"""SIGTERM and SIGHUP in the window: the composition
root's ``serve`` closes the window like the close button, so the turn in
progress is interrupted (its approved command's group stopped) and saved,
and the app exits 0."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication

from desktop_agent.app import serve
from desktop_agent.core.history import check_history
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_json
from desktop_agent.testing.procs import live_processes
from desktop_agent.testing.scripted_server import ScriptedLLMServer, text_reply, tool_reply
from desktop_agent.testing.window_rig import SignalLog, run_on_qasync
from desktop_agent.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=lambda s: signal.Signals(s).name)
def test_a_stop_signal_interrupts_the_running_command_saves_and_exits_zero(
    qapp: QApplication, tmp_path: Path, sig: int
) -> None:
    marker = f"sleep 46.{sig:02d}7"
    mcp = tmp_path / "mcp.json"
    mcp.write_text('{"mcpServers": {}}')
    seen: dict[str, object] = {}

    async def main() -> None:
        script = [text_reply("Let me check.\n<need_tool>"),
                  tool_reply("run_command", {"command": f"echo partial-line; {marker}"})]
        async with ScriptedLLMServer(script) as server:
            args = argparse.Namespace(base_url=server.base_url, model="scripted", api_key="k", tts="none",
                                      mcp_config=str(mcp))
            window = MainWindow(tray=False)
            window.show()
            attached, waiting = SignalLog(window.attached), SignalLog(window.waiting_for_user)
            serving = asyncio.ensure_future(serve(window, args))
            try:
                await attached.wait_for(timeout=30)
                window.send_text("run it")
                _, call_id = await waiting.wait_for(timeout=30)
                assert window.view is not None
                window.view.cards[call_id].approve_button.click()
                async with asyncio.timeout(20):
                    while not live_processes(marker):
                        await asyncio.sleep(0.05)
                os.kill(os.getpid(), sig)
                async with asyncio.timeout(30):
                    seen["exit"] = await serving
                seen["visible"] = window.isVisible()
            finally:
                if not serving.done():
                    window.close()
                    await serving
                window.deleteLater()

    run_on_qasync(main, timeout=90)
    assert seen == {"exit": 0, "visible": False}
    assert live_processes(marker) == []
    store = ConversationStore()
    try:
        saved = store.latest()
    finally:
        store.close()
    assert saved is not None
    check_history(saved.messages)
    assert "partial-line" in json.dumps(history_json(saved.messages))
    assert signal.getsignal(sig) is not signal.SIG_IGN  # serve puts the handlers back
