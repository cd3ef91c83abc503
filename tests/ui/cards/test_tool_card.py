"""The tool card renders each contracts §7 state (plain qtbot, no loop)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QApplication, QLabel
from pytestqt.qtbot import QtBot

from desktop_agent.core.budget import Budget, cut_result, result_cut
from desktop_agent.core.messages import ImageContent
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.texts import CHINESE, ENGLISH, Texts
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.cards.state import Progress, ToolCardState
from desktop_agent.ui.cards.tool_card import ToolCardWidget

ARGS = {"command": "ls -la"}
Make = Callable[[ToolCardState], ToolCardWidget]


@pytest.fixture
def make(qtbot: QtBot) -> Make:
    def build(state: ToolCardState) -> ToolCardWidget:
        card = ToolCardWidget(state, ENGLISH)
        qtbot.add_widget(card)
        card.show()
        return card

    return build


def visible(card: ToolCardWidget) -> dict[str, bool]:
    parts = {
        "spinner": card.spinner,
        "icon": card.icon,
        "arguments": card.arguments,
        "bar": card.progress_bar,
        "caption": card.progress_caption,
        "buttons": card.approval_row,
        "reason": card.reason,
        "result": card.result,
        "images": card.images,
        "toggle": card.toggle,
        "live": card.live_row,
        "output": card.output,
    }
    return {name: widget.isVisibleTo(card) for name, widget in parts.items()}


def shown(card: ToolCardWidget) -> set[str]:
    return {name for name, on in visible(card).items() if on}


def png() -> bytes:
    image = QImage(40, 20, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stub says bytes; the binding takes str
    return bytes(data.data())


def test_preparing_shows_only_a_spinner(make: Make) -> None:
    card = make(ToolCardState("c1", "run_command"))
    assert shown(card) == {"spinner"}
    assert card.spinner.spinning
    assert card.title.text() == "run_command — preparing…"


def test_needs_approval_shows_arguments_buttons_and_the_always_allow_box(make: Make) -> None:
    card = make(ToolCardState("c1", "run_command", CardPhase.APPROVAL, ARGS, task_id="t1"))
    assert shown(card) == {"icon", "arguments", "buttons"}
    assert card.arguments.text() == "command: ls -la"
    assert card.always.text() == "Always allow “ls …”" and not card.always.isChecked()  # the command's rule


def test_executing_shows_arguments_and_a_spinner_until_a_total_is_known(make: Make) -> None:
    card = make(ToolCardState("c1", "run_command", CardPhase.EXECUTING, ARGS))
    assert shown(card) == {"spinner", "arguments"}
    card.show_state(
        ToolCardState("c1", "run_command", CardPhase.EXECUTING, ARGS, progress=Progress(2, None, "step 2"))
    )
    assert shown(card) == {"spinner", "arguments", "caption"}
    assert card.progress_caption.text() == "2 · step 2"


def test_progress_with_a_total_turns_into_a_bar_with_percent_and_eta(make: Make) -> None:
    card = make(
        ToolCardState("c1", "run_command", CardPhase.EXECUTING, ARGS, progress=Progress(30, 120, "copying", 45))
    )
    assert shown(card) == {"spinner", "arguments", "bar", "caption"}  # one running indicator
    assert (card.progress_bar.minimum(), card.progress_bar.maximum(), card.progress_bar.value()) == (
        0,
        100,
        25,
    )
    assert card.progress_caption.text() == "25% · about 45 s left · copying"
    assert card.spinner.spinning


def test_done_is_collapsed_and_expands_to_arguments_and_result(make: Make) -> None:
    card = make(ToolCardState("c1", "run_command", CardPhase.DONE, ARGS, result="exit code 0\nhi"))
    assert shown(card) == {"icon", "toggle"}
    assert card.badge.isVisibleTo(card) and card.badge.text() == "command: ls -la"  # tells calls apart
    card.toggle.click()
    assert shown(card) == {"icon", "toggle", "arguments", "result"}
    assert not card.badge.isVisibleTo(card)
    assert card.result.text() == "exit code 0\nhi"
    card.toggle.click()
    assert shown(card) == {"icon", "toggle"}


def test_done_shows_mcp_images_in_the_card(make: Make) -> None:
    card = make(
        ToolCardState(
            "c1",
            "get-tiny-image",
            CardPhase.DONE,
            {},
            result="[image: image/png, 1 bytes]",
            images=(ImageContent("image/png", png()), ImageContent("image/png", b"junk")),
        )
    )
    assert "images" in shown(card)
    labels = [w for w in card.images.findChildren(QLabel)]
    assert [label.pixmap().isNull() for label in labels] == [False, True]
    assert labels[1].text() == "[image: image/png, 4 bytes]"


def test_an_image_that_does_not_decode_is_named_in_the_cards_language(qtbot: QtBot) -> None:
    def undecoded(texts: Texts, data: bytes) -> str:
        state = ToolCardState("c1", "get-image", CardPhase.DONE, {}, result="ok", images=(ImageContent("image/png", data),))
        card = ToolCardWidget(state, texts)
        qtbot.add_widget(card)
        (label,) = card.images.findChildren(QLabel)
        return label.text()

    assert undecoded(ENGLISH, b"j") == "[image: image/png, 1 byte]"
    assert undecoded(ENGLISH, b"junk") == "[image: image/png, 4 bytes]"
    assert undecoded(CHINESE, b"junk") == "[图片：image/png，4 字节]"


def test_a_long_result_is_clipped_in_the_card(make: Make) -> None:
    card = make(ToolCardState("c1", "t", CardPhase.DONE, ARGS, result="x" * 7000))
    card.set_expanded(True)
    assert card.result.text().startswith("x" * 6000) and card.result.text().endswith("(1000 more characters)")


def test_a_result_cut_to_fit_the_models_context_says_so_on_the_collapsed_card(make: Make) -> None:
    result = cut_result("".join(f"line {n}\n" for n in range(100_000)), Budget())
    card = make(ToolCardState("c1", "read", CardPhase.DONE, ARGS, result=result, server="files"))
    assert shown(card) == {"icon", "toggle", "reason"}
    assert card.reason.text() == f"Result cut to fit the model's context: {result_cut(result)} characters left out"
    card.show_state(replace(card.state, result="short"))
    assert shown(card) == {"icon", "toggle"}


def test_rejected_can_be_expanded_to_see_the_arguments(make: Make) -> None:
    card = make(ToolCardState("c1", "run_command", CardPhase.REJECTED, ARGS, outcome="rejected"))
    assert shown(card) == {"icon", "reason", "toggle"}
    assert card.title.text() == "run_command — rejected"
    assert card.reason.text() == "Rejected by you"
    card.set_expanded(True)
    assert shown(card) == {"icon", "reason", "toggle", "arguments"}


def test_invalidated_shows_the_partial_result_when_expanded(make: Make) -> None:
    card = make(
        ToolCardState(
            "c1",
            "run_command",
            CardPhase.INVALIDATED,
            ARGS,
            outcome="stopped",
            partial_result={"stdout": "half way"},
        )
    )
    card.set_expanded(True)
    assert shown(card) == {"icon", "reason", "toggle", "arguments", "result"}
    assert card.result_label.text() == "Partial result"
    assert card.result.text() == "[stdout]\nhalf way"


def test_invalidated_while_preparing_cannot_be_expanded(make: Make) -> None:
    card = make(ToolCardState("c1", "run_command", CardPhase.INVALIDATED, outcome="not_run"))
    assert shown(card) == {"icon", "reason"}
    assert card.title.text() == "run_command — not run"
    assert card.reason.text() == "Not run: the turn was interrupted"


def test_auto_approved_executing_says_so_without_buttons(make: Make) -> None:
    card = make(ToolCardState("c1", "run_command", CardPhase.EXECUTING, ARGS, auto_approved=True))
    assert card.badge.isVisibleTo(card) and card.badge.text() == "always allowed"
    assert not card.approval_row.isVisibleTo(card)


def test_a_form_card_does_not_repeat_the_questions(make: Make) -> None:
    card = make(ToolCardState("c1", "ask_user_question", CardPhase.EXECUTING, {"question": "?"}, form_attached=True))
    assert shown(card) == {"spinner"}


def test_approve_and_reject_emit_the_call_and_the_checkbox(make: Make, qtbot: QtBot) -> None:
    card = make(ToolCardState("c1", "run_command", CardPhase.APPROVAL, ARGS, task_id="t1"))
    with qtbot.wait_signal(card.answered) as approve:
        card.approve_button.click()
    card.always.setChecked(True)
    with qtbot.wait_signal(card.answered) as always:
        card.approve_button.click()
    with qtbot.wait_signal(card.answered) as reject:
        card.reject_button.click()
    assert [approve.args, always.args, reject.args] == [
        ["c1", True, False],
        ["c1", True, True],
        ["c1", False, False],
    ]


def test_buttons_do_nothing_once_the_card_left_approval(make: Make, qtbot: QtBot) -> None:
    card = make(ToolCardState("c1", "run_command", CardPhase.APPROVAL, ARGS, task_id="t1"))
    card.show_state(ToolCardState("c1", "run_command", CardPhase.EXECUTING, ARGS))
    with qtbot.assert_not_emitted(card.answered):
        card._answer(True)


def test_a_running_card_shows_the_last_lines_live_and_can_show_more(make: Make) -> None:
    output = "".join(f"line {n}\n" for n in range(1, 31))
    card = make(ToolCardState("c1", "run_command", CardPhase.EXECUTING, ARGS, output=output))
    assert "live" in shown(card)
    assert card.live_output.toPlainText() == "line 27\nline 28\nline 29\nline 30"
    small = card.live_output.height()
    card.live_more.click()
    assert card.live_output.toPlainText().splitlines() == [f"line {n}" for n in range(15, 31)]
    assert card.live_output.height() > small * 3
    assert card.live_more.text() == "Fewer lines"


def test_a_finished_card_keeps_the_whole_output_in_its_details(make: Make) -> None:
    output = "".join(f"line {n}\n" for n in range(1, 201))
    card = make(ToolCardState("c1", "run_command", CardPhase.DONE, ARGS, result="exit code 0", output=output))
    assert "live" not in shown(card) and "output" not in shown(card)
    card.set_expanded(True)
    assert {"output", "result"} <= shown(card)
    assert card.output.toPlainText() == output


def test_the_details_output_box_is_as_tall_as_its_lines_up_to_a_limit(make: Make) -> None:
    def opened(output: str) -> ToolCardWidget:
        card = make(ToolCardState("c1", "run_command", CardPhase.DONE, ARGS, result="exit code 0", output=output))
        card.resize(600, card.sizeHint().height())
        card.set_expanded(True)
        return card

    one, three, many = opened("one line\n"), opened("a\nb\nc\n"), opened("".join(f"line {n}\n" for n in range(200)))
    line = one.output.fontMetrics().lineSpacing()
    assert one.output.height() < 3 * line  # one line of output is not shown in a box a dozen lines tall
    assert three.output.height() >= one.output.height() + 2 * line
    assert many.output.height() == many.output.maximumHeight()


def test_a_silent_running_call_shows_its_elapsed_time_after_a_few_seconds(make: Make) -> None:
    now = [100.0]
    card = ToolCardWidget(ToolCardState("c1", "run_command", CardPhase.PREPARING, ARGS), ENGLISH)
    card.clock = lambda: now[0]
    card.show_state(ToolCardState("c1", "run_command", CardPhase.EXECUTING, ARGS))
    card.tick()
    assert not card.progress_caption.isVisibleTo(card)  # a quick call is not cluttered
    now[0] = 112.4
    card.tick()
    assert card.progress_caption.isVisibleTo(card) and card.progress_caption.text() == "running · 12 s"
    card.show_state(ToolCardState("c1", "run_command", CardPhase.EXECUTING, ARGS, progress=Progress(3, 4, None, 4)))
    assert card.progress_caption.text() == "75% · about 4 s left"  # a total: bar, percent and ETA instead
    card.show_state(ToolCardState("c1", "run_command", CardPhase.DONE, ARGS, result="ok"))
    assert not card.progress_caption.isVisibleTo(card) and not card._elapsed_timer.isActive()


def test_the_header_keeps_one_layout_in_every_state_and_when_opened(make: Make, qtbot: QtBot) -> None:
    states = [
        ToolCardState("c1", "run_command", CardPhase.PREPARING),
        ToolCardState("c1", "run_command", CardPhase.APPROVAL, ARGS, task_id="t1"),
        ToolCardState("c1", "run_command", CardPhase.EXECUTING, ARGS, auto_approved=True),
        ToolCardState("c1", "run_command", CardPhase.DONE, ARGS, result="ok"),
        ToolCardState("c1", "run_command", CardPhase.REJECTED, ARGS, outcome="rejected"),
    ]
    card = make(states[0])
    card.resize(560, 200)
    layout = card.layout()
    assert layout is not None
    positions = []
    for state in states:
        card.show_state(state)
        layout.activate()
        positions.append(card.title.x())
        if card.toggle.isVisibleTo(card):
            card.set_expanded(True)
            layout.activate()
            positions.append(card.title.x())  # opening details does not move the title
            card.set_expanded(False)
    assert len(set(positions)) == 1, positions
    assert positions[0] < 60  # left, beside the indicator: never centred


def test_a_waiting_card_can_take_the_keyboard_and_names_its_keys_on_the_buttons(make: Make) -> None:
    card = make(ToolCardState("c1", "run_command", CardPhase.APPROVAL, ARGS, task_id="t1"))
    assert card.focusPolicy() == Qt.FocusPolicy.StrongFocus
    assert (card.approve_button.text(), card.reject_button.text()) == ("Approve (Alt+A)", "Reject (Alt+R)")
    assert card.answer_chain() == [card, card.approve_button, card.reject_button, card.always, card.always_server,
                                   card.confirm_always, card.confirm_once, card.confirm_back]
    card.show_state(ToolCardState("c1", "run_command", CardPhase.EXECUTING, ARGS))
    assert card.focusPolicy() == Qt.FocusPolicy.NoFocus  # an answered card is out of the Tab chain


def test_the_approval_keys_press_the_buttons(make: Make, qtbot: QtBot) -> None:
    card = make(ToolCardState("c1", "run_command", CardPhase.APPROVAL, ARGS, task_id="t1"))
    with qtbot.wait_signal(card.answered) as approve:
        card.answer_key(True)
    with qtbot.wait_signal(card.answered) as reject:
        card.answer_key(False)
    assert [approve.args, reject.args] == [["c1", True, False], ["c1", False, False]]


def test_on_the_second_question_alt_a_waits_and_alt_r_still_rejects(qtbot: QtBot) -> None:
    destructive = ToolAnnotations(destructive=True)
    card = ToolCardWidget(ToolCardState("c1", "delete_file", CardPhase.APPROVAL, ARGS, task_id="t1", annotations=destructive), ENGLISH)
    qtbot.add_widget(card)
    card.show()
    got: list[tuple[str, bool, bool]] = []
    card.answered.connect(lambda *args: got.append(args))
    card.always.setChecked(True)
    card.approve_button.click()  # "Always allow a tool that may change or delete data?"
    card.answer_key(True)
    assert got == [] and card.confirm_row.isVisibleTo(card)
    card.answer_key(False)
    assert got == [("c1", False, False)]


def test_an_answered_card_keeps_the_keyboard_instead_of_passing_it_down_the_chain(
    make: Make, qtbot: QtBot
) -> None:
    card = make(ToolCardState("c1", "run_command", CardPhase.APPROVAL, ARGS, task_id="t1"))
    card.activateWindow()
    qtbot.wait_until(lambda: QApplication.activeWindow() is card)
    card.approve_button.setFocus()
    assert QApplication.focusWidget() is card.approve_button
    card.show_state(ToolCardState("c1", "run_command", CardPhase.EXECUTING, ARGS))
    assert QApplication.focusWidget() is card  # the window decides where it goes next
