"""The saved display log read back: each stored event (its JSON, what
``core/display_log.py`` writes for a transcript item) back into the typed
item it stands for, a display log rebuilt from an OpenAI history alone, and
the few readings search, export and restore need (``turns``, ``event_text``).

Reading is lenient: an event of a type the log does not keep, or too
damaged to read, reads as None, and a restore shows what it can. Older
events lack what later versions added (``approval_timeout_s``, ``_tool``,
``by``): they read with those unsaid.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar, get_args

from desktop_agent.core.display_log import TOOL_KEY, USER
from desktop_agent.core.forms import FormQuestion, QuestionType
from desktop_agent.core.hooks import kept_hook
from desktop_agent.core.json_types import JSONMapping, JSONObject, JSONReadable, as_list, as_object
from desktop_agent.core.messages import (
    BusMessage,
    Card,
    CardField,
    CardMessage,
    ErrorMessage,
    FormRequestMessage,
    InterruptedMessage,
    InterruptReason,
    NoticeCode,
    RoundEndMessage,
    RoundKind,
    TextMessage,
    ToolCallMessage,
    ToolCallState,
    ToolOutputMessage,
    ToolProgressMessage,
    ToolRejectedMessage,
    TurnEndMessage,
    WarningMessage,
    to_json,
)
from desktop_agent.core.risk import AutoDecider
from desktop_agent.core.stream_parser import strip_tags
from desktop_agent.core.transcript import (
    ApprovalAnswer,
    AutoApproved,
    FormAnswered,
    InterruptClicked,
    Shown,
    ToolFacts,
    TranscriptItem,
    UserText,
    WindowNotice,
    answers_json,
)

__all__ = ["auto_by", "event_text", "events_from_history", "item_from_json", "message_from_json", "turns"]

_L = TypeVar("_L", bound=str)


def auto_by(event: JSONMapping) -> AutoDecider:
    """Who answered an ``auto_approved`` event (the always-allow list for
    one recorded before that was kept)."""
    return _choice(event.get("by") or "always_allow", get_args(AutoDecider), "always_allow")


# ------------------------------------------------------------ reading back


def _str(data: JSONMapping, key: str, default: str = "") -> str:
    return str(data.get(key, default))


def _opt_str(data: JSONMapping, key: str) -> str | None:
    value = data.get(key)
    return None if value is None else str(value)


def _opt_float(data: JSONMapping, key: str) -> float | None:
    value = data.get(key)
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _opt_bool(data: JSONMapping, key: str) -> bool | None:
    value = data.get(key)
    return value if isinstance(value, bool) else None


def _opt_object(data: JSONMapping, key: str) -> JSONMapping | None:
    value = data.get(key)
    return value if isinstance(value, Mapping) else None


def _choice(value: JSONReadable, choices: tuple[_L, ...], default: _L | None = None) -> _L:
    """``value`` when it is one of ``choices``; ``default`` otherwise (none:
    the event cannot be read)."""
    for choice in choices:
        if value == choice:
            return choice
    if default is None:
        raise ValueError(f"not one of {choices}: {value!r}")
    return default


def _card(data: JSONMapping) -> Card:
    fields = tuple(
        CardField(_str(f, "label"), _str(f, "value"))
        for f in as_list(data.get("fields")) if isinstance(f, Mapping)
    )
    return Card(_str(data, "title"), _str(data, "body"), _opt_str(data, "image_path"), fields)


def _question(data: JSONMapping) -> FormQuestion:
    return FormQuestion(
        _str(data, "id"), _str(data, "question"),
        _choice(data.get("type", "text"), _QUESTION_TYPES, "text"),
        tuple(str(o) for o in as_list(data.get("options"))), bool(data.get("required", True)),
    )


_QUESTION_TYPES: tuple[QuestionType, ...] = get_args(QuestionType)
_STATES: tuple[ToolCallState, ...] = get_args(ToolCallState)
_REASONS: tuple[InterruptReason, ...] = get_args(InterruptReason)
_KINDS: tuple[RoundKind, ...] = get_args(RoundKind)
_CODES: tuple[NoticeCode, ...] = (*get_args(get_args(NoticeCode)[0]), *get_args(get_args(NoticeCode)[1]))


def _number(value: JSONReadable) -> float:
    if isinstance(value, str | int | float):
        return float(value)
    raise ValueError(f"not a number: {value!r}")


_READERS: dict[str, Callable[[JSONMapping], BusMessage]] = {
    "text": lambda d: TextMessage(int(_number(d.get("segment_id", 0))), _str(d, "text"),
                                  str(d.get("raw_text", d.get("text", ""))), bool(d.get("voice"))),
    "tool_call": lambda d: ToolCallMessage(
        _choice(d["state"], _STATES), str(d["tool_call_id"]), _str(d, "tool_name"), _opt_object(d, "arguments"),
        _opt_str(d, "task_id"), _opt_str(d, "result"), _opt_bool(d, "is_error"),
        _opt_str(d, "parent_tool_call_id")),
    "tool_progress": lambda d: ToolProgressMessage(
        str(d["tool_call_id"]), _number(d.get("progress") or 0), _opt_float(d, "total"), _opt_str(d, "message"),
        _opt_float(d, "eta_s"), _opt_str(d, "parent_tool_call_id")),
    "tool_output": lambda d: ToolOutputMessage(
        str(d["tool_call_id"]), "stderr" if d.get("stream") == "stderr" else "stdout", _str(d, "text"),
        _opt_str(d, "parent_tool_call_id")),
    "form_request": lambda d: FormRequestMessage(
        str(d["tool_call_id"]), str(d["form_id"]),
        tuple(_question(q) for q in as_list(d.get("questions")) if isinstance(q, Mapping)), _opt_str(d, "title")),
    "card": lambda d: CardMessage(str(d["tool_call_id"]), _card(as_object(d.get("card")))),
    "tool_rejected": lambda d: ToolRejectedMessage(
        str(d["tool_call_id"]), _str(d, "tool_name"), _opt_object(d, "arguments"), _str(d, "reason"),
        _opt_object(d, "partial_result"), _opt_str(d, "parent_tool_call_id")),
    "interrupted": lambda d: InterruptedMessage(_choice(d.get("reason", "user"), _REASONS)),
    "round_end": lambda d: RoundEndMessage(int(_number(d.get("round", 0))), _choice(d.get("kind", "tools"), _KINDS)),
    "warning": lambda d: WarningMessage(_str(d, "message"), _choice(d.get("code", "internal"), _CODES)),
    "error": lambda d: ErrorMessage(_str(d, "message"), _choice(d.get("code", "internal"), _CODES)),
    "turn_end": lambda d: TurnEndMessage(),
}


def message_from_json(data: JSONMapping) -> BusMessage | None:
    """The bus message a stored event stands for; None for our own events,
    for types the log does not keep, and for an event too damaged to read
    (a restore shows what it can)."""
    reader = _READERS.get(str(data.get("type")))
    if reader is None:
        return None
    try:
        return reader(data)
    except (KeyError, TypeError, ValueError):
        return None


def item_from_json(data: JSONMapping) -> TranscriptItem | None:
    """The transcript item a saved event stands for (the inverse of
    :func:`event_json`); None for an event of a type the log does not keep,
    or too damaged to read (a restore shows what it can)."""
    match data.get("type"):
        case "user":
            timeout = data.get("approval_timeout_s")
            return UserText(str(data.get("text", "")), float(timeout) if isinstance(timeout, int | float) else None)
        case "auto_approved":
            inner = as_object(data.get("message"))
            message = message_from_json(inner)
            if not isinstance(message, ToolCallMessage):
                return None
            return AutoApproved(message, _seq(inner), auto_by(data), _saved_facts(inner))
        case "approval_answer":
            return ApprovalAnswer(str(data.get("tool_call_id")), bool(data.get("approved")))
        case "form_answer":
            answers = data.get("answers")
            return FormAnswered(str(data.get("form_id")), answers_json(answers) if isinstance(answers, Mapping) else None)
        case "interrupt_clicked":
            return InterruptClicked()
        case "notice":
            return WindowNotice(str(data.get("level")), str(data.get("text", "")))
    message = message_from_json(data)
    return None if message is None else Shown(message, _seq(data), _saved_facts(data))


def _seq(data: JSONMapping) -> int:
    seq = data.get("seq")
    return seq if isinstance(seq, int) and not isinstance(seq, bool) else 0


def _saved_facts(data: JSONMapping) -> ToolFacts | None:
    """A tool event's kept facts; None when it kept none."""
    return ToolFacts.from_json(data[TOOL_KEY]) if TOOL_KEY in data else None


