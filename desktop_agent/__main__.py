"""``python -m desktop_agent`` / ``desktop-agent``: the window, or with
``--cli`` the headless mode (contracts §10)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def build_parser() -> argparse.ArgumentParser:
    from desktop_agent.options import add_arguments

    parser = argparse.ArgumentParser(
        prog="desktop-agent",
        description="Desktop voice assistant for any OpenAI-compatible model, with MCP tools and approvals.",
    )
    parser.add_argument("--cli", action="store_true", help="run headless in the terminal (no window)")
    add_arguments(parser)
    gui = parser.add_argument_group("window options")
    gui.add_argument("--screenshot", metavar="PNG", help="save a screenshot of the window once shown")
    gui.add_argument("--quit-after-ms", type=int, metavar="MS", help="close the window after this many ms")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["--mcp-server-time"]:
        # The default MCP server, run by a frozen bundle's own executable.
        import asyncio

        from mcp_server_time.server import serve

        asyncio.run(serve(None))
        return 0
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
