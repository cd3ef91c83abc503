"""Time to first token of a turn's second request on a real local server,
with the planning request in the old form (no tools) and the new one (the
turn's tools with ``tool_choice: "none"``, contracts §2a).

Why: a local server keeps the prompt it last read (llama.cpp's prompt
cache) and reads again only what differs. When the planning request carries
no tools and the tool request does, the tool descriptions sit near the top
of the prompt, so the second request differs from the first almost from the
start and the whole prompt is read again (63 s for 1,513 tokens on one CPU
thread, seen in the field). With the same tools in both, only what follows
the user's words is new.

What runs: ``llama-server -m MODEL --jinja -t 1 -c 8192 --port P`` (a fresh
server for each form, so neither inherits the other's cache), then one turn
of the app itself — the real :class:`~desktop_agent.core.agent.AgentClient`
with the app's system prompt, its built-in tools and the MCP time server's
two tools — whose requests are the real
:class:`~desktop_agent.llm.openai_provider.OpenAIProvider`'s bodies (the old
form is its ``planning_without_tools`` wire profile), sent over HTTP by a
probe that notes, per request, the time to the first streamed delta and the
server's ``timings`` (``prompt_n``: tokens read, ``cache_n``: tokens reused).
The planning reply is read as ``<need_tool>`` whatever the small model
said, so both forms go on to the same tool request; the turn stops after
that second request (no tool is run). Replies are capped at
``--max-tokens`` so a chatty model does not decide the time. The first
request's time is reported too: the new form reads the tool descriptions
there (once per conversation on a server that keeps its cache), the old one
read them again in every tool request after a planning request.

Run: ``.venv/bin/python benchmarks/bench_local_prefix.py --server PATH [--model GGUF] [--json OUT]``
(or ``LLAMA_SERVER=PATH``). Without a server binary it says so in one line
and exits 0. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncGenerator, Callable, Iterator, Mapping, Sequence
from contextlib import aclosing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.forms import FormManager
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.ports import (
    LLMDelta,
    TextDelta,
    ToolCallDelta,
    ToolChoice,
    ToolContext,
    ToolResult,
    ToolSpec,
)
from desktop_agent.core.stream_parser import strip_intent_tags
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.wire import PLANNING_WITHOUT_TOOLS, STANDARD, WireProfile
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.testing.bus_reader import RecordingBus
from desktop_agent.tools import builtin_tools

DEFAULT_MODEL = "/work/llama/model/qwen-0.5b.gguf"
QUESTION = "What time is it in Tokyo right now, and how many hours ahead of London is that?"
_TIME_TOOLS = (
    ToolSpec(
        "get_current_time",
        "Get current time in a specific timezones",
        {
            "type": "object",
            "properties": {
                "timezone": {
                    "type": "string",
                    "description": "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). "
                    "Use 'UTC' as local timezone if no timezone provided by the user.",
                }
            },
            "required": ["timezone"],
        },
        server="time",
    ),
    ToolSpec(
        "convert_time",
        "Convert time between timezones",
        {
            "type": "object",
            "properties": {
                "source_timezone": {"type": "string", "description": "Source IANA timezone name"},
                "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"},
                "target_timezone": {"type": "string", "description": "Target IANA timezone name"},
            },
            "required": ["source_timezone", "time", "target_timezone"],
        },
        server="time",
    ),
)
"""The two tools of mcp-server-time, as it describes them."""


@dataclass
class _NotRun:
    """A tool the model sees but that never runs here (the turn stops first)."""

    spec: ToolSpec

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        raise AssertionError("the benchmark stops before any tool runs")


@dataclass
class Measured:
    """One request: what went out and how the server answered."""

    tools_sent: bool
    tool_choice: str | None
    ttft_s: float | None
    """Seconds from sending to the first streamed text or tool-call delta."""
    total_s: float
    prompt_n: int | None = None
    """Prompt tokens the server read (``timings.prompt_n``)."""
    cache_n: int | None = None
    """Prompt tokens it reused from its cache (``timings.cache_n``)."""
    cached_tokens: int | None = None
    """``usage.prompt_tokens_details.cached_tokens``, where given."""
    prompt_ms: float | None = None
    reply: str = ""


@dataclass
class Probe:
    """An LLM port that sends the real provider's request bodies to the
    server and notes each request's timings; after ``stop_after`` requests
    the turn's generator is closed by the caller."""

    provider: OpenAIProvider
    host: str
    port: int
    max_tokens: int
    requests: list[Measured] = field(default_factory=list)

    @property
    def model(self) -> str:
        return self.provider.model

    @property
    def is_demo(self) -> bool:
        return False

    async def stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: ToolChoice = "auto",
        on_finish: Callable[[str], None] | None = None,
    ) -> AsyncGenerator[LLMDelta, None]:
        # The body the app sends (the provider's own, under its wire profile).
        body = self.provider._request(messages, tools, tool_choice, self.provider.wire_profile)
        body["max_tokens"] = self.max_tokens
        measured, deltas = await asyncio.to_thread(self._send, body)
        self.requests.append(measured)
        if len(self.requests) == 1:
            # Whatever the small model planned, the turn goes on to the tool
            # request, the same in both forms (what the server has cached is
            # what it read and wrote; only the agent's reading changes).
            said = "".join(d.text for d in deltas if isinstance(d, TextDelta))
            deltas = [TextDelta(strip_intent_tags(said) + "<need_tool>")]
        for delta in deltas:
            yield delta
        if on_finish is not None:
            on_finish("stop")

    def _send(self, body: JSONObject) -> tuple[Measured, list[LLMDelta]]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=3600)
        started = time.perf_counter()
        first: float | None = None
        deltas: list[LLMDelta] = []
        reply: list[str] = []
        last: dict[str, Any] = {}
        try:
            conn.request("POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"})
            response = conn.getresponse()
            if response.status != 200:
                raise RuntimeError(f"llama-server answered {response.status}: {response.read()[:300]!r}")
            for data in _sse(response):
                chunk = json.loads(data)
                last = chunk if "timings" in chunk or "usage" in chunk else last
                for choice in chunk.get("choices") or ():
                    delta = choice.get("delta") or {}
                    if delta.get("content"):
                        first = first or time.perf_counter()
                        reply.append(delta["content"])
                        deltas.append(TextDelta(delta["content"]))
                    for call in delta.get("tool_calls") or ():
                        first = first or time.perf_counter()
                        fn = call.get("function") or {}
                        deltas.append(ToolCallDelta(call.get("index", 0), call.get("id"), fn.get("name"),
                                                    fn.get("arguments") or ""))
                        reply.append(f"[call {fn.get('name') or ''}{fn.get('arguments') or ''}]")
        finally:
            conn.close()
        ended = time.perf_counter()
        timings = last.get("timings") or {}
        details = (last.get("usage") or {}).get("prompt_tokens_details") or {}
        measured = Measured(
            tools_sent="tools" in body,
            tool_choice=str(body["tool_choice"]) if "tool_choice" in body else None,
            ttft_s=None if first is None else first - started,
            total_s=ended - started,
            prompt_n=timings.get("prompt_n"),
            cache_n=timings.get("cache_n"),
            cached_tokens=details.get("cached_tokens"),
            prompt_ms=timings.get("prompt_ms"),
            reply="".join(reply),
        )
        return measured, deltas


