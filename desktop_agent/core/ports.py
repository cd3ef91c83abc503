"""Ports: the Protocols through which the core talks to the outside world.

The core knows nothing of openai, mcp, edge-tts or Qt. Adapters in ``llm/``,
``mcp_engine/``, ``tools/``, ``voice/`` and ``ui/`` implement these.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from desktop_agent.core.json_types import JSONMapping, JSONObject, JSONValue, to_object
from desktop_agent.core.messages import (
    Card,
    FormRequestMessage,
    ImageContent,
    InterruptReason,
    LLMErrorCode,
    OutputStream,
    ResourceRef,
)
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.core.speech_stream import SpeechStream

# --------------------------------------------------------------------------- LLM


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of assistant text from the stream."""

    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True, slots=True)
class ToolCallDelta:
    """A piece of one tool call, keyed by its ``index`` in the reply."""

    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""
    type: Literal["tool_call"] = "tool_call"


LLMDelta = TextDelta | ToolCallDelta

ToolChoice = Literal["auto", "none"]
"""``auto``: the model may call the tools given; ``none``: it must not, and
the tools are given only so that the request's prompt prefix is the same as
the tool round's (contracts §2a: a local server then reuses its prompt cache).
A provider that cannot send ``none`` sends no tools instead."""


class LLMError(Exception):
    """A failure of the LLM endpoint, already worded for the user, with the
    kind of failure as ``code``."""

    def __init__(self, message: str, code: LLMErrorCode = "server") -> None:
        super().__init__(message)
        self.code = code

    @property
    def message(self) -> str:
        return str(self)


class LLMProvider(Protocol):
    """An OpenAI-compatible chat model, streamed."""

    @property
    def model(self) -> str:
        """Model name shown to the user."""
        ...

    @property
    def is_demo(self) -> bool:
        """True for the offline demo model."""
        ...

    def stream(
        self,
        messages: Sequence[JSONMapping],
        *,
        tools: Sequence[JSONMapping] | None = None,
        tool_choice: ToolChoice = "auto",
        on_finish: Callable[[str], None] | None = None,
    ) -> AsyncGenerator[LLMDelta, None]:
        """Stream one reply. Raises :class:`LLMError` on failure.
        ``on_finish``: told the reply's ``finish_reason`` (``stop``,
        ``length`` when it was cut at ``max_tokens``, ``tool_calls``) where
        the model says it."""
        ...

    def set_limits(self, max_tokens: int | None, timeout_s: float) -> None:
        """The reply limit (``max_tokens``; None: the server's own) and the
        request timeout from the next request on: Settings changed them.
        A model without requests (the demo, test fakes) ignores them."""
        ...


# ------------------------------------------------------------------------- tools


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A tool as the LLM sees it, plus where it comes from."""

    name: str
    description: str
    parameters: JSONMapping = field(
        default_factory=lambda: {"type": "object", "properties": {}}
    )
    skip_approval: bool = False
    """Only built-in tools may set this; MCP tools always need approval."""
    server: str | None = None
    """MCP server name, or None for a built-in tool."""
    annotations: ToolAnnotations | None = None
    """What the tool says of its risk (MCP ``Tool.annotations``, or the
    built-in tool's own); None: it says nothing. Never sent to the model."""

    def to_openai(self) -> JSONObject:
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": to_object(self.parameters),
            },
        }


@dataclass(frozen=True, slots=True)
class ToolResult:
    """What a tool returns. ``text`` is what the model sees."""

    text: str
    is_error: bool = False
    images: tuple[ImageContent, ...] = ()
    structured: JSONValue | None = None
    """Structured content (an MCP tool's ``structuredContent``) for the card; the model reads ``text``."""
    resources: tuple[ResourceRef, ...] = ()
    """Resource links and embedded resources, for the card."""


class ToolContext(Protocol):
    """What an executing tool may do besides returning its result."""

    @property
    def session_id(self) -> str: ...

    @property
    def conversation_id(self) -> str: ...

    @property
    def tool_call_id(self) -> str: ...

    def set_partial(self, key: str, value: JSONValue) -> None:
        """Record partial output (becomes ``partial_result`` on interrupt)."""
        ...

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        """Report progress: pushes ``tool_progress`` and resets idle timeouts."""
        ...

    def push_card(self, card: Card) -> None:
        """Push a ``card`` bus message for this call."""
        ...

    @property
    def answer_timeout_s(self) -> float | None:
        """How long a tool may wait for the user (a form): the approval
        timeout; None waits as long as the turn lasts."""
        ...

    def output(self, stream: OutputStream, text: str) -> None:
        """Output as it is produced (any chunk, lines need not be whole):
        reaches the bus as coalesced ``tool_output`` messages."""
        ...


