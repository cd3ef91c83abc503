"""The display log's JSON form: what the window showed of a conversation,
in order, as JSON, so a restored conversation looks as it did live. The
conversation holds it as typed items (``Conversation.events``, the
transcript's :data:`~desktop_agent.core.transcript.DisplayItem` s); one event
per item is what the store keeps (:func:`event_json`, and back:
:func:`read_item`), and what the conversation packs its finished turns
into (:data:`JSON_PACKER`).

Its events are the bus messages the playback queue consumed, in their
contract JSON form (the ``--events-jsonl`` form, contracts §5), plus a few of
our own for what the user did, which the bus never carries:

- ``user`` (``text``; ``approval_timeout_s``, for a card's "No answer in
  300 s", absent before it was kept; ``attachments``, absent when none: the
  MCP prompt and resources it carried, each ``{"kind": "prompt"|"resource",
  "server", "name"}`` (``name`` a resource's URI) and ``"truncated": true``
  for a resource cut to size, so a restored bubble shows its chips again):
  the user's message, opening each turn (the text as typed; what the model
  read is in the history);
- ``auto_approved`` (``message``: the ``approval_required`` JSON; ``by``:
  the :data:`AutoDecider` that answered instead of the user, the
  always-allow list when absent);
- ``approval_answer`` (``tool_call_id``, ``approved``): a card's click;
- ``form_answer`` (``form_id``, ``answers`` or null when cancelled);
- ``interrupt_clicked``; ``notice`` (``level``, ``text``): the window's own
  lines (a lost approval, tools not ready).

Why record what was *consumed* and not the bus: a voice text interrupted
before its audio never showed, and the queue is the one place that knows.
The :class:`~desktop_agent.core.transcript.TranscriptRecorder` sits between
the queue and the view, so it sees exactly that, and keeps the bus's ``seq``
of each message.

Audio, transcripts and ``round_end``'s hooks are not part of the log
(``round_end`` itself is: it separates paragraphs).

A ``tool_call``/``tool_rejected`` event (the inner message of an
``auto_approved`` one too) may carry ``_tool`` (:data:`TOOL_KEY`, not a bus
field): the server that offered the tool and what the tool said of its risk
when the card was drawn (:class:`ToolFacts`), so a restored card names its
server and says it may change or delete data (in red), or reaches outside
this computer, as it did live, whether or not that server is still set up.
Events recorded before it have none and restore without marks.

Reading is lenient: an event of a type the log does not keep, or too
damaged to read, reads back as an :class:`UnreadEvent` that keeps it as it
was (a restore draws nothing for it). Older events lack what later
versions added (``approval_timeout_s``, ``_tool``, ``by``): they read with
those unsaid.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import fields
from itertools import pairwise
from typing import assert_never, get_args, overload

from desktop_agent.core.history_items import (
    AssistantMessage,
    HistoryItem,
    ToolAnswer,
    ToolCall,
    UnreadMessage,
    UserMessage,
)
from desktop_agent.core.hooks import HookNote, kept_hook
from desktop_agent.core.json_types import JSONMapping, JSONObject, JSONReadable, as_list, as_object, to_object
from desktop_agent.core.mentions import Attachment
from desktop_agent.core.messages import (
    BusMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    TurnEndMessage,
    to_json,
)
from desktop_agent.core.packed_log import PackedLog, scan_codes
from desktop_agent.core.risk import AutoDecider, ToolAnnotations
from desktop_agent.core.stream_parser import strip_tags
from desktop_agent.core.transcript import (
    ApprovalAnswer,
    AutoApproved,
    DisplayItem,
    FormAnswered,
    InterruptClicked,
    ScanKind,
    Shown,
    ToolFacts,
    UnreadEvent,
    UserText,
    WindowNotice,
    answers_json,
)
from desktop_agent.core.wire import TYPED_KEY
from desktop_agent.storage.conversation_messages import choice, message_from_json
from desktop_agent.storage.lazy_sequence import LazySequence
from desktop_agent.storage.stored_log import StoredEvents, is_raw, unpack_raw

__all__ = [
    "APPROVAL_ANSWER", "AUTO_APPROVED", "FORM_ANSWER", "INTERRUPT_CLICKED", "JSON_PACKER", "NOTICE", "TOOL_KEY", "USER",
    "JSONPacker", "SavedEvents", "StoredItems", "auto_by", "event_json", "event_text", "events_from_history", "facts_from_json",
    "facts_json", "item_from_json", "items_of", "read_item", "turns",
]

USER, AUTO_APPROVED, APPROVAL_ANSWER, FORM_ANSWER = "user", "auto_approved", "approval_answer", "form_answer"
INTERRUPT_CLICKED, NOTICE = "interrupt_clicked", "notice"
TOOL_KEY = "_tool"
"""The key of a tool event's :class:`ToolFacts` (underscored: not a bus field)."""


