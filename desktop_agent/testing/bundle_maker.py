"""Real ``.mcpb`` bundles for tests: a tiny Python MCP server (the mcp
SDK's ``MCPServer``) whose tools read the settings the manifest passes it
through its environment, zipped with a manifest the way ``mcpb pack`` does."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

SERVER = '''\
import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("greeter")


@server.tool()
def greet(name: str) -> str:
    """Greet someone with the configured greeting."""
    return f"{os.environ['GREETING']}, {name}! (token of {len(os.environ.get('API_TOKEN', ''))} characters)"


if __name__ == "__main__":
    server.run("stdio")
'''


def manifest(**changes: Any) -> dict[str, Any]:
    """A valid manifest for :data:`SERVER`; ``changes`` replace top-level keys."""
    data: dict[str, Any] = {
        "manifest_version": "0.3",
        "name": "greeter",
        "display_name": "Greeter",
        "version": "1.2.0",
        "description": "Greets people politely.",
        "author": {"name": "Ada Lovelace", "email": "ada@example.org"},
        "server": {
            "type": "python",
            "entry_point": "server/main.py",
            "mcp_config": {
                "command": "python3",
                "args": ["${__dirname}/server/main.py"],
                "env": {"GREETING": "${user_config.greeting}", "API_TOKEN": "${user_config.api_token}"},
            },
        },
        "tools": [{"name": "greet", "description": "Greet someone"}],
        "user_config": {
            "greeting": {"type": "string", "title": "Greeting", "description": "How to say hello",
                         "default": "Hello", "required": True},
            "api_token": {"type": "string", "title": "API token", "description": "Kept in the keyring",
                          "sensitive": True, "required": True},
            "loud": {"type": "boolean", "title": "Shout", "default": False},
        },
    }
    data.update(changes)
    return data


def make_bundle(path: Path, data: dict[str, Any] | str | None = None, *, extra: dict[str, bytes] | None = None) -> Path:
    """Write a bundle at ``path``: ``data`` as manifest.json (a string as is;
    None: :func:`manifest`), the server, and ``extra`` members by name."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        text = data if isinstance(data, str) else json.dumps(manifest() if data is None else data)
        archive.writestr("manifest.json", text)
        archive.writestr("server/main.py", SERVER)
        for name, content in (extra or {}).items():
            archive.writestr(name, content)
    return path
