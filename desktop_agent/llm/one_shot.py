"""One reply of the app's model, without tools, as a whole text: what a
server's sampling request gets once the user approves it.

The request honours the server's limits where the provider can send them
(the OpenAI-compatible one sends ``max_tokens`` and ``temperature``); another
provider (the offline demo) answers as it always does and its text is cut to
about ``max_tokens`` words' worth of characters, so a server never gets more
than it asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from desktop_agent.core.json_types import JSONMapping
from desktop_agent.core.ports import LLMProvider, TextDelta
from desktop_agent.core.stream_parser import strip_tags

CHARS_PER_TOKEN = 4
"""The usual rough size of a token, for a provider that cannot be told the limit."""
STOP_REASONS = {"stop": "endTurn", "length": "maxTokens", "content_filter": "endTurn"}
"""OpenAI finish reasons in the MCP ``stopReason`` words; others are passed on as they are."""


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    model: str
    stop_reason: str


async def complete(
    provider: LLMProvider,
    messages: Sequence[JSONMapping],
    *,
    max_tokens: int | None = None,
    temperature: float | None = None,
) -> Completion:
    """The whole reply; raises :class:`~desktop_agent.core.ports.LLMError`."""
    # Here, not at the top: the services import this module, and an idle
    # window (or the demo model) must not load the openai SDK.
    from desktop_agent.llm.openai_provider import OpenAIProvider

    parts: list[str] = []
    finish: list[str] = []
    if isinstance(provider, OpenAIProvider):
        stream = provider.stream(messages, max_tokens=max_tokens, temperature=temperature, on_finish=finish.append)
    else:
        stream = provider.stream(messages)
    async for delta in stream:
        if isinstance(delta, TextDelta):
            parts.append(delta.text)
    text = "".join(parts)
    if provider.is_demo:
        text = strip_tags(text)  # the offline demo speaks the app's control tags whatever it is asked
    reason = STOP_REASONS.get(finish[-1], finish[-1]) if finish else "endTurn"
    if max_tokens is not None and not isinstance(provider, OpenAIProvider) and len(text) > max_tokens * CHARS_PER_TOKEN:
        text, reason = text[: max_tokens * CHARS_PER_TOKEN], "maxTokens"
    return Completion(text.strip(), provider.model, reason)
