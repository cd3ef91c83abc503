"""The approval audit: one record per approval decision, and the
port it is written through.

Every decision is made in one place, :class:`~desktop_agent.core.approval.ApprovalManager`
(a click, a spoken answer, the always-allow list, a headless flag, the
read-only setting, a timeout, an interrupt), so the manager writes the
record and the window, the headless mode and sub-agents all get one,
whoever answered. The storage is an adapter behind :class:`AuditSink`
(``storage/audit_log.py``: JSON lines in the data folder, and the headless
``--audit-log`` file).

The arguments are kept as a short preview and a SHA-256 of their canonical
JSON (sorted keys, no spaces, UTF-8): enough to recognise a call and to
check it against a history or events file, without copying whole file
contents into a second place.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Literal, Protocol, TypeVar, get_args

from desktop_agent.core.json_types import JSONMapping, JSONObject
from desktop_agent.core.risk import Hint, call_annotations

if TYPE_CHECKING:
    from desktop_agent.core.ports import ToolSpec
    from desktop_agent.core.tool_router import RoutedTool

log = logging.getLogger(__name__)

Decision = Literal["approved", "rejected", "timed_out", "interrupted"]
DECISIONS: tuple[Decision, ...] = get_args(Decision)
Decider = Literal[
    "user", "voice", "always_allow", "headless_flag", "read_only_setting", "timeout", "interrupt"
]
"""Who decided: a click or a typed y/n (``user``), a spoken answer, the
always-allow list, ``--approve all|none``, the trusted read-only setting,
nobody in time (``timeout``), an interrupt (the button, a signal, closing)."""
DECIDERS: tuple[Decider, ...] = get_args(Decider)
PREVIEW_CHARS = 200
_T = TypeVar("_T", bound=str)


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """What an approval asks about; given when it is registered."""

    tool_name: str
    tool_call_id: str
    arguments: JSONMapping | None
    conversation_id: str = ""
    server: str | None = None
    """The MCP server offering the tool; None for a built-in one."""
    parents: tuple[str, ...] = ()
    """The ``parent_tool_call_id`` chain, outermost first: a sub-agent's call
    has its ``sub_agent`` call's id here."""
    hints: tuple[str, ...] = ()
    """The tool's risk hints that hold (``ToolAnnotations.hints``)."""


@dataclass(frozen=True, slots=True)
class ApprovalRecord:
    """One decision, as one JSON line (:meth:`to_json`)."""

    time: str
    """When it was decided: ISO 8601, UTC."""
    conversation_id: str
    session_id: str
    """The turn."""
    tool_call_id: str
    tool_name: str
    server: str | None
    arguments_preview: str
    arguments_sha256: str
    decision: Decision
    decided_by: Decider
    waited_s: float
    """From the request to the decision."""
    parent_tool_call_ids: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()

    @property
    def when(self) -> datetime:
        return datetime.fromisoformat(self.time)

    def to_json(self) -> JSONObject:
        return {
            "time": self.time,
            "conversation_id": self.conversation_id,
            "session_id": self.session_id,
            "tool_call_id": self.tool_call_id,
            "tool_name": self.tool_name,
            "server": self.server,
            "arguments_preview": self.arguments_preview,
            "arguments_sha256": self.arguments_sha256,
            "decision": self.decision,
            "decided_by": self.decided_by,
            "waited_s": self.waited_s,
            "parent_tool_call_ids": list(self.parent_tool_call_ids),
            "hints": list(self.hints),
        }

    @classmethod
    def from_json(cls, data: object) -> ApprovalRecord:
        """Raises ValueError when ``data`` is not a record."""
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        try:
            record = cls(
                time=_str(data["time"]),
                conversation_id=_str(data.get("conversation_id", "")),
                session_id=_str(data.get("session_id", "")),
                tool_call_id=_str(data.get("tool_call_id", "")),
                tool_name=_str(data["tool_name"]),
                server=None if data.get("server") is None else _str(data["server"]),
                arguments_preview=_str(data.get("arguments_preview", "")),
                arguments_sha256=_str(data.get("arguments_sha256", "")),
                decision=_choice(data["decision"], DECISIONS),
                decided_by=_choice(data["decided_by"], DECIDERS),
                waited_s=float(data.get("waited_s", 0.0)),
                parent_tool_call_ids=_strs(data.get("parent_tool_call_ids", [])),
                hints=_strs(data.get("hints", [])),
            )
            record.when  # noqa: B018  (the time must parse)
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not an approval record: {exc}") from None
        return record


def request_for(
    call_id: str,
    name: str,
    arguments: JSONMapping | None,
    routed: RoutedTool | None,
    *,
    conversation_id: str,
    parents: tuple[str, ...] = (),
) -> ApprovalRequest:
    """The request of a call to the tool ``routed`` leads to (None: unknown).
    The app's secrets are replaced in the arguments kept: the
    record is a second copy, and should not be a second place a key lies."""
    spec = routed.spec if routed is not None else None
    if routed is not None and routed.redactor is not None and arguments is not None:
        scrubbed = routed.redactor.scrub(dict(arguments))
        arguments = scrubbed if isinstance(scrubbed, dict) else None  # a dict's copy is a dict
    return ApprovalRequest(
        tool_name=name,
        tool_call_id=call_id,
        arguments=arguments,
        conversation_id=conversation_id,
        server=spec.server if spec is not None else None,
        parents=parents,
        hints=_call_hints(name, spec, arguments),
    )


def _call_hints(name: str, spec: ToolSpec | None, arguments: JSONMapping | None) -> tuple[Hint, ...]:
    """The hints of this call (a ``run_command`` call's read from its command)."""
    if spec is None:
        return ()
    annotations = call_annotations(name, spec.server, spec.annotations, arguments)
    return annotations.hints() if annotations is not None else ()


class AuditSink(Protocol):
    """Where records go. Called synchronously as the decision is made, so
    it must be quick; a sink that fails logs and carries on (an approval
    never fails because its record could not be written)."""

    def record(self, entry: ApprovalRecord) -> None: ...


class AuditSinks:
    """Several sinks as one (the data folder's log, ``--audit-log``); one
    that raises is logged and the others still get the record."""

    def __init__(self, sinks: Sequence[AuditSink] = ()) -> None:
        self.sinks: list[AuditSink] = list(sinks)

    def add(self, sink: AuditSink) -> None:
        self.sinks.append(sink)

    def record(self, entry: ApprovalRecord) -> None:
        for sink in self.sinks:
            try:
                sink.record(entry)
            except Exception:  # an audit failure never decides an approval
                log.exception("could not record the approval of %s", entry.tool_name)


def canonical_arguments(arguments: JSONMapping | None) -> str:
    """The arguments as canonical JSON: sorted keys, no spaces, UTF-8 text."""
    return json.dumps(
        arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )


def arguments_sha256(arguments: JSONMapping | None) -> str:
    return hashlib.sha256(canonical_arguments(arguments).encode("utf-8")).hexdigest()


def arguments_preview(arguments: JSONMapping | None, limit: int = PREVIEW_CHARS) -> str:
    """The arguments in one line, cut to ``limit`` characters."""
    if arguments is None:
        return ""
    text = json.dumps(arguments, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def timestamp(epoch_s: float) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).isoformat(timespec="milliseconds")


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def _strs(value: object) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise TypeError("expected a list")
    return tuple(_str(v) for v in value)


def _choice(value: object, choices: tuple[_T, ...]) -> _T:
    for choice in choices:
        if value == choice:
            return choice
    raise TypeError(f"unknown value {value!r}")
