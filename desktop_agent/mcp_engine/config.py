"""MCP servers file (contracts §8): the ``mcpServers`` JSON users already keep for
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
import os
import re
import reprlib
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AliasChoices, BaseModel, BeforeValidator, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from desktop_agent.core.notice import Notice
from desktop_agent.mcp_engine.config_errors import McpConfigError, McpProblemCode, ValueKind
from desktop_agent.storage.paths import default_mcp_config_path
from desktop_agent.storage.set_aside import set_aside
from desktop_agent.storage.user_files import UserFileError, read_user_bytes

log = logging.getLogger(__name__)

Transport = Literal["stdio", "sse", "http"]
Isolation = Literal["shared", "per_conversation"]

DEFAULT_TIMEOUT_S = 60.0
DEFAULT_MAX_SANDBOXES = 4
CONFIG_FILE_LIMIT = 1 << 20
"""Bytes: a servers file is a few kilobytes; more is not one (Claude Desktop's own stays far below)."""

_TRANSPORT_ALIASES: dict[str, Transport] = {
    "stdio": "stdio",
    "sse": "sse",
    "http": "http",
    "streamable-http": "http",
    "streamable_http": "http",
    "streamablehttp": "http",
}
_NAME_RE = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")


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
        raise missing_file(path)
    return parse_mcp_config(read_json(path))


def missing_file(path: Path) -> McpConfigError:
    return McpConfigError(f"mcp config: {path} does not exist", "missing_file", path=str(path))


def read_json(path: Path, *, encoding: str = "utf-8", unique_keys: bool = True) -> object:
    """The file decoded, or :class:`McpConfigError` saying why not (one
    line, with a code). ``unique_keys``: a key named twice is an error.

    Only a regular file of at most :data:`CONFIG_FILE_LIMIT` is read: the
    path may be the user's pick of another host's file, and a named pipe
    there would hang the reader, a huge file eat its memory."""
    try:
        data = read_user_bytes(path, limit=CONFIG_FILE_LIMIT)
    except UserFileError as exc:
        raise _read_error(path, exc) from None
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise McpConfigError(f"mcp config: cannot read {path}: {exc}", "not_utf8", path=str(path)) from exc
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys if unique_keys else None)
    except json.JSONDecodeError as exc:
        raise McpConfigError(
            f"mcp config: {path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            "not_json", path=str(path), line=exc.lineno, column=exc.colno, error=exc.msg,
        ) from exc
    except RecursionError:  # the json module recurses once per nesting level
        raise McpConfigError(
            f"mcp config: {path} is nested too deeply to be a servers file", "too_deep", path=str(path)
        ) from None
    except McpConfigError:
        raise  # a key named twice (_no_duplicate_keys)
    except ValueError:  # an integer past Python's digit limit (int_max_str_digits)
        raise McpConfigError(
            f"mcp config: {path} holds a number too long to read", "number_too_long", path=str(path)
        ) from None


def _read_error(path: Path, exc: UserFileError) -> McpConfigError:
    match exc.code:
        case "missing":
            return missing_file(path)
        case "not_regular":
            return McpConfigError(f"mcp config: {path} is not a regular file", "not_regular", path=str(path))
        case "too_large":
            limit = exc.fields["limit"]
            return McpConfigError(f"mcp config: {path} is larger than {limit}", "too_large", path=str(path), limit=limit)
        case "unreadable" | "outside" | "not_utf8":  # no folder given, no decoding asked: only unreadable comes
            why = str(exc.fields.get("error", exc.reason))
            return McpConfigError(
                f"mcp config: cannot read {path}: {why}", "unreadable", path=str(path), error=why,
                errno=exc.fields.get("errno"),
            )


def load_mcp_config_or_set_aside(path: Path | None) -> tuple[McpConfig, str | None]:
    """:func:`load_mcp_config`, and one line to show when the file was set aside.

    A file the user named (``--mcp-config``, the ``mcp_config_path``
    setting) that is broken stays an error, exit status 2 in the headless
    mode (contracts §10): the user asked for that file. The data folder's own
    file is the app's: unreadable, it is kept as
    ``mcp_servers.json.corrupt-<n>`` and the app starts with the default
    servers, like an unreadable settings file: a broken file costs the
    user their edits to it, never the app's start.
    """
    if path is not None:
        return load_mcp_config(path), None
    try:
        return load_mcp_config(None), None
    except McpConfigError as exc:
        backup = set_aside(default_mcp_config_path())
        if backup is None:
            raise
        line = Notice(
            f"{exc}; kept it as {backup.name} and started with the default servers",
            "notice_mcp_set_aside",
            {"backup": backup.name},
            cause=exc,
        )
        log.warning("%s", line)
        return default_config(), line


def parse_mcp_config(data: object) -> McpConfig:
    """Validate an already-decoded servers file."""
    try:
        file = _FileModel.model_validate(data)
    except ValidationError as exc:
        raise _file_error(exc) from None
    servers_raw = file.mcpServers if file.mcpServers is not None else file.servers
    if servers_raw is None:
        raise McpConfigError('mcp config: "mcpServers" is missing', "servers_missing")
    servers = tuple(_parse_server(name, raw) for name, raw in servers_raw.items())
    return McpConfig(servers=servers, max_sandboxes=file.max_sandboxes)


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise McpConfigError(f'mcp config: "{key}" appears twice in the same object', "duplicate_key", key=key)
        result[key] = value
    return result


# ------------------------------------------------------------------ schema


def _transport_alias(value: object) -> object:
    return _TRANSPORT_ALIASES.get(value.lower(), value) if isinstance(value, str) else value


