"""A stdio MCP server that writes lines that are not JSON-RPC to its
standard output: two before it answers anything, and two before each tool
result (``python noisy_mcp_server.py [MARKER]``).

Written without the mcp SDK on purpose: the SDK's own server diverts file
descriptor 1 away from the wire, so its tools cannot reach it, but servers
in other languages and hand-written ones (a stray ``print``,
``console.log``) do. It serves one tool, ``echo(text)``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

NOISE = "Server starting... (this is not JSON-RPC)\ndebug: {not json either\n"
TOOLS = [
    {
        "name": "echo",
        "description": "Say the text back, after some noise.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    }
]


def answer(request: dict[str, Any]) -> dict[str, Any] | None:
    """The result of one request; None for a notification."""
    method, params = request.get("method"), request.get("params") or {}
    if "id" not in request:
        return None
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": params.get("protocolVersion", "2025-06-18"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "noisy", "version": "1.0"},
        }
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call":
        say(NOISE)
        text = (params.get("arguments") or {}).get("text", "")
        result = {"content": [{"type": "text", "text": f"echo says {text}"}], "isError": False}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": f"no method {method}"}}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def say(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


def main() -> None:
    say(NOISE)
    for line in sys.stdin:
        if not line.strip():
            continue
        reply = answer(json.loads(line))
        if reply is not None:
            say(json.dumps(reply) + "\n")


if __name__ == "__main__":
    main()
