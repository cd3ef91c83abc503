"""Saved conversations (SQLite under the data folder), so closing the window
loses nothing and every conversation stays reachable (issue 14).

Each conversation keeps two lists, one row per item
(:mod:`~desktop_agent.storage.conversation_schema`): its OpenAI history
(what the next turn sends, for resuming the model's context) and its display
log (what the window showed, ``core/display_log.py``, for a faithful
restore). :meth:`ConversationStore.save` appends what a turn added, so a
save costs the turn, not the conversation. A taken-back exchange
(Regenerate, Edit) says where the lists were cut (``rewound``) and only that
tail is rewritten.

A database that cannot be read is moved aside (``conversations.sqlite3.corrupt-<n>``)
and a fresh one is started, with one clear line in :attr:`ConversationStore.error`.
The file is 0600 (conversations hold private text): created so before
SQLite opens it, and narrowed if an older version left it wider. SQLite
gives its journal the database's mode.

Deleting marks a conversation (:meth:`ConversationStore.delete`) so that it
can be undone; marked ones are removed for good at the next start.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from desktop_agent.core.notice import Notice
from desktop_agent.storage import conversation_schema as schema
from desktop_agent.storage.paths import PRIVATE_FILE, data_dir, make_private
from desktop_agent.storage.set_aside import set_aside

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]
TITLE_MAX = 80


@dataclass(frozen=True)
class StoredConversation:
    id: str
    title: str
    messages: list[JSONDict]
    updated_at: float
    events: list[JSONDict]
    """The display log; empty for a conversation saved without one."""


@dataclass(frozen=True)
class ConversationSummary:
    """One line of the sidebar."""

    id: str
    title: str
    updated_at: float


@dataclass(frozen=True)
class SearchHit:
    conversation_id: str
    title: str
    seq: int
    """The matching message's index in the conversation's history."""
    text: str
    """The matching message's words."""


def title_of(messages: Sequence[JSONDict]) -> str:
    """The first line of the first user message (hooks aside), shortened."""
    first = next((str(m.get("content") or "") for m in messages
                  if m.get("role") == "user" and not m.get("_hook")), "")
    lines = first.strip().splitlines()
    return (lines[0] if lines else "")[:TITLE_MAX]


class ConversationStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or data_dir() / "conversations.sqlite3"
        self.error: str | None = None
        """One line when the database had to be set aside."""
        self.backup: Path | None = None
        """The copy kept before an older database was migrated."""
        self.fts = False
        """Search has its full-text index (else it uses LIKE)."""
        self._db = self._open()
        self._purge_deleted()

    def _open(self) -> sqlite3.Connection:
        _create_private(self.path)
        try:
            return self._prepare(sqlite3.connect(self.path))
        except sqlite3.DatabaseError as exc:
            kept = set_aside(self.path)
            self.error = Notice(
                f"saved conversations in {self.path} could not be read ({exc}); "
                f"kept the file as {kept.name if kept else '(could not move it)'} and started afresh",
                "notice_conversations_set_aside" if kept else "notice_conversations_not_moved",
                {"path": str(self.path), "kept": kept.name if kept else ""},
            )
            log.warning("%s", self.error)
            _create_private(self.path)
            return self._prepare(sqlite3.connect(self.path))

    def _prepare(self, db: sqlite3.Connection) -> sqlite3.Connection:
        if schema.needs_migration(db):
            self.backup = schema.backup(db, self.path)
            moved = schema.migrate(db)
            log.info("moved %d saved conversations to the new layout (backup: %s)", moved, self.backup.name)
        had_fts = schema.has_fts(db)
        self.fts = schema.create(db)
        if self.fts and not had_fts:
            db.execute("INSERT INTO message_fts (message_fts) VALUES ('rebuild')")
        db.execute(f"PRAGMA user_version = {schema.VERSION}")
        db.commit()
        db.execute("SELECT count(*) FROM conversations").fetchone()
        return db

    # ----------------------------------------------------------- writing

    def save(
        self,
        conversation_id: str,
        messages: Sequence[JSONDict],
        events: Sequence[JSONDict] = (),
        *,
        rewound: tuple[int, int] | None = None,
    ) -> None:
        """Append what the conversation gained since its last save;
        ``rewound``: (history, events) lengths it was cut back to meanwhile."""
        if not messages and not events:
            return
        db, now = self._db, time.time()
        with db:
            row = db.execute("SELECT title FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
                    (conversation_id, title_of(messages), now, now),
                )
            kept_messages, cut_messages = self._stored(
                conversation_id, "messages", len(messages), rewound[0] if rewound else None)
            kept_events, cut_events = self._stored(
                conversation_id, "events", len(events), rewound[1] if rewound else None)
            if row is not None and (cut_messages or cut_events or kept_messages < len(messages)
                                    or kept_events < len(events)):
                # Only a change moves it up the list: opening one does not.
                db.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (now, conversation_id))
                if not row[0]:
                    db.execute("UPDATE conversations SET title = ? WHERE id = ? AND renamed = 0",
                               (title_of(messages), conversation_id))
            schema.append_rows(db, conversation_id, list(messages), kept_messages, list(events), kept_events)

    def _stored(self, conversation_id: str, table: str, length: int, cut: int | None) -> tuple[int, bool]:
        """How many rows of ``table`` stay (the rest is rewritten), and
        whether any had to go."""
        row = self._db.execute(
            f"SELECT max(seq) FROM {table} WHERE conversation_id = ?", (conversation_id,)
        ).fetchone()
        stored = 0 if row[0] is None else int(row[0]) + 1
        keep = min(stored, length, stored if cut is None else cut)
        if keep < stored:
            self._db.execute(f"DELETE FROM {table} WHERE conversation_id = ? AND seq >= ?", (conversation_id, keep))
        return keep, keep < stored

    def rename(self, conversation_id: str, title: str) -> None:
        with self._db:
            self._db.execute("UPDATE conversations SET title = ?, renamed = 1 WHERE id = ?",
                             (title.strip()[:TITLE_MAX], conversation_id))

    def delete(self, conversation_id: str) -> None:
        """Hide a conversation; :meth:`undelete` brings it back until the next start."""
        with self._db:
            self._db.execute("UPDATE conversations SET deleted_at = ? WHERE id = ?", (time.time(), conversation_id))

    def undelete(self, conversation_id: str) -> None:
        with self._db:
            self._db.execute("UPDATE conversations SET deleted_at = NULL WHERE id = ?", (conversation_id,))

    def _purge_deleted(self) -> None:
        with self._db:
            gone = [r[0] for r in self._db.execute("SELECT id FROM conversations WHERE deleted_at IS NOT NULL")]
            for conversation_id in gone:
                self._remove(conversation_id)

    def _remove(self, conversation_id: str) -> None:
        for table in ("messages", "events"):
            self._db.execute(f"DELETE FROM {table} WHERE conversation_id = ?", (conversation_id,))
        self._db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    def add(self, conversation_id: str, title: str, messages: list[JSONDict], events: list[JSONDict]) -> None:
        """A whole conversation at once (an import)."""
        with self._db:
            schema.insert(self._db, conversation_id, title or title_of(messages), time.time(),
                          messages, events, renamed=bool(title))

    # ----------------------------------------------------------- reading

    def exists(self, conversation_id: str) -> bool:
        return self._db.execute(
            "SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)
        ).fetchone() is not None

    def conversations(self) -> list[ConversationSummary]:
        """Every conversation not deleted, newest first."""
        rows = self._db.execute(
            "SELECT id, title, updated_at FROM conversations WHERE deleted_at IS NULL ORDER BY updated_at DESC"
        )
        return [ConversationSummary(*row) for row in rows]

    def latest(self) -> StoredConversation | None:
        row = self._db.execute(
            "SELECT id FROM conversations WHERE deleted_at IS NULL ORDER BY updated_at DESC LIMIT 1"
        ).fetchone()
        return self.load(row[0]) if row is not None else None

    def load(self, conversation_id: str) -> StoredConversation | None:
        row = self._db.execute(
            "SELECT id, title, updated_at FROM conversations WHERE id = ?", (conversation_id,)
        ).fetchone()
        if row is None:
            return None
        return StoredConversation(row[0], row[1], self._rows("messages", conversation_id), row[2],
                                  self._rows("events", conversation_id))

    def _rows(self, table: str, conversation_id: str) -> list[JSONDict]:
        """Every row's JSON, in order. One ``json.loads`` over the rows
        joined by SQLite (a third of the time of one call per row, on a
        2,000-message conversation); row by row only when a row is damaged."""
        sql = f"SELECT body FROM {table} WHERE conversation_id = ? ORDER BY seq"
        (joined,) = self._db.execute(
            f"SELECT '[' || coalesce(group_concat(body, ','), '') || ']' FROM ({sql})", (conversation_id,)
        ).fetchone()
        try:
            rows = json.loads(joined)
        except ValueError:
            rows = None
        if isinstance(rows, list):
            return [r for r in rows if isinstance(r, dict)]
        out: list[JSONDict] = []
        for (body,) in self._db.execute(sql, (conversation_id,)):
            try:
                out.append(json.loads(body))
            except ValueError:
                log.warning("a saved %s row of conversation %s is not valid JSON; skipped", table, conversation_id)
        return out

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages whose words contain ``query`` (any case), newest
        conversations first. Full-text (trigram) for three characters or
        more; shorter queries, and an SQLite without the index, use LIKE."""
        query = query.strip()
        if not query:
            return []
        head = (
            "SELECT m.conversation_id, c.title, m.seq, m.text FROM messages m "
            "JOIN conversations c ON c.id = m.conversation_id "
        )
        tail = " AND c.deleted_at IS NULL ORDER BY c.updated_at DESC, m.seq LIMIT ?"
        if self.fts and len(query) >= 3:
            phrase = '"' + query.replace('"', '""') + '"'
            sql = head + "WHERE m.id IN (SELECT rowid FROM message_fts WHERE message_fts MATCH ?)" + tail
            rows = self._db.execute(sql, (phrase, limit))
        else:
            pattern = "%" + query.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            rows = self._db.execute(head + "WHERE m.text LIKE ? ESCAPE '\\'" + tail, (pattern, limit))
        return [SearchHit(*row) for row in rows]

    def close(self) -> None:
        self._db.close()


def _create_private(path: Path) -> None:
    """An empty file with mode 0600 (SQLite takes an empty file as a new
    database), or the existing one narrowed to 0600."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    except FileExistsError:
        pass
    except OSError:
        return  # SQLite reports what is wrong with the place
    make_private(path, PRIVATE_FILE)
