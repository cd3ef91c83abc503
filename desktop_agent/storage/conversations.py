"""Saved conversations (SQLite under the data folder), so closing the window
loses nothing and every conversation stays reachable.

Each conversation keeps two lists, one row per item
(:mod:`~desktop_agent.storage.conversation_schema`): its OpenAI history
(what the next turn sends, for resuming the model's context) and its display
log (what the window showed, for a faithful restore: one row per event,
the JSON form ``storage/conversation_events.py`` writes and reads). :meth:`ConversationStore.save` appends what a turn added, so a
save costs the turn, not the conversation. A taken-back exchange
(Regenerate, Edit) says where the lists were cut (``rewound``) and only that
tail is rewritten.

Opening never locks the user out and never loses what can be read:

- A damaged database (``PRAGMA quick_check`` finds a fault, or SQLite
  cannot read it at all) is kept aside as ``conversations.sqlite3.corrupt-<n>``
  (its WAL with it), every conversation still readable is recovered into a
  fresh one (:mod:`.conversation_recovery`), and one line in
  :attr:`ConversationStore.error` says how many.
- A database this process may only read (the file's mode, or its
  folder's) is opened read-only: browsing and search work, saving does
  nothing, and :attr:`ConversationStore.error` says so once. A healthy file
  is never renamed, and no file's mode is changed.
- No usable place at all (a read-only data folder with no database yet):
  the session's conversations live in memory, and it says so.

Two processes may write at once (the window and headless runs, each on its
own conversation): the database is in WAL mode, every write is one
``BEGIN IMMEDIATE`` transaction, and a writer waits for the other (a busy
timeout) instead of failing.

A new file is created 0600 (conversations hold private text) before SQLite
opens it; SQLite gives its WAL and journal the database's mode.

Deleting marks a conversation (:meth:`ConversationStore.delete`) so that it
can be undone; marked ones are removed for good at the next start.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from desktop_agent.core.history_items import HistoryItem, UnreadMessage, UserMessage
from desktop_agent.core.hooks import HOOK_KEY
from desktop_agent.core.json_types import JSONMapping, JSONObject
from desktop_agent.core.notice import Notice
from desktop_agent.storage import conversation_schema as schema
from desktop_agent.storage.history_json import StoredHistory
from desktop_agent.storage.paths import PRIVATE_FILE, data_dir
from desktop_agent.storage.set_aside import set_aside
from desktop_agent.storage.stored_log import read_events

log = logging.getLogger(__name__)

TITLE_MAX = 80
"""A title made from the first message, or typed in Rename."""
STORED_TITLE_MAX = 200
"""The longest title kept or shown (an imported one): a 10 MB title made
every start take over a minute and 1.5 GB."""


@dataclass(frozen=True)
class StoredConversation:
    id: str
    title: str
    messages: Sequence[HistoryItem]
    """The history, typed (read from its rows by ``storage/history_json.py``).
    Read from the store, a :class:`~desktop_agent.storage.history_json.StoredHistory`:
    its rows parsed, each made an item when read."""
    updated_at: float
    events: Sequence[JSONObject]
    """The display log; empty for a conversation saved without one. Read
    from the store, a :class:`~desktop_agent.storage.stored_log.StoredEvents`:
    its rows' text, parsed a turn at a time when read."""
    versions: str | None = None
    """The versions Regenerate and Edit kept, as stored
    (``storage/conversation_versions.py`` reads it); None: none."""


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


def title_of(messages: Sequence[HistoryItem]) -> str:
    """The first line of the first user message (hooks aside), shortened."""
    first = next((text for m in messages if (text := _user_content(m)) is not None), "")
    lines = first.strip().splitlines()
    return (lines[0] if lines else "")[:TITLE_MAX]


