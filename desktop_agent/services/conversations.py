"""New, resumed and saved conversations: each one is built from the settings
in use and remembered, so a settings change reaches every open one."""

from __future__ import annotations

import sqlite3
import weakref
from collections.abc import Sequence

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager
from desktop_agent.core.budget import Budget
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.history_items import HistoryItem
from desktop_agent.core.notice import Notice
from desktop_agent.core.packed_log import PackedLog
from desktop_agent.core.ports import LLMProvider
from desktop_agent.core.session import SessionManager
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.core.transcript import DisplayItem
from desktop_agent.hooks_engine import HookCatalog
from desktop_agent.services.speech import SpeechServices
from desktop_agent.skills_engine import SkillLibrary
from desktop_agent.storage.conversation_events import JSON_PACKER, SavedEvents, events_from_history
from desktop_agent.storage.conversation_versions import versions_from, versions_json
from desktop_agent.storage.conversations import ConversationStore
from desktop_agent.storage.settings import Settings


class ConversationServices(SpeechServices):
    """The conversations part of the services (each conversation speaks
    through :meth:`speech_factory`); :attr:`conversations` is None when
    nothing is saved."""

    settings: Settings
    llm: LLMProvider
    router: ToolRouter
    skills: SkillLibrary | None
    hooks: HookCatalog
    conversations: ConversationStore | None
    approvals: ApprovalManager
    sessions: SessionManager
    _conversations: weakref.WeakSet[Conversation]

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
        conversation = self.new_conversation(conversation_id=stored.id, history=stored.messages, events=events)
        conversation.versions = versions_from(stored.versions)
        return conversation

    def save_conversation(self, conversation: Conversation) -> None:
        """Append what the conversation gained since it was last saved."""
        if self.conversations is None:
            return
        try:
            self.conversations.save(
                conversation.conversation_id, conversation.history_view(), SavedEvents(conversation.events),
                rewound=conversation.rewound,
                versions=versions_json(conversation.versions) if conversation.versions.changed else False,
            )
        except (OSError, sqlite3.Error) as exc:
            self._notice(Notice(f"could not save the conversation: {exc}", "notice_save_failed"))
        else:
            conversation.saved()
            conversation.versions.changed = False

    def new_conversation(
        self,
        *,
        conversation_id: str | None = None,
        history: Sequence[HistoryItem] | None = None,
        events: PackedLog | list[DisplayItem] | None = None,
    ) -> Conversation:
        """A conversation run with the settings in use, remembered (weakly)
        so later settings changes reach it."""
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
