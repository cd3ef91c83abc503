"""TerminalView: what the headless mode prints for a tool call."""

from __future__ import annotations

import io

from desktop_agent.cli import TerminalIO
from desktop_agent.cli.view import TerminalView
from desktop_agent.core.forms import FormManager
from desktop_agent.core.messages import ToolOutputMessage
from desktop_agent.testing.window_rig import tool_item


def test_a_call_prints_its_output_indented_then_a_one_line_result() -> None:
    out, err = io.StringIO(), io.StringIO()
    view = TerminalView(TerminalIO(io.StringIO(), out), FormManager(), "all", out, err)
    args = {"timezone": "UTC"}
    view.tool_event(tool_item("executing", "c1", "get_current_time", arguments=args))
    view.tool_event(ToolOutputMessage("c1", "stdout", "line one\nline two\n"))
    view.tool_event(ToolOutputMessage("c1", "stderr", "a warning\n"))
    result = '{\n  "timezone": "UTC",\n  "datetime": "2026-11-30T22:45:20+00:00"\n}'
    view.tool_event(tool_item("result", "c1", "get_current_time", arguments=args, result=result, is_error=False))
    assert err.getvalue().splitlines() == [
        '[tool] get_current_time running {"timezone": "UTC"}',
        "    line one",
        "    line two",
        "    a warning",
        '[tool] get_current_time done: { "timezone": "UTC", "datetime": "2026-11-30T22:45:20+00:00" }',
    ]
    assert out.getvalue() == ""
