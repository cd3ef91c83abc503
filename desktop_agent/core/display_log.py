"""The display log (issue 14): what the window showed of a conversation, in
order, as JSON, so a restored conversation looks as it did live.

Its events are the bus messages the playback queue consumed, in their
contract JSON form (the ``--events-jsonl`` form, contracts §5), plus a few of
our own for what the user did, which the bus never carries:

- ``user`` (``text``; ``approval_timeout_s``, for a card's "No answer in
  300 s", absent before it was kept): the user's message, opening each turn;
- ``auto_approved`` (``message``: the ``approval_required`` JSON; ``by``:
  the :data:`AutoDecider` that answered instead of the user, the
  always-allow list when absent);
- ``approval_answer`` (``tool_call_id``, ``approved``): a card's click;
- ``form_answer`` (``form_id``, ``answers`` or null when cancelled);
- ``interrupt_clicked``; ``notice`` (``level``, ``text``): the window's own
  lines (a lost approval, tools not ready).

Why record what was *consumed* and not the bus: a voice text interrupted
before its audio never showed, and the queue is the one place that knows.
The :class:`DisplayRecorder` sits between the queue and the view, so it sees
exactly that, and keeps the bus's ``seq`` of each message.

Audio, transcripts and ``round_end``'s hooks are not part of the log
(``round_end`` itself is: it separates paragraphs).

A ``tool_call``/``tool_rejected`` event (the inner message of an
``auto_approved`` one too) may carry ``_tool`` (:data:`TOOL_KEY`, not a bus
field): the server that offered the tool and what the tool said of its risk
when the card was drawn (:class:`ToolFacts`), so a restored card names its
server and says it may change or delete data (in red), or reaches outside
this computer, as it did live, whether or not that server is still set up.
Events recorded before it have none and restore without marks.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, MutableSequence, Sequence
from dataclasses import dataclass, fields
from typing import Any, get_args

from desktop_agent.core.forms import FormQuestion
from desktop_agent.core.json_types import JSONDict
from desktop_agent.core.messages import (
    BusItem,
    BusMessage,
    Card,
    CardField,
    CardMessage,
    ErrorMessage,
    FormRequestMessage,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    ToolOutputMessage,
    ToolProgressMessage,
    ToolRejectedMessage,
    TurnEndMessage,
    WarningMessage,
    to_json,
)
from desktop_agent.core.playback import PlaybackView, ToolEvent
from desktop_agent.core.risk import AutoDecider, ToolAnnotations
from desktop_agent.core.stream_parser import strip_tags

USER, AUTO_APPROVED, APPROVAL_ANSWER, FORM_ANSWER = "user", "auto_approved", "approval_answer", "form_answer"
INTERRUPT_CLICKED, NOTICE = "interrupt_clicked", "notice"
OWN_TYPES = frozenset({USER, AUTO_APPROVED, APPROVAL_ANSWER, FORM_ANSWER, INTERRUPT_CLICKED, NOTICE})
TOOL_KEY = "_tool"
"""The key of a tool event's :class:`ToolFacts` (underscored: not a bus field)."""


@dataclass(frozen=True, slots=True)
class ToolFacts:
    """What the window knew of a tool when it drew its card."""

    server: str | None = None
    """The MCP server that offered it; None for a built-in one."""
    annotations: ToolAnnotations | None = None
    """What it said of its risk (issue 14); None: nothing."""

    def to_json(self) -> JSONDict | None:
        """The ``_tool`` value; None when there is nothing to keep."""
        out: JSONDict = {}
        if self.server is not None:
            out["server"] = self.server
        if self.annotations is not None:
            hints = {f.name: getattr(self.annotations, f.name) for f in fields(ToolAnnotations)}
            out["annotations"] = {k: v for k, v in hints.items() if v is not None}
        return out or None

    @classmethod
    def from_json(cls, data: Any) -> ToolFacts:
        """Read back leniently: anything unreadable counts as unsaid."""
        if not isinstance(data, Mapping):
            return cls()
        server = data.get("server")
        hints = data.get("annotations")
        annotations = None
        if isinstance(hints, Mapping):
            annotations = ToolAnnotations(**{
                f.name: hints[f.name] for f in fields(ToolAnnotations) if isinstance(hints.get(f.name), bool)})
        return cls(server if isinstance(server, str) else None, annotations)


