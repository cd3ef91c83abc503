"""PackedLog: the display log's items, finished turns kept packed.

A conversation's display log (``Conversation.events``: the transcript's
:data:`~desktop_agent.core.transcript.DisplayItem` s) gains a dozen items a
turn and keeps every one for the life of the conversation: held as they
are they took nearly three times the memory of the turn's OpenAI history
(the soak, ``benchmarks/soak.py``: 5.4 KB a turn against 2.0 KB, as the
dicts they were then). Yet a finished turn's items are only read again
whole (a restore, a save, a search), never edited one by one. So
:meth:`pack` hands the items appended since the last pack to a
:class:`LogPacker` (``storage/conversation_events.py``'s: their saved JSON,
zlib-compressed, about 550 bytes for the soak's turn of 14 events); the
running turn's items stay as they are, appended to as the queue consumes
them. Without a packer nothing is packed (a conversation that is never
saved, a test).

Reading unpacks a pack at a time: iteration (either way) and slices one
pack after the other, an index the pack that holds it. A packed item read
back is a new item equal to what was appended. Changing the log other
than at its end (delete, insert, replace) first unpacks the packs from
that point on, which a take-back (deleting the last exchange) keeps to the
last turn.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Iterable, Iterator, MutableSequence
from typing import Protocol, cast, overload

from desktop_agent.core.transcript import DisplayItem, ScanKind, UserText, scan_kind

log = logging.getLogger(__name__)


_CODES: dict[ScanKind, int] = {"user": ord("u"), "text": ord("t"), "round_end": ord("r"), None: ord(".")}
_KINDS: dict[int, ScanKind] = {code: kind for kind, code in _CODES.items()}


def scan_codes(kinds: Iterable[ScanKind]) -> bytes:
    """Scan kinds kept a byte each beside a pack (a fraction of its size)."""
    return bytes(_CODES[kind] for kind in kinds)


def scan_kinds(codes: bytes) -> list[ScanKind]:
    """The scan kinds :func:`scan_codes` kept."""
    return [_KINDS[code] for code in codes]


class LogPacker(Protocol):
    """Packs a finished turn's items into bytes and back (the same items)."""

    def pack(self, items: list[DisplayItem]) -> bytes:
        """Raises ``TypeError``/``ValueError`` for items it cannot keep."""

    def unpack(self, packed: bytes) -> list[DisplayItem]: ...


