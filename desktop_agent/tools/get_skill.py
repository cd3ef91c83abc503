"""get_skill: the model reads one enabled skill (contracts §9) before following
it — the whole SKILL.md body and the list of the skill's files.

It skips approval: it only reads files the user installed or enabled. Its
results are never truncated in later requests (``NO_TRUNCATE_TOOLS``), so
the model keeps seeing the instructions it follows. A skill's
``allowed-tools`` changes nothing here: every other tool keeps its approval.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, Field

from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.skills_engine import SkillLibrary, skill_text
from desktop_agent.tools.arguments import ArgumentError, NonEmptyStr, parse_arguments, tool_parameters

NAME = "get_skill"


class GetSkillArgs(BaseModel):
    name: NonEmptyStr = Field(description="The skill's name, as listed in the skills catalogue.")


SPEC = ToolSpec(
    name=NAME,
    description=(
        "Read a skill: its full instructions and the list of its files. Call it before "
        "following a skill from the skills list."
    ),
    parameters=tool_parameters(GetSkillArgs),
    skip_approval=True,
    annotations=ToolAnnotations(read_only=True, destructive=False, idempotent=True, open_world=False),
)


class GetSkillTool:
    """Built-in ``get_skill``; implements Tool."""

    def __init__(self, library: SkillLibrary) -> None:
        self._library = library

    @property
    def spec(self) -> ToolSpec:
        return SPEC

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            name = parse_arguments(GetSkillArgs, arguments).name.strip()
        except ArgumentError as exc:
            return ToolResult(f"{NAME}: invalid arguments: {exc}", is_error=True)
        skill = self._library.get(name)
        if skill is None:
            enabled = ", ".join(s.name for s in self._library.enabled()) or "none"
            return ToolResult(
                f"{NAME}: no enabled skill is named {name!r}. Enabled skills: {enabled}.", is_error=True
            )
        # Reading a few small files: cheap enough on the loop (like show_card's stat).
        return ToolResult(skill_text(skill))
