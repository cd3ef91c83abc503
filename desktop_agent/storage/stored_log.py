"""A stored display log read a turn at a time: opening a conversation
reads its ``events`` rows as the JSON text they are, grouped by turn, and
parses a turn only when one of its events is asked for.

Opening a 2,000-message conversation used to parse every one of its ~4,000
display events (and a resumed one then wrote them all back to JSON to pack
them, ``core/packed_log.py``) before the window drew the few turns in view;
then it took them in a row at a time, which cost more than all the rest
(4,250 rows: ~9 ms of ~12). Here the rows come as one value (SQLite joins
them), and each row's kind (its ``type``, as a
:data:`~desktop_agent.core.transcript.ScanKind` scan code: what a restore
needs to find the turns) is read off the start of its text, where this app
writes it (``{"type": "user", ...``), by one scan of the whole, and a row
is parsed only with its turn; a row written otherwise (another key first, or ``"type"`` twice) is
parsed on its own to find its kind. A conversation packs its stored log
without parsing it (:func:`raw_pack`: each turn's rows as they are,
uncompressed: 0.54 MB for the 4,250 events of 2,000 benchmark messages, 0.21 MB
zlib-compressed), and export and kept versions
read it all as before, a turn at a time.

A row that is not a JSON object is left out, as it always was, with a
warning when it is not JSON at all. One that only looked right (its start
is this app's, its end is damaged) is found when its turn is read: it then
reads as an event of type ``unreadable`` keeping its text (a restore draws
nothing for it), so the log keeps its length and nothing is lost.
"""

from __future__ import annotations

import bisect
import json
import logging
import re
import sqlite3
from collections.abc import Iterator, Sequence
from itertools import pairwise

from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.packed_log import scan_codes, scan_kinds
from desktop_agent.core.transcript import ScanKind
from desktop_agent.storage.lazy_sequence import LazySequence

log = logging.getLogger(__name__)

_USER, _TEXT, _ROUND_END, _OTHER = (chr(c) for c in scan_codes(["user", "text", "round_end", None]))
_CODES = {"user": _USER, "text": _TEXT, "round_end": _ROUND_END}
_HEAD = '{"type": "'
"""How this app's rows begin (``json.dumps`` with its default separators)."""
UNREADABLE = "unreadable"
"""The type of the event that stands for a row too damaged to parse."""
_RAW = b"\x00"
"""Starts a raw pack and separates its rows: no JSON text holds it unescaped."""


def raw_pack(rows: Sequence[bytes]) -> bytes:
    """A turn's stored rows (their UTF-8 text) as a pack (``JSONPacker.unpack``
    reads it back with :func:`unpack_raw`): their text as it is, no parsing,
    no compression."""
    return _RAW + _RAW.join(rows)


def is_raw(packed: bytes) -> bool:
    return packed[:1] == _RAW


def unpack_raw(packed: bytes) -> list[JSONObject]:
    """The events of a :func:`raw_pack`."""
    return parse_rows(packed[1:].split(_RAW))


def parse_rows(rows: Sequence[str | bytes]) -> list[JSONObject]:
    """Rows' events, one each: all in one ``json.loads`` when they read,
    else one by one, a damaged one as an ``unreadable`` event."""
    joined = b"[" + b",".join(r if isinstance(r, bytes) else r.encode("utf-8") for r in rows) + b"]"
    try:
        events = json.loads(joined)
    except ValueError:
        events = None
    if isinstance(events, list) and len(events) == len(rows) and all(isinstance(e, dict) for e in events):
        return events
    return [_parse_row(row) for row in rows]


def _parse_row(row: str | bytes) -> JSONObject:
    try:
        event = json.loads(row)
    except ValueError:
        event = None
    if isinstance(event, dict):
        return event
    text = row.decode("utf-8", "replace") if isinstance(row, bytes) else row
    log.warning("a saved display event could not be read; kept as unreadable")
    return {"type": UNREADABLE, "text": text}


