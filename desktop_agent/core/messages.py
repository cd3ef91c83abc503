"""Bus messages (contracts §5, contract): one frozen dataclass per type, one
:data:`BusMessage` union.

Readers ``match`` on the union and end with ``assert_never``, so mypy fails
when a new message type is not handled. The bus stamps ``session_id`` and
``seq`` (:class:`BusItem`); :func:`to_json` gives the contract's JSON form,
used only where JSON is the contract (the events file, contract tests).

Each class's fields are declared in the contract's key order. A field named
in ``_OMIT_NONE`` is left out of the JSON while it is None (``task_id`` only
comes with ``approval_required``); a field in ``_LOCAL`` never reaches JSON
(audio bytes and images travel in-process beside the message); a field in
``_FLAG`` is in-process too and shows in the JSON as ``true`` while set (a
streamed clip's ``"stream": true``).
"""

from __future__ import annotations

import builtins
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import ClassVar, Literal

from desktop_agent.core.forms import FormQuestion
from desktop_agent.core.hooks import HookNote
from desktop_agent.core.json_types import JSONMapping, JSONObject, JSONValue, to_object
from desktop_agent.core.speech_stream import SpeechStream

ToolCallState = Literal["start", "approval_required", "executing", "result"]
RoundKind = Literal["planning", "continuation", "tools"]
InterruptReason = Literal["user", "rejected", "approval_timeout", "error"]
OutputStream = Literal["stdout", "stderr"]
LLMErrorCode = Literal[
    "auth", "connection", "rate_limit", "server", "bad_request", "stream_dropped", "config"
]
"""How an LLM request failed (``ports.LLMError.code``); the first of the
``warning``/``error`` codes below."""
NoticeCode = LLMErrorCode | Literal["internal", "max_steps", "max_tokens"]
"""``warning``/``error`` codes: the LLM's failures, and the turn's own."""


@dataclass(frozen=True, slots=True)
class TextMessage:
    """A display segment of the reply."""

    segment_id: int
    text: str
    """The segment's exact characters, control tags removed."""
    raw_text: str
    """The same slice of the stream, tags included."""
    voice: bool
    """Inside a ``<voice>`` span: shown when its audio starts."""
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class AudioMessage:
    """Synthesised speech of one segment, or why there is none."""

    segment_id: int
    mime: str | None = None
    bytes: int | None = None
    """The audio's size; the bytes themselves are in :attr:`audio`."""
    error: str | None = None
    """Synthesis failed (the text still shows)."""
    engine: str = ""
    audio: builtins.bytes = field(default=b"", repr=False)
    """In-process only."""
    stream: SpeechStream | None = field(default=None, repr=False, compare=False)
    """PCM still being produced (a streaming engine); then ``audio`` is
    empty, ``bytes`` None and ``mime`` the stream's ``audio/L16``. In-process;
    the JSON says ``"stream": true`` (its size comes with ``audio_end``)."""
    type: Literal["audio"] = "audio"
    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"mime", "bytes", "error"})
    _LOCAL: ClassVar[frozenset[str]] = frozenset({"audio"})
    _FLAG: ClassVar[frozenset[str]] = frozenset({"stream"})


@dataclass(frozen=True, slots=True)
class AudioEndMessage:
    """A streamed clip's PCM has ended: one for every ``audio`` with
    ``stream: true``, after it and before ``turn_end``."""

    segment_id: int
    bytes: int | None = None
    """The whole clip's PCM size."""
    ms: int | None = None
    """Its duration."""
    error: str | None = None
    """Why it ended early (``cancelled`` by an interrupt, the engine's failure);
    what was produced still played."""
    type: Literal["audio_end"] = "audio_end"
    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"bytes", "ms", "error"})

    @classmethod
    def of(cls, segment_id: int, stream: SpeechStream) -> AudioEndMessage:
        frames = stream.size // (stream.channels * stream.sample_width)
        if stream.error is not None:
            return cls(segment_id, error=stream.error)
        return cls(segment_id, bytes=stream.size, ms=round(frames * 1000 / stream.sample_rate))


@dataclass(frozen=True, slots=True)
class ImageContent:
    """An image a tool returned; kept for the UI, never sent to the model."""

    mime: str
    data: bytes


