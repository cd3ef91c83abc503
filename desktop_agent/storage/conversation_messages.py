"""A saved display event of a bus message read back into that message:
the contract JSON form (the ``--events-jsonl`` form, contracts §5) the
display log keeps each shown message in (``storage/conversation_events.py``).

Lenient: a value that is not one of its kind's choices reads as the kind's
default where it has one; an event too damaged to draw reads as None.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TypeVar, get_args

from desktop_agent.core.forms import FormQuestion
from desktop_agent.core.json_types import JSONMapping, JSONReadable, as_list, as_object
from desktop_agent.core.messages import (
    BusMessage,
    Card,
    CardField,
    CardMessage,
    ErrorMessage,
    FormRequestMessage,
    FormSource,
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
)

__all__ = ["choice", "message_from_json"]

_L = TypeVar("_L", bound=str)


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


def choice(value: JSONReadable, choices: tuple[_L, ...], default: _L | None = None) -> _L:
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
    return FormQuestion.from_json(data)


def _source(data: JSONMapping | None) -> FormSource | None:
    return FormSource(_str(data, "server"), _opt_str(data, "url")) if data is not None else None


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
        choice(d["state"], _STATES), str(d["tool_call_id"]), _str(d, "tool_name"), _opt_object(d, "arguments"),
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
        tuple(_question(q) for q in as_list(d.get("questions")) if isinstance(q, Mapping)), _opt_str(d, "title"),
        _source(_opt_object(d, "source"))),
    "card": lambda d: CardMessage(str(d["tool_call_id"]), _card(as_object(d.get("card")))),
    "tool_rejected": lambda d: ToolRejectedMessage(
        str(d["tool_call_id"]), _str(d, "tool_name"), _opt_object(d, "arguments"), _str(d, "reason"),
        _opt_object(d, "partial_result"), _opt_str(d, "parent_tool_call_id")),
    "interrupted": lambda d: InterruptedMessage(choice(d.get("reason", "user"), _REASONS)),
    "round_end": lambda d: RoundEndMessage(int(_number(d.get("round", 0))), choice(d.get("kind", "tools"), _KINDS)),
    "warning": lambda d: WarningMessage(_str(d, "message"), choice(d.get("code", "internal"), _CODES)),
    "error": lambda d: ErrorMessage(_str(d, "message"), choice(d.get("code", "internal"), _CODES)),
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
