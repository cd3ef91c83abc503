"""Kept versions (Regenerate, Edit) are saved with their conversation and
come back with it: the services save and reopen them, a version 3 file
gains the table once with a private backup, and a row that cannot be read
leaves the conversation as it is shown."""

from __future__ import annotations

import asyncio
import sqlite3
import stat
from pathlib import Path

from desktop_agent.core import versions
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.transcript import UserText
from desktop_agent.services import build_services
from desktop_agent.storage.conversation_events import events_from_history
from desktop_agent.storage.conversation_versions import versions_from, versions_json
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.history_json import history_items, history_json
from desktop_agent.testing.views import NullView
from tests.test_app import no_servers as no_servers  # the fixture: an empty servers file


async def _turn(conv: Conversation, text: str) -> None:
    async with asyncio.timeout(10):
        await conv.run_turn(text, NullView())


def _replies(conv: Conversation) -> list[str]:
    return [str(m.get("content")) for m in history_json(conv.history) if m.get("role") == "assistant"]


async def test_versions_are_saved_with_the_conversation_and_switch_after_a_restart(no_servers: Path) -> None:
    services = await build_services(mcp_config=no_servers, tts="none", keep_conversations=True)
    try:
        conv = services.new_conversation()  # the offline demo model
        await _turn(conv, "hello")
        await _turn(conv, "tell me about yourself")
        services.save_conversation(conv)
        first = _replies(conv)
        assert versions.keep(conv, 1) == "tell me about yourself"
        await _turn(conv, "how are you?")  # an edit: another question in its place
        services.save_conversation(conv)
        shown = (list(conv.history), [type(e) for e in conv.events])
    finally:
        await services.aclose()

    again = await build_services(mcp_config=no_servers, tts="none", keep_conversations=True)
    try:
        back = again.resume_conversation(conv.conversation_id)
        assert (back.history, [type(e) for e in back.events]) == shown
        assert back.versions.at(1) == (2, 2) and not back.versions.changed and _replies(back) != first
        assert versions.switch(back, 1, 0)
        assert _replies(back) == first
        assert [e.text for e in back.events if isinstance(e, UserText)] == ["hello", "tell me about yourself"]
        again.save_conversation(back)
    finally:
        await again.aclose()

    third = await build_services(mcp_config=no_servers, tts="none", keep_conversations=True)
    try:
        last = third.resume_conversation(conv.conversation_id)
        assert last.versions.at(1) == (1, 2) and _replies(last) == first  # the one shown is the one kept
        assert versions.switch(last, 1, 1) and last.user_text_of(1) == "how are you?"
    finally:
        await third.aclose()


def test_a_version_3_file_gains_the_versions_table_once_with_a_private_backup(tmp_path: Path) -> None:
    path = tmp_path / "conversations.sqlite3"
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello."}]
    store = ConversationStore(path)
    store.save("a", history_items(history), events_from_history(history_items(history)))
    store.close()
    db = sqlite3.connect(path)
    db.execute("DROP TABLE versions")
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()

    store = ConversationStore(path)
    assert store.backup is not None and store.backup.name == "conversations.sqlite3.v3-backup"
    assert stat.S_IMODE(store.backup.stat().st_mode) == 0o600
    loaded = store.load("a")
    assert loaded is not None and loaded.messages == history_items(history) and loaded.versions is None
    store.save("a", history_items(history), events_from_history(history_items(history)), versions='[{"turn": 0}]')
    store.close()
    again = ConversationStore(path)
    assert again.backup is None
    kept = again.load("a")
    assert kept is not None and kept.versions == '[{"turn": 0}]'
    again.close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 4
    db.close()


def test_an_unreadable_versions_row_opens_the_conversation_as_shown() -> None:
    assert versions_from(None).sets == {}
    assert versions_from("not json").sets == {}
    assert versions_from('[{"turn": 0, "current": 0, "tails": [{"history": [], "events": []}, null]}]').sets == {}
    assert versions_from('[{"turn": 0, "current": 3, "tails": [null, null]}]').sets == {}
    assert versions_json(versions.Versions()) is None
    good = '[{"turn": 1, "current": 1, "tails": [{"history": [{"role": "user", "content": "x"}], "events": [], "later": []}, null]}]'
    assert versions_from(good).at(1) == (2, 2)
