"""TurnLogic: what the window does with a conversation, without Qt.

It owns the conversation (and, through :class:`TurnSettings`, the settings
the window runs with): it runs and cancels a turn (one asyncio task), routes
the user's answers (approvals, always-allow, forms) to the core, saves the
conversation after every turn and switches conversations. It reports through
a :class:`~desktop_agent.ui.chat.turn_events.TurnEvents`; the Qt adapter
(:class:`~desktop_agent.ui.chat.turn_controller.TurnController`) turns those
reports into Signals. The window lays out widgets, forwards user actions
here and renders what the signals say.

A message with MCP mentions (contracts §10) is expanded as its turn
starts, in the turn's task (the input stays usable): its bubble shows at
once and gets its chips when the expansion is done; a message that cannot
be expanded goes (bubble and all), one error line says why and its text
goes back to the input. Interrupt meanwhile does the same without the line.

Speech is heard only with a speaker (``TurnDeps.sink``) that is not muted;
otherwise a turn runs muted (no speech made, text never waits for it), and
muting during a turn releases its waiting text and stops the clip at once
(:meth:`TurnLogic.push_audio`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from desktop_agent.core import versions
from desktop_agent.core.approval import call_allow_key
from desktop_agent.core.forms import FormAnswerError
from desktop_agent.core.mentions import Attachment, ExpandedMessage, MentionError, may_mention
from desktop_agent.core.nested_call import request_allow_key
from desktop_agent.core.playback import PlaybackView
from desktop_agent.core.speaking_sink import SpeakingSink
from desktop_agent.core.transcript import (
    ApprovalAnswer,
    FormAnswered,
    InterruptClicked,
    WindowNotice,
    answers_json,
)
from desktop_agent.mcp_engine.sampling import SAMPLING, sampling_view
from desktop_agent.ui.chat.turn_answers import FormReply, form_error_text, readiness_line
from desktop_agent.ui.chat.turn_events import NoticeLevel, TurnEnd
from desktop_agent.ui.chat.turn_settings import TurnSettings
from desktop_agent.ui.chat.turn_state import ButtonPhase
from desktop_agent.ui.common.error_wording import mention_words, not_sent_markdown

if TYPE_CHECKING:
    from desktop_agent.core.audit import Decider
    from desktop_agent.core.conversation import Conversation
    from desktop_agent.texts import Texts
    from desktop_agent.ui.chat.turn_deps import TurnDeps
    from desktop_agent.ui.chat.turn_events import TurnEvents
    from desktop_agent.ui.chat.turn_state import TurnTracker

log = logging.getLogger(__name__)


class CardInfo(Protocol):
    """What routing an approval needs to know of a card."""

    @property
    def tool_name(self) -> str: ...

    @property
    def task_id(self) -> str | None: ...

    @property
    def server(self) -> str | None: ...

    @property
    def parent_tool_call_id(self) -> str | None: ...

    @property
    def arguments(self) -> Mapping[str, Any] | None: ...


class TurnSurface(PlaybackView, Protocol):
    """One turn's view, as the turn logic drives it (``TurnView`` is one):
    core's ``PlaybackView`` plus the user's side of the turn."""

    @property
    def tracker(self) -> TurnTracker: ...

    def card_state(self, tool_call_id: str) -> CardInfo | None: ...

    def mark_answered(self, tool_call_id: str, approved: bool) -> str | None: ...

    def invalidate_pending(self) -> None: ...

    def finish(self) -> None: ...

    def show_attachments(self, attachments: Sequence[Attachment]) -> None:
        """The turn's message carried these MCP prompts and resources (its chips)."""
        ...

    def unsend(self) -> None:
        """The turn's message was not sent after all: its bubble goes."""
        ...


V = TypeVar("V", bound=TurnSurface)


