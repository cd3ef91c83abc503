"""How much of the OpenAI message format an endpoint's chat template
understands (:class:`WireProfile`): the standard form, the standard form
with the rounds that must not call tools sent without tools, and the strict
form for templates with no system or tool role. The normalizer
(``core/wire.py``) keeps every rule of contracts §2a under each; the
provider picks the profile and remembers it per endpoint.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

WireProfileName = Literal["standard", "planning_without_tools", "strict"]
WIRE_PROFILE_NAMES: tuple[str, ...] = get_args(WireProfileName)


@dataclass(frozen=True, slots=True)
class WireProfile:
    """How much of the OpenAI message format an endpoint's chat template
    understands. Every profile keeps every rule of ``core/wire.py``'s docstring."""

    name: WireProfileName
    system_role: bool
    """False: no system message at all; its text leads the first user
    message, the way Gemma's own template folds it ("System role not
    supported" otherwise)."""
    native_tool_history: bool
    """False: earlier tool calls are replayed as text (the assistant says
    what it called, the result comes back as a user message), for templates
    with no tool role (Gemma) and servers that refuse tool messages in a
    request without ``tools`` (Bedrock). New calls still arrive natively."""
    planning_tools: bool = True
    """True: a round that must not call tools (planning, continuation) still
    carries the turn's ``tools``, with ``tool_choice: "none"``, so that its
    prompt prefix is the tool round's and a local server reuses its prompt
    cache. False: such a round is sent without tools (for servers that
    refuse ``tool_choice: "none"``, or tools the request does not use)."""


STANDARD = WireProfile("standard", system_role=True, native_tool_history=True)
PLANNING_WITHOUT_TOOLS = WireProfile(
    "planning_without_tools", system_role=True, native_tool_history=True, planning_tools=False
)
"""The standard profile, but rounds that must not call tools go without
them: what the provider retries with when such a request is refused."""
STRICT = WireProfile("strict", system_role=False, native_tool_history=False, planning_tools=False)
"""The strictest profile: what the provider retries with after a 400 that
names roles, system messages or tools (see ``llm/errors.py``)."""

_PROFILES: dict[str, WireProfile] = {p.name: p for p in (STANDARD, PLANNING_WITHOUT_TOOLS, STRICT)}


def profile_named(name: str | None) -> WireProfile:
    """The profile called ``name``; the standard one for None or an unknown name."""
    return _PROFILES.get(name or "", STANDARD)
