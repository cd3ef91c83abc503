"""Asking one connection for a prompt, a resource or a completion.

Each request runs in the caller's task on the live session (as tool calls
do), bounded by the server's ``timeout_s``, and every failure becomes one
:class:`~desktop_agent.mcp_engine.catalog.McpCatalogError` line naming the
server and what failed, so the window and the headless mode can show it as
is and send nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping
from typing import TypeVar

import mcp_types as types
from mcp import ClientSession

from desktop_agent.mcp_engine.catalog import (
    ExpandedPrompt,
    McpCatalogError,
    PromptInfo,
    ResourceContent,
    TemplateInfo,
    expanded_prompt,
    resource_content,
)
from desktop_agent.mcp_engine.connection import ServerConnection
from desktop_agent.mcp_engine.errors import McpEngineError, describe

T = TypeVar("T")


async def get_prompt(connection: ServerConnection, name: str, arguments: Mapping[str, str]) -> ExpandedPrompt:
    server = connection.config.name
    what = f'prompt "{name}"'
    session = await _started(connection)
    result = await _bounded(connection, what, session.get_prompt(name, dict(arguments)))
    return expanded_prompt(server, name, result)


async def read_resource(connection: ServerConnection, uri: str) -> ResourceContent:
    server = connection.config.name
    session = await _started(connection)
    result = await _bounded(connection, f'resource "{uri}"', session.read_resource(uri))
    return resource_content(server, uri, list(result.contents))


async def complete(
    connection: ServerConnection,
    ref: PromptInfo | TemplateInfo,
    argument: str,
    value: str,
    context: Mapping[str, str],
) -> list[str]:
    """The server's suggestions; [] when it does not complete at all."""
    session = await _started(connection)
    if not connection.catalog.completions:
        return []
    sdk_ref: types.PromptReference | types.ResourceTemplateReference
    if isinstance(ref, PromptInfo):
        sdk_ref = types.PromptReference(name=ref.name)
    else:
        sdk_ref = types.ResourceTemplateReference(uri=ref.uri_template)
    result = await _bounded(
        connection,
        f'completion of "{argument}"',
        session.complete(sdk_ref, {"name": argument, "value": value}, dict(context) if context else None),
    )
    return list(result.completion.values)


async def _started(connection: ServerConnection) -> ClientSession:
    try:
        return await connection.ensure_started()
    except McpEngineError as exc:
        raise McpCatalogError(str(exc)) from None


async def _bounded(connection: ServerConnection, what: str, request: Awaitable[T]) -> T:
    server = connection.config.name
    timeout = connection.config.timeout_s
    try:
        async with asyncio.timeout(timeout):
            return await request
    except TimeoutError:
        raise McpCatalogError(f'mcp server "{server}": {what} gave no answer in {timeout:g} s') from None
    except Exception as exc:
        raise McpCatalogError(f'mcp server "{server}": {what} failed: {describe(exc)}') from exc
