"""The Model page's questions to an endpoint, against a scripted server on loopback."""

from __future__ import annotations

import socket

from desktop_agent.llm.endpoint_check import (
    PRESETS,
    CheckResult,
    address_problem,
    check_connection,
    list_models,
    preset_for,
)
from desktop_agent.testing.scripted_server import Reply, ScriptedLLMServer, text_reply


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_presets_use_the_providers_documented_addresses() -> None:
    assert {p.label: p.base_url for p in PRESETS} == {
        "OpenAI": "https://api.openai.com/v1",
        "DeepSeek": "https://api.deepseek.com/v1",
        "Qwen / DashScope": "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "Moonshot": "https://api.moonshot.cn/v1",
        "Zhipu": "https://open.bigmodel.cn/api/paas/v4",
        "OpenRouter": "https://openrouter.ai/api/v1",
        "Ollama": "http://localhost:11434/v1",
        "LM Studio": "http://localhost:1234/v1",
        "vLLM": "http://localhost:8000/v1",
    }
    assert preset_for("https://api.deepseek.com/v1/") is PRESETS[1]
    assert preset_for("https://example.com/v1") is None


def test_an_address_needs_http_and_a_host() -> None:
    assert [address_problem(u) for u in ("localhost:8000", "ftp://x", "http://", "https://api.x.com/v1")] == [
        "scheme",
        "scheme",
        "host",
        None,
    ]


async def test_fetch_models_lists_what_the_endpoint_serves_sorted() -> None:
    async with ScriptedLLMServer([], models=("qwen-max", "deepseek-chat", "gpt-4o")) as server:
        result = await list_models(server.base_url, "sk-test")
    assert result == CheckResult(True, models=("deepseek-chat", "gpt-4o", "qwen-max"))


async def test_a_connection_test_reports_latency_and_the_answer() -> None:
    async with ScriptedLLMServer([text_reply("pong")]) as server:
        result = await check_connection(server.base_url, None, "scripted")
        assert server.requests[0]["max_tokens"] == 8
    assert (result.ok, result.answer, result.failure) == (True, "pong", None)
    assert 0 <= result.latency_ms < 15_000


async def test_a_refused_port_and_a_rejected_key_are_failures_not_exceptions() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    refused = await list_models(url, None, timeout_s=5)
    assert (refused.ok, refused.failure) == (False, "refused")
    async with ScriptedLLMServer([Reply(status=401, error_message="bad key")]) as server:
        rejected = await check_connection(server.base_url, "sk-wrong", "scripted")
    assert (rejected.ok, rejected.failure, rejected.detail) == (False, "auth", "401")
