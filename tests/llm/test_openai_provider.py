"""OpenAIProvider through the real openai SDK against the real scripted server."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import socket
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import pytest

from desktop_agent.core import prompts
from desktop_agent.core.ports import LLMDelta, LLMError, TextDelta, ToolCallDelta
from desktop_agent.core.wire import STRICT, WireProfile, normalize
from desktop_agent.llm.openai_provider import Endpoint, OpenAIProvider, resolve_endpoint
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.scripted_server import Reply, ScriptedLLMServer, ToolCallScript, text_reply
from desktop_agent.testing.strict_checks import alternating_roles, any_of, no_system_role, system_first
from desktop_agent.testing.wire_contract import wire_problems

HI = [{"role": "user", "content": "hi"}]
SECRET = "sk-test-SECRET-123456"


def make_provider(base_url: str, **kw: Any) -> OpenAIProvider:
    kw.setdefault("retry_base_delay_s", 0.0)
    kw.setdefault("timeout_s", 10.0)
    return OpenAIProvider(base_url=base_url, api_key=SECRET, model="m", **kw)


async def collect(provider: OpenAIProvider, **kw: Any) -> list[LLMDelta]:
    async with asyncio.timeout(10):
        try:
            return [d async for d in provider.stream(HI, **kw)]
        finally:
            await provider.aclose()


async def failure(provider: OpenAIProvider, got: list[LLMDelta] | None = None) -> LLMError:
    got = [] if got is None else got
    with pytest.raises(LLMError) as info:
        async with asyncio.timeout(10):
            try:
                async for delta in provider.stream(HI):
                    got.append(delta)
            finally:
                await provider.aclose()
    assert "\n" not in info.value.message
    assert SECRET not in info.value.message
    return info.value


@pytest.fixture
async def server() -> AsyncIterator[ScriptedLLMServer]:
    async with ScriptedLLMServer([]) as srv:
        yield srv


async def test_text_streams_as_text_deltas_that_join_to_the_reply(server: ScriptedLLMServer) -> None:
    server.set_script([text_reply("Hello, streaming world!", chunk_size=3)])
    got = await collect(make_provider(server.base_url))
    assert got == [TextDelta(p) for p in ("Hel", "lo,", " st", "rea", "min", "g w", "orl", "d!")]
    assert server.requests == [
        {"model": "m", "messages": HI, "stream": True, "stream_options": {"include_usage": True}, "max_tokens": 4096}
    ]


async def test_tools_are_sent_when_given(server: ScriptedLLMServer) -> None:
    server.set_script([text_reply("ok")])
    tools = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]
    await collect(make_provider(server.base_url), tools=tools)
    assert server.requests[0]["tools"] == tools


async def test_tool_call_arrives_as_header_then_argument_fragments(server: ScriptedLLMServer) -> None:
    reply = Reply(
        text="Let me look.", chunk_size=20, tool_calls=(ToolCallScript("search", '{"q": "x"}', chunks=3),)
    )
    server.set_script([reply])
    got = await collect(make_provider(server.base_url))
    assert got == [
        TextDelta("Let me look."),
        ToolCallDelta(0, "call_1", "search", ""),
        ToolCallDelta(0, None, None, '{"q"'),
        ToolCallDelta(0, None, None, ': "'),
        ToolCallDelta(0, None, None, 'x"}'),
    ]


async def test_two_tool_calls_keep_their_indexes(server: ScriptedLLMServer) -> None:
    calls = (
        ToolCallScript("a", "{}", id="id_a", chunks=1),
        ToolCallScript("b", '{"n":2}', id="id_b", chunks=1),
    )
    server.set_script([Reply(tool_calls=calls)])
    got = await collect(make_provider(server.base_url))
    assert got == [
        ToolCallDelta(0, "id_a", "a", ""),
        ToolCallDelta(0, None, None, "{}"),
        ToolCallDelta(1, "id_b", "b", ""),
        ToolCallDelta(1, None, None, '{"n":2}'),
    ]


async def test_tool_call_without_an_id_gets_one_the_first_time_its_index_is_seen(
    server: ScriptedLLMServer,
) -> None:
    calls = (ToolCallScript("a", "{}", id=None, chunks=1), ToolCallScript("b", "{}", id=None, chunks=1))
    server.set_script([Reply(tool_calls=calls)])
    got = await collect(make_provider(server.base_url))
    assert all(isinstance(d, ToolCallDelta) for d in got)
    ids = [d.id for d in got if isinstance(d, ToolCallDelta)]
    assert ids[1] is None and ids[3] is None
    assert re.fullmatch(r"call_0_[0-9a-f]{8}", ids[0] or "")
    assert re.fullmatch(r"call_1_[0-9a-f]{8}", ids[2] or "")


async def test_401_is_an_auth_error_without_retry(server: ScriptedLLMServer) -> None:
    server.set_script([Reply(status=401, error_message=f"Incorrect API key provided: {SECRET}")] * 3)
    error = await failure(make_provider(server.base_url))
    assert error.code == "auth"
    assert error.message == (
        f"401 Unauthorized from {server.base_url}: the API key was rejected "
        "(check the key in Settings or --api-key)"
    )
    assert len(server.requests) == 1


async def test_400_is_a_bad_request_naming_the_server_message_without_retry(
    server: ScriptedLLMServer,
) -> None:
    server.set_script([Reply(status=400, error_message=f"bad\nmessages for key {SECRET}")] * 3)
    error = await failure(make_provider(server.base_url))
    assert (error.code, len(server.requests)) == ("bad_request", 1)
    assert error.message == (
        f"400 Bad Request from {server.base_url}: the request was refused (bad messages for key ***)"
    )


async def test_500_then_success_is_retried_and_streams_the_reply(server: ScriptedLLMServer) -> None:
    server.set_script([Reply(status=500, error_message="boom"), text_reply("recovered")])
    got = await collect(make_provider(server.base_url))
    assert "".join(d.text for d in got if isinstance(d, TextDelta)) == "recovered"
    assert len(server.requests) == 2


async def test_429_on_every_attempt_gives_up_as_rate_limit_after_max_retries(
    server: ScriptedLLMServer,
) -> None:
    server.set_script([Reply(status=429, error_message="slow down")] * 5)
    error = await failure(make_provider(server.base_url, max_retries=1))
    assert error.code == "rate_limit"
    assert error.message == (
        f"429 Too Many Requests from {server.base_url}: rate limited (slow down); "
        "wait a moment and try again (gave up after 2 attempts)"
    )
    assert len(server.requests) == 2


async def test_429_with_retry_after_waits_that_long_then_succeeds() -> None:
    # The scripted server sends no Retry-After, so a tiny raw HTTP server does.
    arrivals: list[float] = []
    chunk = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}],
    }

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        length = re.search(rb"content-length: *(\d+)", head, re.IGNORECASE)
        await reader.readexactly(int(length.group(1)) if length else 0)
        arrivals.append(time.monotonic())
        if len(arrivals) == 1:
            body = json.dumps({"error": {"message": "slow down", "type": "rate_limit"}}).encode()
            writer.write(
                b"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\nConnection: close\r\n\r\n%b" % (len(body), body)
            )
        else:
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
                b"data: %b\n\ndata: [DONE]\n\n" % json.dumps(chunk).encode()
            )
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    async with server:
        port = server.sockets[0].getsockname()[1]
        got = await collect(make_provider(f"http://127.0.0.1:{port}/v1", max_retries=1))

    assert got == [TextDelta("ok")]
    assert len(arrivals) == 2
    assert arrivals[1] - arrivals[0] >= 0.9  # the SDK's own backoff would be at most 0.5 s


async def test_a_500_with_no_retries_left_is_a_server_error_after_one_attempt(server: ScriptedLLMServer) -> None:
    server.set_script([Reply(status=500, error_message="boom")] * 2)
    error = await failure(make_provider(server.base_url, max_retries=0))
    assert (error.code, len(server.requests)) == ("server", 1)
    assert error.message == (
        f"500 Internal Server Error from {server.base_url}: the server failed (boom); try again later"
    )


async def test_drop_before_any_token_is_retried(server: ScriptedLLMServer) -> None:
    server.set_script([text_reply("lost", drop_after=0), text_reply("second try")])
    got = await collect(make_provider(server.base_url))
    assert "".join(d.text for d in got if isinstance(d, TextDelta)) == "second try"
    assert len(server.requests) == 2


async def test_drops_before_any_token_share_the_retry_budget(server: ScriptedLLMServer) -> None:
    server.set_script([text_reply("lost", drop_after=0)] * 4)
    error = await failure(make_provider(server.base_url, max_retries=2))
    assert error.code == "connection"
    assert error.message.endswith("(gave up after 3 attempts)")
    assert len(server.requests) == 3


async def test_drop_after_the_first_token_is_stream_dropped_and_never_retried(
    server: ScriptedLLMServer,
) -> None:
    server.set_script([text_reply("abcdef", chunk_size=2, drop_after=1), text_reply("must not be used")])
    got: list[LLMDelta] = []
    error = await failure(make_provider(server.base_url), got)
    assert got == [TextDelta("ab")]
    assert error.code == "stream_dropped"
    assert error.message.startswith(f"the stream from {server.base_url} was cut off mid-reply (")
    assert len(server.requests) == 1


async def test_unreachable_endpoint_is_a_one_line_connection_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    error = await failure(make_provider(url, max_retries=1))
    assert error.code == "connection"
    assert error.message == f"cannot reach {url}: connection refused (gave up after 2 attempts)"


async def test_a_stream_that_stalls_past_the_timeout_is_a_connection_error(server: ScriptedLLMServer) -> None:
    server.set_script([Reply(hang=True)])
    error = await failure(make_provider(server.base_url, max_retries=0, timeout_s=0.2))
    assert error.code == "connection"
    assert error.message == f"timed out after 0.2s waiting for {server.base_url}"


async def test_stopping_early_releases_the_connection_for_the_next_stream(server: ScriptedLLMServer) -> None:
    server.set_script([text_reply("abcdefgh", chunk_size=1), text_reply("next")])
    provider = make_provider(server.base_url)
    async with asyncio.timeout(10):
        stream = provider.stream(HI)
        assert isinstance(stream, AsyncGenerator)
        first = await anext(stream)
        await stream.aclose()
        rest = [d async for d in provider.stream(HI)]
        await provider.aclose()
    assert (first, rest) == (TextDelta("a"), [TextDelta("next")])


def test_provider_reports_model_and_is_not_demo() -> None:
    provider = OpenAIProvider(base_url="http://127.0.0.1:1/v1", api_key="", model="qwen")
    assert (provider.model, provider.is_demo) == ("qwen", False)


def test_provider_without_a_model_is_a_config_error() -> None:
    with pytest.raises(LLMError, match=r"^no model name: set --model or the model in Settings$") as info:
        OpenAIProvider(base_url="http://127.0.0.1:1/v1", api_key="", model=" ")
    assert info.value.code == "config"


# ------------------------------------------------------------------ resolve_endpoint

ENV = {"OPENAI_BASE_URL": "http://env/v1", "OPENAI_API_KEY": "env-key"}


@pytest.mark.parametrize(
    ("settings", "cli", "env", "expected"),
    [
        (("", "", None), (None, None, None), {}, None),
        (("", "m", "k"), (None, None, None), {}, None),
        (("", "m", None), (None, None, None), ENV, Endpoint("http://env/v1", "m", "env-key")),
        (("http://set/v1", "sm", "sk"), (None, None, None), ENV, Endpoint("http://set/v1", "sm", "sk")),
        (("http://set/v1", "sm", None), (None, None, None), ENV, Endpoint("http://set/v1", "sm", "env-key")),
        (
            ("http://set/v1", "sm", "sk"),
            ("http://cli/v1", "cm", "ck"),
            ENV,
            Endpoint("http://cli/v1", "cm", "ck"),
        ),
        (("http://set/v1", "sm", "sk"), (None, "cm", None), {}, Endpoint("http://set/v1", "cm", "sk")),
        (("", "", None), ("http://cli/v1", "cm", None), {}, Endpoint("http://cli/v1", "cm", "")),
        (("http://set/v1", "sm", "sk"), ("", "", ""), {}, Endpoint("http://set/v1", "sm", "sk")),
        (("http://set/v1", "sm", "sk"), (None, "demo", None), ENV, None),
    ],
)
def test_resolve_endpoint_prefers_cli_then_settings_then_env(
    settings: tuple[str, str, str | None],
    cli: tuple[str | None, str | None, str | None],
    env: dict[str, str],
    expected: Endpoint | None,
) -> None:
    base_url, model, key = settings
    assert resolve_endpoint(base_url, model, lambda: key, *cli, env) == expected


def test_resolve_endpoint_with_a_url_but_no_model_is_a_config_error() -> None:
    with pytest.raises(LLMError, match=r"^no model name: set --model or the model in Settings$") as info:
        resolve_endpoint("http://set/v1", "", lambda: None, None, None, None, {})
    assert info.value.code == "config"


def test_resolve_endpoint_rejects_a_url_without_a_scheme() -> None:
    with pytest.raises(LLMError, match=r"^base URL 'localhost:8080/v1' must start with http:// or https://$"):
        resolve_endpoint("", "m", lambda: None, "localhost:8080/v1", None, None, {})


def test_endpoint_repr_hides_the_key() -> None:
    assert SECRET not in repr(Endpoint("http://x/v1", "m", SECRET))


# ------------------------------------------------------------------ the wire (contracts §2a)

CANONICAL = [
    {"role": "system", "content": "You are a test."},
    {"role": "user", "content": "hi", "_hook": "h"},
    {"role": "system", "content": prompts.PLANNING_PROMPT},
]


class Learned:
    """Records what the provider reports through ``on_wire_profile``."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, WireProfile]] = []

    def __call__(self, endpoint: str, profile: WireProfile) -> None:
        self.calls.append((endpoint, profile))


