"""The turn logic without a window: no QWidget anywhere, a recording view in
place of ``TurnView``, real conversations over the scripted LLM (in process)
or the offline demo model, on the qasync loop of tests/ui. Most tests watch
it through its Qt adapter's signals (``TurnController``); one runs it with
plain recording events, without any QObject."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QApplication

from desktop_agent.core.agent import AgentClient
from desktop_agent.core.conversation import Conversation
from desktop_agent.core.forms import FormManager
from desktop_agent.core.mentions import Attachment, ExpandedMessage, MentionError
from desktop_agent.core.messages import (
    ErrorMessage,
    FormRequestMessage,
    InterruptedMessage,
    RoundEndMessage,
    TextMessage,
    ToolCallMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.playback import ToolEvent
from desktop_agent.core.ports import AudioSink
from desktop_agent.core.risk import AutoDecider
from desktop_agent.core.tool_router import ToolRouter
from desktop_agent.llm.demo import DemoModel
from desktop_agent.services import AppliedSettings
from desktop_agent.storage.history_json import history_json
from desktop_agent.storage.settings import Settings, SettingsStore
from desktop_agent.testing.fake_sink import FakeAudioSink
from desktop_agent.testing.fake_tools import BlockingTool, EchoTool
from desktop_agent.testing.fake_tts import FakeTTS
from desktop_agent.testing.scripted_llm import ScriptedLLM
from desktop_agent.testing.scripted_replies import Reply, text_reply, tool_reply
from desktop_agent.testing.tool_facts import ToolFactsTable
from desktop_agent.testing.window_rig import SignalLog
from desktop_agent.texts import ENGLISH
from desktop_agent.tools import builtin_tools
from desktop_agent.ui.chat.turn_answers import FormReply
from desktop_agent.ui.chat.turn_controller import TurnController
from desktop_agent.ui.chat.turn_deps import ConversationKeeper, SettingsFeature
from desktop_agent.ui.chat.turn_events import NoticeLevel, TurnEnd
from desktop_agent.ui.chat.turn_logic import TurnLogic
from desktop_agent.ui.chat.turn_state import ButtonPhase, TurnTracker
from desktop_agent.ui.settings.mcp_feature import McpFeature
from desktop_agent.ui.shell.window_deps import WindowDeps
from desktop_agent.ui.voice.deferred_audio import DeferredSink
from desktop_agent.voice import SpeechPipeline

PLAN = text_reply("Let me check.\n<need_tool>")


@dataclass(frozen=True)
class Card:
    tool_name: str
    task_id: str | None
    server: str | None = None
    parent_tool_call_id: str | None = None
    arguments: dict[str, Any] | None = None


class RecordingView:
    """One turn's view without widgets: records what the queue shows and
    what the controller asks of it; says when an approval or a form waits."""

    def __init__(self, controller: TurnLogic[RecordingView]) -> None:
        self.tracker = TurnTracker()
        self.shown: list[str] = []
        self.cards: dict[str, Card] = {}
        self.answered: list[tuple[str, bool]] = []
        self.auto: list[str] = []
        self.invalidated = 0
        self.finished = False
        self.forms: list[str] = []
        self.waiting: asyncio.Queue[str] = asyncio.Queue()
        """tool_call_id of each approval, form_id of each form, as they come."""
        self._controller = controller

    def show_text(self, message: TextMessage) -> None:
        self.shown.append(message.text)

    def round_ended(self, message: RoundEndMessage) -> None:
        pass

    def tool_event(self, message: ToolEvent) -> None:
        if isinstance(message, FormRequestMessage):
            self.forms.append(message.form_id)
            self.waiting.put_nowait(message.form_id)

    def approval_needed(self, message: ToolCallMessage) -> None:
        server = self._controller.deps.tool_facts.server(message.tool_name)
        self.cards[message.tool_call_id] = Card(message.tool_name, message.task_id, server)
        self.waiting.put_nowait(message.tool_call_id)

    def auto_approved(self, message: ToolCallMessage, by: AutoDecider = "always_allow") -> None:
        self.auto.append(message.tool_name)

    def notice(self, message: WarningMessage | ErrorMessage) -> None:
        self.shown.append(f"notice: {message.message}")

    def interrupted(self, message: InterruptedMessage) -> None:
        self.invalidate_pending()
        self.tracker.on_interrupted(message.reason)
        self._controller.on_interrupted(message.reason)

    def turn_ended(self, message: TurnEndMessage) -> None:
        pass

    def card_state(self, tool_call_id: str) -> Card | None:
        return self.cards.get(tool_call_id)

    def mark_answered(self, tool_call_id: str, approved: bool) -> str | None:
        self.answered.append((tool_call_id, approved))
        return None if approved else self.tracker.reject_clicked()

    def invalidate_pending(self, reason: str | None = None) -> None:
        self.invalidated += 1

    def finish(self) -> None:
        self.finished = True

    def show_attachments(self, attachments: Sequence[Attachment]) -> None:
        self.attachments = tuple(attachments)

    def unsend(self) -> None:
        self.unsent = True

    async def next_waiting(self) -> str:
        async with asyncio.timeout(10):
            return await self.waiting.get()


class Applier:
    """Stands in for ``Services.apply_settings``."""

    def __init__(self) -> None:
        self.calls: list[tuple[Settings, bool]] = []

    def __call__(self, settings: Settings, *, key_changed: bool = False) -> AppliedSettings:
        self.calls.append((settings, key_changed))
        if settings.base_url.startswith("ftp"):
            return AppliedSettings("demo", True, "connect", "base URL must start with http:// or https://")
        return AppliedSettings(settings.model or "demo", not settings.model, None)


@dataclass
class Rig:
    controller: TurnLogic[RecordingView]
    signals: TurnController[RecordingView]
    store: SettingsStore
    applier: Applier
    saved: list[tuple[str, int]]
    """(conversation_id, len(history)) at each save."""
    views: list[RecordingView] = field(default_factory=list)
    turns: SignalLog = field(init=False)
    phases: SignalLog = field(init=False)
    notices: SignalLog = field(init=False)
    models: SignalLog = field(init=False)

    def __post_init__(self) -> None:
        self.turns = SignalLog(self.signals.turn_finished)
        self.phases = SignalLog(self.signals.phase_changed)
        self.notices = SignalLog(self.signals.notice)
        self.models = SignalLog(self.signals.model_changed)

    def open_view(self, _text: str) -> RecordingView:
        view = RecordingView(self.controller)
        self.views.append(view)
        return view

    def send(self, text: str) -> RecordingView:
        assert self.controller.start_turn(text, self.open_view)
        return self.views[-1]

    async def turn_status(self) -> str:
        (status,) = await self.turns.wait_for()
        return str(status)


@asynccontextmanager
async def controller_rig(
    script: list[Reply] | None = None,
    *,
    tools: list[Any] | None = None,
    store: SettingsStore | None = None,
    keys: list[str | None] | None = None,
    tts: FakeTTS | None = None,
    sink: AudioSink | None = None,
    tool_servers: Mapping[str, str] | None = None,
) -> AsyncIterator[Rig]:
    """A controller over a conversation with the scripted LLM (or, without
    a script, the demo model); the settings in ``DESKTOP_AGENT_HOME``;
    ``tts`` speaks the voice text, ``sink`` is the speaker."""
    assert QApplication.instance() is not None  # the qasync loop's; no widget is made
    forms = FormManager()
    store = store or SettingsStore()
    llm = ScriptedLLM(script) if script is not None else DemoModel()
    router = ToolRouter([*builtin_tools(forms), *(tools or [])])
    speech_factory = (lambda bus: SpeechPipeline(tts, bus)) if tts is not None else None
    conversation = Conversation(AgentClient(llm, router), speech_factory=speech_factory)
    saved: list[tuple[str, int]] = []
    applier = Applier()

    def save(c: Conversation) -> None:
        saved.append((c.conversation_id, len(c.history)))

    deps = WindowDeps(
        conversation, forms, store, store.load().settings, model_name=llm.model,
        settings_feature=SettingsFeature(applier, keys.append) if keys is not None else SettingsFeature(applier),
        keeper=ConversationKeeper(lambda _old: Conversation(AgentClient(llm, router)), save), sink=sink,
    )
    if tool_servers is not None:
        deps = replace(deps, tool_facts=ToolFactsTable(tool_servers))
    signals: TurnController[RecordingView] = TurnController(deps, texts=lambda: ENGLISH)
    try:
        yield Rig(signals.logic, signals, store, applier, saved)
    finally:
        await signals.logic.shutdown(timeout_s=2)
        forms.cancel_all()


async def test_a_turn_on_the_demo_model_completes_and_the_conversation_is_saved() -> None:
    async with controller_rig() as rig:
        view = rig.send("hello")
        assert rig.controller.phase == "interrupt" and rig.controller.view is view
        assert await rig.turn_status() == "completed"
        assert rig.phases.events == [("interrupt",), ("send",)]
        assert view.finished and view.shown
        history = history_json(rig.controller.conversation.history)
        assert history[0] == {"role": "user", "content": "hello"}
        assert rig.saved == [(rig.controller.conversation.conversation_id, len(history))]
        assert rig.controller.view is None and rig.controller.turn_task is None


async def test_empty_text_and_a_second_turn_while_one_runs_are_refused() -> None:
    async with controller_rig([PLAN, tool_reply("echo", {"text": "x"}), text_reply("ok")], tools=[EchoTool()]) as rig:
        assert not rig.controller.start_turn("  \n", rig.open_view)
        view = rig.send("go")
        await view.next_waiting()
        assert not rig.controller.start_turn("again", rig.open_view)
        assert len(rig.views) == 1  # no view was opened for the refused turn


async def test_an_approved_call_runs_and_the_turn_completes() -> None:
    echo = EchoTool()
    script = [PLAN, tool_reply("echo", {"text": "hi"}), text_reply("Done.")]
    async with controller_rig(script, tools=[echo]) as rig:
        view = rig.send("echo hi")
        call_id = await view.next_waiting()
        rig.controller.answer_approval(call_id, True)
        assert await rig.turn_status() == "completed"
        assert view.answered == [(call_id, True)]
        assert echo.calls == [{"text": "hi"}]
        assert view.shown == ["Let me check.\n", "Done."]
        assert rig.controller.settings.always_allow == ()


async def test_a_rejected_call_never_runs_and_ends_the_turn() -> None:
    echo = EchoTool()
    async with controller_rig([PLAN, tool_reply("echo", {"text": "no"}), text_reply("never")], tools=[echo]) as rig:
        view = rig.send("echo no")
        call_id = await view.next_waiting()
        rig.controller.answer_approval(call_id, False)
        assert await rig.turn_status() == "rejected"
        assert echo.calls == []
        assert view.answered == [(call_id, False)]
        assert history_json(rig.controller.conversation.history)[-1]["role"] == "tool"


async def test_always_allow_is_saved_applied_and_answers_the_next_approval() -> None:
    echo = EchoTool()
    script = [PLAN, tool_reply("echo", {"text": "1"}), text_reply("One."),
              PLAN, tool_reply("echo", {"text": "2"}), text_reply("Two.")]
    async with controller_rig(script, tools=[echo]) as rig:
        first = rig.send("first")
        rig.controller.answer_approval(await first.next_waiting(), True, always=True)
        assert await rig.turn_status() == "completed"
        assert rig.controller.settings.always_allow == ("builtin/echo",)
        assert rig.store.load().settings.always_allow == ("builtin/echo",)
        assert [(s.always_allow, key) for s, key in rig.applier.calls] == [(("builtin/echo",), False)]

        second = rig.send("second")
        assert await rig.turn_status() == "completed"
        assert (second.cards, second.auto) == ({}, ["echo"])
        assert echo.calls == [{"text": "1"}, {"text": "2"}]


async def test_an_answer_to_an_unknown_card_is_ignored() -> None:
    async with controller_rig([PLAN, tool_reply("echo", {"text": "x"}), text_reply("ok")], tools=[EchoTool()]) as rig:
        view = rig.send("go")
        call_id = await view.next_waiting()
        rig.controller.answer_approval("no-such-call", True)
        assert view.answered == []
        rig.controller.answer_approval(call_id, True)
        assert await rig.turn_status() == "completed"


async def test_form_answers_are_checked_then_become_the_tool_result() -> None:
    script = [PLAN, tool_reply("ask_user_question", {"question": "Your name?"}), text_reply("Hi Ann.")]
    async with controller_rig(script) as rig:
        view = rig.send("ask me")
        form_id = await view.next_waiting()
        wrong = rig.controller.answer_form(form_id, {})
        assert wrong.ended is None and wrong.error is not None
        assert rig.controller.answer_form(form_id, {"q1": "Ann"}) == FormReply("submitted")
        assert await rig.turn_status() == "completed"
        assert rig.controller.answer_form(form_id, None) == FormReply("closed")
        tool_message = next(m for m in history_json(rig.controller.conversation.history) if m["role"] == "tool")
        assert "Ann" in str(tool_message["content"])


async def test_interrupt_stops_a_running_tool_and_the_button_returns_to_send() -> None:
    slow = BlockingTool()
    async with controller_rig([PLAN, tool_reply("slow", {"text": "x"}), text_reply("never")], tools=[slow]) as rig:
        view = rig.send("wait")
        rig.controller.answer_approval(await view.next_waiting(), True)
        async with asyncio.timeout(10):
            await slow.started.wait()
        rig.controller.interrupt()
        assert await rig.turn_status() == "user"
        assert slow.cancelled
        assert [p for (p,) in rig.phases.events] == ["interrupt", "interrupting", "send"]
        assert view.tracker.user_interrupted and view.tracker.interrupted_seen


async def test_giving_up_on_the_interrupt_cancels_the_turn_and_says_so() -> None:
    slow = BlockingTool()
    async with controller_rig([PLAN, tool_reply("slow", {"text": "x"})], tools=[slow]) as rig:
        view = rig.send("wait")
        rig.controller.answer_approval(await view.next_waiting(), True)
        async with asyncio.timeout(10):
            await slow.started.wait()
        rig.controller.give_up_interrupt()
        assert await rig.turn_status() == "cancelled"
        assert rig.notices.events == [("system", ENGLISH.tr("sys_interrupted"))]
        assert rig.controller.phase == "send" and rig.controller.turn_task is None
        assert len(rig.saved) == 1  # saved even so


async def test_a_settings_edit_stores_the_key_saves_and_applies_once() -> None:
    keys: list[str | None] = []
    async with controller_rig(keys=keys) as rig:
        edited = replace(Settings(), base_url="http://h/v1", model="m1", max_steps=3)
        rig.controller.apply_edit(edited, api_key="sk-1")
        assert keys == ["sk-1"]
        assert rig.applier.calls == [(edited, True)]
        assert rig.store.load().settings == edited and rig.controller.settings == edited
        (applied,) = await rig.models.wait_for()
        assert applied == AppliedSettings("m1", False, None)

        rig.controller.apply_edit(replace(edited, base_url="ftp://x"))
        assert rig.applier.calls[-1] == (replace(edited, base_url="ftp://x"), False)
        assert rig.notices.events == [("error", "base URL must start with http:// or https://")]


async def test_an_unwritable_settings_file_is_reported_but_the_settings_still_apply(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    async with controller_rig(store=SettingsStore(blocker / "settings.json")) as rig:
        assert not rig.controller.save_settings(replace(Settings(), muted=True))
        ((level, text),) = rig.notices.events
        assert level == "error" and text.startswith("Could not save the settings:")
        assert rig.controller.settings.muted and rig.applier.calls[0][0].muted


async def test_mute_and_volume_are_saved_only_when_they_change() -> None:
    async with controller_rig() as rig:
        rig.controller.save_muted(rig.controller.settings.muted)
        rig.controller.save_volume(0.25)
        rig.controller.save_volume(0.25)
        assert [s.volume for s, _key in rig.applier.calls] == [0.25]
        assert rig.store.load().settings.volume == 0.25


async def test_a_new_conversation_waits_for_the_turn_and_saves_the_old_one() -> None:
    slow = BlockingTool()
    async with controller_rig([PLAN, tool_reply("slow", {"text": "x"}), text_reply("ok")], tools=[slow]) as rig:
        first = rig.controller.conversation
        view = rig.send("wait")
        rig.controller.answer_approval(await view.next_waiting(), True)
        assert not rig.controller.new_conversation()
        slow.release.set()
        assert await rig.turn_status() == "completed"
        assert rig.controller.new_conversation()
        assert rig.controller.conversation is not first
        assert [cid for cid, _n in rig.saved] == [first.conversation_id] * 2  # after the turn, then before leaving


async def test_shutdown_during_a_turn_stops_it_and_saves() -> None:
    slow = BlockingTool()
    async with controller_rig([PLAN, tool_reply("slow", {"text": "x"})], tools=[slow]) as rig:
        view = rig.send("wait")
        rig.controller.answer_approval(await view.next_waiting(), True)
        async with asyncio.timeout(10):
            await slow.started.wait()
        await rig.controller.shutdown()
        assert slow.cancelled and rig.controller.turn_task is None
        assert rig.turns.events == [("user",)]
        assert len(rig.saved) == 2  # the turn's end, then the close


SPOKEN = [text_reply("<voice>One. Two. Three.</voice><no_tool>"), text_reply("Done.")]
"""A planning reply of three spoken sentences, then a continuation."""


async def test_a_muted_turn_shows_every_sentence_at_once_and_makes_no_speech() -> None:
    tts, sink = FakeTTS(hold=True), FakeAudioSink()  # held: any wait for speech would never end
    async with controller_rig(SPOKEN, tts=tts, sink=sink) as rig:
        rig.controller.push_audio(1.0, True)
        view = rig.send("talk")
        assert await rig.turn_status() == "completed"
        assert view.shown == ["One. ", "Two. ", "Three.", "Done."]
        assert (tts.calls, sink.plays, sink.muted) == ([], [], True)
        assert history_json(rig.controller.conversation.history)[1:] == [
            {"role": "assistant", "content": "<voice>One. Two. Three.</voice>"},
            {"role": "assistant", "content": "Done."},
        ]


async def test_without_a_speaker_a_voiced_reply_never_waits_for_speech() -> None:
    tts = FakeTTS(hold=True)
    async with controller_rig(SPOKEN, tts=tts) as rig:
        assert rig.controller.speech_muted
        view = rig.send("talk")
        assert await rig.turn_status() == "completed"
        assert view.shown == ["One. ", "Two. ", "Three.", "Done."]
        assert tts.calls == []


async def test_a_speaker_found_missing_at_the_first_clip_is_said_once_and_nothing_waits_for_it() -> None:
    # The speaker is made at the first clip (QtMultimedia unloaded until
    # then, so an idle window stays light); finding no device there releases
    # the text like a mute.
    tts, told = FakeTTS(), []
    rigs: list[Rig] = []

    def missing() -> None:
        told.append("missing")
        rigs[0].controller.push_audio(1.0, False)  # what app_speech.deferred_sink does

    sink = DeferredSink(lambda _volume, _muted: None, on_missing=missing)
    async with controller_rig(SPOKEN, tts=tts, sink=sink) as rig:
        rigs.append(rig)
        assert not rig.controller.speech_muted  # not asked yet
        view = rig.send("talk")
        assert await rig.turn_status() == "completed"
        assert view.shown == ["One. ", "Two. ", "Three.", "Done."]
        assert (told, sink.missing, rig.controller.speech_muted) == (["missing"], True, True)


async def test_muting_mid_reply_stops_the_clip_and_shows_the_rest_at_once() -> None:
    tts, sink = FakeTTS(), FakeAudioSink()
    async with controller_rig(SPOKEN, tts=tts, sink=sink) as rig:
        rig.controller.push_audio(1.0, False)
        view = rig.send("talk")
        async with asyncio.timeout(10):
            await sink.wait_for_plays(1)
        assert view.shown == ["One. "]
        rig.controller.push_audio(1.0, True)  # the clip is not played to its end
        assert await rig.turn_status() == "completed"
        assert view.shown == ["One. ", "Two. ", "Three.", "Done."]
        assert sink.log == [("play", FakeTTS.audio_for("One."), "audio/wav"), ("stop",), ("stopped", 0)]
        assert history_json(rig.controller.conversation.history)[1]["content"] == "<voice>One. Two. Three.</voice>"


async def test_an_allowed_tool_from_one_server_does_not_approve_the_same_name_from_another() -> None:
    # get_time was allowed (saved as a bare name, before entries named their
    # server) from a server that failed to start; server "b" now offers a
    # tool of the same name: it must ask.
    echo = EchoTool(name="get_time")
    script = [PLAN, tool_reply("get_time", {"text": "1"}), text_reply("Asked."),
              PLAN, tool_reply("get_time", {"text": "2"}), text_reply("Not asked.")]
    store = SettingsStore()
    store.save(Settings(always_allow=("get_time",)))
    async with controller_rig(script, tools=[echo], store=store, tool_servers={"get_time": "b"}) as rig:
        first = rig.send("what time is it")
        call = await first.next_waiting()  # asked, not auto-approved
        assert first.cards[call].server == "b"
        rig.controller.answer_approval(call, True, always=True)
        assert await rig.turn_status() == "completed"
        assert first.auto == []
        assert rig.controller.settings.always_allow == ("get_time", "b/get_time")

        second = rig.send("and now")
        assert await rig.turn_status() == "completed"
        assert second.auto == ["get_time"]  # allowed from "b" now


def test_bare_saved_names_are_tied_to_their_server_only_when_certain() -> None:
    settings = Settings(always_allow=("run_command", "fetch", "time/get_current_time"))
    certain = {"run_command": "builtin/run_command"}.get  # "fetch": its server is not up yet
    migrated = settings.with_allow_keys(certain)
    assert migrated.always_allow == ("builtin/run_command", "fetch", "time/get_current_time")
    assert migrated.with_allow_keys(certain) is migrated  # nothing more to tie: unchanged


async def test_interrupt_while_the_finished_reply_is_still_spoken_stops_it_at_once_and_says_so() -> None:
    tts, sink = FakeTTS(), FakeAudioSink()  # each clip plays until stopped
    script = [text_reply("Sure.<no_tool>"), text_reply("<voice>The last words.</voice>")]
    async with controller_rig(script, tts=tts, sink=sink) as rig:
        rig.controller.push_audio(1.0, False)
        rig.send("talk")
        async with asyncio.timeout(10):
            await sink.wait_for_plays(1)
            while rig.controller.conversation.replying:  # the model's side ends on its own
                await asyncio.sleep(0.01)
        rig.controller.interrupt()
        # At once: the button is free and the user is told, before the queue
        # has even woken up.
        assert rig.phases.events[-1] == ("send",)
        assert rig.notices.events == [("system", ENGLISH.tr("sys_speech_stopped"))]
        assert await rig.turn_status() == "completed"
        assert ("stop",) in sink.log and sink.log[-1] == ("stopped", 0)


async def test_a_turn_before_every_mcp_server_is_ready_names_them_in_one_line_and_runs() -> None:
    from desktop_agent.mcp_engine import Readiness

    asked: list[Readiness] = []

    def before_turn() -> Readiness:
        asked.append(Readiness(starting=("fs", "git"), retrying=("web",)) if not asked else Readiness())
        return asked[-1]

    forms, store = FormManager(), SettingsStore()
    conversation = Conversation(AgentClient(DemoModel(), ToolRouter(builtin_tools(forms))))
    deps = WindowDeps(conversation, forms, store, store.load().settings, model_name="demo",
                      mcp=McpFeature(lambda: (), before_turn=before_turn))
    signals: TurnController[RecordingView] = TurnController(deps, texts=lambda: ENGLISH)
    controller = signals.logic
    turns, notices = SignalLog(signals.turn_finished), SignalLog(signals.notice)
    try:
        for text in ("hello", "again"):  # the second: everything is up, nothing to say
            assert controller.start_turn(text, lambda _text: RecordingView(controller))
            assert await turns.wait_for() == ("completed",)
    finally:
        await controller.shutdown(timeout_s=2)

    assert len(asked) == 2
    assert notices.events == [
        ("system", "Answering without the tools of MCP fs, git, web (failed, retrying) — not ready yet"),
    ]


class RecordingEvents:
    """A ``TurnEvents`` without Qt: every report, in order."""

    def __init__(self) -> None:
        self.reports: list[tuple[str, object]] = []
        self.ended = asyncio.Event()

    def turn_ended(self, status: TurnEnd) -> None:
        self.reports.append(("turn_ended", status))
        self.ended.set()

    def phase_set(self, phase: ButtonPhase) -> None:
        self.reports.append(("phase_set", phase))

    def said(self, level: NoticeLevel, text: str) -> None:
        self.reports.append(("said", level))

    def settings_applied(self, applied: AppliedSettings) -> None:
        self.reports.append(("settings_applied", applied.model))

    def speaking(self, speaking: bool) -> None:
        self.reports.append(("speaking", speaking))

    def give_back(self, text: str) -> None:
        self.reports.append(("give_back", text))


async def test_the_turn_logic_runs_a_turn_reporting_to_plain_events_without_any_qobject() -> None:
    forms, store = FormManager(), SettingsStore()
    conversation = Conversation(AgentClient(DemoModel(), ToolRouter(builtin_tools(forms))))
    deps = WindowDeps(conversation, forms, store, store.load().settings, model_name="demo")
    events = RecordingEvents()
    logic: TurnLogic[RecordingView] = TurnLogic(deps, events, texts=lambda: ENGLISH)
    try:
        assert logic.start_turn("hello", lambda _text: RecordingView(logic))
        async with asyncio.timeout(10):
            await events.ended.wait()
    finally:
        await logic.shutdown(timeout_s=2)

    assert events.reports == [
        ("phase_set", ButtonPhase.INTERRUPT),
        ("phase_set", ButtonPhase.SEND),
        ("turn_ended", TurnEnd.COMPLETED),
    ]
    assert all(type(value) is not str for _name, value in events.reports)  # enums, not bare words


def test_the_qt_adapter_turns_each_report_into_its_signal_carrying_the_enum() -> None:
    forms, store = FormManager(), SettingsStore()
    conversation = Conversation(AgentClient(DemoModel(), ToolRouter(builtin_tools(forms))))
    deps = WindowDeps(conversation, forms, store, store.load().settings, model_name="demo")
    signals: TurnController[RecordingView] = TurnController(deps, texts=lambda: ENGLISH)
    logs = [SignalLog(signal) for signal in (signals.turn_finished, signals.phase_changed, signals.notice,
                                             signals.model_changed, signals.speaking_changed)]
    applied = AppliedSettings("demo", True, None)

    signals.turn_ended(TurnEnd.REJECTED)
    signals.phase_set(ButtonPhase.INTERRUPTING)
    signals.said(NoticeLevel.WARNING, "careful")
    signals.settings_applied(applied)
    signals.speaking(True)

    assert [log.events for log in logs] == [
        [(TurnEnd.REJECTED,)], [(ButtonPhase.INTERRUPTING,)], [(NoticeLevel.WARNING, "careful")], [(applied,)],
        [(True,)],
    ]
    assert type(logs[0].events[0][0]) is TurnEnd and type(logs[2].events[0][0]) is NoticeLevel


def _opened(views: list[RecordingView], logic: TurnLogic[RecordingView]) -> RecordingView:
    views.append(RecordingView(logic))
    return views[-1]


def _mention_logic(expand: Callable[[str, str | None], Any]) -> tuple[TurnLogic[RecordingView], RecordingEvents]:
    from desktop_agent.ui.settings.mcp_feature import McpFeature

    forms, store = FormManager(), SettingsStore()
    conversation = Conversation(AgentClient(DemoModel(), ToolRouter(builtin_tools(forms))))
    deps = WindowDeps(conversation, forms, store, store.load().settings, model_name="demo",
                      mcp=McpFeature(lambda: (), expand=expand))
    events = RecordingEvents()
    return TurnLogic(deps, events, texts=lambda: ENGLISH), events


async def test_a_message_with_mentions_is_expanded_first_and_its_view_gets_the_chips() -> None:
    chips = (Attachment("resource", "ev", "demo://x/a.md"),)

    async def expand(_text: str, _conversation_id: str | None) -> ExpandedMessage:
        return ExpandedMessage("hello", (), chips)  # what the demo model answers at once

    logic, events = _mention_logic(expand)
    views: list[RecordingView] = []
    try:
        assert logic.start_turn("hello @ev:demo://x/a.md", lambda _text: _opened(views, logic))
        async with asyncio.timeout(10):
            await events.ended.wait()
    finally:
        await logic.shutdown(timeout_s=2)

    assert views[0].attachments == chips and not hasattr(views[0], "unsent")
    assert history_json(logic.conversation.history)[0]["content"] == "hello"
    assert logic.conversation.last_user_text() == "hello @ev:demo://x/a.md"
    assert events.reports[-1] == ("turn_ended", TurnEnd.COMPLETED)


async def test_a_message_that_cannot_expand_goes_back_with_one_error_line_and_no_turn() -> None:
    async def expand(_text: str, _conversation_id: str | None) -> ExpandedMessage:
        raise MentionError('/mcp__ev__nope: mcp server "ev" has no prompt "nope"')

    logic, events = _mention_logic(expand)
    views: list[RecordingView] = []
    try:
        assert logic.start_turn("/mcp__ev__nope", lambda _text: _opened(views, logic))
        async with asyncio.timeout(10):
            await events.ended.wait()
    finally:
        await logic.shutdown(timeout_s=2)

    assert views[0].unsent
    assert events.reports == [
        ("phase_set", ButtonPhase.INTERRUPT),
        ("said", NoticeLevel.ERROR),
        ("give_back", "/mcp__ev__nope"),
        ("phase_set", ButtonPhase.SEND),
        ("turn_ended", TurnEnd.ERROR),
    ]
    assert logic.conversation.history == [] and not list(logic.conversation.events)


async def test_interrupt_while_a_message_expands_sends_nothing_and_gives_the_text_back() -> None:
    started = asyncio.Event()

    async def expand(_text: str, _conversation_id: str | None) -> ExpandedMessage:
        started.set()
        await asyncio.Event().wait()  # a server that never answers
        raise AssertionError("not reached")

    logic, events = _mention_logic(expand)
    views: list[RecordingView] = []
    try:
        assert logic.start_turn("@ev:demo://slow", lambda _text: _opened(views, logic))
        async with asyncio.timeout(10):
            await started.wait()
            assert logic.replying
            assert not logic.start_turn("another", lambda _text: RecordingView(logic))  # the first still counts
            logic.interrupt()
            await events.ended.wait()
    finally:
        await logic.shutdown(timeout_s=2)

    assert views[0].unsent and len(views) == 1
    assert events.reports == [
        ("phase_set", ButtonPhase.INTERRUPT),
        ("give_back", "@ev:demo://slow"),
        ("phase_set", ButtonPhase.SEND),
        ("turn_ended", TurnEnd.ERROR),
    ]
    assert logic.conversation.history == []
