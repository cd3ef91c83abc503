"""Export to Markdown and JSON, and import of that JSON (issue 14)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.storage.conversation_export import ConversationFileError, from_json, to_json, to_markdown
from desktop_agent.storage.conversations import ConversationStore

HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": "list files"},
    {"role": "assistant", "content": "<voice>Sure.</voice>", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "run_command", "arguments": '{"command": "ls"}'}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "a.txt\nb.txt"},
    {"role": "user", "content": "hidden hook", "_hook": "h"},
    {"role": "assistant", "content": "Two files."},
]
EVENTS: list[dict[str, Any]] = [{"type": "user", "text": "list files"}, {"type": "text", "text": "Sure."}]


def test_json_export_round_trips_messages_and_events(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    store.save("c", HISTORY, EVENTS)
    stored = store.load("c")
    assert stored is not None
    data = json.loads(to_json(stored))
    assert (data["format"], data["messages"], data["events"], data["title"]) == (
        "desktop-agent-conversation", HISTORY, EVENTS, "list files")
    back = from_json(to_json(stored))
    assert (back.title, back.messages, back.events) == ("list files", HISTORY, EVENTS)


def test_markdown_export_has_the_words_and_one_line_per_tool() -> None:
    from desktop_agent.storage.conversations import StoredConversation

    text = to_markdown(StoredConversation("c", "list files", HISTORY, 0.0, EVENTS))
    assert text == (
        "# list files\n\n## User\n\nlist files\n\n## Assistant\n\nSure.\n\n"
        '> tool `run_command` {"command": "ls"}\n\n> result: a.txt b.txt\n\n## Assistant\n\nTwo files.\n'
    )


def test_a_bare_openai_list_imports_with_rebuilt_events() -> None:
    back = from_json(json.dumps(HISTORY))
    assert back.title == "list files" and back.messages == HISTORY
    assert [e["type"] for e in back.events][:3] == ["user", "text", "round_end"]


@pytest.mark.parametrize("text", ["not json", "{}", '{"messages": [1]}', '{"messages": "x"}'])
def test_a_file_that_is_not_a_conversation_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(ConversationFileError) as info:
        from_json(text)
    assert "\n" not in str(info.value)