async def stream_text(provider: OpenAIProvider, messages: list[JSONDict]) -> str:
    async with asyncio.timeout(10):
        return "".join(d.text for d in [d async for d in provider.stream(messages)] if isinstance(d, TextDelta))


async def test_requests_go_out_in_their_wire_form(server: ScriptedLLMServer) -> None:
    server.set_script([text_reply("ok")])
    await collect_messages(make_provider(server.base_url), CANONICAL)
    assert server.requests[0]["messages"] == normalize(CANONICAL)
    assert wire_problems(server.requests[0]["messages"]) == []


async def collect_messages(provider: OpenAIProvider, messages: list[JSONDict]) -> str:
    try:
        return await stream_text(provider, messages)
    finally:
        await provider.aclose()


@pytest.mark.parametrize(
    "refusal",
    [
        "System message must be at the beginning.",
        "System role not supported",
        "After the optional system message, conversation roles must alternate user/assistant/user/assistant/...",
        "Unexpected role 'user' after role 'tool'",
        "Cannot have 2 or more assistant messages at the end of the list",
        "Tool call IDs should be alphanumeric strings with length 9!",
        "This model only supports single tool-calls at once!",
        "The toolConfig field must be defined when using toolUse and toolResult content blocks.",
    ],
)
async def test_a_refusal_about_roles_or_tools_is_retried_once_strict_and_remembered(
    server: ScriptedLLMServer, refusal: str
) -> None:
    server.refuse = lambda request: refusal if any(m["role"] == "system" for m in request["messages"]) else None
    server.set_script([text_reply("Hello!"), text_reply("Again.")])
    learned = Learned()
    provider = make_provider(server.base_url + "/", on_wire_profile=learned)
    try:
        assert await stream_text(provider, CANONICAL) == "Hello!"
        assert [m["role"] for m in server.requests[0]["messages"]] == ["system", "user"]
        assert server.requests[1]["messages"] == normalize(CANONICAL, STRICT)
        assert learned.calls == [(server.base_url, STRICT)]  # the endpoint, without the trailing slash
        # Remembered: the next request is strict from the start, and not reported again.
        assert await stream_text(provider, CANONICAL) == "Again."
    finally:
        await provider.aclose()
    assert len(server.requests) == 3 and server.requests[2]["messages"] == normalize(CANONICAL, STRICT)
    assert (provider.wire_profile, len(learned.calls)) == (STRICT, 1)