ToolDescriber = Callable[[str], ToolFacts]
"""A tool's facts by its name (the window's ``tool_server`` and ``tool_annotations``)."""


def _undescribed(_name: str) -> ToolFacts:
    return ToolFacts()


def auto_by(event: Mapping[str, Any]) -> AutoDecider:
    """Who answered an ``auto_approved`` event (the always-allow list for
    one recorded before that was kept)."""
    by: AutoDecider = event.get("by") or "always_allow"
    return by if by in get_args(AutoDecider) else "always_allow"


class DisplayRecorder:
    """A :class:`PlaybackView` that records each message it is shown into
    ``events`` and passes it on to ``view``. Attach :meth:`on_bus` to the
    turn's bus for the ``seq`` numbers; ``describe`` gives the
    :class:`ToolFacts` kept with each tool event."""

    def __init__(
        self, view: PlaybackView, events: MutableSequence[JSONDict], session_id: str,
        describe: ToolDescriber = _undescribed,
    ) -> None:
        self._view = view
        self._events = events
        self._session_id = session_id
        self._describe = describe
        self._seq: dict[int, tuple[BusMessage, int]] = {}
        """id(message) → (message, seq); the message is held so its id stays unique."""

    def on_bus(self, item: BusItem) -> None:
        if item.message.type not in ("audio", "transcript"):
            self._seq[id(item.message)] = (item.message, item.seq)

    def _json(self, message: BusMessage) -> JSONDict:
        held = self._seq.pop(id(message), None)
        data = to_json(message, session_id=self._session_id, seq=held[1] if held else 0)
        if isinstance(message, ToolCallMessage | ToolRejectedMessage) and message.tool_name:
            facts = self._describe(message.tool_name).to_json()
            if facts is not None:
                data[TOOL_KEY] = facts
        return data

    def _keep(self, message: BusMessage) -> None:
        self._events.append(self._json(message))

    def show_text(self, message: TextMessage) -> None:
        self._keep(message)
        self._view.show_text(message)

    def round_ended(self, message: RoundEndMessage) -> None:
        self._keep(message)
        self._view.round_ended(message)

    def tool_event(self, message: ToolEvent) -> None:
        self._keep(message)
        self._view.tool_event(message)

    def approval_needed(self, message: ToolCallMessage) -> None:
        self._keep(message)
        self._view.approval_needed(message)

    def auto_approved(self, message: ToolCallMessage, by: AutoDecider = "always_allow") -> None:
        self._events.append({"type": AUTO_APPROVED, "by": by, "message": self._json(message)})
        self._view.auto_approved(message, by)

    def notice(self, message: WarningMessage | ErrorMessage) -> None:
        self._keep(message)
        self._view.notice(message)

    def interrupted(self, message: InterruptedMessage) -> None:
        self._keep(message)
        self._view.interrupted(message)

    def turn_ended(self, message: TurnEndMessage) -> None:
        self._keep(message)
        self._view.turn_ended(message)


# ------------------------------------------------------------ reading back


def _opt(data: Mapping[str, Any], key: str) -> Any:
    return data.get(key)


def _card(data: Mapping[str, Any]) -> Card:
    fields = tuple(
        CardField(str(f.get("label", "")), str(f.get("value", "")))
        for f in data.get("fields") or () if isinstance(f, Mapping)
    )
    return Card(str(data.get("title", "")), str(data.get("body", "")), _opt(data, "image_path"), fields)


def _question(data: Mapping[str, Any]) -> FormQuestion:
    kind = data.get("type", "text")
    return FormQuestion(
        str(data.get("id", "")), str(data.get("question", "")),
        kind if kind in ("text", "choice", "multi_choice") else "text",
        tuple(str(o) for o in data.get("options") or ()), bool(data.get("required", True)),
    )


