"""Never block, never freeze at start: the real window and
composition root with MCP servers that never answer or fail at first, on
the demo model. The input takes text before anything is ready, a turn runs
while a server still starts and says so in one line, Settings opens, and a
failed server is retried (its status item's Retry, the next turn) until its
tools join. Every wait is on a signal or a status, bounded."""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from desktop_agent.app import serve, window_deps
from desktop_agent.mcp_engine import ServerStatus
from desktop_agent.services import build_services
from desktop_agent.testing.mcp_servers import SILENT_CODE, gated_entry, silent_entry
from desktop_agent.testing.procs import live_processes
from desktop_agent.testing.services_listener import RecordingListener
from desktop_agent.testing.window_rig import SignalLog, run_on_qasync
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.shell.status_bar import server_views

pytestmark = pytest.mark.integration


def run(main: Callable[[], Awaitable[None]]) -> None:
    run_on_qasync(main, timeout=90)


def servers_file(tmp_path: Path, servers: dict[str, object]) -> Path:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"mcpServers": servers}))
    return path


def system_lines(window: MainWindow) -> list[str]:
    return [w.text() for w in window.chat.items() if isinstance(w, SystemMessage)]


def test_the_input_and_settings_work_while_a_server_never_answers(tmp_path: Path) -> None:
    args = argparse.Namespace(model="demo", tts="none", mcp_config=str(servers_file(tmp_path, {
        "silent": silent_entry(),
    })))
    seen: dict[str, object] = {}

    async def main() -> None:
        window = MainWindow(tray=False)
        window.show()
        turns, attached = SignalLog(window.turn_finished), SignalLog(window.attached)
        # Before the services exist, let alone the server: the message is held.
        seen["input_enabled"] = window.input.isEnabled()
        seen["held"] = window.send_text("hello")
        serving = asyncio.ensure_future(serve(window, args))
        try:
            await attached.wait_for(timeout=30)
            (status,) = await turns.wait_for(timeout=30)
            seen["status"] = status
            deps = window.deps
            assert deps is not None and deps.mcp is not None
            seen["servers"] = [(s.name, s.state) for s in deps.mcp.statuses()]
            seen["status_bar"] = [(label.text(), label.toolTip()) for label in window.status.servers]
            seen["lines"] = system_lines(window)
            dialog = window.open_settings()
            seen["settings"] = dialog is not None and dialog.isVisible()
            if dialog is not None:
                dialog.close()
            seen["second"] = window.send_text("still there?")
            await turns.wait_for(timeout=30)
        finally:
            window.close()
            seen["exit"] = await serving
            window.deleteLater()

    run(main)

    assert seen["input_enabled"] and seen["held"] and seen["second"]
    assert seen["status"] == "completed"
    assert seen["servers"] == [("silent", "starting")]  # it never answered, and nobody waited for it
    assert seen["status_bar"] == [
        ('<span style="color:#d29922">●</span> MCP silent: starting', "Starting — its tools join once it is ready")
    ]
    assert seen["lines"] == ["Answering without the tools of MCP silent — not ready yet"]
    assert seen["settings"] is True
    assert seen["exit"] == 0
    assert live_processes(SILENT_CODE) == []


def test_a_failed_server_is_retried_from_its_status_item_and_at_the_next_turn(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    config = servers_file(tmp_path, {"gated": gated_entry(gate)})
    seen: dict[str, object] = {}

    async def main() -> None:
        services = await build_services(mcp_config=config, tts="none", keep_conversations=True, start_mcp=False)
        window = MainWindow(tray=False)
        turns = SignalLog(window.turn_finished)
        try:
            window.attach(window_deps(services, None))

            class Listener(RecordingListener):
                def mcp_status(self, status: ServerStatus) -> None:
                    super().mcp_status(status)
                    window.refresh_status()

            services.listener = listener = Listener()
            services.start_mcp_in_background()
            failed = await listener.next_status("failed")
            [label] = window.status.servers
            seen["failed_tip"], seen["failed_error"] = label.toolTip(), failed.error

            # Retry from the status item: the gate is still closed, so it fails again.
            menu = window.status.server_menu(server_views([failed])[0])
            [retry] = [a for a in menu.actions() if a.text() == "Retry"]
            retry.trigger()
            await listener.next_status("failed")

            gate.touch()
            window.send_text("hello")  # the next turn retries it, in the background
            seen["first_turn"] = (await turns.wait_for(timeout=30))[0]
            ready = await listener.next_status("ready") if services.router.lookup("greet") is None else None
            seen["ready"] = ready is None or ready.tools == ("greet", "add_tool")
            seen["tools"] = [s.name for s in services.router.specs() if s.server == "gated"]
            seen["ready_tip"] = window.status.servers[0].toolTip()
            window.send_text("and now?")
            seen["second_turn"] = (await turns.wait_for(timeout=30))[0]
            seen["lines"] = system_lines(window)
        finally:
            window.close()
            await window.shutdown()
            await services.aclose()
            window.deleteLater()

    run(main)

    tip = seen["failed_tip"]
    assert tip == seen["failed_error"] and isinstance(tip, str)
    assert tip.startswith('mcp server "gated" failed to start')
    assert seen["first_turn"] == seen["second_turn"] == "completed"
    assert seen["ready"] is True
    assert seen["tools"] == ["greet", "add_tool"]
    assert seen["ready_tip"] == "greet\nadd_tool"
    # Said for the first turn only: by the second the server was up.
    assert seen["lines"] == ["Answering without the tools of MCP gated (failed, retrying) — not ready yet"]
    assert live_processes(str(gate)) == []
