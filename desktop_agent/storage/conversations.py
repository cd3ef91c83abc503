"""Saved conversations (SQLite under the data folder), so closing the window
loses nothing: the history the next turn would send is stored after every
turn and the latest conversation comes back at the next start.

A database that cannot be read is moved aside (``conversations.sqlite3.corrupt-<n>``)
and a fresh one is started, with one clear line in :attr:`ConversationStore.error`.
The file is 0600 (conversations hold private text): created so before
SQLite opens it, and narrowed if an older version left it wider. SQLite
gives its journal the database's mode.
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

from desktop_agent.storage.paths import PRIVATE_FILE, data_dir, make_private
from desktop_agent.storage.set_aside import set_aside

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    messages TEXT NOT NULL,
    updated_at REAL NOT NULL
)
"""


@dataclass(frozen=True)
class StoredConversation:
    id: str
    title: str
    messages: list[JSONDict]
    updated_at: float


class ConversationStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or data_dir() / "conversations.sqlite3"
        self.error: str | None = None
        """One line when the database had to be set aside."""
        self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        _create_private(self.path)
        try:
            db = sqlite3.connect(self.path)
            db.execute(_SCHEMA)
            db.execute("SELECT count(*) FROM conversations").fetchone()
            return db
        except sqlite3.DatabaseError as exc:
            kept = set_aside(self.path)
            self.error = (
                f"saved conversations in {self.path} could not be read ({exc}); "
                f"kept the file as {kept.name if kept else '(could not move it)'} and started afresh"
            )
            log.warning("%s", self.error)
            _create_private(self.path)
            db = sqlite3.connect(self.path)
            db.execute(_SCHEMA)
            return db

    def save(self, conversation_id: str, messages: Sequence[JSONDict]) -> None:
        if not messages:
            return
        title = next(
            (str(m.get("content") or "") for m in messages if m.get("role") == "user"), ""
        ).strip().splitlines()
        with self._db:
            self._db.execute(
                "INSERT INTO conversations (id, title, messages, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(id) DO UPDATE SET title=excluded.title, messages=excluded.messages, "
                "updated_at=excluded.updated_at",
                (conversation_id, (title[0] if title else "")[:80],
                 json.dumps(list(messages), ensure_ascii=False), time.time()),
            )

    def latest(self) -> StoredConversation | None:
        row = self._db.execute(
            "SELECT id, title, messages, updated_at FROM conversations ORDER BY updated_at DESC LIMIT 1"
        ).fetchone()
        if row is None:
            return None
        try:
            messages = json.loads(row[2])
        except ValueError:
            log.warning("saved conversation %s is not valid JSON; skipped", row[0])
            return None
        return StoredConversation(row[0], row[1], messages, row[3])

    def delete(self, conversation_id: str) -> None:
        with self._db:
            self._db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

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
