"""What the agent generator yields (contracts §2: text, round ends and the
tool-call states): small frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from desktop_agent.core.hooks import HookNote
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.messages import FormRequestMessage, NoticeCode, RoundKind, ToolCallState
from desktop_agent.core.ports import ToolResult
from desktop_agent.core.stream_parser import Segment

TurnStatus = Literal["completed", "user", "rejected", "approval_timeout", "error"]


@dataclass(frozen=True, slots=True)
class ToolCallInfo:
    """One tool call at one FSM state."""

    id: str
    name: str
    state: ToolCallState
    arguments: JSONObject | None = None
    """Parsed arguments; None while still streaming (``start``)."""
    task_id: str | None = None
    """Approval handle, set with ``approval_required``."""
    result: ToolResult | None = None
    follow_up: FormRequestMessage | None = None
    """Bus message to push right after ``executing``, adjacent to it."""


@dataclass(frozen=True, slots=True)
class SegmentChunk:
    segment: Segment
    type: Literal["segment"] = "segment"


@dataclass(frozen=True, slots=True)
class ToolCallChunk:
    call: ToolCallInfo
    type: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True, slots=True)
class RoundEndChunk:
    round: int
    kind: RoundKind
    hooks: tuple[HookNote, ...] = ()
    """Persistent hook notes inserted after this round (``core/hooks.py``):
    history records them right after the round's own messages."""
    type: Literal["round_end"] = "round_end"


@dataclass(frozen=True, slots=True)
class NoticeChunk:
    """A ``warning`` or an ``error`` (an error ends the turn)."""

    level: Literal["warning", "error"]
    message: str
    code: NoticeCode
    type: Literal["notice"] = "notice"


LLMChunk = SegmentChunk | ToolCallChunk | RoundEndChunk | NoticeChunk


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """How a turn ended; ``error`` is the one-line error with ``error``."""

    status: TurnStatus
    error: str | None = None
    session_id: str = ""
