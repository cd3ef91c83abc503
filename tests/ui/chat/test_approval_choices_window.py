"""The window over a real conversation (scripted LLM server, real built-in
tools, the real server-everything): after a rejection the card asks what
to do instead and that text is the conversation's next user message; a
read-only MCP tool's card offers trusting its server's read-only tools,
kept in the settings and used for the server's next read-only call."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from PySide6.QtWidgets import QApplication

from desktop_agent.core.history import check_history
from desktop_agent.mcp_engine import McpConfig, McpEngine
from desktop_agent.storage.settings import SettingsStore
from desktop_agent.testing import everything
from desktop_agent.testing.scripted_server import Script, text_reply, tool_reply
from desktop_agent.testing.window_rig import WindowRig, run_on_qasync, scripted_window
from desktop_agent.ui.cards.tool_card import ToolCardWidget

PLAN = text_reply("Let me check.\n<need_tool>")
ANSWER = [text_reply("Fine. <no_tool>"), text_reply("Here is the list.")]
"""A turn that needs no tool: the planning round, then the answer."""


def card_of(rig: WindowRig, call_id: str) -> ToolCardWidget:
    view = rig.window.view
    assert view is not None, "no turn is running"
    return view.cards[call_id]


def test_after_a_rejection_what_to_do_instead_is_the_next_user_message(qapp: QApplication) -> None:
    script = [PLAN, tool_reply("run_command", {"command": "rm -rf build"}), *ANSWER]
    instead = "Only list the build folder, do not delete anything"

    async def main() -> None:
        async with scripted_window(script) as rig:
            rig.window.send_text("clean up the build")
            _, call_id = await rig.waiting.wait_for()
            card = card_of(rig, call_id)
            assert not card.redirect.isVisibleTo(card)  # only once rejected
            card.reject_button.click()
            assert await rig.turns.wait_for() == ("rejected",)
            assert card.redirect.input.isVisibleTo(card)
            assert card.redirect.label.text() == "Tell the model what to do instead:"
            assert not card.redirect.send_button.isEnabled()  # nothing typed yet

            card.redirect.input.setText(instead)
            card.redirect.send_button.click()
            assert await rig.turns.wait_for() == ("completed",)

            assert not card.redirect.input.isVisibleTo(card)
            assert card.redirect.note.text() == f"Sent to the model: {instead}"
            sent = rig.server.requests[2]["messages"]  # the redirect turn's first request
            assert sent[-1]["role"] == "user"
            assert str(sent[-1]["content"]).split("\n\n[system instruction]")[0] == instead  # the planning note follows
            assert [m["role"] for m in sent[1:]] == ["user", "assistant", "tool", "assistant", "user"]
            assert "rejected" in str(sent[3]["content"])  # the rejection is still fed back, before it
            check_history(rig.conversation.history)

    run_on_qasync(main, timeout=60)


def test_a_new_turn_withdraws_the_offer_to_redirect(qapp: QApplication) -> None:
    script = [PLAN, tool_reply("run_command", {"command": "rm -rf build"}), *ANSWER]

    async def main() -> None:
        async with scripted_window(script) as rig:
            rig.window.send_text("clean up")
            _, call_id = await rig.waiting.wait_for()
            card = card_of(rig, call_id)
            card.reject_button.click()
            assert await rig.turns.wait_for() == ("rejected",)
            assert await rig.turn("never mind") == "completed"  # typed in the input instead
            assert not card.redirect.isVisibleTo(card)

    run_on_qasync(main, timeout=60)


@asynccontextmanager
async def everything_window(script: Script) -> AsyncIterator[WindowRig]:
    """The window over the scripted model with server-everything's tools (stdio)."""
    engine = McpEngine(McpConfig(servers=(everything.everything_stdio("everything"),)))
    assert await engine.start() == []
    try:
        async with scripted_window(script, engine=engine) as rig:
            yield rig
    finally:
        await engine.aclose()


@pytest.mark.integration
@pytest.mark.npm
def test_trusting_a_servers_read_only_tools_from_a_card_answers_its_next_read_only_call(
    qapp: QApplication,
) -> None:
    script = [
        PLAN, tool_reply("echo", {"message": "hi"}), text_reply("It said hi."),
        PLAN, tool_reply("get-sum", {"a": 1, "b": 2}), text_reply("3."),
    ]

    async def main() -> None:
        async with everything_window(script) as rig:
            rig.window.send_text("echo hi")
            _, call_id = await rig.waiting.wait_for(timeout=30)
            card = card_of(rig, call_id)
            assert card.always_server.isVisibleTo(card)
            assert card.always_server.text() == "Always allow read-only tools from everything"
            assert card.risk.isVisibleTo(card) is False  # read-only, local: nothing to warn of
            card.always_server.setChecked(True)
            card.approve_button.click()
            assert await rig.turns.wait_for(timeout=30) == ("completed",)
            assert SettingsStore().load().settings.trusted_read_only_servers == ("everything",)
            assert SettingsStore().load().settings.always_allow == ()  # the tool box was not ticked

            assert await rig.turn("add 1 and 2", timeout=30) == "completed"
            assert len(rig.waiting.events) == 1  # nobody was asked the second time
            second = [w for w in rig.window.chat.items() if isinstance(w, ToolCardWidget)][-1]
            assert (second.state.tool_name, second.state.auto_by) == ("get-sum", "read_only_setting")

    run_on_qasync(main, timeout=90)
