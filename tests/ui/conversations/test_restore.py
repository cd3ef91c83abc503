"""Faithful restore: every kind of display event, shown live
through a TurnView (recorded on the way, as a turn records it) and then
restored from the recorded log into a fresh chat, gives the same widgets —
and, on screen, pixel-similar cards (tests/artifacts/restore_compare.png)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PySide6.QtCore import QPoint
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication, QHBoxLayout, QLabel, QWidget
from pytestqt.qtbot import QtBot

from desktop_agent.core.chat_handler import REASON_INTERRUPTED
from desktop_agent.core.hooks import HookNote
from desktop_agent.core.messages import (
    Card,
    CardField,
    CardMessage,
    ErrorMessage,
    InterruptedMessage,
    RoundEndMessage,
    ToolCallMessage,
    ToolOutputMessage,
    ToolProgressMessage,
    TurnEndMessage,
    WarningMessage,
)
from desktop_agent.core.transcript import ToolFacts, TranscriptItem, TranscriptRecorder
from desktop_agent.storage.conversation_events import event_json, items_of
from desktop_agent.testing.json_dict import JSONDict
from desktop_agent.testing.window_rig import form_item, rejected_item, settle, text_item, tool_item
from desktop_agent.texts import ENGLISH
from desktop_agent.ui.cards.form_widget import FormWidget
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.cards.visual_card import VisualCardWidget
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.chat_view import ChatView
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.chat.turn_view import TurnView
from desktop_agent.ui.conversations.restore import restore

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
LS = {"command": "ls ~/Documents"}
QUESTIONS: list[dict[str, Any]] = [{"id": "size", "question": "Which size?", "type": "choice", "options": ["S", "M", "L"]},
             {"id": "note", "question": "Anything else?", "type": "text", "required": False}]


class LiveSession:
    """A chat shown live, turn by turn, recording its display log the way
    ``Conversation.run_turn`` and the controller do."""

    def __init__(self, chat: ChatView, tools: dict[str, ToolFacts] | None = None) -> None:
        self.chat = chat
        self.tools = tools or {}
        """What the services say of each tool now (its server, its risk hints)."""
        self.events: list[JSONDict] = []
        self.view, self.shown = self._open()

    def _open(self) -> tuple[TurnView, TranscriptRecorder]:
        unsaid = ToolFacts()
        view = TurnView(self.chat, server_of=lambda name: self.tools.get(name, unsaid).server,
                        annotations_of=lambda name: self.tools.get(name, unsaid).annotations)
        return view, TranscriptRecorder(view, self._log, lambda name: self.tools.get(name, unsaid))

    def _log(self, item: TranscriptItem) -> None:
        assert not isinstance(item, HookNote)  # a recorder records what was shown
        self.events.append(event_json(item))

    def user(self, text: str) -> None:
        self.events.append({"type": "user", "text": text})
        self.chat.add_user(text)
        self.view, self.shown = self._open()

    def answer(self, tool_call_id: str, approved: bool) -> None:
        self.events.append({"type": "approval_answer", "tool_call_id": tool_call_id, "approved": approved})
        self.view.mark_answered(tool_call_id, approved)

    def fill_form(self, form_id: str, answers: dict[str, Any]) -> None:
        form = self.view.forms[form_id]
        for q in form.questions:  # what the user clicks and types
            for radio in q.radios:
                radio.setChecked(radio.text() == answers.get(q.id))
            if q.line is not None:
                q.line.setText(str(answers.get(q.id, "")))
        self.events.append({"type": "form_answer", "form_id": form_id, "answers": form.answers()})
        form.finish("submitted")

    def notice(self, text: str) -> None:
        self.events.append({"type": "notice", "level": "system", "text": text})
        self.chat.add_system(text)


def play_every_kind(live: LiveSession) -> None:
    # Turn 1: text over two rounds, an approved command with output and
    # progress, a form answered, a visual card, a nested sub-agent call, a warning.
    live.user("Plan my trip and list my files")
    show = live.shown
    show.show_text(text_item("Sure, ", raw_text="<voice>Sure, ", voice=True))
    show.show_text(text_item("let me look.", 2, raw_text="let me look.</voice>", voice=True))
    show.round_ended(RoundEndMessage(0, "planning"))
    show.show_text(text_item("First the files.", 3))
    show.tool_event(tool_item("start", "c1"))
    show.approval_needed(tool_item("approval_required", "c1", arguments=LS, task_id="t1"))
    live.answer("c1", True)
    show.tool_event(tool_item("executing", "c1", arguments=LS))
    show.tool_event(ToolOutputMessage("c1", "stdout", "a.txt\nb.txt\n"))
    show.tool_event(ToolProgressMessage("c1", 2, 2, "listed", 0.0))
    show.tool_event(tool_item("result", "c1", arguments=LS, result="exit code 0\na.txt\nb.txt"))
    show.tool_event(tool_item("start", "c2", "ask_user_question"))
    show.tool_event(tool_item("executing", "c2", "ask_user_question", arguments={"questions": QUESTIONS}))
    show.tool_event(form_item("c2", "f1", QUESTIONS, "Your trip"))
    live.fill_form("f1", {"size": "M", "note": "window seat"})
    show.tool_event(tool_item("result", "c2", "ask_user_question", result='{"size": "M"}'))
    show.tool_event(tool_item("start", "c3", "show_card"))
    show.tool_event(tool_item("executing", "c3", "show_card", arguments={"title": "Paris"}))
    show.tool_event(CardMessage("c3", Card("Paris", "**Sunny**, 24 °C", None, (CardField("Flight", "AF 123"),))))
    show.tool_event(tool_item("result", "c3", "show_card", result="shown"))
    show.tool_event(tool_item("start", "c4", "sub_agent"))
    show.auto_approved(tool_item("approval_required", "c4", "sub_agent", arguments={"task": "t"}, task_id="t4"))
    show.tool_event(ToolCallMessage("start", "n1", "echo", None, parent_tool_call_id="c4"))
    show.tool_event(ToolCallMessage("executing", "n1", "echo", {"text": "x"}, parent_tool_call_id="c4"))
    show.tool_event(ToolCallMessage("result", "n1", "echo", {"text": "x"}, result="echo: x", is_error=False,
                                    parent_tool_call_id="c4"))
    show.tool_event(tool_item("result", "c4", "sub_agent", arguments={"task": "t"}, result="done"))
    show.round_ended(RoundEndMessage(1, "tools"))
    show.show_text(text_item("All **done**.", 4))
    show.notice(WarningMessage("the model was slow", "internal"))
    show.round_ended(RoundEndMessage(2, "tools"))
    show.turn_ended(TurnEndMessage())
    # Turn 2: stopped while running, then an error; a window notice.
    live.user("Run it again")
    live.notice("Tools of server files are not ready yet")
    show = live.shown
    show.tool_event(tool_item("start", "c5"))
    show.auto_approved(tool_item("approval_required", "c5", arguments=LS, task_id="t5"))
    live.events.append({"type": "interrupt_clicked"})
    live.view.tracker.interrupt_clicked()
    show.tool_event(rejected_item(REASON_INTERRUPTED, "c5", arguments=LS, partial_result={"stdout": "a.txt"}))
    show.interrupted(InterruptedMessage("user"))
    show.notice(ErrorMessage("connection reset", "internal"))
    show.turn_ended(TurnEndMessage())
    # Turn 3: rejected by the user; a failed call before it.
    live.user("Delete them")
    show = live.shown
    show.tool_event(tool_item("start", "c6", "bogus"))
    show.tool_event(tool_item("result", "c6", "bogus", arguments={}, result="unknown tool", is_error=True))
    show.tool_event(tool_item("start", "c7", arguments={"command": "rm *"}))
    show.approval_needed(tool_item("approval_required", "c7", arguments={"command": "rm *"}, task_id="t7"))
    live.answer("c7", False)
    show.tool_event(rejected_item("rejected", "c7", arguments={"command": "rm *"}))
    show.interrupted(InterruptedMessage("rejected"))
    show.turn_ended(TurnEndMessage())
    live.view.finish()


def describe(widget: QWidget) -> Any:
    """What a widget shows, compared between the live and the restored view."""
    if isinstance(widget, ToolCardWidget):
        s = widget.state
        return {"card": s.tool_name, "phase": s.phase, "arguments": s.arguments, "result": s.result,
                "is_error": s.is_error, "outcome": s.outcome, "auto": s.auto_approved, "output": s.output,
                "progress": s.progress, "partial": s.partial_result, "form": s.form_attached,
                "server": s.server, "annotations": s.annotations, "auto_by": s.auto_by,
                "approval_timeout_s": s.approval_timeout_s,
                "title": widget.title.text(), "collapsed": not widget.toggle.isChecked(),
                "nested": [describe(n) for n in widget.nested_cards()]}
    if isinstance(widget, FormWidget):
        return {"form": widget.form_id, "ended": widget.ended, "answers": widget.answers(),
                "status": widget.status.text(),
                "enabled": [w.isEnabled() for q in widget.questions for w in q.inputs()]}
    if isinstance(widget, VisualCardWidget):
        return {"visual": widget.title.text(), "labels": [label.text() for label in widget.findChildren(QLabel)]}
    if isinstance(widget, MessageBubble):
        return {"bubble": widget.role, "text": widget.text()}
    if isinstance(widget, SystemMessage):
        return {"system": widget.text()}
    return type(widget).__name__


def side_by_side(qtbot: QtBot) -> tuple[QWidget, ChatView, ChatView]:
    frame = QWidget()
    qtbot.add_widget(frame)
    row = QHBoxLayout(frame)
    live, restored = ChatView(ENGLISH, frame), ChatView(ENGLISH, frame)
    row.addWidget(live)
    row.addWidget(restored)
    from desktop_agent.ui.common.theme import apply_theme

    apply_theme(frame)
    frame.resize(1500, 1320)
    frame.show()
    qtbot.wait_exposed(frame)
    return frame, live, restored


def test_a_restored_conversation_shows_every_kind_of_event_as_it_was_live(qtbot: QtBot) -> None:
    frame, live_chat, restored_chat = side_by_side(qtbot)
    live = LiveSession(live_chat)
    play_every_kind(live)
    stored = json.loads(json.dumps(live.events))  # what the database gives back
    restore(restored_chat, items_of(stored))
    restored_chat.add_system("Earlier conversation restored")

    shown_live = [describe(w) for w in live_chat.items()]
    shown_back = [describe(w) for w in restored_chat.items()]
    assert shown_back[:-1] == shown_live
    kinds = [next(iter(d)) if isinstance(d, dict) else d for d in shown_live]
    assert {"card", "form", "visual", "bubble", "system"} <= set(kinds)
    assert [d["bubble"] for d in shown_live if isinstance(d, dict) and "bubble" in d] == [
        "user", "assistant", "assistant", "warning", "user", "error", "user"]
    assert {d["phase"] for d in shown_live if isinstance(d, dict) and "phase" in d} == {
        "done", "invalidated", "rejected"}
    form = next(d for d in shown_back if isinstance(d, dict) and "form" in d and "ended" in d)
    assert form["answers"] == {"size": "M", "note": "window seat"} and form["ended"] == "submitted"

    # On screen: each card's image in the restored view matches the live one.
    assert settle(live_chat, restored_chat)  # the last messages' slots take their height a layout pass later
    frame.repaint()
    QApplication.processEvents()  # the layout passes the repaint asked for
    for chat in (live_chat, restored_chat):  # the picture shows each side down to its last line
        last = chat.items()[-1]
        slot = last.parentWidget()
        assert slot is not None and slot.height() == last.height() == last.heightForWidth(last.width()) > 0
        assert last.mapTo(frame, QPoint(0, 0)).y() + last.height() <= chat.mapTo(frame, QPoint(0, chat.height())).y()
    ARTIFACTS.mkdir(exist_ok=True)
    frame.grab().save(str(ARTIFACTS / "restore_compare.png"))
    live_cards = [w for w in live_chat.items() if isinstance(w, ToolCardWidget | FormWidget | VisualCardWidget)]
    back_cards = [w for w in restored_chat.items() if isinstance(w, ToolCardWidget | FormWidget | VisualCardWidget)]
    assert len(live_cards) == len(back_cards) >= 8
    for a, b in zip(live_cards, back_cards, strict=True):
        assert difference(a.grab().toImage(), b.grab().toImage()) < 0.01, describe(a)


def difference(a: QImage, b: QImage) -> float:
    """The share of pixels that differ noticeably (sizes must match)."""
    if a.size() != b.size():
        return 1.0
    a = a.convertToFormat(QImage.Format.Format_RGB32)
    b = b.convertToFormat(QImage.Format.Format_RGB32)
    differing = 0
    for y in range(0, a.height(), 2):
        for x in range(0, a.width(), 2):
            pa, pb = a.pixel(x, y), b.pixel(x, y)
            if max(abs(((pa >> s) & 255) - ((pb >> s) & 255)) for s in (0, 8, 16)) > 40:
                differing += 1
    return differing / max(1, (a.width() // 2) * (a.height() // 2))


def test_restoring_starts_no_timer_and_leaves_nothing_waiting(qtbot: QtBot) -> None:
    chat = ChatView(ENGLISH)
    qtbot.add_widget(chat)
    events: list[JSONDict] = [
        {"type": "user", "text": "go"},
        json.loads(json.dumps({"type": "tool_call", "session_id": "s", "seq": 1, "state": "approval_required",
                               "tool_call_id": "c1", "tool_name": "run_command", "arguments": LS,
                               "task_id": "t1"})),
    ]  # the app stopped while the card waited
    restored = restore(chat, items_of(events))
    card = next(w for w in chat.items() if isinstance(w, ToolCardWidget))
    assert card.state.phase == "invalidated" and not card.approval_row.isVisibleTo(card)
    assert not card.findChildren(type(card._elapsed_timer)) or not card._elapsed_timer.isActive()
    assert len(restored.views) == 1 and restored.turn_widgets[0] is chat.items()[0]