class PackedLog(MutableSequence[DisplayItem]):
    """The items in order: packed chunks, then the open (unpacked) ones."""

    def __init__(self, events: Iterable[DisplayItem] = (), packer: LogPacker | None = None) -> None:
        self._packer = packer
        self._packs: list[bytes] = []
        self._ends: list[int] = []
        """The index after each pack's last event (ascending)."""
        self._scans: list[bytes] = []
        """Each pack's items' :data:`ScanKind` s (:func:`scan_codes`)."""
        self._open: list[DisplayItem] = []
        for event in events:  # a log given whole (a restored one): a pack a turn
            if isinstance(event, UserText):
                self.pack()
            self._open.append(event)
        self.pack()

    @classmethod
    def of_packs(cls, packs: Iterable[tuple[bytes, bytes]], packer: LogPacker) -> PackedLog:
        """A log made of packs ``packer`` reads, each with its items' scan
        codes (:func:`scan_codes`, one per item): a saved log packed
        straight from its stored form, without making its items first
        (they are made when read)."""
        log = cls(packer=packer)
        for packed, scans in packs:
            if scans:
                log._packs.append(packed)
                log._ends.append(log._packed() + len(scans))
                log._scans.append(scans)
        return log

    def copy(self) -> PackedLog:
        """The log as it is now, apart from later changes to this one (the
        packs are shared, being bytes)."""
        log = PackedLog(packer=self._packer)
        log._packs, log._ends, log._scans, log._open = [*self._packs], [*self._ends], [*self._scans], [*self._open]
        return log

    def kinds(self) -> list[ScanKind]:
        """Each item's :data:`ScanKind`, without unpacking anything (a
        restore scans a long log this way and unpacks only what it draws)."""
        packed = [_KINDS[code] for scans in self._scans for code in scans]
        return [*packed, *map(scan_kind, self._open)]

    def pack(self) -> None:
        """Pack the events appended since the last pack (a finished turn).
        Items the packer cannot keep (a bug elsewhere) stay as they are,
        and the log says why: memory is no reason to lose what was shown."""
        if not self._open or self._packer is None:
            return
        try:
            packed = self._packer.pack(self._open)
        except (TypeError, ValueError) as exc:
            log.warning("display events kept unpacked: %s", exc)
            return
        self._packs.append(packed)
        self._ends.append(self._packed() + len(self._open))
        self._scans.append(scan_codes(map(scan_kind, self._open)))
        self._open = []

    def _unpack(self, packed: bytes) -> list[DisplayItem]:
        assert self._packer is not None  # only a packer made packs
        return self._packer.unpack(packed)

    @property
    def packed(self) -> int:
        """How many events, from the first, are held packed."""
        return self._packed()

    def _packed(self) -> int:
        return self._ends[-1] if self._ends else 0

    def _start_of(self, pack: int) -> int:
        return self._ends[pack - 1] if pack else 0

    def _unpack_from(self, index: int) -> int:
        """Move the packs holding ``index`` and after back to the open
        events; returns where the open events now start."""
        pack = bisect.bisect_right(self._ends, index)
        if pack < len(self._packs):
            moved = [e for p in range(pack, len(self._packs)) for e in self._unpack(self._packs[p])]
            self._open[:0] = moved
            del self._packs[pack:], self._ends[pack:], self._scans[pack:]
        return self._packed()

    def __len__(self) -> int:
        return self._packed() + len(self._open)

    @overload
    def __getitem__(self, index: int) -> DisplayItem: ...
    @overload
    def __getitem__(self, index: slice) -> list[DisplayItem]: ...

    def __getitem__(self, index: int | slice) -> DisplayItem | list[DisplayItem]:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return list(self)[index]
            return list(self._range(start, stop))
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("PackedLog index out of range")
        packed = self._packed()
        if index >= packed:
            return self._open[index - packed]
        pack = bisect.bisect_right(self._ends, index)
        return self._unpack(self._packs[pack])[index - self._start_of(pack)]

    def _range(self, start: int, stop: int) -> Iterator[DisplayItem]:
        """Events ``start`` to ``stop``, decoding only the packs they lie in."""
        if start >= stop:
            return
        for pack in range(bisect.bisect_right(self._ends, start), len(self._packs)):
            first = self._start_of(pack)
            if first >= stop:
                return
            yield from self._unpack(self._packs[pack])[max(start - first, 0):stop - first]
        packed = self._packed()
        yield from self._open[max(start - packed, 0):max(stop - packed, 0)]

    def __iter__(self) -> Iterator[DisplayItem]:
        return self._range(0, len(self))

    def __reversed__(self) -> Iterator[DisplayItem]:
        yield from reversed(self._open)
        for pack in range(len(self._packs) - 1, -1, -1):
            yield from reversed(self._unpack(self._packs[pack]))

    @overload
    def __setitem__(self, index: int, value: DisplayItem) -> None: ...
    @overload
    def __setitem__(self, index: slice, value: Iterable[DisplayItem]) -> None: ...

    def __setitem__(self, index: int | slice, value: DisplayItem | Iterable[DisplayItem]) -> None:
        if isinstance(index, slice):
            values = list(cast(Iterable[DisplayItem], value))  # a slice is given events
            self._open[self._open_slice(index)] = values
        else:
            position = self._position(index)
            self._open[position - self._unpack_from(position)] = cast(DisplayItem, value)  # an index, one event

    @overload
    def __delitem__(self, index: int) -> None: ...
    @overload
    def __delitem__(self, index: slice) -> None: ...

    def __delitem__(self, index: int | slice) -> None:
        if isinstance(index, slice):
            del self._open[self._open_slice(index)]
        else:
            position = self._position(index)
            del self._open[position - self._unpack_from(position)]

    def insert(self, index: int, value: DisplayItem) -> None:
        size = len(self)
        position = min(max(index + size if index < 0 else index, 0), size)
        self._open.insert(position - self._unpack_from(position), value)

    def append(self, value: DisplayItem) -> None:
        self._open.append(value)

    def extend(self, values: Iterable[DisplayItem]) -> None:
        self._open.extend(values)

    def clear(self) -> None:
        self._packs, self._ends, self._scans, self._open = [], [], [], []

    def _position(self, index: int) -> int:
        size = len(self)
        position = index + size if index < 0 else index
        if not 0 <= position < size:
            raise IndexError("PackedLog assignment index out of range")
        return position

    def _open_slice(self, index: slice) -> slice:
        """Unpack what ``index`` touches and say it as a slice of the open
        events. A slice with a step (never used in practice) unpacks all."""
        start, stop, step = index.indices(len(self))
        if step != 1:
            self._unpack_from(0)
            return index
        base = self._unpack_from(start)
        return slice(start - base, max(stop, start) - base)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, PackedLog | list):
            return list(self) == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, like a list

    def __repr__(self) -> str:
        return f"PackedLog({len(self)} items, {len(self._packs)} packed turns)"
