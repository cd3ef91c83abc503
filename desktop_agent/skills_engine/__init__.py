"""Skills (contracts §9): SKILL.md folders found in the bundled ``skills/`` and
``<data>/skills/``, their catalogue for the model, ``/<skill-name>``
invocation, and what ``get_skill`` returns.

:mod:`.skill_file` parses and checks one SKILL.md, :mod:`.scan` finds them,
:mod:`.catalogue` words what the model sees, :mod:`.library` holds which
are enabled and serves the core's ``SkillPrompts`` port.
"""

from desktop_agent.skills_engine.catalogue import (
    CATALOGUE_BUDGET,
    CATALOGUE_HEADING,
    catalogue_names,
    catalogue_text,
    skill_text,
)
from desktop_agent.skills_engine.library import SkillLibrary, SkillsFlagError, parse_skills_flag
from desktop_agent.skills_engine.scan import (
    SkillInfo,
    SkillScan,
    bundled_skills_dir,
    scan_skills,
    user_skills_dir,
)
from desktop_agent.skills_engine.skill_file import Skill, SkillFormatError, SkillProblemCode, read_skill

__all__ = [
    "CATALOGUE_BUDGET",
    "CATALOGUE_HEADING",
    "Skill",
    "SkillFormatError",
    "SkillInfo",
    "SkillLibrary",
    "SkillProblemCode",
    "SkillScan",
    "SkillsFlagError",
    "bundled_skills_dir",
    "catalogue_names",
    "catalogue_text",
    "parse_skills_flag",
    "read_skill",
    "scan_skills",
    "skill_text",
    "user_skills_dir",
]
