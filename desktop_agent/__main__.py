"""``python -m desktop_agent`` / ``desktop-agent``: the window, or with
``--cli`` the headless mode (contracts §10)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--mcp-server-time"]:
        # The default MCP server, run by a frozen bundle's own executable.
        import asyncio

        from mcp_server_time.server import serve

        asyncio.run(serve(None))
        return 0
    from desktop_agent.options import build_parser

    args = build_parser().parse_args(argv)
    args.argv = argv  # what a second window hands the first (desktop_agent.ui.shell.single_instance)
    if args.self_test:
        from desktop_agent.self_test import run

        return run(args)
    if args.cli:
        from desktop_agent.cli import main as cli_main

        return cli_main(args)
    from desktop_agent.app import run_gui

    return run_gui(args)


if __name__ == "__main__":
    sys.exit(main())
