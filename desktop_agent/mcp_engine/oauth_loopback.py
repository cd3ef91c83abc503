"""The loopback redirect listener of a sign-in: where the browser lands
after consent (RFC 8252 §7.3, a native app's redirect to 127.0.0.1).

A bare asyncio server on ``127.0.0.1`` (never all interfaces) that
answers ``GET /callback?...`` and nothing else. Only an answer carrying the
``state`` of the sign-in under way ends the wait; a stray or forged request
(another tab, a page on the web probing local ports) gets a 400 and the
wait goes on. The browser is shown a small page saying it may close the
tab, or why the sign-in did not happen.
"""

from __future__ import annotations

import asyncio
import html
import logging
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

log = logging.getLogger(__name__)

CALLBACK_PATH = "/callback"
_REQUEST_LIMIT = 16 << 10
"""Bytes of request head read; a redirect's query is far smaller."""
_READ_TIMEOUT_S = 10.0


@dataclass(frozen=True, slots=True)
class Callback:
    """What the authorization server sent back through the browser."""

    code: str | None
    state: str | None
    iss: str | None = None
    error: str | None = None
    """``access_denied`` and the like (RFC 6749 §4.1.2.1); then no code."""
    error_description: str | None = None


_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
    "<body style='font-family:sans-serif;margin:3em'><h2>{title}</h2><p>{body}</p></body></html>"
)


class LoopbackListener:
    """Listens on ``127.0.0.1:port`` (``port`` 0: any free one) until closed."""

    def __init__(self) -> None:
        self._server: asyncio.Server | None = None
        self._expected: str | None = None
        self._answer: asyncio.Future[Callback] | None = None
        self.port = 0

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def open(self, port: int = 0) -> None:
        """Bind; raises ``OSError`` when ``port`` is taken."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", port)
        self.port = self._server.sockets[0].getsockname()[1]

    def expect(self, state: str) -> None:
        """The ``state`` of the authorization request just sent to the browser."""
        self._expected = state
        self._answer = asyncio.get_running_loop().create_future()

    async def wait(self, timeout_s: float) -> Callback:
        """The answer with the expected state; ``TimeoutError`` after ``timeout_s``."""
        assert self._answer is not None, "expect() first"
        async with asyncio.timeout(timeout_s):
            return await asyncio.shield(self._answer)

    async def aclose(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(_READ_TIMEOUT_S):
                head = await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        status, title, body = self._answer_for(head[:_REQUEST_LIMIT])
        page = _PAGE.format(title=html.escape(title), body=html.escape(body)).encode()
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(page)}\r\nConnection: close\r\n\r\n".encode() + page
        )
        try:
            await writer.drain()
        except ConnectionError:
            pass
        writer.close()

    def _answer_for(self, head: bytes) -> tuple[str, str, str]:
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != "GET":
            return "405 Method Not Allowed", "Not here", "This address only takes the sign-in's answer."
        target = urlsplit(parts[1])
        if target.path != CALLBACK_PATH:
            return "404 Not Found", "Not here", "This address only takes the sign-in's answer."
        query = {k: v[0] for k, v in parse_qs(target.query).items() if v}
        state = query.get("state")
        answer = self._answer
        if (
            answer is None
            or answer.done()
            or state is None
            or self._expected is None
            or not secrets.compare_digest(state, self._expected)
        ):
            log.warning("sign-in: an answer with an unknown state reached the loopback listener; ignored")
            return "400 Bad Request", "Not this sign-in", "This answer does not belong to the sign-in under way."
        callback = Callback(
            code=query.get("code"),
            state=state,
            iss=query.get("iss"),
            error=query.get("error"),
            error_description=query.get("error_description"),
        )
        answer.set_result(callback)
        if callback.error or not callback.code:
            return "200 OK", "Sign-in did not finish", f"The server said: {callback.error or 'no code'}. You can close this tab."
        return "200 OK", "Signed in", "You are signed in. You can close this tab and go back to Desktop Agent."
