"""The folders the user shares with a server, as its ``roots/list`` answer.

The list itself is the user's (the settings' ``shared_folders``, for every
server or for some; the services layer sets ``hooks.roots``); here a folder
becomes a ``file://`` URI named after its last part, the way other hosts
name theirs. A change is announced with
:meth:`~desktop_agent.mcp_engine.McpEngine.roots_changed`.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import mcp_types as types


def roots_of(folders: Iterable[str]) -> types.ListRootsResult:
    """``file://`` roots of ``folders`` (``~`` expanded, made absolute), each once."""
    roots: list[types.Root] = []
    seen: set[str] = set()
    for folder in folders:
        path = Path(folder).expanduser().absolute()
        uri = path.as_uri()
        if uri not in seen:
            seen.add(uri)
            roots.append(types.Root(uri=uri, name=path.name or str(path)))  # type: ignore[arg-type]
    return types.ListRootsResult(roots=roots)
