"""sub_agent: hand a short task to a nested agent with a few tools (contracts §9).

The tool needs approval like any tool that acts. It checks ``allowed_tools``
before anything runs: a name the main agent does not have, ``sub_agent``
itself (depth 1), and the tools that talk to the user directly
(``ask_user_question``, ``show_card``: the sub-agent reports through its
answer) are refused in its result. Then it builds the sub-agent's router —
the allowed built-in tools as they are, the allowed MCP tools from
instances of their servers of its own (``isolate``: the MCP engine's
``isolated_source``; a per-conversation server gets a temporary profile
folder, removed when the sub-agent ends) — and runs the nested agent
through ``ctx.sub_agents``, which the chat handler provides
(``core/sub_agent.py``: the nested calls' approvals, bus messages and
cancellation are the turn's own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext

from pydantic import BaseModel, Field

from desktop_agent.core.json_types import JSONMapping
from desktop_agent.core.ports import Tool, ToolContext, ToolResult, ToolSource, ToolSpec
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.core.sub_agent import SUB_AGENT
from desktop_agent.core.tool_router import SubAgentHost, ToolRouter
from desktop_agent.tools.arguments import ArgumentError, NonEmptyStr, parse_arguments, tool_parameters

NAME = SUB_AGENT
DEFAULT_MAX_STEPS = 6
MAX_STEPS = 20
NOT_FOR_SUB_AGENTS: frozenset[str] = frozenset({SUB_AGENT, "ask_user_question", "show_card"})
"""Never allowed: nesting (depth 1) and talking to the user directly."""

Isolate = Callable[[Sequence[str]], AbstractAsyncContextManager[ToolSource | None]]
"""Own server instances holding the given MCP tool names, for one sub-agent
run (closed, and temporary folders removed, on exit)."""


class SubAgentArgs(BaseModel):
    task: NonEmptyStr = Field(description="What the sub-agent should do, with everything it needs to know.")
    allowed_tools: list[str] = Field(description="Names of the tools the sub-agent may use.")
    max_steps: int | None = Field(
        None, ge=1, le=MAX_STEPS, description=f"Tool rounds at most (default {DEFAULT_MAX_STEPS})."
    )


SPEC = ToolSpec(
    name=NAME,
    description=(
        "Delegate a self-contained task to a short-lived sub-agent that works with only the "
        "listed tools (each of its tool calls is approved by the user) and returns its final "
        "answer. It sees no conversation history: put everything it needs in the task. "
        "sub_agent, ask_user_question and show_card cannot be given to it."
    ),
    parameters=tool_parameters(SubAgentArgs),
    skip_approval=False,
    # It changes nothing itself: each of its calls is approved (and marked) on its own.
    annotations=ToolAnnotations(read_only=False, destructive=False, idempotent=False, open_world=False),
)


class SubAgentTool:
    """Built-in ``sub_agent``; implements Tool. Call :meth:`bind` with the
    main router (the tools the sub-agent may be given) before use."""

    def __init__(self, *, isolate: Isolate | None = None, router: ToolRouter | None = None) -> None:
        self._isolate = isolate
        self._router = router

    def bind(self, router: ToolRouter) -> None:
        self._router = router

    @property
    def spec(self) -> ToolSpec:
        return SPEC

    async def run(self, arguments: JSONMapping, ctx: ToolContext) -> ToolResult:
        try:
            args = parse_arguments(SubAgentArgs, arguments)
        except ArgumentError as exc:
            return ToolResult(f"{NAME}: invalid arguments: {exc}", is_error=True)
        host: SubAgentHost | None = getattr(ctx, "sub_agents", None)
        if host is None or self._router is None:
            return ToolResult(f"{NAME}: not run: a sub-agent cannot start another one", is_error=True)
        builtins, mcp_names, refused = self._split(args.allowed_tools)
        if refused:
            return ToolResult(f"{NAME}: not run: " + "; ".join(refused), is_error=True)
        steps = args.max_steps or DEFAULT_MAX_STEPS
        isolated = self._isolate(mcp_names) if self._isolate and mcp_names else nullcontext(None)
        async with isolated as source:
            router = ToolRouter(builtins, [source] if source is not None else [], redactor=self._router.redactor)
            return await host.run_sub_agent(ctx, args.task, router, steps)

    def _split(self, names: Sequence[str]) -> tuple[list[Tool], list[str], list[str]]:
        """(allowed built-in tools, allowed MCP tool names, refusals)."""
        assert self._router is not None
        builtins: list[Tool] = []
        mcp_names: list[str] = []
        refused: list[str] = []
        for name in dict.fromkeys(names):
            route = self._router.lookup(name)
            if name in NOT_FOR_SUB_AGENTS:
                refused.append(f"{name!r} is not allowed in a sub-agent")
            elif route is None:
                refused.append(f"unknown tool {name!r}")
            elif route.builtin is not None:
                builtins.append(route.builtin)
            else:
                mcp_names.append(name)
        if refused:
            known = sorted(s.name for s in self._router.specs() if s.name not in NOT_FOR_SUB_AGENTS)
            refused.append("tools it can be given: " + (", ".join(known) or "none"))
        if mcp_names and self._isolate is None:
            # No engine to make instances with (a test): the main routes, restricted.
            builtins.extend(_RoutedMcpTool(self._router, n) for n in mcp_names)
            mcp_names = []
        return builtins, mcp_names, refused


class _RoutedMcpTool:
    """An MCP tool of the main router, for a sub-agent without its own
    instances. Its spec keeps ``server``, so it never skips approval."""

    def __init__(self, router: ToolRouter, name: str) -> None:
        route = router.lookup(name)
        assert route is not None
        self._route = route

    @property
    def spec(self) -> ToolSpec:
        return self._route.spec

    async def run(self, arguments: JSONMapping, ctx: ToolContext) -> ToolResult:
        return await self._route.run(arguments, ctx)
