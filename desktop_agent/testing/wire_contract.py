"""contracts §2a as a check: what a request's messages break of the wire
contract. Shared by the normalizer's own tests, the template contract tests
and the provider tests, so each asserts the same rules."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

WIRE_KEYS = frozenset({"role", "content", "tool_calls", "tool_call_id", "name"})
_WIRE_ID = re.compile(r"[A-Za-z0-9]{9}")


def _no_constant(name: str) -> Any:
    raise ValueError(name)


def _arguments_problem(arguments: Any) -> str | None:
    if not isinstance(arguments, str):
        return f"arguments are {type(arguments).__name__}, not JSON text"
    try:
        value = json.loads(arguments, parse_constant=_no_constant)
    except ValueError:
        return f"arguments are not JSON: {arguments[:60]!r}"
    return None if isinstance(value, dict) else f"arguments are not a JSON object: {arguments[:60]!r}"


def _parts_problems(n: int, parts: list[Any]) -> list[str]:
    """A user message with images: its text part, then ``image_url`` parts only."""
    kinds = [p.get("type") if isinstance(p, Mapping) else None for p in parts]
    if not kinds or kinds[0] != "text" or not isinstance(parts[0].get("text"), str):
        return [f"#{n}: user content parts do not start with the text"]
    bad = [k for k in kinds[1:] if k != "image_url"]
    if bad or len(kinds) < 2:
        return [f"#{n}: user content parts {kinds} are not text then images"]
    return []


def _message_problems(n: int, message: Mapping[str, Any]) -> list[str]:
    problems = [f"#{n}: key {key!r}" for key in message if key not in WIRE_KEYS]
    role, content = message.get("role"), message.get("content")
    if role == "assistant":
        if content is not None and not isinstance(content, str):
            problems.append(f"#{n}: assistant content is {type(content).__name__}")
        if "tool_calls" not in message and not (content or "").strip():
            problems.append(f"#{n}: assistant message with nothing in it")
    elif role == "user" and isinstance(content, list):
        problems += _parts_problems(n, content)
    elif not isinstance(content, str):
        problems.append(f"#{n}: {role} content is {type(content).__name__}")
    for call in message.get("tool_calls") or ():
        if not _WIRE_ID.fullmatch(str(call.get("id"))):
            problems.append(f"#{n}: tool call id {call.get('id')!r} is not nine letters or digits")
        problem = _arguments_problem(call.get("function", {}).get("arguments"))
        if problem:
            problems.append(f"#{n}: {problem}")
    if "tool_calls" in message and not message["tool_calls"]:
        problems.append(f"#{n}: empty tool_calls")
    return problems


def wire_problems(messages: Sequence[Mapping[str, Any]], *, system_role: bool = True) -> list[str]:
    """Every way ``messages`` break contracts §2a (empty: none). With
    ``system_role`` False no system message is allowed at all."""
    problems: list[str] = []
    roles = [m.get("role") for m in messages]
    for n, message in enumerate(messages):
        problems += _message_problems(n, message)
        if roles[n] == "system" and (n > 0 or not system_role):
            problems.append(f"#{n}: system message")
        if roles[n] not in ("system", "user", "assistant", "tool"):
            problems.append(f"#{n}: role {roles[n]!r}")
    body = roles[1:] if roles[:1] == ["system"] else roles
    if body and body[0] != "user":
        problems.append(f"the conversation starts with {body[0]!r}")
    if body and body[-1] not in ("user", "tool"):
        problems.append(f"the last message is {body[-1]!r}")
    for n in range(1, len(roles)):
        pair = (roles[n - 1], roles[n])
        if pair in (("user", "user"), ("assistant", "assistant"), ("tool", "user")):
            problems.append(f"#{n}: {pair[1]} right after {pair[0]}")
    problems += _tool_problems(messages)
    return problems


def _tool_problems(messages: Sequence[Mapping[str, Any]]) -> list[str]:
    """Tool messages directly follow their call, each id once, in order."""
    problems: list[str] = []
    seen: set[str] = set()
    expected: list[str] = []
    for n, message in enumerate(messages):
        if message.get("role") == "tool":
            call_id = message.get("tool_call_id")
            if not expected or expected[0] != call_id:
                problems.append(f"#{n}: tool answer {call_id!r} out of place (expected {expected[:1]})")
            else:
                expected.pop(0)
            continue
        if expected:
            problems.append(f"#{n}: calls {expected} never answered")
        calls = [str(c.get("id")) for c in message.get("tool_calls") or ()]
        if seen & set(calls) or len(set(calls)) != len(calls):
            problems.append(f"#{n}: tool call id used twice: {calls}")
        seen.update(calls)
        expected = calls
    if expected:
        problems.append(f"end: calls {expected} never answered")
    return problems
