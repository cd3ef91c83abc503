"""The :class:`Services` object: what a conversation runs on, and the one
way settings reach it (:meth:`Services.apply_settings`). Its MCP, speech and
conversation parts live beside it (:mod:`.mcp`, :mod:`.speech`,
:mod:`.conversations`); how it is built, in :mod:`.build`."""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.budget import Budget
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormManager
from desktop_agent.core.ports import LLMError, LLMProvider, TTSEngine
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.core.session import SessionManager
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.wire import WireProfile
from desktop_agent.hooks_engine import HookCatalog, HookInfo
from desktop_agent.llm.demo import CONNECT_HINT
from desktop_agent.mcp_engine import McpEngine
from desktop_agent.services.conversations import ConversationServices
from desktop_agent.services.listener import AppliedSettings, ServicesListener
from desktop_agent.services.mcp import McpServices
from desktop_agent.services.model import build_llm, endpoint_config, redact_stored_key
from desktop_agent.services.speech import speech_config
from desktop_agent.services.tool_facts import RoutedToolFacts
from desktop_agent.skills_engine import SkillLibrary
from desktop_agent.storage import secrets
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.settings import Settings, SettingsStore
from desktop_agent.voice import SpeechCache, SpeechNotice


@dataclass
class Services(ConversationServices, McpServices):
    """The running parts: the model (reconnected when its settings change),
    the tools and their router, MCP, speech, skills, hooks, approvals and the
    open conversations. Built by :func:`~desktop_agent.services.build_services`."""

    settings_store: SettingsStore
    settings: Settings
    """The settings in use; changed only through :meth:`apply_settings`."""
    llm: LLMProvider
    forms: FormManager
    router: ToolRouter
    mcp: McpEngine | None
    tts: TTSEngine | None
    skills: SkillLibrary | None = None
    """The skills found and which are enabled (contracts §9); None: no skills."""
    hooks: HookCatalog = field(default_factory=HookCatalog)
    """The prompt hooks found (contracts §9), prompts read once at start-up;
    ``Settings.hooks_enabled`` says which a turn uses."""
    conversations: ConversationStore | None = None
    """Saved conversations: the window reopens the latest; a headless run
    saves its own new one after every turn."""
    approvals: ApprovalManager = field(default_factory=ApprovalManager)
    sessions: SessionManager = field(default_factory=SessionManager)
    startup_warnings: list[str] = field(default_factory=list)
    listener: ServicesListener | None = None
    """The front end told what happens while running; None: only the log hears it."""
    read_key: Callable[[], str | None] = secrets.get_api_key
    """The stored API key, read from the keyring once (cached) and again
    after Settings changes the key; shared by the endpoint, the redactor
    and the speech recogniser."""
    _speech_cache: SpeechCache = field(default_factory=SpeechCache)
    _conversations: weakref.WeakSet[Conversation] = field(default_factory=weakref.WeakSet)
    _tts_config: tuple[str, ...] = ()
    _speech_said: set[SpeechNotice] = field(default_factory=set)
    _llm_config: tuple[str, str] | None = None
    """The settings' endpoint and model when the provider was built (command
    line overrides count as that until the user edits the endpoint)."""
    _replaced: list[LLMProvider] = field(default_factory=list)
    """Providers replaced while a turn ran (it may still stream from one);
    closed by the next replacement made while no turn runs, or at close."""
    _closing: set[asyncio.Task[None]] = field(default_factory=set)
    _shadow_said: set[str] = field(default_factory=set)
    mcp_config_override: Path | None = None
    """``--mcp-config``: the servers file in use instead of the setting's."""

    @property
    def demo_notice(self) -> str | None:
        return CONNECT_HINT if self.llm.is_demo else None

    @property
    def tool_facts(self) -> RoutedToolFacts:
        """What the router and the MCP engine in use say of a tool (the window's cards and approvals)."""
        return RoutedToolFacts(self.router, lambda: self.mcp)

    def allow_key_for(self, tool_name: str) -> str | None:
        """:meth:`RoutedToolFacts.allow_key`."""
        return self.tool_facts.allow_key(tool_name)

    def tool_annotations(self, tool_name: str) -> ToolAnnotations | None:
        """:meth:`RoutedToolFacts.annotations`."""
        return self.router.annotations(tool_name)

    def tool_server(self, tool_name: str) -> str | None:
        """:meth:`RoutedToolFacts.server`."""
        return self.tool_facts.server(tool_name)

    def apply_settings(self, settings: Settings, *, key_changed: bool = False) -> AppliedSettings:
        """The one way settings reach what runs: a new endpoint or model
        (or, with ``key_changed``, a new stored API key) reconnects the
        model, a new reply limit or request timeout reaches the model as it is
        (its endpoint may be the command line's), a new speech configuration remakes the engine, limits reach
        every open conversation; each from the next LLM request or turn.
        Settings that change none of these cost nothing. A bad endpoint keeps
        the current model and says why in one line. MCP server changes go
        through :meth:`reload_mcp`."""
        error: str | None = None
        if key_changed:
            self.read_key = functools.cache(secrets.get_api_key)  # one keyring read per change
        if key_changed or endpoint_config(settings) != self._llm_config:
            read_key = self.read_key
            try:
                llm = build_llm(settings, on_wire_profile=self.remember_wire_profile, stored_key=read_key)
            except LLMError as exc:
                error = str(exc)
            else:
                self._use_llm(llm)
                if self.router.redactor is not None:
                    redact_stored_key(self.router.redactor, llm, read_key)
            self._llm_config = endpoint_config(settings)
        self.llm.set_limits(settings.max_tokens, settings.request_timeout_s)
        if speech_config(settings) != self._tts_config:
            self._make_tts(settings)
        if self.skills is not None and settings.enabled_skills != self.settings.enabled_skills:
            # A --skills override holds until the user edits the skills.
            self.skills.set_enabled(settings.enabled_skills)
        folders_changed = settings.shared_folders != self.settings.shared_folders
        self.settings = settings
        if folders_changed and self.mcp is not None:
            self._background(self.mcp.roots_changed())
        hooks = self.hooks.enabled(settings.hooks_enabled)
        for conversation in self._conversations:
            conversation.agent.hooks = hooks  # from the next checkpoint on
            conversation.agent.max_steps = settings.max_steps
            conversation.agent.budget = Budget(settings.context_tokens)
            conversation.agent.speak_every_reply = settings.speak_every_reply
            conversation.approval_timeout_s = settings.approval_timeout_s
        return AppliedSettings(self.llm.model, self.llm.is_demo, self.demo_notice, error)

    def remember_wire_profile(self, endpoint: str, profile: WireProfile) -> None:
        """The provider found that ``endpoint`` needs ``profile``: use it from
        now on (a rebuilt provider starts with it) and pass it on."""
        self.settings = self.settings.with_wire_profile(endpoint, profile.name)
        if self.listener is not None:
            self.listener.wire_profile(endpoint, profile)

    def _use_llm(self, llm: LLMProvider) -> None:
        self._replaced.append(self.llm)
        self.llm = llm
        for conversation in self._conversations:
            conversation.agent.llm = llm
        if any(conversation.busy for conversation in self._conversations):
            return
        for old in self._replaced:
            self._background(_close_llm(old))
        self._replaced.clear()

    def _background(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def hook_infos(self) -> tuple[HookInfo, ...]:
        """Every hook found, enabled as the settings say (the Settings page)."""
        return self.hooks.infos(self.settings.hooks_enabled)

    async def aclose(self) -> None:
        self.forms.cancel_all()
        if self.conversations is not None:
            self.conversations.close()
        if self.mcp is not None:
            await self.mcp.aclose()
        await asyncio.gather(*self._closing, return_exceptions=True)
        for llm in [*self._replaced, self.llm]:
            await _close_llm(llm)




async def _close_llm(llm: LLMProvider) -> None:
    close = getattr(llm, "aclose", None)
    if close is not None:
        await close()
