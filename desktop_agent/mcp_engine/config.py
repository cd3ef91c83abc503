"""MCP servers file (DESIGN §8): the ``mcpServers`` JSON users already keep for
other MCP hosts, plus our own keys.

Why so lenient about *shape* and so strict about *values*: people paste their
Claude Desktop / Cursor / VS Code files here, so the aliases those hosts use
(``"disabled": true``, ``"servers"``, ``"streamable-http"``) are accepted and
keys we don't know (``autoApprove``…) are ignored with a log line. A value of
the wrong type, though, is an error whose one line names the server and the
field, because a half-understood server is worse than a clear refusal.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from desktop_agent.storage.paths import default_mcp_config_path

log = logging.getLogger(__name__)

Transport = Literal["stdio", "sse", "http"]
Isolation = Literal["shared", "per_conversation"]

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_SANDBOXES = 4

_TRANSPORT_ALIASES: dict[str, Transport] = {
    "stdio": "stdio",
    "sse": "sse",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "streamablehttp": "http",
}
_KNOWN_KEYS = frozenset(
    {"type", "transport", "command", "args", "env", "cwd", "url", "headers", "isolation"}
    | {"disabled_tools", "timeout_s", "enabled", "disabled"}
)
_NAME_RE = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")


class McpConfigError(ValueError):
    """The MCP servers file is wrong; the one-line message names the server and field."""


@dataclass(frozen=True)
class ServerConfig:
    """One MCP server as the user configured it."""

    name: str
    transport: Transport = "stdio"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    """Extra environment variables, over the SDK's safe default environment."""
    cwd: str | None = None
    url: str | None = None
    isolation: Isolation = "shared"
    disabled_tools: tuple[str, ...] = ()
    """Tools of this server hidden from the model."""
    timeout_s: float = DEFAULT_TIMEOUT_S
    """Idle timeout: a call with no result and no progress for this long fails."""
    enabled: bool = True
    headers: Mapping[str, str] = field(default_factory=dict)
    """HTTP headers for remote servers (e.g. an Authorization token)."""


@dataclass(frozen=True)
class McpConfig:
    servers: tuple[ServerConfig, ...]
    max_sandboxes: int = DEFAULT_MAX_SANDBOXES
    """Most per-conversation sandboxes alive at once; the least recently used goes first."""


def default_config() -> McpConfig:
    """What a new user gets: ``mcp-server-time``, offline, from our own venv."""
    return McpConfig(
        servers=(
            ServerConfig(
                name="time",
                transport="stdio",
                command=sys.executable,
                # A PyInstaller bundle has no ``-m``: its executable serves
                # the time server itself (see ``desktop_agent.__main__``).
                args=("--mcp-server-time",) if getattr(sys, "frozen", False) else ("-m", "mcp_server_time"),
            ),
        )
    )


