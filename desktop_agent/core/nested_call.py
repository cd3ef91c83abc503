"""A request made on behalf of a running tool call, approved like a tool
call of its own (contracts §10, "MCP in a user message": a server's
sampling request).

While an MCP tool runs, its server may ask the app to do something for it
(let the app's model answer a prompt). The user must approve that as they
approve a tool, with every rule of an approval: the same
:class:`~desktop_agent.core.approval.ApprovalManager` (so the playback queue
blocks on it, the always-allow list and the headless flags answer it, its
timeout counts from when it is shown, the audit records it), the same
card. So the running call's context lends a :class:`NestedCalls`: its
:meth:`NestedCalls.run` pushes a ``tool_call`` sequence (``start``,
``approval_required``, ``executing``, ``result``) with a fresh
``tool_call_id`` and ``parent_tool_call_id`` = the running call, and does
the work only once approved.

How it differs from a sub-agent's nested call (``core/sub_agent.py``):

- Not approved (rejected, timed out), the request fails and the running
  call goes on: the server hears the refusal and its tool decides what to
  answer (the approval is registered with ``keeps_turn``, so a rejection
  does not end the turn).
- The wait does not tell the turn it is waiting: the turn stays in its
  executing phase, so an interrupt cancels the running call as usual. The
  driver then ends the nested call first (:meth:`NestedCalls.end`, its
  ``tool_rejected`` before the running call's own), cancels the work under
  way, and nothing of the nested call reaches the bus after that.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.audit import ApprovalRequest, Decision
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.json_types import JSONObject
from desktop_agent.core.messages import InterruptReason, ToolCallMessage, ToolRejectedMessage
from desktop_agent.core.ports import ToolResult
from desktop_agent.core.rejection import rejection_text
from desktop_agent.core.session import SessionManager

log = logging.getLogger(__name__)


class TurnScope(Protocol):
    """What of the turn a nested call uses (``core.tool_driver.TurnScope``)."""

    @property
    def bus(self) -> SessionMessageBus: ...
    @property
    def session_id(self) -> str: ...
    @property
    def approvals(self) -> ApprovalManager: ...
    @property
    def sessions(self) -> SessionManager: ...
    @property
    def approval_timeout_s(self) -> float: ...
    @property
    def timer_from_shown(self) -> bool: ...


@runtime_checkable
class NestedCallHost(Protocol):
    """What a running call's context lends (attribute ``nested_calls``)."""

    async def run(
        self, name: str, arguments: JSONObject, work: Callable[[], Awaitable[ToolResult]], *, server: str | None
    ) -> ToolResult | None:
        """Ask, then do ``work``; its result (also the call's ``result`` on
        the bus), or None when the user did not approve."""
        ...


@dataclass(slots=True)
class _Active:
    call_id: str
    name: str
    arguments: JSONObject
    key: str
    executing: bool = False
    ended: bool = False
    work: asyncio.Task[ToolResult] | None = None


