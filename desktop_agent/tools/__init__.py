"""Built-in tools: ask_user_question, show_card, run_command, get_skill.

``builtin_tools`` is what the composition root hands to the ToolRouter;
get_skill joins when a skill library is given; sub_agent is added by its own
package.
"""

from __future__ import annotations

from desktop_agent.core.forms import FormManager
from desktop_agent.core.ports import Tool
from desktop_agent.core.redaction import Redactor
from desktop_agent.skills_engine import SkillLibrary
from desktop_agent.tools.ask_user_question import AskUserQuestionTool
from desktop_agent.tools.get_skill import GetSkillTool
from desktop_agent.tools.run_command import RunCommandTool
from desktop_agent.tools.show_card import ShowCardTool

__all__ = ["AskUserQuestionTool", "GetSkillTool", "RunCommandTool", "ShowCardTool", "builtin_tools"]


def builtin_tools(
    forms: FormManager,
    *,
    command_timeout_s: float = 120,
    skills: SkillLibrary | None = None,
    redactor: Redactor | None = None,
) -> list[Tool]:
    """The built-in tools, in the order the model sees them (get_skill only
    with a skill library)."""
    tools: list[Tool] = [
        AskUserQuestionTool(forms),
        ShowCardTool(),
        RunCommandTool(max_timeout_s=command_timeout_s, redactor=redactor),
    ]
    if skills is not None:
        tools.append(GetSkillTool(skills))
    return tools