_READERS: dict[str, Callable[[Mapping[str, Any]], BusMessage]] = {
    "text": lambda d: TextMessage(int(d.get("segment_id", 0)), str(d.get("text", "")),
                                  str(d.get("raw_text", d.get("text", ""))), bool(d.get("voice"))),
    "tool_call": lambda d: ToolCallMessage(
        d["state"], str(d["tool_call_id"]), str(d.get("tool_name", "")), _opt(d, "arguments"),
        _opt(d, "task_id"), _opt(d, "result"), _opt(d, "is_error"), _opt(d, "parent_tool_call_id")),
    "tool_progress": lambda d: ToolProgressMessage(
        str(d["tool_call_id"]), float(d.get("progress") or 0), _opt(d, "total"), _opt(d, "message"),
        _opt(d, "eta_s"), _opt(d, "parent_tool_call_id")),
    "tool_output": lambda d: ToolOutputMessage(
        str(d["tool_call_id"]), "stderr" if d.get("stream") == "stderr" else "stdout", str(d.get("text", "")),
        _opt(d, "parent_tool_call_id")),
    "form_request": lambda d: FormRequestMessage(
        str(d["tool_call_id"]), str(d["form_id"]),
        tuple(_question(q) for q in d.get("questions") or () if isinstance(q, Mapping)), _opt(d, "title")),
    "card": lambda d: CardMessage(str(d["tool_call_id"]), _card(d.get("card") or {})),
    "tool_rejected": lambda d: ToolRejectedMessage(
        str(d["tool_call_id"]), str(d.get("tool_name", "")), _opt(d, "arguments"), str(d.get("reason", "")),
        _opt(d, "partial_result"), _opt(d, "parent_tool_call_id")),
    "interrupted": lambda d: InterruptedMessage(d.get("reason", "user")),
    "round_end": lambda d: RoundEndMessage(int(d.get("round", 0)), d.get("kind", "tools")),
    "warning": lambda d: WarningMessage(str(d.get("message", "")), d.get("code", "internal")),
    "error": lambda d: ErrorMessage(str(d.get("message", "")), d.get("code", "internal")),
    "turn_end": lambda d: TurnEndMessage(),
}


def message_from_json(data: Mapping[str, Any]) -> BusMessage | None:
    """The bus message a stored event stands for; None for our own events,
    for types the log does not keep, and for an event too damaged to read
    (a restore shows what it can)."""
    reader = _READERS.get(str(data.get("type")))
    if reader is None:
        return None
    try:
        return reader(data)
    except (KeyError, TypeError, ValueError):
        return None


def event_text(event: Mapping[str, Any]) -> str:
    """The text an event shows, for search and export ("" when none)."""
    kind = event.get("type")
    if kind == USER:
        return str(event.get("text", ""))
    if kind == "text":
        return str(event.get("text", ""))
    return ""


# --------------------------------------------- from an OpenAI history alone


def events_from_history(history: Sequence[Mapping[str, Any]]) -> list[JSONDict]:
    """A display log rebuilt from an OpenAI message list (an older database,
    an imported file without one): the user's words, the replies, and each
    tool call as a finished card with its arguments and result. Hook
    messages (``_hook``) stay hidden, as they were."""
    events: list[JSONDict] = []
    seq = 0

    def add(message: BusMessage) -> None:
        nonlocal seq
        seq += 1
        events.append(to_json(message, session_id="restored", seq=seq))

    started = False
    for message in history:
        if message.get("_hook"):
            continue
        role, content = message.get("role"), message.get("content")
        if role == "user":
            if started:
                add(TurnEndMessage())
            started = True
            events.append({"type": USER, "text": str(content or "")})
        elif role == "assistant":
            text = strip_tags(str(content or ""))
            if text.strip():
                add(TextMessage(seq, text, str(content), False))
                add(RoundEndMessage(0, "tools" if message.get("tool_calls") else "continuation"))
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                add(ToolCallMessage("start", str(call.get("id")), str(function.get("name", "")), None))
                add(ToolCallMessage("executing", str(call.get("id")), str(function.get("name", "")),
                                    _arguments(function.get("arguments"))))
        elif role == "tool":
            call_id = str(message.get("tool_call_id"))
            name = next((str(e.get("tool_name")) for e in events
                         if e.get("type") == "tool_call" and e.get("tool_call_id") == call_id), "")
            text = str(content or "")
            add(ToolCallMessage("result", call_id, name, None, result=text, is_error=text.startswith("Error:")))
    if started:
        add(TurnEndMessage())
    return events


def _arguments(raw: Any) -> dict[str, Any] | None:
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        parsed = json.loads(str(raw)) if raw else {}
    except ValueError:
        return {"_raw": str(raw)}
    return parsed if isinstance(parsed, dict) else {"_value": parsed}


def turns(events: Iterable[Mapping[str, Any]]) -> list[int]:
    """The index of each turn's ``user`` event."""
    return [i for i, e in enumerate(events) if e.get("type") == USER]
