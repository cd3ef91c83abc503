"""The settings half of the turn logic: the settings the window runs with,
kept, written and applied through the one applier the composition root
hands in (``SettingsFeature.apply``), and what they decide of a tool
call: whether it runs without asking (the always-allow list, trust in a
server's read-only tools) and what the display log keeps of it.

No Qt: :class:`~desktop_agent.ui.chat.turn_logic.TurnLogic` builds on it and
reports through its :class:`~desktop_agent.ui.chat.turn_events.TurnEvents`.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from desktop_agent.core.approval import allow_key, auto_decider, call_decider
from desktop_agent.core.nested_call import is_request_allow_key
from desktop_agent.core.transcript import ToolFacts
from desktop_agent.ui.chat.turn_events import NoticeLevel
from desktop_agent.ui.common.os_wording import os_error_text

if TYPE_CHECKING:
    from collections.abc import Callable

    from desktop_agent.core.messages import ToolCallMessage
    from desktop_agent.core.risk import AutoDecider
    from desktop_agent.storage.settings import Settings
    from desktop_agent.texts import Texts
    from desktop_agent.ui.chat.turn_deps import TurnDeps
    from desktop_agent.ui.chat.turn_events import TurnEvents

log = logging.getLogger(__name__)


class TurnSettings:
    """The current settings, and every way they change: always-allow,
    mute and volume, the Settings dialog's Save."""

    def __init__(self, deps: TurnDeps, events: TurnEvents, *, texts: Callable[[], Texts]) -> None:
        self._deps = deps
        self._events = events
        self._texts = texts
        """The window's language now (what its notices and recorded lines are worded in)."""
        self._settings = deps.settings

    @property
    def deps(self) -> TurnDeps:
        return self._deps

    @property
    def settings(self) -> Settings:
        return self._settings

    # ------------------------------------------------------ tool calls

    def is_always_allowed(self, tool_name: str) -> bool:
        """Whether this tool, from the server that offers it now, is on the
        always-allow list (entries name their server: ``allow_key``)."""
        settings = self._settings.with_allow_keys(self._deps.tool_facts.allow_key)
        if settings is not self._settings:
            self.save_settings(settings)  # old bare names, now tied to their server
        return allow_key(tool_name, self._deps.tool_facts.server(tool_name)) in self._settings.always_allow

    def tool_facts(self, tool_name: str) -> ToolFacts:
        """What the display log keeps of a tool, so a restored card shows
        its risk as it was shown live, even once its server is gone."""
        return ToolFacts(self._deps.tool_facts.server(tool_name), self._deps.tool_facts.annotations(tool_name))

    def auto_approval(self, tool_name: str) -> AutoDecider | None:
        """Who approves this tool without asking: the always-allow list, or
        the user's trust in its server's read-only tools; None: ask."""
        if is_request_allow_key(tool_name):  # a server's request (sampling): only its own entry
            return "always_allow" if tool_name in self._settings.always_allow else None
        if self.is_always_allowed(tool_name):  # ties saved bare names to their server first
            return "always_allow"
        settings = self._settings
        return auto_decider(
            tool_name,
            self._deps.tool_facts.server(tool_name),
            self._deps.tool_facts.annotations(tool_name),
            always_allow=settings.always_allow,
            trusted_read_only_servers=settings.trusted_read_only_servers,
        )

    def auto_approval_call(self, message: ToolCallMessage) -> AutoDecider | None:
        """Who approves this call by its arguments: the user's command
        rules for a ``run_command`` call (``core.approval.call_decider``)."""
        name = message.tool_name
        return call_decider(
            name, self._deps.tool_facts.server(name), message.arguments, always_allow=self._settings.always_allow
        )

    # -------------------------------------------------------- changes

    def set_always_allowed(self, key: str, allowed: bool) -> None:
        """``key``: an always-allow entry (``core.approval.allow_key``)."""
        self.save_settings(self._settings.with_allowed(key, allowed))

    def trust_read_only_server(self, server: str) -> None:
        """The card's "Always allow read-only tools from this server": kept
        with the Tools page's list (``Settings.trusted_read_only_servers``)."""
        if server and server not in self._settings.trusted_read_only_servers:
            self.save_settings(self._settings.with_read_only_trust(server, True))

    def save_muted(self, muted: bool) -> None:
        if muted != self._settings.muted:
            self.save_settings(replace(self._settings, muted=muted))

    def save_volume(self, volume: float) -> None:
        if volume != self._settings.volume:
            self.save_settings(replace(self._settings, volume=volume))

    def has_api_key(self) -> bool:
        try:
            return bool(self._deps.key.api_key())
        except Exception:  # a broken keyring must not stop the dialog
            log.exception("could not read the API key")
            return False

    def apply_edit(
        self, settings: Settings, *, api_key: str | None = None, forget_api_key: bool = False
    ) -> None:
        """The Settings dialog's Save: store the key change, then the settings."""
        key_changed = bool(api_key) or forget_api_key
        feature = self._deps.settings_feature
        if key_changed and feature is not None:
            try:
                feature.set_api_key(api_key if api_key else None)
            except Exception as exc:  # keyring errors vary by backend
                log.error("could not store the API key: %s", type(exc).__name__)
                self._events.said(NoticeLevel.ERROR, self._texts().tr("settings_saved_error", error=type(exc).__name__))
                key_changed = False
        self.save_settings(settings, key_changed=key_changed)

    def save_settings(self, settings: Settings, *, key_changed: bool = False) -> bool:
        """Use ``settings`` from now on: keep them, write them (False, and an
        error notice, when the file cannot be written) and apply them to the
        running services (endpoint, model, speech, limits)."""
        self._settings = settings
        saved = True
        try:
            self._deps.settings_store.save(settings)
        except (OSError, ValueError) as exc:
            log.error("could not save the settings: %s", exc)
            reason = os_error_text(self._texts(), exc) if isinstance(exc, OSError) else str(exc)
            self._events.said(NoticeLevel.ERROR, self._texts().tr("settings_saved_error", error=reason))
            saved = False
        feature = self._deps.settings_feature
        if feature is not None:
            applied = feature.apply(settings, key_changed=key_changed)
            self._events.settings_applied(applied)
            if applied.error:
                self._events.said(NoticeLevel.ERROR, applied.error)
        return saved


__all__ = ["TurnSettings"]
