"""A local OAuth 2.1 authorization server and the MCP server it protects,
built with the mcp SDK's own server-side auth, for the sign-in tests.

One Starlette app on 127.0.0.1 (a random port, its own thread and event
loop, so a test's loop can block on the keyring without stalling it) serves
both halves the way many real remote servers do: the protected-resource
metadata and the ``/mcp`` (or SSE ``/sse``) endpoint (a bearer token required, one tool
``whoami``), and the authorization server (metadata, dynamic client
registration, ``/authorize``, ``/token``). The 401 names the
protected-resource metadata, so a client walks the whole discovery.

Consent is given at once: a GET of the authorize URL redirects to the
client's ``redirect_uri`` with a code, so a test plays the browser with one
HTTP request. The :class:`MemoryAuthServer` knobs make it misbehave on
purpose: refuse consent (``access_denied``), refuse the client at the token
endpoint (``invalid_client``), forget every access token (expired), refuse
every refresh token.
"""

from __future__ import annotations

import asyncio
import secrets
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Literal

import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    IdentityAssertionParams,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl

SCOPE = "mcp"
_PATHS = {"http": "/mcp", "sse": "/sse"}
Refusal = Literal["access_denied", "invalid_client"]


@dataclass
class MemoryAuthServer:
    """An ``OAuthAuthorizationServerProvider`` kept in memory."""

    refuse: Refusal | None = None
    """Refuse the next sign-ins: at consent or at the token endpoint."""
    refuse_refresh: bool = False
    """Every refresh token is refused (``invalid_grant``)."""
    access_ttl_s: int = 3600
    clients: dict[str, OAuthClientInformationFull] = field(default_factory=dict)
    codes: dict[str, AuthorizationCode] = field(default_factory=dict)
    access: dict[str, AccessToken] = field(default_factory=dict)
    refresh: dict[str, RefreshToken] = field(default_factory=dict)
    registrations: int = 0
    refreshes: int = 0
    """Refresh-token exchanges answered with new tokens."""

    def expire_access_tokens(self) -> None:
        """Every access token issued so far stops working (as if it had expired)."""
        self.access.clear()

    # -------------------------------------------------------------- provider

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info
        self.registrations += 1

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        if self.refuse == "access_denied":
            raise AuthorizeError("access_denied", "the user said no")
        code = secrets.token_urlsafe(24)
        assert client.client_id is not None
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        if self.refuse == "invalid_client":
            raise TokenError("invalid_client", "this client may not sign in")
        return self._issue(client, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        if self.refuse_refresh:
            return None  # the token handler answers invalid_grant
        return self.refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        self.refreshes += 1
        return self._issue(client, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        return self.access.get(token)

    async def exchange_identity_assertion(
        self, client: OAuthClientInformationFull, params: IdentityAssertionParams
    ) -> OAuthToken:
        raise TokenError("unsupported_grant_type", "no identity assertions here")

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, client: OAuthClientInformationFull, scopes: list[str], resource: str | None) -> OAuthToken:
        assert client.client_id is not None
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        expires_at = int(time.time()) + self.access_ttl_s
        self.access[access] = AccessToken(
            token=access, client_id=client.client_id, scopes=scopes, expires_at=expires_at, resource=resource
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client.client_id, scopes=scopes, resource=resource)
        return OAuthToken(
            access_token=access, token_type="Bearer", expires_in=self.access_ttl_s,
            refresh_token=refresh, scope=" ".join(scopes),
        )


@dataclass
class ProtectedServer:
    """A running protected MCP server and its authorization server."""

    base: str
    """``http://127.0.0.1:PORT``: the issuer."""
    auth: MemoryAuthServer
    transport: Literal["http", "sse"] = "http"

    @property
    def url(self) -> str:
        """The MCP endpoint (``/mcp``, streamable HTTP, or ``/sse``)."""
        return f"{self.base}{_PATHS[self.transport]}"


def _free_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def _app(base: str, auth: MemoryAuthServer, transport: Literal["http", "sse"]) -> object:
    with warnings.catch_warnings():  # validate_token_resource unset is a deprecation notice only
        warnings.simplefilter("ignore")
        settings = AuthSettings(
            issuer_url=AnyHttpUrl(base),
            resource_server_url=AnyHttpUrl(f"{base}{_PATHS[transport]}"),
            client_registration_options=ClientRegistrationOptions(enabled=True, valid_scopes=[SCOPE]),
            revocation_options=RevocationOptions(enabled=True),
            required_scopes=[SCOPE],
            validate_token_resource=False,
        )
    server = MCPServer("protected", auth_server_provider=auth, auth=settings)

    @server.tool()
    def whoami() -> str:
        """Say that the caller got in."""
        return "signed in"

    return server.streamable_http_app() if transport == "http" else server.sse_app()


class _Server(uvicorn.Server):
    """Says when it listens (no polling)."""

    def __init__(self, config: uvicorn.Config, started: threading.Event) -> None:
        super().__init__(config)
        self._started = started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        self._started.set()


@contextmanager
def run_protected_server(
    auth: MemoryAuthServer | None = None, transport: Literal["http", "sse"] = "http"
) -> Iterator[ProtectedServer]:
    """Serve the protected MCP server (streamable HTTP or SSE) until the block ends."""
    auth = auth or MemoryAuthServer()
    sock = _free_socket()
    base = f"http://127.0.0.1:{sock.getsockname()[1]}"
    config = uvicorn.Config(_app(base, auth, transport), log_level="warning", lifespan="on")  # type: ignore[arg-type]
    started = threading.Event()
    server = _Server(config, started)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])), daemon=True)
    thread.start()
    if not started.wait(30):
        raise RuntimeError("the protected test server did not start")
    try:
        yield ProtectedServer(base, auth, transport)
    finally:
        server.should_exit = True
        thread.join(30)
        sock.close()
