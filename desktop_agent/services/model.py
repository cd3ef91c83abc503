"""The model: which provider the settings (and command line) ask for, the
demo model when none is configured, and the stored API key joining the
secrets a tool must not see."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop_agent.core.ports import LLMProvider
from desktop_agent.core.redaction import Redactor
from desktop_agent.core.wire import profile_named
from desktop_agent.llm.demo import DemoModel
from desktop_agent.llm.endpoint import display_url, resolve_endpoint
from desktop_agent.storage import secrets
from desktop_agent.storage.secrets import KeyStorage
from desktop_agent.storage.settings import Settings

if TYPE_CHECKING:
    from desktop_agent.llm.openai_provider import WireProfileListener


class StoredKey:
    """The API key in the keyring (or the private file), read at each
    question: the window asks when Settings opens, so the keyring loads only
    then (``WindowDeps.key``)."""

    def api_key(self) -> str | None:
        return secrets.get_api_key()

    def note(self) -> KeyStorage | str:
        return secrets.key_storage()


def endpoint_config(settings: Settings) -> tuple[str, str]:
    """What the provider is built from in the settings: a change to it reconnects."""
    return (settings.base_url, settings.model)


def redact_stored_key(redactor: Redactor, llm: LLMProvider, read_key: Callable[[], str | None]) -> None:
    """The stored API key joins the secrets once a real model is connected
    (at start, or from Settings). Not for the demo model: it sends nothing
    anywhere, and reading the key loads the keyring (~24 MiB of an idle window)."""
    if not isinstance(llm, DemoModel):
        redactor.add(read_key())


def build_llm(
    settings: Settings,
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    on_wire_profile: WireProfileListener | None = None,
    stored_key: Callable[[], str | None] = secrets.get_api_key,
) -> LLMProvider:
    """The configured provider, or the demo model when none is configured;
    it starts with the wire profile remembered for its endpoint.
    ``stored_key`` reads the stored API key, only for a real endpoint.

    Raises :class:`LLMError` (code ``config``) on a bad configuration.
    """
    endpoint = resolve_endpoint(
        settings.base_url, settings.model, stored_key, base_url, model, api_key, os.environ
    )
    if endpoint is None:
        return DemoModel(delay_s=0.0)
    # Here, not at the top: the demo model never needs the openai SDK (~50 MiB).
    from desktop_agent.llm.openai_provider import OpenAIProvider

    return OpenAIProvider(
        base_url=endpoint.base_url,
        api_key=endpoint.api_key,
        model=endpoint.model,
        wire_profile=profile_named(settings.wire_profiles.get(display_url(endpoint.base_url))),
        on_wire_profile=on_wire_profile,
        max_tokens=settings.max_tokens,
        timeout_s=settings.request_timeout_s,
    )
