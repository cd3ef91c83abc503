"""Structured content, resource links and embedded resources from the real
server-everything reach ``ToolResult`` for the card, while the model keeps
reading text (stdio and streamable HTTP)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio

from desktop_agent.core.messages import ResourceRef
from desktop_agent.mcp_engine import McpConfig, McpEngine, ServerConfig
from desktop_agent.mcp_engine.errors import McpEngineError
from desktop_agent.testing.everything import everything_stdio
from tests.mcp_engine.conftest import CallContext

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module", params=["stdio", "http"])
def server_config(request: pytest.FixtureRequest) -> ServerConfig:
    if request.param == "stdio":
        return everything_stdio("everything")
    url = request.getfixturevalue("everything_http").url
    return ServerConfig(name="everything", transport="http", url=url)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def engine(server_config: ServerConfig) -> AsyncIterator[McpEngine]:
    engine = McpEngine(McpConfig(servers=(server_config,)))
    try:
        assert await engine.start() == []
        yield engine
    finally:
        await engine.aclose()


@pytest.mark.asyncio(loop_scope="module")
async def test_structured_content_goes_to_the_card_and_the_text_to_the_model(
    engine: McpEngine, make_ctx: Callable[..., CallContext]
) -> None:
    result = await engine.shared_source().call("get-structured-content", {"location": "Chicago"}, make_ctx().ctx)

    weather = {"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82}
    assert result.structured == weather
    assert result.text == '{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}'
    assert not result.is_error and result.resources == ()


@pytest.mark.asyncio(loop_scope="module")
async def test_resource_links_are_kept_for_the_card_with_their_type(
    engine: McpEngine, make_ctx: Callable[..., CallContext]
) -> None:
    result = await engine.shared_source().call("get-resource-links", {"count": 2}, make_ctx().ctx)

    assert result.resources == (
        # server-everything labels its blob links text/plain too: the card shows what the server says.
        ResourceRef("demo://resource/dynamic/blob/1", "Blob Resource 1", "text/plain",
                    "Resource 1: plaintext resource"),
        ResourceRef("demo://resource/dynamic/text/2", "Text Resource 2", "text/plain",
                    "Resource 2: plaintext resource"),
    )
    assert result.text.splitlines()[1:] == [
        "[resource link: Blob Resource 1 demo://resource/dynamic/blob/1]",
        "[resource link: Text Resource 2 demo://resource/dynamic/text/2]",
    ]


@pytest.mark.asyncio(loop_scope="module")
async def test_an_embedded_text_resource_carries_its_text(
    engine: McpEngine, make_ctx: Callable[..., CallContext]
) -> None:
    result = await engine.shared_source().call(
        "get-resource-reference", {"resourceType": "Text", "resourceId": 3}, make_ctx().ctx
    )

    [ref] = result.resources
    assert (ref.uri, ref.name, ref.mime, ref.embedded) == ("demo://resource/dynamic/text/3", "3", "text/plain", True)
    assert ref.text is not None and ref.text in result.text


@pytest.mark.asyncio(loop_scope="module")
async def test_a_linked_resource_is_read_through_the_engine(engine: McpEngine) -> None:
    text = await engine.read_resource("everything", "demo://resource/dynamic/text/2")
    image = await engine.read_resource("everything", "demo://resource/dynamic/blob/1")

    assert text.text.startswith("Resource 2: This is a plaintext resource created at ")
    assert (text.mime_type, text.truncated) == ("text/plain", False)
    assert image.server == "everything" and image.uri == "demo://resource/dynamic/blob/1"


@pytest.mark.asyncio(loop_scope="module")
async def test_reading_from_an_unknown_server_or_a_bad_uri_is_one_line(engine: McpEngine) -> None:
    with pytest.raises(McpEngineError, match=r'^unknown mcp server "nope"$'):
        await engine.read_resource("nope", "demo://x")
    with pytest.raises(McpEngineError, match=r'^mcp server "everything": resource "demo://nothing/here" failed: ') as caught:
        await engine.read_resource("everything", "demo://nothing/here")
    assert "\n" not in str(caught.value)
