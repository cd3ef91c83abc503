"""The texts skills put before the model (contracts §9): the catalogue block,
the ``/<skill-name>`` instruction block and ``get_skill``'s result.

The catalogue stays under a budget (8,000 characters). When the full
descriptions do not fit, every description is cut to the same length (the
longest that fits), so no skill loses more than another; a skill is never
dropped silently: if even the bare names do not fit, the block says how
many enabled skills it does not list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from desktop_agent.skills_engine.skill_file import Skill

CATALOGUE_BUDGET = 8000
CATALOGUE_HEADING = "# Skills"
_INTRO = (
    "Skills are instructions for particular tasks. Before you follow a skill, call the "
    "get_skill tool with its name to read its full instructions and files; the list "
    "below only says what each one is for. Use a skill only when the request matches "
    "its description."
)
_ELLIPSIS = "…"
_INVOCATION = re.compile(r"/([a-z0-9-]+)(?=\s|$)")


def catalogue_text(skills: Sequence[Skill], budget: int = CATALOGUE_BUDGET) -> str | None:
    """The catalogue of ``skills`` (already the enabled ones), at most
    ``budget`` characters; None for no skill."""
    if not skills:
        return None
    head = f"{CATALOGUE_HEADING}\n\n{_INTRO}\n"
    full = _render(head, skills, None)
    if len(full) <= budget:
        return full
    # The longest common description length that fits (descriptions <= 1024).
    low, high = 0, max(len(s.description) for s in skills)
    while low < high:
        mid = (low + high + 1) // 2
        if len(_render(head, skills, mid)) <= budget:
            low = mid
        else:
            high = mid - 1
    if len(_render(head, skills, low)) <= budget:
        return _render(head, skills, low)
    # Not even the names fit: list what does, and say how many are left out.
    for shown in range(len(skills) - 1, -1, -1):
        text = _render(head, skills[:shown], 0) + _not_listed(len(skills) - shown)
        if len(text) <= budget:
            return text
    return _not_listed(len(skills))[:budget]


def _render(head: str, skills: Sequence[Skill], limit: int | None) -> str:
    lines = [head]
    for skill in skills:
        description = _cut(skill.description, limit)
        lines.append(f"- {skill.name}: {description}" if description else f"- {skill.name}")
    return "\n".join(lines)


def _cut(text: str, limit: int | None) -> str:
    text = " ".join(text.split())
    if limit is None or len(text) <= limit:
        return text
    if limit <= len(_ELLIPSIS):
        return ""
    return text[: limit - len(_ELLIPSIS)].rstrip() + _ELLIPSIS


def _not_listed(count: int) -> str:
    noun = "skill is" if count == 1 else "skills are"
    return (
        f"\n\n({count} more enabled {noun} not listed here: the list is limited to "
        f"{CATALOGUE_BUDGET:,} characters. If the user names a skill, call get_skill with that name.)"
    )


def catalogue_names(text: str) -> list[str]:
    """The skill names a catalogue block lists (for the demo model)."""
    if not text.startswith(CATALOGUE_HEADING):
        return []
    return re.findall(r"^- ([a-z0-9-]+)(?::|$)", text, re.MULTILINE)


def invoked_name(user_text: str) -> str | None:
    """``name`` when the text starts with ``/name`` (then a space or the end)."""
    match = _INVOCATION.match(user_text)
    return match.group(1) if match else None


def invocation_text(skill: Skill) -> str:
    return (
        f'The user invoked the skill "{skill.name}" explicitly, by starting the message with '
        f"/{skill.name}. Follow its instructions below for this request; there is no need to "
        f"call get_skill for it.\n\n{skill_text(skill)}"
    )


def skill_text(skill: Skill) -> str:
    """``get_skill``'s result: the whole body and the skill's files."""
    files = "\n".join(f"- {name}" for name in skill.files())
    return (
        f'<skill name="{skill.name}" folder="{skill.path}">\n{skill.body}\n</skill>\n\n'
        f"Files of this skill (relative to its folder):\n{files}"
    )
