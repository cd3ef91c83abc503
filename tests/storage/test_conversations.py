"""Saved conversations: latest comes back; a corrupt database loses nothing."""

from __future__ import annotations

from pathlib import Path

from desktop_agent.storage.conversations import ConversationStore


def test_saved_history_comes_back_as_the_latest(tmp_path: Path) -> None:
    store = ConversationStore(tmp_path / "c.sqlite3")
    first = [{"role": "user", "content": "first question\nmore"}, {"role": "assistant", "content": "a"}]
    store.save("one", first)
    store.save("two", [{"role": "user", "content": "你好"}])
    store.save("one", [*first, {"role": "user", "content": "again"}])
    store.close()
    again = ConversationStore(tmp_path / "c.sqlite3")
    latest = again.latest()
    assert latest is not None
    assert (latest.id, latest.title, len(latest.messages)) == ("one", "first question", 3)
    again.delete("one")
    latest = again.latest()
    assert latest is not None and latest.id == "two" and latest.messages[0]["content"] == "你好"
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
    store.save("x", [{"role": "user", "content": "hi"}])
    assert store.latest() is not None
