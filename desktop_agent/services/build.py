"""Building :class:`~desktop_agent.services.Services` once, from the
settings file and the command-line overrides (the window and the headless
mode call the same function)."""

from __future__ import annotations

import asyncio
import functools
import os
from dataclasses import replace
from pathlib import Path

from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.audit import AuditSinks
from desktop_agent.core.forms import FormManager
from desktop_agent.core.notice import Notice
from desktop_agent.core.redaction import Redactor
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.wire import WireProfile
from desktop_agent.hooks_engine import load_hooks
from desktop_agent.llm.demo import DemoModel
from desktop_agent.mcp_engine import McpEngine, load_mcp_config_or_set_aside
from desktop_agent.mcp_engine.current import CurrentSource, current_isolated
from desktop_agent.services.listener import ServicesListener
from desktop_agent.services.model import build_llm, endpoint_config, redact_stored_key
from desktop_agent.services.running import Services
from desktop_agent.skills_engine import SkillLibrary, parse_skills_flag
from desktop_agent.storage import secrets
from desktop_agent.storage.audit_log import JsonlAuditLog, audit_log_path
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.settings import SettingsStore
from desktop_agent.tools import builtin_tools
from desktop_agent.tools.sub_agent import SubAgentTool
from desktop_agent.voice.piper_settings import piper_voice_setting


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
    max_tokens: int | None = None,
    request_timeout_s: float | None = None,
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
    if max_tokens is not None:
        overrides["max_tokens"] = max_tokens
    if request_timeout_s is not None:
        overrides["request_timeout_s"] = request_timeout_s
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
        _llm_config=endpoint_config(settings),
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
