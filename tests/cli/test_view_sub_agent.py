"""TerminalView: a sub-agent's calls and text, indented under its call."""

from __future__ import annotations

import io
from dataclasses import replace

from desktop_agent.cli import TerminalIO
from desktop_agent.cli.view import TerminalView
from desktop_agent.core.forms import FormManager
from desktop_agent.core.messages import ToolOutputMessage, ToolProgressMessage, ToolRejectedMessage
from desktop_agent.testing.window_rig import tool_item


def test_a_sub_agents_calls_and_sentences_print_indented_under_its_call() -> None:
    out, err = io.StringIO(), io.StringIO()
    view = TerminalView(TerminalIO(io.StringIO(), out), FormManager(), "all", out, err)
    sub_args = {"task": "Print hi.", "allowed_tools": ["run_command"]}
    args = {"command": "echo hi"}
    view.tool_event(tool_item("executing", "c1", "sub_agent", arguments=sub_args))
    view.tool_event(ToolProgressMessage("c1", 1, None, "I'll print it.", None))
    view.auto_approved(replace(tool_item("approval_required", "c2", arguments=args, task_id="c1.t1"),
                               parent_tool_call_id="c1"))
    view.tool_event(replace(tool_item("executing", "c2", arguments=args), parent_tool_call_id="c1"))
    view.tool_event(ToolOutputMessage("c2", "stdout", "hi\n", parent_tool_call_id="c1"))
    view.tool_event(replace(tool_item("result", "c2", arguments=args, result="exit code 0"), parent_tool_call_id="c1"))
    view.tool_event(ToolRejectedMessage("c3", "run_command", args, "The user rejected this tool call.",
                                        parent_tool_call_id="c1"))
    view.tool_event(tool_item("result", "c1", "sub_agent", arguments=sub_args, result="It printed hi."))
    assert err.getvalue().splitlines() == [
        '[tool] sub_agent running {"task": "Print hi.", "allowed_tools": ["run_command"]}',
        "  [sub-agent] I'll print it.",
        "  [tool] run_command auto-approved",
        '  [tool] run_command running {"command": "echo hi"}',
        "      hi",
        "  [tool] run_command done: exit code 0",
        "  [tool] run_command stopped: The user rejected this tool call.",
        "[tool] sub_agent done: It printed hi.",
    ]
    assert out.getvalue() == ""
