"""What the turn's logic needs from the composition root, as a Protocol:
the conversation, the settings and how they are kept and applied, the
speaker, and what the services say of a tool. The window's ``WindowDeps``
satisfies it; the turn logic names only this, so ``ui/chat`` does not
reach up into the shell for it (import-linter's ``ui-features`` contract)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from desktop_agent.core.conversation import Conversation
    from desktop_agent.core.forms import FormManager
    from desktop_agent.core.ports import AudioSink
    from desktop_agent.core.risk import ToolAnnotations
    from desktop_agent.mcp_engine import Readiness
    from desktop_agent.services import AppliedSettings
    from desktop_agent.storage.settings import Settings, SettingsStore


class SettingsApplier(Protocol):
    """Apply settings to the running services (``Services.apply_settings``):
    endpoint, model, speech and limits; ``key_changed`` when the stored API
    key changed, so the model is reconnected even if the endpoint did not."""

    def __call__(self, settings: Settings, *, key_changed: bool = False) -> AppliedSettings: ...


class TurnDeps(Protocol):
    """Read-only, as the window's frozen deps are; ``WindowDeps`` documents
    each field."""

    @property
    def conversation(self) -> Conversation: ...

    @property
    def forms(self) -> FormManager: ...

    @property
    def settings_store(self) -> SettingsStore: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def sink(self) -> AudioSink | None: ...

    @property
    def get_api_key(self) -> Callable[[], str | None]: ...

    @property
    def set_api_key(self) -> Callable[[str | None], None] | None: ...

    @property
    def apply_settings(self) -> SettingsApplier | None: ...

    @property
    def new_conversation(self) -> Callable[[Conversation], Conversation] | None: ...

    @property
    def save_conversation(self) -> Callable[[Conversation], None] | None: ...

    @property
    def tool_server(self) -> Callable[[str], str | None]: ...

    @property
    def tool_annotations(self) -> Callable[[str], ToolAnnotations | None]: ...

    @property
    def allow_key_for(self) -> Callable[[str], str | None]: ...

    @property
    def before_turn(self) -> Callable[[], Readiness] | None: ...