class NestedCalls:
    """The nested calls of one running call (made by the driver with its context)."""

    def __init__(
        self, scope: TurnScope, parent_id: str, conversation_id: str, *, parents: tuple[str, ...] = ()
    ) -> None:
        """``parent_id``: the running call; ``parents``: the calls above it
        (a sub-agent's ``sub_agent`` call), outermost first."""
        self._scope = scope
        self._parent_id = parent_id
        self._conversation_id = conversation_id
        self._parents = (*parents, parent_id)
        self._count = itertools.count(1)
        self._active: list[_Active] = []

    async def run(
        self, name: str, arguments: JSONObject, work: Callable[[], Awaitable[ToolResult]], *, server: str | None
    ) -> ToolResult | None:
        scope = self._scope
        n = next(self._count)
        call_id = request_call_id(self._parent_id, name, n)
        task_id = f"{self._parent_id}.{name}{n}"
        self._push(ToolCallMessage("start", call_id, name, arguments, parent_tool_call_id=self._parent_id))
        request = ApprovalRequest(
            tool_name=name, tool_call_id=call_id, arguments=arguments, conversation_id=self._conversation_id,
            server=server, parents=self._parents,
        )
        key = scope.approvals.register(scope.session_id, task_id, request, keeps_turn=True)
        active = _Active(call_id, name, arguments, key)
        self._active.append(active)
        try:
            self._push(ToolCallMessage(
                "approval_required", call_id, name, arguments, task_id=task_id, parent_tool_call_id=self._parent_id
            ))
            decision = await scope.approvals.wait_decision(
                key, scope.approval_timeout_s, from_shown=scope.timer_from_shown
            )
            if active.ended:
                return None
            if decision != "approved":
                self._end(active, _REASONS[decision])
                return None
            active.executing = True
            self._push(ToolCallMessage("executing", call_id, name, arguments, parent_tool_call_id=self._parent_id))
            active.work = asyncio.ensure_future(work())
            result = await asyncio.shield(active.work)
            if active.ended:
                return None
            active.ended = True
            self._push(ToolCallMessage(
                "result", call_id, name, arguments, result=result.text, is_error=result.is_error,
                parent_tool_call_id=self._parent_id, images=result.images,
            ))
            return result
        except asyncio.CancelledError:
            # The task asking was cancelled (the running call stopped): the
            # request ends here, before its call does.
            if not active.ended:
                if active.work is not None:
                    active.work.cancel()
                self._end(active, scope.sessions.cancel_reason(scope.session_id) or "user")
            raise
        finally:
            scope.approvals.respond(key, False, by="interrupt")  # nothing if it was decided
            self._active.remove(active)

    def end(self, reason: InterruptReason) -> None:
        """The running call ends (an interrupt): every nested call still
        open gets its ``tool_rejected`` now, and its work is cancelled."""
        for active in list(self._active):
            if not active.ended:
                if active.work is not None:
                    active.work.cancel()
                self._end(active, reason)

    def _end(self, active: _Active, reason: InterruptReason) -> None:
        active.ended = True
        self._push(ToolRejectedMessage(
            active.call_id, active.name, active.arguments, rejection_text(reason, executing=active.executing),
            None, parent_tool_call_id=self._parent_id,
        ))

    def _push(self, message: ToolCallMessage | ToolRejectedMessage) -> None:
        self._scope.bus.push(message)


def request_call_id(parent_id: str, name: str, n: int) -> str:
    """The ``tool_call_id`` of the ``n``-th request ``name`` made on behalf of ``parent_id``."""
    return f"{parent_id}-{name}-{n}"


def request_allow_key(name: str, server: str) -> str:
    """The always-allow entry for ``server``'s requests of kind ``name``
    (``sampling:everything``). Never a tool's entry: those hold a ``/``, and
    a tool name cannot hold a ``:``."""
    return f"{name}:{server}"


def is_request_allow_key(key: str) -> bool:
    return "/" not in key and ":" in key


def approval_subject(message: ToolCallMessage) -> str:
    """What the always-allow list is asked about for an ``approval_required``:
    the tool's name, or for a request made on behalf of a running call its
    entry (:func:`request_allow_key`, the server from its ``arguments``).
    A request is known by its id (:func:`request_call_id`): a sub-agent's
    nested calls have the model's ids."""
    parent = message.parent_tool_call_id
    arguments = message.arguments or {}
    server = arguments.get("server")
    if parent is None or not isinstance(server, str):
        return message.tool_name
    if not message.tool_call_id.startswith(f"{parent}-{message.tool_name}-"):
        return message.tool_name
    return request_allow_key(message.tool_name, server)


_REASONS: dict[Decision, InterruptReason] = {
    "rejected": "rejected", "timed_out": "approval_timeout", "interrupted": "user", "approved": "user",
}
"""How a nested call that was not approved ends (its ``tool_rejected`` reason)."""
