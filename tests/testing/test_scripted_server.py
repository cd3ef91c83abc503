"""The scripted OpenAI-compatible server, checked on the wire and through the real SDK."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from desktop_agent.testing.scripted_server import (
    Reply,
    ScriptedLLMServer,
    ToolCallScript,
    text_reply,
    tool_reply,
)

REPO = Path(__file__).resolve().parents[2]
HI: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]


async def raw_stream(server: ScriptedLLMServer, **extra: Any) -> list[Any]:
    """POST a streamed request and return the parsed ``data:`` payloads."""
    body = {"model": "m", "messages": HI, "stream": True, **extra}
    events: list[Any] = []
    async with asyncio.timeout(5), httpx2.AsyncClient() as client:
        async with client.stream("POST", f"{server.base_url}/chat/completions", json=body) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    data = line[len("data: ") :]
                    events.append(data if data == "[DONE]" else json.loads(data))
    return events


def deltas(events: list[Any]) -> list[tuple[dict[str, Any], str | None]]:
    return [(e["choices"][0]["delta"], e["choices"][0]["finish_reason"]) for e in events if e != "[DONE]"]


async def test_streamed_text_reply_is_openai_chunks_ending_in_done() -> None:
    async with ScriptedLLMServer([text_reply("Hello world", chunk_size=5)], model="mx") as server:
        events = await raw_stream(server)
    assert events[-1] == "[DONE]"
    for event in events[:-1]:
        assert set(event) == {"id", "object", "created", "model", "choices"}
        assert event["object"] == "chat.completion.chunk"
        assert event["model"] == "mx"
        assert event["id"] == events[0]["id"]
        assert event["choices"][0]["index"] == 0
    assert deltas(events) == [
        ({"role": "assistant", "content": ""}, None),
        ({"content": "Hello"}, None),
        ({"content": " worl"}, None),
        ({"content": "d"}, None),
        ({}, "stop"),
    ]
    assert server.requests == [{"model": "m", "messages": HI, "stream": True}]


async def test_tool_calls_stream_a_header_then_argument_fragments() -> None:
    reply = Reply(
        text="ok",
        chunks=("o", "k"),
        tool_calls=(
            ToolCallScript("first", '{"a": 1}', chunks=2),
            ToolCallScript("second", "{}", id="fixed"),
        ),
    )
    async with ScriptedLLMServer([reply]) as server:
        events = await raw_stream(server)
    assert deltas(events) == [
        ({"role": "assistant", "content": ""}, None),
        ({"content": "o"}, None),
        ({"content": "k"}, None),
        (
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "first", "arguments": ""},
                    }
                ]
            },
            None,
        ),
        ({"tool_calls": [{"index": 0, "function": {"arguments": '{"a"'}}]}, None),
        ({"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}, None),
        (
            {
                "tool_calls": [
                    {
                        "index": 1,
                        "id": "fixed",
                        "type": "function",
                        "function": {"name": "second", "arguments": ""},
                    }
                ]
            },
            None,
        ),
        ({"tool_calls": [{"index": 1, "function": {"arguments": "{"}}]}, None),
        ({"tool_calls": [{"index": 1, "function": {"arguments": "}"}}]}, None),
        ({}, "tool_calls"),
    ]


async def test_tool_call_scripted_without_id_carries_no_id_key() -> None:
    reply = Reply(tool_calls=(ToolCallScript("f", "{}", id=None, chunks=1),))
    async with ScriptedLLMServer([reply]) as server:
        events = await raw_stream(server)
    head = deltas(events)[1][0]["tool_calls"][0]
    assert head == {"index": 0, "type": "function", "function": {"name": "f", "arguments": ""}}


async def test_auto_tool_call_ids_stay_unique_across_requests() -> None:
    script = [tool_reply("f", {"x": 1}), tool_reply("f", {"x": 2})]
    async with ScriptedLLMServer(script) as server:
        first = await raw_stream(server)
        second = await raw_stream(server)
    ids = [deltas(ev)[1][0]["tool_calls"][0]["id"] for ev in (first, second)]
    assert ids == ["call_1", "call_2"]


async def test_usage_chunk_with_no_choices_comes_before_done_when_asked() -> None:
    async with ScriptedLLMServer([text_reply("abcdefgh")]) as server:
        events = await raw_stream(server, stream_options={"include_usage": True})
    usage_chunk = events[-2]
    assert usage_chunk["choices"] == []
    assert set(usage_chunk["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    assert usage_chunk["usage"]["completion_tokens"] == 2
    assert all(e["usage"] is None for e in events[:-2])


async def test_script_exhausted_answers_500_with_a_clear_message() -> None:
    async with ScriptedLLMServer([text_reply("one")]) as server, httpx2.AsyncClient() as client:
        url = f"{server.base_url}/chat/completions"
        async with asyncio.timeout(5):
            ok = await client.post(url, json={"model": "m", "messages": HI})
            extra = await client.post(url, json={"model": "m", "messages": HI})
    assert ok.status_code == 200
    assert extra.status_code == 500
    assert extra.json() == {
        "error": {
            "message": "script exhausted: request #2 but the script has 1 replies",
            "type": "server_error",
            "code": "server_error",
        }
    }


@pytest.mark.parametrize(
    ("status", "kind", "code"),
    [
        (401, "invalid_request_error", "invalid_api_key"),
        (429, "requests", "rate_limit_exceeded"),
        (503, "server_error", "server_error"),
    ],
)
async def test_status_reply_sends_an_openai_error_body(status: int, kind: str, code: str) -> None:
    async with ScriptedLLMServer([Reply(status=status, error_message="nope")]) as server:
        async with asyncio.timeout(5), httpx2.AsyncClient() as client:
            response = await client.post(
                f"{server.base_url}/chat/completions", json={"messages": HI, "stream": True}
            )
    assert response.status_code == status
    assert response.json() == {"error": {"message": "nope", "type": kind, "code": code}}


async def test_drop_after_cuts_the_body_after_that_many_content_deltas() -> None:
    got: list[str] = []
    async with ScriptedLLMServer([text_reply("abcdef", chunk_size=1, drop_after=2)]) as server:
        with pytest.raises(httpx2.RemoteProtocolError):
            await raw_stream_into(server, got)
    assert got == ["", "a", "b"]


async def raw_stream_into(server: ScriptedLLMServer, got: list[str]) -> None:
    async with asyncio.timeout(5), httpx2.AsyncClient() as client:
        body = {"messages": HI, "stream": True}
        async with client.stream("POST", f"{server.base_url}/chat/completions", json=body) as response:
            async for line in response.aiter_lines():
                if line.startswith("data: {"):
                    got.append(json.loads(line[6:])["choices"][0]["delta"]["content"])


async def test_non_streamed_request_gets_a_whole_completion() -> None:
    async with ScriptedLLMServer([tool_reply("f", {"a": 1}, text="calling")]) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0, timeout=5)
        async with asyncio.timeout(5):
            completion = await client.chat.completions.create(model="m", messages=HI)
            await client.close()
    message = completion.choices[0].message
    assert (message.content, completion.choices[0].finish_reason) == ("calling", "tool_calls")
    assert [
        (c.id, c.function.name, c.function.arguments)
        for c in message.tool_calls or []
        if c.type == "function"
    ] == [("call_1", "f", '{"a": 1}')]


async def test_sdk_streams_several_requests_over_one_kept_alive_connection() -> None:
    script = [text_reply("first"), text_reply("second"), text_reply("third")]
    async with ScriptedLLMServer(script) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="k", max_retries=0, timeout=5)
        texts = []
        async with asyncio.timeout(10):
            for _ in script:
                stream = await client.chat.completions.create(model="m", messages=HI, stream=True)
                texts.append("".join([c.choices[0].delta.content or "" async for c in stream if c.choices]))
            await client.close()
        assert texts == ["first", "second", "third"]
        assert server.connections_opened == 1


async def test_function_script_sees_each_request_body() -> None:
    def echo(request: dict[str, Any]) -> Reply:
        return text_reply(request["messages"][-1]["content"].upper())

    async with ScriptedLLMServer(echo) as server:
        events = await raw_stream(server)
    assert "".join(d.get("content", "") for d, _ in deltas(events)) == "HI"


async def test_set_script_replaces_the_script_and_starts_from_its_first_reply() -> None:
    async with ScriptedLLMServer([text_reply("old")]) as server:
        await raw_stream(server)
        server.set_script([text_reply("new")])
        events = await raw_stream(server)
    assert "".join(d.get("content", "") for d, _ in deltas(events)) == "new"
    assert len(server.requests) == 2


async def test_aclose_drops_a_hanging_stream_so_the_client_is_released() -> None:
    server = ScriptedLLMServer([Reply(hang=True)])
    await server.start()
    async with asyncio.timeout(5), httpx2.AsyncClient() as client:
        body = {"messages": HI, "stream": True}
        async with client.stream("POST", f"{server.base_url}/chat/completions", json=body) as response:
            assert response.status_code == 200
            await server.aclose()
            with pytest.raises(httpx2.RemoteProtocolError):
                await response.aread()


async def test_aclose_cuts_a_paced_stream_that_is_sleeping_between_deltas() -> None:
    server = ScriptedLLMServer([text_reply("ab", chunk_size=1, delay_s=3600)])
    await server.start()
    got: list[str] = []
    async with asyncio.timeout(5), httpx2.AsyncClient() as client:
        body = {"messages": HI, "stream": True}
        async with client.stream("POST", f"{server.base_url}/chat/completions", json=body) as response:
            lines = response.aiter_lines()
            got.append(await anext(lines))
            await server.aclose()
            with pytest.raises(httpx2.RemoteProtocolError):
                async for line in lines:
                    got.append(line)
    assert [line for line in got if line] == [got[0]]
    assert json.loads(got[0][len("data: ") :])["choices"][0]["delta"] == {"role": "assistant", "content": ""}


async def test_unknown_route_is_a_404_json_error() -> None:
    async with ScriptedLLMServer([]) as server, asyncio.timeout(5), httpx2.AsyncClient() as client:
        response = await client.post(f"{server.base_url}/embeddings", json={})
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "no route for POST /v1/embeddings"
    assert server.requests == []


async def test_subprocess_form_prints_ready_and_answers_the_sdk(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(
        json.dumps([{"text": "from a file", "tool_calls": [{"name": "f", "arguments": "{}", "chunks": 1}]}])
    )
    log = tmp_path / "requests.jsonl"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop_agent.testing.scripted_server",
        "--script", str(script), "--requests-jsonl", str(log),
        cwd=REPO, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        async with asyncio.timeout(30):
            assert proc.stdout is not None
            ready = (await proc.stdout.readline()).decode().split()
            assert ready[0] == "READY" and ready[1].startswith("http://127.0.0.1:")
            client = openai.AsyncOpenAI(base_url=ready[1], api_key="k", max_retries=0, timeout=5)
            stream = await client.chat.completions.create(model="m", messages=HI, stream=True)
            chunks = [c async for c in stream if c.choices]
            await client.close()
    finally:
        if proc.returncode is None:
            proc.terminate()
        async with asyncio.timeout(10):
            await proc.wait()
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "from a file"
    assert [c.choices[0].finish_reason for c in chunks][-1] == "tool_calls"
    assert [json.loads(line)["messages"] for line in log.read_text().splitlines()] == [HI]
    assert proc.returncode == 0


async def test_subprocess_form_rejects_an_unknown_reply_key_in_one_line(tmp_path: Path) -> None:
    script = tmp_path / "replies.json"
    script.write_text(json.dumps([{"txt": "typo"}]))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "desktop_agent.testing.scripted_server", "--script", str(script),
        cwd=REPO, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with asyncio.timeout(30):
        out, err = await proc.communicate()
    assert proc.returncode == 2
    assert out == b""
    lines = err.decode().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        f"scripted_server: cannot load {script}: reply #1 has unknown key 'txt' (known: "
    )
