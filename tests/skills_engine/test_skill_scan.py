"""Finding skills (contracts §9): bundled and user folders, the user's skill
winning a clash, broken ones skipped while the others load, and the three
bundled skills."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_agent.core.notice import Notice
from desktop_agent.skills_engine import SkillInfo, bundled_skills_dir, scan_skills, user_skills_dir
from desktop_agent.testing.skill_folders import write_skill


def test_the_users_skill_wins_a_name_clash(tmp_path: Path) -> None:
    bundled, user = tmp_path / "bundled", tmp_path / "user"
    write_skill(bundled, "notes", description="Bundled notes.")
    write_skill(bundled, "zeta", description="Only bundled.")
    write_skill(user, "notes", description="My notes.")
    scan = scan_skills(bundled, user)
    assert [(s.name, s.description, s.source) for s in scan.skills] == [
        ("notes", "My notes.", "user"),
        ("zeta", "Only bundled.", "bundled"),
    ]
    assert scan.infos == (
        SkillInfo("notes", "My notes.", "user", user / "notes"),
        SkillInfo("zeta", "Only bundled.", "bundled", bundled / "zeta"),
    )
    assert scan.warnings == ()


def test_a_broken_skill_is_skipped_and_listed_with_its_problem_while_the_others_load(tmp_path: Path) -> None:
    bundled, user = tmp_path / "bundled", tmp_path / "user"
    write_skill(bundled, "good")
    write_skill(user, "bad", name="Bad")
    (user / "not-a-skill").mkdir()  # no SKILL.md: ignored silently
    scan = scan_skills(bundled, user)
    problem = f"skill {user / 'bad' / 'SKILL.md'}: name must use only a-z, 0-9 and '-', got 'Bad'"
    assert [s.name for s in scan.skills] == ["good"]
    assert scan.infos == (
        SkillInfo("bad", "", "user", user / "bad", Notice(problem, "skill_problem_name_chars")),
        SkillInfo("good", "Does a thing. Use when asked for the thing.", "bundled", bundled / "good"),
    )
    assert scan.warnings == (f"{problem}; the skill is skipped",)
    bad = scan.infos[0].problem
    assert bad is not None and (bad.key, dict(bad.fields)) == (
        "skill_problem_name_chars", {"path": str(user / "bad" / "SKILL.md"), "field": "name", "got": "Bad"})


def test_missing_folders_mean_no_skills(tmp_path: Path) -> None:
    scan = scan_skills(tmp_path / "nowhere", tmp_path / "neither")
    assert (scan.skills, scan.infos, scan.warnings) == ((), (), ())


def test_the_folders_are_the_repository_skills_and_the_data_folder(tmp_path: Path) -> None:
    assert bundled_skills_dir() == Path(__file__).resolve().parents[2] / "skills"
    assert user_skills_dir().parent == Path(__import__("os").environ["DESKTOP_AGENT_HOME"])


def test_in_a_pyinstaller_bundle_the_skills_are_inside_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys._MEIPASS", str(tmp_path), raising=False)
    assert bundled_skills_dir() == tmp_path / "skills"


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("explain-command", ("run_command", "risk")),
        ("daily-briefing", ("get_current_time", "show_card")),
        ("bilingual-reply", ("<voice>", "English")),
    ],
)
def test_each_bundled_skill_loads_with_a_description_and_a_body(name: str, words: tuple[str, ...]) -> None:
    scan = scan_skills(bundled_skills_dir(), Path("/nonexistent"))
    assert scan.warnings == ()
    skill = next(s for s in scan.skills if s.name == name)
    assert skill.source == "bundled"
    assert 40 < len(skill.description) <= 1024 and "Use when" in skill.description
    assert len(skill.body) > 500 and skill.body.startswith("# ")
    assert all(word in skill.body for word in words)
    assert skill.files() == ["SKILL.md"]


def test_many_broken_skills_warn_five_times_per_folder_then_count(tmp_path: Path) -> None:
    bundled, user = tmp_path / "bundled", tmp_path / "user"
    for n in range(8):
        write_skill(user, f"bad-{n}", name="Bad")
    write_skill(user, "good")
    write_skill(bundled, "bad", name="Bad")

    scan = scan_skills(bundled, user)

    name = "name must use only a-z, 0-9 and '-', got 'Bad'; the skill is skipped"
    assert scan.warnings == (
        f"skill {bundled / 'bad' / 'SKILL.md'}: {name}",
        *(f"skill {user / f'bad-{n}' / 'SKILL.md'}: {name}" for n in range(5)),
        f"… and 3 more skills in {user} are skipped",
    )
    more = scan.warnings[-1]
    assert isinstance(more, Notice) and (more.key, dict(more.fields)) == (
        "notice_skills_more", {"folder": str(user), "count": "3"})
    assert [s.name for s in scan.skills] == ["good"]
    assert len(scan.infos) == 10  # the Settings page still lists each broken one


def test_a_skill_file_that_is_there_but_no_file_is_a_broken_skill_not_ignored(tmp_path: Path) -> None:
    (tmp_path / "piped").mkdir()
    os.mkfifo(tmp_path / "piped" / "SKILL.md")
    (tmp_path / "dangling").mkdir()
    (tmp_path / "dangling" / "SKILL.md").symlink_to(tmp_path / "dangling" / "gone.md")
    (tmp_path / "scripts").mkdir()  # no SKILL.md at all: not a skill

    scan = scan_skills(tmp_path, tmp_path / "none")

    assert [info.name for info in scan.infos] == ["dangling", "piped"]
    assert scan.warnings == (
        f"skill {tmp_path / 'dangling' / 'SKILL.md'}: file cannot be read (No such file or directory); "
        "the skill is skipped",
        f"skill {tmp_path / 'piped' / 'SKILL.md'}: file is not a regular file; the skill is skipped",
    )
