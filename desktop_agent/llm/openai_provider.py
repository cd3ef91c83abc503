"""The OpenAI-compatible LLM provider: any ``/v1/chat/completions`` endpoint, streamed.

Retries happen only before the first delta is yielded: once text has reached
the user, replaying the request would duplicate it, so a drop after that is
reported (``stream_dropped``) instead. Failed *requests* (connection refused,
429, 5xx, timeouts) are retried by the openai SDK itself (``max_retries``,
exponential backoff, ``Retry-After`` honoured); this module only adds a retry
for a stream that was accepted but ended or broke before its first delta,
within the same budget of attempts.

Every request goes out in its wire form (:func:`desktop_agent.core.wire.normalize`,
contracts §2a) under the endpoint's wire profile. A server that refuses a
request with a message about roles, system messages or tools (the phrases in
:data:`~desktop_agent.llm.errors.STRICT_WIRE_PHRASES`) gets it once more
under the strict profile; when that is accepted, the provider keeps the
strict profile and reports it (``on_wire_profile``) so the composition root
can remember it for the endpoint. That retry is outside the retry budget:
it is a different request, made at most once.

The per-chunk path is kept bare (no logging, one delta object per piece) —
the engine is benchmarked against consuming the SDK stream directly.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

import openai

from desktop_agent.core.ports import LLMDelta, LLMError, TextDelta, ToolCallDelta, ToolChoice
from desktop_agent.core.wire import PLANNING_WITHOUT_TOOLS, STANDARD, STRICT, WireProfile, normalize
from desktop_agent.llm.endpoint import Endpoint as Endpoint  # re-exported: its old home
from desktop_agent.llm.endpoint import resolve_endpoint as resolve_endpoint
from desktop_agent.llm.errors import (
    StreamEndedEarly,
    WrongShapeChunk,
    asks_for_strict_wire,
    display_url,
    is_retryable,
    refuses_token_key,
    refuses_unused_tools,
    server_message,
    to_llm_error,
)
from desktop_agent.llm.light_chunks import LightChunksClient

if TYPE_CHECKING:
    import httpx2

log = logging.getLogger(__name__)

NO_KEY_PLACEHOLDER = "not-needed"
"""Sent when no key is configured: local servers ignore it, and the SDK refuses an empty key."""

DEFAULT_MAX_TOKENS = 4096
"""The reply limit when none is set (the ``max_tokens`` setting's default)."""
DEFAULT_TIMEOUT_S = 120.0
"""Seconds without a byte before a request fails (``request_timeout_s``'s default)."""

TokenKey = Literal["max_tokens", "max_completion_tokens"]
_OTHER_TOKEN_KEY: dict[TokenKey, TokenKey] = {
    "max_tokens": "max_completion_tokens",
    "max_completion_tokens": "max_tokens",
}
_COMPLETION_TOKENS_HOSTS = ("api.openai.com", ".openai.azure.com")
"""Where ``max_tokens`` is deprecated and refused by the reasoning models
("Unsupported parameter: 'max_tokens' is not supported with this model. Use
'max_completion_tokens' instead.")."""


def token_key_for(base_url: str) -> TokenKey:
    """The name the reply limit is sent under: ``max_completion_tokens`` for
    OpenAI's own API, ``max_tokens`` everywhere else (local servers and the
    other providers know it; some ignore the newer name, which would leave a
    looping model unbounded). A server that refuses the one gets the other
    once (:func:`~desktop_agent.llm.errors.refuses_token_key`)."""
    try:
        host = urlsplit(base_url.strip()).hostname or ""
    except ValueError:
        host = ""
    return "max_completion_tokens" if host.endswith(_COMPLETION_TOKENS_HOSTS) else "max_tokens"


WireProfileListener = Callable[[str, WireProfile], None]
"""Told (endpoint key, profile) when an endpoint turned out to need a stricter
wire profile; the key is the base URL as :func:`display_url` writes it."""


class OpenAIProvider:
    """Streams chat completions through the openai SDK (see the module docstring)."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str,
        model: str,
        max_retries: int = 2,
        retry_base_delay_s: float = 0.5,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_tokens: int | None = DEFAULT_MAX_TOKENS,
        wire_profile: WireProfile = STANDARD,
        on_wire_profile: WireProfileListener | None = None,
    ) -> None:
        """``max_retries``: attempts after the first, in all (the SDK's and ours).
        ``timeout_s``: seconds without a byte from the server before a
        request fails. ``max_tokens``: sent with every request (None: not
        sent), as ``max_tokens`` or, where the server wants it,
        ``max_completion_tokens`` (:func:`token_key_for`).
        ``retry_base_delay_s``: backoff before re-asking after a stream that broke
        before its first delta (the SDK times its own retries).
        ``wire_profile``: the one remembered for this endpoint;
        ``on_wire_profile``: told when the strict one had to be adopted."""
        if not base_url.strip():
            raise LLMError("no base URL: set --base-url or the endpoint in Settings", "config")
        if not model.strip():
            raise LLMError("no model name: set --model or the model in Settings", "config")
        self._base_url = base_url.strip()
        self._url = display_url(self._base_url)
        self._model = model.strip()
        self._api_key = api_key
        self._max_retries = max(0, max_retries)
        self._base_delay = max(0.0, retry_base_delay_s)
        self._timeout_s = timeout_s
        self._wire_profile = wire_profile
        self._on_wire_profile = on_wire_profile
        self._max_tokens = max_tokens
        self._token_key = token_key_for(self._base_url)
        self._client = LightChunksClient(
            base_url=self._base_url,
            api_key=api_key or NO_KEY_PLACEHOLDER,
            max_retries=self._max_retries,
            timeout=timeout_s,
        )

    @property
    def model(self) -> str:
        return self._model

    @property
    def is_demo(self) -> bool:
        return False

    @property
    def wire_profile(self) -> WireProfile:
        return self._wire_profile

    @property
    def limits(self) -> tuple[int | None, float]:
        """(the reply limit every request carries, the request timeout in seconds)."""
        return self._max_tokens, self._timeout_s

    def set_limits(self, max_tokens: int | None, timeout_s: float) -> None:
        """New limits from the next request on: edited in Settings while the
        endpoint stays (which may have come from the command line, so the
        provider is kept rather than built again from the settings)."""
        if timeout_s != self._timeout_s:
            self._client = self._client.with_options(timeout=timeout_s)  # shares the connection pool
        self._max_tokens, self._timeout_s = max_tokens, timeout_s

    async def aclose(self) -> None:
        await self._client.close()

    async def stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: ToolChoice = "auto",
        max_tokens: int | None = None,
        temperature: float | None = None,
        on_finish: Callable[[str], None] | None = None,
    ) -> AsyncGenerator[LLMDelta, None]:
        """Stream one reply; raises :class:`LLMError` (already worded for the user).
        ``max_tokens``: this request's limit instead of the provider's (a
        server's sampling request); ``temperature``: sent when given;
        ``on_finish``: told the reply's ``finish_reason``."""
        profile = self._wire_profile
        token_key = self._token_key
        limit = max_tokens if max_tokens is not None else self._max_tokens

        def build() -> dict[str, Any]:
            request = self._request(messages, tools, tool_choice, profile)
            if limit is not None:
                request[token_key] = limit
            if temperature is not None:
                request["temperature"] = temperature
            return request

        request = build()
        sent = 0  # HTTP requests made so far, the SDK's retries included
        while True:
            opened = started = finished = False
            # After a broken stream, the SDK gets what is left of the budget.
            client = self._client if sent == 0 else self._client.with_options(max_retries=self._max_retries - sent)
            try:
                try:
                    response = await client.chat.completions.create(**_untransformed(request))
                except openai.APIError as exc:
                    if profile is not STRICT and asks_for_strict_wire(exc):
                        self._asking_again(exc, "with the strict wire profile")
                        profile = STRICT
                    elif "tool_choice" in request and refuses_unused_tools(exc):
                        self._asking_again(exc, "without the tools it must not call")
                        profile = PLANNING_WITHOUT_TOOLS
                    elif limit is not None and token_key == self._token_key and refuses_token_key(exc, token_key):
                        token_key = _OTHER_TOKEN_KEY[token_key]
                        self._asking_again(exc, f"with the limit as {token_key}")
                    else:
                        sent += _requests_made(exc.request)
                        raise
                    request = build()
                    continue
                opened = True
                sent += _requests_made(response.response.request)
                if profile is not self._wire_profile:
                    self._adopt(profile)
                self._token_key = token_key
                call_ids: dict[int, str] = {}
                try:
                    async for chunk in response:
                        try:
                            deltas, done = self._read_chunk(chunk, call_ids)
                        except (AttributeError, TypeError, IndexError, KeyError) as exc:
                            # The SDK builds chunks without validating them:
                            # ``"choices": "oops"`` fails here, not in the SDK.
                            raise WrongShapeChunk(f"a chunk has the wrong shape: {type(exc).__name__}: {exc}") from exc
                        for delta in deltas:
                            started = True
                            yield delta
                        if done is not None and on_finish is not None:
                            on_finish(done)
                        finished = finished or done is not None
                        # Chunks that queued up while the app was busy are read in
                        # one go, with no await between them: the window's loop
                        # would wait for all of them (~15 ms on a loaded machine).
                        await asyncio.sleep(0)
                finally:
                    await response.close()
                if not finished:
                    raise StreamEndedEarly("the stream ended before the reply was complete")
                return
            except (openai.OpenAIError, ValueError, StreamEndedEarly) as exc:  # WrongShapeChunk is a ValueError
                if finished and isinstance(exc, openai.APIConnectionError):
                    log.debug("connection to %s dropped after the reply had finished; ignored", self._url)
                    return
                error = self._error(exc, started)
                # A request that failed was already retried (or given up on) by the SDK.
                if not opened or started or not is_retryable(exc) or sent > self._max_retries:
                    if sent > 1 and not started:
                        error = LLMError(f"{error.message} (gave up after {sent} attempts)", error.code)
                    raise error from exc
            delay = self._base_delay * 2 ** (sent - 1)
            log.info(
                "the stream from %s broke before its first delta (%s); asking again in %.2fs",
                self._url,
                error.code,
                delay,
            )
            await asyncio.sleep(delay)

    def _request(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None,
        tool_choice: ToolChoice,
        profile: WireProfile,
    ) -> dict[str, Any]:
        """The request body: the messages in their wire form, and the tools
        where the profile sends them (contracts §2a)."""
        request: dict[str, Any] = {
            "model": self._model,
            "messages": normalize(messages, profile),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools and (tool_choice == "auto" or profile.planning_tools):
            request["tools"] = list(tools)
            if tool_choice != "auto":
                request["tool_choice"] = tool_choice
        return request

    def _asking_again(self, exc: openai.APIError, how: str) -> None:
        log.warning("%s refused the request (%s); asking again %s", self._url, server_message(exc), how)

    def _adopt(self, profile: WireProfile) -> None:
        """Keep ``profile`` for every later request, and say so."""
        self._wire_profile = profile
        log.warning("%s accepted the %s wire profile; it is kept for this endpoint", self._url, profile.name)
        if self._on_wire_profile is not None:
            self._on_wire_profile(self._url, profile)

    def _error(self, exc: Exception, started: bool) -> LLMError:
        if isinstance(exc, StreamEndedEarly):
            if started:
                return LLMError(
                    f"the stream from {self._url} was cut off mid-reply (no finish_reason)", "stream_dropped"
                )
            return LLMError(f"{self._url} ended the stream without a reply", "server")
        return to_llm_error(
            exc,
            base_url=self._base_url,
            model=self._model,
            api_key=self._api_key,
            timeout_s=self._timeout_s,
            started=started,
        )

    def _read_chunk(self, chunk: Any, call_ids: dict[int, str]) -> tuple[list[LLMDelta], str | None]:
        """The deltas of one stream chunk, and its finish reason when it finished the reply."""
        choices = chunk.choices
        if not choices:
            return [], None  # the usage-only chunk
        choice = choices[0]
        delta = choice.delta
        deltas: list[LLMDelta] = []
        text = delta.content
        if text:
            deltas.append(TextDelta(text))
        for position, call in enumerate(delta.tool_calls or ()):
            index = call.index if call.index is not None else position
            call_id = call.id or None
            if index not in call_ids:
                call_ids[index] = call_id or self._invent_id(index)
                call_id = call_ids[index]
            fn = call.function
            deltas.append(ToolCallDelta(index, call_id, fn.name if fn else None, (fn.arguments or "") if fn else ""))
        return deltas, None if choice.finish_reason is None else str(choice.finish_reason)

    @staticmethod
    def _invent_id(index: int) -> str:
        call_id = f"call_{index}_{secrets.token_hex(4)}"
        log.debug("tool call %d came without an id; using %s", index, call_id)
        return call_id


def _untransformed(request: dict[str, Any]) -> dict[str, Any]:
    """``create`` arguments that send ``request`` as it is. The SDK walks
    every typed parameter through its transform (for key aliases and
    dates, which OpenAI's chat messages and tools do not have): 10–25 ms per
    request here, growing with the history, on the path from the end of the
    user's speech to the request, which has 30 ms in all. Given through
    ``extra_body``, which the SDK merges last without a transform, the same
    JSON goes out."""
    untyped = {key: request[key] for key in ("messages", "tools") if key in request}
    typed = {key: value for key, value in request.items() if key not in untyped}
    return {**typed, "messages": [], "extra_body": untyped}


def _requests_made(request: httpx2.Request) -> int:
    """How many requests the SDK sent for one call: it numbers its retries in
    the ``x-stainless-retry-count`` header of the last one."""
    try:
        return int(request.headers.get("x-stainless-retry-count", "0")) + 1
    except ValueError:
        return 1