@dataclass(frozen=True, slots=True)
class ResourceRef:
    """A resource a tool result links to or carries inside it, for the card
    (the model reads its line in the result text); in-process only."""

    uri: str
    name: str
    mime: str | None = None
    description: str = ""
    text: str | None = None
    """An embedded text resource's content; None for a link or a blob."""
    size: int | None = None
    """An embedded blob's size in bytes."""

    @property
    def embedded(self) -> bool:
        return self.text is not None or self.size is not None


@dataclass(frozen=True, slots=True)
class ToolCallMessage:
    """One tool call at one FSM state (contracts §2)."""

    state: ToolCallState
    tool_call_id: str
    tool_name: str
    arguments: JSONMapping | None
    """Parsed arguments; None before they are (``start``)."""
    task_id: str | None = None
    """The approval handle, with ``approval_required``."""
    result: str | None = None
    """What the model sees, with ``result``."""
    is_error: bool | None = None
    """With ``result``."""
    parent_tool_call_id: str | None = None
    """Only for a sub-agent's calls and a server's request during a call (``core/nested_call.py``)."""
    structured_content: JSONValue | None = None
    """An MCP tool's ``structuredContent``, with ``result`` (the card shows it as fields or a
    table); in-process only, so the JSON of existing flows stays as it was."""
    images: tuple[ImageContent, ...] = ()
    """Images a tool returned, for the card; in-process only."""
    resources: tuple[ResourceRef, ...] = ()
    """Resource links and embedded resources a tool returned, for the card; in-process only."""
    type: Literal["tool_call"] = "tool_call"
    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset(
        {"task_id", "result", "is_error", "parent_tool_call_id"}
    )
    _LOCAL: ClassVar[frozenset[str]] = frozenset({"images", "structured_content", "resources"})


@dataclass(frozen=True, slots=True)
class ToolProgressMessage:
    tool_call_id: str
    progress: float
    total: float | None
    """None while the tool does not know how much work there is."""
    message: str | None
    eta_s: float | None
    parent_tool_call_id: str | None = None
    """Only for a sub-agent's calls."""
    type: Literal["tool_progress"] = "tool_progress"
    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"parent_tool_call_id"})


@dataclass(frozen=True, slots=True)
class ToolOutputMessage:
    """Output of a running tool as it is produced (``run_command``)."""

    tool_call_id: str
    stream: OutputStream
    text: str
    parent_tool_call_id: str | None = None
    """Only for a sub-agent's calls."""
    type: Literal["tool_output"] = "tool_output"
    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"parent_tool_call_id"})


@dataclass(frozen=True, slots=True)
class FormSource:
    """Who asks a form that is not the model's: an MCP server's elicitation
    request (contracts §10). ``url``: a server asking the user to open a web
    address (URL elicitation) instead of answering questions."""

    server: str
    url: str | None = None

    def to_json(self) -> JSONObject:
        out: JSONObject = {"server": self.server}
        if self.url is not None:
            out["url"] = self.url
        return out


@dataclass(frozen=True, slots=True)
class FormRequestMessage:
    """A form for the user: ``ask_user_question``'s, pushed right after its
    ``executing``, or an MCP server's (``source``) while its call runs."""

    tool_call_id: str
    form_id: str
    questions: tuple[FormQuestion, ...]
    title: str | None = None
    source: FormSource | None = None
    """The server asking (None: the model, through ``ask_user_question``)."""
    type: Literal["form_request"] = "form_request"
    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"source"})


@dataclass(frozen=True, slots=True)
class CardField:
    label: str
    value: str


@dataclass(frozen=True, slots=True)
class Card:
    """What ``show_card`` shows: a title, a Markdown body, an optional image
    and label/value fields."""

    title: str
    body: str = ""
    image_path: str | None = None
    fields: tuple[CardField, ...] = ()

    def to_json(self) -> JSONObject:
        return {
            "title": self.title,
            "body": self.body,
            "image_path": self.image_path,
            "fields": [{"label": f.label, "value": f.value} for f in self.fields],
        }


@dataclass(frozen=True, slots=True)
class CardMessage:
    tool_call_id: str
    card: Card
    type: Literal["card"] = "card"


@dataclass(frozen=True, slots=True)
class ToolRejectedMessage:
    """A call that ended without running to its result: rejected, timed out,
    or interrupted while waiting or executing."""

    tool_call_id: str
    tool_name: str
    arguments: JSONMapping | None
    reason: str
    """Told to the model (and shown)."""
    partial_result: JSONMapping | None = None
    """What an executing tool had produced when it was stopped."""
    parent_tool_call_id: str | None = None
    type: Literal["tool_rejected"] = "tool_rejected"
    _OMIT_NONE: ClassVar[frozenset[str]] = frozenset({"partial_result", "parent_tool_call_id"})