def load_mcp_config(path: Path | None) -> McpConfig:
    """Read and validate the servers file.

    ``None`` means the default file in the data folder, and a missing default
    file means :func:`default_config`. An explicit path that does not exist is
    an error: the user asked for that file.
    """
    default_path = default_mcp_config_path()
    if path is None:
        path = default_path
    if not path.exists():
        if path.resolve() == default_path.resolve():
            return default_config()
        raise McpConfigError(f"mcp config: {path} does not exist")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise McpConfigError(f"mcp config: cannot read {path}: {exc}") from exc
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise McpConfigError(
            f"mcp config: {path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc
    return parse_mcp_config(data)


def parse_mcp_config(data: object) -> McpConfig:
    """Validate an already-decoded servers file."""
    if not isinstance(data, dict):
        raise McpConfigError('mcp config: the file must hold a JSON object with "mcpServers"')
    key = "mcpServers" if "mcpServers" in data else "servers" if "servers" in data else None
    if key is None:
        raise McpConfigError('mcp config: "mcpServers" is missing')
    servers_raw = data[key]
    if not isinstance(servers_raw, dict):
        raise McpConfigError(f'mcp config: "{key}" must be an object of server name -> settings')
    max_sandboxes = data.get("max_sandboxes", DEFAULT_MAX_SANDBOXES)
    if isinstance(max_sandboxes, bool) or not isinstance(max_sandboxes, int) or max_sandboxes < 1:
        raise McpConfigError(f'mcp config: "max_sandboxes" must be a positive integer, got {max_sandboxes!r}')
    servers = tuple(_parse_server(name, raw) for name, raw in servers_raw.items())
    return McpConfig(servers=servers, max_sandboxes=max_sandboxes)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise McpConfigError(f'mcp config: "{key}" appears twice in the same object')
        result[key] = value
    return result


def _parse_server(name: str, raw: object) -> ServerConfig:
    where = f'mcp config: server "{name}"'
    if not _NAME_RE.match(name):
        raise McpConfigError(f"{where}: the name must be 1-64 letters, digits, '_', '-' or '.'")
    if not isinstance(raw, dict):
        raise McpConfigError(f"{where}: must be an object")
    unknown = sorted(set(raw) - _KNOWN_KEYS)
    if unknown:
        log.info("mcp config: server %r: ignoring keys %s", name, ", ".join(unknown))

    command = _opt_str(raw, "command", where)
    url = _opt_str(raw, "url", where)
    transport = _transport(raw, where, command=command, url=url)
    if transport == "stdio":
        if url is not None:
            raise McpConfigError(f'{where}: "url" is for sse/http servers; a stdio server needs "command"')
        if not command:
            raise McpConfigError(f'{where}: "command" is required for a stdio server')
    else:
        if command is not None:
            raise McpConfigError(f'{where}: give either "command" (stdio) or "url" ({transport}), not both')
        if not url or not url.startswith(("http://", "https://")):
            raise McpConfigError(
                f'{where}: "url" must be an http:// or https:// address for a {transport} server'
            )

    isolation = raw.get("isolation", "shared")
    if isolation not in ("shared", "per_conversation"):
        raise McpConfigError(
            f'{where}: "isolation" must be "shared" or "per_conversation", got {isolation!r}'
        )
    timeout_s = raw.get("timeout_s", DEFAULT_TIMEOUT_S)
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, int | float) or not 0 < timeout_s < math.inf:
        raise McpConfigError(f'{where}: "timeout_s" must be a positive number of seconds, got {timeout_s!r}')
    enabled = _opt_bool(raw, "enabled", where)
    disabled = _opt_bool(raw, "disabled", where)
    if enabled is not None and disabled is not None and enabled == disabled:
        raise McpConfigError(f'{where}: "enabled" and "disabled" contradict each other')
    cwd = _opt_str(raw, "cwd", where)

    return ServerConfig(
        name=name,
        transport=transport,
        command=command,
        args=_str_list(raw, "args", where),
        env=_str_map(raw, "env", where),
        cwd=os.path.expanduser(cwd) if cwd else None,
        url=url,
        isolation=isolation,
        disabled_tools=_str_list(raw, "disabled_tools", where),
        timeout_s=float(timeout_s),
        enabled=enabled if enabled is not None else not disabled,
        headers=_str_map(raw, "headers", where),
    )


def _transport(raw: dict[str, Any], where: str, *, command: str | None, url: str | None) -> Transport:
    value = raw.get("type", raw.get("transport"))
    if value is None:
        if url is not None and command is None:
            # Hosts that omit the type: an address ending in /sse is the old SSE
            # transport, anything else the current streamable HTTP one.
            return "sse" if url.rstrip("/").endswith("/sse") else "http"
        return "stdio"
    if not isinstance(value, str) or value.lower() not in _TRANSPORT_ALIASES:
        raise McpConfigError(f'{where}: "type" must be "stdio", "sse" or "http", got {value!r}')
    return _TRANSPORT_ALIASES[value.lower()]


def _opt_str(raw: dict[str, Any], key: str, where: str) -> str | None:
    value = raw.get(key)
    if value is not None and not isinstance(value, str):
        raise McpConfigError(f'{where}: "{key}" must be a string, got {value!r}')
    return value


def _opt_bool(raw: dict[str, Any], key: str, where: str) -> bool | None:
    value = raw.get(key)
    if value is not None and not isinstance(value, bool):
        raise McpConfigError(f'{where}: "{key}" must be true or false, got {value!r}')
    return value


def _str_list(raw: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise McpConfigError(f'{where}: "{key}" must be a list of strings')
    return tuple(value)


def _str_map(raw: dict[str, Any], key: str, where: str) -> dict[str, str]:
    value = raw.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise McpConfigError(f'{where}: "{key}" must be an object of string values')
    return dict(value)
