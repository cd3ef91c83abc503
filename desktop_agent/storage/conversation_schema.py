"""The conversations database's tables, and the moves from earlier
layouts.

One row per OpenAI message and one per display event, so a turn appends its
own rows and nothing else (since version 2). ``messages.text`` is what
search reads (the user's and the assistant's words, tags removed; empty for
tool and hook messages); an FTS5 index with the trigram tokenizer (which
matches Chinese, having no word boundaries to find) follows it through
triggers. An SQLite without FTS5 or trigram (before 3.34) gets no index:
search falls back to ``LIKE``. Version 3 keeps a hook message's marker
(``_hook``/``_hook_once``, how the conversation's history tells a hook
prompt from the user's words) in ``messages.hook``, out of the message's
``body``, which is then the OpenAI message alone; reading puts it back
(:func:`with_hook`). Version 4 adds the ``versions`` table: the versions
Regenerate and Edit kept, one JSON row per conversation
(``storage/conversation_versions.py``).

Each migration copies the old file first (``conversations.sqlite3.v1-backup``
for the first layout, one JSON blob per conversation rewritten every turn;
``.v2-backup`` for version 2; 0600), then rewrites the rows in one
transaction: a failure leaves the old tables as they were.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import assert_never

from desktop_agent.core.history_items import (
    AssistantMessage,
    HistoryItem,
    ToolAnswer,
    UnreadMessage,
    UserMessage,
)
from desktop_agent.core.hooks import HOOK_KEY, ONCE_KEY, HookNote, kept_hook
from desktop_agent.core.json_types import JSONMapping, JSONObject, JSONReadable
from desktop_agent.core.stream_parser import strip_tags
from desktop_agent.storage.conversation_events import events_from_history
from desktop_agent.storage.history_json import history_items, item_json
from desktop_agent.storage.paths import PRIVATE_FILE, make_private

log = logging.getLogger(__name__)

VERSION = 4

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
    hook TEXT,
    UNIQUE (conversation_id, seq)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    body TEXT NOT NULL,
    UNIQUE (conversation_id, seq)
);
CREATE TABLE IF NOT EXISTS versions (
    conversation_id TEXT PRIMARY KEY,
    body TEXT NOT NULL
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


def search_text(item: HistoryItem) -> str:
    """What search finds a message by: the words the user saw (of a user
    message, what the model read, as it always was)."""
    match item:
        case UserMessage() | AssistantMessage():
            return strip_tags(item.content or "")
        case ToolAnswer() | HookNote():
            return ""
        case UnreadMessage():
            message = item.message
            if kept_hook(message) or message.get("role") not in ("user", "assistant"):
                return ""
            return strip_tags(str(message.get("content") or ""))
        case _:
            assert_never(item)


_MARKERS = (HOOK_KEY, ONCE_KEY)


def split_hook(message: JSONMapping) -> tuple[JSONMapping, str | None]:
    """A message as stored: its body without the hook marker, and the
    marker as ``messages.hook`` keeps it (a JSON object: which key, which
    hooks); None for any other message."""
    if not any(key in message for key in _MARKERS):
        return message, None
    marker = {key: message[key] for key in _MARKERS if key in message}
    body = {key: value for key, value in message.items() if key not in _MARKERS}
    return body, json.dumps(marker, ensure_ascii=False)


def with_hook(message: JSONObject, hook: object) -> JSONObject:
    """A stored message with its hook marker back (``hook``: the column's
    value; a damaged one is ignored)."""
    if isinstance(hook, str):
        try:
            marker = json.loads(hook)
        except ValueError:
            marker = None
        if isinstance(marker, dict):
            message.update((key, marker[key]) for key in _MARKERS if key in marker)
    return message


def has_hook_column(db: sqlite3.Connection) -> bool:
    """Version 3 or later: hook markers live in ``messages.hook``."""
    return "hook" in {row[1] for row in db.execute("PRAGMA table_info(messages)")}


def needs_hook_column(db: sqlite3.Connection) -> bool:
    """Version 2: a ``messages`` table whose bodies still hold the hook markers."""
    columns = {row[1] for row in db.execute("PRAGMA table_info(messages)")}
    return bool(columns) and "hook" not in columns


def needs_versions_table(db: sqlite3.Connection) -> bool:
    """Version 3: the current layout but the ``versions`` table."""
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return "messages" in names and "versions" not in names and has_hook_column(db)


def add_versions_table(db: sqlite3.Connection) -> None:
    """Version 3 to 4: the (empty) ``versions`` table, in one transaction
    taken with the write lock (a second process finds it done)."""
    if db.in_transaction:
        db.commit()
    db.execute("BEGIN IMMEDIATE")
    try:
        if needs_versions_table(db):
            db.execute("CREATE TABLE versions (conversation_id TEXT PRIMARY KEY, body TEXT NOT NULL)")
            db.execute(f"PRAGMA user_version = {VERSION}")
    except BaseException:
        db.rollback()
        raise
    db.commit()


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


def backup(db: sqlite3.Connection, path: Path, version: int = 1) -> Path:
    """A private copy of the database beside it, under a free name
    (``<name>.v<version>-backup``, then ``-2``, ``-3`` …)."""
    target = path.with_name(f"{path.name}.v{version}-backup")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.v{version}-backup-{n}")
    target.touch(mode=PRIVATE_FILE)
    make_private(target, PRIVATE_FILE)
    copy = sqlite3.connect(target)
    try:
        db.backup(copy)
    finally:
        copy.close()
    return target


def migrate(db: sqlite3.Connection) -> int:
    """Rewrite the first layout as the current one, in one transaction; returns
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
            items = history_items(messages)
            insert(db, conversation_id, title, float(updated_at or time.time()), items, events_from_history(items))
            moved += 1
        db.execute("DROP TABLE conversations_v1")
        db.execute(f"PRAGMA user_version = {VERSION}")
    except BaseException:
        db.rollback()
        raise
    db.commit()
    return moved