# ------------------------------------------------------------ writing


def event_json(item: DisplayItem) -> JSONObject:
    """The saved event of a display log item."""
    match item:
        case UserText(text, timeout, attachments):
            user: JSONObject = {"type": USER, "text": text}
            if timeout is not None:
                user["approval_timeout_s"] = timeout
            if attachments:
                user["attachments"] = [_attachment_json(a) for a in attachments]
            return user
        case Shown(message, seq, facts, session_id):
            return _message_json(message, session_id, seq, facts)
        case AutoApproved(message, seq, by, facts, session_id):
            return {"type": AUTO_APPROVED, "by": by, "message": _message_json(message, session_id, seq, facts)}
        case ApprovalAnswer(tool_call_id, approved):
            return {"type": APPROVAL_ANSWER, "tool_call_id": tool_call_id, "approved": approved}
        case FormAnswered(form_id, answers, declined):
            event: JSONObject = {"type": FORM_ANSWER, "form_id": form_id, "answers": answers}
            return {**event, "declined": True} if declined else event
        case InterruptClicked():
            return {"type": INTERRUPT_CLICKED}
        case WindowNotice(level, text):
            return {"type": NOTICE, "level": level, "text": text}
        case UnreadEvent(event):
            return event
        case _:
            assert_never(item)


def _message_json(message: BusMessage, session_id: str, seq: int, facts: ToolFacts | None) -> JSONObject:
    data = to_json(message, session_id=session_id, seq=seq)
    saved = facts_json(facts) if facts is not None else None
    if saved is not None:
        data[TOOL_KEY] = saved
    return data


def facts_json(facts: ToolFacts) -> JSONObject | None:
    """A tool's kept facts as saved; None when there is nothing to keep."""
    out: JSONObject = {}
    if facts.server is not None:
        out["server"] = facts.server
    if facts.annotations is not None:
        hints: dict[str, bool | None] = {
            f.name: getattr(facts.annotations, f.name) for f in fields(ToolAnnotations)}
        out["annotations"] = {k: v for k, v in hints.items() if v is not None}
    return out or None


def facts_from_json(data: JSONReadable) -> ToolFacts:
    """Saved facts read back leniently: anything unreadable counts as unsaid."""
    if not isinstance(data, Mapping):
        return ToolFacts()
    server = data.get("server")
    hints = data.get("annotations")
    annotations = None
    if isinstance(hints, Mapping):
        said = {f.name: hints.get(f.name) for f in fields(ToolAnnotations)}
        annotations = ToolAnnotations(**{name: hint for name, hint in said.items() if isinstance(hint, bool)})
    return ToolFacts(server if isinstance(server, str) else None, annotations)


class SavedEvents(Sequence[JSONObject]):
    """A display log's items as the saved events, each written when read:
    the store reads only the tail it has not saved yet (a packed log
    unpacks just its last turn)."""

    def __init__(self, items: Sequence[DisplayItem]) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    @overload
    def __getitem__(self, index: int) -> JSONObject: ...
    @overload
    def __getitem__(self, index: slice) -> list[JSONObject]: ...

    def __getitem__(self, index: int | slice) -> JSONObject | list[JSONObject]:
        if isinstance(index, slice):
            return [event_json(item) for item in self._items[index]]
        return event_json(self._items[index])


class StoredItems(LazySequence[DisplayItem]):
    """A stored display log read as items lazily: each event is read back
    the first time it is asked for (a restore draws the last ~60 events of
    thousands), and its kind (the event's type) is known without reading
    it (:data:`~desktop_agent.core.transcript.ScanKind`, as a packed log tells it)."""

    def __init__(self, events: Sequence[JSONMapping]) -> None:
        self._events = events
        self._items: dict[int, DisplayItem] = {}
        self._kinds: list[ScanKind] | None = None

    def kinds(self) -> list[ScanKind]:
        if self._kinds is None:
            events = self._events
            self._kinds = events.kinds() if isinstance(events, StoredEvents) else [_scan_kind(e) for e in events]
        return self._kinds

    def __len__(self) -> int:
        return len(self._events)

    def _item(self, index: int) -> DisplayItem:
        item = self._items.get(index)
        if item is None:
            item = self._items[index] = read_item(self._events[index])
        return item