class StoredEvents(LazySequence[JSONObject]):
    """A display log as its stored JSON: each turn's rows as one
    :func:`raw_pack`, and each event's scan code. An event read is parsed
    with the rest of its turn (a restore reads a turn's events one after
    the other)."""

    def __init__(self, turns: Sequence[tuple[bytes, bytes]] = ()) -> None:
        self._packs = [packed for packed, _ in turns]
        self._codes = [codes for _, codes in turns]
        self._ends: list[int] = []
        """The index after each turn's last event."""
        end = 0
        for codes in self._codes:
            end += len(codes)
            self._ends.append(end)
        self._parsed: tuple[int, list[JSONObject]] | None = None
        """The turn last parsed, and its events."""

    def packs(self) -> list[tuple[bytes, bytes]]:
        """Each turn's rows as a :func:`raw_pack`, and its events' scan codes."""
        return list(zip(self._packs, self._codes, strict=True))

    def kinds(self) -> list[ScanKind]:
        """Each event's :data:`ScanKind`, without parsing any."""
        return scan_kinds(b"".join(self._codes))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __iter__(self) -> Iterator[JSONObject]:
        for turn in range(len(self._packs)):
            yield from self._turn(turn)

    def _item(self, index: int) -> JSONObject:
        turn = bisect.bisect_right(self._ends, index)
        start = self._ends[turn - 1] if turn else 0
        return self._turn(turn)[index - start]

    def _turn(self, turn: int) -> list[JSONObject]:
        if self._parsed is None or self._parsed[0] != turn:
            self._parsed = turn, unpack_raw(self._packs[turn])
        return self._parsed[1]

    def __repr__(self) -> str:
        return f"StoredEvents({len(self)} events, {len(self._packs)} turns)"


_LOG = (
    "SELECT count(*), CAST(group_concat(body, char(0)) AS BLOB) FROM "
    "(SELECT body FROM events WHERE conversation_id = ? ORDER BY seq)"
)
"""The whole log as one value, its rows joined by NUL (no JSON text holds
one raw): one row for Python to take in, where a row per event cost
more than the rest of reading them."""
_STARTS = re.compile(rb'\x00(\{"type": "[^"\x00]*")?')
"""Each row's start, with this app's head and type when it has them."""
_KNOWN = {f'{_HEAD}{kind}"'.encode(): code for kind, code in _CODES.items()}


def read_events(db: sqlite3.Connection, conversation_id: str) -> StoredEvents:
    """The conversation's display log, its rows grouped by turn, unparsed:
    one ``SELECT`` handing over one value (the rows joined), each row's kind
    read off its start by one scan of the whole (a turn begins at each
    ``user`` event). A row holding a NUL (damaged), or a database in UTF-16
    (whose text is full of NUL bytes), is read a row at a time
    (:func:`_read_rows`)."""
    count, joined = db.execute(_LOG, (conversation_id,)).fetchone()
    if not count:
        return StoredEvents()
    joined = b"\x00" + joined
    if joined.count(b"\x00") != count:
        return _read_rows(db, conversation_id)
    bodies = joined.split(b"\x00")[1:]
    heads = _STARTS.findall(joined)
    codes = [_KNOWN.get(h, _OTHER) if h else "" for h in heads]
    if joined.count(b'"type"') != count - codes.count(""):  # "type" again (a nested event): parsed alone
        codes = [c if b.count(b'"type"') == 1 else "" for b, c in zip(bodies, codes, strict=True)]
    if "" in codes:
        codes = [c or _parsed_code(b, conversation_id) for b, c in zip(bodies, codes, strict=True)]
    return _grouped(bodies, codes)


def _read_rows(db: sqlite3.Connection, conversation_id: str) -> StoredEvents:
    """:func:`read_events` a row at a time."""
    select = "SELECT body FROM events WHERE conversation_id = ? ORDER BY seq"
    bodies: list[str] = [body for (body,) in db.execute(select, (conversation_id,))]
    at, head, other, known = len(_HEAD), _HEAD, _OTHER, _CODES
    codes = [
        known.get(b[at:b.find('"', at)], other) if b.startswith(head) and b.count('"type"') == 1 and "\x00" not in b
        else _parsed_code(b, conversation_id)
        for b in bodies
    ]
    return _grouped([b.encode("utf-8") for b in bodies], codes)


def _grouped(bodies: list[bytes], codes: list[str]) -> StoredEvents:
    """Rows and their codes as a :class:`StoredEvents`, a pack a turn; a
    row whose code is "" (not a JSON object) left out."""
    if "" in codes:
        bodies = [b for b, c in zip(bodies, codes, strict=True) if c]
        codes = [c for c in codes if c]
    every = "".join(codes).encode("ascii")
    starts = [i for i, c in enumerate(codes) if c == _USER and i]
    return StoredEvents([(raw_pack(bodies[a:b]), every[a:b])
                         for a, b in pairwise([0, *starts, len(bodies)]) if b > a])


def _parsed_code(body: str | bytes, conversation_id: str) -> str:
    """A row's scan code, parsed; "" for a row left out (not a JSON object)."""
    try:
        value = json.loads(body)
    except ValueError:
        log.warning("a saved events row of conversation %s is not valid JSON; skipped", conversation_id)
        return ""
    if not isinstance(value, dict):
        return ""
    kind = value.get("type")
    return _CODES.get(kind, _OTHER) if isinstance(kind, str) else _OTHER
