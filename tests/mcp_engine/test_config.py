"""The MCP servers file: the format other hosts use, our extensions, and one
clear line for every mistake."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.mcp_engine import (
    McpConfig,
    McpConfigError,
    ServerConfig,
    default_config,
    load_mcp_config,
    load_mcp_config_or_set_aside,
    parse_mcp_config,
)
from desktop_agent.storage.paths import default_mcp_config_path


def test_a_claude_desktop_style_file_is_read_with_our_extensions() -> None:
    config = parse_mcp_config(
        {
            "mcpServers": {
                "fs": {
                    "command": "npx",
                    "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                    "env": {"DEBUG": "1"},
                    "cwd": "~/work",
                    "disabled_tools": ["write_file"],
                    "timeout_s": 30,
                    "autoApprove": ["read_file"],
                },
                "browser": {"command": "npx", "args": ["@playwright/mcp"], "isolation": "per_conversation"},
                "remote": {
                    "type": "sse",
                    "url": "http://127.0.0.1:9000/sse",
                    "headers": {"Authorization": "x"},
                },
                "api": {"type": "streamable-http", "url": "https://example.org/mcp", "disabled": True},
            },
            "max_sandboxes": 2,
        }
    )

    assert config == McpConfig(
        servers=(
            ServerConfig(
                name="fs",
                command="npx",
                args=("-y", "@modelcontextprotocol/server-filesystem", "/tmp"),
                env={"DEBUG": "1"},
                cwd=str(Path("~/work").expanduser()),
                disabled_tools=("write_file",),
                timeout_s=30.0,
            ),
            ServerConfig(
                name="browser", command="npx", args=("@playwright/mcp",), isolation="per_conversation"
            ),
            ServerConfig(
                name="remote",
                transport="sse",
                url="http://127.0.0.1:9000/sse",
                headers={"Authorization": "x"},
            ),
            ServerConfig(name="api", transport="http", url="https://example.org/mcp", enabled=False),
        ),
        max_sandboxes=2,
    )


@pytest.mark.parametrize(
    ("url", "transport"),
    [("http://h:1/sse", "sse"), ("http://h:1/sse/", "sse"), ("http://h:1/mcp", "http")],
)
def test_a_url_without_a_type_is_sse_when_it_ends_in_sse_else_streamable_http(
    url: str, transport: str
) -> None:
    (server,) = parse_mcp_config({"mcpServers": {"r": {"url": url}}}).servers

    assert server.transport == transport


@pytest.mark.parametrize(
    ("servers", "message"),
    [
        (
            {"fs": {"command": "npx", "args": "-y"}},
            'mcp config: server "fs": "args" must be a list of strings',
        ),
        (
            {"fs": {"command": "npx", "args": [1]}},
            'mcp config: server "fs": "args" must be a list of strings',
        ),
        ({"fs": {}}, 'mcp config: server "fs": "command" is required for a stdio server'),
        ({"fs": {"command": ""}}, 'mcp config: server "fs": "command" is required for a stdio server'),
        ({"fs": {"command": 7}}, 'mcp config: server "fs": "command" must be a string, got 7'),
        ({"fs": "npx"}, 'mcp config: server "fs": must be an object'),
        (
            {"fs": {"command": "x", "env": {"A": 1}}},
            'mcp config: server "fs": "env" must be an object of string values',
        ),
        (
            {"fs": {"command": "x", "isolation": "private"}},
            'mcp config: server "fs": "isolation" must be "shared" or "per_conversation", got \'private\'',
        ),
        (
            {"fs": {"command": "x", "timeout_s": 0}},
            'mcp config: server "fs": "timeout_s" must be a positive number of seconds, got 0',
        ),
        (
            {"fs": {"command": "x", "timeout_s": True}},
            'mcp config: server "fs": "timeout_s" must be a positive number of seconds, got True',
        ),
        (
            {"fs": {"command": "x", "enabled": "yes"}},
            'mcp config: server "fs": "enabled" must be true or false, got \'yes\'',
        ),
        (
            {"fs": {"command": "x", "enabled": True, "disabled": True}},
            'mcp config: server "fs": "enabled" and "disabled" contradict each other',
        ),
        (
            {"fs": {"command": "x", "disabled_tools": "rm"}},
            'mcp config: server "fs": "disabled_tools" must be a list of strings',
        ),
        (
            {"web": {"type": "websocket", "url": "ws://x"}},
            'mcp config: server "web": "type" must be "stdio", "sse" or "http", got \'websocket\'',
        ),
        (
            {"web": {"type": "sse"}},
            'mcp config: server "web": "url" must be an http:// or https:// address for a sse server',
        ),
        (
            {"web": {"type": "http", "url": "ftp://x"}},
            'mcp config: server "web": "url" must be an http:// or https:// address for a http server',
        ),
        (
            {"web": {"type": "http", "url": "http://x", "command": "y"}},
            'mcp config: server "web": give either "command" (stdio) or "url" (http), not both',
        ),
        (
            {"web": {"type": "stdio", "url": "http://x"}},
            'mcp config: server "web": "url" is for sse/http servers; a stdio server needs "command"',
        ),
        (
            {"bad name": {"command": "x"}},
            "mcp config: server \"bad name\": the name must be 1-64 letters, digits, '_', '-' or '.'",
        ),
    ],
)
def test_a_wrong_value_is_one_line_naming_the_server_and_the_field(
    servers: dict[str, Any], message: str
) -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config({"mcpServers": servers})

    assert str(info.value) == message


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], 'mcp config: the file must hold a JSON object with "mcpServers"'),
        ({}, 'mcp config: "mcpServers" is missing'),
        ({"mcpServers": []}, 'mcp config: "mcpServers" must be an object of server name -> settings'),
        (
            {"mcpServers": {}, "max_sandboxes": 0},
            'mcp config: "max_sandboxes" must be a positive integer, got 0',
        ),
    ],
)
def test_a_wrong_file_shape_is_one_line(data: object, message: str) -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config(data)

    assert str(info.value) == message


def test_vs_code_servers_key_is_accepted() -> None:
    config = parse_mcp_config({"servers": {"t": {"command": "x"}}})

    assert config == McpConfig(servers=(ServerConfig(name="t", command="x"),))


def test_default_config_runs_the_time_server_from_this_python() -> None:
    assert default_config() == McpConfig(
        servers=(ServerConfig(name="time", command=sys.executable, args=("-m", "mcp_server_time")),),
        max_sandboxes=4,
    )


def test_no_path_and_no_default_file_means_the_default_config() -> None:
    assert not default_mcp_config_path().exists()

    assert load_mcp_config(None) == default_config()
    assert load_mcp_config(default_mcp_config_path()) == default_config()


def test_no_path_reads_the_default_file_when_the_user_has_one() -> None:
    default_mcp_config_path().write_text(json.dumps({"mcpServers": {"t": {"command": "x"}}}))

    assert load_mcp_config(None) == McpConfig(servers=(ServerConfig(name="t", command="x"),))


def test_an_explicit_missing_file_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"

    with pytest.raises(McpConfigError) as info:
        load_mcp_config(missing)

    assert str(info.value) == f"mcp config: {missing} does not exist"


def test_broken_json_names_the_file_and_the_position(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {\n  "a": {"command": "x",}\n}}')

    with pytest.raises(McpConfigError) as info:
        load_mcp_config(path)

    assert str(info.value) == (
        f"mcp config: {path} is not valid JSON (line 2, column 24: Expecting property name enclosed in double quotes)"
    )


def test_a_server_named_twice_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"a": {"command": "x"}, "a": {"command": "y"}}}')

    with pytest.raises(McpConfigError) as info:
        load_mcp_config(path)

    assert str(info.value) == 'mcp config: "a" appears twice in the same object'


def test_a_file_nested_too_deeply_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text('{"mcpServers": {"a": {"command": "x", "env": ' + "[" * 2000 + "]" * 2000 + "}}}")

    with pytest.raises(McpConfigError) as info:
        load_mcp_config(path)

    assert str(info.value) == f"mcp config: {path} is nested too deeply to be a servers file"


@pytest.mark.parametrize(
    ("server", "message"),
    [
        ({"command": "x", "timeout_s": float("inf")}, '"timeout_s" must be a positive number of seconds, got inf'),
        ({"command": "x", "timeout_s": float("nan")}, '"timeout_s" must be a positive number of seconds, got nan'),
        ({"command": "x", "timeout_s": "5"}, "\"timeout_s\" must be a positive number of seconds, got '5'"),
        ({"command": "x", "timeout_s": [[[[[[[[1]]]]]]]]}, '"timeout_s" must be a positive number of seconds, got [[[[[[[...]]]]]]]'),
        ({"command": "x", "type": 7}, '"type" must be "stdio", "sse" or "http", got 7'),
        ({"url": "http://x", "transport": "ws"}, '"transport" must be "stdio", "sse" or "http", got \'ws\''),
        ({"command": "x", "headers": []}, '"headers" must be an object of string values'),
        ({"command": "x", "cwd": 1}, '"cwd" must be a string, got 1'),
        ({"command": "x", "disabled": 0}, '"disabled" must be true or false, got 0'),
    ],
)
def test_more_wrong_values_are_one_line(server: dict[str, Any], message: str) -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config({"mcpServers": {"s": server}})

    assert str(info.value) == f'mcp config: server "s": {message}'


@pytest.mark.parametrize("alias", ["streamable-http", "Streamable_HTTP", "streamablehttp", "HTTP"])
def test_transport_aliases_of_other_hosts_mean_http(alias: str) -> None:
    (server,) = parse_mcp_config({"mcpServers": {"r": {"transport": alias, "url": "http://h/mcp"}}}).servers

    assert server.transport == "http"


def test_unknown_keys_are_ignored_with_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("INFO", logger="desktop_agent.mcp_engine.config"):
        config = parse_mcp_config({"mcpServers": {"t": {"command": "x", "autoApprove": ["a"], "alwaysAllow": 1}}})

    assert config == McpConfig(servers=(ServerConfig(name="t", command="x"),))
    assert caplog.messages == ["mcp config: server 't': ignoring keys alwaysAllow, autoApprove"]


def test_max_sandboxes_must_be_an_integer_not_a_boolean() -> None:
    with pytest.raises(McpConfigError) as info:
        parse_mcp_config({"mcpServers": {}, "max_sandboxes": True})

    assert str(info.value) == 'mcp config: "max_sandboxes" must be a positive integer, got True'


def test_an_unreadable_data_folder_file_is_set_aside_but_a_named_one_is_an_error(tmp_path: Path) -> None:
    default = default_mcp_config_path()
    default.parent.mkdir(parents=True, exist_ok=True)
    default.write_bytes(b"[" * 100_000 + b"]" * 100_000)
    config, line = load_mcp_config_or_set_aside(None)
    assert config == default_config()
    assert line is not None and "nested too deeply" in line and "mcp_servers.json.corrupt-1" in line
    assert not default.exists() and default.with_name("mcp_servers.json.corrupt-1").exists()

    named = tmp_path / "mine.json"
    named.write_text('{"mcpServers": ' + "9" * 5000 + "}")
    with pytest.raises(McpConfigError, match="holds a number too long to read"):
        load_mcp_config_or_set_aside(named)
    assert named.exists()


def test_a_servers_file_that_is_a_pipe_or_over_1_mb_is_one_line_and_the_default_file_is_set_aside(
    tmp_path: Path,
) -> None:
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)  # a blocking read would wait here forever for a writer
    big = tmp_path / "big.json"
    big.write_text('{"mcpServers": {}}' + " " * (1 << 20))
    with pytest.raises(McpConfigError) as piped:
        load_mcp_config(pipe)
    with pytest.raises(McpConfigError) as huge:
        load_mcp_config(big)
    assert (str(piped.value), piped.value.code) == (f"mcp config: {pipe} is not a regular file", "not_regular")
    assert (str(huge.value), huge.value.code, huge.value.fields["limit"]) == (
        f"mcp config: {big} is larger than 1 MB", "too_large", "1 MB")

    default = default_mcp_config_path()
    default.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(default)
    config, line = load_mcp_config_or_set_aside(None)
    assert config == default_config()
    assert line == (f"mcp config: {default} is not a regular file; kept it as mcp_servers.json.corrupt-1 "
                    "and started with the default servers")
