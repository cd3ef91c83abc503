"""The conversation as typed items: what the user did and what the window
showed, in order, plus the hook notes that history keeps.

A turn's items are what the playback queue consumed (each bus message with
its ``seq`` and, for a tool, the :class:`ToolFacts` of its card), the user's
own actions that the bus never carries (:class:`ApprovalAnswer`,
:class:`FormAnswered`, :class:`InterruptClicked`, a :class:`WindowNotice`),
and the :class:`HookNote` prompts that persist in history unseen. The saved
display log is the JSON form of these items (``core/display_log.py`` reads
and writes it); the OpenAI history is derived from the same consumed
messages (``core/history.py``).

Each item is a frozen dataclass; :data:`TranscriptItem` is their union, and
readers ``match`` on it ending in ``assert_never``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields

from desktop_agent.core.hooks import HookNote
from desktop_agent.core.json_types import JSONMapping, JSONObject, JSONValue
from desktop_agent.core.messages import (
    BusItem,
    BusMessage,
    ErrorMessage,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    ToolRejectedMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.playback import PlaybackView, ToolEvent
from desktop_agent.core.risk import AutoDecider, ToolAnnotations


@dataclass(frozen=True, slots=True)
class ToolFacts:
    """What the window knew of a tool when it drew its card."""

    server: str | None = None
    """The MCP server that offered it; None for a built-in one."""
    annotations: ToolAnnotations | None = None
    """What it said of its risk; None: nothing."""

    def to_json(self) -> JSONObject | None:
        """The saved form; None when there is nothing to keep."""
        out: JSONObject = {}
        if self.server is not None:
            out["server"] = self.server
        if self.annotations is not None:
            hints: dict[str, bool | None] = {
                f.name: getattr(self.annotations, f.name) for f in fields(ToolAnnotations)}
            out["annotations"] = {k: v for k, v in hints.items() if v is not None}
        return out or None

    @classmethod
    def from_json(cls, data: object) -> ToolFacts:
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


@dataclass(frozen=True, slots=True)
class UserText:
    """The user's message, opening each turn."""

    text: str
    approval_timeout_s: float | None = None
    """The turn's approval timeout, for a card's "No answer in 300 s";
    None in logs recorded before it was kept."""


@dataclass(frozen=True, slots=True)
class Shown:
    """A bus message the playback queue consumed (and so the window showed)."""

    message: BusMessage
    seq: int
    """The bus's number of it in its turn (0: not known)."""
    facts: ToolFacts | None = None
    """A tool event's card facts (None: none kept)."""


@dataclass(frozen=True, slots=True)
class AutoApproved:
    """An approval answered without the user: ``by`` the always-allow list
    or a rule."""

    message: ToolCallMessage
    seq: int
    by: AutoDecider = "always_allow"
    facts: ToolFacts | None = None


@dataclass(frozen=True, slots=True)
class ApprovalAnswer:
    """A card's Allow/Deny click."""

    tool_call_id: str
    approved: bool


@dataclass(frozen=True, slots=True)
class FormAnswered:
    """A form's answers; None when it was cancelled."""

    form_id: str
    answers: JSONObject | None


@dataclass(frozen=True, slots=True)
class InterruptClicked:
    """The interrupt button."""


@dataclass(frozen=True, slots=True)
class WindowNotice:
    """One of the window's own lines (a lost approval, tools not ready)."""

    level: str
    text: str


TranscriptItem = (
    UserText | Shown | AutoApproved | ApprovalAnswer | FormAnswered | InterruptClicked | WindowNotice | HookNote
)
UserEvent = ApprovalAnswer | FormAnswered | InterruptClicked | WindowNotice
"""What the window records itself (``Conversation.record``)."""


ToolDescriber = Callable[[str], ToolFacts]
"""A tool's facts by its name (the window's ``tool_server`` and ``tool_annotations``)."""


def undescribed(_name: str) -> ToolFacts:
    return ToolFacts()


class TranscriptRecorder:
    """A :class:`PlaybackView` that records each message it is shown as an
    item (:class:`Shown`, :class:`AutoApproved`), hands the item to
    ``on_item``, and passes the message on to ``view``.

    Why what is *shown*: the queue shows exactly what it consumed (a voice
    text interrupted before its audio never showed, and never reached the
    model either), so both the saved display log and the history are
    derived from these items. Attach :meth:`on_bus` to the turn's bus for
    the ``seq`` numbers; ``describe`` gives the :class:`ToolFacts` kept with
    each tool event."""

    def __init__(
        self, view: PlaybackView, on_item: Callable[[TranscriptItem], None],
        describe: ToolDescriber = undescribed,
    ) -> None:
        self._view = view
        self._on_item = on_item
        self._describe = describe
        self._seq: dict[int, tuple[BusMessage, int]] = {}
        """id(message) → (message, seq); the message is held so its id stays unique."""

    def on_bus(self, item: BusItem) -> None:
        if item.message.type not in ("audio", "transcript"):
            self._seq[id(item.message)] = (item.message, item.seq)

    def _take_seq(self, message: BusMessage) -> int:
        held = self._seq.pop(id(message), None)
        return held[1] if held else 0

    def _facts(self, message: BusMessage) -> ToolFacts | None:
        if isinstance(message, ToolCallMessage | ToolRejectedMessage) and message.tool_name:
            return self._describe(message.tool_name)
        return None

    def _keep(self, message: BusMessage) -> None:
        self._on_item(Shown(message, self._take_seq(message), self._facts(message)))

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
        self._on_item(AutoApproved(message, self._take_seq(message), by, self._facts(message)))
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


def answers_json(answers: JSONMapping | None) -> JSONObject | None:
    """A form's answers as :class:`FormAnswered` keeps them (a copy)."""
    if answers is None:
        return None
    return {key: _copy(value) for key, value in answers.items()}


def _copy(value: object) -> JSONValue:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_copy(v) for v in value]
    return str(value)
