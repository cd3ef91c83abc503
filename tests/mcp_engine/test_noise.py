"""A server's stdout lines that are not MCP: one warning, rate-limited per
server, instead of the SDK's traceback per line; the calls go on."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

import pytest

from desktop_agent.core.notice import Notice
from desktop_agent.mcp_engine import ServerConfig
from desktop_agent.mcp_engine.connection import ServerConnection
from desktop_agent.mcp_engine.noise import SDK_PARSE_FAILURE, SDK_STDIO_LOGGER, ServerNoise, StdoutNoise
from desktop_agent.testing import noisy_mcp_server
from desktop_agent.testing.fake_clock import FakeClock
from desktop_agent.texts import text_in

NOISY_SERVER = Path(noisy_mcp_server.__file__)


def test_the_first_line_is_said_at_once_and_later_ones_at_most_once_a_minute_with_their_count() -> None:
    clock = FakeClock()
    said: list[Notice] = []
    noise = StdoutNoise("files", said.append, clock=clock.time)
    for _ in range(3):
        noise.saw()
    clock.advance(59)
    noise.saw()
    clock.advance(1)
    noise.saw()
    noise.saw()
    clock.advance(60)
    noise.saw()
    assert [str(n) for n in said] == [
        'mcp server "files" wrote a line that is not MCP (JSON-RPC) to its standard output; such lines are ignored',
        'mcp server "files" wrote 4 more lines that are not MCP (JSON-RPC) to its standard output; they were ignored',
        'mcp server "files" wrote 2 more lines that are not MCP (JSON-RPC) to its standard output; they were ignored',
    ]
    assert noise.lines == 7


def test_each_server_has_one_counter_for_all_its_connections() -> None:
    said: list[Notice] = []
    noise = ServerNoise(said.append)
    assert noise("a") is noise("a") and noise("a") is not noise("b")
    noise("a").saw()
    noise("a").saw()
    noise("b").saw()
    assert [n.fields["server"] for n in said] == ["a", "b"]


@pytest.mark.parametrize("count", [None, 12])
def test_the_warnings_are_worded_in_both_languages_as_their_english_line(count: int | None) -> None:
    said: list[Notice] = []
    clock = FakeClock()
    noise = StdoutNoise("files", said.append, clock=clock.time)
    noise.saw()
    if count is not None:
        for _ in range(count - 1):
            noise.saw()
        clock.advance(60)
        noise.saw()
    notice = said[-1]
    assert text_in("en", notice.key, **notice.fields) == str(notice)
    chinese = text_in("zh", notice.key, **notice.fields)
    assert "“files”" in chinese and (count is None or str(count) in chinese)


async def test_a_noisy_server_answers_its_calls_and_the_sdk_logs_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    said: list[Notice] = []
    noise = StdoutNoise("noisy", said.append)
    connection = ServerConnection(ServerConfig(name="noisy", command=sys.executable, args=(str(NOISY_SERVER),)),
                                  noise=noise)
    caplog.set_level(logging.DEBUG, logger=SDK_STDIO_LOGGER)
    try:
        first = await connection.call("echo", {"text": "one"}, lambda *_: None)
        second = await connection.call("echo", {"text": "two"}, lambda *_: None)
    finally:
        await connection.aclose()
    assert [first.content[0].text, second.content[0].text] == ["echo says one", "echo says two"]  # type: ignore[union-attr]
    assert [str(n) for n in said] == [
        'mcp server "noisy" wrote a line that is not MCP (JSON-RPC) to its standard output; such lines are ignored'
    ]
    assert noise.lines == 6  # two at the start, two in each call
    assert [r.getMessage() for r in caplog.records if r.name == SDK_STDIO_LOGGER and r.msg == SDK_PARSE_FAILURE] == []


def test_the_filter_drops_only_the_sdks_parse_failure() -> None:
    from desktop_agent.mcp_engine.noise import quiet_sdk_parse_errors

    quiet_sdk_parse_errors()
    quiet_sdk_parse_errors()
    logger = logging.getLogger(SDK_STDIO_LOGGER)
    assert len(logger.filters) == 1
    kept = logging.LogRecord(SDK_STDIO_LOGGER, logging.ERROR, __file__, 1, "something else failed", None, None)
    dropped = logging.LogRecord(SDK_STDIO_LOGGER, logging.ERROR, __file__, 1, SDK_PARSE_FAILURE, None, None)
    assert [logger.filter(kept), bool(logger.filter(dropped))] == [True, False]
