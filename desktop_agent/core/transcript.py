"""The conversation as typed items: what the user did and what the window
showed, in order, plus the hook notes that history keeps.

A turn's items are what the playback queue consumed (each bus message with
its ``seq`` and, for a tool, the :class:`ToolFacts` of its card), the user's
own actions that the bus never carries (:class:`ApprovalAnswer`,
:class:`FormAnswered`, :class:`InterruptClicked`, a :class:`WindowNotice`),
and the :class:`HookNote` prompts that persist in history unseen. The saved
display log (``Conversation.events``) holds these items but the hook notes
(:data:`DisplayItem`); its JSON form on disk is ``storage/conversation_events.py``'s.
The OpenAI history is derived from the same consumed messages
(``core/history.py``).

Each item is a frozen dataclass; :data:`TranscriptItem` is their union, and
readers ``match`` on it ending in ``assert_never``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from desktop_agent.core.hooks import HookNote
from desktop_agent.core.json_types import JSONMapping, JSONObject, to_object
from desktop_agent.core.mentions import Attachment
from desktop_agent.core.messages import (
    BusItem,
    BusMessage,
    ErrorMessage,
    ImageContent,
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


@dataclass(frozen=True, slots=True)
class UserText:
    """The user's message, opening each turn."""

    text: str
    approval_timeout_s: float | None = None
    """The turn's approval timeout, for a card's "No answer in 300 s";
    None in logs recorded before it was kept."""
    attachments: tuple[Attachment, ...] = ()
    """The MCP prompt and resources it carried (``core/mentions.py``): its
    bubble's chips. Kept in the display log."""
    model_text: str | None = None
    """What the model read instead of :attr:`text` (its mentions
    expanded); None: the text itself. In-process: the history keeps it."""
    images: tuple[ImageContent, ...] = ()
    """Images the message sent the model. In-process: the history keeps them."""


@dataclass(frozen=True, slots=True)
class Shown:
    """A bus message the playback queue consumed (and so the window showed)."""

    message: BusMessage
    seq: int
    """The bus's number of it in its turn (0: not known)."""
    facts: ToolFacts | None = None
    """A tool event's card facts (None: none kept)."""
    session_id: str = ""
    """The bus session (the turn) that carried it."""


@dataclass(frozen=True, slots=True)
class AutoApproved:
    """An approval answered without the user: ``by`` the always-allow list
    or a rule."""

    message: ToolCallMessage
    seq: int
    by: AutoDecider = "always_allow"
    facts: ToolFacts | None = None
    session_id: str = ""


@dataclass(frozen=True, slots=True)
class ApprovalAnswer:
    """A card's Allow/Deny click."""

    tool_call_id: str
    approved: bool


@dataclass(frozen=True, slots=True)
class FormAnswered:
    """A form's answers; None when it was cancelled (or declined)."""

    form_id: str
    answers: JSONObject | None
    declined: bool = False
    """A server's form the user declined (its Decline button)."""


@dataclass(frozen=True, slots=True)
class InterruptClicked:
    """The interrupt button."""


@dataclass(frozen=True, slots=True)
class WindowNotice:
    """One of the window's own lines (a lost approval, tools not ready)."""

    level: str
    text: str


@dataclass(frozen=True, slots=True)
class UnreadEvent:
    """A saved display event this version could not read back (damaged, or
    of a type the log does not keep), kept as it was: the display log keeps
    its length and order (the store appends after what it holds), and a
    restore draws nothing for it."""

    event: JSONObject


TranscriptItem = (
    UserText | Shown | AutoApproved | ApprovalAnswer | FormAnswered | InterruptClicked | WindowNotice | HookNote
)
UserEvent = ApprovalAnswer | FormAnswered | InterruptClicked | WindowNotice
"""What the window records itself (``Conversation.record``)."""
DisplayItem = (
    UserText | Shown | AutoApproved | ApprovalAnswer | FormAnswered | InterruptClicked | WindowNotice | UnreadEvent
)
"""An item of the display log (``Conversation.events``): what the window
showed and the user did; hook notes are never shown, so never logged."""


ScanKind = Literal["user", "text", "round_end"] | None
"""What a display log is scanned by without reading its items whole (a
restore: where turns start, and where a run of text goes on): the user's
text, a shown text, a shown round's end; None for the rest."""


def scan_kind(item: DisplayItem) -> ScanKind:
    """An item's :data:`ScanKind`."""
    if isinstance(item, UserText):
        return "user"
    if isinstance(item, Shown) and isinstance(item.message, TextMessage | RoundEndMessage):
        return item.message.type
    return None


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
        describe: ToolDescriber = undescribed, session_id: str = "",
    ) -> None:
        self._view = view
        self._on_item = on_item
        self._describe = describe
        self._session_id = session_id
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
        self._on_item(Shown(message, self._take_seq(message), self._facts(message), self._session_id))

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
        self._on_item(AutoApproved(message, self._take_seq(message), by, self._facts(message), self._session_id))
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
    return None if answers is None else to_object(answers)
