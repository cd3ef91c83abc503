"""Request checks that make the scripted server refuse what strict servers
refuse (Qwen and Gemma chat templates in llama.cpp and Ollama, Mistral in
vLLM: contracts §2a), with their exact error texts.

Give one to :class:`~desktop_agent.testing.scripted_server.ScriptedLLMServer`
as ``refuse``: it answers 400 with the check's message instead of the next
scripted reply, the way vLLM or llama.cpp answer when a chat template raises.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

RequestCheck = Callable[[Mapping[str, Any]], str | None]
"""The refusal message for a request body, or None to serve it."""


def _roles(request: Mapping[str, Any]) -> list[str]:
    return [str(m.get("role")) for m in request.get("messages", []) if isinstance(m, Mapping)]


def system_first(request: Mapping[str, Any]) -> str | None:
    """Qwen3.5 templates: a system message anywhere but first."""
    if "system" in _roles(request)[1:]:
        return "System message must be at the beginning."
    return None


def no_system_role(request: Mapping[str, Any]) -> str | None:
    """Gemma templates: any system message."""
    if "system" in _roles(request):
        return "System role not supported"
    return None


def alternating_roles(request: Mapping[str, Any]) -> str | None:
    """Mistral templates: after an optional system message, user and
    assistant alternate (tool messages and tool-call messages aside)."""
    messages = [m for m in request.get("messages", []) if isinstance(m, Mapping)]
    if messages and messages[0].get("role") == "system":
        messages = messages[1:]
    turns = [m.get("role") for m in messages if m.get("role") != "tool" and not m.get("tool_calls")]
    if any((role == "user") != (n % 2 == 0) for n, role in enumerate(turns)):
        return "After the optional system message, conversation roles must alternate user/assistant/user/assistant/..."
    return None


def any_of(*checks: RequestCheck) -> RequestCheck:
    """The first refusal of ``checks``."""

    def check(request: Mapping[str, Any]) -> str | None:
        return next((message for c in checks if (message := c(request)) is not None), None)

    return check
