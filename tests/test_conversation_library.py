"""Importing a conversation that is here already adds nothing unless a copy
is asked for (conversation_library.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_agent.conversation_library import ConversationLibrary
from desktop_agent.storage.conversation_export import AlreadyImported
from desktop_agent.storage.conversations import ConversationStore

MESSAGES = [{"role": "user", "content": "Plan a weekend in Paris"}, {"role": "assistant", "content": "Sure."}]


def library(tmp_path: Path) -> tuple[ConversationLibrary, ConversationStore]:
    store = ConversationStore(tmp_path / "conversations.sqlite3")
    return ConversationLibrary(store, lambda _id: None), store  # type: ignore[arg-type, return-value]


def titles(store: ConversationStore) -> list[str]:
    return [c.title for c in store.conversations()]


def test_the_same_exported_file_imported_twice_is_found_by_its_id(tmp_path: Path) -> None:
    lib, store = library(tmp_path)
    file = tmp_path / "paris.json"
    file.write_text(json.dumps({"id": "abc123", "title": "Paris trip", "messages": MESSAGES}), encoding="utf-8")
    assert lib.import_file(file) == "abc123"  # keeps the id it was exported with while that is free
    with pytest.raises(AlreadyImported) as again:
        lib.import_file(file)
    assert again.value.existing_id == "abc123" and again.value.key == "conv_import_already"
    assert str(again.value) == "the conversation 'Paris trip' is here already"
    assert titles(store) == ["Paris trip"]  # nothing duplicated
    copy = lib.import_file(file, as_copy=True)
    assert copy != "abc123" and titles(store) == ["Paris trip", "Paris trip"]  # asked for


def test_a_file_without_an_id_is_found_by_its_title_and_messages(tmp_path: Path) -> None:
    lib, store = library(tmp_path)
    first = lib.import_text(json.dumps(MESSAGES))  # a bare message list: titled from the first message
    with pytest.raises(AlreadyImported) as again:
        lib.import_text(json.dumps(MESSAGES))
    assert again.value.existing_id == first
    other = [*MESSAGES, {"role": "user", "content": "and Lyon?"}]
    assert lib.import_text(json.dumps(other)) != first  # same title, other messages: another conversation
    assert len(store.conversations()) == 2


def test_a_deleted_conversation_does_not_stop_its_import(tmp_path: Path) -> None:
    lib, store = library(tmp_path)
    text = json.dumps({"id": "abc123", "title": "Paris trip", "messages": MESSAGES})
    lib.import_text(text)
    lib.delete("abc123")  # still undoable, not shown
    again = lib.import_text(text)
    assert again != "abc123" and [c.id for c in store.conversations()] == [again]
