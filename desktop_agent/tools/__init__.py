"""Built-in tools: ask_user_question, show_card, run_command.

``builtin_tools`` is what the composition root hands to the ToolRouter;
get_skill and sub_agent are added by their own packages.
"""

from __future__ import annotations

from desktop_agent.core.forms import FormManager
from desktop_agent.core.ports import Tool
from desktop_agent.tools.ask_user_question import AskUserQuestionTool
from desktop_agent.tools.run_command import RunCommandTool
from desktop_agent.tools.show_card import ShowCardTool

__all__ = ["AskUserQuestionTool", "RunCommandTool", "ShowCardTool", "builtin_tools"]


def builtin_tools(forms: FormManager, *, command_timeout_s: float = 120) -> list[Tool]:
    """The built-in tools, in the order the model sees them."""
    return [
        AskUserQuestionTool(forms),
        ShowCardTool(),
        RunCommandTool(max_timeout_s=command_timeout_s),
    ]
