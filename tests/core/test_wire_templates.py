"""Contract tests (contracts §2a): every request of a real three-turn session,
normalized, renders through the published chat templates of Qwen, Mistral,
Llama 3 and Gemma (``wire_templates/``, sources in its README) the way vLLM
renders them; the canonical form does not.

The session is run by the real agent and conversation against the scripted
model: a no-tool answer with a Markdown list, a tool round whose first call
has invalid JSON and whose second has arguments longer than the 300
characters the context cut keeps, and a last turn after it (so the tool
turn is replayed truncated).
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from jinja2.exceptions import TemplateError
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.history import TOOL_CONTEXT_MAX_LEN
from desktop_agent.core.json_types import as_list, as_object
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.wire import STANDARD, STRICT, WireProfile, normalize
from desktop_agent.testing.fake_tools import EchoTool
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, ToolCallScript, text_reply, tool_reply
from desktop_agent.testing.views import NullView
from desktop_agent.testing.wire_contract import wire_problems

TEMPLATES = Path(__file__).with_name("wire_templates")
QWEN25 = "Qwen-Qwen2.5-7B-Instruct"
QWEN35 = "Qwen3.5-4B"
LLAMA31 = "meta-llama-Llama-3.1-8B-Instruct"
MISTRAL = "mistralai-Mistral-Nemo-Instruct-2407"
GEMMA = "google-gemma-2-2b-it"

LONG_TEXT = "The quick brown fox jumps over the lazy dog. " * 10
FRUIT = "Here they are:\n\n- apple\n- banana\n- cherry\n"

SESSION: list[tuple[str, list[Reply]]] = [
    ("Name three fruits.", [text_reply("Sure, three fruits. <no_tool>"), text_reply(FRUIT)]),
    (
        "Echo this long text back to me.",
        [
            text_reply("<voice>Let me echo it.</voice><need_tool>"),
            Reply(tool_calls=(ToolCallScript("echo", '{"text": '),)),
            tool_reply("echo", {"text": LONG_TEXT}, text="Trying again."),
            text_reply("Done: it echoed the text."),
        ],
    ),
    ("Thanks!", [text_reply("You're welcome. <no_tool>"), text_reply("Anything else?")]),
]


def _raise(message: str) -> None:
    raise TemplateError(message)


def _tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None, **kw: Any) -> str:
    """transformers' ``tojson`` (non-ASCII kept, optional indent)."""
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, **kw)


def _environment() -> ImmutableSandboxedEnvironment:
    """The environment transformers (and so vLLM) renders chat templates in."""
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env


def _server_view(messages: list[JSONDict]) -> list[JSONDict]:
    """What a server hands the template: vLLM and llama.cpp parse every
    replayed ``function.arguments`` (``json.loads``, which raises on bad
    JSON) into an object first."""
    out = []
    for message in messages:
        message = dict(message)
        if message.get("tool_calls"):
            message["tool_calls"] = [
                {**call, "function": {**call["function"], "arguments": json.loads(call["function"]["arguments"])}}
                for call in message["tool_calls"]
            ]
        out.append(message)
    return out


def render(name: str, messages: list[JSONDict], tools: list[JSONDict] | None) -> str:
    template = _environment().from_string((TEMPLATES / f"{name}.jinja").read_text(encoding="utf-8"))
    return template.render(
        messages=_server_view(messages), tools=tools, bos_token="<s>", eos_token="</s>", add_generation_prompt=True
    )


@pytest.fixture(scope="module")
def requests() -> list[JSONDict]:
    """Every request of the session, as the agent builds it (canonical)."""
    script = [reply for _, replies in SESSION for reply in replies]
    llm = ScriptedLLM(script)
    conversation = Conversation(AgentClient(llm, ToolRouter([EchoTool()])))

    async def play() -> None:
        async with asyncio.timeout(10):
            for text, _ in SESSION:
                outcome = await conversation.run_turn(text, NullView(), auto_approve=lambda _name: True)
                assert outcome.status == "completed"

    asyncio.run(play())
    assert len(llm.requests) == len(script)
    return llm.requests


def calls_in(request: JSONDict) -> list[JSONDict]:
    return [c for m in request["messages"] for c in m.get("tool_calls") or ()]


