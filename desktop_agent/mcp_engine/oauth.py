"""Signing in to remote servers: OAuth 2.1 with PKCE and dynamic client
registration, as the MCP authorization spec describes, through the SDK's
:class:`~mcp.client.auth.OAuthClientProvider`.

Two kinds of provider, both ``httpx2.Auth`` on the server's HTTP client:

* **the connection's** (:meth:`OAuthManager.auth_for`): never opens a
  browser. It sends the first request as is; only a ``401`` makes it read
  the keyring (a server that wants no sign-in costs no keyring access) and
  present the stored token. A token the server no longer takes is
  refreshed once with the refresh token (the SDK's refresh, after its
  discovery found the token endpoint). When there is no sign-in, or the
  refresh is refused, the request fails with :class:`SignInNeeded`: the
  connection says "sign-in needed" and waits for the user, without holding
  up start-up or the other servers.
* **the sign-in's** (:meth:`OAuthManager.sign_in`, the Tools page's **Sign in**):
  discovery from the 401's ``WWW-Authenticate`` and the protected-resource
  metadata, registration, then the authorization URL opened in the browser
  (``open_url``; headless, it is printed on stderr) and the code received
  by a loopback listener on 127.0.0.1 (:mod:`oauth_loopback`), its
  ``state`` checked, the wait bounded by ``consent_timeout_s``.

Tokens and the registered client live in the keyring
(:mod:`oauth_store`), per server URL, and never in a log.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass
from typing import Literal
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthFlowError
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from pydantic import AnyUrl

from desktop_agent.mcp_engine.config import ServerConfig
from desktop_agent.mcp_engine.errors import McpEngineError, leaf
from desktop_agent.mcp_engine.oauth_loopback import LoopbackListener
from desktop_agent.mcp_engine.oauth_store import CredentialStore

log = logging.getLogger(__name__)

CONSENT_TIMEOUT_S = 300.0
"""How long a sign-in waits for the browser to come back: a person reads a consent page."""
_PROBE_TIMEOUT_S = 30.0
_PLACEHOLDER_REDIRECT = "http://127.0.0.1/callback"
"""The connection's provider never registers or redirects; the SDK wants a URI anyway."""

SignInKind = Literal["needed", "again", "signing_in", "signed_in", "failed"]


@dataclass(frozen=True, slots=True)
class SignInState:
    """A remote server's sign-in, as the Tools page shows it."""

    kind: SignInKind
    """``needed``: never signed in; ``again``: the sign-in expired or was
    refused on refresh; ``signing_in``: the browser is open; ``signed_in``;
    ``failed``: the last sign-in did not work (``reason`` says why)."""
    reason: str | None = None
    """Why it failed, in English (the log, headless); None otherwise."""
    refused: str | None = None
    """The server's OAuth error code when it refused (``invalid_client``,
    ``access_denied``…), for the UI to word."""


class SignInNeeded(McpEngineError):
    """A server wants a sign-in and none is under way: raised inside the
    connection's HTTP request, so its start (or call) fails with this line."""

    def __init__(self, server: str, *, again: bool) -> None:
        where = f"Settings → Tools, or --sign-in {server}"
        if again:
            line = f'mcp server "{server}": the sign-in has expired; sign in again ({where})'
        else:
            line = f'mcp server "{server}" needs you to sign in ({where})'
        super().__init__(line)
        self.server = server
        self.again = again


class SignInFailed(McpEngineError):
    """A sign-in did not work; ``str()`` is the one line: ``sign-in to "x" failed: …``."""

    def __init__(self, server: str, reason: str, refused: str | None = None) -> None:
        super().__init__(f'sign-in to "{server}" failed: {reason}')
        self.reason = reason
        self.refused = refused


class _NeedsConsent(Exception):
    """The connection's provider got as far as the browser: it opens none."""


def sign_in_needed(exc: BaseException) -> SignInNeeded | None:
    """The :class:`SignInNeeded` a failed start or call came from, if any."""
    found: BaseException | None = leaf(exc)
    while found is not None and not isinstance(found, SignInNeeded):
        found = found.__cause__ or found.__context__
    return found


def uses_oauth(config: ServerConfig) -> bool:
    """A remote server may ask for a sign-in, unless the file gives it an
    ``Authorization`` header of its own (an API key: that one is used as is)."""
    if config.transport == "stdio" or config.url is None:
        return False
    return not any(key.lower() == "authorization" for key in config.headers)


def _print_url(server: str, url: str) -> None:
    print(f'Open this address in a browser to sign in to "{server}":\n  {url}', file=sys.stderr, flush=True)


