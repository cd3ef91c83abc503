"""History (contracts §6; ``round_end`` flushes a round): the typed items
of ``core/history_items.py``, built from what the playback queue actually
consumed.

- text accumulates (its raw characters, intent tags removed, every space
  and newline kept); ``round_end`` flushes it as its own
  :class:`AssistantMessage`;
- tool calls of a round merge the pending text into the assistant message
  that carries them, followed by one :class:`ToolAnswer` per call;
- a rejected or interrupted call is answered with the reason (partial
  result first);
- content never shown never enters history;
- persistent hook notes that the agent inserted after a round come with
  its ``round_end`` and follow that round's messages (as
  :class:`~desktop_agent.core.hooks.HookNote` items).

Invariant (:func:`check_history`): every call is answered by exactly one
following :class:`ToolAnswer`.

This is the canonical history; what is sent is its wire form
(:func:`desktop_agent.core.wire.history_messages`, then
:func:`~desktop_agent.core.wire.normalize`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import assert_never

from desktop_agent.core.history_items import (
    AssistantMessage,
    HistoryItem,
    ToolAnswer,
    ToolCall,
    UserMessage,
    user_item,
)
from desktop_agent.core.hooks import HookNote
from desktop_agent.core.json_depth import MAX_ARGUMENT_DEPTH, nests_deeper_than
from desktop_agent.core.json_types import JSONMapping, JSONReadable, JSONValue
from desktop_agent.core.messages import (
    AudioEndMessage,
    AudioMessage,
    BusMessage,
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
    TranscriptMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.stream_parser import strip_intent_tags, strip_tags
from desktop_agent.core.transcript import (
    ApprovalAnswer,
    AutoApproved,
    FormAnswered,
    InterruptClicked,
    Shown,
    TranscriptItem,
    UserText,
    WindowNotice,
)
from desktop_agent.core.wire import tool_answer

TOOL_CONTEXT_MAX_LEN = 300
NO_TRUNCATE_TOOLS: frozenset[str] = frozenset({"get_skill"})
TRUNCATION_MARK = "…[truncated]"

@dataclass
class _Call:
    id: str
    name: str
    arguments: JSONMapping | str | None
    answer: str | None = None


class HistoryRecorder:
    """Feed it consumed bus messages in order; read :attr:`messages`."""

    def __init__(self) -> None:
        self.messages: list[HistoryItem] = []
        self._text: list[str] = []
        self._calls: dict[str, _Call] = {}
        self.rejected = False
        """A call was rejected, timed out or interrupted (``tool_rejected``):
        the turn's ``after_rejection`` hooks apply."""

    def consume(self, message: BusMessage) -> None:
        match message:
            case TextMessage():
                self._text.append(message.raw_text)
            case ToolCallMessage() | ToolRejectedMessage() if message.parent_tool_call_id is not None:
                pass  # a sub-agent's call: its result reaches the model as the sub_agent call's
            case ToolCallMessage():
                call = self._call(message.tool_call_id, message.tool_name, message.arguments)
                if message.state == "result":
                    call.answer = tool_answer(message.result or "", is_error=message.is_error)
            case ToolRejectedMessage():
                call = self._call(message.tool_call_id, message.tool_name, message.arguments)
                reason = message.reason
                partial = message.partial_result
                if partial:
                    reason = f"{json.dumps(dict(partial), ensure_ascii=False)}\n{reason}"
                call.answer = reason
                self.rejected = True
            case RoundEndMessage():
                self.flush()
                # Persistent hooks inserted after this round: the round's text
                # is flushed first, then they are stored (never shown).
                self.messages.extend(message.hooks)
            case InterruptedMessage() | TurnEndMessage():
                self.flush()
            case (
                ToolProgressMessage()
                | ToolOutputMessage()
                | FormRequestMessage()
                | CardMessage()
                | AudioMessage()
                | AudioEndMessage()
                | WarningMessage()
                | ErrorMessage()
                | TranscriptMessage()
            ):
                pass  # shown, never sent back to the model
            case _:
                assert_never(message)

    def _call(self, call_id: str, name: str, arguments: JSONMapping | None) -> _Call:
        call = self._calls.get(call_id)
        if call is None:
            call = self._calls[call_id] = _Call(call_id, name, arguments)
        if arguments is not None:
            call.arguments = arguments
        return call

    def flush(self) -> None:
        text = strip_intent_tags("".join(self._text))
        self._text.clear()
        answered = [c for c in self._calls.values() if c.answer is not None]
        self._calls.clear()
        content = text if strip_tags(text).strip() else None  # nothing visible: no message
        if answered:
            calls = tuple(ToolCall(c.id, c.name, _arguments_json(c.arguments)) for c in answered)
            self.messages.append(AssistantMessage(content, calls))
            self.messages.extend(ToolAnswer(c.id, c.answer or "") for c in answered)
        elif content is not None:
            self.messages.append(AssistantMessage(content))


