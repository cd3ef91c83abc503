"""The real server-everything asks the user through :class:`Elicitation`:
its request becomes a ``form_request`` on the running call's bus, and how
the form ends is what the server hears back (accept with typed content,
decline, cancel), over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import mcp_types as types
import pytest

from desktop_agent.core.forms import FormManager
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.ports import ToolResult
from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig
from desktop_agent.mcp_engine.client_hooks import CallOrigin
from desktop_agent.mcp_engine.elicitation import Elicitation
from desktop_agent.testing.json_dict import JSONDict

from .conftest import CallContext, IdleClock, everything_js, run_everything

pytestmark = [pytest.mark.integration, pytest.mark.npm]

FILLED: JSONObject = {"name": "Ann Lee", "integer": "7", "number": "2.5", "check": True, "untitledMultipleSelectEnum": ["Piano"]}


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    with run_everything("streamableHttp", "/mcp") as server:
        yield server.url


def _config(transport: str, http_url: str) -> ServerConfig:
    if transport == "stdio":
        return ServerConfig(name="everything", command="node", args=(str(everything_js()), "stdio"))
    return ServerConfig(name="everything", transport="http", url=http_url)


@asynccontextmanager
async def _engine(config: ServerConfig, forms: FormManager) -> AsyncIterator[McpEngine]:
    engine = McpEngine(McpConfig(servers=(config,)))
    engine.hooks.elicit = Elicitation(forms)
    try:
        assert await engine.start() == []
        yield engine
    finally:
        await engine.aclose()


async def _call_and_answer(
    engine: McpEngine, call: CallContext, tool: str, arguments: JSONObject, answer: Callable[[str], Any]
) -> tuple[ToolResult, JSONDict]:
    """Run the tool; answer its form (``answer(form_id)``) once the
    ``form_request`` is on the bus; the result and that message."""
    running = asyncio.create_task(engine.shared_source().call(tool, arguments, call.ctx))
    reader = call.bus.reader  # type: ignore[attr-defined]
    async with asyncio.timeout(20):
        while (item := await reader.get()).message.type != "form_request":
            pass
        request = item.to_json()
        answer(str(request["form_id"]))
        return await running, request


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_submitted_form_reaches_the_server_as_accept_with_typed_content(
    transport: str, http_url: str, make_ctx: Callable[..., CallContext]
) -> None:
    forms = FormManager()
    async with _engine(_config(transport, http_url), forms) as engine:
        call = make_ctx()
        result, request = await _call_and_answer(
            engine, call, "trigger-elicitation-request", {}, lambda form_id: forms.respond(form_id, FILLED)
        )

    assert request["tool_call_id"] == call.ctx.tool_call_id
    assert request["source"] == {"server": "everything"}
    assert request["title"] == "Please provide inputs for the following fields:"
    questions = {q["id"]: q for q in request["questions"]}
    assert questions["integer"]["type"] == "integer" and questions["integer"]["default"] == 42
    assert questions["titledSingleSelectEnum"]["option_labels"] == ["Superman", "Green Lantern", "Wonder Woman"]
    assert not result.is_error
    assert "User provided the requested information" in result.text
    assert "- Name: Ann Lee" in result.text
    assert "- Favorite Integer: 7" in result.text  # a number, not the text "7"
    assert '"integer": 7,' in result.text and '"number": 2.5,' in result.text and '"check": true' in result.text


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_decline_and_cancel_reach_the_server_as_such(
    transport: str, http_url: str, make_ctx: Callable[..., CallContext]
) -> None:
    forms = FormManager()
    async with _engine(_config(transport, http_url), forms) as engine:
        declined, _ = await _call_and_answer(
            engine, make_ctx(), "trigger-elicitation-request", {}, forms.decline
        )
        cancelled, _ = await _call_and_answer(
            engine, make_ctx(), "trigger-elicitation-request", {}, lambda form_id: forms.respond(form_id, None)
        )

    assert "User declined to provide the requested information" in declined.text
    assert "User cancelled the elicitation dialog" in cancelled.text


async def test_a_url_elicitation_is_a_form_without_questions_that_carries_the_address(
    http_url: str, make_ctx: Callable[..., CallContext]
) -> None:
    forms = FormManager()
    async with _engine(_config("stdio", http_url), forms) as engine:
        call = make_ctx()
        result, request = await _call_and_answer(
            engine, call, "trigger-url-elicitation",
            {"url": "https://example.com/consent?x=1", "message": "Sign in to continue"},
            lambda form_id: forms.respond(form_id, {}),
        )

    assert request["questions"] == []
    assert request["source"] == {"server": "everything", "url": "https://example.com/consent?x=1"}
    assert request["title"] == "Sign in to continue"
    assert "User completed the URL elicitation flow" in result.text


async def test_a_form_nobody_answers_in_the_answer_timeout_is_cancelled(
    make_ctx: Callable[..., CallContext], http_url: str
) -> None:
    forms = FormManager()
    async with _engine(_config("stdio", http_url), forms) as engine:
        call = make_ctx()
        call.ctx._answer_timeout_s = 0.01  # the approval timeout a turn would give
        result = await asyncio.wait_for(
            engine.shared_source().call("trigger-elicitation-request", {}, call.ctx), 20
        )

    assert "User cancelled the elicitation dialog" in result.text
    assert forms.pending() == []


async def test_closing_the_call_cancels_its_form(make_ctx: Callable[..., CallContext], http_url: str) -> None:
    forms = FormManager()
    async with _engine(_config("stdio", http_url), forms) as engine:
        call = make_ctx()
        result, _ = await _call_and_answer(
            engine, call, "trigger-elicitation-request", {}, lambda _form_id: call.ctx.close()
        )

    assert "User cancelled the elicitation dialog" in result.text


async def test_a_request_outside_any_call_or_with_a_bad_schema_is_declined(
    make_ctx: Callable[..., CallContext],
) -> None:
    forms = FormManager()
    elicit = Elicitation(forms)
    good = types.ElicitRequestFormParams(message="hi", requested_schema={"type": "object", "properties": {}})
    nested = types.ElicitRequestFormParams(
        message="hi", requested_schema={"type": "object", "properties": {"a": {"type": "object", "properties": {}}}}
    )
    call = make_ctx()

    assert (await elicit("srv", good, None)).action == "decline"
    assert (await elicit("srv", nested, CallOrigin("srv", "tool", call.ctx))).action == "decline"

    call.ctx.flush_output()
    assert [(m["type"], m.get("text")) for m in call.messages()] == [
        ("tool_output", 'MCP server "srv" asked for a form the app cannot show '
         "(field 'a' is a nested object, which a form cannot ask); declined\n"),
    ]
    assert forms.pending() == []


async def test_a_form_may_wait_longer_than_the_servers_idle_timeout(
    make_ctx: Callable[..., CallContext], idle_clock: IdleClock, http_url: str
) -> None:
    forms = FormManager()
    config = replace(_config("stdio", http_url), timeout_s=5.0)

    def answer_late(form_id: str) -> None:
        idle_clock.clock.advance(60.0)  # the user reads the form for a minute
        forms.respond(form_id, FILLED)

    async with _engine(config, forms) as engine:
        result, _ = await _call_and_answer(engine, make_ctx(), "trigger-elicitation-request", {}, answer_late)

    assert not result.is_error, result.text
    assert "User provided the requested information" in result.text