def migrate_hooks(db: sqlite3.Connection) -> int:
    """Version 2 to 3, in one transaction: ``messages`` gains its ``hook``
    column and each hook message's marker moves there from its body;
    returns how many messages moved. Search text, the index and every
    other row stay as they were. The write lock is taken first and the
    layout looked at again under it: a second process starting at the same
    moment waits, then finds the work done (0)."""
    if db.in_transaction:
        db.commit()
    db.execute("BEGIN IMMEDIATE")
    moved = 0
    try:
        if not needs_hook_column(db):
            db.rollback()
            return 0
        db.execute("ALTER TABLE messages ADD COLUMN hook TEXT")
        rows = db.execute("SELECT id, body FROM messages WHERE body LIKE '%\"\\_hook%' ESCAPE '\\'").fetchall()
        for row_id, body in rows:
            try:
                message = json.loads(body)
            except ValueError:
                continue  # read as it is, as before
            if not isinstance(message, dict):
                continue
            stored, hook = split_hook(message)
            if hook is not None:
                db.execute("UPDATE messages SET body = ?, hook = ? WHERE id = ?",
                           (json.dumps(stored, ensure_ascii=False), hook, row_id))
                moved += 1
        db.execute(f"PRAGMA user_version = {VERSION}")
    except BaseException:
        db.rollback()
        raise
    db.commit()
    return moved


def insert(
    db: sqlite3.Connection, conversation_id: str, title: str, when: float,
    messages: Sequence[HistoryItem], events: Sequence[JSONReadable], *, renamed: bool = False,
    redact: Callable[[str], str] = str,
) -> None:
    """One whole conversation (migration, import, recovery)."""
    db.execute(
        "INSERT INTO conversations (id, title, renamed, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
        (conversation_id, title, int(renamed), when, when),
    )
    append_rows(db, conversation_id, messages, 0, events, 0, redact=redact)


def append_rows(
    db: sqlite3.Connection, conversation_id: str,
    messages: Sequence[HistoryItem], message_from: int, events: Sequence[JSONReadable], event_from: int,
    *, redact: Callable[[str], str] = str,
) -> None:
    """The rows from ``message_from`` and ``event_from`` on. ``redact`` is
    applied to each row's JSON and search text: the app's secrets (a key
    the model wrote into a tool's arguments) never reach the file. A key
    is letters, digits and ``-_``, so it reads the same inside JSON."""
    db.executemany(
        "INSERT INTO messages (conversation_id, seq, body, text, hook) VALUES (?, ?, ?, ?, ?)",
        (_message_row(conversation_id, i, m, redact) for i, m in enumerate(messages[message_from:], message_from)),
    )
    db.executemany(
        "INSERT INTO events (conversation_id, seq, body) VALUES (?, ?, ?)",
        ((conversation_id, i, redact(json.dumps(e, ensure_ascii=False)))
         for i, e in enumerate(events[event_from:], event_from)),
    )


def _message_row(
    conversation_id: str, seq: int, item: HistoryItem, redact: Callable[[str], str]
) -> tuple[str, int, str, str, str | None]:
    """A history item's row: its JSON on disk (``storage/history_json.py``)
    without the hook marker, its search text, and the marker."""
    body, hook = split_hook(item_json(item))
    return conversation_id, seq, redact(json.dumps(body, ensure_ascii=False)), redact(search_text(item)), hook
