"""An MCP bundle's ``manifest.json`` (``.mcpb``, Claude Desktop's extension
format, manifest versions 0.1 to 0.3; the older ``dxt_version`` key is read
as the same thing).

Only what installing needs is read: the names and words shown before the
user agrees (name, version, author, description, tools), the settings it
asks for (``user_config``), and how its server starts (``server.mcp_config``
with ``platform_overrides``). Anything else in the file is left alone. A
wrong manifest is a :class:`BundleError` with one line saying what is wrong,
never a half-read manifest.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from desktop_agent.mcp_engine.errors import McpEngineError

SUPPORTED_VERSIONS = ("0.1", "0.2", "0.3")
ServerType = Literal["node", "python", "binary"]
OptionType = Literal["string", "number", "boolean", "directory", "file"]
_OPTION_TYPES: tuple[OptionType, ...] = ("string", "number", "boolean", "directory", "file")
_SERVER_TYPES: tuple[ServerType, ...] = ("node", "python", "binary")
ConfigValue = str | float | bool | tuple[str, ...]
"""A user-config value: text (string, directory, file), a number, a switch,
or several paths (``multiple``)."""


class BundleError(McpEngineError):
    """A bundle that cannot be installed (or removed); the message is one
    English line (the log). ``key`` names the UI text that says it in the
    window's language, formatted with ``fields`` (None: shown as it is)."""

    def __init__(self, message: str, key: str | None = None, **fields: object) -> None:
        super().__init__(message)
        self.key = key
        self.fields = fields


@dataclass(frozen=True, slots=True)
class UserConfigOption:
    """One setting the bundle asks the user for."""

    key: str
    type: OptionType
    title: str
    description: str = ""
    required: bool = False
    default: ConfigValue | None = None
    sensitive: bool = False
    """Masked when asked and kept in the keyring, never in the servers file."""
    multiple: bool = False
    minimum: float | None = None
    maximum: float | None = None


@dataclass(frozen=True, slots=True)
class BundleTool:
    name: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class Manifest:
    manifest_version: str
    name: str
    display_name: str
    version: str
    description: str
    author: str
    server_type: ServerType
    entry_point: str
    command: str
    args: tuple[str, ...]
    env: Mapping[str, str]
    tools: tuple[BundleTool, ...] = ()
    user_config: tuple[UserConfigOption, ...] = ()


def parse_manifest(data: object) -> Manifest:
    """The manifest from its parsed JSON, or a :class:`BundleError`."""
    if not isinstance(data, dict):
        raise BundleError("manifest.json is not a JSON object", "bundle_manifest_not_object")
    version = data.get("manifest_version", data.get("dxt_version"))
    if version not in SUPPORTED_VERSIONS:
        raise BundleError(
            f"manifest_version {version!r} is not supported (this app reads {', '.join(SUPPORTED_VERSIONS)})"
        )
    name = _text(data, "name", required=True)
    server = data.get("server")
    if not isinstance(server, dict):
        raise BundleError('manifest.json has no "server" object', "bundle_manifest_no_server")
    server_type = server.get("type")
    if server_type not in _SERVER_TYPES:
        raise BundleError(
            f'"server.type" must be one of {", ".join(_SERVER_TYPES)}, not {server_type!r}', "bundle_server_type",
            choices=", ".join(_SERVER_TYPES), got=repr(server_type),
        )
    entry_point = _text(server, "entry_point", required=True, where="server.")
    config = server.get("mcp_config")
    if not isinstance(config, dict):
        raise BundleError('manifest.json has no "server.mcp_config" object', "bundle_manifest_no_config")
    override = config.get("platform_overrides", {})
    if isinstance(override, dict) and isinstance(override.get(sys.platform), dict):
        config = {**config, **override[sys.platform]}
    command = _text(config, "command", required=True, where="server.mcp_config.")
    args = config.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise BundleError('"server.mcp_config.args" must be a list of strings')
    env = config.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) for v in env.values()):
        raise BundleError('"server.mcp_config.env" must map names to strings')
    return Manifest(
        manifest_version=str(version),
        name=name,
        display_name=_text(data, "display_name") or name,
        version=_text(data, "version", required=True),
        description=_text(data, "description"),
        author=_author(data.get("author")),
        server_type=server_type,
        entry_point=entry_point,
        command=command,
        args=tuple(args),
        env={str(k): v for k, v in env.items()},
        tools=_tools(data.get("tools", [])),
        user_config=_options(data.get("user_config", {})),
    )


def _text(data: Mapping[str, Any], key: str, *, required: bool = False, where: str = "") -> str:
    value = data.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise BundleError(f'"{where}{key}" must be a non-empty string' if required else f'"{where}{key}" must be a string')
    return value.strip()


def _author(value: object) -> str:
    if isinstance(value, dict) and isinstance(value.get("name"), str):
        return str(value["name"])
    return value if isinstance(value, str) else ""


def _tools(value: object) -> tuple[BundleTool, ...]:
    if not isinstance(value, list):
        raise BundleError('"tools" must be a list')
    return tuple(
        BundleTool(str(t["name"]), str(t.get("description") or ""))
        for t in value
        if isinstance(t, dict) and isinstance(t.get("name"), str)
    )


def _options(value: object) -> tuple[UserConfigOption, ...]:
    if not isinstance(value, dict):
        raise BundleError('"user_config" must be an object')
    out: list[UserConfigOption] = []
    for key, spec in value.items():
        if not isinstance(spec, dict):
            raise BundleError(f'"user_config.{key}" must be an object')
        kind = spec.get("type")
        if kind not in _OPTION_TYPES:
            raise BundleError(f'"user_config.{key}.type" must be one of {", ".join(_OPTION_TYPES)}, not {kind!r}')
        default = spec.get("default")
        if isinstance(default, list):
            default = tuple(str(d) for d in default)
        elif default is not None and not isinstance(default, str | int | float | bool):
            raise BundleError(f'"user_config.{key}.default" has the wrong type')
        out.append(
            UserConfigOption(
                key=str(key),
                type=kind,
                title=str(spec.get("title") or key),
                description=str(spec.get("description") or ""),
                required=spec.get("required") is True,
                default=float(default) if isinstance(default, int) and not isinstance(default, bool) else default,
                sensitive=spec.get("sensitive") is True,
                multiple=spec.get("multiple") is True,
                minimum=_number(spec.get("min")),
                maximum=_number(spec.get("max")),
            )
        )
    return tuple(out)


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
