"""TerminalIO: an abandoned question does not lose the user's next line."""

from __future__ import annotations

import asyncio
import io
import os

from desktop_agent.cli import TerminalIO


async def test_a_cancelled_question_leaves_the_next_line_to_the_next_question() -> None:
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "r") as stdin, os.fdopen(write_fd, "w") as feed:
        terminal = TerminalIO(stdin, io.StringIO())
        first = asyncio.ensure_future(terminal.ask("Approve? "))
        await asyncio.sleep(0)
        first.cancel()  # the approval timed out while the user was typing
        feed.write("hello\n")
        feed.flush()
        async with asyncio.timeout(5):
            assert await terminal.ask("you> ") == "hello"
        feed.close()
        async with asyncio.timeout(5):
            assert await terminal.ask("you> ") is None
        assert terminal.eof