async def test_the_system_role_refused_by_a_gemma_like_server_works_with_strict(server: ScriptedLLMServer) -> None:
    server.refuse = any_of(no_system_role, system_first, alternating_roles)
    server.set_script([text_reply("Fine.")])
    assert await collect_messages(make_provider(server.base_url), CANONICAL) == "Fine."
    assert [r["messages"][0]["role"] for r in server.requests] == ["system", "user"]


async def test_a_refusal_under_the_strict_profile_is_a_bad_request_without_another_try(
    server: ScriptedLLMServer,
) -> None:
    server.refuse = lambda request: "Conversation roles must alternate user/assistant/user/assistant/..."
    learned = Learned()
    error = await failure(make_provider(server.base_url, on_wire_profile=learned))
    assert error.code == "bad_request" and "roles must alternate" in error.message
    assert len(server.requests) == 2 and learned.calls == []


async def test_other_refusals_are_not_retried_with_the_strict_profile(server: ScriptedLLMServer) -> None:
    server.refuse = lambda request: "This model's maximum context length is 4096 tokens."
    learned = Learned()
    error = await failure(make_provider(server.base_url, on_wire_profile=learned))
    assert error.code == "bad_request" and len(server.requests) == 1 and learned.calls == []


async def test_a_provider_told_its_endpoint_is_strict_sends_strict_from_the_start(server: ScriptedLLMServer) -> None:
    server.refuse = no_system_role
    server.set_script([text_reply("ok")])
    assert await collect_messages(make_provider(server.base_url, wire_profile=STRICT), CANONICAL) == "ok"
    assert server.requests == [{**server.requests[0], "messages": normalize(CANONICAL, STRICT)}]