@dataclass(frozen=True, slots=True)
class TurnHistory:
    """One turn's part of the history, derived from its transcript."""

    messages: list[HistoryItem]
    rejected: bool
    """A call was rejected, timed out or interrupted: the turn's
    ``after_rejection`` hooks apply."""


def history_of(items: Iterable[TranscriptItem]) -> TurnHistory:
    """The history of one turn, derived from its transcript items: the
    user's message and persistent hook notes where they stand, and what the
    queue consumed (shown, or approved without asking) folded by
    :class:`HistoryRecorder`; the window's own events never reach the model."""
    recorder = HistoryRecorder()
    for item in items:
        match item:
            case UserText():
                recorder.flush()
                recorder.messages.append(sent_user_message(item))
            case HookNote():
                if item.persistent:
                    recorder.flush()
                    recorder.messages.append(item)
            case Shown() | AutoApproved():
                recorder.consume(item.message)
            case ApprovalAnswer() | FormAnswered() | InterruptClicked() | WindowNotice():
                pass
            case _:
                assert_never(item)
    recorder.flush()
    return TurnHistory(recorder.messages, recorder.rejected)


def sent_user_message(item: UserText) -> UserMessage:
    """The user's message as the model gets it: its expanded text (an MCP
    prompt or resources, ``core/mentions.py``) and images, when it had any."""
    if item.model_text is None:
        return user_item(item.text, item.images)
    return user_item(item.model_text, item.images, typed=item.text)


def _arguments_json(arguments: JSONMapping | str | None) -> str:
    if arguments is None:
        return "{}"
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, ensure_ascii=False)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + TRUNCATION_MARK


def _cut_strings(value: JSONReadable, limit: int) -> tuple[JSONValue, bool]:
    """``value`` with every string longer than ``limit`` cut (keys kept);
    and whether anything was cut."""
    if isinstance(value, str):
        return _cut(value, limit), len(value) > limit
    if isinstance(value, Mapping):
        cuts = {key: _cut_strings(item, limit) for key, item in value.items()}
        return {key: item for key, (item, _) in cuts.items()}, any(cut for _, cut in cuts.values())
    if isinstance(value, Sequence):
        pairs = [_cut_strings(item, limit) for item in value]
        return [item for item, _ in pairs], any(cut for _, cut in pairs)
    return value, False


def cut_arguments(arguments: str, limit: int) -> str:
    """Arguments (JSON text) with long *string values* cut, so the result is
    still the JSON the server parses (vLLM runs ``json.loads`` on it); text
    that is not JSON is cut as text (the wire replays it as ``{}``)."""
    try:
        value = json.loads(arguments)
    except (ValueError, RecursionError):  # RecursionError: nested too deeply to parse
        return _cut(arguments, limit)
    if nests_deeper_than(value, MAX_ARGUMENT_DEPTH):
        # Parsed, but too deep for the recursive cut below (a conversation
        # saved or imported with such a call): cut as text, like invalid JSON.
        return _cut(arguments, limit)
    cut, changed = _cut_strings(value, limit)
    return json.dumps(cut, ensure_ascii=False) if changed else arguments


