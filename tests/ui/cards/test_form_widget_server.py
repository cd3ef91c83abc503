"""An MCP server's form in the form widget: it names the server, shows
titles but sends values, fills in defaults, has Decline, and a web
address opens only on the user's click (and only an http(s) one)."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QLineEdit, QRadioButton
from pytestqt.qtbot import QtBot

from desktop_agent.core.elicit_schema import questions_from_schema
from desktop_agent.core.json_types import JSONObject
from desktop_agent.texts import CHINESE, ENGLISH
from desktop_agent.ui.cards.form_widget import FormWidget

SCHEMA: JSONObject = {
    "type": "object",
    "properties": {
        "hero": {"type": "string", "title": "Hero", "oneOf": [{"const": "h1", "title": "Superman"},
                                                             {"const": "h2", "title": "Batman"}], "default": "h1"},
        "count": {"type": "integer", "title": "Count", "minimum": 1, "maximum": 5, "default": 2},
        "agree": {"type": "boolean", "title": "Agree", "description": "Say yes"},
        "tools": {"type": "array", "title": "Tools", "items": {"anyOf": [{"const": "t1", "title": "Hammer"}]}},
    },
    "required": ["hero"],
}


def _form(qtbot: QtBot, source: dict[str, str], questions: bool = True) -> FormWidget:
    specs = [q.to_json() for q in questions_from_schema(SCHEMA)] if questions else []
    form = FormWidget("f1", specs, "Tell me", ENGLISH, source=source)
    qtbot.add_widget(form)
    return form


def test_a_servers_form_names_the_server_and_sends_option_values_with_defaults_filled(qtbot: QtBot) -> None:
    form = _form(qtbot, {"server": "everything"})

    assert form.heading.text() == "Server “everything” asks:"
    assert form.message is not None and form.message.text() == "Tell me"
    assert [r.text() for r in form.findChildren(QRadioButton)] == ["Superman", "Batman"]
    assert [c.text() for c in form.findChildren(QCheckBox)] == ["Yes", "Hammer"]
    assert [q.label.text() for q in form.questions] == [
        "Hero", "Count (1 – 5) (optional)", "Agree (optional)", "Tools (optional)",
    ]
    form.findChildren(QRadioButton)[1].setChecked(True)
    with qtbot.wait_signal(form.submitted) as sent:
        form.submit_button.click()
    assert sent.args == ["f1", {"hero": "h2", "count": "2", "agree": False}]


def test_decline_emits_declined_and_the_form_says_so(qtbot: QtBot) -> None:
    form = _form(qtbot, {"server": "everything"})
    with qtbot.wait_signal(form.declined) as declined:
        form.decline_button.click()
    assert declined.args == ["f1"]
    form.finish("declined")
    assert form.status.text() == "Declined" and not form.decline_button.isVisibleTo(form)


def test_the_models_form_has_no_decline_button(qtbot: QtBot) -> None:
    form = FormWidget("f1", [{"id": "q1", "question": "Name?"}], "Trip", ENGLISH)
    qtbot.add_widget(form)
    assert form.heading.text() == "Trip" and form.message is None
    assert not form.decline_button.isVisibleTo(form)


def test_a_web_address_opens_only_on_open_and_a_failure_keeps_the_form_open(qtbot: QtBot) -> None:
    form = _form(qtbot, {"server": "s", "url": "https://sign.example.org/a?b=c"}, questions=False)
    opened: list[str] = []
    works = [False]

    def browser(url: str) -> bool:
        opened.append(url)
        return works[0]

    form.open_url = browser
    assert form.host is not None and form.host.text() == "Opens sign.example.org in your browser"
    assert opened == [] and form.findChildren(QLineEdit) == []
    with qtbot.assert_not_emitted(form.submitted):
        form.submit_button.click()
    assert form.error.text() == "The browser could not be opened" and form.ended is None
    works[0] = True
    with qtbot.wait_signal(form.submitted) as sent:
        form.submit_button.click()
    assert sent.args == ["f1", {}] and opened == ["https://sign.example.org/a?b=c"] * 2


def test_an_address_that_is_not_a_web_page_cannot_be_opened(qtbot: QtBot) -> None:
    form = _form(qtbot, {"server": "s", "url": "file:///etc/passwd"}, questions=False)
    opened: list[str] = []

    def browser(url: str) -> bool:
        opened.append(url)
        return True

    form.open_url = browser
    assert not form.submit_button.isEnabled()
    assert form.error.text() == "Only a web address (http or https) can be opened here"
    form._submit()  # even called directly, nothing opens
    assert opened == []


def test_the_apps_words_follow_a_language_switch(qtbot: QtBot) -> None:
    form = _form(qtbot, {"server": "s", "url": "https://example.com/x"}, questions=False)
    form.retranslate(CHINESE)
    assert form.heading.text() == "服务器“s”请求："
    assert form.host is not None and form.host.text() == "将在浏览器中打开 example.com"
    assert [form.submit_button.text(), form.cancel_button.text(), form.decline_button.text()] == ["打开", "取消", "拒绝"]
