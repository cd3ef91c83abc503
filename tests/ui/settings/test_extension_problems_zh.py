"""Why a skill or hook is not used, in Chinese (every visible string is
translated): each kind of problem, made on disk, scanned and shown
on its Settings page, reads in Chinese but for the SKILL.md / hooks.json
keywords and the values it quotes, while the English warning (log,
headless mode) stays word for word what it was."""

from __future__ import annotations

import ast
import errno
import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, get_args

import pytest
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from desktop_agent.hooks_engine import HookProblemCode, load_hooks
from desktop_agent.skills_engine import SkillProblemCode, scan_skills
from desktop_agent.skills_engine import skill_file as skill_file_module
from desktop_agent.texts import CHINESE, ENGLISH, keys
from desktop_agent.ui.settings.hooks_page import HooksPage
from desktop_agent.ui.settings.skills_page import SkillsPage

KEYWORDS = (
    # SKILL.md
    "front matter", "allowed-tools", "description", "metadata", "name", "YAML", "UTF-8", "a-z",
    # hooks.json
    "hooks.json", "checkpoint", "role", "persistent", "enabled", "prompt_file", "true", "false",
)
"""Words a Chinese line may keep: keywords of the files and format names."""


def front(text: str) -> bytes:
    return f"---\n{text}\n---\n\n# Steps\n".encode()


SKILL_CASES: dict[str, tuple[str, bytes, str]] = {
    "file_not_utf8": ("latin", b"---\nname: latin\ndescription: caf\xe9\n---\n", "file is not UTF-8 text"),
    "file_unreadable": ("locked", front("name: locked\ndescription: d"), "file cannot be read (Permission denied)"),
    "file_outside": ("linked", b"", "file is outside its folder {folder}"),
    "file_not_regular": ("piped", b"", "file is not a regular file"),
    "file_too_large": ("huge", front("name: huge\ndescription: d") + b"x" * (256 << 10), "file is larger than 256 KB"),
    "front_matter_missing": (
        "plain", b"# Just markdown\n", "front matter is missing (the file must start with a --- block)"
    ),
    "front_matter_yaml": ("bell", front("name: bell\ndescription: \x07"), "front matter is not valid YAML"),
    "front_matter_yaml_at": (
        "colon", front("name: colon\ndescription: a: b"), "front matter is not valid YAML (line 3)"
    ),
    "front_matter_not_mapping": ("text", front("just a string"), "front matter must be a YAML mapping of fields"),
    "front_matter_too_deep": (
        "nested", front("name: nested\ndescription: " + "[" * 5000), "front matter is nested more than 32 levels deep (line 3)"
    ),
    "front_matter_alias": (
        "laughs", front("name: laughs\ndescription: &d d\nlicense: *d"), "front matter must not use YAML aliases (line 4)"
    ),
    "missing": ("nameless", front("description: no name here"), "name is missing"),
    "not_string": ("listed", front("name: [1, 2]\ndescription: d"), "name must be a string"),
    "empty": ("blank", front("name: blank\ndescription: ''"), "description is empty"),
    "too_long": ("x" * 65, front(f"name: {'x' * 65}\ndescription: d"), "name must be at most 64 characters, got 65"),
    "name_chars": (
        "Bad_Name", front("name: Bad_Name\ndescription: d"), "name must use only a-z, 0-9 and '-', got 'Bad_Name'"
    ),
    "name_folder": (
        "notes", front("name: other\ndescription: d"), "name must equal the folder name 'notes', got 'other'"
    ),
    "not_mapping": ("meta", front("name: meta\ndescription: d\nmetadata: just text"), "metadata must be a mapping"),
    "allowed_tools_type": (
        "tools", front("name: tools\ndescription: d\nallowed-tools: {a: 1}"),
        "allowed-tools must be a space-separated string or a list of strings",
    ),
}
"""Per code: the skill's folder, its SKILL.md, and the English after ``skill <path>: ``
(``{folder}``: the skill's folder)."""


def entry(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "checkpoint": "turn_start", "role": "user", "persistent": False,
            "prompt_file": f"{name}.md", "enabled": True, **fields}


