"""The window over a real conversation with a sub_agent call (contracts §9):
nested cards inside the sub_agent card, each answered with its own
buttons; a reject on a nested card ends the turn."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from desktop_agent.core.history import check_history
from desktop_agent.testing.scripted_server import text_reply, tool_reply
from desktop_agent.testing.window_rig import WindowRig, run_on_qasync, scripted_window
from desktop_agent.ui.cards.tool_card import ToolCardWidget

pytestmark = pytest.mark.integration

PLAN = text_reply("Let me delegate.\n<need_tool>")
DELEGATE = tool_reply("sub_agent", {"task": "Print hello.", "allowed_tools": ["run_command"]})
NESTED = tool_reply("run_command", {"command": "echo hello-sub"}, text="I'll print it.")


def top_cards(rig: WindowRig) -> list[ToolCardWidget]:
    return [w for w in rig.window.chat.items() if isinstance(w, ToolCardWidget)]


async def approve_next(rig: WindowRig, approve: bool = True) -> ToolCardWidget:
    kind, key = await rig.waiting.wait_for()
    assert kind == "approval"
    view = rig.window.view
    assert view is not None
    card = view.cards[key]
    (card.approve_button if approve else card.reject_button).click()
    return card


def test_nested_calls_are_cards_inside_the_sub_agent_card_with_their_own_buttons(qapp: QApplication) -> None:
    script = [PLAN, DELEGATE, NESTED, text_reply("It printed hello-sub."), text_reply("Done.")]

    async def main() -> None:
        async with scripted_window(script, sub_agent=True) as rig:
            rig.window.send_text("delegate")
            parent = await approve_next(rig)
            nested = await approve_next(rig)
            assert await rig.turns.wait_for() == ("completed",)

            assert top_cards(rig) == [parent]
            assert parent.nested_cards() == [nested]
            assert nested.state.parent_tool_call_id == parent.state.tool_call_id
            assert (nested.state.phase, parent.state.phase) == ("done", "done")
            assert nested.state.result is not None and "hello-sub" in nested.state.result
            assert parent.state.result == "It printed hello-sub."
            check_history(rig.conversation.history)

    run_on_qasync(main, timeout=60)


def test_rejecting_a_nested_card_ends_the_sub_agent_and_the_turn(qapp: QApplication) -> None:
    script = [PLAN, DELEGATE, NESTED, text_reply("never sent"), text_reply("never sent")]

    async def main() -> None:
        async with scripted_window(script, sub_agent=True) as rig:
            rig.window.send_text("delegate")
            parent = await approve_next(rig)
            nested = await approve_next(rig, approve=False)
            assert await rig.turns.wait_for() == ("rejected",)

            assert (nested.state.phase, nested.state.outcome) == ("rejected", "rejected")
            assert (parent.state.phase, parent.state.outcome) == ("rejected", "rejected")
            assert parent.state.partial_result["text"] == "I'll print it."
            assert len(rig.server.requests) == 3
            check_history(rig.conversation.history)

    run_on_qasync(main, timeout=60)
