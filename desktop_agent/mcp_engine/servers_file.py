"""Editing the MCP servers file (the Settings dialog's Tools page).

The file is the user's (contracts §8): edits work on the decoded JSON document,
not on :class:`ServerConfig`, so keys we do not model (``timeout_s``,
``autoApprove``, a host's own extras) survive every save. Each function
returns a new document; :func:`write_document` validates it with the same
parser the engine uses and replaces the file atomically.

Importing another host's file (Claude Desktop, Cursor) merges its servers:
a name already here with the same entry is skipped, a name here with a
different entry is added as ``name-2`` (``-3``…) so nothing is overwritten.
Those hosts allow any name ("brave search", "文件"), ours is an identifier
(it prefixes tool names): such a name is turned into one
(:func:`valid_name`), and an entry the engine cannot run is skipped and
named, so one odd server does not stop the rest.
"""

from __future__ import annotations

import copy
import json
import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from desktop_agent.mcp_engine.config import (
    ServerConfig,
    check_name,
    default_config,
    missing_file,
    parse_mcp_config,
    read_json,
)
from desktop_agent.mcp_engine.config_errors import McpConfigError
from desktop_agent.storage.atomic import atomic_write_text
from desktop_agent.storage.paths import default_mcp_config_path

Document = dict[str, Any]
Entry = dict[str, Any]


def resolve_path(path: str | Path | None) -> Path:
    """The file the app reads: the setting's, else the data folder's."""
    return Path(path).expanduser() if path else default_mcp_config_path()


def _servers_key(doc: Document) -> str:
    return "servers" if "mcpServers" not in doc and isinstance(doc.get("servers"), dict) else "mcpServers"


def _default_document() -> Document:
    servers: dict[str, Entry] = {}
    for server in default_config().servers:
        servers[server.name] = {"command": server.command, "args": list(server.args)}
    return {"mcpServers": servers}


def read_document(path: Path) -> Document:
    """The file as JSON; the default servers while the data folder's own
    file does not exist yet. Raises :class:`McpConfigError` (one line)."""
    if not path.exists():
        if path.resolve() == default_mcp_config_path().resolve():
            return _default_document()
        raise missing_file(path)
    # Lenient where the engine is strict: a BOM or a key named twice (both
    # common in hand-edited host files) is read as those hosts read it.
    data = read_json(path, encoding="utf-8-sig", unique_keys=False)
    if not isinstance(data, dict):
        raise McpConfigError(
            f'mcp config: {path} must hold a JSON object with "mcpServers"', "not_object", path=str(path)
        )
    return data


def entries(doc: Document) -> dict[str, Entry]:
    """The servers by name, in file order (entries that are not objects left out)."""
    raw = doc.get(_servers_key(doc))
    if not isinstance(raw, dict):
        return {}
    return {name: entry for name, entry in raw.items() if isinstance(entry, dict)}


def _with_servers(doc: Document, servers: dict[str, Any]) -> Document:
    new = copy.deepcopy(doc)
    new[_servers_key(doc)] = servers
    return new


def with_entry(doc: Document, name: str, entry: Entry, *, old_name: str | None = None) -> Document:
    """``name`` set to ``entry``; a renamed server keeps its place."""
    old = dict(copy.deepcopy(doc.get(_servers_key(doc)) or {}))
    if old_name is None or old_name not in old:
        old[name] = entry
        return _with_servers(doc, old)
    servers = {(name if key == old_name else key): (entry if key == old_name else value) for key, value in old.items()}
    return _with_servers(doc, servers)


def without_entry(doc: Document, name: str) -> Document:
    servers = {k: v for k, v in copy.deepcopy(doc.get(_servers_key(doc)) or {}).items() if k != name}
    return _with_servers(doc, servers)


def is_enabled(entry: Entry) -> bool:
    if isinstance(entry.get("enabled"), bool):
        return bool(entry["enabled"])
    return not entry.get("disabled", False)


def with_enabled(doc: Document, name: str, enabled: bool) -> Document:
    """The server switched on or off, in the key its entry already uses
    (``disabled``, as Claude Desktop writes it, or ``enabled``)."""
    entry = dict(entries(doc).get(name, {}))
    if "disabled" in entry and "enabled" not in entry:
        entry["disabled"] = not enabled
    elif enabled:
        entry.pop("enabled", None)
        entry.pop("disabled", None)
    else:
        entry.pop("disabled", None)
        entry["enabled"] = False
    return with_entry(doc, name, entry, old_name=name)


def read_import(path: Path) -> dict[str, Any]:
    """The servers of another host's file (``mcpServers`` or ``servers``),
    entries as written (one that is not an object is left for
    :func:`import_servers` to skip and name)."""
    doc = read_document(path)
    key = _servers_key(doc)
    if key not in doc:
        raise McpConfigError(f'mcp config: {path} has no "mcpServers"', "servers_missing", path=str(path))
    found = doc[key]
    if not isinstance(found, dict):
        raise McpConfigError(
            f'mcp config: {path}: "{key}" must be an object of server name -> settings',
            "servers_not_object", path=str(path), key=key,
        )
    if not found:
        raise McpConfigError(f'mcp config: {path}: "{key}" holds no servers', "servers_empty", path=str(path), key=key)
    return found


