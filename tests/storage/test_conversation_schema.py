"""The stored layout's version 3: hook markers in ``messages.hook``, out of
the bodies. A version 2 database made by the version 2 writer
(``fixtures/conversations_v2.sqlite3``: two turns with persistent hooks, an
auto-approved tool call with its facts, a window notice, and a renamed
second conversation; what the version 2 code read back from it is
``fixtures/conversations_v2.expected.json``) migrates once, keeping a
private backup, and then reads, sends and restores as it did; opened
read-only it is read as it is."""

from __future__ import annotations

import json
import shutil
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.hooks import HOOK_KEY, ONCE_KEY
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.wire import history_messages
from desktop_agent.storage import conversation_schema as schema
from desktop_agent.storage import conversations
from desktop_agent.storage.conversation_events import JSON_PACKER, items_of
from desktop_agent.storage.conversation_recovery import recover
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items, history_json
from desktop_agent.testing.scripted_llm import ScriptedLLM

FIXTURES = Path(__file__).parent / "fixtures"
V2 = FIXTURES / "conversations_v2.sqlite3"
EXPECTED: dict[str, dict[str, Any]] = json.loads((FIXTURES / "conversations_v2.expected.json").read_text())


def _copy(tmp_path: Path) -> Path:
    path = tmp_path / "conversations.sqlite3"
    shutil.copyfile(V2, path)
    path.chmod(0o600)
    return path


def _read_back(store: ConversationStore) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for conversation_id in ("trip", "plain"):
        stored = store.load(conversation_id)
        assert stored is not None
        out[conversation_id] = {"title": stored.title, "messages": history_json(stored.messages), "events": stored.events}
    return out


def _version(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return int(db.execute("PRAGMA user_version").fetchone()[0])
    finally:
        db.close()


def _bodies(path: Path) -> list[tuple[str, str | None]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT body, hook FROM messages ORDER BY conversation_id, seq").fetchall()
    finally:
        db.close()


def test_the_fixture_is_a_version_2_database_with_hook_markers_in_its_bodies() -> None:
    assert _version(V2) == 2
    db = sqlite3.connect(V2)
    try:
        columns = {row[1] for row in db.execute("PRAGMA table_info(messages)")}
        bodies = [body for (body,) in db.execute("SELECT body FROM messages")]
    finally:
        db.close()
    assert "hook" not in columns and sum(f'"{HOOK_KEY}"' in b for b in bodies) == 4


def test_a_version_2_database_migrates_once_with_a_private_backup_and_reads_as_before(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    store = ConversationStore(path)
    assert store.backup is not None and store.backup.name == "conversations.sqlite3.v2-backup"
    assert stat.S_IMODE(store.backup.stat().st_mode) == 0o600
    assert _version(store.backup) == 2 and _bodies(path)  # the backup is the old layout, as it was
    assert _read_back(store) == {cid: {k: v[k] for k in ("title", "messages", "events")} for cid, v in EXPECTED.items()}
    assert [h.seq for h in store.search("again")] == [7] and store.search("Check the answer") == []  # hooks unsearched
    store.close()
    assert _version(path) == 4  # the current layout: with the versions table
    rows = _bodies(path)
    assert not any(HOOK_KEY in body for body, _hook in rows)  # the markers left the bodies
    assert [json.loads(hook) for _body, hook in rows if hook] == [
        {HOOK_KEY: "brief"}, {HOOK_KEY: "check"}, {HOOK_KEY: "brief"}, {HOOK_KEY: "check"}]
    again = ConversationStore(path)  # migrated once: no second backup
    assert again.backup is None and _read_back(again)["trip"]["messages"] == EXPECTED["trip"]["messages"]
    again.close()


def test_a_migrated_conversation_sends_the_same_history_and_restores_the_same_items(tmp_path: Path) -> None:
    store = ConversationStore(_copy(tmp_path))
    stored = store.load("trip")
    assert stored is not None
    conversation = Conversation(AgentClient(ScriptedLLM([]), ToolRouter([])), conversation_id="trip",
                                history=stored.messages, events=JSON_PACKER.packed_log(stored.events))
    # What the live conversation sent next, less the once-only hook it carried (never stored).
    sent = [m for m in EXPECTED["trip"]["sent"] if ONCE_KEY not in m]
    assert history_messages(conversation.messages_for("Next question")) == sent
    assert list(conversation.events) == items_of(EXPECTED["trip"]["events"])
    store.close()


def test_a_version_2_database_opened_read_only_is_read_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _copy(tmp_path)
    before = path.read_bytes()
    monkeypatch.setattr(conversations, "_access", lambda _path: ("read", "file_read_only"))
    store = ConversationStore(path)
    assert not store.writable and store.backup is None
    assert _read_back(store)["trip"] == {k: EXPECTED["trip"][k] for k in ("title", "messages", "events")}
    store.close()
    assert path.read_bytes() == before and _version(path) == 2


def test_a_hook_message_is_stored_without_its_marker_and_read_back_with_it(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    store = ConversationStore(path)
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "Hi"}, {"role": "system", "content": "Be brief.", HOOK_KEY: "brief, kind"},
        {"role": "user", "content": "Once.", ONCE_KEY: "once"}, {"role": "assistant", "content": "Hello."}]
    store.save("c", history_items(history))
    loaded = store.load("c")
    assert loaded is not None and history_json(loaded.messages) == history
    store.close()
    assert _bodies(path) == [
        ('{"role": "user", "content": "Hi"}', None),
        ('{"role": "system", "content": "Be brief."}', '{"_hook": "brief, kind"}'),
        ('{"role": "user", "content": "Once."}', '{"_hook_once": "once"}'),
        ('{"role": "assistant", "content": "Hello."}', None)]
    (found,) = recover(path).conversations  # recovery reads the column too
    assert history_json(found.history()) == history


def test_a_migration_started_again_finds_the_work_done(tmp_path: Path) -> None:
    """Two processes starting at once: the second waits for the write lock, then has nothing to move."""
    db = sqlite3.connect(_copy(tmp_path), isolation_level=None)
    try:
        assert schema.migrate_hooks(db) == 4
        assert schema.migrate_hooks(db) == 0 and schema.has_hook_column(db)
    finally:
        db.close()