@dataclass(frozen=True, slots=True)
class InterruptedMessage:
    reason: InterruptReason
    type: Literal["interrupted"] = "interrupted"


@dataclass(frozen=True, slots=True)
class RoundEndMessage:
    round: int
    """0 = planning."""
    kind: RoundKind
    hooks: tuple[HookNote, ...] = ()
    """Persistent hook notes the agent inserted after this round, for
    history only (``core/hooks.py``); in-process only, never shown."""
    type: Literal["round_end"] = "round_end"
    _LOCAL: ClassVar[frozenset[str]] = frozenset({"hooks"})


@dataclass(frozen=True, slots=True)
class WarningMessage:
    message: str
    code: NoticeCode
    type: Literal["warning"] = "warning"


@dataclass(frozen=True, slots=True)
class ErrorMessage:
    """An error ends the turn."""

    message: str
    code: NoticeCode
    type: Literal["error"] = "error"


@dataclass(frozen=True, slots=True)
class TurnEndMessage:
    """The handler finished the turn; the last message of every turn."""

    type: Literal["turn_end"] = "turn_end"


@dataclass(frozen=True, slots=True)
class TranscriptMessage:
    """Speech input recognised (partial results have ``final`` False)."""

    text: str
    final: bool
    engine: str
    type: Literal["transcript"] = "transcript"


BusMessage = (
    TextMessage
    | AudioMessage
    | AudioEndMessage
    | ToolCallMessage
    | ToolProgressMessage
    | ToolOutputMessage
    | FormRequestMessage
    | CardMessage
    | ToolRejectedMessage
    | InterruptedMessage
    | RoundEndMessage
    | WarningMessage
    | ErrorMessage
    | TurnEndMessage
    | TranscriptMessage
)

MESSAGE_CLASSES: tuple[type[BusMessage], ...] = (
    TextMessage,
    AudioMessage,
    AudioEndMessage,
    ToolCallMessage,
    ToolProgressMessage,
    ToolOutputMessage,
    FormRequestMessage,
    CardMessage,
    ToolRejectedMessage,
    InterruptedMessage,
    RoundEndMessage,
    WarningMessage,
    ErrorMessage,
    TurnEndMessage,
    TranscriptMessage,
)
MESSAGE_TYPES: frozenset[str] = frozenset(
    next(f.default for f in fields(cls) if f.name == "type") for cls in MESSAGE_CLASSES  # type: ignore[misc]
)
"""The contract's ``type`` values."""


@dataclass(frozen=True, slots=True)
class BusItem:
    """One message as the bus delivered it: stamped with the session and a
    per-session ``seq`` (1, 2, 3…)."""

    session_id: str
    seq: int
    message: BusMessage

    def to_json(self) -> JSONObject:
        return to_json(self.message, session_id=self.session_id, seq=self.seq)


def _value(value: object) -> JSONValue:
    if isinstance(value, Card | FormQuestion | FormSource):
        return value.to_json()
    if isinstance(value, tuple):
        return [_value(v) for v in value]
    if isinstance(value, Mapping):
        return to_object(value)
    if value is None or isinstance(value, str | int | float | bool):
        return value
    raise TypeError(f"a bus message field of type {type(value).__name__} has no JSON form")


def fields_json(message: BusMessage) -> JSONObject:
    """The message's own fields in contract order (no type/session/seq)."""
    omit: frozenset[str] = getattr(message, "_OMIT_NONE", frozenset())
    local: frozenset[str] = getattr(message, "_LOCAL", frozenset())
    flags: frozenset[str] = getattr(message, "_FLAG", frozenset())
    out: JSONObject = {}
    for f in fields(message):
        name = f.name
        if name == "type" or name in local:
            continue
        value = getattr(message, name)
        if name in flags:  # an in-process object the JSON only says is there
            if value is not None:
                out[name] = True
            continue
        if value is None and name in omit:
            continue
        out[name] = _value(value)
    return out


def to_json(message: BusMessage, *, session_id: str, seq: int) -> JSONObject:
    """The contract's JSON object: ``type``, ``session_id``, ``seq``, then
    the fields."""
    return {"type": message.type, "session_id": session_id, "seq": seq, **fields_json(message)}