class ConversationStore:
    """The conversations database at ``path``.

    ``redact`` replaces the app's secrets in what is stored (a key the model
    wrote into a tool's arguments or a reply); every row and title goes
    through it on the way in, and every export on the way out.
    """

    def __init__(self, path: Path | None = None, *, redact: Callable[[str], str] | None = None) -> None:
        self.path = path or data_dir() / "conversations.sqlite3"
        self.redact: Callable[[str], str] = redact or _same
        self.error: str | None = None
        """One line (a :class:`Notice`) when the database was damaged, is
        read-only or cannot be written: said once, at start."""
        self.backup: Path | None = None
        """The copy kept before an older database was migrated."""
        self.fts = False
        """Search has its full-text index (else it uses LIKE)."""
        self.writable = True
        """False when what is saved cannot reach the disk (a read-only file
        or folder): saving then does nothing; browsing and search work."""
        self.recovered: int | None = None
        """How many conversations were recovered from a damaged file."""
        self._hook_column = True
        """Hook markers are in ``messages.hook`` (version 3); False for a
        version 2 file opened read-only, whose bodies still hold them."""
        self._db = self._open()
        self._versions_table = _has_tables(self._db, "versions")
        """False for a version 3 file opened read-only: it keeps no versions."""
        if self.writable:
            self._purge_deleted()

    def _open(self) -> sqlite3.Connection:
        access, why = _access(self.path)
        if access == "read" and why is not None:
            return self._open_read_only(why)
        if access == "none" and why is not None:
            return self._in_memory(why)
        _create_private(self.path)
        try:
            db = _connect(self.path)
        except sqlite3.DatabaseError as exc:
            return self._recover(str(exc))
        try:
            problem = _damage(db)
            if problem is None:
                return self._prepare(db)
        except sqlite3.DatabaseError as exc:
            problem = str(exc)
        db.close()
        return self._recover(problem)

    def _prepare(self, db: sqlite3.Connection) -> sqlite3.Connection:
        if schema.needs_migration(db):
            self.backup = schema.backup(db, self.path)
            moved = schema.migrate(db)
            log.info("moved %d saved conversations to the new layout (backup: %s)", moved, self.backup.name)
        elif schema.needs_hook_column(db):
            self.backup = schema.backup(db, self.path, version=2)
            moved = schema.migrate_hooks(db)
            log.info("moved the hook markers of %d saved messages to their own column (backup: %s)",
                     moved, self.backup.name)
        elif schema.needs_versions_table(db):
            self.backup = schema.backup(db, self.path, version=3)
            schema.add_versions_table(db)
            log.info("saved conversations can keep versions now (backup: %s)", self.backup.name)
        had_fts = schema.has_fts(db)
        self.fts = schema.create(db)  # executescript: it commits on its own
        if self.fts and not had_fts:
            with _transaction(db):
                db.execute("INSERT INTO message_fts (message_fts) VALUES ('rebuild')")
        if db.execute("PRAGMA user_version").fetchone()[0] != schema.VERSION:
            db.execute(f"PRAGMA user_version = {schema.VERSION}")
        db.execute("SELECT count(*) FROM conversations").fetchone()
        return db

    def _recover(self, problem: str) -> sqlite3.Connection:
        """The file is damaged: read what can be read, keep the file aside,
        and start a fresh database holding every conversation recovered."""
        from desktop_agent.storage.conversation_recovery import recover

        recovery = recover(self.path)
        kept = set_aside(self.path, companions=("-wal", "-shm", "-journal"))
        count, listed = len(recovery.conversations), recovery.listed
        fields: dict[str, object] = {"path": str(self.path), "kept": kept.name if kept else "",
                                     "recovered": count, "listed": listed}
        if kept is None:
            db = self._prepare(sqlite3.connect(":memory:", isolation_level=None))
            self.error = Notice(
                f"saved conversations in {self.path} are damaged and the file could not be moved aside; "
                f"showing the {count} conversations that could be read, kept only until the app closes",
                "notice_conversations_damaged_not_moved", fields)
        else:
            _create_private(self.path)
            db = self._prepare(_connect(self.path))
            self.error = Notice(
                f"saved conversations in {self.path} were damaged; kept the file as {kept.name} and recovered "
                f"{count} of {listed} conversations",
                "notice_conversations_recovered", fields,
            ) if listed else Notice(
                f"saved conversations in {self.path} could not be read; kept the file as {kept.name} and "
                "started afresh",
                "notice_conversations_set_aside", fields)
        with _transaction(db):
            for found in recovery.conversations:
                messages = found.history()
                schema.insert(db, found.id, found.title[:STORED_TITLE_MAX] or title_of(messages),
                              found.updated_at or time.time(), messages, found.display_log(),
                              renamed=found.renamed, redact=self.redact)
        self.recovered = count
        log.warning("%s (%s)", self.error, problem)
        return db

    def _open_read_only(self, why: Why) -> sqlite3.Connection:
        """A file this process may read but not write (its mode, or its
        folder's): opened read-only, never renamed or changed. When even that
        fails (damaged, or an older layout that would need a migration), what
        can be read is copied into memory."""
        self.writable = False
        self.error = Notice(
            f"saved conversations in {self.path} cannot be changed ({WHY[why]}); you can open and search them, "
            "but new turns are not saved",
            f"conversations_why_{why}", {"path": str(self.path)}, frame="notice_conversations_read_only")
        log.warning("%s", self.error)
        # ``immutable`` reads without the WAL's shared-memory file, which a
        # read-only open would otherwise create beside the database; but a
        # WAL left by a crash holds turns that only a plain open sees.
        plain, immutable = f"file:{self.path}?mode=ro", f"file:{self.path}?mode=ro&immutable=1"
        wal = Path(f"{self.path}-wal")
        for uri in ((plain, immutable) if wal.exists() and wal.stat().st_size else (immutable, plain)):
            try:
                db = sqlite3.connect(uri, uri=True, isolation_level=None)
            except sqlite3.Error:
                continue
            try:
                if _damage(db) is None and not schema.needs_migration(db) and _has_tables(db):
                    self.fts = schema.has_fts(db)
                    self._hook_column = schema.has_hook_column(db)
                    return db
            except sqlite3.DatabaseError:
                pass
            db.close()
        from desktop_agent.storage.conversation_recovery import recover

        memory = self._prepare(sqlite3.connect(":memory:", isolation_level=None))
        with _transaction(memory):
            for found in recover(self.path).conversations:
                schema.insert(memory, found.id, found.title[:STORED_TITLE_MAX], found.updated_at,
                              found.history(), found.display_log(), renamed=found.renamed, redact=self.redact)
        return memory

    def _in_memory(self, why: Why) -> sqlite3.Connection:
        """Nowhere to keep conversations (the data folder is read-only, or the
        file cannot be read): this session's live in memory, and it says so."""
        self.error = Notice(
            f"conversations cannot be saved in {self.path.parent} ({WHY[why]}); this session's conversations "
            "are kept only until the app closes",
            f"conversations_why_{why}", {"folder": str(self.path.parent)}, frame="notice_conversations_not_saved")
        log.warning("%s", self.error)
        return self._prepare(sqlite3.connect(":memory:", isolation_level=None))

    # ----------------------------------------------------------- writing

    def save(
        self,
        conversation_id: str,
        messages: Sequence[HistoryItem],
        events: Sequence[JSONMapping] = (),
        *,
        rewound: tuple[int, int] | None = None,
        versions: str | Literal[False] | None = False,
    ) -> None:
        """Append what the conversation gained since its last save;
        ``rewound``: (history, events) lengths it was cut back to meanwhile;
        ``versions``: its kept versions' row anew (None: none kept; False:
        unchanged).
        One write transaction, taken at once (``BEGIN IMMEDIATE``), so a
        second process writing meanwhile waits instead of failing."""
        if not self.writable or (not messages and not events and versions is False):
            return
        db, now = self._db, time.time()
        with _transaction(db):
            row = db.execute("SELECT title FROM conversations WHERE id = ?", (conversation_id,)).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)",
                    (conversation_id, self.redact(title_of(messages)), now, now),
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
                               (self.redact(title_of(messages)), conversation_id))
            # Only the new tail is read: a packed display log unpacks just its last turn.
            schema.append_rows(db, conversation_id, messages, kept_messages, events, kept_events,
                               redact=self.redact)
            if versions is not False and self._versions_table:
                db.execute("DELETE FROM versions WHERE conversation_id = ?", (conversation_id,))
                if versions is not None:
                    db.execute("INSERT INTO versions (conversation_id, body) VALUES (?, ?)",
                               (conversation_id, self.redact(versions)))

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
        if not self.writable:
            return
        with _transaction(self._db):
            self._db.execute("UPDATE conversations SET title = ?, renamed = 1 WHERE id = ?",
                             (self.redact(title.strip()[:TITLE_MAX]), conversation_id))

    def delete(self, conversation_id: str) -> None:
        """Hide a conversation; :meth:`undelete` brings it back until the next start."""
        if not self.writable:
            return
        with _transaction(self._db):
            self._db.execute("UPDATE conversations SET deleted_at = ? WHERE id = ?", (time.time(), conversation_id))

    def undelete(self, conversation_id: str) -> None:
        if not self.writable:
            return
        with _transaction(self._db):
            self._db.execute("UPDATE conversations SET deleted_at = NULL WHERE id = ?", (conversation_id,))

    def _purge_deleted(self) -> None:
        with _transaction(self._db):
            gone = [r[0] for r in self._db.execute("SELECT id FROM conversations WHERE deleted_at IS NOT NULL")]
            for conversation_id in gone:
                self._remove(conversation_id)

    def _remove(self, conversation_id: str) -> None:
        for table in ("messages", "events", "versions"):
            self._db.execute(f"DELETE FROM {table} WHERE conversation_id = ?", (conversation_id,))
        self._db.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))

    def add(
        self, conversation_id: str, title: str, messages: Sequence[HistoryItem], events: Sequence[JSONMapping]
    ) -> bool:
        """A whole conversation at once (an import); False when nothing can
        be saved (a read-only database)."""
        if not self.writable:
            return False
        with _transaction(self._db):
            schema.insert(self._db, conversation_id, self.redact((title or title_of(messages))[:STORED_TITLE_MAX]),
                          time.time(), messages, events, renamed=bool(title), redact=self.redact)
        return True

    # ----------------------------------------------------------- reading

    def exists(self, conversation_id: str) -> bool:
        return self._db.execute(
            "SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)
        ).fetchone() is not None

    def conversations(self) -> list[ConversationSummary]:
        """Every conversation not deleted, newest first."""
        rows = self._db.execute(
            f"SELECT id, substr(title, 1, {STORED_TITLE_MAX}), updated_at FROM conversations "
            "WHERE deleted_at IS NULL ORDER BY updated_at DESC"
        )
        return [ConversationSummary(*row) for row in rows]

    def latest(self) -> StoredConversation | None:
        row = self._db.execute(
            "SELECT id FROM conversations WHERE deleted_at IS NULL ORDER BY updated_at DESC LIMIT 1"
        ).fetchone()
        return self.load(row[0]) if row is not None else None

    def load(self, conversation_id: str) -> StoredConversation | None:
        row = self._db.execute(
            f"SELECT id, substr(title, 1, {STORED_TITLE_MAX}), updated_at FROM conversations WHERE id = ?",
            (conversation_id,)
        ).fetchone()
        if row is None:
            return None
        kept = self._db.execute("SELECT body FROM versions WHERE conversation_id = ?",
                                (conversation_id,)).fetchone() if self._versions_table else None
        return StoredConversation(row[0], row[1], StoredHistory(self._rows("messages", conversation_id)), row[2],
                                  read_events(self._db, conversation_id), kept[0] if kept else None)

    def _rows(self, table: str, conversation_id: str) -> list[JSONObject]:
        """Every row's JSON, in order, a message with its hook marker back.
        One ``json.loads`` over the rows joined by SQLite (a third of the
        time of one call per row, on a 2,000-message conversation), the few
        hook markers put back by position; row by row only when a row is
        damaged."""
        hooked = table == "messages" and self._hook_column
        sql = f"SELECT body FROM {table} WHERE conversation_id = ? ORDER BY seq"
        (joined,) = self._db.execute(
            f"SELECT '[' || coalesce(group_concat(body, ','), '') || ']' FROM ({sql})", (conversation_id,)
        ).fetchone()
        try:
            rows = json.loads(joined)
        except ValueError:
            rows = None
        if isinstance(rows, list) and all(isinstance(r, dict) for r in rows):
            if hooked:
                self._put_hooks_back(rows, conversation_id)
            return rows
        out: list[JSONObject] = []
        column = "hook" if hooked else "NULL"
        for body, hook in self._db.execute(
            f"SELECT body, {column} FROM {table} WHERE conversation_id = ? ORDER BY seq", (conversation_id,)
        ):
            try:
                value = json.loads(body)
            except ValueError:
                log.warning("a saved %s row of conversation %s is not valid JSON; skipped", table, conversation_id)
                continue
            out.append(schema.with_hook(value, hook) if isinstance(value, dict) else value)
        if isinstance(rows, list):  # every row read, some not objects: as the joined read keeps them
            return [r for r in out if isinstance(r, dict)]
        return out

    def _put_hooks_back(self, rows: list[JSONObject], conversation_id: str) -> None:
        """Each hook message's marker, from ``messages.hook`` (``rows`` are
        the conversation's messages in ``seq`` order)."""
        hooks = self._db.execute(
            "SELECT seq, hook FROM messages WHERE conversation_id = ? AND hook IS NOT NULL", (conversation_id,)
        ).fetchall()
        if not hooks:
            return
        seqs = self._db.execute("SELECT seq FROM messages WHERE conversation_id = ? ORDER BY seq", (conversation_id,))
        index = {seq: i for i, (seq,) in enumerate(seqs)}
        for seq, hook in hooks:
            schema.with_hook(rows[index[seq]], hook)

    def search(self, query: str, limit: int = 50) -> list[SearchHit]:
        """Messages whose words contain ``query`` (any case), newest
        conversations first. Full-text (trigram) for three characters or
        more; shorter queries, and an SQLite without the index, use LIKE."""
        query = query.strip()
        if not query:
            return []
        head = (
            f"SELECT m.conversation_id, substr(c.title, 1, {STORED_TITLE_MAX}), m.seq, m.text FROM messages m "
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


def _user_content(item: HistoryItem) -> str | None:
    """The text the model read of a message the user typed; None for any other."""
    if isinstance(item, UserMessage):
        return item.content
    if isinstance(item, UnreadMessage) and item.role == "user" and HOOK_KEY not in item.message:
        return str(item.message.get("content") or "")
    return None


def _same(text: str) -> str:
    return text


Why = Literal["file_read_only", "folder_read_only", "file_unreadable", "folder_missing"]
WHY: dict[Why, str] = {
    "file_read_only": "the file is read-only",
    "folder_read_only": "the folder is read-only",
    "file_unreadable": "the file cannot be read",
    "folder_missing": "the folder cannot be made",
}
"""Why conversations cannot be written, as the English line says it; the
window words each as ``conversations_why_<code>``."""


def _access(path: Path) -> tuple[Literal["write", "read", "none"], Why | None]:
    """How this process may use the database: write it, only read it (the
    file's mode or its folder's), or neither (the session then keeps its
    conversations in memory), and why not. ``os.access`` answers for this
    process's real ids, so a file made read-only is read-only here."""
    folder = path.parent
    folder_writable = os.access(folder, os.W_OK | os.X_OK)
    if path.exists():
        if not os.access(path, os.R_OK):
            return "none", "file_unreadable"
        file_writable = os.access(path, os.W_OK)
        if file_writable and folder_writable:
            return "write", None
        why: Why = "file_read_only" if not file_writable else "folder_read_only"
        return ("read", why) if path.stat().st_size else ("none", why)
    if not folder.is_dir():
        return "none", "folder_missing"
    return ("write", None) if folder_writable else ("none", "folder_read_only")


def _connect(path: Path) -> sqlite3.Connection:
    """The database for writing: WAL (a writer never blocks readers, and
    two processes writing take turns), and up to :data:`BUSY_TIMEOUT_S` of
    waiting for the other's write to end instead of failing at once.
    Transactions are begun explicitly (:func:`_transaction`)."""
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
    except sqlite3.OperationalError as exc:  # a file system without shared memory: the rollback journal
        log.info("conversations: WAL unavailable (%s)", exc)
    return db


BUSY_TIMEOUT_S = 15.0


def _damage(db: sqlite3.Connection) -> str | None:
    """What ``PRAGMA quick_check`` finds wrong (its first line), or None."""
    rows = db.execute("PRAGMA quick_check").fetchall()
    first = str(rows[0][0]) if rows else "no answer from quick_check"
    return None if first == "ok" else first


def _has_tables(db: sqlite3.Connection, *tables: str) -> bool:
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    return set(tables or ("conversations", "messages", "events")) <= names


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """One write transaction, its lock taken at the start (``IMMEDIATE``):
    a deferred one that reads first and writes later fails at once with
    "database is locked" when another process wrote in between, where
    this one waits its turn (the busy timeout)."""
    if db.in_transaction:  # nested inside a caller's transaction
        yield
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _create_private(path: Path) -> None:
    """A new, empty file with mode 0600 (SQLite takes an empty file as a new
    database). An existing file keeps the mode it has: the user may have
    set it."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    except OSError:
        pass  # there already, or SQLite reports what is wrong with the place
