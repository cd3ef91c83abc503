"""Services: the parts a conversation needs, built once from settings and
command-line overrides. Shared by the window (``app.py``) and the headless
mode (``cli.py``), so both run the same core the same way."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sqlite3
import weakref
from collections.abc import Callable, Coroutine
from dataclasses import astuple, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager, allow_key
from desktop_agent.core.audit import AuditSinks
from desktop_agent.core.budget import Budget
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormManager
from desktop_agent.core.history_items import HistoryItem
from desktop_agent.core.mentions import ExpandedMessage
from desktop_agent.core.notice import Notice
from desktop_agent.core.packed_log import PackedLog
from desktop_agent.core.ports import LLMError, LLMProvider, SpeechPort, TTSEngine
from desktop_agent.core.redaction import Redactor
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.core.session import SessionManager
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.transcript import DisplayItem
from desktop_agent.core.wire import WireProfile, profile_named
from desktop_agent.hooks_engine import HookCatalog, HookInfo, load_hooks
from desktop_agent.llm.demo import CONNECT_HINT, DemoModel
from desktop_agent.llm.endpoint import display_url, resolve_endpoint
from desktop_agent.llm.one_shot import complete
from desktop_agent.mcp_engine import (
    McpEngine,
    Readiness,
    ServerStatus,
    load_mcp_config,
    load_mcp_config_or_set_aside,
)
from desktop_agent.mcp_engine.current import CurrentSource, current_isolated
from desktop_agent.mcp_engine.elicitation import Elicitation
from desktop_agent.mcp_engine.expansion import expand_message
from desktop_agent.mcp_engine.roots import roots_of
from desktop_agent.mcp_engine.sampling import SampledAnswer, SamplingRequest, sampling_hook
from desktop_agent.skills_engine import SkillLibrary, parse_skills_flag
from desktop_agent.storage import secrets
from desktop_agent.storage.audit_log import JsonlAuditLog, audit_log_path
from desktop_agent.storage.conversation_events import JSON_PACKER, SavedEvents, events_from_history
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.settings import Settings, SettingsStore
from desktop_agent.tools import builtin_tools
from desktop_agent.tools.sub_agent import SubAgentTool
from desktop_agent.voice import SpeechCache, SpeechNotice, SpeechPipeline, make_engine
from desktop_agent.voice.piper_settings import piper_options, piper_voice_setting

if TYPE_CHECKING:
    from mcp_types import ListRootsResult

    from desktop_agent.llm.openai_provider import WireProfileListener

log = logging.getLogger(__name__)



@dataclass(frozen=True)
class AppliedSettings:
    """What the window shows after :meth:`Services.apply_settings`."""

    model: str
    is_demo: bool
    demo_notice: str | None
    error: str | None = None
    """One line when the new endpoint could not be used."""


class ServicesListener(Protocol):
    """What the running services tell their front end (the window's
    conversation and status bar, the terminal's stderr): one object instead
    of a callback per kind. A protocol, so the window's listener is written
    without importing this module (it is imported after the window shows)."""

    def notice(self, text: str) -> None:
        """Something said once while running (a conversation not saved, a
        tool hidden by another of the same name)."""

    def speech_notice(self, kind: SpeechNotice) -> None:
        """A speech notice (the online voice's fallback), once per session,
        as a kind the front end words in its language; the reason is in the
        log only."""

    def wire_profile(self, endpoint: str, profile: WireProfile) -> None:
        """An endpoint needed a stricter wire profile (contracts §2a): the
        front end persists it in the settings."""

    def mcp_status(self, status: ServerStatus) -> None:
        """An MCP server's status changed (the window's status bar)."""


@dataclass
class Services:
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

    def allow_key_for(self, tool_name: str) -> str | None:
        """The always-allow entry a bare saved tool name stands for, when
        that is certain: a built-in tool, or an MCP tool while every enabled
        server is up (so the server offering it now is the one that offered
        it when the user allowed it, first server winning as then). None
        otherwise: the entry waits, approving nothing."""
        routed = self.router.lookup(tool_name)
        if routed is None:
            return None
        server = routed.spec.server
        if server is not None and self.mcp is not None:
            if any(s.state not in ("ready", "disabled") for s in self.mcp.statuses()):
                return None
        return allow_key(tool_name, server)

    def tool_annotations(self, tool_name: str) -> ToolAnnotations | None:
        """What the tool offering ``tool_name`` says of its risk (the cards and auto-approval read it);
        None when it says nothing (or there is no such tool)."""
        return self.router.annotations(tool_name)

    def tool_server(self, tool_name: str) -> str | None:
        """The MCP server offering ``tool_name``; None for a built-in (or
        unknown) tool."""
        routed = self.router.lookup(tool_name)
        return routed.spec.server if routed is not None else None

    def speech_factory(self, bus: SessionMessageBus) -> SpeechPort | None:
        if self.tts is None:
            return None
        return SpeechPipeline(self.tts, bus, cache=self._speech_cache)

    def apply_settings(self, settings: Settings, *, key_changed: bool = False) -> AppliedSettings:
        """The one way settings reach what runs: a new endpoint or model
        (or, with ``key_changed``, a new stored API key) reconnects the
        model, a new speech configuration remakes the engine, limits reach
        every open conversation; each from the next LLM request or turn.
        Settings that change none of these cost nothing. A bad endpoint keeps
        the current model and says why in one line. MCP server changes go
        through :meth:`reload_mcp`."""
        error: str | None = None
        if key_changed:
            self.read_key = functools.cache(secrets.get_api_key)  # one keyring read per change
        if key_changed or _endpoint_config(settings) != self._llm_config:
            read_key = self.read_key
            try:
                llm = build_llm(settings, on_wire_profile=self.remember_wire_profile, stored_key=read_key)
            except LLMError as exc:
                error = str(exc)
            else:
                self._use_llm(llm)
                if self.router.redactor is not None:
                    redact_stored_key(self.router.redactor, llm, read_key)
            self._llm_config = _endpoint_config(settings)
        if _speech_config(settings) != self._tts_config:
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

    def answer_servers(self, engine: McpEngine) -> McpEngine:
        """Who answers ``engine``'s servers when they ask: forms (elicitation,
        through the app's FormManager), sampling (approved like a tool,
        answered by the app's model) and the shared folders."""
        engine.hooks.elicit = Elicitation(self.forms)
        engine.hooks.sample = sampling_hook(self.answer_sampling)
        engine.hooks.roots = self.shared_roots
        return engine

    async def answer_sampling(self, request: SamplingRequest) -> SampledAnswer:
        """An approved sampling request: the app's model answers, without tools."""
        done = await complete(
            self.llm, request.llm_messages(), max_tokens=request.max_tokens, temperature=request.temperature
        )
        return SampledAnswer(done.text, done.model, done.stop_reason)

    async def shared_roots(self, server: str) -> ListRootsResult:
        """The folders shared with ``server`` (Settings → Tools)."""
        return roots_of(self.settings.folders_for(server))

    def _make_tts(self, settings: Settings) -> None:
        self.tts = make_engine(
            settings.tts_engine,
            voice=settings.voice,
            rate=settings.tts_rate,
            volume=settings.tts_volume,
            on_notice=self._speech_notice,
            piper=piper_options(settings),
        )
        self._tts_config = _speech_config(settings)

    def resume_conversation(self, conversation_id: str | None = None) -> Conversation:
        """A saved conversation (the latest when no id is given), or a new
        one when there is none."""
        store = self.conversations
        stored = None
        if store is not None:
            stored = store.latest() if conversation_id is None else store.load(conversation_id)
        if stored is None:
            return self.new_conversation()
        events = JSON_PACKER.packed_log(stored.events or events_from_history(stored.messages))
        return self.new_conversation(conversation_id=stored.id, history=stored.messages, events=events)

    def save_conversation(self, conversation: Conversation) -> None:
        """Append what the conversation gained since it was last saved."""
        if self.conversations is None:
            return
        try:
            self.conversations.save(
                conversation.conversation_id, conversation.history, SavedEvents(conversation.events),
                rewound=conversation.rewound,
            )
        except (OSError, sqlite3.Error) as exc:
            self._notice(Notice(f"could not save the conversation: {exc}", "notice_save_failed"))
        else:
            conversation.saved()

    def hook_infos(self) -> tuple[HookInfo, ...]:
        """Every hook found, enabled as the settings say (the Settings page)."""
        return self.hooks.infos(self.settings.hooks_enabled)

    def new_conversation(
        self,
        *,
        conversation_id: str | None = None,
        history: list[HistoryItem] | None = None,
        events: PackedLog | list[DisplayItem] | None = None,
    ) -> Conversation:
        agent = AgentClient(
            self.llm,
            self.router,
            max_steps=self.settings.max_steps,
            speak_every_reply=self.settings.speak_every_reply,
            skills=self.skills,
            hooks=self.hooks.enabled(self.settings.hooks_enabled),
            budget=Budget(self.settings.context_tokens),
        )
        conversation = Conversation(
            agent,
            approvals=self.approvals,
            sessions=self.sessions,
            conversation_id=conversation_id,
            speech_factory=self.speech_factory,
            approval_timeout_s=self.settings.approval_timeout_s,
            history=history,
            events=events,
            packer=JSON_PACKER,
        )
        self._conversations.add(conversation)
        return conversation

    def _speech_notice(self, kind: SpeechNotice) -> None:
        # Once per session: a remade engine (a settings change) would say it again.
        if kind in self._speech_said:
            return
        self._speech_said.add(kind)
        if self.listener is not None:
            self.listener.speech_notice(kind)

    def _notice(self, text: str) -> None:
        log.warning("%s", text)
        if self.listener is not None:
            self.listener.notice(text)

    # -------------------------------------------------------------- MCP

    def start_mcp_in_background(self) -> None:
        """Start the MCP servers without waiting (the window takes input meanwhile):
        each one's tools join as it gets ready; statuses go to
        :attr:`listener`'s ``mcp_status``, later tool-list warnings to its ``notice``."""
        if self.mcp is not None:
            self.mcp.start_background()

    def before_turn(self) -> Readiness:
        """The MCP servers a turn starting now goes without (failed ones are
        retried in the background); never waits."""
        return self.mcp.before_turn() if self.mcp is not None else Readiness()

    async def expand_message(self, text: str, conversation_id: str | None = None) -> ExpandedMessage | None:
        """``text`` with its MCP prompt command and resource mentions expanded
        (contracts §10); None when it has none. Raises ``MentionError``."""
        if self.mcp is None:
            return None
        return await expand_message(self.mcp, text, conversation_id=conversation_id)

    def retry_mcp(self, name: str) -> bool:
        """Start the failed MCP server ``name`` again (the status bar's Retry)."""
        return self.mcp is not None and self.mcp.retry(name)

    async def reload_mcp(self) -> None:
        """Read the servers file again and run what it says now, without a
        restart (the Settings dialog's Tools page): a new engine
        starts in the background and the old one is closed (a call still
        running on it fails as at exit). The router and the sub-agent follow
        :attr:`mcp` (:mod:`desktop_agent.mcp_engine.current`). Raises
        ``McpConfigError`` (one line) and keeps the servers as they are
        when the file is wrong."""
        setting = Path(self.settings.mcp_config_path) if self.settings.mcp_config_path else None
        config = await asyncio.to_thread(load_mcp_config, self.mcp_config_override or setting)
        old = self.mcp
        self.mcp = self.answer_servers(McpEngine(  # the sign-ins (and where their browser opens) carry over
            config, on_status=self._on_mcp_status, on_warning=self._notice, oauth=old.oauth if old else None
        ))
        self.mcp.start_background()
        if old is not None:
            old.on_status = old.on_warning = None  # its last "stopped" is not news
            await old.aclose()
        if self.listener is not None:
            for status in self.mcp.statuses():
                self.listener.mcp_status(status)

    def _on_mcp_status(self, status: ServerStatus) -> None:
        if status.state == "ready":
            for warning in self._new_shadowed():
                self._notice(warning)
        if self.listener is not None:
            self.listener.mcp_status(status)

    def _new_shadowed(self) -> list[str]:
        """MCP tools hidden by a built-in tool of the same name, each said once."""
        new: list[str] = []
        for spec in self.router.shadowed():
            text = Notice(
                f"tool {spec.name!r} from MCP server {spec.server!r} is hidden by a tool of the same name",
                "notice_tool_shadowed",
                {"tool": spec.name, "server": spec.server or ""},
            )
            if text not in self._shadow_said:
                self._shadow_said.add(text)
                new.append(text)
        return new

    async def close_conversation(self, conversation_id: str) -> None:
        if self.mcp is not None:
            await self.mcp.close_conversation(conversation_id)

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


def _endpoint_config(settings: Settings) -> tuple[str, str]:
    return (settings.base_url, settings.model)


def _speech_config(settings: Settings) -> tuple[str, ...]:
    return (settings.tts_engine, settings.voice, settings.tts_rate, settings.tts_volume, *astuple(piper_options(settings)))


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
    )


