"""Editing the MCP servers file keeps what it does not show and writes atomically."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from desktop_agent.mcp_engine import servers_file as sf
from desktop_agent.mcp_engine.config import load_mcp_config
from desktop_agent.mcp_engine.config_errors import McpConfigError

DOC = {
    "mcpServers": {
        "time": {"command": "uvx", "args": ["mcp-server-time"], "timeout_s": 5, "autoApprove": ["x"]},
        "web": {"url": "https://example.com/mcp", "disabled": True},
    },
    "max_sandboxes": 2,
}


def test_edits_keep_order_and_unknown_keys() -> None:
    doc = sf.with_entry(DOC, "clock", {"command": "uvx", "args": ["other"], "timeout_s": 5}, old_name="time")
    assert list(sf.entries(doc)) == ["clock", "web"]
    assert doc["max_sandboxes"] == 2
    doc = sf.without_entry(doc, "web")
    assert sf.entries(doc) == {"clock": {"command": "uvx", "args": ["other"], "timeout_s": 5}}
    assert list(sf.entries(DOC)) == ["time", "web"]  # the original is untouched


def test_enabling_uses_the_key_the_entry_already_has() -> None:
    doc = sf.with_enabled(DOC, "web", True)
    assert sf.entries(doc)["web"] == {"url": "https://example.com/mcp", "disabled": False}
    doc = sf.with_enabled(doc, "time", False)
    assert sf.entries(doc)["time"]["enabled"] is False and not sf.is_enabled(sf.entries(doc)["time"])
    assert "enabled" not in sf.entries(sf.with_enabled(doc, "time", True))["time"]


def test_import_merges_skipping_the_same_entry_and_renaming_a_clash() -> None:
    imported: dict[str, dict[str, Any]] = {
        "time": {"command": "uvx", "args": ["mcp-server-time"], "timeout_s": 5, "autoApprove": ["x"]},
        "web": {"url": "https://other.example/mcp"},
        "files": {"command": "npx", "args": ["-y", "server-filesystem"]},
    }
    doc, added, renamed = sf.merge(DOC, imported)
    assert (added, renamed) == (["web-2", "files"], [("web", "web-2")])
    assert list(sf.entries(doc)) == ["time", "web", "web-2", "files"]


def test_write_validates_then_replaces_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mcp_servers.json"
    sf.write_document(path, DOC)
    assert json.loads(path.read_text(encoding="utf-8")) == DOC
    assert [s.name for s in load_mcp_config(path).servers] == ["time", "web"]
    with pytest.raises(McpConfigError, match='"command" is required'):
        sf.write_document(path, {"mcpServers": {"broken": {"args": ["x"]}}})
    assert json.loads(path.read_text(encoding="utf-8")) == DOC  # the old file stays
    assert [p.name for p in tmp_path.iterdir()] == ["mcp_servers.json"]  # no temp file left


def test_a_claude_desktop_file_is_read_for_import(tmp_path: Path) -> None:
    path = tmp_path / "claude_desktop_config.json"
    path.write_text(json.dumps({"mcpServers": {"fs": {"command": "npx"}}, "globalShortcut": "x"}), encoding="utf-8")
    assert sf.read_import(path) == {"fs": {"command": "npx"}}
    (tmp_path / "empty.json").write_text("{}", encoding="utf-8")
    with pytest.raises(McpConfigError, match="no"):
        sf.read_import(tmp_path / "empty.json")
