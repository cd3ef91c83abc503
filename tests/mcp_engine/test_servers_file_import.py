"""Importing another host's servers file: names Claude Desktop
allows are made valid, a broken entry is skipped and named, and every
refusal carries a code and the values the window words it from."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.mcp_engine import servers_file as sf
from desktop_agent.mcp_engine.config import load_mcp_config, parse_mcp_config
from desktop_agent.mcp_engine.config_errors import McpConfigError

TIME = {"command": "uvx", "args": ["mcp-server-time"]}
CLAUDE: dict[str, Any] = {
    "brave search": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-brave-search"]},
    "文件": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "~"]},
    "ok": {"url": "https://example.com/mcp"},
    "broken": {"args": ["x"]},
}


@pytest.mark.parametrize(
    ("name", "taken", "expected"),
    [
        ("brave search", set(), "brave-search"),
        ("文件", set(), "server"),
        ("文件", {"server"}, "server-2"),
        ("café  au lait!", set(), "cafe-au-lait"),
        ("Ünïcode/名字", set(), "Unicode"),
        ("brave search", {"brave-search", "brave-search-2"}, "brave-search-3"),
        ("x" * 70, set(), "x" * 64),
        ("x" * 70, {"x" * 64}, "x" * 62 + "-2"),
        ("ok", set(), "ok"),
    ],
)
def test_valid_name_turns_any_name_into_a_server_name(name: str, taken: set[str], expected: str) -> None:
    assert sf.valid_name(name, taken) == expected


def test_odd_names_are_made_valid_and_a_broken_entry_is_skipped_the_rest_imported(tmp_path: Path) -> None:
    doc, outcome = sf.import_servers({"mcpServers": {"time": TIME}}, CLAUDE)
    assert outcome.added == ("brave-search", "server", "ok")
    assert outcome.fixed_names == (("brave search", "brave-search"), ("文件", "server"))
    assert outcome.renamed == () and outcome.unchanged == ()
    assert [(name, exc.code) for name, exc in outcome.skipped] == [("broken", "no_command_or_url")]
    assert outcome.skipped[0][1].fields == {"server": "broken"}
    path = tmp_path / "mcp_servers.json"
    sf.write_document(path, doc)  # the engine takes every server that was added
    assert [s.name for s in load_mcp_config(path).servers] == ["time", "brave-search", "server", "ok"]


def test_a_made_valid_name_that_clashes_is_numbered_and_reported_once() -> None:
    here = {"mcpServers": {"brave-search": {"command": "other"}, "ok": {"url": "https://example.com/mcp"}}}
    doc, outcome = sf.import_servers(here, CLAUDE)
    assert outcome.added == ("brave-search-2", "server")
    assert outcome.fixed_names == (("brave search", "brave-search-2"), ("文件", "server"))
    assert outcome.renamed == () and outcome.unchanged == ("ok",)
    assert list(sf.entries(doc)) == ["brave-search", "ok", "brave-search-2", "server"]


def test_a_valid_name_keeps_it_when_a_fixed_name_would_take_it() -> None:
    _doc, outcome = sf.import_servers({"mcpServers": {}}, {"a b": TIME, "a-b": {"command": "other"}})
    assert outcome.added == ("a-b-2", "a-b") and outcome.fixed_names == (("a b", "a-b-2"),)


def test_a_name_clash_alone_is_a_rename_not_a_fixed_name() -> None:
    _doc, outcome = sf.import_servers({"mcpServers": {"time": TIME}}, {"time": {"command": "other"}})
    assert (outcome.added, outcome.renamed, outcome.fixed_names) == (("time-2",), (("time", "time-2"),), ())


def test_entries_of_the_wrong_shape_are_skipped_with_their_reason() -> None:
    found: dict[str, Any] = {"n": 1, "t": {"command": "x", "timeout_s": "soon"}, "fine": TIME}
    _doc, outcome = sf.import_servers({"mcpServers": {}}, found)
    assert outcome.added == ("fine",)
    assert [(n, e.code, e.fields.get("key")) for n, e in outcome.skipped] == [
        ("n", "server_not_object", None), ("t", "bad_value", "timeout_s"),
    ]


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "code", "message"),
    [
        ('{"mcpServers":[1]}', "servers_not_object", '"mcpServers" must be an object of server name -> settings'),
        ('{"globalShortcut": "x"}', "servers_missing", 'has no "mcpServers"'),
        ('{"mcpServers": {}}', "servers_empty", '"mcpServers" holds no servers'),
        ("[1]", "not_object", 'must hold a JSON object with "mcpServers"'),
        ('{"mcpServers": {"a": }}', "not_json", "is not valid JSON (line 1, column 22: Expecting value)"),
    ],
)
def test_an_import_refusal_has_a_code_and_its_english_line(tmp_path: Path, text: str, code: str, message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(McpConfigError) as info:
        sf.read_import(path)
    assert info.value.code == code and info.value.fields["path"] == str(path)
    assert message in str(info.value)


def test_a_json_error_keeps_where_it_is(tmp_path: Path) -> None:
    with pytest.raises(McpConfigError) as info:
        sf.read_import(_write(tmp_path, '{"mcpServers": {"a": }}'))
    assert {k: info.value.fields[k] for k in ("line", "column")} == {"line": 1, "column": 22}


def test_a_folder_is_unreadable_with_its_errno(tmp_path: Path) -> None:
    with pytest.raises(McpConfigError) as info:
        sf.read_import(tmp_path)
    assert info.value.code == "unreadable" and info.value.fields["errno"] == errno.EISDIR


def test_the_engines_own_refusals_carry_codes_and_keep_their_english() -> None:
    cases: list[tuple[dict[str, Any], str, str]] = [
        ({"mcpServers": {"a b": TIME}}, "bad_name", "the name must be 1-64 letters"),
        ({"mcpServers": {"s": {"command": 1}}}, "bad_value", '"command" must be a string, got 1'),
        ({"mcpServers": {"s": {}}}, "no_command_or_url", '"command" is required for a stdio server'),
        ({"mcpServers": {"s": {"command": ""}}}, "command_required", '"command" is required for a stdio server'),
        ({"mcpServers": {"s": {"type": "stdio", "url": "https://x"}}}, "url_on_stdio", '"url" is for sse/http'),
        ({"mcpServers": {"s": {"type": "sse", "url": "ftp://x"}}}, "url_scheme", "for a sse server"),
        ({"mcpServers": {"s": {"type": "http", "command": "x"}}}, "command_and_url", "not both"),
        ({"mcpServers": {"s": {**TIME, "enabled": True, "disabled": True}}}, "enabled_contradicts", "contradict"),
        ({"max_sandboxes": 0, "mcpServers": {}}, "bad_value", '"max_sandboxes" must be a positive integer'),
        ({}, "servers_missing", '"mcpServers" is missing'),
    ]
    for data, code, message in cases:
        with pytest.raises(McpConfigError) as info:
            parse_mcp_config(data)
        assert (info.value.code, message in str(info.value)) == (code, True), data


@pytest.mark.parametrize(
    ("platform", "folder"),
    [
        ("linux", ".config/Claude"),
        ("darwin", "Library/Application Support/Claude"),
        ("win32", "AppData/Roaming/Claude"),
    ],
)
def test_the_import_dialog_starts_where_claude_keeps_its_file(tmp_path: Path, platform: str, folder: str) -> None:
    assert sf.import_start_folder(tmp_path, platform, {}) == tmp_path  # nothing there yet: home
    (tmp_path / ".cursor").mkdir()
    assert sf.import_start_folder(tmp_path, platform, {}) == tmp_path / ".cursor"
    (tmp_path / folder).mkdir(parents=True)
    assert sf.import_start_folder(tmp_path, platform, {}) == tmp_path / folder


def test_the_start_folder_follows_appdata_and_xdg(tmp_path: Path) -> None:
    (tmp_path / "roaming" / "Claude").mkdir(parents=True)
    (tmp_path / "xdg" / "Claude").mkdir(parents=True)
    env = {"APPDATA": str(tmp_path / "roaming"), "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert sf.import_start_folder(tmp_path / "home", "win32", env) == tmp_path / "roaming" / "Claude"
    assert sf.import_start_folder(tmp_path / "home", "linux", env) == tmp_path / "xdg" / "Claude"


def test_an_import_of_a_pipe_or_a_huge_file_is_refused_at_once(tmp_path: Path) -> None:
    pipe = tmp_path / "mcp.json"
    os.mkfifo(pipe)
    big = _write(tmp_path, '{"mcpServers": {"a": {"command": "x"}}}' + " " * (1 << 20))
    for path, code in ((pipe, "not_regular"), (big, "too_large")):
        with pytest.raises(McpConfigError) as info:
            sf.read_import(path)
        assert (info.value.code, info.value.fields["path"]) == (code, str(path))
