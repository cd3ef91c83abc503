"""Saved conversations: latest comes back; a corrupt database loses nothing."""

from __future__ import annotations

import json
import sqlite3
import stat
from pathlib import Path

import pytest

from desktop_agent.core.history_items import AssistantMessage, HistoryItem, UserMessage
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items, history_json
from desktop_agent.storage.paths import data_dir


def test_saved_history_comes_back_as_the_latest(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    first: list[HistoryItem] = [UserMessage("first question\nmore"), AssistantMessage("a")]
    store.save("one", first)
    store.save("two", [UserMessage("你好")])
    store.save("one", [*first, UserMessage("again")])
    store.close()
    again = ConversationStore(tmp_path / "c.sqlite3")
    latest = again.latest()
    assert latest is not None
    assert (latest.id, latest.title, len(latest.messages)) == ("one", "first question", 3)
    again.delete("one")
    latest = again.latest()
    assert latest is not None and latest.id == "two" and latest.messages[0] == UserMessage("你好")
    assert again.error is None


def test_an_empty_store_has_no_latest(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    store.save("x", [])
    assert store.latest() is None


def test_a_corrupt_database_is_set_aside_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    store = ConversationStore(path)
    assert store.error is not None and "\n" not in store.error and "corrupt-1" in store.error
    assert (tmp_path / "c.sqlite3.corrupt-1").read_bytes().startswith(b"this is not")
    store.save("x", [UserMessage("hi")])
    assert store.latest() is not None


def test_a_new_database_is_readable_only_by_its_owner_and_an_existing_one_keeps_its_mode(tmp_path: Path) -> None:
    # Conversations hold private text; but a mode the user set is theirs.
    fresh = ConversationStore(tmp_path / "new.sqlite3")
    fresh.save("c1", [UserMessage("private")])
    fresh.close()
    old = tmp_path / "old.sqlite3"
    ConversationStore(old).close()
    old.chmod(0o640)
    ConversationStore(old).close()
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "new.sqlite3", old)} == {
        "new.sqlite3": 0o600, "old.sqlite3": 0o640}


def test_a_new_data_folder_is_private_and_an_existing_one_keeps_its_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = tmp_path / "fresh" / "home"
    monkeypatch.setenv("DESKTOP_AGENT_HOME", str(fresh))
    assert stat.S_IMODE(data_dir().stat().st_mode) == 0o700
    wide = tmp_path / "wide"
    wide.mkdir(mode=0o755)
    wide.chmod(0o750)
    monkeypatch.setenv("DESKTOP_AGENT_HOME", str(wide))
    assert stat.S_IMODE(data_dir().stat().st_mode) == 0o750


# ----------------------------------------- saves that append, and the migration

def _rows(path: Path, table: str) -> list[tuple[int, int]]:
    db = sqlite3.connect(path)
    try:
        return list(db.execute(f"SELECT id, seq FROM {table} ORDER BY seq"))
    finally:
        db.close()


