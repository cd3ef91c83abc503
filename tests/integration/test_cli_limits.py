"""``--max-tokens`` and ``--request-timeout`` in the headless mode
(contracts §10, §2a): a bad value is one line naming the flag; a good one
reaches the request; a reply cut at the limit is said."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop_agent.testing.headless_run import read_jsonl, run_cli
from desktop_agent.testing.scripted_server import Reply, ScriptedLLMServer, text_reply

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    ("flag", "value", "said"),
    [
        ("--max-tokens", "0", "argument --max-tokens: must be a whole number from 1 to 1000000: '0'"),
        ("--max-tokens", "-3", "argument --max-tokens: must be a whole number from 1 to 1000000: '-3'"),
        ("--max-tokens", "lots", "argument --max-tokens: not an integer: 'lots'"),
        ("--request-timeout", "0", "argument --request-timeout: must be a finite number of seconds, above 0"),
        ("--request-timeout", "nan", "argument --request-timeout: must be a finite number of seconds, above 0"),
    ],
)
async def test_a_bad_value_is_one_line_naming_the_flag(tmp_path: Path, flag: str, value: str, said: str) -> None:
    code, err = await run_cli(tmp_path, "--model", "demo", "--prompt", "hi", f"{flag}={value}")
    assert code == 2
    assert err.splitlines()[-1].startswith(f"desktop-agent: error: {said}")


async def test_the_limit_reaches_every_request_and_a_cut_reply_is_said(tmp_path: Path) -> None:
    script = [text_reply("Sure.<no_tool>"), Reply(text="one two three", finish_reason="length")]
    events = tmp_path / "events.jsonl"
    async with ScriptedLLMServer(script) as server:
        code, err = await run_cli(
            tmp_path / "home", "--base-url", server.base_url, "--model", "scripted", "--api-key", "k",
            "--tts", "none", "--prompt", "count", "--max-tokens", "7", "--request-timeout", "30",
            "--events-jsonl", str(events),
        )
    assert code == 0, err
    assert [r["max_tokens"] for r in server.requests] == [7, 7]
    warnings = [e for e in read_jsonl(events) if e["type"] == "warning"]
    assert [(w["code"], w["message"].split(";")[0]) for w in warnings] == [
        ("max_tokens", "the reply was cut off at the reply length limit (max_tokens)")
    ]
    assert "warning: the reply was cut off at the reply length limit (max_tokens)" in err
