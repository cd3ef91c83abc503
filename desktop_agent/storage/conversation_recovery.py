"""Saving what can be read from a damaged conversations database.

A file whose header is intact but whose pages are damaged opens, and then
fails on the first query that reaches a bad page ("database disk image is
malformed"). Everything on the good pages is still there: this module reads
the three tables row by row, by ``rowid`` and without their indexes (an
index can be the damaged part), stepping over what cannot be read, and
gives back each conversation it could rebuild. A conversation whose own row
is lost is rebuilt from its messages (titled from them); one whose history
lost a tool answer is repaired (``core/history.repair_history``) so it can
run turns again.

The damaged file itself is never written: it is opened read-only, and the
caller keeps it aside as ``conversations.sqlite3.corrupt-<n>``.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from desktop_agent.core.history import repair_history
from desktop_agent.core.history_items import HistoryItem
from desktop_agent.core.json_types import JSONObject
from desktop_agent.storage.conversation_schema import has_hook_column, with_hook
from desktop_agent.storage.history_json import history_items

log = logging.getLogger(__name__)

_BATCH = 256


@dataclass
class RecoveredConversation:
    id: str
    title: str = ""
    renamed: bool = False
    created_at: float = 0.0
    updated_at: float = 0.0
    deleted: bool = False
    messages: dict[int, JSONObject] = field(default_factory=dict)
    """By ``seq``, as stored."""
    events: dict[int, JSONObject] = field(default_factory=dict)

    def history(self) -> list[HistoryItem]:
        """The history in order, typed, repaired where a gap broke a call's answer."""
        return repair_history(history_items(self.messages[seq] for seq in sorted(self.messages)))

    def display_log(self) -> list[JSONObject]:
        return [self.events[seq] for seq in sorted(self.events)]


@dataclass(frozen=True)
class Recovery:
    conversations: list[RecoveredConversation]
    """The readable ones, deleted ones excluded, oldest first."""
    listed: int
    """How many the damaged file still listed (its conversations table, or
    the ones its messages name where that table is lost)."""


def recover(path: Path) -> Recovery:
    """Every conversation readable in the database at ``path`` (read-only)."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        log.warning("cannot open %s to recover conversations: %s", path, exc)
        return Recovery([], 0)
    try:
        return _recover(db)
    finally:
        db.close()


def _recover(db: sqlite3.Connection) -> Recovery:
    found: dict[str, RecoveredConversation] = {}
    for row in _rows(db, "conversations", "id, title, renamed, created_at, updated_at, deleted_at"):
        conversation_id, title, renamed, created, updated, deleted = row
        if not isinstance(conversation_id, str):
            continue
        found[conversation_id] = RecoveredConversation(
            conversation_id,
            title if isinstance(title, str) else "",
            bool(renamed),
            _number(created),
            _number(updated),
            deleted is not None,
        )
    hook = "hook" if _has_hook_column(db) else "NULL"  # version 3 keeps hook markers out of the body
    for table, columns in (("messages", f"conversation_id, seq, body, {hook}"),
                           ("events", "conversation_id, seq, body, NULL")):
        for conversation_id, seq, body, marker in _rows(db, table, columns):
            if not isinstance(conversation_id, str) or not isinstance(seq, int):
                continue
            item = _json_object(body)
            if item is None:
                continue
            conversation = found.setdefault(conversation_id, RecoveredConversation(conversation_id))
            getattr(conversation, table)[seq] = with_hook(item, marker)
    listed = len(found)
    usable = [c for c in found.values() if not c.deleted and c.messages]
    usable.sort(key=lambda c: (c.updated_at, c.id))
    return Recovery(usable, listed)


Row = tuple[object, ...]
"""A row's columns, as SQLite gave them (read leniently: the file is damaged)."""


def _rows(db: sqlite3.Connection, table: str, columns: str) -> Iterator[Row]:
    """Every readable row of ``table``, by rowid, stepping over damage: in
    batches while they read, one row at a time near damage (a batch fails
    whole when one of its rows cannot be read)."""
    after, careful = _FIRST, 0
    while True:
        limit = 1 if careful else _BATCH
        try:
            batch = db.execute(_BATCH_SQL.format(columns=columns, table=table), (after, limit)).fetchall()
        except sqlite3.DatabaseError:
            if not careful:
                careful = _BATCH  # the rows before the damage, one by one
                continue
            resume = _next_readable(db, table, columns, after)
            # A row in the damaged stretch may still read by its own rowid
            # (a seek past it fails on the page, a lookup of it does not).
            yield from _one_by_one(db, table, columns, after, resume)
            if resume is None:
                return
            after = resume
            continue
        except Exception as exc:  # a broken value can raise anything while decoded
            log.info("stopped reading %s: %s", table, exc)
            return
        if not batch:
            return
        careful = max(careful - len(batch), 0)
        for row in batch:
            yield tuple(row[1:])
        after = int(batch[-1][0])


_FIRST = -(1 << 62)
_LAST = 1 << 62
_BATCH_SQL = "SELECT rowid, {columns} FROM {table} NOT INDEXED WHERE rowid > ? ORDER BY rowid LIMIT ?"


def _next_readable(db: sqlite3.Connection, table: str, columns: str, failed: int) -> int | None:
    """A point past the damage after ``failed`` from which rows read again
    (the rowid before the first readable one), or None when nothing after
    it can be read. Steps forward 1, 2, 4 … rowids to a point that reads,
    then halves the gap back, so few good rows are stepped over."""
    step, good = 1, None
    while failed + step < _LAST:
        if _probe(db, table, columns, failed + step) is not False:
            good = failed + step
            break
        failed, step = failed + step, step * 2
    if good is None:
        return None
    while good - failed > 1:
        middle = (failed + good) // 2
        if _probe(db, table, columns, middle) is False:
            failed = middle
        else:
            good = middle
    return good


def _one_by_one(
    db: sqlite3.Connection, table: str, columns: str, after: int, upto: int | None
) -> Iterator[Row]:
    """The rows in ``(after, upto]`` that read when asked for by rowid
    (at most :data:`_LOOKUPS` of them are tried)."""
    first = max(after, 0) + 1
    last = first + _LOOKUPS - 1 if upto is None else min(upto, first + _LOOKUPS - 1)
    for rowid in range(first, last + 1):
        try:
            row = db.execute(f"SELECT {columns} FROM {table} NOT INDEXED WHERE rowid = ?", (rowid,)).fetchone()
        except sqlite3.DatabaseError:
            continue
        if row is not None:
            yield tuple(row)


_LOOKUPS = 4096


def _probe(db: sqlite3.Connection, table: str, columns: str, after: int) -> bool | None:
    """Whether the first row after ``after`` reads (None: there is none)."""
    try:
        row = db.execute(_BATCH_SQL.format(columns=columns, table=table), (after, 1)).fetchone()
    except sqlite3.DatabaseError:
        return False
    return None if row is None else True


def _has_hook_column(db: sqlite3.Connection) -> bool:
    try:
        return has_hook_column(db)
    except sqlite3.DatabaseError:  # the schema is damaged too: the bodies are read alone
        return False


def _json_object(body: object) -> JSONObject | None:
    if not isinstance(body, str):
        return None
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _number(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


__all__ = ["RecoveredConversation", "Recovery", "recover"]
