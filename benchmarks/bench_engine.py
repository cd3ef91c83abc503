"""Engine cost per streamed token against the bare openai SDK: what the
core adds on top of reading the stream must stay within a few per cent.

The scripted server runs in its own process and streams a long reply at
2,500 tokens/s. In one run, interleaved to cancel the machine's noise, we
consume the same two streams (the planning round and the tool round) with

- bare: ``AsyncOpenAI.chat.completions.create(stream=True)``, touching each
  delta's content, and
- engine: ``ChatHandler`` + ``AgentClient`` + ``StreamParser`` +
  ``SessionMessageBus`` + ``PlaybackQueue`` (a null view) over
  ``OpenAIProvider``,

- extended: the same engine with ten enabled skills (the catalogue at
  ``messages[1]``) and five hooks (one at each checkpoint, persistent and
  not): skills and hooks must leave the cost per token unchanged within
  the machine's noise,

and compare the CPU time of this process per token (the server's CPU is
not counted). Target: engine/bare ≤ 1.05; extended/engine ≈ 1.

Run: ``.venv/bin/python benchmarks/bench_engine.py [--tokens 2000] [--rounds 9]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from openai import AsyncOpenAI

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.hooks import Checkpoint, Hook
from desktop_agent.core.messages import BusItem
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.skills_engine import SkillLibrary
from desktop_agent.skills_engine.scan import scan_skills
from desktop_agent.testing.skill_folders import write_skill
from desktop_agent.testing.views import NullView

WORDS = [" The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog", "."]


def start_server(tokens: int, rate: float) -> tuple[subprocess.Popen[str], str]:
    chunks = [WORDS[i % len(WORDS)] for i in range(tokens)]
    script = [{"chunks": chunks, "tokens_per_s": rate} for _ in range(1000)]
    path = Path(tempfile.mkdtemp()) / "replies.json"
    path.write_text(json.dumps(script))
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop_agent.testing.scripted_server", "--script", str(path)],
        stdout=subprocess.PIPE, text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    if not line.startswith("READY "):
        raise SystemExit(f"scripted server did not start: {line!r}")
    return proc, line.split(" ", 1)[1]


async def bare(client: AsyncOpenAI) -> int:
    count = 0
    for _ in range(2):
        stream = await client.chat.completions.create(
            model="scripted", messages=[{"role": "user", "content": "hi"}], stream=True,
            stream_options={"include_usage": True},
        )
        async for chunk in stream:
            if chunk.choices and chunk.choices[0].delta.content:
                count += 1
    return count


def extensions() -> tuple[SkillLibrary, tuple[Hook, ...]]:
    """Ten enabled skills (written to a temporary folder) and five hooks."""
    root = Path(tempfile.mkdtemp(prefix="bench-skills-"))
    for n in range(10):
        write_skill(root, f"skill-{n}", description=f"Does task number {n}. Use when the user asks for task {n}. " * 4)
    library = SkillLibrary(scan_skills(bundled=root, user=root / "none"))
    checkpoints: tuple[Checkpoint, ...] = (
        "turn_start", "before_tool_round", "after_tool_result", "after_rejection", "turn_end"
    )
    hooks = tuple(
        Hook(f"hook-{n}", checkpoint, "system" if n % 2 else "user", n % 2 == 0, f"Rule {n}: be brief.")
        for n, checkpoint in enumerate(checkpoints)
    )
    return library, hooks


async def engine(
    provider: OpenAIProvider, skills: SkillLibrary | None = None, hooks: tuple[Hook, ...] = ()
) -> int:
    agent = AgentClient(provider, ToolRouter(), system_prompt=None, skills=skills, hooks=hooks)
    conversation = Conversation(agent)
    pushed = 0

    def on_bus(bus: SessionMessageBus) -> None:
        nonlocal pushed

        def count(item: BusItem) -> None:
            nonlocal pushed
            pushed += 1

        bus.add_listener(count)

    outcome = await conversation.run_turn("hi", NullView(), on_bus=on_bus)
    assert outcome.status == "completed", outcome
    return pushed


async def measure(base_url: str, rounds: int) -> dict[str, list[float]]:
    client = AsyncOpenAI(base_url=base_url, api_key="bench", max_retries=0)
    provider = OpenAIProvider(base_url=base_url, api_key="bench", model="scripted")
    results: dict[str, list[float]] = {
        "bare": [], "engine": [], "extended": [], "bare_wall": [], "engine_wall": [], "extended_wall": [],
        "pushed": [],
    }
    await bare(client)  # warm up both paths
    results["pushed"].append(await engine(provider))
    skills, hooks = extensions()
    paths: dict[str, Callable[[], Awaitable[int]]] = {
        "bare": lambda: bare(client),
        "engine": lambda: engine(provider),
        "extended": lambda: engine(provider, skills, hooks),
    }
    for _ in range(rounds):
        for name, run in paths.items():
            cpu0, wall0 = time.process_time(), time.perf_counter()
            await run()
            results[name].append(time.process_time() - cpu0)
            results[name + "_wall"].append(time.perf_counter() - wall0)
    await client.close()
    await provider.aclose()
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=2500.0, help="tokens per second from the server")
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    proc, base_url = start_server(args.tokens, args.rate)
    try:
        results = asyncio.run(measure(base_url, args.rounds))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    tokens = 2 * args.tokens
    bare_cpu = statistics.median(results["bare"])
    engine_cpu = statistics.median(results["engine"])
    print(f"tokens per turn: {tokens} at {args.rate:g} tokens/s, {args.rounds} interleaved rounds")
    print(f"{'path':8} {'cpu µs/token':>14} {'wall s':>8}")
    print(f"{'bare':8} {bare_cpu / tokens * 1e6:14.1f} {statistics.median(results['bare_wall']):8.2f}")
    print(f"{'engine':8} {engine_cpu / tokens * 1e6:14.1f} {statistics.median(results['engine_wall']):8.2f}")
    ratio = engine_cpu / bare_cpu
    best = min(results["engine"]) / min(results["bare"])
    print(f"engine/bare CPU ratio of the fastest runs: {best:.3f}")
    print(f"delivered: {tokens / statistics.median(results['bare_wall']):.0f} tokens/s (the SDK's own "
          f"per-chunk cost bounds it on this machine); engine bus messages per turn: {results['pushed'][0]:.0f}")
    print(f"engine/bare CPU ratio: {ratio:.3f} (target <= 1.05)")
    extended = statistics.median(results["extended"]) / engine_cpu
    print(f"with 10 skills and 5 hooks / engine CPU ratio: {extended:.3f} (target: 1 within noise)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
