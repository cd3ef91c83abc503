"""What the turn's logic needs from the composition root, as a Protocol:
the conversation, the settings and how they are kept and applied, the
speaker, and what the services say of a tool; and the two features it uses
that may be off (:class:`SettingsFeature`, :class:`ConversationKeeper`), as
small frozen objects, absent when off. The window's ``WindowDeps``
satisfies it; the turn logic names only this, so ``ui/chat`` does not
reach up into the shell for it (import-linter's ``ui-features`` contract)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from desktop_agent.core.conversation import Conversation
    from desktop_agent.core.forms import FormManager
    from desktop_agent.core.mentions import ExpandedMessage
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


def _key_not_kept(_key: str | None) -> None:
    return None


def _nothing() -> None:
    return None


def _not_saved(_conversation: Conversation) -> None:
    return None


@dataclass(frozen=True)
class SettingsFeature:
    """Settings reaching what runs behind the window (the Settings dialog's
    Save, a remembered wire profile). Absent: nothing runs behind the window
    that settings could change; they are only kept."""

    apply: SettingsApplier
    """The one way settings reach the running services, after every change."""
    set_api_key: Callable[[str | None], None] = _key_not_kept
    """Store (or, with None, forget) the API key, before the settings are applied."""
    preview_voice: Callable[[Settings, str], Awaitable[None]] | None = None
    """Speak a sample with these settings' engine, voice and rate through the
    speaker (Settings → Voice ▶); None: no speaker, no ▶."""
    on_opened: Callable[[], None] = _nothing
    """Called as the Settings dialog opens: the composition root warms what
    a new endpoint needs (the openai SDK) while the user types."""


@dataclass(frozen=True)
class ConversationKeeper:
    """How the window keeps its conversations: a fresh one (the New button)
    and storing one's history (after each turn, when leaving it, and at
    close). Absent: the New button is hidden and nothing is stored."""

    new: Callable[[Conversation], Conversation]
    """A fresh conversation after the given one (already saved), whose
    resources may then be released."""
    save: Callable[[Conversation], None] = _not_saved
    """Store a conversation's history."""


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
    def settings_feature(self) -> SettingsFeature | None: ...

    @property
    def keeper(self) -> ConversationKeeper | None: ...

    @property
    def tool_server(self) -> Callable[[str], str | None]: ...

    @property
    def tool_annotations(self) -> Callable[[str], ToolAnnotations | None]: ...

    @property
    def allow_key_for(self) -> Callable[[str], str | None]: ...

    def before_turn(self) -> Readiness:
        """The MCP servers a turn starting now goes without; never waits."""
        ...

    async def expand_message(self, text: str, conversation_id: str | None) -> ExpandedMessage | None:
        """``text`` with its MCP mentions expanded (contracts §10); None when
        it has none. Raises ``MentionError`` with the line to show."""
        ...