def test_the_session_has_what_the_contract_tests_need(requests: list[JSONDict]) -> None:
    # Within the tool turn the invalid call is replayed as the model sent it;
    # later turns replay the long call cut by the context cut.
    assert [c["function"]["arguments"] for c in calls_in(requests[4])] == ['{"text": ']
    assert len(json.dumps({"text": LONG_TEXT})) > TOOL_CONTEXT_MAX_LEN
    replayed = calls_in(requests[-1])[1]["function"]["arguments"]
    assert json.loads(replayed)["text"].endswith("…[truncated]")
    last = requests[-1]["messages"]
    assert any(m["content"] == FRUIT for m in last) and last[-1]["role"] == "system"


PAIRS = [
    (QWEN25, STANDARD), (QWEN35, STANDARD), (LLAMA31, STANDARD), (MISTRAL, STANDARD),
    (QWEN25, STRICT), (QWEN35, STRICT), (LLAMA31, STRICT), (MISTRAL, STRICT), (GEMMA, STRICT),
]


@pytest.mark.parametrize(("name", "profile"), PAIRS, ids=[f"{n}-{p.name}" for n, p in PAIRS])
def test_every_normalized_request_renders_through_the_template(
    requests: list[JSONDict], name: str, profile: WireProfile
) -> None:
    for request in requests:
        messages = normalize(request["messages"], profile)
        assert wire_problems(messages, system_role=profile.system_role) == []
        rendered = render(name, messages, request["tools"])
        end = str(messages[-1]["content"]).strip()[-20:]
        assert end in rendered or json.dumps(end)[1:-1] in rendered  # Llama sends tool text as JSON
    assert "- apple\n- banana\n- cherry" in rendered


@pytest.mark.parametrize(
    ("name", "error"),
    [
        (QWEN35, "System message must be at the beginning."),
        (MISTRAL, "Only user and assistant roles are supported, with the exception of an initial optional system message!"),
        (GEMMA, "System role not supported"),
    ],
)
def test_the_canonical_planning_request_is_refused(requests: list[JSONDict], name: str, error: str) -> None:
    first = requests[0]
    with pytest.raises(TemplateError, match=re.escape(error)):
        render(name, first["messages"], first["tools"])


def test_mistral_refuses_the_canonical_history_for_its_consecutive_assistant_messages(
    requests: list[JSONDict],
) -> None:
    # The second turn's planning request without its temporary prompt: the
    # first turn's planning reply and continuation are two assistant messages.
    messages = [m for m in requests[2]["messages"] if m["role"] != "system"]
    with pytest.raises(TemplateError, match="conversation roles must alternate user/assistant"):
        render(MISTRAL, messages, None)
    render(MISTRAL, normalize(messages), None)


def _with_ids(messages: list[JSONDict], ids: dict[str, str]) -> list[JSONDict]:
    out = []
    for m in messages:
        if m.get("tool_calls"):
            m = {**m, "tool_calls": [{**c, "id": ids[c["id"]]} for c in m["tool_calls"]]}
        elif m["role"] == "tool":
            m = {**m, "tool_call_id": ids[m["tool_call_id"]]}
        out.append(m)
    return out


def test_mistral_refuses_call_ids_that_are_not_nine_alphanumerics(requests: list[JSONDict]) -> None:
    wire = normalize(requests[-1]["messages"])
    calls = [str(as_object(c)["id"]) for m in wire for c in as_list(m.get("tool_calls"))]
    assert len(calls) == 2
    with pytest.raises(TemplateError, match=re.escape("Tool call IDs should be alphanumeric strings with length 9!")):
        render(MISTRAL, _with_ids(wire, {calls[0]: "call_1", calls[1]: "call_2"}), None)


def test_gemma_needs_the_strict_profile(requests: list[JSONDict]) -> None:
    last = requests[-1]
    with pytest.raises(TemplateError, match="System role not supported"):
        render(GEMMA, normalize(last["messages"], STANDARD), last["tools"])
    render(GEMMA, normalize(last["messages"], STRICT), last["tools"])


def test_a_replayed_invalid_argument_text_breaks_a_server_that_parses_it(requests: list[JSONDict]) -> None:
    with pytest.raises(json.JSONDecodeError):
        render(LLAMA31, requests[4]["messages"], requests[4]["tools"])
