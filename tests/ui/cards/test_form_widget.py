"""The ask_user_question form widget."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QCheckBox, QLineEdit, QRadioButton
from pytestqt.qtbot import QtBot

from desktop_agent.texts import ENGLISH
from desktop_agent.ui.cards.form_widget import FormWidget

QUESTIONS = [
    {"id": "name", "question": "Your name?", "type": "text", "options": [], "required": True},
    {
        "id": "city",
        "question": "Which city?",
        "type": "choice",
        "options": ["Paris", "Rome"],
        "required": True,
    },
    {
        "id": "extras",
        "question": "Extras",
        "type": "multi_choice",
        "options": ["Hotel", "Car"],
        "required": False,
    },
]


@pytest.fixture
def form(qtbot: QtBot) -> FormWidget:
    widget = FormWidget("form-1", QUESTIONS, "Trip", ENGLISH)
    qtbot.add_widget(widget)
    widget.show()
    return widget


def test_each_question_type_gets_its_inputs(form: FormWidget) -> None:
    assert len(form.findChildren(QLineEdit)) == 1
    assert [r.text() for r in form.findChildren(QRadioButton)] == ["Paris", "Rome"]
    assert [c.text() for c in form.findChildren(QCheckBox)] == ["Hotel", "Car"]


def test_submit_emits_the_answers_in_question_order(form: FormWidget, qtbot: QtBot) -> None:
    form.findChildren(QLineEdit)[0].setText("  Ada ")
    form.findChildren(QRadioButton)[1].setChecked(True)
    for check in form.findChildren(QCheckBox):
        check.setChecked(True)
    with qtbot.wait_signal(form.submitted) as sent:
        form.submit_button.click()
    assert sent.args == ["form-1", {"name": "Ada", "city": "Rome", "extras": ["Hotel", "Car"]}]


def test_empty_answers_are_left_out(form: FormWidget, qtbot: QtBot) -> None:
    with qtbot.wait_signal(form.submitted) as sent:
        form.submit_button.click()
    assert sent.args == ["form-1", {}]


def test_enter_in_a_text_answer_submits(form: FormWidget, qtbot: QtBot) -> None:
    line = form.findChildren(QLineEdit)[0]
    line.setText("Bob")
    with qtbot.wait_signal(form.submitted):
        line.returnPressed.emit()


def test_cancel_emits_the_form_id(form: FormWidget, qtbot: QtBot) -> None:
    with qtbot.wait_signal(form.cancelled) as cancelled:
        form.cancel_button.click()
    assert cancelled.args == ["form-1"]


def test_an_error_shows_and_the_form_stays_open(form: FormWidget) -> None:
    form.show_error("question 'name' is required")
    assert form.error.isVisibleTo(form) and form.ended is None
    assert form.submit_button.isVisibleTo(form)


def test_a_finished_form_is_locked_and_says_how_it_ended(form: FormWidget, qtbot: QtBot) -> None:
    form.show_error("x")
    form.finish("submitted")
    form.finish("cancelled")  # the first ending stays
    assert form.ended == "submitted"
    assert form.status.text() == "Answers sent"
    assert not form.error.isVisibleTo(form)
    assert not form.submit_button.isVisibleTo(form) and not form.cancel_button.isVisibleTo(form)
    assert not any(w.isEnabled() for w in form.findChildren(QLineEdit) + form.findChildren(QRadioButton))
    with qtbot.assert_not_emitted(form.submitted):
        form._submit()
