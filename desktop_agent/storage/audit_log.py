"""The approval audit on disk: ``<data>/approvals.jsonl``, one
JSON object per line, appended, never rewritten.

Why JSON lines and not a table in ``conversations.sqlite3``: the record is
written synchronously as an approval is decided, from the window and from
headless runs alike, possibly at the same time; an ``O_APPEND`` write of
one line is one system call that needs no lock, no schema and no
migration, and it is the very format the headless ``--audit-log`` writes
(one writer class for both). It can be read with ``grep``/``jq``, and
copied or cut by the user without tools. Append-only also means a record
once written is not changed by a later bug. Reading everything to filter is
fine at this size (a decision is ~400 bytes: 10,000 of them are 4 MB), and
:class:`AuditReader` parses only what was appended since its last read.

A process killed mid-write can leave a torn last line: reading skips it
(and any other line that is not a record, counted in
:attr:`AuditRead.skipped`), and the next append starts on a fresh line so
it is not glued to the torn one.

The file is 0600 in the 0700 data folder (it holds tool arguments).
"""

from __future__ import annotations

import functools
import json
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from desktop_agent.core.audit import ApprovalRecord
from desktop_agent.storage.atomic import make_folder
from desktop_agent.storage.paths import PRIVATE_FILE, data_dir

log = logging.getLogger(__name__)

AUDIT_FILE = "approvals.jsonl"


def audit_log_path() -> Path:
    return data_dir() / AUDIT_FILE


@dataclass(frozen=True, slots=True)
class AuditRead:
    records: tuple[ApprovalRecord, ...]
    """In file order (oldest first)."""
    skipped: int = 0
    """Lines that were not records (a torn last line, say)."""


class JsonlAuditLog:
    """An :class:`~desktop_agent.core.audit.AuditSink` appending to ``path``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.failed: str | None = None
        """Why the last write failed (one line); None after a good one."""

    def check(self) -> None:
        """Create the file (0600) now; raises OSError when it cannot be written."""
        make_folder(self.path.parent)
        os.close(self._open())

    def record(self, entry: ApprovalRecord) -> None:
        line = (json.dumps(entry.to_json(), ensure_ascii=False) + "\n").encode("utf-8")
        try:
            fd = self._open()
            try:
                size = os.fstat(fd).st_size
                if size and os.pread(fd, 1, size - 1) != b"\n":
                    line = b"\n" + line  # a torn line before: do not extend it
                _write_all(fd, line)
            finally:
                os.close(fd)
        except OSError as exc:
            if self.failed is None:  # said once, not per decision
                log.warning("cannot write the approval audit to %s: %s", self.path, exc.strerror)
            self.failed = exc.strerror or str(exc)
        else:
            self.failed = None

    def _open(self) -> int:
        # A new file is 0600; one already there keeps the mode the user gave it.
        return os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, PRIVATE_FILE)


def _write_all(fd: int, data: bytes) -> None:
    while data:
        written = os.write(fd, data)
        data = data[written:]


def read_audit(path: Path) -> AuditRead:
    """Every record in ``path``; a missing file has none."""
    return AuditReader(path).read()


@functools.cache
def shared_reader(path: Path) -> AuditReader:
    """The one reader of ``path`` for the app's life: Settings makes a new
    history page each time it opens, and each would otherwise parse the
    whole file again."""
    return AuditReader(path)


HEAD_BYTES = 256
"""How much of the file's start identifies it between two reads."""


class AuditReader:
    """Reads ``path`` again and again, parsing only what was appended since
    the last read: the file grows forever, and the history page reloads it.

    A file that was replaced or cut (rotated, truncated, edited by the user)
    is read from the start instead. It is recognised by its inode, by its
    first bytes, and by the newline the last read ended on; a size below
    the last offset is a cut. A last line without its newline is not taken
    for good: it counts (as a record, or as skipped) in this read and is
    parsed again in the next one, for it may be a record still being written.

    One read at a time (a lock): the page reads in a worker thread, and a
    second reload may start before the first ends.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._records: list[ApprovalRecord] = []
        self._skipped = 0
        self._offset = 0
        self._inode: tuple[int, int] | None = None
        self._head = b""
        self.parsed_bytes = 0
        """How many bytes the last read parsed (what incremental saves)."""

    def read(self) -> AuditRead:
        """Every record so far, in file order. Raises OSError when the file
        exists but cannot be read."""
        with self._lock:
            try:
                fh = self.path.open("rb")
            except FileNotFoundError:
                self._restart(None)
                self.parsed_bytes = 0
                return AuditRead(())
            with fh:
                info = os.fstat(fh.fileno())
                inode = (info.st_dev, info.st_ino)
                if not self._continues(fh, inode, info.st_size):
                    self._restart(inode)
                fh.seek(self._offset)
                data = fh.read()
            return self._parse(data)

    def _continues(self, fh: BinaryIO, inode: tuple[int, int], size: int) -> bool:
        """Whether the file is the one read last time, grown (or unchanged)."""
        if self._offset == 0 or inode != self._inode or size < self._offset:
            return False
        if fh.read(len(self._head)) != self._head:
            return False
        fh.seek(self._offset - 1)
        return fh.read(1) == b"\n"

    def _restart(self, inode: tuple[int, int] | None) -> None:
        self._records, self._skipped, self._offset, self._inode, self._head = [], 0, 0, inode, b""

    def _parse(self, data: bytes) -> AuditRead:
        end = data.rfind(b"\n") + 1
        whole, tail = data[:end], data[end:]
        if self._offset < HEAD_BYTES:
            self._head = (self._head + whole)[:HEAD_BYTES]
        self._offset += end
        self.parsed_bytes = len(data)
        records, skipped = _records(whole.split(b"\n"))
        self._records += records
        self._skipped += skipped
        if skipped:
            log.info("%s: %d lines were not approval records", self.path, skipped)
        last, torn = _records([tail])  # counted now, parsed again next time
        return AuditRead((*self._records, *last), self._skipped + torn)


def _records(lines: list[bytes]) -> tuple[list[ApprovalRecord], int]:
    """The records among ``lines`` and how many lines were not records."""
    records: list[ApprovalRecord] = []
    skipped = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            records.append(ApprovalRecord.from_json(json.loads(line.decode("utf-8"))))
        except (ValueError, UnicodeDecodeError, RecursionError):
            skipped += 1
    return records, skipped
