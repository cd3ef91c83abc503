"""The real window over a real conversation whose tools include the real
server-everything (stdio): structured content shows as fields on the card,
resource links as a list, the model gets the text (qasync loop)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from desktop_agent.mcp_engine import McpConfig, McpEngine
from desktop_agent.storage.history_json import history_json
from desktop_agent.testing.everything import everything_stdio
from desktop_agent.testing.scripted_server import text_reply, tool_reply
from desktop_agent.testing.window_rig import WindowRig, run_on_qasync, scripted_window
from desktop_agent.ui.cards.tool_card import ToolCardWidget

pytestmark = pytest.mark.integration


def cards(rig: WindowRig) -> list[ToolCardWidget]:
    return [w for w in rig.window.chat.items() if isinstance(w, ToolCardWidget)]


async def _approve_next(rig: WindowRig) -> None:
    kind, call_id = await rig.waiting.wait_for()
    assert kind == "approval"
    view = rig.window.view
    assert view is not None
    view.cards[call_id].approve_button.click()


def test_structured_content_and_resource_links_of_a_real_server_show_on_their_cards(qapp: QApplication) -> None:
    script = [
        text_reply("Checking.\n<need_tool>"),
        tool_reply("get-structured-content", {"location": "Chicago"}),
        tool_reply("get-resource-links", {"count": 2}),
        text_reply("Done."),
    ]

    async def main() -> None:
        engine = McpEngine(McpConfig(servers=(everything_stdio("everything"),)))
        try:
            assert await engine.start() == []
            async with scripted_window(script) as rig:
                rig.conversation.agent.router.add_source(engine.shared_source())
                rig.window.send_text("weather and links")
                await _approve_next(rig)
                await _approve_next(rig)
                assert await rig.turns.wait_for() == ("completed",)

                weather, links = cards(rig)
                assert weather.structured.isVisibleTo(weather)
                assert weather.structured.field_rows() == [
                    ("temperature", "36"), ("conditions", "Light rain / drizzle"), ("humidity", "82")
                ]
                assert links.resource_links.isVisibleTo(links)
                assert [ref.uri for ref in links.resource_links.refs] == [
                    "demo://resource/dynamic/blob/1", "demo://resource/dynamic/text/2"
                ]
                tool_messages = [m for m in history_json(rig.conversation.history) if m["role"] == "tool"]
                assert '"temperature":36' in str(tool_messages[0]["content"])
                assert "[resource link: Text Resource 2 demo://resource/dynamic/text/2]" in str(
                    tool_messages[1]["content"]
                )
        finally:
            await engine.aclose()

    run_on_qasync(main, timeout=60)
