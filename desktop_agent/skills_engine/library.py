"""SkillLibrary: the skills found and which of them are enabled. It is the
core's :class:`~desktop_agent.core.skill_blocks.SkillPrompts` (catalogue,
``/<skill-name>``) and what ``get_skill`` reads.

Enabled skills come from the setting ``enabled_skills`` (None: all) or the
headless ``--skills all|none|NAME[,NAME…]`` (:func:`parse_skills_flag`).
Names that match no skill are kept (a skill may come back) but enable
nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from desktop_agent.skills_engine.catalogue import catalogue_text, invocation_text, invoked_name
from desktop_agent.skills_engine.scan import SkillInfo, SkillScan, scan_skills
from desktop_agent.skills_engine.skill_file import Skill


class SkillsFlagError(ValueError):
    """A ``--skills`` value that is not ``all``, ``none`` or a list of names."""


def parse_skills_flag(text: str) -> tuple[str, ...] | None:
    """``all`` → None (every skill), ``none`` → (), ``a,b`` → ("a", "b")."""
    value = text.strip()
    if value == "all":
        return None
    if value == "none":
        return ()
    names = tuple(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
    if not names:
        raise SkillsFlagError("--skills must be all, none or NAME[,NAME...]")
    return names


class SkillLibrary:
    def __init__(self, scan: SkillScan, enabled: Iterable[str] | None = None) -> None:
        self.scan = scan
        self._enabled: frozenset[str] | None = None
        self.set_enabled(enabled)

    @classmethod
    def load(cls, enabled: Iterable[str] | None = None) -> SkillLibrary:
        """Scan the bundled and the user's skills folders."""
        return cls(scan_skills(), enabled)

    @property
    def infos(self) -> tuple[SkillInfo, ...]:
        return self.scan.infos

    @property
    def warnings(self) -> tuple[str, ...]:
        return self.scan.warnings

    def set_enabled(self, names: Iterable[str] | None) -> None:
        """None enables every skill."""
        self._enabled = None if names is None else frozenset(names)

    def is_enabled(self, name: str) -> bool:
        return self._enabled is None or name in self._enabled

    def enabled(self) -> list[Skill]:
        return [s for s in self.scan.skills if self.is_enabled(s.name)]

    def get(self, name: str) -> Skill | None:
        """An enabled skill by name."""
        return next((s for s in self.enabled() if s.name == name), None)

    def unknown(self, names: Iterable[str]) -> list[str]:
        """The names that match no usable skill."""
        known = {s.name for s in self.scan.skills}
        return [n for n in names if n not in known]

    # -------------------------------------------------- SkillPrompts port

    def catalogue(self) -> str | None:
        return catalogue_text(self.enabled())

    def invoked(self, user_text: str) -> str | None:
        name = invoked_name(user_text)
        skill = self.get(name) if name is not None else None
        return invocation_text(skill) if skill is not None else None
