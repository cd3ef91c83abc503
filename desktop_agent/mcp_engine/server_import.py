"""What importing another host's servers would do, before it is done: the
preview the Tools page shows, then the import with the user's choices.

Each server of the other file is one :class:`ImportItem`: ``new`` (added),
``same`` (a server here runs exactly that already, whatever its name or the
way its entry is spelt: skipped, so a second import adds nothing), ``clash``
(its name is taken here by another server: the user chooses to add it under
a numbered name, replace the one here, or skip it) or ``unusable`` (the
engine could not run it: skipped and named). "The same" compares what the
engine would run (``servers_file.same_server``), not the JSON text: Claude Desktop
writes ``"env": {}`` or ``"type": "stdio"`` where our file has nothing, and
comparing the text imported such a server a second time as ``name-2``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from desktop_agent.mcp_engine.config import check_name, parse_mcp_config
from desktop_agent.mcp_engine.config_errors import McpConfigError
from desktop_agent.mcp_engine.servers_file import (
    Document,
    Entry,
    ImportOutcome,
    entries,
    same_server,
    valid_name,
    with_entry,
)

ImportKind = Literal["new", "same", "clash", "unusable"]
ClashChoice = Literal["rename", "replace", "skip"]
CLASH_CHOICES: tuple[ClashChoice, ...] = ("rename", "replace", "skip")


@dataclass(frozen=True)
class ImportItem:
    """One server of the other file, and what importing it would do."""

    name: str
    """Its name in the other file."""
    target: str
    """Its name here: ``name`` made valid (``brave search`` → ``brave-search``)."""
    entry: Any
    kind: ImportKind
    existing: str | None = None
    """``same``: the server here that runs it already; ``clash``: the one whose name it takes."""
    renamed_to: str | None = None
    """``clash``: the numbered name it gets when added beside the one here."""
    problem: McpConfigError | None = None
    """``unusable``: why."""


def _numbered(name: str, taken: set[str]) -> str:
    target, n = name, 2
    while target in taken:
        target = f"{name}-{n}"
        n += 1
    return target


def preview_import(doc: Document, found: Mapping[str, Any]) -> tuple[ImportItem, ...]:
    """What importing ``found`` (``servers_file.read_import``) into ``doc`` would do, server by server."""
    here = entries(doc)
    valid = {name for name in found if check_name(name) is None}  # these keep their names
    taken = set(here)
    targets: set[str] = set()
    items: list[ImportItem] = []
    for name, entry in found.items():
        target = name if name in valid else valid_name(name, valid | targets)
        targets.add(target)
        try:
            parse_mcp_config({"mcpServers": {target: entry}})
        except McpConfigError as exc:
            if "server" in exc.fields:
                exc.fields["server"] = name  # the name as the user knows it
            items.append(ImportItem(name, target, entry, "unusable", problem=exc))
            continue
        same = sorted((other for other, old in here.items() if same_server(old, entry)), key=lambda n: n != target)
        if same:
            items.append(ImportItem(name, target, entry, "same", existing=same[0]))
        elif target in here:
            numbered = _numbered(target, taken)
            taken.add(numbered)
            items.append(ImportItem(name, target, entry, "clash", existing=target, renamed_to=numbered))
        else:
            taken.add(target)
            items.append(ImportItem(name, target, entry, "new"))
    return tuple(items)


def changes(items: tuple[ImportItem, ...]) -> bool:
    """Whether anything could be imported (a new server or a clash to decide)."""
    return any(item.kind in ("new", "clash") for item in items)


def apply_import(
    doc: Document, items: tuple[ImportItem, ...], choices: Mapping[str, ClashChoice] | None = None
) -> tuple[Document, ImportOutcome]:
    """``doc`` with ``items`` imported; a clash follows ``choices`` (by the
    item's ``name``; ``rename`` when not chosen)."""
    choices = choices or {}
    added: list[str] = []
    renamed: list[tuple[str, str]] = []
    fixed: list[tuple[str, str]] = []
    replaced: list[str] = []
    declined: list[str] = []
    for item in items:
        entry: Entry = copy.deepcopy(item.entry)
        choice = choices.get(item.name, "rename")
        if item.kind == "new":
            doc = with_entry(doc, item.target, entry)
            added.append(item.target)
        elif item.kind == "clash" and choice == "replace":
            doc = with_entry(doc, item.target, entry, old_name=item.target)
            replaced.append(item.target)
        elif item.kind == "clash" and choice == "rename" and item.renamed_to is not None:
            doc = with_entry(doc, item.renamed_to, entry)
            added.append(item.renamed_to)
            if item.target != item.name:
                fixed.append((item.name, item.renamed_to))
            else:
                renamed.append((item.name, item.renamed_to))
            continue
        elif item.kind == "clash":
            declined.append(item.target)
        if item.kind == "new" and item.target != item.name:
            fixed.append((item.name, item.target))
    return doc, ImportOutcome(
        added=tuple(added),
        renamed=tuple(renamed),
        fixed_names=tuple(fixed),
        skipped=tuple((item.name, item.problem) for item in items if item.problem is not None),
        unchanged=tuple(item.existing for item in items if item.kind == "same" and item.existing is not None),
        replaced=tuple(replaced),
        declined=tuple(declined),
    )


__all__ = [
    "CLASH_CHOICES", "ClashChoice", "ImportItem", "ImportKind", "apply_import", "changes", "preview_import",
]