async def build_services(
    *,
    base_url: str | None = None,
    model: str | None = None,
    api_key: str | None = None,
    mcp_config: Path | None = None,
    tts: str | None = None,
    tts_voice: str | None = None,
    max_steps: int | None = None,
    approval_timeout_s: float | None = None,
    start_mcp: bool = True,
    listener: ServicesListener | None = None,
    demo_delay_s: float = 0.0,
    keep_conversations: bool = False,
    skills: str | None = None,
    audit_log: Path | None = None,
) -> Services:
    """Raises :class:`LLMError` or ``McpConfigError`` with one line on bad config.

    ``start_mcp``: wait for the MCP servers here (the headless mode); the
    window passes False and calls :meth:`Services.start_mcp_in_background`
    once it is attached, so no server holds up its input.

    ``skills``: the ``--skills`` value (``all``, ``none``, ``NAME[,NAME…]``);
    None: the setting ``enabled_skills`` (absent: all).

    Every approval decision is appended to ``<data>/approvals.jsonl``
    (the approvals' audit), and to ``audit_log`` too (``--audit-log``; a file that cannot
    be written is a ValueError saying so)."""
    store = SettingsStore()
    loaded = store.load()
    settings = loaded.settings
    overrides: dict[str, object] = {}
    if tts is not None:
        overrides["tts_engine"] = tts
    if tts_voice is not None:
        overrides[piper_voice_setting(tts_voice)] = tts_voice
    if max_steps is not None:
        overrides["max_steps"] = max_steps
    if approval_timeout_s is not None:
        overrides["approval_timeout_s"] = approval_timeout_s
    settings = replace(settings, **overrides).validate()  # type: ignore[arg-type]

    def remember_wire_profile(endpoint: str, profile: WireProfile) -> None:
        services.remember_wire_profile(endpoint, profile)  # built below, before any request

    read_key = functools.cache(secrets.get_api_key)  # one keyring read at start, shared below
    llm = build_llm(
        settings, base_url=base_url, model=model, api_key=api_key, on_wire_profile=remember_wire_profile,
        stored_key=read_key,
    )
    if isinstance(llm, DemoModel) and demo_delay_s:
        llm = DemoModel(delay_s=demo_delay_s)

    config_path = mcp_config or (Path(settings.mcp_config_path) if settings.mcp_config_path else None)
    mcp_config_loaded, mcp_config_warning = load_mcp_config_or_set_aside(config_path)
    mcp = McpEngine(mcp_config_loaded)
    enabled = parse_skills_flag(skills) if skills is not None else settings.enabled_skills
    library = await asyncio.to_thread(SkillLibrary.load, enabled)  # reads files: off the loop
    hooks = await asyncio.to_thread(load_hooks)  # a slow disk never holds up the loop
    forms = FormManager()
    sub_agent = SubAgentTool(isolate=current_isolated(lambda: services.mcp))
    # The secrets a tool must not see or repeat (redacted from its output): every key the
    # endpoint could have come from.
    redactor = Redactor([api_key, os.environ.get("OPENAI_API_KEY")])
    redact_stored_key(redactor, llm, read_key)
    router = ToolRouter([*builtin_tools(forms, skills=library, redactor=redactor), sub_agent], redactor=redactor)
    sub_agent.bind(router)  # the tools a sub-agent may be given are the main agent's
    # Sources that follow services.mcp: Services.reload_mcp swaps the engine.
    router.add_source(CurrentSource(lambda: services.mcp, "shared"))
    router.add_source(CurrentSource(lambda: services.mcp, "per_conversation"))

    audit = AuditSinks([JsonlAuditLog(audit_log_path())])
    if audit_log is not None:
        extra = JsonlAuditLog(audit_log)
        try:
            extra.check()
        except OSError as exc:
            raise ValueError(f"cannot write the audit log {audit_log}: {exc.strerror or exc}") from None
        audit.add(extra)

    services = Services(
        settings_store=store,
        settings=settings,
        llm=llm,
        read_key=read_key,
        forms=forms,
        router=router,
        mcp=mcp,
        tts=None,
        skills=library,
        hooks=hooks,
        listener=listener,
        approvals=ApprovalManager(audit=audit),
        _llm_config=_endpoint_config(settings),
        mcp_config_override=mcp_config,
    )
    services._make_tts(settings)
    services.answer_servers(mcp)
    if keep_conversations:
        # The app's secrets never reach the file: a key the model wrote into
        # a tool's arguments is stored as [redacted], as in the events file.
        services.conversations = ConversationStore(redact=redactor)
        if services.conversations.error:
            services.startup_warnings.append(services.conversations.error)
    if loaded.error:
        services.startup_warnings.append(loaded.error)
    if mcp_config_warning:
        services.startup_warnings.append(mcp_config_warning)
    services.startup_warnings.extend(library.warnings)
    services.startup_warnings.extend(hooks.warnings)
    if skills is not None:
        services.startup_warnings.extend(
            Notice(f"--skills: no skill is named {name!r}", "notice_skills_unknown", {"name": name})
            for name in library.unknown(enabled or ())
        )
    if start_mcp:
        services.startup_warnings.extend(await mcp.start())
    services.startup_warnings.extend(services._new_shadowed())
    # What is found from now on (a server that joins later) is said as it comes.
    mcp.on_status = services._on_mcp_status
    mcp.on_warning = services._notice
    return services


__all__ = ["AppliedSettings", "LLMError", "Services", "ServicesListener", "build_llm", "build_services"]
