"""The scripted server's strict-template checks refuse what the real
templates refuse, and nothing else."""

from __future__ import annotations

from typing import Any

from desktop_agent.testing.strict_checks import alternating_roles, any_of, no_system_role, system_first

SYSTEM = {"role": "system", "content": "s"}
USER = {"role": "user", "content": "u"}
ASSISTANT = {"role": "assistant", "content": "a"}
CALL = {"role": "assistant", "content": None, "tool_calls": [{"id": "x"}]}
TOOL = {"role": "tool", "tool_call_id": "x", "content": "r"}


def body(*messages: dict[str, Any]) -> dict[str, Any]:
    return {"messages": list(messages)}


def test_system_first_refuses_a_system_message_after_the_first() -> None:
    assert system_first(body(SYSTEM, USER)) is None
    assert system_first(body(SYSTEM, USER, SYSTEM)) == "System message must be at the beginning."


def test_no_system_role_refuses_any_system_message() -> None:
    assert no_system_role(body(USER)) is None
    assert no_system_role(body(SYSTEM, USER)) == "System role not supported"


def test_alternating_roles_skips_tool_traffic_like_mistral_does() -> None:
    assert alternating_roles(body(SYSTEM, USER, CALL, TOOL, ASSISTANT, USER)) is None
    assert alternating_roles(body(USER, ASSISTANT, ASSISTANT)) is not None
    assert alternating_roles(body(USER, CALL, TOOL, USER)) is not None


def test_any_of_gives_the_first_refusal() -> None:
    check = any_of(no_system_role, system_first)
    assert check(body(USER, SYSTEM)) == "System role not supported" and check(body(USER)) is None
