"""The SKILL.md format (contracts §9): every field's rule, and the one-line
warning a broken skill gets (naming the file and the field)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from desktop_agent.skills_engine import SkillFormatError, read_skill, scan_skills
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


def test_a_skill_file_linked_from_outside_its_folder_is_refused(tmp_path: Path) -> None:
    elsewhere = write_skill(tmp_path / "elsewhere", "leak", description="sk-outside")
    folder = tmp_path / "bundled" / "leak"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(elsewhere / "SKILL.md")

    with pytest.raises(SkillFormatError) as caught:
        read_skill(folder, "bundled")

    assert str(caught.value) == f"skill {folder / 'SKILL.md'}: file is outside its folder {folder}"
    assert (caught.value.code, caught.value.fields["folder"]) == ("file_outside", str(folder))


def test_a_linked_skill_folder_and_a_link_inside_it_still_load(tmp_path: Path) -> None:
    real = write_skill(tmp_path / "repo", "notes", body="Take notes.\n")
    (real / "guide.md").write_text("How.\n")
    (real / "also.md").symlink_to(real / "guide.md")
    (tmp_path / "bundled").mkdir()
    (tmp_path / "bundled" / "notes").symlink_to(real)  # skills kept in a repository, linked in

    skill = read_skill(tmp_path / "bundled" / "notes", "bundled")

    assert (skill.body, skill.files()) == ("Take notes.", ["SKILL.md", "also.md", "guide.md"])


def test_the_files_list_leaves_out_links_that_lead_outside_the_folder(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "s")
    (tmp_path / "secret.txt").write_text("sk-1")
    (folder / "secret.txt").symlink_to(tmp_path / "secret.txt")
    (folder / "refs").mkdir()
    (folder / "refs" / "passwd").symlink_to("/etc/passwd")
    (folder / "outside").symlink_to(tmp_path, target_is_directory=True)

    assert read_skill(folder, "bundled").files() == ["SKILL.md"]


def test_a_named_pipe_or_a_file_over_256_kb_is_one_broken_skill(tmp_path: Path) -> None:
    bundled = tmp_path / "bundled"
    (bundled / "piped").mkdir(parents=True)
    os.mkfifo(bundled / "piped" / "SKILL.md")  # a blocking read would hang the scan forever
    write_skill(bundled, "huge", body="x" * (256 * 1024))
    write_skill(bundled, "edge", body="x" * (256 * 1024 - 200))

    scan = scan_skills(bundled, tmp_path / "user")

    assert [s.name for s in scan.skills] == ["edge"]
    assert scan.warnings == (
        f"skill {bundled / 'huge' / 'SKILL.md'}: file is larger than 256 KB; the skill is skipped",
        f"skill {bundled / 'piped' / 'SKILL.md'}: file is not a regular file; the skill is skipped",
    )


@pytest.mark.parametrize(
    ("front", "problem"),
    [
        ("name: deep\ndescription: " + "[" * 5000 + "]" * 5000, "front matter is nested more than 32 levels deep (line 3)"),
        ("name: deep\ndescription: " + "[" * 5000, "front matter is nested more than 32 levels deep (line 3)"),
        ("name: deep\ndescription: &d d\nlicense: *d", "front matter must not use YAML aliases (line 4)"),
        ("name: deep\ndescription: d\nmetadata: {when: 2001-13-45}", "front matter is not valid YAML"),
    ],
    ids=["nested", "unclosed", "alias", "bad-date"],
)
def test_hostile_front_matter_is_one_warning_and_no_exception(tmp_path: Path, front: str, problem: str) -> None:
    warning = warning_for(tmp_path, "deep", front=front)

    assert warning == f"skill {tmp_path / 'bundled' / 'deep' / 'SKILL.md'}: {problem}; the skill is skipped"
