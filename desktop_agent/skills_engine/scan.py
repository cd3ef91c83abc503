"""Finding skills (DESIGN §9): the bundled ``skills/`` folder and
``<data>/skills/``; on a name clash the user's skill wins.

A folder whose SKILL.md breaks the format is skipped with one warning
naming the file and the field; it is still listed (as a
:class:`SkillInfo` with its ``problem``) so the Settings page can show it
greyed with the reason. A folder without a SKILL.md is not a skill and is
ignored silently (``scripts/`` kept beside skills, a stray folder).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from desktop_agent.core.notice import Notice
from desktop_agent.skills_engine.skill_file import (
    SKILL_FILE,
    Skill,
    SkillFormatError,
    SkillSource,
    read_skill,
)
from desktop_agent.storage.paths import bundled_dir, data_dir

log = logging.getLogger(__name__)


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
                log.warning("%s", line)
                warnings.append(line)
                info = SkillInfo(folder.name, "", source, folder, Notice(str(exc), line.key, exc.fields))
                found.setdefault(f"\0broken:{folder}", (None, info))
                continue
            found[skill.name] = (skill, SkillInfo(skill.name, skill.description, skill.source, folder))
    entries = sorted(found.values(), key=lambda e: (e[1].name, str(e[1].path)))
    return SkillScan(
        tuple(skill for skill, _info in entries if skill is not None),
        tuple(info for _skill, info in entries),
        tuple(warnings),
    )


def _skill_folders(root: Path) -> list[Path]:
    try:
        children = sorted(root.iterdir())
    except OSError:  # no such folder (the user has none yet): no skills there
        return []
    return [c for c in children if c.is_dir() and not c.name.startswith(".") and (c / SKILL_FILE).is_file()]
