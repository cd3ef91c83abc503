"""What the agent generator yields (seed 000 §3): small frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from desktop_agent.core.ports import ToolResult
from desktop_agent.core.stream_parser import Segment

ToolCallState = Literal["start", "approval_required", "executing", "result"]
RoundKind = Literal["planning", "continuation", "tools"]


@dataclass(frozen=True, slots=True)
class ToolCallInfo:
    """One tool call at one FSM state."""

    id: str
    name: str
    state: ToolCallState
    arguments: dict[str, Any] | None = None
    """Parsed arguments; None while still streaming (``start``)."""
    task_id: str | None = None
    """Approval handle, set with ``approval_required``."""
    result: ToolResult | None = None
    follow_up: dict[str, Any] | None = None
    """Extra bus message to push right after ``executing`` (a form request)."""


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
    type: Literal["round_end"] = "round_end"


@dataclass(frozen=True, slots=True)
class NoticeChunk:
    """A ``warning`` or an ``error`` (an error ends the turn)."""

    level: Literal["warning", "error"]
    message: str
    code: str
    type: Literal["notice"] = "notice"


LLMChunk = SegmentChunk | ToolCallChunk | RoundEndChunk | NoticeChunk