def _scan_kind(event: JSONMapping) -> ScanKind:
    """A saved event's :data:`ScanKind`, read off its type."""
    match event.get("type"):
        case "user":
            return "user"
        case "text":
            return "text"
        case "round_end":
            return "round_end"
    return None


class JSONPacker:
    """Packs a finished turn's items (``core/packed_log.py``) as their
    saved events: one zlib-compressed JSON array (the keys and the turn's
    ``session_id`` repeat, so it compresses well)."""

    def pack(self, items: list[DisplayItem]) -> bytes:
        return self._packed([event_json(i) for i in items])

    def unpack(self, packed: bytes) -> list[DisplayItem]:
        if is_raw(packed):  # a stored turn's rows as they were read (packed_log)
            return items_of(unpack_raw(packed))
        return items_of(json.loads(zlib.decompress(packed)))

    def packed_log(self, events: Sequence[JSONMapping]) -> PackedLog:
        """A saved display log as the conversation holds it: its stored
        events packed a turn at a time as they are (what :meth:`pack` would
        make of their items), so opening a long conversation makes no item
        until one is read. A log read from the store
        (:class:`StoredEvents`) keeps each turn's rows as read, uncompressed
        (``storage/stored_log.py``): opening neither parses nor compresses
        what it does not draw."""
        if isinstance(events, StoredEvents):
            return PackedLog.of_packs(events.packs(), self)
        starts = [i for i, e in enumerate(events) if e.get("type") == USER]
        bounds = [0, *(s for s in starts if s), len(events)]
        return PackedLog.of_packs(
            ((self._packed(events[a:b]), scan_codes(map(_scan_kind, events[a:b]))) for a, b in pairwise(bounds)),
            self)

    @staticmethod
    def _packed(events: Sequence[JSONMapping]) -> bytes:
        text = json.dumps(list(events), ensure_ascii=False, separators=(",", ":"))
        return zlib.compress(text.encode("utf-8"))


JSON_PACKER = JSONPacker()


def auto_by(event: JSONMapping) -> AutoDecider:
    """Who answered an ``auto_approved`` event (the always-allow list for
    one recorded before that was kept)."""
    return choice(event.get("by") or "always_allow", get_args(AutoDecider), "always_allow")


# ------------------------------------------------------------ reading back


def _attachment_json(attachment: Attachment) -> JSONObject:
    saved: JSONObject = {"kind": attachment.kind, "server": attachment.server, "name": attachment.name}
    if attachment.truncated:
        saved["truncated"] = True
    return saved


def _attachment(data: JSONReadable) -> Attachment | None:
    """A saved chip; None when damaged (the bubble shows the others)."""
    if not isinstance(data, Mapping):
        return None
    kind, server, name = data.get("kind"), data.get("server"), data.get("name")
    if kind not in ("prompt", "resource") or not isinstance(server, str) or not isinstance(name, str):
        return None
    return Attachment("prompt" if kind == "prompt" else "resource", server, name, data.get("truncated") is True)


def read_item(data: JSONMapping) -> DisplayItem:
    """The display log item a saved event stands for; an
    :class:`UnreadEvent` keeping it when it cannot be read."""
    item = item_from_json(data)
    return UnreadEvent(to_object(data)) if item is None else item


def items_of(events: Iterable[JSONMapping]) -> list[DisplayItem]:
    """Saved events read back into the display log's items, one each."""
    return [read_item(e) for e in events]


def item_from_json(data: JSONMapping) -> DisplayItem | None:
    """The transcript item a saved event stands for (the inverse of
    :func:`event_json`); None for an event of a type the log does not keep,
    or too damaged to read (a restore shows what it can)."""
    match data.get("type"):
        case "user":
            timeout = data.get("approval_timeout_s")
            attachments = tuple(
                a for a in map(_attachment, as_list(data.get("attachments"))) if a is not None
            )
            return UserText(
                str(data.get("text", "")), float(timeout) if isinstance(timeout, int | float) else None, attachments
            )
        case "auto_approved":
            inner = as_object(data.get("message"))
            message = message_from_json(inner)
            if not isinstance(message, ToolCallMessage):
                return None
            return AutoApproved(message, _seq(inner), auto_by(data), _saved_facts(inner), _session(inner))
        case "approval_answer":
            return ApprovalAnswer(str(data.get("tool_call_id")), bool(data.get("approved")))
        case "form_answer":
            answers = data.get("answers")
            return FormAnswered(
                str(data.get("form_id")), answers_json(answers) if isinstance(answers, Mapping) else None,
                data.get("declined") is True,
            )
        case "interrupt_clicked":
            return InterruptClicked()
        case "notice":
            return WindowNotice(str(data.get("level")), str(data.get("text", "")))
    message = message_from_json(data)
    return None if message is None else Shown(message, _seq(data), _saved_facts(data), _session(data))