class _FileModel(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")

    mcpServers: dict[str, Any] | None = None
    servers: dict[str, Any] | None = None
    """VS Code's name for ``mcpServers``."""
    max_sandboxes: int = Field(DEFAULT_MAX_SANDBOXES, ge=1)


class _ServerModel(BaseModel):
    """One server's entry. Strict types: a value of the wrong type is refused, not coerced."""

    model_config = ConfigDict(strict=True, extra="allow")

    type: Annotated[Transport | None, BeforeValidator(_transport_alias)] = Field(
        None, validation_alias=AliasChoices("type", "transport")
    )
    command: str | None = None
    args: list[str] = []
    env: dict[str, str] = {}
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = {}
    isolation: Isolation = "shared"
    disabled_tools: list[str] = []
    timeout_s: float = Field(DEFAULT_TIMEOUT_S, gt=0, allow_inf_nan=False)
    enabled: bool | None = None
    disabled: bool | None = None


_EXPECTED: dict[ValueKind, str] = {
    "transport": 'must be "stdio", "sse" or "http"',
    "string": "must be a string",
    "string_list": "must be a list of strings",
    "string_map": "must be an object of string values",
    "isolation": 'must be "shared" or "per_conversation"',
    "seconds": "must be a positive number of seconds",
    "bool": "must be true or false",
    "positive_int": "must be a positive integer",
    "server_map": "must be an object of server name -> settings",
    "invalid": "is not valid",
}
_PHRASES: dict[str, tuple[ValueKind, bool]] = {
    # field: (what it must be, whether to show the value given)
    "type": ("transport", True),
    "transport": ("transport", True),
    "command": ("string", True),
    "url": ("string", True),
    "cwd": ("string", True),
    "args": ("string_list", False),
    "disabled_tools": ("string_list", False),
    "env": ("string_map", False),
    "headers": ("string_map", False),
    "isolation": ("isolation", True),
    "timeout_s": ("seconds", True),
    "enabled": ("bool", True),
    "disabled": ("bool", True),
    "max_sandboxes": ("positive_int", True),
    "mcpServers": ("server_map", False),
    "servers": ("server_map", False),
}
_short = reprlib.Repr()
_short.maxstring = _short.maxother = 60


def _bad_value(where: str, error: ErrorDetails, **fields: object) -> McpConfigError:
    """``where: "field" must be …, got …`` for the first error of a validation."""
    key = str(error["loc"][0])
    expected, show_value = _PHRASES.get(key, ("invalid", True))
    got = _short.repr(error["input"]) if show_value else ""
    message = f'{where}: "{key}" {_EXPECTED[expected]}' + (f", got {got}" if show_value else "")
    return McpConfigError(message, "bad_value", key=key, expected=expected, got=got, **fields)


def _file_error(exc: ValidationError) -> McpConfigError:
    error = exc.errors(include_url=False)[0]
    if not error["loc"]:
        return McpConfigError('mcp config: the file must hold a JSON object with "mcpServers"', "not_object")
    return _bad_value("mcp config", error)


NAME_RULE = "the name must be 1-64 letters, digits, '_', '-' or '.'"


def check_name(name: str) -> McpConfigError | None:
    """Why ``name`` cannot name a server, or None when it can."""
    if _NAME_RE.match(name):
        return None
    return McpConfigError(f'mcp config: server "{name}": {NAME_RULE}', "bad_name", server=name)


def _parse_server(name: str, raw: object) -> ServerConfig:
    where = f'mcp config: server "{name}"'
    bad_name = check_name(name)
    if bad_name is not None:
        raise bad_name
    try:
        entry = _ServerModel.model_validate(raw)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        if not error["loc"]:
            raise McpConfigError(f"{where}: must be an object", "server_not_object", server=name) from None
        raise _bad_value(where, error, server=name) from None
    unknown = sorted(entry.model_extra or ())
    if unknown:
        log.info("mcp config: server %r: ignoring keys %s", name, ", ".join(unknown))

    command, url = entry.command, entry.url
    transport = entry.type or _implied_transport(command=command, url=url)
    if transport == "stdio":
        if url is not None:
            raise McpConfigError(
                f'{where}: "url" is for sse/http servers; a stdio server needs "command"', "url_on_stdio", server=name
            )
        if not command:
            # Neither key nor a type: the window says both ways out; the log line stays as it was.
            code: McpProblemCode = "no_command_or_url" if entry.type is None and command is None else "command_required"
            raise McpConfigError(f'{where}: "command" is required for a stdio server', code, server=name)
    else:
        if command is not None:
            raise McpConfigError(
                f'{where}: give either "command" (stdio) or "url" ({transport}), not both',
                "command_and_url", server=name, transport=transport,
            )
        if not url or not url.startswith(("http://", "https://")):
            raise McpConfigError(
                f'{where}: "url" must be an http:// or https:// address for a {transport} server',
                "url_scheme", server=name, transport=transport,
            )
    if entry.enabled is not None and entry.disabled is not None and entry.enabled == entry.disabled:
        raise McpConfigError(
            f'{where}: "enabled" and "disabled" contradict each other', "enabled_contradicts", server=name
        )

    return ServerConfig(
        name=name,
        transport=transport,
        command=command,
        args=tuple(entry.args),
        env=entry.env,
        cwd=os.path.expanduser(entry.cwd) if entry.cwd else None,
        url=url,
        isolation=entry.isolation,
        disabled_tools=tuple(entry.disabled_tools),
        timeout_s=entry.timeout_s,
        enabled=entry.enabled if entry.enabled is not None else not entry.disabled,
        headers=entry.headers,
    )


def _implied_transport(*, command: str | None, url: str | None) -> Transport:
    if url is not None and command is None:
        # Hosts that omit the type: an address ending in /sse is the old SSE
        # transport, anything else the current streamable HTTP one.
        return "sse" if url.rstrip("/").endswith("/sse") else "http"
    return "stdio"
