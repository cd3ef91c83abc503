"""The OpenAI-compatible LLM provider: any ``/v1/chat/completions`` endpoint, streamed.

Retries happen only before the first delta is yielded: once text has reached
the user, replaying the request would duplicate it, so a drop after that is
reported (``stream_dropped``) instead. The SDK's own retries are switched off
so this is the one place that decides.

The per-chunk path is kept bare (no logging, one delta object per piece) —
the engine is benchmarked against consuming the SDK stream directly.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import openai

from desktop_agent.core.ports import LLMDelta, LLMError, TextDelta, ToolCallDelta
from desktop_agent.llm.errors import StreamEndedEarly, display_url, is_retryable, to_llm_error

log = logging.getLogger(__name__)

NO_KEY_PLACEHOLDER = "not-needed"
"""Sent when no key is configured: local servers ignore it, and the SDK refuses an empty key."""


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
        timeout_s: float = 60.0,
    ) -> None:
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
        self._client = openai.AsyncOpenAI(
            base_url=self._base_url,
            api_key=api_key or NO_KEY_PLACEHOLDER,
            max_retries=0,
            timeout=timeout_s,
        )

    @property
    def model(self) -> str:
        return self._model

    @property
    def is_demo(self) -> bool:
        return False

    async def aclose(self) -> None:
        await self._client.close()

    async def stream(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[Mapping[str, Any]] | None = None,
    ) -> AsyncGenerator[LLMDelta, None]:
        """Stream one reply; raises :class:`LLMError` (already worded for the user)."""
        request: dict[str, Any] = {
            "model": self._model,
            "messages": list(messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            request["tools"] = list(tools)
        attempt = 0
        while True:
            started = finished = False
            try:
                response = await self._client.chat.completions.create(**request)
                call_ids: dict[int, str] = {}
                try:
                    async for chunk in response:
                        choices = chunk.choices
                        if not choices:
                            continue  # the usage-only chunk
                        choice = choices[0]
                        delta = choice.delta
                        text = delta.content
                        if text:
                            started = True
                            yield TextDelta(text)
                        calls = delta.tool_calls
                        if calls:
                            started = True
                            for position, call in enumerate(calls):
                                index = call.index if call.index is not None else position
                                call_id = call.id or None
                                if index not in call_ids:
                                    call_ids[index] = call_id or self._invent_id(index)
                                    call_id = call_ids[index]
                                fn = call.function
                                yield ToolCallDelta(
                                    index,
                                    call_id,
                                    fn.name if fn else None,
                                    (fn.arguments or "") if fn else "",
                                )
                        if choice.finish_reason is not None:
                            finished = True
                finally:
                    await response.close()
                if not finished:
                    raise StreamEndedEarly("the stream ended before the reply was complete")
                return
            except (openai.OpenAIError, ValueError, StreamEndedEarly) as exc:
                if finished and isinstance(exc, openai.APIConnectionError):
                    log.debug("connection to %s dropped after the reply had finished; ignored", self._url)
                    return
                error = self._error(exc, started)
                if started or not is_retryable(exc) or attempt >= self._max_retries:
                    if attempt and not started:
                        error = LLMError(
                            f"{error.message} (gave up after {attempt + 1} attempts)", error.code
                        )
                    raise error from exc
            attempt += 1
            delay = self._base_delay * 2 ** (attempt - 1)
            log.info(
                "LLM request to %s failed (%s); retry %d of %d in %.2fs",
                self._url,
                error.code,
                attempt,
                self._max_retries,
                delay,
            )
            await asyncio.sleep(delay)

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

    @staticmethod
    def _invent_id(index: int) -> str:
        call_id = f"call_{index}_{secrets.token_hex(4)}"
        log.debug("tool call %d came without an id; using %s", index, call_id)
        return call_id


# ------------------------------------------------------------------ endpoint


@dataclass(frozen=True)
class Endpoint:
    """Where the LLM is: the result of :func:`resolve_endpoint`."""

    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    """May be empty (local servers); never shown in a repr."""


def resolve_endpoint(
    settings_base_url: str,
    settings_model: str,
    settings_key: str | None,
    cli_base_url: str | None,
    cli_model: str | None,
    cli_key: str | None,
    env: Mapping[str, str],
) -> Endpoint | None:
    """Pick the endpoint: CLI flag > settings > ``OPENAI_BASE_URL``/``OPENAI_API_KEY``.

    None means "use the offline demo model": no base URL anywhere, or the
    model named ``demo`` (``--model demo``).
    """
    model = _first(cli_model, settings_model)
    if model == "demo":
        return None
    base_url = _first(cli_base_url, settings_base_url, env.get("OPENAI_BASE_URL"))
    if not base_url:
        return None
    if not base_url.startswith(("http://", "https://")):
        raise LLMError(f"base URL {display_url(base_url)!r} must start with http:// or https://", "config")
    if not model:
        raise LLMError("no model name: set --model or the model in Settings", "config")
    api_key = _first(cli_key, settings_key, env.get("OPENAI_API_KEY"))
    return Endpoint(base_url=base_url, model=model, api_key=api_key)


def _first(*values: str | None) -> str:
    for value in values:
        if value and value.strip():
            return value.strip()
    return ""
