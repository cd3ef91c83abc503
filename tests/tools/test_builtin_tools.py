from __future__ import annotations

from collections.abc import Callable
from typing import Any

from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.forms import FormManager
from desktop_agent.core.ports import Tool
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.tools import builtin_tools

Drain = Callable[[SessionMessageBus], list[dict[str, Any]]]


def test_builtin_tools_are_the_three_tools_with_their_approval_rules() -> None:
    tools = builtin_tools(FormManager(), command_timeout_s=45)
    router = ToolRouter(tools)

    assert all(isinstance(t, Tool) for t in tools)
    routes = {name: router.lookup(name) for name in ("ask_user_question", "show_card", "run_command")}
    assert {name: r is not None and r.skip_approval for name, r in routes.items()} == {
        "ask_user_question": True,
        "show_card": True,
        "run_command": False,
    }
    assert [t["function"]["name"] for t in router.openai_tools()] == [
        "ask_user_question",
        "show_card",
        "run_command",
    ]
    assert "at most 45" in tools[2].spec.description


def test_the_form_request_can_be_pushed_right_after_tool_call_executing(drain: Drain) -> None:
    """What the chat handler does, ignorant of tool names (DESIGN §4)."""
    forms = FormManager()
    router = ToolRouter(builtin_tools(forms))
    bus = SessionMessageBus("s1")
    args = {"question": "Go?", "options": ["yes", "no"]}
    routed = router.lookup("ask_user_question")
    assert routed is not None

    extra = routed.post_executing("call-1", args)
    bus.push(
        "tool_call", state="executing", tool_call_id="call-1", tool_name="ask_user_question", arguments=args
    )
    assert extra is not None
    bus.push(extra.pop("type"), **extra)

    form_id = forms.pending()[0].form_id
    assert drain(bus) == [
        {
            "type": "tool_call",
            "state": "executing",
            "tool_call_id": "call-1",
            "tool_name": "ask_user_question",
            "arguments": args,
        },
        {
            "type": "form_request",
            "tool_call_id": "call-1",
            "form_id": form_id,
            "questions": [
                {"id": "q1", "question": "Go?", "type": "choice", "options": ["yes", "no"], "required": True}
            ],
            "title": None,
        },
    ]


def test_tools_without_the_hook_add_no_message() -> None:
    router = ToolRouter(builtin_tools(FormManager()))
    for name, args in (("show_card", {"title": "t", "body": "b"}), ("run_command", {"command": "true"})):
        routed = router.lookup(name)
        assert routed is not None
        assert routed.post_executing("call-1", args) is None
