"""The engine's catalogue against real servers: server-everything's prompts,
resources and templates over stdio and streamable HTTP, completions, prompt
and resource reads, failures as one line, the size cap, images, live list
changes, and per-conversation servers."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable

import pytest

from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig
from desktop_agent.mcp_engine.catalog import (
    MAX_RESOURCE_CHARS,
    McpCatalogError,
    PromptArgument,
    PromptInfo,
    TemplateInfo,
)
from desktop_agent.testing.everything import RunningServer, everything_stdio

from .conftest import SERVERS, CallContext, everything_js, python_server

pytestmark = pytest.mark.integration

CATALOG_SERVER = SERVERS / "catalog_server.py"
EVERYTHING_PROMPTS = ["simple-prompt", "args-prompt", "completable-prompt", "resource-prompt"]
TEXT_TEMPLATE = "demo://resource/dynamic/text/{resourceId}"


def _engine(*servers: ServerConfig, on_catalog: list[str] | None = None) -> McpEngine:
    heard = on_catalog if on_catalog is not None else []
    return McpEngine(McpConfig(servers=servers), on_catalog=heard.append)


async def test_stdio_everything_lists_its_prompts_resources_and_templates() -> None:
    everything_js()
    heard: list[str] = []
    engine = _engine(everything_stdio("ev"), on_catalog=heard)
    assert engine.prompts() == []
    try:
        assert await engine.start() == []
        prompts = engine.prompts()
        resources = engine.resources()
        templates = engine.templates()
        assert heard == ["ev"]
    finally:
        await engine.aclose()

    assert [p.name for p in prompts] == EVERYTHING_PROMPTS
    assert prompts[1] == PromptInfo(
        "ev",
        "args-prompt",
        "Arguments Prompt",
        "A prompt with two arguments, one required and one optional",
        (PromptArgument("city", "Name of the city", True), PromptArgument("state", "", False)),
    )
    assert prompts[1].command == "/mcp__ev__args-prompt"
    assert "demo://resource/static/document/architecture.md" in [r.uri for r in resources]
    assert {r.server for r in resources} == {"ev"}
    assert [t.uri_template for t in templates] == [TEXT_TEMPLATE, "demo://resource/dynamic/blob/{resourceId}"]
    assert templates[0].variables == ("resourceId",)
    assert templates[0].expand({"resourceId": "7"}) == "demo://resource/dynamic/text/7"
    # Stopped, nothing is offered any more, and listeners were told.
    assert engine.prompts() == [] and engine.resources() == [] and engine.templates() == []
    assert heard == ["ev", "ev"]


async def test_streamable_http_everything_expands_prompts_and_reads_resources(
    everything_http: RunningServer,
) -> None:
    engine = _engine(ServerConfig(name="web", url=everything_http.url, transport="http"))
    try:
        assert await engine.start() == []
        assert [p.name for p in engine.prompts()] == EVERYTHING_PROMPTS
        simple = await engine.get_prompt("web", "simple-prompt", {})
        args = await engine.get_prompt("web", "args-prompt", {"city": "Paris", "state": "Texas"})
        embedded = await engine.get_prompt("web", "resource-prompt", {"resourceType": "Text", "resourceId": "3"})
        doc = await engine.read_resource("web", "demo://resource/static/document/features.md")
        dynamic = await engine.read_resource("web", engine.templates()[0].expand({"resourceId": "4"}))
    finally:
        await engine.aclose()

    assert (simple.server, simple.name, simple.text) == ("web", "simple-prompt", "This is a simple prompt without arguments.")
    assert args.text == "What's weather in Paris, Texas?"
    first, block = embedded.text.split("\n\n", 1)
    assert first == "This prompt includes the Text resource with id: 3. Please analyze the following resource:"
    assert block.startswith("```demo://resource/dynamic/text/3\nResource 3: This is a plaintext resource")
    assert block.endswith("\n```")
    assert doc.mime_type == "text/markdown" and not doc.truncated and doc.text.startswith("#")
    assert dynamic.text.startswith("Resource 4: This is a plaintext resource created at")


async def test_completions_follow_the_arguments_already_chosen() -> None:
    everything_js()
    engine = _engine(everything_stdio("ev"))
    try:
        await engine.start()
        team = next(p for p in engine.prompts() if p.name == "completable-prompt")
        template = engine.templates()[0]
        departments = await engine.complete("ev", team, "department", "S")
        names = await engine.complete("ev", team, "name", "", {"department": "Sales"})
        ids = await engine.complete("ev", template, "resourceId", "12")
        nothing = await engine.complete("ev", template, "resourceId", "x")
    finally:
        await engine.aclose()

    assert departments == ["Sales", "Support"]
    assert names == ["David", "Eve", "Frank"]
    assert ids == ["12"]
    assert nothing == []


async def test_a_server_without_completions_completes_nothing() -> None:
    engine = _engine(python_server("cat", CATALOG_SERVER))
    try:
        await engine.start()
        prompt = engine.prompts()[0]
        assert await engine.complete("cat", prompt, "anything", "a") == []
    finally:
        await engine.aclose()


async def test_failures_are_one_line_naming_the_server_and_what_failed() -> None:
    everything_js()
    engine = _engine(everything_stdio("ev"))
    errors: list[str] = []
    try:
        await engine.start()
        for request in (
            engine.get_prompt("ev", "nope", {}),
            engine.get_prompt("ev", "args-prompt", {}),
            engine.read_resource("ev", "demo://nope"),
            engine.get_prompt("nobody", "x", {}),
        ):
            with pytest.raises(McpCatalogError) as caught:
                await request
            errors.append(str(caught.value))
        # The session survives each failure.
        assert (await engine.get_prompt("ev", "simple-prompt", {})).text
    finally:
        await engine.aclose()

    assert errors == [
        'mcp server "ev": prompt "nope" failed: MCP error -32602: Prompt nope not found',
        'mcp server "ev": prompt "args-prompt" failed: MCP error -32602: Invalid arguments for prompt '
        "args-prompt: Invalid input: expected string, received undefined at city",
        'mcp server "ev": resource "demo://nope" failed: MCP error -32602: Resource demo://nope not found',
        'unknown mcp server "nobody"',
    ]
    assert all("\n" not in e for e in errors)


async def test_a_huge_resource_is_capped_and_says_so_images_stay_images() -> None:
    engine = _engine(python_server("cat", CATALOG_SERVER))
    try:
        await engine.start()
        huge = await engine.read_resource("cat", "test://huge.txt")
        dot = await engine.read_resource("cat", "test://dot.png")
        data = await engine.read_resource("cat", "test://data.bin")
        picture = await engine.get_prompt("cat", "picture", {})
    finally:
        await engine.aclose()

    assert huge.truncated
    body, note = huge.text.rsplit("\n", 1)
    assert body == "a" * MAX_RESOURCE_CHARS
    assert note == "[truncated: showing the first 100,000 of 250,000 characters]"
    assert [(i.mime, i.data[:4]) for i in dot.images] == [("image/png", b"\x89PNG")]
    assert dot.text == f"[image: image/png, {len(dot.images[0].data)} bytes]" and not dot.truncated
    assert data.text == "[binary resource: test://data.bin, application/octet-stream, 3 bytes]"
    assert data.images == ()
    assert picture.text.startswith("What is in this picture?\n\n[image: image/png,")
    assert [i.mime for i in picture.images] == ["image/png"]
    assert picture.description == "A picture and a question"


async def test_prompt_and_resource_list_changes_are_followed_live() -> None:
    changed = asyncio.Event()
    heard: list[str] = []

    def told(name: str) -> None:
        heard.append(name)
        changed.set()

    engine = McpEngine(McpConfig(servers=(python_server("cat", CATALOG_SERVER),)), on_catalog=told)
    try:
        await engine.start()
        assert [p.name for p in engine.prompts()] == ["picture"]
        changed.clear()
        connection = engine.connection("cat")
        assert connection is not None
        session = await connection.ensure_started()
        await session.call_tool("add_more", {})
        async with asyncio.timeout(20):
            while "test://later.txt" not in [r.uri for r in engine.resources()] or len(engine.prompts()) < 2:
                await changed.wait()
                changed.clear()
        assert [p.name for p in engine.prompts()] == ["picture", "later"]
        assert (await engine.get_prompt("cat", "later", {})).text == "later"
    finally:
        await engine.aclose()
    assert heard[0] == "cat" and len(heard) >= 2


async def test_a_per_conversation_server_offers_its_probed_lists_and_answers_from_a_sandbox() -> None:
    everything_js()
    engine = _engine(everything_stdio("ev", isolation="per_conversation"))
    try:
        await engine.start()
        assert [p.name for p in engine.prompts()] == EVERYTHING_PROMPTS
        alone = await engine.get_prompt("ev", "args-prompt", {"city": "Oslo"})
        in_conv = await engine.read_resource(
            "ev", "demo://resource/dynamic/text/2", conversation_id="conv-1"
        )
        assert engine.sandboxes.conversation_ids() == ["conv-1"]
    finally:
        await engine.aclose()
    assert alone.text == "What's weather in Oslo?"
    assert in_conv.text.startswith("Resource 2:")


def test_a_template_expands_rfc6570_operators_and_leaves_out_missing_values() -> None:
    template = TemplateInfo("s", "file:///{+path}{?q,page}{#frag}", "n", None, "", None)
    assert template.variables == ("path", "q", "page", "frag")
    assert template.expand({"path": "home/me/a b.txt", "q": "x&y"}) == "file:///home/me/a%20b.txt?q=x%26y"
    assert template.expand({"path": "p", "page": "2", "frag": "top"}) == "file:///p?page=2#top"
    simple = TemplateInfo("s", "demo://{a}/{b}", "n", None, "", None)
    assert simple.expand({"a": "x/y", "b": "z"}) == "demo://x%2Fy/z"


def test_a_fence_is_longer_than_the_backticks_inside() -> None:
    from desktop_agent.mcp_engine.catalog import fenced

    assert fenced("u://x", "plain") == "```u://x\nplain\n```"
    assert fenced("u://x", "has ```` four") == "`````u://x\nhas ```` four\n`````"


async def test_a_server_that_does_not_start_is_one_line() -> None:
    engine = _engine(ServerConfig(name="gone", command=sys.executable, args=("-c", "raise SystemExit(3)")))
    try:
        await engine.start()
        with pytest.raises(McpCatalogError) as caught:
            await engine.read_resource("gone", "x://y")
    finally:
        await engine.aclose()
    assert str(caught.value).startswith('mcp server "gone" failed to start:')


async def test_a_conversations_sandbox_that_relists_replaces_the_probed_lists(
    make_ctx: Callable[..., CallContext],
) -> None:
    changed = asyncio.Event()

    def told(_name: str) -> None:
        changed.set()

    engine = McpEngine(
        McpConfig(servers=(python_server("cat", CATALOG_SERVER, isolation="per_conversation"),)), on_catalog=told
    )
    try:
        await engine.start()
        assert [p.name for p in engine.prompts()] == ["picture"]
        changed.clear()
        result = await engine.conversation_source().call("add_more", {}, make_ctx("conv-9").ctx)
        assert result.text == "added"
        async with asyncio.timeout(20):
            while len(engine.prompts()) < 2 or len(engine.resources()) < 4:
                await changed.wait()
                changed.clear()
        assert [p.name for p in engine.prompts()] == ["picture", "later"]
        later = await engine.read_resource("cat", "test://later.txt", conversation_id="conv-9")
    finally:
        await engine.aclose()
    assert later.text == "later"


def test_an_image_too_big_to_attach_is_a_line_and_counts_as_cut() -> None:
    import base64

    import mcp_types as types

    from desktop_agent.mcp_engine.catalog import MAX_IMAGE_BYTES, resource_content

    big = base64.b64encode(b"\0" * (MAX_IMAGE_BYTES + 1)).decode()
    small = base64.b64encode(b"\x89PNG").decode()
    content = resource_content("s", "x://pics", [
        types.BlobResourceContents(uri="x://big.png", mime_type="image/png", blob=big),
        types.BlobResourceContents(uri="x://small.png", mime_type="image/png", blob=small),
    ])
    assert content.text == (
        "[image: image/png, 5,000,001 bytes, not attached: over 5,000,000 bytes]\n[image: image/png, 4 bytes]"
    )
    assert [i.data for i in content.images] == [b"\x89PNG"]
    assert content.truncated
