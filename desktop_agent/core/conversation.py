"""Conversation: one chat thread. Runs turns (handler + playback queue on one
bus), keeps the history built from what was consumed, and is what the
window and the terminal call to interrupt and to answer approvals.

A turn that starts ``muted`` (the user's mute, or no audio device) is not
synthesised at all: nobody would hear it, and its text then never waits for
speech. Muting later goes to the running queue
(:meth:`PlaybackQueue.set_muted`); unmuting during a turn that started muted
leaves that turn silent (its speech was never made) and speaks from the next.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Sequence

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.approval import ApprovalManager, approval_key
from desktop_agent.core.audit import Decider
from desktop_agent.core.bus import SessionMessageBus
from desktop_agent.core.chat_handler import ChatHandler
from desktop_agent.core.events import TurnOutcome
from desktop_agent.core.history import (
    HistoryError,
    check_history,
    history_of,
    repair_history,
    sent_user_message,
    truncate_for_send,
)
from desktop_agent.core.history_items import HistoryItem, users_words
from desktop_agent.core.hooks import HookNote, hook_notes, persistent
from desktop_agent.core.mentions import ExpandedMessage
from desktop_agent.core.packed_log import LogPacker, PackedLog
from desktop_agent.core.playback import AutoApprove, CallApprove, PlaybackQueue, PlaybackView
from desktop_agent.core.ports import AudioSink, SpeechPort
from desktop_agent.core.session import SessionManager
from desktop_agent.core.transcript import (
    DisplayItem,
    ToolDescriber,
    ToolFacts,
    TranscriptItem,
    TranscriptRecorder,
    UserEvent,
    UserText,
)
from desktop_agent.core.versions import Versions

log = logging.getLogger(__name__)

SpeechFactory = Callable[[SessionMessageBus], SpeechPort | None]

__all__ = ["Conversation", "SpeechFactory", "TurnOutcome"]


class Conversation:
    def __init__(
        self,
        agent: AgentClient,
        *,
        approvals: ApprovalManager | None = None,
        sessions: SessionManager | None = None,
        conversation_id: str | None = None,
        speech_factory: SpeechFactory | None = None,
        approval_timeout_s: float = 300.0,
        history: Sequence[HistoryItem] | None = None,
        events: PackedLog | list[DisplayItem] | None = None,
        packer: LogPacker | None = None,
        versions: Versions | None = None,
    ) -> None:
        self.agent = agent
        self.approvals = approvals or ApprovalManager()
        self.sessions = sessions or SessionManager()
        self.conversation_id = conversation_id or uuid.uuid4().hex
        self.speech_factory = speech_factory
        self.approval_timeout_s = approval_timeout_s
        self._history: list[HistoryItem] | None = None
        self._saved: Sequence[HistoryItem] = ()
        """A saved history not made a list yet (:attr:`history`)."""
        if history is None or isinstance(history, list):
            self._history = list(history or [])
        else:
            self._saved = history
        self.events = events if isinstance(events, PackedLog) else PackedLog(events or (), packer)
        """The display log: what the window showed and the user did, as
        transcript items (its JSON form is ``storage/conversation_events.py``'s).
        Each finished turn's items are packed by ``packer`` (``core/packed_log.py``):
        kept as they are, they took more memory than the history itself."""
        self.versions = versions or Versions()
        """The versions Regenerate and Edit kept (``core/versions.py``)."""
        self._next_turn: list[UserEvent] = []
        self._turn: list[TranscriptItem] = []
        """The running turn's transcript: history and the display log's new
        events are derived from it."""
        self.rewound: tuple[int, int] | None = None
        """(history, events) lengths the log was cut back to since it was
        last saved (a taken-back exchange); the store rewrites from there."""
        self._handler = ChatHandler(agent, self.approvals, self.sessions)
        self._session_id: str | None = None
        self._handler_task: asyncio.Task[TurnOutcome] | None = None
        self._queue: PlaybackQueue | None = None
        self._carried: list[HookNote] = []
        """Non-persistent ``after_rejection``/``turn_end`` hook notes of the
        last turn: sent with the next turn's first request only."""
        self._carried_before: list[HookNote] = []
        """What ``_carried`` was when the last turn started: it comes back
        when that turn is taken back (:meth:`take_back_last_exchange`)."""

    @property
    def history(self) -> list[HistoryItem]:
        """What the model has read, as typed items (``core/history_items.py``):
        its JSON forms are made only on the way to the LLM (``core/wire.py``)
        and to disk (``storage/history_json.py``). A saved history given as
        a lazy sequence (``storage/history_json.StoredHistory``, each item
        made when first read) becomes this list the first time it is asked
        for: opening a long conversation reads only its last messages
        (:meth:`last_user_text`, :meth:`history_view`), and the first send,
        an export or a version makes the rest."""
        if self._history is None:
            self._history, self._saved = list(self._saved), ()
        return self._history

    @history.setter
    def history(self, items: list[HistoryItem]) -> None:
        self._history, self._saved = items, ()

    def history_view(self) -> Sequence[HistoryItem]:
        """The history to read, not change: a saved one not asked for
        whole yet stays unmade but for the items read (a save reads its
        length and its new tail)."""
        return self._saved if self._history is None else self._history

    @property
    def busy(self) -> bool:
        return self._session_id is not None

    @property
    def session_id(self) -> str | None:
        return self._session_id

    @property
    def replying(self) -> bool:
        """The model's side of the running turn is still going; False once
        only its tail plays (the last sentences' speech)."""
        return self._handler_task is not None and not self._handler_task.done()

    @property
    def queue(self) -> PlaybackQueue | None:
        return self._queue

    def last_user_text(self) -> str | None:
        """What the user said last (hook messages aside); None before the first turn."""
        index = self._last_user_index()
        return None if index is None else self._typed(index)

    def _typed(self, index: int) -> str:
        """The words the user typed for the history's user message at
        ``index`` (one with MCP mentions was sent expanded)."""
        return users_words(self.history_view()[index]) or ""

    def take_back_last_exchange(self) -> str | None:
        """Remove the last exchange (the user's last message and everything
        after it) from the history, as if it never happened, and return the
        user's text: Regenerate asks it again, Edit replaces it. The hook
        messages it carried to the next turn go with it; those it consumed
        come back. None (nothing changed) while a turn runs or before the first."""
        index = self._last_user_index()
        if self.busy or index is None:
            return None
        text = self._typed(index)
        del self.history[index:]
        last = len(self.events) - 1
        shown = next((last - i for i, e in enumerate(reversed(self.events)) if isinstance(e, UserText)), None)
        if shown is not None:
            del self.events[shown:]
        old = self.rewound or (len(self.history), len(self.events))
        self.rewound = (min(old[0], len(self.history)), min(old[1], len(self.events)))
        self._carried = self._carried_before
        return text

    def turn_count(self) -> int:
        """How many turns (user messages, hooks aside) the history holds."""
        return len(self._user_indices())

    def user_text_of(self, turn: int) -> str | None:
        """The words the user typed for turn ``turn`` (0-based); None when there is none."""
        users = self._user_indices()
        return self._typed(users[turn]) if 0 <= turn < len(users) else None

    def cut_turns(self, turn: int) -> tuple[list[HistoryItem], list[DisplayItem]] | None:
        """Remove turn ``turn`` and every later one from the history and
        the display log, as :meth:`take_back_last_exchange` removes the
        last, and return what went (history, display log); None (nothing
        changed) while a turn runs or when there is no such turn."""
        users = self._user_indices()
        if self.busy or not 0 <= turn < len(users):
            return None
        shown = [i for i, kind in enumerate(self.events.kinds()) if kind == "user"]
        # A log rebuilt from the history (none was kept) has no turn to cut.
        at = shown[turn - len(users)] if len(shown) >= len(users) else len(self.events)
        history, events = self.history[users[turn]:], list(self.events[at:])
        del self.history[users[turn]:]
        del self.events[at:]
        old = self.rewound or (len(self.history), len(self.events))
        self.rewound = (min(old[0], len(self.history)), min(old[1], len(self.events)))
        self._carried = self._carried_before if turn == len(users) - 1 else []
        return history, events

    def put_turns(self, history: list[HistoryItem], events: list[DisplayItem]) -> None:
        """Add turns cut before (another version of them) at the end."""
        self.history.extend(history)
        self.events.extend(events)
        self._carried = []

    def _user_indices(self) -> list[int]:
        return [i for i, m in enumerate(self.history_view()) if users_words(m) is not None]

    def record(self, item: UserEvent, *, with_next_turn: bool = False) -> None:
        """Add one of the window's own events (an answer, a click, a
        notice) to the transcript; ``with_next_turn``: it belongs under the
        user's message of the turn about to start."""
        if with_next_turn and not self.busy:
            self._next_turn.append(item)
        else:
            self._add(item)

    def _add(self, item: TranscriptItem) -> None:
        """One item of the transcript, and of the display log unless it is a
        hook note (history keeps those, the window never showed them)."""
        self._turn.append(item)
        if not isinstance(item, HookNote):
            self.events.append(item)

    def saved(self) -> None:
        """The store now holds the whole log."""
        self.rewound = None

    def _last_user_index(self) -> int | None:
        history = self.history_view()  # from the end: a saved history makes only its last items
        return next((i for i in range(len(history) - 1, -1, -1) if users_words(history[i]) is not None), None)

    def messages_for(self, user_text: str | UserText) -> list[HistoryItem]:
        """What the next turn starts from: earlier turns truncated, then the user."""
        user = user_text if isinstance(user_text, UserText) else UserText(user_text)
        return [*truncate_for_send(self.history), *self._carried, sent_user_message(user)]

    async def run_turn(
        self,
        user_text: str,
        view: PlaybackView,
        *,
        sink: AudioSink | None = None,
        auto_approve: AutoApprove = lambda name: None,
        approve_call: CallApprove = lambda message: None,
        on_bus: Callable[[SessionMessageBus], None] | None = None,
        muted: bool = False,
        describe_tool: ToolDescriber = lambda _name: ToolFacts(),
        expanded: ExpandedMessage | None = None,
    ) -> TurnOutcome:
        """Run one turn; ``describe_tool`` says what the display log keeps
        of each tool (its server, its risk hints) for a faithful restore.
        ``expanded``: ``user_text`` with its MCP mentions expanded
        (``mcp_engine/expansion.py``): the model reads that, the display
        log keeps the typed text and the attachments."""
        if self._session_id is not None:
            raise RuntimeError("a turn is already running in this conversation")
        session_id = uuid.uuid4().hex[:12]
        bus = SessionMessageBus(session_id)
        start = hook_notes(self.agent.hooks, "turn_start")  # after the user's message
        self._turn = []
        user = UserText(user_text, self.approval_timeout_s)
        if expanded is not None:
            user = UserText(
                user_text, self.approval_timeout_s, expanded.attachments, expanded.text, expanded.images
            )
        for item in (user, *start, *self._next_turn):
            self._add(item)
        self._next_turn.clear()
        recorder = TranscriptRecorder(view, self._add, describe_tool, session_id)
        bus.add_listener(recorder.on_bus)
        view = recorder
        if on_bus is not None:
            on_bus(bus)
        speech = self.speech_factory(bus) if self.speech_factory and not muted else None
        queue = PlaybackQueue(
            view,
            approver=self._approve,
            on_shown=self._approval_shown,
            auto_approve=auto_approve,
            approve_call=approve_call,
            sink=sink,
            expect_audio=speech is not None,
            muted=muted,
        )
        queue.attach(bus)
        self._session_id, self._queue = session_id, queue
        self._carried_before = self._carried
        self.sessions.start(session_id)
        handler = self._handler_task = asyncio.create_task(
            self._handler.handle_chat(
                session_id,
                bus,
                [*self.messages_for(user), *start],
                conversation_id=self.conversation_id,
                speech=speech,
                approval_timeout_s=self.approval_timeout_s,
                timer_from_shown=True,  # the queue says when the card shows
            )
        )
        try:
            await queue.run(bus)
            outcome = await handler
        finally:
            try:
                if not handler.done():
                    self.sessions.cancel(session_id, "user")
                    await asyncio.gather(handler, return_exceptions=True)
            finally:
                self._session_id, self._queue, self._handler_task = None, None, None
                self.sessions.finish(session_id)
                # Whatever ended the turn (a cancelled task, a view that
                # raised), what the user saw is kept.
                self._keep()
                self.events.pack()
        return outcome

    def _keep(self) -> None:
        """Add the turn to the history: the user's text, its persistent
        ``turn_start`` hooks, what the queue consumed (its last unflushed
        text included), then its persistent ``after_rejection`` (when a call
        was rejected or interrupted) and ``turn_end`` hooks; their
        non-persistent ones wait for the next turn's first request. A turn
        that fails the history check is repaired (and the reason logged),
        never dropped."""
        derived = history_of(self._turn)
        self._turn = []
        turn = derived.messages
        try:
            check_history(turn)
        except HistoryError as exc:
            log.warning("conversation %s: the turn's history was repaired: %s", self.conversation_id, exc)
            turn = repair_history(turn)
        hooks = self.agent.hooks
        end = hook_notes(hooks, "after_rejection") if derived.rejected else []
        end += hook_notes(hooks, "turn_end")
        turn.extend(persistent(end))
        self._carried = [note for note in end if not note.persistent]
        self.history.extend(turn)

    def interrupt(self) -> bool:
        """The interrupt button: False when no turn is running."""
        session_id, queue = self._session_id, self._queue
        if session_id is None:
            return False
        if queue is not None:
            queue.stop_now()
        self.sessions.cancel(session_id, "user")
        return True

    def answer_approval(self, task_id: str, approved: bool, *, by: Decider = "user") -> bool:
        """Answer through the queue so it unblocks; False when not pending.
        ``by``: who answered (a click, a spoken answer, a headless flag)."""
        queue = self._queue
        if queue is None:
            return False
        return queue.answer(task_id, approved, by)

    def _approval_shown(self, task_id: str) -> None:
        session_id = self._session_id
        if session_id is not None:
            self.approvals.shown(approval_key(session_id, task_id))

    def _approve(self, task_id: str, approved: bool, by: Decider) -> bool:
        session_id = self._session_id
        if session_id is None:
            return False
        key = approval_key(session_id, task_id)
        keeps_turn = self.approvals.keeps_turn(key)  # a server's request: only it fails
        ok = self.approvals.respond(key, approved, by=by)
        if not approved and not keeps_turn:
            self.sessions.cancel(session_id, "rejected")
        return ok
