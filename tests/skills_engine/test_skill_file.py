"""The SKILL.md format (DESIGN §9): every field's rule, and the one-line
warning a broken skill gets (naming the file and the field)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.skills_engine import read_skill, scan_skills
from desktop_agent.testing.skill_folders import write_skill


def warning_for(tmp_path: Path, folder: str, **kw: str) -> str:
    """The one warning a scan gives for this single skill."""
    bundled = tmp_path / "bundled"
    write_skill(bundled, folder, **kw)
    scan = scan_skills(bundled, tmp_path / "user")
    assert scan.skills == ()
    (warning,) = scan.warnings
    return warning


def test_a_valid_skill_keeps_every_field(tmp_path: Path) -> None:
    folder = write_skill(
        tmp_path, "pdf-tools", description="Fill PDF forms. Use for PDFs.", body="# PDF\n\nSteps.\n",
        extra=(
            "license: Apache-2.0\ncompatibility: Needs poppler.\n"
            "metadata:\n  author: me\n  version: \"1.2\"\n  tags: [pdf, forms]\n"
            "allowed-tools: run_command show_card\nx-other-host: kept quiet\n"
        ),
    )
    skill = read_skill(folder, "user")
    assert (skill.name, skill.description, skill.body, skill.source, skill.license, skill.compatibility,
            skill.metadata, skill.allowed_tools) == (
        "pdf-tools", "Fill PDF forms. Use for PDFs.", "# PDF\n\nSteps.", "user", "Apache-2.0", "Needs poppler.",
        {"author": "me", "version": "1.2", "tags": ["pdf", "forms"]}, ("run_command", "show_card"),
    )


def test_allowed_tools_may_also_be_a_yaml_list(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "s", extra="allowed-tools: [run_command, get_current_time]\n")
    assert read_skill(folder, "bundled").allowed_tools == ("run_command", "get_current_time")


def test_a_description_may_span_lines_in_yaml(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "s", front="name: s\ndescription: >\n  One line\n  and another.\n")
    assert read_skill(folder, "bundled").description == "One line and another."


@pytest.mark.parametrize(
    ("folder", "kw", "field_and_problem"),
    [
        ("s", {"front": "description: no name here"}, "name is missing"),
        ("s", {"name": "'123'"}, "name must equal the folder name 's', got '123'"),
        ("Big", {"name": "Big"}, "name must use only a-z, 0-9 and '-', got 'Big'"),
        ("a_b", {"name": "a_b"}, "name must use only a-z, 0-9 and '-', got 'a_b'"),
        ("x" * 65, {}, "name must be at most 64 characters, got 65"),
        ("s", {"name": "other"}, "name must equal the folder name 's', got 'other'"),
        ("s", {"name": "[1, 2]"}, "name must be a string"),
        ("s", {"front": "name: s"}, "description is missing"),
        ("s", {"description": "''"}, "description is empty"),
        ("s", {"description": "d" * 1025}, "description must be at most 1024 characters, got 1025"),
        ("s", {"description": "[a, b]"}, "description must be a string"),
        ("s", {"extra": "license: [MIT]"}, "license must be a string"),
        ("s", {"extra": "compatibility: {needs: poppler}"}, "compatibility must be a string"),
        ("s", {"extra": "metadata: just text"}, "metadata must be a mapping"),
        ("s", {"extra": "allowed-tools: {a: 1}"},
         "allowed-tools must be a space-separated string or a list of strings"),
        ("s", {"front": "name: s\ndescription: a: b"}, "front matter is not valid YAML (line 3)"),
        ("s", {"front": "just a string"}, "front matter must be a YAML mapping of fields"),
    ],
)
def test_each_broken_field_is_one_warning_naming_the_file_and_the_field(
    tmp_path: Path, folder: str, kw: dict[str, str], field_and_problem: str
) -> None:
    path = tmp_path / "bundled" / folder / "SKILL.md"
    assert warning_for(tmp_path, folder, **kw) == f"skill {path}: {field_and_problem}; the skill is skipped"


def test_a_file_without_front_matter_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "bundled" / "plain"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("# Just markdown\n", encoding="utf-8")
    scan = scan_skills(tmp_path / "bundled", tmp_path / "user")
    assert scan.warnings == (
        f"skill {folder / 'SKILL.md'}: front matter is missing (the file must start with a --- block); "
        "the skill is skipped",
    )


def test_a_file_that_is_not_utf8_is_named(tmp_path: Path) -> None:
    folder = tmp_path / "bundled" / "latin"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_bytes(b"---\nname: latin\ndescription: caf\xe9\n---\n")
    (warning,) = scan_skills(tmp_path / "bundled", tmp_path / "user").warnings
    assert warning == f"skill {folder / 'SKILL.md'}: file is not UTF-8 text; the skill is skipped"


def test_the_files_list_is_relative_and_sorted(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "s")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "run.sh").write_text("echo hi\n")
    (folder / "references").mkdir()
    (folder / "references" / "guide.md").write_text("guide\n")
    (folder / ".hidden").write_text("x")
    assert read_skill(folder, "bundled").files() == ["SKILL.md", "references/guide.md", "scripts/run.sh"]
