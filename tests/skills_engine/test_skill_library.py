"""SkillLibrary: the enabled set (setting, --skills) and the blocks it
gives the core (catalogue, /skill-name)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.skills_engine import SkillLibrary, SkillsFlagError, parse_skills_flag, scan_skills
from desktop_agent.testing.skill_folders import write_skill


@pytest.fixture
def library(tmp_path: Path) -> SkillLibrary:
    write_skill(tmp_path / "b", "alpha", description="Alpha things.", body="Do alpha.\n")
    write_skill(tmp_path / "b", "beta", description="Beta things.", body="Do beta.\n")
    return SkillLibrary(scan_skills(tmp_path / "b", tmp_path / "u"))


@pytest.mark.parametrize(
    ("flag", "enabled"),
    [("all", None), ("none", ()), ("alpha", ("alpha",)), ("alpha, beta,alpha", ("alpha", "beta")),
     (" all ", None)],
)
def test_the_skills_flag(flag: str, enabled: tuple[str, ...] | None) -> None:
    assert parse_skills_flag(flag) == enabled


def test_an_empty_skills_flag_is_refused() -> None:
    with pytest.raises(SkillsFlagError, match="--skills must be all, none or NAME"):
        parse_skills_flag(" , ")


def test_all_are_enabled_by_default_and_the_set_can_change(library: SkillLibrary) -> None:
    assert [s.name for s in library.enabled()] == ["alpha", "beta"]
    library.set_enabled(("beta", "gone"))
    assert [s.name for s in library.enabled()] == ["beta"]
    assert library.get("alpha") is None and library.get("beta") is not None
    assert library.unknown(("beta", "gone")) == ["gone"]
    library.set_enabled(())
    assert library.catalogue() is None


def test_the_catalogue_lists_only_enabled_skills(library: SkillLibrary) -> None:
    library.set_enabled(("alpha",))
    text = library.catalogue()
    assert text is not None and "- alpha: Alpha things." in text and "beta" not in text


@pytest.mark.parametrize(
    ("text", "loaded"),
    [("/alpha", True), ("/alpha please do it", True), ("/alpha\nmore", True),
     ("/alphabet", False), ("/Alpha", False), ("say /alpha", False), ("/gamma hi", False), ("alpha", False)],
)
def test_a_message_starting_with_slash_name_loads_that_skill(library: SkillLibrary, text: str, loaded: bool) -> None:
    block = library.invoked(text)
    assert (block is not None) == loaded
    if block is not None:
        assert block.startswith('The user invoked the skill "alpha" explicitly')
        assert "Do alpha." in block and "- SKILL.md" in block


def test_a_disabled_skill_cannot_be_invoked(library: SkillLibrary) -> None:
    library.set_enabled(("beta",))
    assert library.invoked("/alpha go") is None
