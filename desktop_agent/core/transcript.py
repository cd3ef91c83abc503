"""The conversation as typed items: what the user did and what the window
showed, in order, plus the hook notes that history keeps.

A turn's items are what the playback queue consumed (each bus message with
its ``seq`` and, for a tool, the :class:`ToolFacts` of its card), the user's
own actions that the bus never carries (:class:`ApprovalAnswer`,
:class:`FormAnswer`, :class:`InterruptClicked`, a window :class:`Notice`),
and the :class:`HookNote` prompts that persist in history unseen. The saved
display log is the JSON form of these items (``core/display_log.py`` reads
and writes it); the OpenAI history is derived from the same consumed
messages (``core/history.py``).

Each item is a frozen dataclass; :data:`TranscriptItem` is their union, and
readers ``match`` on it ending in ``assert_never``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from desktop_agent.core.hooks import HookNote
from desktop_agent.core.json_types import JSONMapping, JSONObject, JSONValue
from desktop_agent.core.messages import BusMessage, ToolCallMessage
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
        if not isinstance(data, dict):
            return cls()
        server = data.get("server")
        hints = data.get("annotations")
        annotations = None
        if isinstance(hints, dict):
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
class FormAnswer:
    """A form's answers; None when it was cancelled."""

    form_id: str
    answers: JSONObject | None


@dataclass(frozen=True, slots=True)
class InterruptClicked:
    """The interrupt button."""


@dataclass(frozen=True, slots=True)
class Notice:
    """One of the window's own lines (a lost approval, tools not ready)."""

    level: str
    text: str


TranscriptItem = (
    UserText | Shown | AutoApproved | ApprovalAnswer | FormAnswer | InterruptClicked | Notice | HookNote
)
UserEvent = ApprovalAnswer | FormAnswer | InterruptClicked | Notice
"""What the window records itself (``Conversation.record``)."""


def answers_json(answers: JSONMapping | None) -> JSONObject | None:
    """A form's answers as :class:`FormAnswer` keeps them (a copy)."""
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
