"""What the app does when a server asks it something or tells it something.

A server may send the client requests of its own while a tool call runs
(elicitation: "ask the user"; sampling: "let your model answer"; roots:
"which folders may I use") and notifications at any time (log messages,
changed prompt or resource lists). The connection only routes them: every
answer comes from whoever set the hook (the services layer, which knows the
bus, the user and the model). A hook left ``None`` gets the SDK's refusal
(elicitation and sampling) or an empty answer (roots), and a notification
nobody listens to is dropped.

One :class:`ClientHooks` object is shared by every connection of an engine
and read at the moment a request arrives, so hooks set after the servers
started still apply.

:class:`CallOrigin` says which running tool call a request belongs to: the
SDK does not tell the client which of its requests a server request relates
to, so the connection names the most recently started call still running on
that connection (the one a server asks about in practice: a server answers
a request while handling it); ``None`` when no call is running (a server
asking on its own).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

import mcp_types as types

from desktop_agent.core.ports import ToolContext
from desktop_agent.mcp_engine.transports import AuthFactory

ListKind = Literal["tools", "prompts", "resources"]


@dataclass(frozen=True, slots=True, eq=False)
class CallOrigin:
    """The running tool call a server request belongs to (each call its own, by identity)."""

    server: str
    tool: str
    ctx: ToolContext


ElicitHook = Callable[[str, types.ElicitRequestParams, CallOrigin | None], Awaitable[types.ElicitResult | types.ErrorData]]
SampleHook = Callable[
    [str, types.CreateMessageRequestParams, CallOrigin | None], Awaitable[types.CreateMessageResult | types.ErrorData]
]
RootsHook = Callable[[str], Awaitable[types.ListRootsResult]]
"""The folders shared with the named server."""
LogHook = Callable[[str, types.LoggingMessageNotificationParams], None]
ListChangedHook = Callable[[str, ListKind], None]


@dataclass(slots=True)
class ClientHooks:
    """Set any of these (also after start) to answer or hear servers."""

    elicit: ElicitHook | None = None
    sample: SampleHook | None = None
    roots: RootsHook | None = None
    on_log: LogHook | None = None
    on_list_changed: ListChangedHook | None = None
    auth: AuthFactory | None = None
    """Makes a remote server's sign-in provider for each session it opens
    (:meth:`desktop_agent.mcp_engine.oauth.OAuthManager.auth_for`)."""
