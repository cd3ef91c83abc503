"""Fault matrix, the rows about files that something in the user's data
names: a hook's ``prompt_file`` that climbs out of the hooks folder, names
``/etc/passwd`` or a named pipe; a SKILL.md nested 5,000 deep, full of YAML
aliases, or linked to a file elsewhere; ``hooks.json``, ``settings.json``,
``secrets.json`` or a servers file that is a named pipe; a hooks file of
100,000 broken entries. Each row is a real headless run against the scripted
LLM server with a data folder of its own, made here (pipes and links cannot
be written as bytes) and named by ``DESKTOP_AGENT_HOME``; rows run side by
side. Each asserts the exit status, the exact warning lines, no traceback
and a well-formed history, and that nothing refused reached the server."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.testing.scripted_server import tool_reply
from tests.faults.headless import API_KEY, PLAN, Result, Row, run_rows, script

pytestmark = pytest.mark.integration

PASSWD_LINE = Path("/etc/passwd").read_text(encoding="utf-8").splitlines()[0]
OUTSIDE_MARKER = "sk-outside-the-skill-folder-42"
GOOD_PROMPT = "Answer in one short sentence."


def data_folder(tmp: Path, name: str, files: dict[str, bytes] | None = None) -> Path:
    home = tmp / f"data-{name}"
    for relative, data in (files or {}).items():
        (home / relative).parent.mkdir(parents=True, exist_ok=True)
        (home / relative).write_bytes(data)
    home.mkdir(parents=True, exist_ok=True)
    return home


def row(name: str, home: Path, *extra: str, replies: Any = None) -> Row:
    flags = extra or ("--prompt", "x", "--approve", "all")
    return Row(name, replies or script(), extra=flags, env={"DESKTOP_AGENT_HOME": str(home)})


def hook(name: str, prompt_file: str) -> dict[str, Any]:
    return {"name": name, "checkpoint": "turn_start", "role": "user", "persistent": False,
            "prompt_file": prompt_file, "enabled": True}


def hooks_file(*entries: dict[str, Any]) -> bytes:
    return json.dumps(list(entries)).encode()


def skill_file(name: str, front: str = "", body: str = "Do the thing.") -> bytes:
    return f"---\nname: {name}\ndescription: {front or 'A skill.'}\n---\n\n{body}\n".encode()


def sent(result: Result) -> str:
    """Everything the model was sent and everything kept, as one text."""
    return json.dumps([result.requests, result.history()], ensure_ascii=False)


def warnings(result: Result) -> list[str]:
    return [line for line in result.lines() if line.startswith("warning: ")]


async def test_a_prompt_file_is_read_only_inside_its_hooks_folder_and_never_from_a_pipe(tmp_path: Path) -> None:
    secrets = json.dumps({"openai-api-key": API_KEY}).encode()
    outside = data_folder(tmp_path, "outside", {
        "secrets.json": secrets,
        "hooks/hooks.json": hooks_file(hook("good", "good.md"), hook("secrets", "../secrets.json"),
                                       hook("passwd", "/etc/passwd"), hook("link", "link.md")),
        "hooks/good.md": GOOD_PROMPT.encode(),
    })
    (outside / "hooks" / "link.md").symlink_to(outside / "secrets.json")
    pipe = data_folder(tmp_path, "pipe", {"hooks/hooks.json": hooks_file(hook("piped", "pipe.md"))})
    os.mkfifo(pipe / "hooks" / "pipe.md")
    pipe_file = data_folder(tmp_path, "pipe_file")
    (pipe_file / "hooks").mkdir()
    os.mkfifo(pipe_file / "hooks" / "hooks.json")

    results = await run_rows(tmp_path, [row("outside", outside), row("pipe", pipe), row("pipe_file", pipe_file)])

    hooks = outside / "hooks"
    where = f"warning: hooks file {hooks / 'hooks.json'}: hook"
    result = results["outside"]
    result.check(0, lines=3)
    assert warnings(result) == [
        f"{where} 'secrets': prompt file {hooks / '../secrets.json'} is outside {hooks}",
        f"{where} 'passwd': prompt file /etc/passwd is outside {hooks}",
        f"{where} 'link': prompt file {hooks / 'link.md'} is outside {hooks}",
    ]
    assert API_KEY not in sent(result) and PASSWD_LINE not in sent(result)
    assert GOOD_PROMPT in json.dumps(result.requests[0])  # the good hook still runs

    result = results["pipe"]
    result.check(0)
    assert warnings(result) == [
        f"warning: hooks file {pipe / 'hooks' / 'hooks.json'}: hook 'piped': "
        f"prompt file {pipe / 'hooks' / 'pipe.md'} is not a regular file"
    ]
    result = results["pipe_file"]
    result.check(0)
    assert warnings(result) == [
        f"warning: hooks file {pipe_file / 'hooks' / 'hooks.json'} is not a regular file; its hooks are not used"
    ]


async def test_100000_broken_hook_entries_are_a_handful_of_warnings_and_a_count(tmp_path: Path) -> None:
    # Nameless entries and entries with no checkpoint, alternately (under the 1 MB cap of hooks.json).
    entries = [{} if n % 2 == 0 else {"name": format(n, "x")} for n in range(100_000)]
    home = data_folder(tmp_path, "many", {"hooks/hooks.json": json.dumps(entries, separators=(",", ":")).encode()})

    result = (await run_rows(tmp_path, [row("many", home)]))["many"]

    path = home / "hooks" / "hooks.json"
    checkpoint = ('"checkpoint" must be one of turn_start, before_tool_round, after_tool_result, '
                  "after_rejection, turn_end, got None")
    result.check(0, lines=6)
    assert warnings(result) == [
        f'warning: hooks file {path}: hook #1 has no "name" (a non-empty string); skipped',
        f"warning: hooks file {path}: hook '1': {checkpoint}",
        f'warning: hooks file {path}: hook #3 has no "name" (a non-empty string); skipped',
        f"warning: hooks file {path}: hook '3': {checkpoint}",
        f'warning: hooks file {path}: hook #5 has no "name" (a non-empty string); skipped',
        f"warning: … and 99995 more problems in hooks file {path}",
    ]


LAUGHS = "\n".join(
    ["name: laughs", "description: d", "metadata:", "  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"  l{n}: &l{n} [{', '.join([f'*l{n - 1}'] * 9)}]" for n in range(1, 10)]
)
"""A billion laughs: nine levels of nine aliases each."""


async def test_a_hostile_skill_file_is_one_broken_skill_and_the_app_starts(tmp_path: Path) -> None:
    home = data_folder(tmp_path, "skills", {
        "skills/deep-list/SKILL.md": skill_file("deep-list", "[" * 5000 + "]" * 5000),
        "skills/deep-map/SKILL.md": skill_file("deep-map", "{a: " * 5000 + "}" * 5000),
        "skills/laughs/SKILL.md": f"---\n{LAUGHS}\n---\n\nLaugh.\n".encode(),
        "skills/huge/SKILL.md": skill_file("huge", body="x" * (256 << 10)),
        "skills/good/SKILL.md": skill_file("good", "The one that works."),
    })
    result = (await run_rows(tmp_path, [row("skills", home)]))["skills"]

    skills = home / "skills"
    result.check(0, lines=4)
    deep = "front matter is nested more than 32 levels deep (line 3)"
    assert warnings(result) == [
        f"warning: skill {skills / 'deep-list' / 'SKILL.md'}: {deep}; the skill is skipped",
        f"warning: skill {skills / 'deep-map' / 'SKILL.md'}: {deep}; the skill is skipped",
        f"warning: skill {skills / 'huge' / 'SKILL.md'}: file is larger than 256 KB; the skill is skipped",
        f"warning: skill {skills / 'laughs' / 'SKILL.md'}: front matter must not use YAML aliases (line 6); "
        "the skill is skipped",
    ]
    first = json.dumps(result.requests[0])
    assert "The one that works." in first and "laughs" not in first and "deep-list" not in first


async def test_a_skill_file_linked_from_elsewhere_is_refused_and_never_listed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "SKILL.md").write_bytes(skill_file("leak", OUTSIDE_MARKER))
    (elsewhere / "secret.txt").write_text(OUTSIDE_MARKER, encoding="utf-8")
    home = data_folder(tmp_path, "links", {
        "skills/notes/SKILL.md": skill_file("notes", "Take notes."),
        "skills/notes/guide.md": b"How to take notes.",
    })
    (home / "skills" / "leak").mkdir()
    (home / "skills" / "leak" / "SKILL.md").symlink_to(elsewhere / "SKILL.md")
    (home / "skills" / "notes" / "secret.txt").symlink_to(elsewhere / "secret.txt")
    replies = script(PLAN, tool_reply("get_skill", {"name": "notes"}))

    result = (await run_rows(tmp_path, [row("links", home, replies=replies)]))["links"]

    result.check(0)
    leak = home / "skills" / "leak"
    assert warnings(result) == [
        f"warning: skill {leak / 'SKILL.md'}: file is outside its folder {leak}; the skill is skipped"
    ]
    assert OUTSIDE_MARKER not in sent(result)
    (answer,) = [m["content"] for m in result.history() if m["role"] == "tool"]
    assert answer.endswith("Files of this skill (relative to its folder):\n- SKILL.md\n- guide.md")


async def test_a_settings_secrets_or_servers_file_that_is_a_pipe_never_hangs_the_start(tmp_path: Path) -> None:
    settings = data_folder(tmp_path, "settings_pipe")
    os.mkfifo(settings / "settings.json")
    secrets = data_folder(tmp_path, "secrets_pipe")
    os.mkfifo(secrets / "secrets.json")
    servers = data_folder(tmp_path, "servers_pipe")
    os.mkfifo(servers / "servers.json")
    big = data_folder(tmp_path, "servers_big", {"servers.json": b'{"mcpServers": {}}' + b" " * (1 << 20)})
    rows = [
        row("settings_pipe", settings),
        row("secrets_pipe", secrets),
        row("servers_pipe", servers, "--prompt", "x", "--mcp-config", str(servers / "servers.json")),
        row("servers_big", big, "--prompt", "x", "--mcp-config", str(big / "servers.json")),
    ]
    results = await run_rows(tmp_path, rows)

    result = results["settings_pipe"]
    result.check(0)
    assert warnings(result) == [
        f"warning: settings file {settings / 'settings.json'} is not a regular file; "
        "kept it as settings.json.corrupt-1 and started with defaults"
    ]
    results["secrets_pipe"].check(0, lines=0)
    for name, why in (("servers_pipe", "is not a regular file"), ("servers_big", "is larger than 1 MB")):
        result = results[name]
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        path = result.row.env["DESKTOP_AGENT_HOME"] + "/servers.json"
        assert result.lines() == [f"error: mcp config: {path} {why}"]