def _sse(response: http.client.HTTPResponse) -> Iterator[str]:
    for raw in response:
        line = raw.decode("utf-8").strip()
        if line.startswith("data:"):
            data = line[5:].strip()
            if data == "[DONE]":
                return
            yield data


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def llama_server(binary: str, model: str, threads: int, ctx: int, log: Path) -> Iterator[int]:
    port = _free_port()
    argv = [binary, "-m", model, "--jinja", "-t", str(threads), "-c", str(ctx), "--port", str(port),
            "--host", "127.0.0.1"]
    with log.open("ab") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 300
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama-server exited with {proc.returncode}; see {log}")
            with contextlib.suppress(OSError):
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as answer:
                    if answer.status == 200:
                        break
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama-server did not become healthy in 300 s; see {log}")
            time.sleep(0.5)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


async def one_turn(port: int, profile: WireProfile, max_tokens: int) -> list[Measured]:
    """The app's turn up to the end of its second request."""
    provider = OpenAIProvider(base_url=f"http://127.0.0.1:{port}/v1", api_key="", model="local",
                              wire_profile=profile)
    probe = Probe(provider, "127.0.0.1", port, max_tokens)
    tools = [*builtin_tools(FormManager()), *(_NotRun(spec) for spec in _TIME_TOOLS)]
    agent = AgentClient(probe, ToolRouter(tools))
    bus = RecordingBus("bench")
    stream = agent.chat_stream([UserMessage(QUESTION)], lambda i: BusToolContext(bus, i, "bench"))
    try:
        async with aclosing(stream) as chunks:
            async for _chunk in chunks:
                if len(probe.requests) >= 2:
                    break
    finally:
        await provider.aclose()
    return probe.requests


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default=os.environ.get("LLAMA_SERVER"), help="llama-server binary")
    parser.add_argument("--model", default=os.environ.get("LLAMA_MODEL", DEFAULT_MODEL), help="GGUF model")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ctx", type=int, default=8192)
    parser.add_argument("--max-tokens", type=int, default=24, help="reply cap of each request")
    parser.add_argument("--rounds", type=int, default=1, help="turns per form (a fresh server each)")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--log", type=Path, default=Path("llama-server.log"))
    args = parser.parse_args(argv)
    if not args.server or not Path(args.server).is_file():
        print("skipped: no llama-server binary (give --server PATH or set LLAMA_SERVER)")
        return 0
    if not Path(args.model).is_file():
        print(f"skipped: no model file at {args.model} (give --model PATH or set LLAMA_MODEL)")
        return 0
    forms = {"old (planning without tools)": PLANNING_WITHOUT_TOOLS, "new (tools, tool_choice none)": STANDARD}
    results: dict[str, list[list[Measured]]] = {name: [] for name in forms}
    for _ in range(args.rounds):
        for name, profile in forms.items():
            with llama_server(args.server, args.model, args.threads, args.ctx, args.log) as port:
                results[name].append(asyncio.run(one_turn(port, profile, args.max_tokens)))
    _report(results, args)
    if args.json:
        args.json.write_text(json.dumps(
            {name: [[asdict(m) for m in turn] for turn in turns] for name, turns in results.items()}, indent=2))
    return 0


