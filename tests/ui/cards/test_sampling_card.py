"""The card of a server's sampling request (``ui/cards/sampling.py``): it
names the server, shows each message as its role and text and the token
limit, in English and in Chinese; pictures of both under the test's folder
and ``/work/shots25/s/`` when that folder can be made."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.messages import ToolCallMessage
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.cards.state import apply_message, new_card
from desktop_agent.ui.cards.tool_card import ToolCardWidget

SHOTS = Path("/work/shots25/s")
ARGS: JSONObject = {
    "server": "everything",
    "messages": [
        {"role": "user", "text": "Summarise the attached notes in one sentence."},
        {"role": "assistant", "text": "Which notes?"},
        {"role": "user", "text": "The meeting notes: [image: image/png]"},
    ],
    "max_tokens": 100,
}


def sampling_message(state: str, arguments: JSONObject = ARGS, **kw: object) -> ToolCallMessage:
    return ToolCallMessage(
        state, "call_1-sampling-1", "sampling", arguments, parent_tool_call_id="call_1", **kw  # type: ignore[arg-type]
    )


def card_for(qtbot: QtBot, texts: Texts, message: ToolCallMessage) -> ToolCardWidget:
    card = ToolCardWidget(apply_message(new_card(message), message), texts)
    qtbot.add_widget(card)
    card.resize(560, card.sizeHint().height())
    card.show()
    return card


def keep(card: ToolCardWidget, tmp_path: Path, name: str) -> Path:
    card.resize(560, card.sizeHint().height())
    path = tmp_path / name
    assert card.grab().save(str(path))
    try:
        SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, SHOTS / name)
    except OSError:
        pass  # only the test's folder on a machine without /work
    return path


@pytest.mark.parametrize(
    ("texts", "language", "title", "lines", "always"),
    [
        (ENGLISH, "en", "MCP server everything asks the model to answer",
         ["User: Summarise the attached notes in one sentence.", "Assistant: Which notes?",
          "User: The meeting notes: [image: image/png]", "", "At most 100 tokens"],
         "Always allow for everything"),
        (CHINESE, "zh", "MCP 服务器 everything 请求由模型回答",
         ["用户: Summarise the attached notes in one sentence.", "助手: Which notes?",
          "用户: The meeting notes: [image: image/png]", "", "最多 100 个词元"],
         "始终允许 everything 的此类请求"),
    ],
)
def test_the_approval_card_names_the_server_its_messages_and_the_limit(
    qtbot: QtBot, tmp_path: Path, texts: Texts, language: str, title: str, lines: list[str], always: str
) -> None:
    card = card_for(qtbot, texts, sampling_message("approval_required", task_id="call_1.sampling1"))

    assert card.state.phase == CardPhase.APPROVAL
    assert card.title.text() == title
    assert card.arguments.text().split("\n") == lines
    assert card.arguments.isVisibleTo(card) and card.approve_button.isVisibleTo(card)
    assert card.always.text() == always
    assert "{" not in card.arguments.text()  # words, not JSON
    keep(card, tmp_path, f"sampling_approval_{language}.png")


def test_the_answered_card_names_the_answer_and_keeps_the_request_in_its_details(qtbot: QtBot) -> None:
    card = card_for(qtbot, ENGLISH, sampling_message("approval_required", task_id="call_1.sampling1"))
    done = sampling_message("result", result="The notes say the launch moves to May.", is_error=False)
    card.show_state(apply_message(replace(card.state, phase=CardPhase.EXECUTING), done))

    assert card.title.text() == "Model answer for everything"
    assert card.badge.text() == ""  # no JSON summary beside the title
    card.set_expanded(True)
    assert card.result.text() == "The notes say the launch moves to May."
    assert card.arguments.text().endswith("At most 100 tokens")


def test_a_model_tool_named_sampling_is_shown_as_a_tool() -> None:
    message = ToolCallMessage("approval_required", "call_9", "sampling", {"server": "x"}, task_id="t1")
    from desktop_agent.ui.cards.sampling import sampling_of

    assert sampling_of(apply_message(new_card(message), message)) is None


def test_the_always_allow_entry_reads_as_the_servers_sampling_in_settings() -> None:
    from desktop_agent.ui.settings.mcp_wording import allow_entry_text

    assert allow_entry_text(ENGLISH, "sampling:everything") == "Model answers (sampling) — for everything"
    assert allow_entry_text(CHINESE, "sampling:everything") == "模型回答（采样）—— 供 everything 使用"


def test_a_request_card_takes_no_risk_or_server_from_a_tool_of_the_same_name(qtbot: QtBot) -> None:
    from desktop_agent.core.risk import ToolAnnotations
    from desktop_agent.ui.chat.chat_view import ChatView
    from desktop_agent.ui.chat.turn_view import TurnView

    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    view = TurnView(
        chat, on_answer=lambda *_a: None,
        server_of=lambda _name: "other", annotations_of=lambda _name: ToolAnnotations(destructive=True),
    )
    view.tool_event(sampling_message("start"))
    view.approval_needed(sampling_message("approval_required", task_id="call_1.sampling1"))

    [card] = view.cards.values()
    assert (card.state.server, card.state.annotations, card.state.destructive) == (None, None, False)
    assert card.title.text() == "MCP server everything asks the model to answer"


def test_a_request_during_a_sub_agents_call_sits_in_that_calls_card(qtbot: QtBot) -> None:
    from desktop_agent.ui.chat.chat_view import ChatView
    from desktop_agent.ui.chat.turn_view import TurnView

    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    view = TurnView(chat, on_answer=lambda *_a: None)
    view.tool_event(ToolCallMessage("executing", "call_1", "sub_agent", {"task": "x", "allowed_tools": ["t"]}))
    view.tool_event(ToolCallMessage("executing", "call_2", "t", {}, parent_tool_call_id="call_1"))
    asking = ToolCallMessage(
        "approval_required", "call_2-sampling-1", "sampling", ARGS, task_id="call_2.sampling1",
        parent_tool_call_id="call_2",
    )
    view.approval_needed(asking)

    sub_agent, nested = view.cards["call_1"], view.cards["call_1/call_2"]
    assert sub_agent.nested_cards() == [nested]
    assert [c.state.tool_name for c in nested.nested_cards()] == ["sampling"]
