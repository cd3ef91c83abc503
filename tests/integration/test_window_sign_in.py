"""Sign-in in the real window over the real composition root: a remote
server that wants a sign-in does not hold up the window, its status item
says so, Sign in from that item runs the OAuth flow (the consent page
goes to the window's browser opener; the test plays the browser) and the
server's tools join; Settings → Tools then says "signed in". The keyring
is an in-memory backend."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx2
import pytest

from desktop_agent.app import window_deps
from desktop_agent.mcp_engine import ServerStatus
from desktop_agent.mcp_engine.oauth import _print_url
from desktop_agent.services import build_services
from desktop_agent.testing.memory_keyring import memory_keyring
from desktop_agent.testing.oauth_servers import MemoryAuthServer, run_protected_server
from desktop_agent.testing.services_listener import RecordingListener
from desktop_agent.testing.window_rig import run_on_qasync
from desktop_agent.ui.shell.main_window import MainWindow

pytestmark = pytest.mark.integration


def test_sign_in_from_the_status_item_brings_the_servers_tools(tmp_path: Path) -> None:
    seen: dict[str, object] = {}

    async def main() -> None:
        with run_protected_server(MemoryAuthServer()) as server:
            config = tmp_path / "mcp.json"
            config.write_text(json.dumps({"mcpServers": {"remote": {"type": "http", "url": server.url}}}))
            services = await build_services(mcp_config=config, tts="none", keep_conversations=True, start_mcp=False)
            window = MainWindow(tray=False)
            visits: list[asyncio.Task[httpx2.Response]] = []

            async def visit(url: str) -> httpx2.Response:
                async with httpx2.AsyncClient(follow_redirects=True, timeout=10) as client:
                    return await client.get(url)

            try:
                window.attach(window_deps(services, None))
                assert services.mcp is not None
                oauth = services.mcp.oauth
                seen["window_opens_the_browser"] = oauth.open_url is not _print_url
                oauth.open_url = lambda _server, url: visits.append(asyncio.ensure_future(visit(url)))

                class Listener(RecordingListener):
                    def mcp_status(self, status: ServerStatus) -> None:
                        super().mcp_status(status)
                        window.refresh_status()

                services.listener = listener = Listener()
                services.start_mcp_in_background()
                waiting = await listener.next_status("sign_in")
                [label] = window.status.servers
                seen["waiting"] = (label.text(), label.toolTip(), waiting.error)
                seen["input"] = window.input.isEnabled()

                window.status.sign_in_requested.emit("remote")  # its menu's Sign in…
                ready = await listener.next_status("ready")
                seen["tools"] = ready.tools
                seen["visits"] = [task.result().status_code for task in visits]
                [label] = window.status.servers
                seen["ready"] = label.text()

                dialog = window.open_settings()
                assert dialog is not None
                tools = dialog.tools_page
                tools.refresh()
                seen["row"] = [(line.label.text(), line.button.text()) for line in tools.sign_ins.lines.values()]
                dialog.close()
            finally:
                window.close()
                await services.aclose()
                window.deleteLater()

    with memory_keyring():
        run_on_qasync(main, timeout=90)

    line = 'mcp server "remote" needs you to sign in (Settings → Tools, or --sign-in remote)'
    assert seen["window_opens_the_browser"] is True
    assert seen["waiting"] == ('<span style="color:#d29922">●</span> MCP remote: sign-in needed', line, line)
    assert seen["input"] is True
    assert seen["tools"] == ("whoami",)
    assert seen["visits"] == [200]
    assert seen["ready"] == '<span style="color:#2da44e">●</span> MCP remote: ready, 1 tool'
    assert seen["row"] == [("remote: signed in", "Sign out")]