HOOK_CASES: dict[str, tuple[dict[str, Any], str]] = {
    "duplicate": (entry("twice"), "{where} appears twice; the second one is not used"),
    "checkpoint": (
        entry("c", checkpoint="whenever"),
        '{where}: "checkpoint" must be one of turn_start, before_tool_round, after_tool_result, '
        "after_rejection, turn_end, got 'whenever'",
    ),
    "role": (entry("r", role="assistant"), "{where}: \"role\" must be one of system, user, got 'assistant'"),
    "not_bool": (entry("p", persistent="yes"), '{where}: "persistent" must be true or false'),
    "prompt_file": (entry("f", prompt_file=""), '{where}: "prompt_file" must name a file beside hooks.json'),
    "prompt_missing": (entry("gone"), "{where}: prompt file {prompt} is missing"),
    "prompt_outside": (entry("out", prompt_file="../secret.md"), "{where}: prompt file {prompt} is outside {folder}"),
    "prompt_not_regular": (entry("pipe"), "{where}: prompt file {prompt} is not a regular file"),
    "prompt_too_large": (entry("huge"), "{where}: prompt file {prompt} is larger than 64 KB"),
    "prompt_unreadable": (entry("folder"), "{where}: prompt file {prompt} cannot be read (Is a directory)"),
    "prompt_not_utf8": (entry("latin"), "{where}: prompt file {prompt} cannot be read (not UTF-8 text)"),
    "prompt_empty": (entry("empty"), "{where}: prompt file {prompt} is empty"),
}
"""Per code: the broken entry, and its English warning (``{where}`` is
``hooks file <path>: hook '<name>'``)."""


def english_left(text: str, values: Mapping[str, object]) -> list[str]:
    """The English words of ``text`` once the quoted values and the keywords are taken out."""
    quoted = {repr(value) for value in values.values()}
    quoted |= {str(value) for value in values.values() if len(str(value)) > 2}  # not "r" out of "role"
    for part in sorted(quoted, key=len, reverse=True):
        text = text.replace(part, " ")
    for keyword in KEYWORDS:
        text = text.replace(keyword, " ")
    return re.findall(r"[A-Za-z]{2,}", text)