_NOT_NAME = re.compile(r"[^A-Za-z0-9_.\-]+")
FALLBACK_NAME = "server"
"""The name of an imported server whose name has no letter we can keep ("文件")."""


def valid_name(name: str, taken: set[str] | frozenset[str] = frozenset()) -> str:
    """``name`` as a server name: accents dropped (``café`` → ``cafe``),
    every other run of characters a name cannot hold → ``-``, at most 64
    characters, and ``-2``, ``-3``… while it is in ``taken``."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    base = _NOT_NAME.sub("-", folded).strip("-")[:64].strip("-") or FALLBACK_NAME
    target, n = base, 2
    while target in taken:
        suffix = f"-{n}"
        target = base[: 64 - len(suffix)] + suffix
        n += 1
    return target


@dataclass(frozen=True)
class ImportOutcome:
    """What :func:`import_servers` did with each server of the other file."""

    added: tuple[str, ...] = ()
    """The names added, as they are now in the file."""
    renamed: tuple[tuple[str, str], ...] = ()
    """(name, new name): the name was taken here by another entry."""
    fixed_names: tuple[tuple[str, str], ...] = ()
    """(name, new name): the name had characters a server name cannot hold."""
    skipped: tuple[tuple[str, McpConfigError], ...] = ()
    """(name, why): entries the engine could not run, left out."""
    unchanged: tuple[str, ...] = ()
    """Names already here with the same entry."""
    replaced: tuple[str, ...] = ()
    """Names here whose entry the user chose to replace with the imported one."""
    declined: tuple[str, ...] = ()
    """Names taken here whose imported server the user chose to skip."""


def import_servers(doc: Document, found: dict[str, Any]) -> tuple[Document, ImportOutcome]:
    """``found`` (from :func:`read_import`) merged into ``doc``: names made
    valid, entries the engine would refuse skipped, clashes renamed."""
    usable: dict[str, Entry] = {}
    fixed: dict[str, str] = {}
    skipped: list[tuple[str, McpConfigError]] = []
    valid = {name for name in found if check_name(name) is None}  # these keep their names
    for name, entry in found.items():
        target = name if name in valid else valid_name(name, valid | set(usable))
        try:
            parse_mcp_config({"mcpServers": {target: entry}})
        except McpConfigError as exc:
            if "server" in exc.fields:
                exc.fields["server"] = name  # the name as the user knows it
            skipped.append((name, exc))
            continue
        usable[target] = entry
        if target != name:
            fixed[target] = name
    doc, added, renamed = merge(doc, usable)
    clash = dict(renamed)
    return doc, ImportOutcome(
        added=tuple(added),
        renamed=tuple((a, b) for a, b in renamed if a not in fixed),
        fixed_names=tuple((fixed[t], clash.get(t, t)) for t in usable if t in fixed and clash.get(t, t) in added),
        skipped=tuple(skipped),
        unchanged=tuple(t for t in usable if t not in clash and t not in added),
    )


def merge(doc: Document, imported: dict[str, Entry]) -> tuple[Document, list[str], list[tuple[str, str]]]:
    """``imported`` added to ``doc``: the new document, the names added, and
    (original, new name) for each added under another name."""
    current = entries(doc)
    added: list[str] = []
    renamed: list[tuple[str, str]] = []
    for name, entry in imported.items():
        if name in current and same_server(current[name], entry):
            continue
        target = name
        n = 2
        while target in current:
            target = f"{name}-{n}"
            n += 1
        if target != name:
            renamed.append((name, target))
        doc = with_entry(doc, target, copy.deepcopy(entry))
        current[target] = entry
        added.append(target)
    return doc, added, renamed


def _config(name: str, entry: object) -> ServerConfig | None:
    try:
        (server,) = parse_mcp_config({"mcpServers": {name: entry}}).servers
    except (McpConfigError, ValueError):
        return None
    return server


def same_server(a: object, b: object) -> bool:
    """Whether two entries run the same server, names and on/off aside: what
    the engine would run, not the JSON text (Claude Desktop writes
    ``"env": {}`` or ``"type": "stdio"`` where our file has nothing)."""
    first, second = _config("x", a), _config("x", b)
    return first is not None and second is not None and replace(first, enabled=True) == replace(second, enabled=True)


def import_start_folder(home: Path, platform: str, env: Mapping[str, str]) -> Path:
    """Where the Import dialog opens: the first existing folder where
    Claude Desktop (on this system) or Cursor keep their servers, else ``home``."""
    if platform == "darwin":
        claude = home / "Library" / "Application Support" / "Claude"
    elif platform == "win32":
        claude = Path(env["APPDATA"]) / "Claude" if env.get("APPDATA") else home / "AppData" / "Roaming" / "Claude"
    else:
        claude = Path(env.get("XDG_CONFIG_HOME") or home / ".config") / "Claude"
    for folder in (claude, home / ".cursor"):
        if folder.is_dir():
            return folder
    return home


def write_document(path: Path, doc: Document) -> None:
    """Check ``doc`` as the engine will read it (raises
    :class:`McpConfigError`), then replace the file atomically."""
    parse_mcp_config(doc)
    atomic_write_text(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
