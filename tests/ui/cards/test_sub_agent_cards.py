"""Card states of a sub_agent call and of its agent's calls (contracts §9)."""

from __future__ import annotations

from dataclasses import replace

from desktop_agent.core.messages import ToolProgressMessage
from desktop_agent.testing.window_rig import tool_item
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.cards.state import (
    apply_message,
    card_key,
    new_card,
)
from desktop_agent.ui.cards.wording import (
    progress_caption,
    title_for,
)

ARGS = {"command": "date"}


def test_a_nested_call_is_keyed_under_its_parent_and_its_approval_says_the_sub_agent_asks() -> None:
    message = replace(tool_item("approval_required", "call_1", arguments=ARGS, task_id="p.t1"), parent_tool_call_id="p")
    state = apply_message(new_card(message), message)

    assert (card_key(message), state.tool_call_id, state.parent_tool_call_id) == ("p/call_1", "p/call_1", "p")
    assert title_for(ENGLISH, state) == "Sub-agent wants to run run_command"
    assert title_for(CHINESE, state) == "子代理想要运行 run_command"
    main = tool_item("approval_required", "call_1", arguments=ARGS, task_id="t1")
    assert title_for(ENGLISH, apply_message(new_card(main), main)) == "run_command needs your approval"


def test_the_sub_agent_card_caption_is_the_sub_agents_latest_sentence() -> None:
    running = tool_item("executing", "p", "sub_agent", arguments={"task": "x", "allowed_tools": []})
    state = apply_message(new_card(running), running)
    for n, sentence in enumerate(["Looking.", "Found it."], 1):
        state = apply_message(state, ToolProgressMessage("p", n, None, sentence, None))

    assert state.progress is not None
    assert progress_caption(ENGLISH, state.progress) == "Found it."
