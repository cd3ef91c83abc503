"""Loading hooks.json (contracts §9): a broken file or entry gives one warning
naming the file, and everything else loads."""

from __future__ import annotations

import errno
import json
import os
import threading
from pathlib import Path
from typing import Any

from desktop_agent.core.hooks import Hook, hook_notes
from desktop_agent.core.notice import Notice
from desktop_agent.hooks_engine import HookCatalog, HookInfo, bundled_hooks_dir, load_hooks, user_hooks_dir


def write_hooks(folder: Path, entries: Any, prompts: dict[str, str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "hooks.json"
    path.write_text(entries if isinstance(entries, str) else json.dumps(entries), encoding="utf-8")
    for name, text in (prompts or {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    return path


def entry(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "checkpoint": "turn_start", "role": "user", "persistent": False,
            "prompt_file": f"{name}.md", "enabled": True, **fields}


def test_hooks_load_in_file_order_with_their_prompts_read_once(tmp_path: Path) -> None:
    write_hooks(tmp_path / "user", [entry("a", role="system", persistent=True), entry("b", enabled=False)],
                {"a.md": "Be brief.", "b.md": "Say hi."})

    catalog = load_hooks(tmp_path / "none", tmp_path / "user")

    assert catalog.warnings == ()
    assert catalog.infos() == (
        HookInfo("a", "turn_start", "system", True, True, "user"),
        HookInfo("b", "turn_start", "user", False, False, "user"),
    )
    assert catalog.enabled() == (Hook("a", "turn_start", "system", True, "Be brief."),)
    (tmp_path / "user" / "a.md").unlink()  # read at load: a turn never touches the disk
    assert hook_notes(catalog.enabled(), "turn_start")[0].content == "Be brief."


def test_the_users_choice_overrides_the_files_enabled(tmp_path: Path) -> None:
    write_hooks(tmp_path, [entry("a"), entry("b", enabled=False)], {"a.md": "A", "b.md": "B"})
    catalog = load_hooks(tmp_path / "none", tmp_path)

    choices = {"a": False, "b": True}

    assert [h.name for h in catalog.enabled(choices)] == ["b"]
    assert [i.enabled for i in catalog.infos(choices)] == [False, True]


def test_a_user_hook_replaces_a_bundled_one_of_the_same_name(tmp_path: Path) -> None:
    write_hooks(tmp_path / "bundled", [entry("a"), entry("b")], {"a.md": "bundled a", "b.md": "bundled b"})
    write_hooks(tmp_path / "user", [entry("a")], {"a.md": "mine"})

    catalog = load_hooks(tmp_path / "bundled", tmp_path / "user")

    assert [(i.name, i.source) for i in catalog.infos()] == [("b", "bundled"), ("a", "user")]
    assert [h.prompt for h in catalog.enabled()] == ["bundled b", "mine"]


def test_a_folder_without_hooks_json_has_no_hooks_and_no_warning(tmp_path: Path) -> None:
    catalog = load_hooks(tmp_path / "a", tmp_path / "b")

    assert (catalog.infos(), catalog.warnings) == ((), ())


def test_malformed_json_gives_one_warning_naming_the_file_and_the_other_folder_still_loads(tmp_path: Path) -> None:
    broken = write_hooks(tmp_path / "user", '[{"name": "a",')
    write_hooks(tmp_path / "bundled", [entry("ok")], {"ok.md": "fine"})

    catalog = load_hooks(tmp_path / "bundled", tmp_path / "user")

    assert len(catalog.warnings) == 1
    assert str(broken) in catalog.warnings[0] and "not valid JSON" in catalog.warnings[0]
    assert [h.name for h in catalog.enabled()] == ["ok"]


def test_a_file_that_is_not_a_list_is_named(tmp_path: Path) -> None:
    path = write_hooks(tmp_path, {"name": "a"})

    catalog = load_hooks(tmp_path / "none", tmp_path)

    assert catalog.warnings == (f"hooks file {path} must hold a JSON list of hooks; its hooks are not used",)


def test_a_missing_prompt_file_gives_one_warning_naming_it_and_the_hook_is_listed_broken(tmp_path: Path) -> None:
    write_hooks(tmp_path, [entry("gone"), entry("ok")], {"ok.md": "fine"})

    catalog = load_hooks(tmp_path / "none", tmp_path)

    assert len(catalog.warnings) == 1
    assert str(tmp_path / "gone.md") in catalog.warnings[0] and "missing" in catalog.warnings[0]
    gone = catalog.infos({"gone": True})[0]
    assert (gone.name, gone.enabled, gone.problem) == ("gone", False, catalog.warnings[0])
    assert [h.name for h in catalog.enabled({"gone": True})] == ["ok"]


def test_each_bad_field_is_named_once(tmp_path: Path) -> None:
    path = write_hooks(
        tmp_path,
        [
            entry("c", checkpoint="whenever"),
            entry("r", role="assistant"),
            entry("p", persistent="yes"),
            entry("e", enabled=1),
            entry("f", prompt_file=""),
            entry("empty"),
            {"checkpoint": "turn_end"},
            entry("c"),
        ],
        {"empty.md": "  \n", "c.md": "x"},
    )

    catalog = load_hooks(tmp_path / "none", tmp_path)

    problems = [info.problem for info in catalog.infos() if info.problem is not None]
    assert len(problems) == 7 and all(str(path) in p for p in problems)
    for needle in ('"checkpoint"', '"role"', '"persistent"', '"enabled"', '"prompt_file"', "is empty",
                   "appears twice"):
        assert sum(needle in p for p in problems) == 1, needle
    # Eight problems: the first five are warned about, the rest counted.
    assert catalog.warnings == (*problems[:5], f"… and 3 more problems in hooks file {path}")
    assert isinstance(catalog.warnings[-1], Notice) and catalog.warnings[-1].key == "notice_hooks_more"


def test_an_entry_without_a_name_is_a_warning_naming_its_number(tmp_path: Path) -> None:
    path = write_hooks(tmp_path, [entry("ok"), {"checkpoint": "turn_end"}], {"ok.md": "x"})

    catalog = load_hooks(tmp_path / "none", tmp_path)

    assert catalog.warnings == (f'hooks file {path}: hook #2 has no "name" (a non-empty string); skipped',)
    assert [i.name for i in catalog.infos()] == ["ok"]


def test_a_name_given_twice_keeps_the_first_hook_and_lists_the_second_broken(tmp_path: Path) -> None:
    write_hooks(tmp_path, [entry("a"), entry("a", role="system")], {"a.md": "A"})

    catalog = load_hooks(tmp_path / "none", tmp_path)

    assert [(i.name, i.role, i.problem is None) for i in catalog.infos()] == [("a", "user", True), ("a", "system", False)]
    assert catalog.enabled() == (Hook("a", "turn_start", "user", False, "A"),)


def test_the_default_folders_are_the_bundled_hooks_and_the_data_folder(tmp_path: Path) -> None:
    assert (bundled_hooks_dir() / "hooks.json").is_file()
    assert user_hooks_dir().parent == Path(__import__("os").environ["DESKTOP_AGENT_HOME"])


def test_the_bundled_example_loads_cleanly_and_is_off_by_default() -> None:
    catalog = load_hooks(bundled_hooks_dir(), Path("/nonexistent-hooks-folder"))

    assert catalog.warnings == ()
    assert catalog.infos() and all(i.source == "bundled" and not i.enabled for i in catalog.infos())
    assert catalog.enabled() == ()
    names = [i.name for i in catalog.infos()]
    assert len(catalog.enabled(dict.fromkeys(names, True))) == len(names)


def load_bounded(bundled: Path, user: Path) -> HookCatalog:
    """:func:`load_hooks` in a thread given 30 s: reading a named pipe the
    old way blocked forever, and the test must fail instead."""
    done: list[HookCatalog] = []
    thread = threading.Thread(target=lambda: done.append(load_hooks(bundled, user)), daemon=True)
    thread.start()
    thread.join(timeout=30)
    assert done, "load_hooks did not return"
    return done[0]


def test_a_prompt_file_outside_the_hooks_folder_is_refused_and_never_read(tmp_path: Path) -> None:
    hooks = tmp_path / "hooks"
    path = write_hooks(hooks, [entry("up", prompt_file="../secrets.json"), entry("abs", prompt_file="/etc/passwd"),
                               entry("link", prompt_file="link.md"), entry("inner", prompt_file="./in.md")],
                       {"in.md": "Inside."})
    (tmp_path / "secrets.json").write_text('{"openai-api-key": "sk-secret"}')
    (hooks / "link.md").symlink_to(tmp_path / "secrets.json")

    catalog = load_hooks(tmp_path / "none", hooks)

    where = f"hooks file {path}: hook"
    assert catalog.warnings == (
        f"{where} 'up': prompt file {hooks / '../secrets.json'} is outside {hooks}",
        f"{where} 'abs': prompt file /etc/passwd is outside {hooks}",
        f"{where} 'link': prompt file {hooks / 'link.md'} is outside {hooks}",
    )
    assert [w.key for w in catalog.warnings if isinstance(w, Notice)] == ["hook_problem_prompt_outside"] * 3
    assert isinstance(catalog.warnings[0], Notice) and catalog.warnings[0].fields == {
        "file": str(path), "name": "up", "prompt": str(hooks / "../secrets.json"), "folder": str(hooks)}
    assert catalog.enabled() == (Hook("inner", "turn_start", "user", False, "Inside."),)


def test_a_link_to_a_prompt_inside_the_hooks_folder_is_followed(tmp_path: Path) -> None:
    write_hooks(tmp_path, [entry("a", prompt_file="alias.md")], {"real.md": "Be brief."})
    (tmp_path / "alias.md").symlink_to(tmp_path / "real.md")

    catalog = load_hooks(tmp_path / "none", tmp_path)

    assert (catalog.warnings, [h.prompt for h in catalog.enabled()]) == ((), ["Be brief."])


def test_a_named_pipe_as_prompt_or_as_hooks_json_is_refused_at_once(tmp_path: Path) -> None:
    path = write_hooks(tmp_path / "user", [entry("piped"), entry("ok")], {"ok.md": "fine"})
    os.mkfifo(tmp_path / "user" / "piped.md")
    (tmp_path / "bundled").mkdir()
    os.mkfifo(tmp_path / "bundled" / "hooks.json")

    catalog = load_bounded(tmp_path / "bundled", tmp_path / "user")

    assert catalog.warnings == (
        f"hooks file {tmp_path / 'bundled' / 'hooks.json'} is not a regular file; its hooks are not used",
        f"hooks file {path}: hook 'piped': prompt file {tmp_path / 'user' / 'piped.md'} is not a regular file",
    )
    keys = [w.key for w in catalog.warnings if isinstance(w, Notice)]
    assert keys == ["notice_hooks_not_regular", "hook_problem_prompt_not_regular"]
    assert [h.name for h in catalog.enabled()] == ["ok"]


def test_a_prompt_over_64_kb_and_a_hooks_file_over_1_mb_are_refused(tmp_path: Path) -> None:
    path = write_hooks(tmp_path / "user", [entry("big"), entry("edge")],
                       {"big.md": "x" * (64 * 1024 + 1), "edge.md": "y" * (64 * 1024)})
    big_file = write_hooks(tmp_path / "bundled", " " * (1 << 20) + "[]")

    catalog = load_hooks(tmp_path / "bundled", tmp_path / "user")

    assert catalog.warnings == (
        f"hooks file {big_file} is larger than 1 MB; its hooks are not used",
        f"hooks file {path}: hook 'big': prompt file {tmp_path / 'user' / 'big.md'} is larger than 64 KB",
    )
    assert isinstance(catalog.warnings[1], Notice) and catalog.warnings[1].fields["limit"] == "64 KB"
    assert [len(h.prompt) for h in catalog.enabled()] == [64 * 1024]


def test_a_prompt_file_naming_a_nul_is_a_bad_prompt_file_field(tmp_path: Path) -> None:
    path = write_hooks(tmp_path, [entry("nul", prompt_file="a\0b.md")])

    catalog = load_hooks(tmp_path / "none", tmp_path)

    assert catalog.warnings == (f"hooks file {path}: hook 'nul': \"prompt_file\" must name a file beside hooks.json",)


def test_a_folder_as_prompt_file_cannot_be_read_as_the_os_says(tmp_path: Path) -> None:
    path = write_hooks(tmp_path, [entry("dir")])
    (tmp_path / "dir.md").mkdir()

    (warning,) = load_hooks(tmp_path / "none", tmp_path).warnings

    assert warning == f"hooks file {path}: hook 'dir': prompt file {tmp_path / 'dir.md'} cannot be read (Is a directory)"
    assert isinstance(warning, Notice)
    assert (warning.key, warning.fields["errno"]) == ("hook_problem_prompt_unreadable", errno.EISDIR)


def test_100000_broken_entries_warn_five_times_then_count_and_all_are_listed(tmp_path: Path) -> None:
    entries = [{} if n % 2 == 0 else {"name": f"h{n}"} for n in range(100_000)]
    path = write_hooks(tmp_path, json.dumps(entries, separators=(",", ":")))  # under the 1 MB cap

    catalog = load_hooks(tmp_path / "none", tmp_path)

    checkpoint = ('"checkpoint" must be one of turn_start, before_tool_round, after_tool_result, '
                  "after_rejection, turn_end, got None")
    assert catalog.warnings == (
        f'hooks file {path}: hook #1 has no "name" (a non-empty string); skipped',
        f"hooks file {path}: hook 'h1': {checkpoint}",
        f'hooks file {path}: hook #3 has no "name" (a non-empty string); skipped',
        f"hooks file {path}: hook 'h3': {checkpoint}",
        f'hooks file {path}: hook #5 has no "name" (a non-empty string); skipped',
        f"… and 99995 more problems in hooks file {path}",
    )
    assert isinstance(catalog.warnings[-1], Notice)
    assert catalog.warnings[-1].fields == {"file": str(path), "count": "99995"}
    assert len(catalog.infos()) == 50_000 and catalog.enabled() == ()  # the page still lists every named entry


def test_each_hooks_file_is_summarised_on_its_own(tmp_path: Path) -> None:
    write_hooks(tmp_path / "bundled", [{}] * 6)
    write_hooks(tmp_path / "user", [{}] * 5)

    catalog = load_hooks(tmp_path / "bundled", tmp_path / "user")

    assert len(catalog.warnings) == 5 + 1 + 5
    assert catalog.warnings[5] == f"… and 1 more problem in hooks file {tmp_path / 'bundled' / 'hooks.json'}"