def _report(results: dict[str, list[list[Measured]]], args: argparse.Namespace) -> None:
    print(f"llama-server --jinja -t {args.threads} -c {args.ctx}, model {Path(args.model).name}, "
          f"replies capped at {args.max_tokens} tokens, {args.rounds} turn(s) per form\n")
    print(f"{'form':32} {'request':9} {'tools':6} {'TTFT s':>8} {'total s':>8} {'prompt_n':>9} {'cache_n':>8}")
    second: dict[str, float] = {}
    for name, turns in results.items():
        for turn in turns:
            for index, m in enumerate(turn, 1):
                ttft = f"{m.ttft_s:.2f}" if m.ttft_s is not None else "-"
                print(f"{name:32} {index:<9} {'yes' if m.tools_sent else 'no':6} {ttft:>8} {m.total_s:8.2f} "
                      f"{_n(m.prompt_n):>9} {_n(m.cache_n):>8}")
        ttfts = [turn[1].ttft_s for turn in turns if len(turn) > 1 and turn[1].ttft_s is not None]
        if ttfts:
            second[name] = sorted(ttfts)[len(ttfts) // 2]
    old, new = (second.get(name) for name in results)
    if old is not None and new:
        print(f"\nsecond request, time to first token: old {old:.2f} s, new {new:.2f} s ({old / new:.1f}x)")
    both = {name: [sum(m.ttft_s or 0.0 for m in turn) for turn in turns] for name, turns in results.items()}
    print("both requests, time to first token added: "
          + ", ".join(f"{name.split()[0]} {sorted(v)[len(v) // 2]:.2f} s" for name, v in both.items() if v))


def _n(value: int | None) -> str:
    return "-" if value is None else str(value)


if __name__ == "__main__":
    sys.exit(main())
