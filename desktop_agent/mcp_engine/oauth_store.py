"""Where a remote server's sign-in is kept: the system keyring, per server URL.

Two entries per URL under the service ``desktop-agent``: the tokens
(``mcp-oauth-tokens:URL``) and the registered client
(``mcp-oauth-client:URL``), each the SDK model as JSON. Two, not one, so
each stays under the size limit of the smallest keyrings (Windows'
Credential Manager takes 2,560 bytes).

Without a usable keyring (a headless box with no Secret Service) the
sign-in is kept in memory only, for this run: tokens are never written to a
file in clear, and never logged. The keyring is slow (D-Bus) and blocking,
so every call runs in a worker thread; ``keyring`` is imported on first use
(:mod:`desktop_agent.storage.secrets` says why).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TypeVar

from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import ValidationError

log = logging.getLogger(__name__)
M = TypeVar("M", OAuthToken, OAuthClientInformationFull)

SERVICE = "desktop-agent"
_TOKENS = "mcp-oauth-tokens:"
_CLIENT = "mcp-oauth-client:"


class CredentialStore:
    """The sign-ins of every remote server, keyed by its URL."""

    def __init__(self) -> None:
        self._memory: dict[str, str] = {}
        """Entries kept for this run only, when there is no usable keyring."""
        self._warned = False

    async def tokens(self, url: str) -> OAuthToken | None:
        return _parse(OAuthToken, await self._get(_TOKENS + url), url)

    async def client(self, url: str) -> OAuthClientInformationFull | None:
        return _parse(OAuthClientInformationFull, await self._get(_CLIENT + url), url)

    async def set_tokens(self, url: str, tokens: OAuthToken) -> None:
        await self._set(_TOKENS + url, tokens.model_dump_json(exclude_none=True))

    async def set_client(self, url: str, client: OAuthClientInformationFull) -> None:
        await self._set(_CLIENT + url, client.model_dump_json(exclude_none=True))

    async def forget(self, url: str, *, client: bool = True) -> None:
        """Remove the tokens (and the registered client) of ``url``."""
        await self._set(_TOKENS + url, None)
        if client:
            await self._set(_CLIENT + url, None)

    async def _get(self, key: str) -> str | None:
        if key in self._memory:
            return self._memory[key]
        return await asyncio.to_thread(self._keyring_get, key)

    async def _set(self, key: str, value: str | None) -> None:
        self._memory.pop(key, None)
        if not await asyncio.to_thread(self._keyring_set, key, value) and value is not None:
            self._memory[key] = value

    def _keyring_get(self, key: str) -> str | None:
        import keyring
        import keyring.errors

        if not self._usable():
            return None
        try:
            return keyring.get_password(SERVICE, key)
        except keyring.errors.KeyringError as exc:
            self._say_unusable(exc)
            return None

    def _keyring_set(self, key: str, value: str | None) -> bool:
        """Whether the keyring took it."""
        import keyring
        import keyring.errors

        if not self._usable():
            return False
        try:
            if value is None:
                try:
                    keyring.delete_password(SERVICE, key)
                except keyring.errors.PasswordDeleteError:
                    pass
            else:
                keyring.set_password(SERVICE, key, value)
        except keyring.errors.KeyringError as exc:
            self._say_unusable(exc)
            return False
        return True

    def _usable(self) -> bool:
        import keyring
        from keyring.backends import fail, null

        if isinstance(keyring.get_keyring(), (fail.Keyring, null.Keyring)):
            self._say_unusable(None)
            return False
        return True

    def _say_unusable(self, exc: Exception | None) -> None:
        if not self._warned:
            self._warned = True
            why = f" ({type(exc).__name__})" if exc is not None else ""
            log.warning("no usable system keyring%s: MCP sign-ins are kept for this run only", why)


def _parse(model: type[M], text: str | None, url: str) -> M | None:
    if not text:
        return None
    try:
        return model.model_validate_json(text)
    except ValidationError:
        log.warning("the stored sign-in for %s is unreadable; it is ignored", url)
        return None
