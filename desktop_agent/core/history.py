"""History (contracts §6; ``round_end`` flushes a round): OpenAI messages
built from what the playback queue actually consumed.

- text accumulates (its raw characters, intent tags removed, every space
  and newline kept); ``round_end`` flushes it as its own assistant message;
- tool calls of a round merge the pending text into the assistant message
  that carries ``tool_calls``, followed by one ``tool`` message per call;
- a rejected or interrupted call becomes a ``tool`` message with the reason
  (partial result first);
- content never shown never enters history;
- persistent hook notes that the agent inserted after a round come with
  its ``round_end`` and follow that round's messages (as marked messages,
  :func:`~desktop_agent.core.hooks.hook_message`).

Invariant (:func:`check_history`): every ``tool_calls`` id is answered by
exactly one following ``tool`` message.

This is the canonical history; what is sent is its wire form
(:mod:`desktop_agent.core.wire`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import assert_never

from desktop_agent.core.hooks import HookNote, hook_message
from desktop_agent.core.json_depth import MAX_ARGUMENT_DEPTH, nests_deeper_than
from desktop_agent.core.json_types import (
    JSONMapping,
    JSONObject,
    JSONReadable,
    JSONValue,
    as_list,
    as_object,
)
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
from desktop_agent.core.wire import (
    assistant_tool_calls,
    text_message,
    tool_answer,
    tool_message,
    user_message,
)

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
        self.messages: list[JSONObject] = []
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
                self.messages.extend(hook_message(note) for note in message.hooks)
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
            self.messages.append(
                assistant_tool_calls(
                    content, ((c.id, c.name, _arguments_json(c.arguments)) for c in answered)
                )
            )
            for c in answered:
                self.messages.append(tool_message(c.id, c.answer or ""))
        elif content is not None:
            self.messages.append(text_message("assistant", content))


@dataclass(frozen=True, slots=True)
class TurnHistory:
    """One turn's part of the history, derived from its transcript."""

    messages: list[JSONObject]
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
                    recorder.messages.append(hook_message(item))
            case Shown() | AutoApproved():
                recorder.consume(item.message)
            case ApprovalAnswer() | FormAnswered() | InterruptClicked() | WindowNotice():
                pass
            case _:
                assert_never(item)
    recorder.flush()
    return TurnHistory(recorder.messages, recorder.rejected)


def sent_user_message(item: UserText) -> JSONObject:
    """The user's message as the model gets it: its expanded text (an MCP
    prompt or resources, ``core/mentions.py``) and images, when it had any."""
    if item.model_text is None:
        return user_message(item.text, ((i.mime, i.data) for i in item.images))
    return user_message(item.model_text, ((i.mime, i.data) for i in item.images), typed=item.text)


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
    messages: Sequence[JSONMapping],
    *,
    max_len: int = TOOL_CONTEXT_MAX_LEN,
    no_truncate: Iterable[str] = NO_TRUNCATE_TOOLS,
) -> list[JSONMapping]:
    """``messages`` with the string values inside tool arguments and the
    text of tool results cut to ``max_len`` characters (marked with
    :data:`TRUNCATION_MARK`), except for tools in ``no_truncate`` (found for
    ``tool`` messages through their ``tool_call_id``).

    A message with something cut is a new dict; every other one is passed
    on as it is, not copied: this runs on the whole history before every
    turn, and copies of it (alive for the whole turn) made each turn's peak
    memory grow about a kilobyte per turn already taken (a soak test showed
    it). Nothing downstream edits a message in place (the agent copies
    before it strips tags), and ``messages`` is never changed here."""
    keep = frozenset(no_truncate)
    names: dict[str, str] = {}
    out: list[JSONMapping] = []
    for message in messages:
        sent = message
        old_calls = tool_calls_of(sent)
        if old_calls:
            calls: list[JSONMapping] = []
            for tc in old_calls:
                fn = as_object(tc.get("function"))
                names[str(tc.get("id"))] = str(fn.get("name"))
                if fn.get("name") not in keep:
                    arguments = cut_arguments(str(fn.get("arguments") or ""), max_len)
                    if arguments != fn.get("arguments"):
                        tc = {**tc, "function": {**fn, "arguments": arguments}}
                calls.append(tc)
            if any(new is not old for new, old in zip(calls, old_calls, strict=True)):
                sent = {**sent, "tool_calls": calls}
        elif sent.get("role") == "tool":
            if names.get(str(sent.get("tool_call_id"))) not in keep:
                content = _cut(str(sent.get("content") or ""), max_len)
                if content != sent.get("content"):
                    sent = {**sent, "content": content}
        out.append(sent)
    return out


def tool_calls_of(message: JSONMapping) -> list[JSONMapping]:
    """An assistant message's ``tool_calls`` (those that are objects)."""
    return [call for call in as_list(message.get("tool_calls")) if isinstance(call, Mapping)]


class HistoryError(ValueError):
    pass


def check_history(messages: Sequence[JSONMapping]) -> None:
    """Raise :class:`HistoryError` unless every ``tool_calls`` id is answered
    by exactly one ``tool`` message before the next assistant/user turn."""
    expected: list[str] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in expected:
                raise HistoryError(f"message {index}: tool answer {call_id!r} matches no pending tool call")
            expected.remove(str(call_id))
            continue
        if expected:
            raise HistoryError(f"message {index}: tool calls {expected} were never answered")
        if role == "assistant" and message.get("tool_calls"):
            expected = [str(tc.get("id")) for tc in tool_calls_of(message)]
            if len(set(expected)) != len(expected):
                raise HistoryError(f"message {index}: duplicate tool call ids {expected}")
    if expected:
        raise HistoryError(f"end of history: tool calls {expected} were never answered")


REPAIRED_ANSWER = "The tool call did not finish; its result was lost."


def repair_history(messages: Sequence[JSONObject]) -> list[JSONObject]:
    """``messages`` made to pass :func:`check_history`, losing as little as
    possible: a call nobody answered gets an answer saying so (inserted
    where the answers belong), an answer that matches no pending call is
    dropped, and a repeated call id keeps its first call only."""
    out: list[JSONObject] = []
    expected: list[str] = []

    def close_round() -> None:
        out.extend(tool_message(call_id, REPAIRED_ANSWER, is_error=True) for call_id in expected)
        expected.clear()

    for message in messages:
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id in expected:
                expected.remove(str(call_id))
                out.append(dict(message))
            continue
        close_round()
        if role == "assistant" and message.get("tool_calls"):
            ids: list[str] = []
            calls: list[JSONValue] = []
            for call in _listed(message.get("tool_calls")):
                if isinstance(call, dict) and str(call.get("id")) not in ids:
                    ids.append(str(call.get("id")))
                    calls.append(call)
            out.append({**message, "tool_calls": calls})
            expected = ids
            continue
        out.append(dict(message))
    close_round()
    return out


def _listed(value: JSONValue) -> list[JSONValue]:
    """``value`` when it is a JSON array, else an empty one (an owned
    message's :func:`~desktop_agent.core.json_types.as_list`)."""
    return value if isinstance(value, list) else []