class OAuthManager:
    """Every remote server's sign-in: providers for its connections, the
    sign-in itself, sign-out, and each one's :class:`SignInState`.

    ``open_url(server, url)``: shows the authorization page (the window:
    ``QDesktopServices.openUrl``); by default the address is printed on
    stderr (headless). May be set later as an attribute.
    """

    def __init__(
        self,
        store: CredentialStore | None = None,
        *,
        open_url: Callable[[str, str], None] | None = None,
        consent_timeout_s: float = CONSENT_TIMEOUT_S,
        client_name: str = "Desktop Agent",
    ) -> None:
        self.store = store or CredentialStore()
        self.open_url = open_url or _print_url
        self.consent_timeout_s = consent_timeout_s
        self._client_name = client_name
        self._states: dict[str, SignInState] = {}
        self._asked: set[str] = set()
        """URLs that answered 401 in this run: their next connection presents the token at once."""
        self._running: dict[str, asyncio.Task[None]] = {}
        """Sign-ins under way, by server: a second **Sign in** joins the first."""

    def state(self, server: str) -> SignInState | None:
        """None: the server never asked for a sign-in in this run."""
        return self._states.get(server)

    def states(self) -> dict[str, SignInState]:
        return dict(self._states)

    def _set(self, server: str, state: SignInState) -> None:
        self._states[server] = state

    # ---------------------------------------------------------- connections

    def auth_for(self, config: ServerConfig) -> httpx2.Auth | None:
        """A new connection's provider (each connection its own, reading the keyring)."""
        if not uses_oauth(config):
            return None
        assert config.url is not None
        return _Provider(self, config, self._metadata(_PLACEHOLDER_REDIRECT), interactive=False)

    def _metadata(self, redirect_uri: str) -> OAuthClientMetadata:
        return OAuthClientMetadata(
            client_name=self._client_name,
            redirect_uris=[AnyUrl(redirect_uri)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        )

    # -------------------------------------------------------------- sign-in

    async def sign_in(self, config: ServerConfig) -> None:
        """Sign in to ``config``'s server: consent in the browser, tokens to the keyring.

        Raises :class:`SignInFailed` (one line) when it did not work.
        """
        running = self._running.get(config.name)
        if running is None or running.done():
            running = asyncio.ensure_future(self._sign_in_once(config))
            self._running[config.name] = running
        await running  # cancelled (the app closing): the listener closes, the state goes back

    async def _sign_in_once(self, config: ServerConfig) -> None:
        name = config.name
        if not uses_oauth(config):
            raise SignInFailed(name, "it is not a remote server that signs in")
        assert config.url is not None
        before = self._states.get(name)
        self._set(name, SignInState("signing_in"))
        try:
            await self._sign_in(config, config.url)
        except asyncio.CancelledError:
            self._set(name, before or SignInState("needed"))
            raise
        except Exception as exc:
            failure = _failure(name, exc)
            self._set(name, SignInState("failed", failure.reason, failure.refused))
            raise failure from None
        self._asked.add(config.url)
        self._set(name, SignInState("signed_in"))

    async def _sign_in(self, config: ServerConfig, url: str) -> None:
        listener = LoopbackListener()
        client = await self.store.client(url)
        try:
            port = _port_of(client.redirect_uris[0]) if client and client.redirect_uris else 0
            try:
                await listener.open(port)
            except OSError:  # the registered port is taken: register anew on a free one
                await listener.open(0)
            if client is not None and str(client.redirect_uris and client.redirect_uris[0]) != listener.redirect_uri:
                await self.store.forget(url)
            else:
                await self.store.forget(url, client=False)  # old tokens are no use to a sign-in
            provider = _Provider(self, config, self._metadata(listener.redirect_uri), interactive=True)
            provider.listener = listener
            try:
                async with httpx2.AsyncClient(auth=provider, timeout=_PROBE_TIMEOUT_S) as http:
                    async with http.stream("GET", url, headers={"Accept": "text/event-stream"}) as response:
                        status = response.status_code
            except SignInFailed:
                raise
            except Exception as exc:
                raise _failure(config.name, exc) from exc
            if status == 401 or await self.store.tokens(url) is None:
                raise SignInFailed(config.name, f"the server did not accept the sign-in (HTTP {status})")
        finally:
            await listener.aclose()

    async def sign_out(self, config: ServerConfig) -> None:
        """Forget ``config``'s tokens and registered client; its next connection needs a sign-in."""
        if config.url is None:
            return
        await self.store.forget(config.url)
        self._set(config.name, SignInState("needed"))


class _Provider(OAuthClientProvider):
    """The SDK's provider, made lazy (no keyring before a 401) and, for a
    connection, unable to open a browser (it raises :class:`SignInNeeded`)."""

    def __init__(
        self, manager: OAuthManager, config: ServerConfig, metadata: OAuthClientMetadata, *, interactive: bool
    ) -> None:
        assert config.url is not None
        self._manager = manager
        self._name = config.name
        self._url = config.url
        self._interactive = interactive
        self._armed = interactive or config.url in manager._asked
        self._had_tokens = False
        self.listener: LoopbackListener | None = None
        super().__init__(
            config.url,
            metadata,
            _ServerStorage(manager.store, config.url),
            redirect_handler=self._redirect,
            callback_handler=self._callback,
        )

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        if not self._armed:
            response = yield request
            if response.status_code != 401:
                return
            self._armed = True
            self._manager._asked.add(self._url)
        refreshed = False
        while True:
            flow = super().async_auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                self._had_tokens = self._had_tokens or self.context.current_tokens is not None
                while True:
                    response = yield outgoing
                    if (
                        outgoing is request
                        and response.status_code == 401
                        and not self._interactive
                        and not self.context.can_refresh_token()
                    ):
                        await self._needed()
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                if not self._interactive and self.context.current_tokens is not None:
                    self._manager._set(self._name, SignInState("signed_in"))
                return
            except _NeedsConsent:
                # The stored token was turned down; discovery has found the
                # token endpoint: refresh once, then give up.
                if refreshed or not self.context.can_refresh_token():
                    await self._needed()
                refreshed = True
                self.context.token_expiry_time = 1.0  # long past (0 reads as "no expiry"): refreshed first
            finally:
                await flow.aclose()

    async def _needed(self) -> None:
        known = self._manager.state(self._name)
        again = self._had_tokens or (known is not None and known.kind == "again")
        if again:
            await self._manager.store.forget(self._url, client=False)
        self._manager._set(self._name, SignInState("again" if again else "needed"))
        raise SignInNeeded(self._name, again=again)

    async def _redirect(self, authorization_url: str) -> None:
        if not self._interactive or self.listener is None:
            raise _NeedsConsent
        state = parse_qs(urlsplit(authorization_url).query).get("state", [""])[0]
        self.listener.expect(state)
        self._manager.open_url(self._name, authorization_url)

    async def _callback(self) -> AuthorizationCodeResult:
        assert self.listener is not None
        timeout = self._manager.consent_timeout_s
        try:
            answer = await self.listener.wait(timeout)
        except TimeoutError:
            raise SignInFailed(self._name, f"no answer from the browser within {timeout:g} s") from None
        if answer.error or not answer.code:
            error = answer.error or "no code"
            raise SignInFailed(self._name, f"the server refused: {error}", answer.error)
        return AuthorizationCodeResult(code=answer.code, state=answer.state, iss=answer.iss)


class _ServerStorage:
    """The SDK's ``TokenStorage`` for one server URL."""

    def __init__(self, store: CredentialStore, url: str) -> None:
        self._store = store
        self._url = url

    async def get_tokens(self) -> OAuthToken | None:
        return await self._store.tokens(self._url)

    async def set_tokens(self, tokens: OAuthToken) -> None:
        await self._store.set_tokens(self._url, tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return await self._store.client(self._url)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        await self._store.set_client(self._url, client_info)


_OAUTH_ERROR = re.compile(r'"error"\s*:\s*"([A-Za-z0-9_.-]+)"')


def _failure(server: str, exc: BaseException) -> SignInFailed:
    """One line for a sign-in that broke inside the SDK's flow: the
    server's OAuth error code when its answer names one."""
    found = leaf(exc)
    if isinstance(found, SignInFailed):
        return found
    text = str(found)
    code = _OAUTH_ERROR.search(text)
    if code is not None:
        return SignInFailed(server, f"the server refused: {code.group(1)}", code.group(1))
    if isinstance(found, OAuthFlowError):
        return SignInFailed(server, text.splitlines()[0] if text else type(found).__name__)
    if isinstance(found, httpx2.HTTPError):
        return SignInFailed(server, f"could not reach the server ({type(found).__name__})")
    return SignInFailed(server, f"{type(found).__name__}: {text.splitlines()[0] if text else ''}".rstrip(": "))


def _port_of(uri: object) -> int:
    port = urlsplit(str(uri)).port
    return port or 0


class _QuietExpected(logging.Filter):
    """The SDK logs every exception of its flow with a traceback ("OAuth flow
    error"); the two this module raises on purpose are no error."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, (_NeedsConsent, SignInNeeded, SignInFailed))


logging.getLogger("mcp.client.auth.oauth2").addFilter(_QuietExpected())
