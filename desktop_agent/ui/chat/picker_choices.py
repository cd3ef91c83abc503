"""The rows a picker lists for a query, and what picking each one does.

Pure (no Qt): the lists come from the app's commands, the enabled skills
and the MCP catalogue as they are when asked, so a server that came up, or
changed its prompts or resources, is listed the next time the list opens.
Filtering keeps the rows whose name (or URI, or description) holds what was
typed, case-insensitively; rows whose name starts with it come first, each
group in the catalogue's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from desktop_agent.texts import Texts
from desktop_agent.ui.chat.mention_source import MentionSource
from desktop_agent.ui.chat.picker_query import ArgumentQuery, CommandQuery, MentionQuery, quoted
from desktop_agent.ui.chat.slash_commands import APP_COMMANDS

if TYPE_CHECKING:
    from desktop_agent.mcp_engine.catalog import PromptInfo, TemplateInfo
    from desktop_agent.skills_engine import SkillInfo


@dataclass(frozen=True, slots=True)
class RunCommand:
    """An app command: runs at once (the box is emptied)."""

    name: str


@dataclass(frozen=True, slots=True)
class Insert:
    """Text that replaces the query's span (a space follows it)."""

    text: str


@dataclass(frozen=True, slots=True)
class FillTemplate:
    """A resource template: its variables are asked one by one, then the URI inserted."""

    template: TemplateInfo


Pick = RunCommand | Insert | FillTemplate


@dataclass(frozen=True, slots=True)
class Choice:
    """One row: ``label`` (bold), ``description`` (one line), ``origin`` (where it comes from)."""

    label: str
    description: str
    origin: str
    pick: Pick
    keywords: str = ""
    """More text the filter looks in (a URI, a title)."""


@dataclass(frozen=True, slots=True)
class SkillEntry:
    name: str
    description: str
    description_zh: str = ""
    """Shown instead in a Chinese window, when the skill has one."""


def enabled_skills(infos: Sequence[SkillInfo], enabled: Sequence[str] | None) -> list[SkillEntry]:
    """The skills ``/NAME`` loads: found without a problem and enabled (None: all)."""
    return [SkillEntry(i.name, i.description, i.description_zh) for i in infos
            if i.problem is None and (enabled is None or i.name in enabled)]


def command_choices(
    query: CommandQuery, texts: Texts, skills: Sequence[SkillEntry], source: MentionSource
) -> list[Choice]:
    """``/``: the app's commands, then the skills, then every server's prompts."""
    rows = [Choice(f"/{c.name}", texts.tr(c.text_key), texts.tr("picker_origin_app"), RunCommand(c.name))
            for c in APP_COMMANDS]
    app_names = {c.name for c in APP_COMMANDS}
    rows += [Choice(f"/{s.name}", s.description_zh if texts.language == "zh" and s.description_zh else s.description,
                    texts.tr("picker_origin_skill"), Insert(f"/{s.name}"))
             for s in skills if s.name not in app_names]
    rows += [Choice(p.command, _one_line(p.description or p.title or ""),
                    texts.tr("picker_origin_prompt", server=p.server), Insert(p.command), p.title or "")
             for p in source.prompts()]
    return _filtered(rows, "/" + query.prefix)


def argument_choices(query: ArgumentQuery, texts: Texts, source: MentionSource) -> list[Choice]:
    """A prompt's arguments not given yet, the required ones first."""
    prompt = find_prompt(source, query.command)
    if prompt is None:
        return []
    left = [a for a in prompt.arguments if a.name not in query.given]
    left.sort(key=lambda a: not a.required)
    rows = [Choice(f"{a.name}=", _one_line(a.description),
                   texts.tr("picker_required" if a.required else "picker_optional"), Insert(f"{a.name}="))
            for a in left]
    return _filtered(rows, query.prefix)


def value_choices(values: Sequence[str], argument: str) -> list[Choice]:
    """A server's completions for an argument's value."""
    return [Choice(v, "", argument, Insert(quoted(v))) for v in dict.fromkeys(values)]


def mention_choices(query: MentionQuery, texts: Texts, source: MentionSource) -> list[Choice]:
    """``@``: every server's resources, then its resource templates."""
    rows = [Choice(r.title or r.name, _one_line(r.uri), texts.tr("picker_origin_resource", server=r.server),
                   Insert(f"@{r.server}:{r.uri}"), f"{r.server}:{r.uri} {r.name} {r.description}")
            for r in source.resources()]
    rows += [Choice(t.title or t.name, _one_line(t.uri_template), texts.tr("picker_origin_template", server=t.server),
                    FillTemplate(t), f"{t.server}:{t.uri_template} {t.name} {t.description}")
             for t in source.templates()]
    return _filtered(rows, query.prefix)


def find_prompt(source: MentionSource, command: str) -> PromptInfo | None:
    return next((p for p in source.prompts() if p.command == command), None)


def _filtered(rows: list[Choice], typed: str) -> list[Choice]:
    needle = typed.casefold()
    if not needle:
        return rows
    starts = [r for r in rows if r.label.casefold().startswith(needle)]
    holds = [r for r in rows if r not in starts and needle in f"{r.label} {r.keywords} {r.description}".casefold()]
    return starts + holds


def _one_line(text: str) -> str:
    return " ".join(text.split())
