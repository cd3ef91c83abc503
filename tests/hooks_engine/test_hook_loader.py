"""Loading hooks.json (DESIGN §9): a broken file or entry gives one warning
naming the file, and everything else loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from desktop_agent.core.hooks import Hook, hook_messages
from desktop_agent.hooks_engine import HookInfo, bundled_hooks_dir, load_hooks, user_hooks_dir


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
    assert hook_messages(catalog.enabled(), "turn_start")[0]["content"] == "Be brief."


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

    warnings = load_hooks(tmp_path / "none", tmp_path).warnings

    assert len(warnings) == 8
    assert all(str(path) in w or str(tmp_path / "empty.md") in w for w in warnings)
    for needle in ('"checkpoint"', '"role"', '"persistent"', '"enabled"', '"prompt_file"', "is empty",
                   'hook #7 has no "name"', "appears twice"):
        assert sum(needle in w for w in warnings) == 1, needle


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
