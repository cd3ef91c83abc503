"""Export to Markdown and JSON, and import of that JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.storage.conversation_export import ConversationFileError, from_json, to_json, to_markdown
from desktop_agent.storage.conversations import ConversationStore, StoredConversation
from desktop_agent.storage.history_json import history_items, history_json

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
    store.save("c", history_items(HISTORY), EVENTS)
    stored = store.load("c")
    assert stored is not None
    data = json.loads(to_json(stored))
    assert (data["format"], data["messages"], data["events"], data["title"]) == (
        "desktop-agent-conversation", HISTORY, EVENTS, "list files")
    back = from_json(to_json(stored))
    assert (back.title, history_json(back.messages), back.events) == ("list files", HISTORY, EVENTS)


def test_markdown_export_has_the_words_and_each_tool_call_in_code_blocks() -> None:
    text = to_markdown(StoredConversation("c", "list files", history_items(HISTORY), 0.0, EVENTS))
    assert text == (
        "# list files\n\n## User\n\nlist files\n\n## Assistant\n\nSure.\n\n"
        'Tool `run_command`:\n\n```json\n{\n  "command": "ls"\n}\n```\n\n'
        "Result:\n\n```\na.txt\nb.txt\n```\n\nTwo files.\n"
    )


TOOL_TURN: list[dict[str, Any]] = [
    {"role": "user", "content": "整理一下 notes"},
    {"role": "assistant", "content": "<voice>好的，我先看看。</voice>", "tool_calls": [
        {"id": "c1", "type": "function",
         "function": {"name": "run_command", "arguments": '{"command": "echo \\u4f60\\u597d"}'}}]},
    {"role": "tool", "tool_call_id": "c1",
     "content": "exit code 0\n--- stdout ---\n你好 **粗体**\n```py\nprint(1)\n```\n"},
    {"role": "assistant", "content": "One note:", "tool_calls": [
        {"id": "c2", "type": "function", "function": {"name": "read_file", "arguments": "not json `x`"}}]},
    {"role": "user", "content": "a hook's note to the model", "_hook": "after_tool"},
    {"role": "tool", "tool_call_id": "c2", "content": "# Title\n\n- a ````four```` run"},
    {"role": "assistant", "content": "Done: **one** note."},
    {"role": "user", "content": "谢谢"},
    {"role": "assistant", "content": "不客气。"},
]


def test_markdown_export_keeps_a_multi_round_answer_in_one_section_with_results_verbatim() -> None:
    text = to_markdown(StoredConversation("c", "整理一下 notes", history_items(TOOL_TURN), 0.0, []))
    assert text == """\
# 整理一下 notes

## User

整理一下 notes

## Assistant

好的，我先看看。

Tool `run_command`:

```json
{
  "command": "echo 你好"
}
```

Result:

````
exit code 0
--- stdout ---
你好 **粗体**
```py
print(1)
```
````

One note:

Tool `read_file`:

```
not json `x`
```

Result:

`````
# Title

- a ````four```` run
`````

Done: **one** note.

## User

谢谢

## Assistant

不客气。
"""


def test_the_json_export_of_a_tool_turn_is_unchanged_by_the_markdown_rework() -> None:
    back = from_json(to_json(StoredConversation("c", "整理一下 notes", history_items(TOOL_TURN), 0.0, [])))
    assert history_json(back.messages) == TOOL_TURN and back.title == "整理一下 notes"


def test_a_bare_openai_list_imports_with_rebuilt_events() -> None:
    back = from_json(json.dumps(HISTORY))
    assert back.title == "list files" and history_json(back.messages) == HISTORY
    assert [e["type"] for e in back.events][:3] == ["user", "text", "round_end"]


@pytest.mark.parametrize("text", ["not json", "{}", '{"messages": [1]}', '{"messages": "x"}'])
def test_a_file_that_is_not_a_conversation_is_refused_in_one_line(text: str) -> None:
    with pytest.raises(ConversationFileError) as info:
        from_json(text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "start", "key"),
    [("not json", "not JSON: ", "conv_import_not_json"), ("{}", "no message list in the file", "conv_import_no_messages"),
     ('{"messages": [1]}', "the message list holds entries that are not messages", "conv_import_bad_messages")],
)
def test_a_refusal_names_the_ui_text_that_words_it(text: str, start: str, key: str) -> None:
    """The window words it from ``key``, not by matching the English (which stays as it was)."""
    from desktop_agent.texts import text_in

    with pytest.raises(ConversationFileError) as info:
        from_json(text)
    assert str(info.value).startswith(start) and info.value.key == key
    assert text_in("zh", info.value.key, **info.value.fields)  # a text that exists, its fields enough
