"""Small stdio MCP servers for tests and benchmarks, as ``mcpServers``
entries (parse them with ``parse_mcp_config``, or write them to a file).

- **silent** (:func:`silent_entry`): a process that starts and never
  answers, not even ``initialize`` (the server that used to keep the window
  on "Starting…").
- **gated** (:func:`gated_entry`, ``gated_mcp_server.py``): exits at once, a
  failed start, until its gate file exists; then serves ``greet`` and
  ``add_tool(name)``, which adds a tool and sends
  ``notifications/tools/list_changed``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

SILENT_CODE = "import sys; sys.stdin.read()"
"""Reads until the client closes its stdin, then exits; never writes a byte."""

GATED_SERVER = Path(__file__).resolve().with_name("gated_mcp_server.py")


def silent_entry() -> dict[str, Any]:
    """The ``mcpServers`` entry of a server that never answers."""
    return {"command": sys.executable, "args": ["-c", SILENT_CODE]}


def gated_entry(gate: Path) -> dict[str, Any]:
    """The ``mcpServers`` entry of a server that fails until ``gate`` exists."""
    return {"command": sys.executable, "args": [str(GATED_SERVER), str(gate)]}
