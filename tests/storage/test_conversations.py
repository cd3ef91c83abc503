"""Saved conversations: latest comes back; a corrupt database loses nothing."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.paths import data_dir


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


def test_the_database_is_readable_only_by_its_owner(tmp_path: Path) -> None:
    # Issue 12 defect 10: conversations hold private text.
    fresh = ConversationStore(tmp_path / "new.sqlite3")
    fresh.save("c1", [{"role": "user", "content": "private"}])
    fresh.close()
    old = tmp_path / "old.sqlite3"
    ConversationStore(old).close()
    old.chmod(0o644)  # made by an older version
    ConversationStore(old).close()
    assert {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "new.sqlite3", old)} == {
        "new.sqlite3": 0o600, "old.sqlite3": 0o600}


def test_the_data_folder_is_readable_only_by_its_owner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh = tmp_path / "fresh" / "home"
    monkeypatch.setenv("DESKTOP_AGENT_HOME", str(fresh))
    assert stat.S_IMODE(data_dir().stat().st_mode) == 0o700
    wide = tmp_path / "wide"
    wide.mkdir(mode=0o755)
    wide.chmod(0o755)
    monkeypatch.setenv("DESKTOP_AGENT_HOME", str(wide))
    assert stat.S_IMODE(data_dir().stat().st_mode) == 0o700
