"""The MCP servers' side of :class:`~desktop_agent.services.Services`:
starting them without holding up input, reloading the servers file without a
restart, retrying one, expanding prompt commands and resource mentions, and
answering what servers ask of the app (forms, sampling, shared folders)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from desktop_agent.core.forms import FormManager
from desktop_agent.core.mentions import ExpandedMessage
from desktop_agent.core.notice import Notice
from desktop_agent.core.ports import LLMProvider
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.one_shot import complete
from desktop_agent.mcp_engine import McpEngine, Readiness, ServerStatus, load_mcp_config
from desktop_agent.mcp_engine.elicitation import Elicitation
from desktop_agent.mcp_engine.expansion import expand_message
from desktop_agent.mcp_engine.roots import roots_of
from desktop_agent.mcp_engine.sampling import SampledAnswer, SamplingRequest, sampling_hook
from desktop_agent.services.listener import Notifying
from desktop_agent.storage.settings import Settings

if TYPE_CHECKING:
    from mcp_types import ListRootsResult


class McpServices(Notifying):
    """The MCP part of the services; :attr:`mcp` is None when there is no engine."""

    mcp: McpEngine | None
    settings: Settings
    llm: LLMProvider
    forms: FormManager
    router: ToolRouter
    mcp_config_override: Path | None
    _shadow_said: set[str]

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
        """Close what the MCP servers keep for one conversation (its
        per-conversation server sessions)."""
        if self.mcp is not None:
            await self.mcp.close_conversation(conversation_id)
