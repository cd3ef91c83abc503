"""Editing the MCP servers file (issue 13, the Settings dialog's Tools page).

The file is the user's (DESIGN §8): edits work on the decoded JSON document,
not on :class:`ServerConfig`, so keys we do not model (``timeout_s``,
``autoApprove``, a host's own extras) survive every save. Each function
returns a new document; :func:`write_document` validates it with the same
parser the engine uses and replaces the file atomically.

Importing another host's file (Claude Desktop, Cursor) merges its servers:
a name already here with the same entry is skipped, a name here with a
different entry is added as ``name-2`` (``-3``…) so nothing is overwritten.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from desktop_agent.mcp_engine.config import McpConfigError, default_config, parse_mcp_config
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
        raise McpConfigError(f"mcp config: {path} does not exist")
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise McpConfigError(f"mcp config: cannot read {path}: {exc}") from None
    if not isinstance(data, dict):
        raise McpConfigError(f'mcp config: {path} must hold a JSON object with "mcpServers"')
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


def read_import(path: Path) -> dict[str, Entry]:
    """The servers of another host's file (``mcpServers`` or ``servers``)."""
    doc = read_document(path)
    found = entries(doc)
    if not found:
        raise McpConfigError(f'mcp config: {path} has no "mcpServers"')
    return found


def merge(doc: Document, imported: dict[str, Entry]) -> tuple[Document, list[str], list[tuple[str, str]]]:
    """``imported`` added to ``doc``: the new document, the names added, and
    (original, new name) for each added under another name."""
    current = entries(doc)
    added: list[str] = []
    renamed: list[tuple[str, str]] = []
    for name, entry in imported.items():
        if current.get(name) == entry:
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


def write_document(path: Path, doc: Document) -> None:
    """Check ``doc`` as the engine will read it (raises
    :class:`McpConfigError`), then replace the file atomically."""
    parse_mcp_config(doc)
    atomic_write_text(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
