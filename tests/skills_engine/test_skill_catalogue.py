"""The catalogue block (contracts §9): name and description of each enabled
skill and the get_skill instruction, under 8,000 characters — descriptions
shortened evenly first, no skill ever dropped silently."""

from __future__ import annotations

from pathlib import Path

from desktop_agent.skills_engine import CATALOGUE_BUDGET, Skill, catalogue_names, catalogue_text


def skill(name: str, description: str) -> Skill:
    return Skill(name, description, "body", Path("/skills") / name, "bundled")


def entries(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_no_skill_means_no_block() -> None:
    assert catalogue_text([]) is None


def test_the_block_lists_each_skill_and_says_to_call_get_skill_first() -> None:
    text = catalogue_text([skill("a-one", "First one."), skill("b-two", "Second\n  one.")])
    assert text is not None
    assert text.startswith("# Skills\n\n")
    assert "call the get_skill tool with its name" in text
    assert entries(text) == ["- a-one: First one.", "- b-two: Second one."]
    assert catalogue_names(text) == ["a-one", "b-two"]


def test_over_the_budget_every_description_is_cut_to_the_same_length() -> None:
    skills = [skill(f"skill-{i:02}", f"{i:02} " + "word " * 200) for i in range(12)]  # 12 × ~1000 characters
    skills.append(skill("short", "Tiny."))
    text = catalogue_text(skills)
    assert text is not None
    assert len(text) <= CATALOGUE_BUDGET
    lines = entries(text)
    assert [line.split(":")[0] for line in lines] == [f"- {s.name}" for s in skills]  # nobody dropped
    cut = {len(line.split(": ", 1)[1]) for line in lines[:-1]}
    assert len(cut) == 1 and 400 < cut.pop() < 700  # the same length for all, as long as fits
    assert all(line.endswith("…") for line in lines[:-1])
    assert lines[-1] == "- short: Tiny."  # short enough already: untouched
    assert "more enabled" not in text


def test_the_longest_common_length_that_fits_is_used() -> None:
    skills = [skill(f"s{i}", "x" * 1000) for i in range(10)]
    text = catalogue_text(skills)
    assert text is not None
    one_longer = text.replace("…", "x…")  # every description one character longer
    assert len(text) <= CATALOGUE_BUDGET < len(one_longer)


def test_when_even_names_do_not_fit_the_block_says_how_many_are_not_listed() -> None:
    skills = [skill(f"skill-with-a-long-name-{i:04}", "Does things.") for i in range(400)]
    text = catalogue_text(skills)
    assert text is not None
    assert len(text) <= CATALOGUE_BUDGET
    listed = len(entries(text))
    assert 0 < listed < 400
    assert all(line.startswith("- skill-with-a-long-name-") and ":" not in line for line in entries(text))
    assert text.endswith(
        f"({400 - listed} more enabled skills are not listed here: the list is limited to 8,000 characters. "
        "If the user names a skill, call get_skill with that name.)"
    )