class AnswerTimedOut(Exception):
    """A tool waited longer than ``answer_timeout_s`` for the user (a form
    nobody answered): the turn ends as after an unanswered approval."""


class SubAgentStopped(Exception):
    """A sub-agent's nested call was rejected, timed out or interrupted: the
    sub_agent call ends without a result and the whole turn ends with
    ``reason`` (contracts §9). The agent lets it through like
    :class:`AnswerTimedOut`; the chat handler turns it into ``tool_rejected``
    of the sub_agent call and ``interrupted``."""

    def __init__(self, reason: InterruptReason) -> None:
        super().__init__(reason)
        self.reason: InterruptReason = reason


@runtime_checkable
class Tool(Protocol):
    """A built-in tool."""

    @property
    def spec(self) -> ToolSpec: ...

    async def run(self, arguments: JSONMapping, ctx: ToolContext) -> ToolResult: ...


class PostExecutingHook(Protocol):
    """Optional on built-in tools: called synchronously right after the
    ``tool_call[executing]`` message is pushed; returns a form request to
    push adjacent to it, or None."""

    def on_post_executing(
        self, tool_call_id: str, arguments: JSONMapping
    ) -> FormRequestMessage | None: ...


class ToolSource(Protocol):
    """A set of tools from elsewhere (an MCP server group)."""

    def specs(self) -> Sequence[ToolSpec]: ...

    async def call(
        self, name: str, arguments: JSONMapping, ctx: ToolContext
    ) -> ToolResult:
        """Run a tool. Failures come back as ``ToolResult(is_error=True)``."""
        ...


# ------------------------------------------------------------------------ speech


@dataclass(frozen=True, slots=True)
class Speech:
    """Synthesised audio for one segment."""

    audio: bytes
    mime: str
    engine: str


class TTSError(Exception):
    """Synthesis failed; the text still shows."""


class TTSEngine(Protocol):
    @property
    def name(self) -> str: ...

    async def synthesize(self, text: str) -> Speech: ...


@runtime_checkable
class StreamingTTSEngine(TTSEngine, Protocol):
    """An engine that can also hand out PCM as it is produced (espeak-ng)."""

    async def open_stream(self, text: str) -> SpeechStream:
        """Start synthesis; return once the first PCM chunk exists (the
        producer keeps feeding the stream). Raises :class:`TTSError` when it
        fails before any audio."""
        ...


def streams_now(engine: TTSEngine) -> bool:
    """Whether the next segment goes through ``open_stream``. An engine may
    stream only some of the time (``auto`` while its offline fallback
    speaks): it says so with a ``streaming`` property."""
    return isinstance(engine, StreamingTTSEngine) and bool(getattr(engine, "streaming", True))


class SpeechPort(Protocol):
    """The synthesis pipeline as the chat handler sees it (one per turn).

    ``submit`` starts synthesis at once; the pipeline pushes ``audio`` bus
    messages in segment order. ``drain`` waits (bounded) for all of them;
    ``cancel`` drops what is pending.
    """

    def submit(self, segment_id: int, text: str) -> None: ...

    async def drain(self) -> None: ...

    def cancel(self) -> None: ...


class STTError(Exception):
    """Speech could not be recognised (engine missing, endpoint down…): the
    message is one line a person can read."""


class SpeechRecognizer(Protocol):
    """Speech to text: one utterance of 16-bit mono PCM in, its
    text out. Engines: ``openai`` (``/audio/transcriptions``),
    ``pocketsphinx`` (offline English), an offline zh/en engine."""

    @property
    def name(self) -> str:
        """The engine's name, as the ``transcript`` message's ``engine``."""
        ...

    async def transcribe(self, pcm16: bytes, sample_rate: int = 16000) -> str:
        """The utterance's text (empty when nothing was recognised). Raises
        :class:`STTError`."""
        ...


class AudioInput(Protocol):
    """A microphone (or a WAV file in tests): 16 kHz mono 16-bit PCM frames
    pushed to ``on_frames`` while started."""

    def start(self, on_frames: Callable[[bytes], None]) -> None:
        """Begin capture; raises :class:`OSError` with one readable line
        when there is no usable microphone."""
        ...

    def stop(self) -> None: ...


class AudioSink(Protocol):
    """Plays one clip at a time."""

    async def play(self, audio: bytes, mime: str) -> None:
        """Return when the clip ended, failed, or was stopped."""
        ...

    async def play_stream(self, stream: SpeechStream) -> None:
        """Play PCM as it is produced, starting with the first chunk; return
        when it was all played, or stopped. (A sink that cannot stream may
        wait for the end and play ``stream.wav()``.)"""
        ...

    def stop(self) -> None:
        """Silence now; a pending ``play`` returns."""
        ...
