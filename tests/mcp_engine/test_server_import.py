"""The import's preview: a server here already (however its entry is
spelt) is skipped, a name clash is the user's choice, and importing the same
file twice adds nothing (mcp_engine/server_import.py)."""

from __future__ import annotations

from typing import Any

from desktop_agent.mcp_engine import servers_file as sf
from desktop_agent.mcp_engine.server_import import apply_import, changes, preview_import

NOTES = {"command": "npx", "args": ["-y", "notes-server"]}
HERE: dict[str, Any] = {"mcpServers": {"notes": NOTES, "time": {"command": "uvx", "args": ["mcp-server-time"]}}}
CLAUDE: dict[str, Any] = {
    "notes": {"type": "stdio", "command": "npx", "args": ["-y", "notes-server"], "env": {}},  # as Claude writes it
    "time": {"command": "uvx", "args": ["mcp-server-time", "--local-timezone", "Asia/Shanghai"]},
    "brave search": {"command": "npx", "args": ["-y", "brave"]},
    "broken": {"args": ["x"]},
}


def test_each_server_says_what_importing_it_would_do() -> None:
    items = preview_import(HERE, CLAUDE)
    assert [(i.name, i.kind, i.target, i.existing, i.renamed_to) for i in items] == [
        ("notes", "same", "notes", "notes", None),
        ("time", "clash", "time", "time", "time-2"),
        ("brave search", "new", "brave-search", None, None),
        ("broken", "unusable", "broken", None, None),
    ]
    assert items[3].problem is not None and items[3].problem.code == "no_command_or_url"
    assert changes(items)


def test_an_identical_server_is_skipped_and_a_second_import_adds_nothing() -> None:
    doc, outcome = apply_import(HERE, preview_import(HERE, CLAUDE))
    assert list(sf.entries(doc)) == ["notes", "time", "time-2", "brave-search"]  # no notes-2
    assert outcome.added == ("time-2", "brave-search") and outcome.unchanged == ("notes",)
    assert outcome.renamed == (("time", "time-2"),) and outcome.fixed_names == (("brave search", "brave-search"),)
    again = preview_import(doc, CLAUDE)
    assert [i.kind for i in again] == ["same", "same", "same", "unusable"] and not changes(again)
    assert [i.existing for i in again[:3]] == ["notes", "time-2", "brave-search"]
    assert apply_import(doc, again)[0] == doc


def test_a_clash_is_replaced_or_skipped_as_chosen() -> None:
    items = preview_import(HERE, CLAUDE)
    replaced, outcome = apply_import(HERE, items, {"time": "replace"})
    assert list(sf.entries(replaced)) == ["notes", "time", "brave-search"]  # in its place
    assert sf.entries(replaced)["time"] == CLAUDE["time"] and outcome.replaced == ("time",)
    skipped, outcome = apply_import(HERE, items, {"time": "skip"})
    assert sf.entries(skipped)["time"] == HERE["mcpServers"]["time"] and outcome.declined == ("time",)
    assert outcome.added == ("brave-search",)


def test_the_same_server_under_another_name_or_switched_off_is_the_same() -> None:
    here = {"mcpServers": {"my-notes": {**NOTES, "disabled": True}}}
    (item,) = preview_import(here, {"notes": NOTES})
    assert (item.kind, item.existing) == ("same", "my-notes")
    assert not sf.same_server(NOTES, {**NOTES, "env": {"TOKEN": "x"}})
