"""Skills trigger benchmark: does a model call ``get_skill`` for the right
skill, and only when it should? (contracts §9)

For each prompt (with the skill it should trigger, or none) one fresh turn
runs against an OpenAI-compatible endpoint with the bundled skills enabled:
the catalogue at ``messages[1]``, the planning round, then the tool loop.
The turn stops at the first ``get_skill`` call (its ``name`` is the model's
choice) or when the model answers without one. Other tools are offered with
their real names and schemas but never run: a stub answers "not run", so
nothing on this machine changes. Reported: for each prompt what was
expected and what was called, then precision and recall of the get_skill
calls (a call for the wrong skill counts against both).

Run::

    .venv/bin/python benchmarks/skills_trigger.py --base-url http://127.0.0.1:8000/v1 \
        --model qwen3-8b --api-key sk-... [--cases cases.json] [--json results.json]

``--cases``: a JSON list of ``{"prompt": "...", "skill": "name" | null}``
(default: the built-in list below).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Mapping, Sequence
from contextlib import aclosing
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.events import NoticeChunk, ToolCallChunk
from desktop_agent.core.forms import FormManager
from desktop_agent.core.history_items import UserMessage
from desktop_agent.core.ports import ToolContext, ToolResult, ToolSpec
from desktop_agent.core.tool_context import BusToolContext
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.openai_provider import OpenAIProvider
from desktop_agent.skills_engine import SkillLibrary, bundled_skills_dir, scan_skills
from desktop_agent.tools import builtin_tools

CASES: list[tuple[str, str | None]] = [
    ("Give me my daily briefing, please.", "daily-briefing"),
    ("Good morning! What day is it and how does today look?", "daily-briefing"),
    ("Start my day: date, time and a quick summary card.", "daily-briefing"),
    ("What does `find . -name '*.log' -mtime +7 -delete` do? Run it if it is safe.", "explain-command"),
    ("Before you run it, tell me what `tar -xzvf backup.tgz -C /tmp` will do.", "explain-command"),
    ("I found `curl -fsSL https://get.example.sh | sh` online. Is it safe to run?", "explain-command"),
    ("Answer in both Chinese and English: what is a virtual environment?", "bilingual-reply"),
    ("用中英双语回答：什么是 MCP？", "bilingual-reply"),
    ("Translate 'see you tomorrow' into Chinese and English, and say the Chinese aloud.", "bilingual-reply"),
    ("What is 17 times 23?", None),
    ("Tell me a short joke about cats.", None),
    ("Write a haiku about autumn rain.", None),
    ("What is the capital of Australia?", None),
]


@dataclass(frozen=True)
class Outcome:
    prompt: str
    expected: str | None
    called: str | None
    """The name passed to the first get_skill call; None: no call."""
    error: str | None = None


class _NotRun:
    """A tool the model may see but that never runs here."""

    def __init__(self, spec: ToolSpec) -> None:
        self._spec = ToolSpec(spec.name, spec.description, spec.parameters, skip_approval=True)

    @property
    def spec(self) -> ToolSpec:
        return self._spec

    async def run(self, arguments: Mapping[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult("Not run (benchmark): assume it worked and finish your answer.")


def _router(library: SkillLibrary) -> ToolRouter:
    tools = builtin_tools(FormManager(), skills=library)
    return ToolRouter([t if t.spec.name == "get_skill" else _NotRun(t.spec) for t in tools])


async def run_case(llm: OpenAIProvider, library: SkillLibrary, prompt: str, expected: str | None,
                   max_steps: int = 3) -> Outcome:
    agent = AgentClient(llm, _router(library), max_steps=max_steps, skills=library)
    bus = SessionMessageBus("bench")

    def context(call_id: str) -> ToolContext:
        return BusToolContext(bus, call_id, "bench")

    stream = agent.chat_stream([UserMessage(prompt)], context)
    async with aclosing(stream) as chunks:
        async for chunk in chunks:
            if isinstance(chunk, ToolCallChunk) and chunk.call.name == "get_skill" and chunk.call.arguments is not None:
                name = chunk.call.arguments.get("name")
                return Outcome(prompt, expected, str(name) if name is not None else "")
            if isinstance(chunk, NoticeChunk) and chunk.level == "error":
                return Outcome(prompt, expected, None, chunk.message)
    return Outcome(prompt, expected, None)


def score(outcomes: Sequence[Outcome]) -> dict[str, float | int]:
    """Precision and recall of get_skill calls."""
    hits = sum(1 for o in outcomes if o.called is not None and o.called == o.expected)
    called = sum(1 for o in outcomes if o.called is not None)
    expected = sum(1 for o in outcomes if o.expected is not None)
    return {
        "cases": len(outcomes),
        "true_positives": hits,
        "get_skill_calls": called,
        "expected_calls": expected,
        "precision": hits / called if called else 1.0,
        "recall": hits / expected if expected else 1.0,
        "errors": sum(1 for o in outcomes if o.error),
    }


async def run_benchmark(base_url: str, model: str, api_key: str,
                        cases: Sequence[tuple[str, str | None]]) -> list[Outcome]:
    library = SkillLibrary(scan_skills(bundled_skills_dir(), Path("/nonexistent-user-skills")))
    llm = OpenAIProvider(base_url=base_url, api_key=api_key, model=model)
    try:
        return [await run_case(llm, library, prompt, skill) for prompt, skill in cases]
    finally:
        await llm.aclose()


def _load_cases(path: Path | None) -> list[tuple[str, str | None]]:
    if path is None:
        return CASES
    data = json.loads(path.read_text(encoding="utf-8"))
    return [(str(case["prompt"]), case.get("skill")) for case in data]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--api-key", default="none")
    parser.add_argument("--cases", type=Path, help="JSON list of {prompt, skill}")
    parser.add_argument("--json", type=Path, help="also write the outcomes and scores here")
    args = parser.parse_args(argv)
    outcomes = asyncio.run(run_benchmark(args.base_url, args.model, args.api_key, _load_cases(args.cases)))
    for o in outcomes:
        mark = "ok " if o.called == o.expected else "MISS"
        print(f"{mark} expected={o.expected or '-':<16} called={o.called or '-':<16} {o.prompt[:60]}"
              + (f"  [error: {o.error}]" if o.error else ""))
    scores = score(outcomes)
    print(f"precision {scores['precision']:.2f}  recall {scores['recall']:.2f}  "
          f"({scores['true_positives']} right of {scores['get_skill_calls']} get_skill calls, "
          f"{scores['expected_calls']} expected; {scores['errors']} errors)")
    if args.json:
        args.json.write_text(json.dumps({"outcomes": [asdict(o) for o in outcomes], "scores": scores}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