async def test_chunks_that_arrived_together_give_the_loop_a_turn_between_them(server: ScriptedLLMServer) -> None:
    # A window streaming on a busy machine: the chunks queue up while the app
    # is busy and are then read in one go; each must still let the event loop
    # run (a paint, a timer) before the next, not hold it for all of them.
    text = "".join(f"word{i} " for i in range(60))
    server.set_script([text_reply(text, chunk_size=6)])
    turns = 0

    async def ticker() -> None:
        nonlocal turns
        while True:
            await asyncio.sleep(0)
            turns += 1

    ticking = asyncio.create_task(ticker())
    provider = make_provider(server.base_url)
    seen: list[int] = []
    got: list[LLMDelta] = []
    try:
        async with asyncio.timeout(10):
            async for delta in provider.stream(HI):
                if not got:  # the server writes the rest meanwhile: it waits, read together, in the buffer
                    until = turns + 300
                    while turns < until:
                        await asyncio.sleep(0)
                got.append(delta)
                seen.append(turns)
    finally:
        ticking.cancel()
        await provider.aclose()
    assert "".join(d.text for d in got if isinstance(d, TextDelta)) == text
    assert len(got) == len(range(0, len(text), 6))
    assert all(b > a for a, b in itertools.pairwise(seen[1:]))  # a loop turn between every two chunks