def truncate_for_send(
    items: Sequence[HistoryItem],
    *,
    max_len: int = TOOL_CONTEXT_MAX_LEN,
    no_truncate: Iterable[str] = NO_TRUNCATE_TOOLS,
) -> list[HistoryItem]:
    """``items`` with the string values inside tool arguments and the text
    of tool answers cut to ``max_len`` characters (marked with
    :data:`TRUNCATION_MARK`), except for tools in ``no_truncate`` (found for
    an answer through its call's id).

    An item with something cut is a new one; every other one is passed on
    as it is, not copied (``items`` is never changed). An
    :class:`UnreadMessage` is passed on whole."""
    keep = frozenset(no_truncate)
    names: dict[str, str] = {}
    out: list[HistoryItem] = []
    for item in items:
        sent = item
        if isinstance(item, AssistantMessage) and item.tool_calls:
            calls: list[ToolCall] = []
            for call in item.tool_calls:
                names[call.id] = call.name
                if call.name not in keep:
                    arguments = cut_arguments(call.arguments, max_len)
                    if arguments != call.arguments:
                        call = replace(call, arguments=arguments)
                calls.append(call)
            if any(new is not old for new, old in zip(calls, item.tool_calls, strict=True)):
                sent = replace(item, tool_calls=tuple(calls))
        elif isinstance(item, ToolAnswer) and names.get(item.call_id) not in keep:
            content = _cut(item.content, max_len)
            if content != item.content:
                sent = replace(item, content=content)
        out.append(sent)
    return out


class HistoryError(ValueError):
    pass


def check_history(items: Sequence[HistoryItem]) -> None:
    """Raise :class:`HistoryError` unless every call is answered by exactly
    one :class:`ToolAnswer` before the next message of another kind."""
    expected: list[str] = []
    for index, item in enumerate(items):
        if isinstance(item, ToolAnswer):
            if item.call_id not in expected:
                raise HistoryError(f"message {index}: tool answer {item.call_id!r} matches no pending tool call")
            expected.remove(item.call_id)
            continue
        if expected:
            raise HistoryError(f"message {index}: tool calls {expected} were never answered")
        if isinstance(item, AssistantMessage) and item.tool_calls:
            expected = [call.id for call in item.tool_calls]
            if len(set(expected)) != len(expected):
                raise HistoryError(f"message {index}: duplicate tool call ids {expected}")
    if expected:
        raise HistoryError(f"end of history: tool calls {expected} were never answered")


REPAIRED_ANSWER = "The tool call did not finish; its result was lost."


def repair_history(items: Sequence[HistoryItem]) -> list[HistoryItem]:
    """``items`` made to pass :func:`check_history`, losing as little as
    possible: a call nobody answered gets an answer saying so (inserted
    where the answers belong), an answer that matches no pending call is
    dropped, and a repeated call id keeps its first call only. An
    :class:`UnreadMessage` is kept where it stands (it ends a round)."""
    out: list[HistoryItem] = []
    expected: list[str] = []

    def close_round() -> None:
        out.extend(ToolAnswer(call_id, tool_answer(REPAIRED_ANSWER, is_error=True)) for call_id in expected)
        expected.clear()

    for item in items:
        if isinstance(item, ToolAnswer):
            if item.call_id in expected:
                expected.remove(item.call_id)
                out.append(item)
            continue
        close_round()
        if isinstance(item, AssistantMessage) and item.tool_calls:
            calls: list[ToolCall] = []
            for call in item.tool_calls:
                if call.id not in expected:
                    expected.append(call.id)
                    calls.append(call)
            out.append(item if len(calls) == len(item.tool_calls) else replace(item, tool_calls=tuple(calls)))
            continue
        out.append(item)
    close_round()
    return out

