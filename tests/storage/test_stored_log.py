"""A stored display log read a turn at a time: opening a conversation
parses none of its events (their kinds are read off each row's start), the
rows read back equal to what was saved, and a damaged row is skipped or
kept as unreadable without moving the others."""

from __future__ import annotations

import json
import logging
import sqlite3
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.bench_conversations import history
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.transcript import UnreadEvent, scan_kind
from desktop_agent.storage.conversation_events import JSON_PACKER, events_from_history, items_of
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.stored_log import UNREADABLE, StoredEvents

AUTO: JSONObject = {"type": "auto_approved", "by": "always_allow", "message": {
    "type": "tool_call", "session_id": "s", "seq": 3, "state": "approval_required", "tool_call_id": "c1",
    "tool_name": "run_command", "arguments": {"type": "user", "command": "ls"}, "task_id": "t"}}
EVENTS: list[JSONObject] = [
    {"type": "notice", "level": "system", "text": "before any turn"},
    {"type": "user", "text": "list my files"},
    {"type": "text", "session_id": "s", "seq": 1, "segment_id": 1, "text": "Sure, \"type\": \"user\"",
     "raw_text": "Sure", "voice": False},
    AUTO,
    {"type": "round_end", "session_id": "s", "seq": 4, "round": 0, "kind": "tools"},
    {"type": "user", "text": "天气怎么样?"},
    {"type": "turn_end", "session_id": "s", "seq": 5},
]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ConversationStore]:
    store = ConversationStore(tmp_path / "c.sqlite3")
    yield store
    store.close()


class CountingLoads:
    """``json.loads`` counting the display events it decodes (objects with a ``type``)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.events = 0
        self._loads = json.loads
        monkeypatch.setattr(json, "loads", self)

    def __call__(self, text: Any, **kwargs: Any) -> Any:
        value = self._loads(text, **kwargs)
        found = value if isinstance(value, list) else [value]
        self.events += sum(1 for v in found if isinstance(v, dict) and "type" in v)
        return value


def _put_row(path: Path, seq: int, body: str) -> None:
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET body = ? WHERE conversation_id = 'a' AND seq = ?", (body, seq))
    db.commit()
    db.close()


def test_a_stored_log_reads_back_equal_and_knows_its_kinds_unparsed(store: ConversationStore) -> None:
    store.save("a", [], EVENTS)

    loaded = store.load("a")

    assert loaded is not None and isinstance(loaded.events, StoredEvents)
    assert loaded.events.kinds() == [scan_kind(i) for i in items_of(EVENTS)]
    assert loaded.events == EVENTS and list(loaded.events) == EVENTS
    assert loaded.events[3] == AUTO and loaded.events[-1] == EVENTS[-1] and loaded.events[1:3] == EVENTS[1:3]


def test_opening_a_long_conversation_parses_none_of_its_display_events(
    store: ConversationStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = history(2000)
    store.save("long", h, events_from_history(h))
    loads = CountingLoads(monkeypatch)
    compressed: list[bytes] = []

    def compress(data: bytes, *args: Any) -> bytes:
        compressed.append(data)
        return b""

    monkeypatch.setattr(zlib, "compress", compress)

    loaded = store.load("long")
    assert loaded is not None
    packed = JSON_PACKER.packed_log(loaded.events)  # as a resumed conversation holds it
    kinds = packed.kinds()

    assert len(packed) == len(loaded.events) > 4000 and kinds.count("user") == 750
    assert loads.events == 0 and compressed == []  # before: all 4,250 parsed, then all packed anew
    last = packed[-1]
    assert loads.events <= 10  # reading one event parses its turn alone
    assert last == items_of([events_from_history(h)[-1]])[0]


def test_a_packed_stored_log_reads_the_same_items_as_one_packed_from_its_events(store: ConversationStore) -> None:
    store.save("a", [], EVENTS)
    loaded = store.load("a")
    assert loaded is not None

    assert list(JSON_PACKER.packed_log(loaded.events)) == list(JSON_PACKER.packed_log(EVENTS)) == items_of(EVENTS)


def test_rows_written_another_way_are_read_by_parsing_them(store: ConversationStore, tmp_path: Path) -> None:
    store.save("a", [], EVENTS)
    _put_row(tmp_path / "c.sqlite3", 1, '{"text":"list my files","type":"user"}')  # another key order
    _put_row(tmp_path / "c.sqlite3", 2, '{"type": "notice", "text": "x", "type": "user"}')  # "type" twice: the last

    loaded = ConversationStore(tmp_path / "c.sqlite3").load("a")

    assert loaded is not None and isinstance(loaded.events, StoredEvents)
    assert loaded.events.kinds()[:3] == [None, "user", "user"]
    assert loaded.events[1] == {"text": "list my files", "type": "user"} and loaded.events[2]["type"] == "user"


def test_a_row_that_is_not_json_is_skipped_and_one_damaged_at_its_end_reads_as_unreadable(
    store: ConversationStore, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store.save("a", [], EVENTS)
    _put_row(tmp_path / "c.sqlite3", 0, "not json")
    _put_row(tmp_path / "c.sqlite3", 6, '{"type": "turn_end", "session_id": "s", "se')
    _put_row(tmp_path / "c.sqlite3", 4, "[1, 2]")  # JSON, not an event: left out as always

    with caplog.at_level(logging.WARNING):
        loaded = ConversationStore(tmp_path / "c.sqlite3").load("a")
        assert loaded is not None
        events = list(loaded.events)

    assert events[:4] == [*EVENTS[1:4], EVENTS[5]] and len(events) == len(loaded.events) == 5
    assert events[4] == {"type": UNREADABLE, "text": '{"type": "turn_end", "session_id": "s", "se'}
    assert isinstance(items_of(events)[4], UnreadEvent)  # a restore draws nothing for it
    assert sum("not valid JSON" in r.message for r in caplog.records) == 1
    packed = JSON_PACKER.packed_log(loaded.events)
    assert list(packed) == items_of(events)  # the pack reads it the same way


class CountingDB:
    """The store's connection, counting the rows its queries hand to Python."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self.rows = 0

    def execute(self, sql: str, parameters: Any = ()) -> Iterator[Any]:
        return CountedCursor(self._db.execute(sql, parameters), self)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


