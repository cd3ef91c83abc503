"""Fault matrix, the rows about what comes in from the user and
the server: a prompt that is not UTF-8, every way a stream fails, hostile
tool calls, and a command that prints the API key. The rows of a test run
at once; each asserts the exit status, at most one line on standard error
and no traceback, a well-formed history and nothing left running."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_agent.testing.scripted_replies import ToolCallScript
from desktop_agent.testing.scripted_server import Reply, text_reply, tool_reply
from tests.faults.headless import API_KEY, PLAN, Row, run_rows, script

pytestmark = pytest.mark.integration

NOT_UTF8 = b"hello \xff\xfe"
WRONG_SHAPE = '{"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": "oops"}'
IN_STREAM_ERROR = '{"error": {"message": "the model is overloaded", "type": "server_error"}}'


def _calls(*calls: ToolCallScript) -> Reply:
    return Reply(tool_calls=calls)


async def test_the_stream_faults_are_one_line_each(tmp_path: Path) -> None:
    ok = text_reply("<voice>Fine.</voice><no_tool>")
    rows = [
        Row("wrong_shape", script(then=Reply(text="x", raw_events=(WRONG_SHAPE,)))),
        Row("in_stream_error", script(then=Reply(text="x", raw_events=(IN_STREAM_ERROR,)))),
        Row("drop_before_reply", script(then=Reply(text="never sent", drop_after=0))),
        Row("drop_mid_reply", script(Reply(text="<voice>Half a sent", chunk_size=2, drop_after=3))),
        Row("429_once", script(Reply(status=429, error_message="slow down"), ok)),
        Row("429_always", script(then=Reply(status=429, error_message="slow down"))),
        Row("500_once", script(Reply(status=500, error_message="oops"), ok)),
        Row("500_always", script(then=Reply(status=500, error_message="oops"))),
        Row("connection_refused", script(), refused=True),
    ]
    results = await run_rows(tmp_path, rows)

    for name in ("wrong_shape", "in_stream_error", "drop_before_reply", "drop_mid_reply", "429_always",
                 "500_always", "connection_refused"):
        result = results[name]
        result.check(1)
        assert len(result.lines()) == 1 and result.lines()[0].startswith("error: "), name
        assert result.types()[-1] == "turn_end", name
    assert "wrong shape" in results["wrong_shape"].stderr
    assert "the model is overloaded" in results["in_stream_error"].stderr
    assert "cut off mid-reply" in results["drop_mid_reply"].stderr
    assert "rate limited" in results["429_always"].stderr
    assert "cannot reach" in results["connection_refused"].stderr
    for name in ("429_once", "500_once"):
        results[name].check(0, lines=0)
        history = results[name].history()
        assert history[0]["role"] == "user" and history[-1]["role"] == "assistant", name
    # The half reply is kept for the next turn; the user's message always is.
    assert results["drop_mid_reply"].history()[0] == {"role": "user", "content": "x"}


async def test_hostile_tool_calls_become_error_results(tmp_path: Path) -> None:
    deep = "[" * 3000 + "]" * 3000
    rows = [
        Row("invalid_arguments", script(PLAN, _calls(ToolCallScript("run_command", '{"command": "echo'))),),
        Row("unknown_tool", script(PLAN, tool_reply("no_such_tool", {"x": 1}))),
        Row("deep_nesting", script(PLAN, _calls(ToolCallScript("run_command", deep)))),
        Row("deep_object", script(PLAN, _calls(ToolCallScript("run_command", '{"a": ' * 2500 + "1" + "}" * 2500)))),
        Row("duplicate_ids", script(PLAN, _calls(
            ToolCallScript("run_command", '{"command": "echo first-of-two"}', id="dup"),
            ToolCallScript("run_command", '{"command": "echo second-of-two"}', id="dup")))),
        Row("no_ids", script(PLAN, _calls(
            ToolCallScript("run_command", '{"command": "echo no-id-1"}', id=None),
            ToolCallScript("run_command", '{"command": "echo no-id-2"}', id=None)))),
    ]
    results = await run_rows(tmp_path, rows)
    for result in results.values():
        result.check(0, lines=0)
        assert result.types()[-1] == "turn_end", result.row.name

    for name, words in (("invalid_arguments", "not valid JSON"), ("unknown_tool", "unknown tool 'no_such_tool'"),
                        ("deep_nesting", "nested too deeply"), ("deep_object", "nested too deeply")):
        answers = [m for m in results[name].history() if m["role"] == "tool"]
        assert len(answers) == 1 and words in answers[0]["content"], (name, answers)
        # The next request carries the error back to the model, and the wire
        # form of the deep arguments is plain JSON a server can parse.
        last = results[name].requests[-1]["messages"]
        assert any(m.get("role") == "tool" and words in str(m.get("content")) for m in last), name

    for name, outputs in (("duplicate_ids", ("first-of-two", "second-of-two")), ("no_ids", ("no-id-1", "no-id-2"))):
        result = results[name]
        history = result.history()
        calls = [c["id"] for m in history if m.get("tool_calls") for c in m["tool_calls"]]
        answers = [m for m in history if m["role"] == "tool"]
        assert len(calls) == 2 and len(set(calls)) == 2, (name, calls)
        assert [a["tool_call_id"] for a in answers] == calls, name
        assert [o in a["content"] for a, o in zip(answers, outputs, strict=True)] == [True, True], name
        sent = [c["id"] for m in result.requests[-1]["messages"] if m.get("tool_calls") for c in m["tool_calls"]]
        assert len(sent) == 2 and len(set(sent)) == 2, (name, sent)
    assert results["duplicate_ids"].history()[2]["tool_calls"][0]["id"] == "dup"  # the first keeps its id


async def test_a_prompt_that_is_not_utf8_is_cleaned_where_it_comes_in(tmp_path: Path) -> None:
    import os

    rows = [
        Row("argv", script(), extra=("--prompt", os.fsdecode(NOT_UTF8))),
        Row("stdin", script(), extra=(), stdin=NOT_UTF8 + b"\nclean line\n"),
    ]
    results = await run_rows(tmp_path, rows)

    argv = results["argv"]
    argv.check(0)
    assert argv.lines() == ["note: the message had bytes that are not UTF-8; each was replaced with \ufffd"]
    assert argv.history()[0] == {"role": "user", "content": "hello \ufffd\ufffd"}
    assert argv.requests[0]["messages"][-1]["content"].startswith("hello \ufffd\ufffd")

    stdin = results["stdin"]
    stdin.check(0)
    users = [m["content"] for m in stdin.history() if m["role"] == "user"]
    assert users == ["hello \ufffd\ufffd", "clean line"]
    assert "error" not in stdin.stderr


async def test_a_command_never_sees_or_repeats_the_api_key(tmp_path: Path) -> None:
    # The model does not know the key: the command reads it from a file.
    key_file = tmp_path / "secret" / "home" / "key.txt"
    command = f"env; printf 'key-is-%s-end\\n' \"$(cat {key_file})\""
    rows = [Row("secret", script(PLAN, tool_reply("run_command", {"command": command})),
                env={"OPENAI_API_KEY": "sk-from-the-environment-42"}, files={"key.txt": API_KEY.encode()})]
    result = (await run_rows(tmp_path, rows))["secret"]
    result.check(0, lines=0)

    events = json.dumps(result.events())
    history = json.dumps(result.history())
    request = json.dumps(result.requests[-1])
    for where, text in (("events", events), ("history", history), ("next request", request)):
        assert "OPENAI_API_KEY" not in text, where
        assert "sk-from-the-environment-42" not in text, where
        assert "key-is-[redacted]-end" in text, where
    # The key itself went out once per request, as the Authorization header
    # only: never inside a body.
    assert all(API_KEY not in json.dumps(r) for r in result.requests)
    assert API_KEY not in events and API_KEY not in history
    assert "HOME=" in history  # the rest of the environment is still there