def test_a_save_appends_the_turn_and_leaves_earlier_rows_alone(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store = ConversationStore(path)
    history: list[HistoryItem] = [UserMessage("q1"), AssistantMessage("a1")]
    events = [{"type": "user", "text": "q1"}, {"type": "text", "text": "a1"}]
    store.save("c", history, events)
    before = _rows(path, "messages")
    history += [UserMessage("q2"), AssistantMessage("a2")]
    events += [{"type": "user", "text": "q2"}]
    store.save("c", history, events)
    after = _rows(path, "messages")
    assert after[:2] == before and [seq for _id, seq in after] == [0, 1, 2, 3]
    loaded = store.load("c")
    assert loaded is not None and (loaded.messages, loaded.events) == (history, events)


def test_a_taken_back_exchange_rewrites_only_the_tail(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    history: list[HistoryItem] = [UserMessage("q"), AssistantMessage("old")]
    store.save("c", history, [{"type": "user", "text": "q"}, {"type": "text", "text": "old"}])
    history[1] = AssistantMessage("new")  # Regenerate: same length, other words
    store.save("c", history, [{"type": "user", "text": "q"}, {"type": "text", "text": "new"}], rewound=(1, 1))
    loaded = store.load("c")
    assert loaded is not None
    assert loaded.messages[1] == AssistantMessage("new") and loaded.events[1]["text"] == "new"
    assert [h.text for h in store.search("old")] == [] and [h.text for h in store.search("new")] == ["new"]


def test_an_old_database_is_migrated_with_a_private_backup(tmp_path: Path) -> None:
    path = tmp_path / "conversations.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE conversations (id TEXT PRIMARY KEY, title TEXT NOT NULL, "
               "messages TEXT NOT NULL, updated_at REAL NOT NULL)")
    old = [{"role": "user", "content": "天气怎么样"},
           {"role": "assistant", "content": "", "tool_calls": [
               {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}]},
           {"role": "tool", "tool_call_id": "c1", "content": "晴"},
           {"role": "assistant", "content": "今天晴朗"}]
    db.execute("INSERT INTO conversations VALUES ('a', '天气怎么样', ?, 1.0)", (json.dumps(old),))
    db.execute("INSERT INTO conversations VALUES ('b', 'broken', 'not json', 2.0)")
    db.commit()
    db.close()
    path.chmod(0o644)
    store = ConversationStore(path)
    assert store.backup is not None and store.backup.name == "conversations.sqlite3.v1-backup"
    assert stat.S_IMODE(store.backup.stat().st_mode) == 0o600  # a new file: private
    assert stat.S_IMODE(path.stat().st_mode) == 0o644  # the user's file keeps its mode
    kept = sqlite3.connect(store.backup)
    assert kept.execute("SELECT count(*) FROM conversations").fetchone() == (2,)
    kept.close()
    loaded = store.latest()
    assert loaded is not None and (loaded.id, loaded.title, history_json(loaded.messages)) == ("a", "天气怎么样", old)
    assert [e["type"] for e in loaded.events][:2] == ["user", "tool_call"]
    assert [h.conversation_id for h in store.search("今天晴")] == ["a"]
    store.close()
    again = ConversationStore(path)  # migrated once: no second backup
    assert again.backup is None and [c.id for c in again.conversations()] == ["a"]


def test_search_finds_english_and_chinese_words_in_any_conversation(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    assert store.fts
    store.save("en", history_items([{"role": "user", "content": "Book a Flight to Paris"},
                                    {"role": "assistant", "content": "<voice>Paris flights</voice> are cheap."},
                                    {"role": "tool", "tool_call_id": "x", "content": "paris tool output"}]))
    store.save("zh", [UserMessage("明天北京的天气怎么样？"), AssistantMessage("北京明天晴。")])
    assert [(h.conversation_id, h.seq) for h in store.search("paris")] == [("en", 0), ("en", 1)]
    assert store.search("flights")[0].text == "Paris flights are cheap."  # tags stripped
    assert [(h.conversation_id, h.seq) for h in store.search("北京的天气")] == [("zh", 0)]
    assert [(h.conversation_id, h.seq) for h in store.search("北京")] == [("zh", 0), ("zh", 1)]  # 2 chars: LIKE
    assert store.search("  ") == [] and store.search('"; DROP') == []
    store.delete("zh")
    assert store.search("北京") == []


def test_rename_delete_undo_and_purge(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store = ConversationStore(path)
    store.save("a", [UserMessage("first one\nsecond line")])
    store.save("b", [UserMessage("second one")])
    assert [(c.id, c.title) for c in store.conversations()] == [("b", "second one"), ("a", "first one")]
    store.rename("a", "  Renamed  ")
    store.save("a", [UserMessage("first one"), AssistantMessage("x")])
    assert [(c.id, c.title) for c in store.conversations()] == [("a", "Renamed"), ("b", "second one")]
    store.delete("a")
    assert [c.id for c in store.conversations()] == ["b"]
    store.undelete("a")
    assert [c.id for c in store.conversations()] == ["a", "b"]
    store.delete("b")
    store.close()
    again = ConversationStore(path)
    assert not again.exists("b") and len(_rows(path, "messages")) == 2  # a's two, b's gone for good


def test_a_damaged_row_is_skipped_and_the_rest_comes_back_in_order(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store = ConversationStore(path)
    store.save("c", [UserMessage(str(i)) for i in range(5)])
    db = sqlite3.connect(path)
    db.execute("UPDATE messages SET body = 'not json' WHERE seq = 2")
    db.commit()
    db.close()
    loaded = store.load("c")
    assert loaded is not None and loaded.messages == [UserMessage(n) for n in "0134"]