def _seq(data: JSONMapping) -> int:
    seq = data.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else 0


def _session(data: JSONMapping) -> str:
    session = data.get("session_id")
    return session if isinstance(session, str) else ""


def _saved_facts(data: JSONMapping) -> ToolFacts | None:
    """A tool event's kept facts; None when it kept none."""
    return facts_from_json(data[TOOL_KEY]) if TOOL_KEY in data else None


def event_text(event: JSONMapping) -> str:
    """The text an event shows, for search and export ("" when none)."""
    kind = event.get("type")
    if kind == USER:
        return str(event.get("text", ""))
    if kind == "text":
        return str(event.get("text", ""))
    return ""


# --------------------------------------------- from a history alone


def events_from_history(history: Iterable[HistoryItem]) -> list[JSONObject]:
    """A display log rebuilt from a history alone (an older database, an
    imported file without one): the user's words, the replies, and each
    tool call as a finished card with its arguments and result. Hook
    prompts stay hidden, as they were."""
    events: list[JSONObject] = []
    seq = 0
    names: dict[str, str] = {}

    def add(message: BusMessage) -> None:
        nonlocal seq
        seq += 1
        events.append(to_json(message, session_id="restored", seq=seq))

    started = False
    for role, words, content, calls, call_id in map(_as_shown, history):
        if role == "user":
            if started:
                add(TurnEndMessage())
            started = True
            events.append({"type": USER, "text": words})
        elif role == "assistant":
            text = strip_tags(content or "")
            if text.strip():
                add(TextMessage(seq, text, str(content), False))
                add(RoundEndMessage(0, "tools" if calls else "continuation"))
            for call in calls:
                names.setdefault(call.id, call.name)
                add(ToolCallMessage("start", call.id, call.name, None))
                add(ToolCallMessage("executing", call.id, call.name, _arguments(call.arguments)))
        elif role == "tool":
            text = content or ""
            add(ToolCallMessage("result", call_id, names.get(call_id, ""), None, result=text,
                                is_error=text.startswith("Error:")))
    if started:
        add(TurnEndMessage())
    return events


_Shown = tuple[str, str, str | None, tuple[ToolCall, ...], str]
"""(role, the user's words, the content, an assistant's calls, a tool
answer's call id); role "" for what never shows."""


def _as_shown(item: HistoryItem) -> _Shown:
    match item:
        case UserMessage():
            return "user", item.words, item.content, (), ""
        case AssistantMessage():
            return "assistant", "", item.content, item.tool_calls, ""
        case ToolAnswer():
            return "tool", "", item.content, (), item.call_id
        case HookNote():
            return "", "", None, (), ""
        case UnreadMessage():
            return _unread_shown(item.message)
        case _:
            assert_never(item)


def _unread_shown(message: JSONMapping) -> _Shown:
    """A message kept unread, read leniently for what it shows."""
    role, content = message.get("role"), message.get("content")
    if kept_hook(message) or role not in ("user", "assistant", "tool"):
        return "", "", None, (), ""
    typed = message.get(TYPED_KEY)
    calls = tuple(
        ToolCall(str(call.get("id")), str(function.get("name", "")), str(function.get("arguments") or ""))
        for call in as_list(message.get("tool_calls")) if isinstance(call, Mapping)
        for function in (as_object(call.get("function")),)
    )
    text = str(content or "")
    return str(role), typed if isinstance(typed, str) else text, text, calls, str(message.get("tool_call_id"))


def _arguments(raw: str) -> JSONMapping:
    try:
        parsed: JSONReadable = json.loads(raw) if raw else {}
    except ValueError:
        return {"_raw": str(raw)}
    return parsed if isinstance(parsed, Mapping) else {"_value": parsed}


def turns(events: Iterable[JSONMapping]) -> list[int]:
    """The index of each turn's ``user`` event."""
    return [i for i, e in enumerate(events) if e.get("type") == USER]