def write_broken_skill(root: Path, code: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder, content, _tail = SKILL_CASES[code]
    (root / folder).mkdir(parents=True)
    path = root / folder / "SKILL.md"
    if code == "file_outside":
        (root / "elsewhere.md").write_bytes(front("name: linked\ndescription: d"))
        path.symlink_to(root / "elsewhere.md")
    elif code == "file_not_regular":
        os.mkfifo(path)
    else:
        path.write_bytes(content)
    if code == "file_unreadable":  # root reads any file: refuse this one by hand
        real = os.open

        def refusing_open(name: Any, *args: Any, **kwargs: Any) -> int:
            if Path(name) == path:
                raise PermissionError(errno.EACCES, "Permission denied", str(name))
            return real(name, *args, **kwargs)

        monkeypatch.setattr(os, "open", refusing_open)
    return path


@pytest.mark.parametrize("code", sorted(SKILL_CASES))
def test_each_skill_problem_reads_in_chinese_and_its_warning_stays_english(
    code: str, tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write_broken_skill(tmp_path / "user", code, monkeypatch)
    english = f"skill {path}: {SKILL_CASES[code][2].format(folder=path.parent)}"

    scan = scan_skills(tmp_path / "bundled", tmp_path / "user")
    page = SkillsPage(scan.infos, None, texts=CHINESE)
    qtbot.add_widget(page)

    (info,) = scan.infos
    assert info.problem is not None
    assert (info.problem, info.problem.key, scan.warnings) == (
        english, f"skill_problem_{code}", (f"{english}; the skill is skipped",))
    shown = page.row(info.name).description.text()
    assert shown.startswith(f"未加载 —— 技能 {path}：")
    assert english_left(shown, info.problem.fields) == []
    if code == "file_unreadable":  # the OS error in words too, not "Permission denied"
        assert "没有权限" in shown and "Permission" not in shown
    page.retranslate(ENGLISH)
    assert page.row(info.name).description.text() == f"Not loaded — {english}"


def test_a_bad_skill_name_reads_naturally_in_chinese(
    tmp_path: Path, qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_broken_skill(tmp_path, "name_chars", monkeypatch)
    page = SkillsPage(scan_skills(tmp_path, tmp_path / "none").infos, None, texts=CHINESE)
    qtbot.add_widget(page)

    assert page.row("Bad_Name").description.text() == (
        f"未加载 —— 技能 {tmp_path / 'Bad_Name' / 'SKILL.md'}：name 字段只能使用 a-z、0-9 和 “-”，当前为 'Bad_Name'"
    )


def write_broken_hook(folder: Path, code: str) -> tuple[Path, str]:
    """``hooks.json`` holding a good hook and the broken entry; returns its
    path and the English warning."""
    broken, template = HOOK_CASES[code]
    folder.mkdir(parents=True)
    name = broken["name"]
    good = entry("twice") if code == "duplicate" else entry("fine")
    (folder / "hooks.json").write_text(json.dumps([good, broken]), encoding="utf-8")
    (folder / f"{good['name']}.md").write_text("Be brief.", encoding="utf-8")
    prompt = folder / broken["prompt_file"]
    if code == "prompt_unreadable":
        prompt.mkdir()
    elif code == "prompt_outside":
        (folder.parent / "secret.md").write_text("sk-secret", encoding="utf-8")
    elif code == "prompt_not_regular":
        os.mkfifo(prompt)
    elif code == "prompt_too_large":
        prompt.write_text("x" * (64 << 10 | 1), encoding="utf-8")
    elif code == "prompt_not_utf8":
        prompt.write_bytes(b"caf\xe9")
    elif code == "prompt_empty":
        prompt.write_text("  \n", encoding="utf-8")
    where = f"hooks file {folder / 'hooks.json'}: hook {name!r}"
    return folder / "hooks.json", template.format(where=where, prompt=prompt, folder=folder)


def problem_lines(page: HooksPage) -> list[str]:
    return [label.text() for label in page.findChildren(QLabel) if label.text().startswith(("无法使用", "Not usable"))]


@pytest.mark.parametrize("code", sorted(HOOK_CASES))
def test_each_hook_problem_reads_in_chinese_and_its_warning_stays_english(
    code: str, tmp_path: Path, qtbot: QtBot
) -> None:
    path, english = write_broken_hook(tmp_path / "user", code)

    catalog = load_hooks(tmp_path / "bundled", tmp_path / "user")
    page = HooksPage(catalog.infos(), texts=CHINESE)
    qtbot.add_widget(page)

    good, info = catalog.infos()
    assert info.problem is not None
    assert (good.problem, info.problem, info.problem.key, catalog.warnings) == (
        None, english, f"hook_problem_{code}", (english,))
    (shown,) = problem_lines(page)
    assert shown.startswith(f"无法使用：钩子文件 {path}：钩子 {info.name!r}")
    assert english_left(shown, info.problem.fields) == []
    if code == "prompt_unreadable":  # the OS error in words too, not "Is a directory"
        assert "这是一个文件夹" in shown and "directory" not in shown
    page.retranslate(ENGLISH)
    assert problem_lines(page) == [f"Not usable: {english}"]


def test_a_missing_prompt_file_reads_naturally_in_chinese(tmp_path: Path, qtbot: QtBot) -> None:
    path, _english = write_broken_hook(tmp_path / "hooks", "prompt_missing")
    page = HooksPage(load_hooks(tmp_path / "none", tmp_path / "hooks").infos(), texts=CHINESE)
    qtbot.add_widget(page)

    assert problem_lines(page) == [
        f"无法使用：钩子文件 {path}：钩子 'gone' 的提示词文件 {tmp_path / 'hooks' / 'gone.md'} 不存在"
    ]


def test_every_problem_code_has_a_text_and_a_case_here() -> None:
    skill_codes, hook_codes = set(get_args(SkillProblemCode)), set(get_args(HookProblemCode))
    assert (set(SKILL_CASES), set(HOOK_CASES)) == (skill_codes, hook_codes)
    worded = {key for key in keys() if key.startswith(("skill_problem_", "hook_problem_"))}
    assert worded == {f"skill_problem_{c}" for c in skill_codes} | {f"hook_problem_{c}" for c in hook_codes}


def test_every_code_raised_in_skill_file_is_a_known_code() -> None:
    tree = ast.parse(Path(skill_file_module.__file__).read_text(encoding="utf-8"))
    calls = [
        call for call in ast.walk(tree)
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "SkillFormatError"
    ]
    codes = [call.args[3] for call in calls]
    assert len(calls) > 10 and all(isinstance(code, ast.Constant) for code in codes)
    assert {code.value for code in codes if isinstance(code, ast.Constant)} == set(get_args(SkillProblemCode))
