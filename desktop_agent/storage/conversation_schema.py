"""The conversations database's tables, and the move from the
first layout (one JSON blob per conversation, rewritten every turn).

Version 2 keeps one row per OpenAI message and one per display event, so a
turn appends its own rows and nothing else. ``messages.text`` is what search
reads (the user's and the assistant's words, tags removed; empty for tool
and hook messages); an FTS5 index with the trigram tokenizer (which matches
Chinese, having no word boundaries to find) follows it through triggers. An
SQLite without FTS5 or trigram (before 3.34) gets no index: search falls
back to ``LIKE``.

Migration copies the old file first (``conversations.sqlite3.v1-backup``,
0600), then rewrites the rows in one transaction: a failure leaves the old
table as it was.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from desktop_agent.core.hooks import kept_hook
from desktop_agent.core.json_types import JSONMapping, JSONReadable
from desktop_agent.core.stream_parser import strip_tags
from desktop_agent.storage.conversation_events import events_from_history
from desktop_agent.storage.paths import PRIVATE_FILE, make_private

log = logging.getLogger(__name__)

VERSION = 2

TABLES = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    renamed INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    deleted_at REAL
);
CREATE INDEX IF NOT EXISTS conversations_by_time ON conversations (updated_at);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    text TEXT NOT NULL DEFAULT '',
    UNIQUE (conversation_id, seq)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    UNIQUE (conversation_id, seq)
);
"""

FTS = """
CREATE VIRTUAL TABLE IF NOT EXISTS message_fts USING fts5(
    text, content='messages', content_rowid='id', tokenize='trigram');
CREATE TRIGGER IF NOT EXISTS messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO message_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER IF NOT EXISTS messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO message_fts (message_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;
"""


def search_text(message: JSONMapping) -> str:
    """What search finds a message by: the words the user saw."""
    if kept_hook(message) or message.get("role") not in ("user", "assistant"):
        return ""
    return strip_tags(str(message.get("content") or ""))


def create(db: sqlite3.Connection) -> bool:
    """Make the tables (and the search index, when this SQLite can);
    True when the index exists."""
    db.executescript(TABLES)
    try:
        db.executescript(FTS)
    except sqlite3.OperationalError as exc:  # no fts5, or no trigram tokenizer
        log.info("no full-text index for conversations (%s); search uses LIKE", exc)
        return False
    return True


def has_fts(db: sqlite3.Connection) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE name = 'message_fts'").fetchone() is not None


def needs_migration(db: sqlite3.Connection) -> bool:
    """The first layout: a ``conversations`` table with a ``messages`` column."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(conversations)")}
    return "messages" in columns


def backup(db: sqlite3.Connection, path: Path) -> Path:
    """A private copy of the database beside it, under a free name."""
    target = path.with_name(f"{path.name}.v1-backup")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.v1-backup-{n}")
    target.touch(mode=PRIVATE_FILE)
    make_private(target, PRIVATE_FILE)
    copy = sqlite3.connect(target)
    try:
        db.backup(copy)
    finally:
        copy.close()
    return target


def migrate(db: sqlite3.Connection) -> int:
    """Rewrite the first layout as version 2, in one transaction; returns
    how many conversations moved. A blob that is not JSON is kept in the
    backup only (logged)."""
    moved = 0
    if db.in_transaction:
        db.commit()
    db.execute("BEGIN")  # DDL too: Python's implicit transactions cover only DML
    try:
        db.execute("ALTER TABLE conversations RENAME TO conversations_v1")
        for statement in TABLES.split(";"):
            if statement.strip():
                db.execute(statement)
        rows = db.execute("SELECT id, title, messages, updated_at FROM conversations_v1").fetchall()
        for conversation_id, title, blob, updated_at in rows:
            try:
                messages = json.loads(blob)
            except ValueError:
                log.warning("saved conversation %s is not valid JSON; kept in the backup only", conversation_id)
                continue
            if not isinstance(messages, list):
                continue
            insert(db, conversation_id, title, float(updated_at or time.time()), messages,
                   events_from_history(messages))
            moved += 1
        db.execute("DROP TABLE conversations_v1")
        db.execute(f"PRAGMA user_version = {VERSION}")
    except BaseException:
        db.rollback()
        raise
    db.commit()
    return moved


def insert(
    db: sqlite3.Connection, conversation_id: str, title: str, when: float,
    messages: Sequence[JSONReadable], events: Sequence[JSONReadable], *, renamed: bool = False, redact: Callable[[str], str] = str,
) -> None:
    """One whole conversation (migration, import, recovery)."""
    db.execute(
        "INSERT INTO conversations (id, title, renamed, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
        (conversation_id, title, int(renamed), when, when),
    )
    append_rows(db, conversation_id, messages, 0, events, 0, redact=redact)


def append_rows(
    db: sqlite3.Connection, conversation_id: str,
    messages: Sequence[JSONReadable], message_from: int, events: Sequence[JSONReadable], event_from: int,
    *, redact: Callable[[str], str] = str,
) -> None:
    """The rows from ``message_from`` and ``event_from`` on. ``redact`` is
    applied to each row's JSON and search text: the app's secrets (a key
    the model wrote into a tool's arguments) never reach the file. A key
    is letters, digits and ``-_``, so it reads the same inside JSON."""
    db.executemany(
        "INSERT INTO messages (conversation_id, seq, body, text) VALUES (?, ?, ?, ?)",
        ((conversation_id, i, redact(json.dumps(m, ensure_ascii=False)),
          redact(search_text(m)) if isinstance(m, Mapping) else "")
         for i, m in enumerate(messages[message_from:], message_from)),
    )
    db.executemany(
        "INSERT INTO events (conversation_id, seq, body) VALUES (?, ?, ?)",
        ((conversation_id, i, redact(json.dumps(e, ensure_ascii=False)))
         for i, e in enumerate(events[event_from:], event_from)),
    )
