"""The typed history's JSON form on disk: the layout the app always wrote,
read back exactly, and anything else kept whole."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest

from desktop_agent.core.history_items import (
    AssistantMessage,
    HistoryItem,
    ToolAnswer,
    ToolCall,
    UnreadMessage,
    UserMessage,
    user_item,
    users_words,
)
from desktop_agent.core.hooks import HookNote
from desktop_agent.core.json_types import JSONObject, JSONReadable
from desktop_agent.core.messages import ImageContent
from desktop_agent.core.wire import (
    assistant_tool_calls,
    history_messages,
    hook_message,
    normalize,
    text_message,
    tool_message,
    user_message,
)
from desktop_agent.storage.history_json import (
    StoredHistory,
    history_item,
    history_items,
    history_json,
    item_json,
)

PNG = b"\x89PNG\r\n"
TYPED: list[HistoryItem] = [
    UserMessage("hi"),
    user_item("What is in this picture?", (ImageContent("image/png", PNG),), typed="/mcp__ev__picture"),
    AssistantMessage("Let me look.", (ToolCall("c1", "echo", '{"text": "x"}'), ToolCall("c2", "get_skill", "{}"))),
    ToolAnswer("c1", "echo: x"),
    ToolAnswer("c2", "Error: no such skill"),
    HookNote("system", "Be brief.", "brief, kind", True),
    AssistantMessage(None, (ToolCall("c3", "echo", "not json"),)),
    ToolAnswer("c3", "?"),
    AssistantMessage("Done."),
]
WRITTEN: list[JSONObject] = [
    user_message("hi"),
    user_message("What is in this picture?", [("image/png", PNG)], typed="/mcp__ev__picture"),
    assistant_tool_calls("Let me look.", [("c1", "echo", '{"text": "x"}'), ("c2", "get_skill", "{}")]),
    tool_message("c1", "echo: x"),
    tool_message("c2", "no such skill", is_error=True),
    hook_message(HookNote("system", "Be brief.", "brief, kind", True)),
    assistant_tool_calls(None, [("c3", "echo", "not json")]),
    tool_message("c3", "?"),
    text_message("assistant", "Done."),
]


def test_each_item_is_written_as_the_message_the_app_always_saved_key_for_key() -> None:
    written = history_json(TYPED)
    assert written == WRITTEN
    # Byte for byte, key order included: a row written now reads the same in an older version.
    assert json.dumps(written, ensure_ascii=False) == json.dumps(WRITTEN, ensure_ascii=False)


def test_saved_messages_read_back_as_the_same_items() -> None:
    assert history_items(json.loads(json.dumps(WRITTEN))) == TYPED


def test_the_messages_a_turn_starts_from_are_the_saved_layout_of_the_same_items() -> None:
    assert history_messages(TYPED) == WRITTEN


@pytest.mark.parametrize(
    "message",
    [
        {"role": "system", "content": "An imported system prompt."},
        {"role": "user", "content": "hi", "name": "alice"},
        {"role": "user", "content": [{"type": "text", "text": "parts"}]},
        {"role": "user", "content": "x", "_images": [{"type": "image_url", "image_url": {"url": "https://e/x.png"}}]},
        {"role": "assistant", "content": "x", "tool_calls": []},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "function": {"name": "t", "arguments": "{}"}}]},
        {"role": "assistant", "content": None, "refusal": "no"},
        {"role": "tool", "tool_call_id": 7, "content": "x"},
        {"role": "developer", "content": "x"},
        {"role": "user", "content": "x", "_hook": ["not", "a", "name"]},
    ],
)
def test_a_message_no_item_stands_for_exactly_is_kept_whole_and_written_back_unchanged(message: JSONObject) -> None:
    item = history_item(message)
    assert item == UnreadMessage(message)
    assert item_json(item) == message


def test_an_unread_message_is_sent_as_it_came_and_the_wire_copes_with_it() -> None:
    system = history_item({"role": "system", "content": "An imported system prompt."})
    sent = normalize(history_messages([system, UserMessage("hi")]))
    assert sent == [{"role": "system", "content": "An imported system prompt."}, {"role": "user", "content": "hi"}]


def test_the_users_words_are_what_was_typed_and_an_unread_user_message_counts_by_its_role() -> None:
    assert user_item("same", typed="same") == UserMessage("same")  # one typed form, as its JSON has one
    assert [users_words(item) for item in TYPED] == [
        "hi", "/mcp__ev__picture", None, None, None, None, None, None, None]
    assert users_words(history_item({"role": "user", "content": "hi", "name": "alice"})) == "hi"
    assert users_words(history_item({"role": "user", "content": "x", "_hook": ["bad"]})) is None


@pytest.mark.parametrize("message", [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "hello"},
    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    {"role": "user", "content": "hi", "_typed": "hey"},
    {"role": "user", "content": None},
    {"role": "assistant", "content": None},
    {"role": "assistant", "content": 3},
    {"role": "tool", "tool_call_id": 7, "content": "ok"},
    {"role": "tool", "content": "ok", "name": "x"},
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "x", "extra": 1},
])
def test_a_message_read_at_a_glance_is_the_item_the_write_back_check_reads(message: JSONObject) -> None:
    glance = history_item(message)
    checked = history_item(MappingProxyType(message))  # not a dict: always the full read and check

    assert glance == checked and type(glance) is type(checked)
    assert item_json(glance) == message


def test_a_stored_history_reads_as_the_items_made_at_once_and_makes_only_those_read() -> None:
    stored: list[JSONReadable] = [*history_json(TYPED), ["not a message"], {"role": "system", "content": "kept unread"}]
    lazy = StoredHistory(stored)

    assert lazy.made == 0 and len(lazy) == len(TYPED) + 1
    assert lazy[-1] == UnreadMessage({"role": "system", "content": "kept unread"}) and lazy[1] == TYPED[1]
    assert lazy.made == 2
    assert lazy[1:3] == TYPED[1:3] and lazy[::-1][1:] == TYPED[::-1]
    assert lazy == history_items(stored) and history_items(stored) == lazy and list(lazy) == history_items(stored)
    assert lazy.made == len(lazy)  # each made once, then kept
    with pytest.raises(IndexError):
        lazy[len(lazy)]