class CountedCursor:
    def __init__(self, cursor: sqlite3.Cursor, counter: CountingDB) -> None:
        self._cursor, self._counter = cursor, counter

    def __iter__(self) -> Iterator[Any]:
        for row in self._cursor:
            self._counter.rows += 1
            yield row

    def __next__(self) -> Any:
        self._counter.rows += 1
        return next(self._cursor)

    def fetchone(self) -> Any:
        row = self._cursor.fetchone()
        self._counter.rows += row is not None
        return row

    def fetchall(self) -> list[Any]:
        rows = self._cursor.fetchall()
        self._counter.rows += len(rows)
        return rows


def test_opening_a_long_conversation_takes_in_its_display_log_as_one_row(store: ConversationStore) -> None:
    h = history(2000)
    store.save("long", h, events_from_history(h))
    counting = CountingDB(store._db)
    store._db = counting  # type: ignore[assignment]  # the same calls, counted

    loaded = store.load("long")

    assert loaded is not None and len(loaded.events) > 4000
    assert counting.rows <= 8  # before: a row per display event (4,250)
    assert list(loaded.events) == events_from_history(h)


def test_a_row_holding_a_nul_is_read_as_before(store: ConversationStore, tmp_path: Path,
                                               caplog: pytest.LogCaptureFixture) -> None:
    store.save("a", [], EVENTS)
    _put_row(tmp_path / "c.sqlite3", 2, '{"type": "text", "text": "a\x00b"}')  # damaged: a raw NUL in it

    with caplog.at_level(logging.WARNING):
        loaded = ConversationStore(tmp_path / "c.sqlite3").load("a")

    assert loaded is not None and isinstance(loaded.events, StoredEvents)
    assert list(loaded.events) == [*EVENTS[:2], *EVENTS[3:]]
    assert loaded.events.kinds() == [scan_kind(i) for i in items_of([*EVENTS[:2], *EVENTS[3:]])]
    assert sum("not valid JSON" in r.message for r in caplog.records) == 1


def test_a_database_in_utf16_reads_its_log_back_equal(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    db = sqlite3.connect(path)
    db.execute("PRAGMA encoding = 'UTF-16le'")
    db.execute("CREATE TABLE t (x)")  # the encoding is fixed by the first table
    db.commit()
    db.close()
    store = ConversationStore(path)
    store.save("a", [], EVENTS)

    loaded = store.load("a")

    assert loaded is not None and isinstance(loaded.events, StoredEvents) and list(loaded.events) == EVENTS
    assert loaded.events.kinds() == [scan_kind(i) for i in items_of(EVENTS)]
    store.close()
