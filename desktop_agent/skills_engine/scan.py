"""Finding skills (contracts §9): the bundled ``skills/`` folder and
``<data>/skills/``; on a name clash the user's skill wins.

A folder whose SKILL.md breaks the format is skipped with one warning
naming the file and the field; it is still listed (as a
:class:`SkillInfo` with its ``problem``) so the Settings page can show it
greyed with the reason. A folder without a SKILL.md is not a skill and is
ignored silently (``scripts/`` kept beside skills, a stray folder); one
whose SKILL.md is there but is no readable file (a named pipe, a link that
leads out of the folder) is a broken skill like any other.

A folder of many broken skills does not bury the other warnings: the first
:data:`~desktop_agent.core.notice.SHOWN_PROBLEMS` of each skills folder are warned about, then one line
counts the rest (the Settings page still lists each of them).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path

from desktop_agent.core.notice import Notice, first_problems
from desktop_agent.skills_engine.skill_file import (
    SKILL_FILE,
    Skill,
    SkillFormatError,
    SkillSource,
    read_skill,
)
from desktop_agent.storage.paths import bundled_dir, data_dir

log = logging.getLogger(__name__)

"""Warnings per skills folder before the rest are counted in one line."""


@dataclass(frozen=True, slots=True)
class SkillInfo:
    """One skill as the window lists it."""

    name: str
    """The front matter's name; the folder name when the file is broken."""
    description: str
    source: SkillSource
    path: Path
    """The skill's folder."""
    problem: Notice | None = None
    """Why the skill is not loaded (one English line naming the file and the
    field), worded in the window by ``skill_problem_<code>`` with
    :attr:`SkillFormatError.fields`; None when it is loaded."""
    description_zh: str = ""
    """The Chinese description (``metadata.description-zh``); empty: none."""

    def description_in(self, language: str) -> str:
        """The description the window shows in ``language``."""
        return self.description_zh if language == "zh" and self.description_zh else self.description


@dataclass(frozen=True, slots=True)
class SkillScan:
    skills: tuple[Skill, ...]
    """The usable skills, sorted by name; a user skill replaces a bundled one."""
    infos: tuple[SkillInfo, ...]
    """Every skill found, broken ones and replaced bundled ones excluded."""
    warnings: tuple[str, ...]


def bundled_skills_dir() -> Path:
    """The skills shipped with the app (``skills/``; see ``bundled_dir``)."""
    return bundled_dir("skills")


def user_skills_dir() -> Path:
    return data_dir() / "skills"


def scan_skills(bundled: Path | None = None, user: Path | None = None) -> SkillScan:
    """Read both folders (defaults: :func:`bundled_skills_dir`,
    :func:`user_skills_dir`); never raises for a bad skill."""
    found: dict[str, tuple[Skill | None, SkillInfo]] = {}
    warnings: list[str] = []
    roots: tuple[tuple[SkillSource, Path], ...] = (
        ("bundled", bundled or bundled_skills_dir()),
        ("user", user or user_skills_dir()),
    )
    for source, root in roots:
        problems: list[str] = []
        for folder in _skill_folders(root):
            try:
                skill = read_skill(folder, source)
            except SkillFormatError as exc:
                line = Notice(
                    f"{exc}; the skill is skipped",
                    f"skill_problem_{exc.code}",
                    exc.fields,
                    frame="notice_skill_skipped",
                )
                problems.append(line)
                info = SkillInfo(folder.name, "", source, folder, problem=Notice(str(exc), line.key, exc.fields))
                found.setdefault(f"\0broken:{folder}", (None, info))
                continue
            found[skill.name] = (
                skill, SkillInfo(skill.name, skill.description, skill.source, folder, description_zh=skill.description_zh)
            )
        warnings.extend(_summarised(problems, root))
    entries = sorted(found.values(), key=lambda e: (e[1].name, str(e[1].path)))
    return SkillScan(
        tuple(skill for skill, _info in entries if skill is not None),
        tuple(info for _skill, info in entries),
        tuple(warnings),
    )


def _summarised(problems: list[str], root: Path) -> list[str]:
    """The first :data:`~desktop_agent.core.notice.SHOWN_PROBLEMS` of ``problems``, then a line counting the rest."""
    shown = first_problems(
        problems,
        lambda more: Notice(
            f"… and {more} more skill in {root} is skipped" if more == 1 else f"… and {more} more skills in {root} are skipped",
            "notice_skills_more",
            {"folder": str(root), "count": str(more)},
        ),
    )
    for line in shown:
        log.warning("%s", line)
    return shown


def _skill_folders(root: Path) -> list[Path]:
    try:
        children = sorted(root.iterdir())
    except OSError:  # no such folder (the user has none yet): no skills there
        return []
    return [c for c in children if c.is_dir() and not c.name.startswith(".") and _has_skill_file(c)]


def _has_skill_file(folder: Path) -> bool:
    """SKILL.md is there in any form: a file, a pipe, a link (even one that
    leads nowhere), each then read or refused by ``read_skill``."""
    return os.path.lexists(folder / SKILL_FILE)