class TurnLogic(TurnSettings, Generic[V]):
    def __init__(self, deps: TurnDeps, events: TurnEvents, *, texts: Callable[[], Texts]) -> None:
        super().__init__(deps, events, texts=texts)
        self._conversation = deps.conversation
        self._phase = ButtonPhase.SEND
        self._view: V | None = None
        self._turn_task: asyncio.Task[None] | None = None
        self._expansion: asyncio.Future[ExpandedMessage | None] | None = None
        """The running turn's message being expanded (its MCP mentions)."""
        self._muted = deps.settings.muted
        sink = deps.sink
        self._speaker = SpeakingSink(sink, events.speaking) if sink is not None else None
        """The turns' speaker, telling ``events.speaking`` as clips start and end."""

    # ------------------------------------------------------------ state

    @property
    def conversation(self) -> Conversation:
        return self._conversation

    @property
    def phase(self) -> ButtonPhase:
        return self._phase

    @property
    def view(self) -> V | None:
        """The running turn's view (the previous one's while it hands in
        the rest of an interrupted turn)."""
        return self._view

    @property
    def turn_task(self) -> asyncio.Task[None] | None:
        return self._turn_task

    @property
    def speech_muted(self) -> bool:
        """Nobody would hear speech now: no speaker (none made, or a deferred
        one found no device), or the user muted it."""
        sink = self._deps.sink
        return sink is None or self._muted or bool(getattr(sink, "missing", False))

    @property
    def busy(self) -> bool:
        """A turn task is running (perhaps only the tail of an interrupted one)."""
        return self._turn_task is not None and not self._turn_task.done()

    @property
    def replying(self) -> bool:
        """The model's side of a turn still runs (not only its last words' speech)."""
        return self.busy and (self._conversation.replying or self._expansion is not None)

    @property
    def speaking(self) -> bool:
        """A turn's speech is playing now."""
        return self._speaker is not None and self._speaker.speaking

    def _say(self, level: NoticeLevel, text: str, *, with_next_turn: bool = False) -> None:
        """A notice that belongs to the conversation: shown now, and kept in
        its display log so a restore shows it too."""
        self._conversation.record(WindowNotice(level.value, text), with_next_turn=with_next_turn)
        self._events.said(level, text)

    def _set_phase(self, phase: ButtonPhase) -> None:
        if phase != self._phase:
            self._phase = phase
            self._events.phase_set(phase)

    # ------------------------------------------------------------ turns

    def start_turn(self, text: str, open_view: Callable[[str], V]) -> bool:
        """Start a turn with ``text``. ``open_view`` is called (with the
        stripped text) only once the turn is accepted: it shows the user's
        words and returns the turn's view. False when no turn can start now
        (empty text, Interrupting…, a turn running that was not interrupted).
        A turn whose reply is complete and only speaks its last words is
        stopped as Interrupt stops it, and the new one follows: a message
        sent then must not wait for the speech, nor be ignored."""
        text = text.strip()
        if not text or self._phase == ButtonPhase.INTERRUPTING:
            return False
        previous = self._turn_task if self.busy else None
        if previous is not None and self._view is not None and not self._view.tracker.interrupted_seen:
            if self.replying:
                return False  # a turn is running; the button says Interrupt
            self.interrupt()  # only its last words are still spoken: they stop, as Esc stops them
        view = open_view(text)
        self._set_phase(ButtonPhase.INTERRUPT)  # at once: the click was heard
        if previous is None:
            self._view = view  # Interrupt works from the first moment
        self._say_missing_tools()
        self._turn_task = asyncio.ensure_future(self._run_turn(text, view, previous))
        return True

    @property
    def can_redo(self) -> bool:
        """Regenerate and Edit may run now: no turn runs and one was had."""
        return not self.busy and self._phase == ButtonPhase.SEND and self._conversation.last_user_text() is not None

    def redo_last(self, text: str | None, open_view: Callable[[str], V]) -> bool:
        """:meth:`redo_from` the last turn: Regenerate, or Edit of the last message."""
        return self.redo_from(self._conversation.turn_count() - 1, text, open_view)

    def redo_from(self, turn: int, text: str | None, open_view: Callable[[str], V]) -> bool:
        """Keep turn ``turn`` and every later one as a version
        (``core/versions.py``) and run a turn in their place: with the same
        words (``text`` None: Regenerate) or with ``text`` (Edit). False,
        and nothing changed, when that cannot be done now."""
        if not self.can_redo or (text is not None and not text.strip()):
            return False
        previous = versions.keep(self._conversation, turn)
        if previous is None:
            return False
        return self.start_turn(previous if text is None else text, open_view)

    def switch_version(self, turn: int, index: int) -> bool:
        """Show version ``index`` (0-based) of turn ``turn`` in the
        conversation (what the next turn sends), saved at once; False while
        a turn runs or when there is no such version."""
        if not self.can_redo or not versions.switch(self._conversation, turn, index):
            return False
        self._save(self._conversation)
        return True

    def _say_missing_tools(self) -> None:
        """Under the user's words: which MCP servers this turn goes without
        (their tools join its next request once they are up). Asking also
        retries the failed ones in the background; nothing waits."""
        try:
            line = readiness_line(self._texts(), self._deps.before_turn())
        except Exception:  # the turn goes on; the servers' state is in the status bar
            log.exception("could not read the MCP servers' readiness")
            return
        if line is not None:
            self._say(NoticeLevel.SYSTEM, line, with_next_turn=True)

    async def _run_turn(self, text: str, view: V, previous: asyncio.Task[None] | None) -> None:
        me = asyncio.current_task()
        status = TurnEnd.ERROR
        if previous is not None:  # the interrupted turn is still handing in its results
            await asyncio.gather(previous, return_exceptions=True)
            self._view = view
        conversation = self._conversation
        try:
            expanded = await self._expand(text, view)
            if isinstance(expanded, _Unsent):
                return
            outcome = await conversation.run_turn(
                text, view, sink=self._speaker, auto_approve=self.auto_approval,
                approve_call=self.auto_approval_call, muted=self.speech_muted,
                describe_tool=self.tool_facts, expanded=expanded,
            )
            status = TurnEnd(outcome.status)
        except asyncio.CancelledError:
            status = TurnEnd.CANCELLED
            raise
        except Exception as exc:  # the turn's boundary in the UI: show, log, carry on
            log.exception("the turn failed")
            self._say(NoticeLevel.ERROR, f"**{self._texts().tr('error')}:** {exc}")
        finally:
            view.finish()
            if self._view is view:
                self._view = None
            if self._turn_task is me:
                self._turn_task = None
                self._set_phase(ButtonPhase.SEND)
            self._save(conversation)
            self._events.turn_ended(status)

    async def _expand(self, text: str, view: V) -> ExpandedMessage | _Unsent | None:
        """The message's MCP mentions expanded (None: it has none); when
        that fails or is interrupted, the message is taken off the screen,
        its text given back and :class:`_Unsent` returned."""
        if not may_mention(text):
            return None
        me = asyncio.current_task()
        expansion = self._expansion = asyncio.ensure_future(
            self._deps.expand_message(text, self._conversation.conversation_id)
        )
        notice: str | None = None
        try:
            expanded = await expansion
        except MentionError as exc:  # in the UI language where the engine named its text or the line is of a known kind
            notice = not_sent_markdown(self._texts(), *mention_words(self._texts(), exc))
        except asyncio.CancelledError:
            if me is not None and me.cancelling():
                raise
            notice = ""  # the user's interrupt: no error line
        except Exception as exc:  # a broken server must not lose the text
            log.exception("could not expand the message's MCP mentions")
            notice = not_sent_markdown(self._texts(), str(exc) or type(exc).__name__)
        finally:
            self._expansion = None
        if notice is None:
            if expanded is not None:
                view.show_attachments(expanded.attachments)
            return expanded
        view.unsend()
        if notice:
            self._events.said(NoticeLevel.ERROR, notice)
        self._events.give_back(text)
        return _Unsent()

    def interrupt(self) -> None:
        """The Interrupt button: Interrupting… until ``interrupted`` arrives."""
        expansion = self._expansion
        if expansion is not None:  # the message is still being expanded: it is not sent
            expansion.cancel()
            return
        view = self._view
        if view is None:
            return
        view.tracker.interrupt_clicked()
        self._conversation.record(InterruptClicked())
        self._set_phase(ButtonPhase.INTERRUPTING)
        tail = not self._conversation.replying
        if not self._conversation.interrupt():
            self._set_phase(ButtonPhase.SEND)  # nothing was running any more
        elif tail:
            # The reply was complete; only its speech still played. It stops
            # now, and no ``interrupted`` will come to free the button (or
            # to let the next message start while the tail winds down).
            view.tracker.interrupted_seen = True
            self._events.said(NoticeLevel.SYSTEM, self._texts().tr("sys_speech_stopped"))
            self._set_phase(ButtonPhase.SEND)

    def skip_speech(self) -> bool:
        """Skip the sentence being spoken; the turn goes on with the next
        (``PlaybackQueue.skip_current``). False when nothing was spoken."""
        queue = self._conversation.queue
        return queue is not None and queue.skip_current()

    def on_interrupted(self, _reason: str) -> None:
        """The view consumed ``interrupted``: a new turn may start."""
        self._set_phase(ButtonPhase.SEND)

    def give_up_interrupt(self) -> None:
        """``interrupted`` never came (the button's fallback): stop the
        turn task ourselves."""
        view, task = self._view, self._turn_task
        if view is not None:
            view.invalidate_pending()
            key = view.tracker.on_interrupted("user")
            if key is not None:
                self._events.said(NoticeLevel.SYSTEM, self._texts().tr(key))
        self._set_phase(ButtonPhase.SEND)
        if task is not None and not task.done():
            task.cancel()

    async def shutdown(self, timeout_s: float = 5.0) -> None:
        """Stop a running turn (interrupt, then cancel if it does not end),
        then save the conversation."""
        task = self._turn_task
        if task is not None and not task.done():
            self._conversation.interrupt()
            done, _pending = await asyncio.wait({task}, timeout=timeout_s)
            if not done:
                log.warning("the turn did not end within %ss of the interrupt; cancelling it", timeout_s)
                task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        self._save(self._conversation)

    # ------------------------------------------------ approvals, forms

    def answer_approval(
        self, tool_call_id: str, approved: bool, always: bool = False, *, by: Decider = "user"
    ) -> None:
        """A card's Approve/Reject (``always``: the always-allow box); ``by``:
        ``voice`` when it was spoken."""
        view = self._view
        state = view.card_state(tool_call_id) if view is not None else None
        if view is None or state is None or state.task_id is None:
            return
        if approved and always:
            sampling = sampling_view(state.tool_name, state.parent_tool_call_id, state.arguments)  # a server's request
            key = (
                request_allow_key(SAMPLING, sampling.server) if sampling
                else call_allow_key(state.tool_name, state.server, state.arguments)  # a command: its rule
            )
            if key is not None:
                self.set_always_allowed(key, True)
        view.mark_answered(tool_call_id, approved)
        self._conversation.record(ApprovalAnswer(tool_call_id, approved))
        if not self._conversation.answer_approval(state.task_id, approved, by=by):
            view.invalidate_pending()
            self._say(NoticeLevel.SYSTEM, self._texts().tr("sys_approval_lost"))

    def answer_form(self, form_id: str, answers: Mapping[str, Any] | None) -> FormReply:
        """A form's Submit (``answers``) or Cancel (None)."""
        try:
            ok = self._deps.forms.respond(form_id, answers)
        except FormAnswerError as exc:
            return FormReply(error=form_error_text(self._texts(), exc))
        if not ok:
            return FormReply("closed")
        self._conversation.record(FormAnswered(form_id, answers_json(answers)))
        return FormReply("submitted" if answers is not None else "cancelled")

    def decline_form(self, form_id: str) -> FormReply:
        """A server's form's Decline: the server hears ``decline``, not ``cancel``."""
        if not self._deps.forms.decline(form_id):
            return FormReply("closed")
        self._conversation.record(FormAnswered(form_id, None, declined=True))
        return FormReply("declined")

    # ----------------------------------------------------------- audio

    def push_audio(self, volume: float, muted: bool) -> None:
        """Tell the speaker (when it takes them) the current level and mute,
        and the running turn's queue the mute (muting releases its text)."""
        self._muted = muted
        sink = self._deps.sink
        set_muted = getattr(sink, "set_muted", None)
        set_volume = getattr(sink, "set_volume", None)
        if set_muted is not None:
            set_muted(muted)
        if set_volume is not None:
            set_volume(volume)
        queue = self._conversation.queue
        if queue is not None:
            queue.set_muted(self.speech_muted)

    # ---------------------------------------------------- conversations

    def new_conversation(self) -> bool:
        """Start afresh (the New button): False while a turn runs or when
        the window was given no way to make one."""
        keeper = self._deps.keeper
        if keeper is None or self.busy:
            return False
        old = self._conversation
        self._save(old)
        self._conversation = keeper.new(old)
        return True

    def switch_conversation(self, make: Callable[[Conversation], Conversation | None]) -> bool:
        """Leave the conversation for the one ``make`` returns (given the
        old one, saved first); False while a turn runs or when ``make``
        found none."""
        if self.busy:
            return False
        old = self._conversation
        self._save(old)
        new = make(old)
        if new is None:
            return False
        self._conversation = new
        return True

    def _save(self, conversation: Conversation) -> None:
        keeper = self._deps.keeper
        if keeper is not None:
            keeper.save(conversation)


class _Unsent:
    """The turn's message was not sent (see :meth:`TurnLogic._expand`)."""


__all__ = ["CardInfo", "TurnLogic", "TurnSurface"]