def event_text(event: JSONMapping) -> str:
    """The text an event shows, for search and export ("" when none)."""
    kind = event.get("type")
    if kind == USER:
        return str(event.get("text", ""))
    if kind == "text":
        return str(event.get("text", ""))
    return ""


# --------------------------------------------- from an OpenAI history alone


def events_from_history(history: Sequence[JSONMapping]) -> list[JSONObject]:
    """A display log rebuilt from an OpenAI message list (an older database,
    an imported file without one): the user's words, the replies, and each
    tool call as a finished card with its arguments and result. Hook
    messages (``_hook``) stay hidden, as they were."""
    events: list[JSONObject] = []
    seq = 0

    def add(message: BusMessage) -> None:
        nonlocal seq
        seq += 1
        events.append(to_json(message, session_id="restored", seq=seq))

    started = False
    for message in history:
        if kept_hook(message):
            continue
        role, content = message.get("role"), message.get("content")
        if role == "user":
            if started:
                add(TurnEndMessage())
            started = True
            events.append({"type": USER, "text": str(content or "")})
        elif role == "assistant":
            text = strip_tags(str(content or ""))
            if text.strip():
                add(TextMessage(seq, text, str(content), False))
                add(RoundEndMessage(0, "tools" if message.get("tool_calls") else "continuation"))
            for call in as_list(message.get("tool_calls")):
                if not isinstance(call, Mapping):
                    continue
                function = as_object(call.get("function"))
                add(ToolCallMessage("start", str(call.get("id")), str(function.get("name", "")), None))
                add(ToolCallMessage("executing", str(call.get("id")), str(function.get("name", "")),
                                    _arguments(function.get("arguments"))))
        elif role == "tool":
            call_id = str(message.get("tool_call_id"))
            name = next((str(e.get("tool_name")) for e in events
                         if e.get("type") == "tool_call" and e.get("tool_call_id") == call_id), "")
            text = str(content or "")
            add(ToolCallMessage("result", call_id, name, None, result=text, is_error=text.startswith("Error:")))
    if started:
        add(TurnEndMessage())
    return events


def _arguments(raw: JSONReadable) -> JSONMapping:
    if isinstance(raw, Mapping):
        return dict(raw)
    try:
        parsed: JSONReadable = json.loads(str(raw)) if raw else {}
    except ValueError:
        return {"_raw": str(raw)}
    return parsed if isinstance(parsed, Mapping) else {"_value": parsed}


def turns(events: Iterable[JSONMapping]) -> list[int]:
    """The index of each turn's ``user`` event."""
    return [i for i, e in enumerate(events) if e.get("type") == USER]
