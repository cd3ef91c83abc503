"""A language switch reaches the whole chat column and the status bar
at once: pending and finished tool cards (an auto-approved one keeps
saying who approved it), message actions, code blocks, a visual card, a
form, system lines and the MCP servers' captions say the app's words in
the new language, both ways; what the user and the model wrote stays. And
the theme follows the system while the app runs, whichever way the system
says so (palette, theme change, colour scheme). With a screenshot of the
chat in Chinese (tests/artifacts/live_switch_zh.png)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop_agent.core.messages import Card
from desktop_agent.core.risk import ToolAnnotations
from desktop_agent.texts import CHINESE, ENGLISH, Language, text_in
from desktop_agent.ui.cards.form_widget import FormWidget
from desktop_agent.ui.cards.phase import CardPhase
from desktop_agent.ui.cards.state import ToolCardState
from desktop_agent.ui.cards.tool_card import ToolCardWidget
from desktop_agent.ui.cards.visual_card import VisualCardWidget
from desktop_agent.ui.chat.bubble import MessageBubble
from desktop_agent.ui.chat.code_block import CodeBlock
from desktop_agent.ui.chat.system_message import SystemMessage
from desktop_agent.ui.common import theme
from desktop_agent.ui.common.appearance import apply_appearance
from desktop_agent.ui.common.retranslate import KeyedButton
from desktop_agent.ui.common.theme import DARK, LIGHT, palette_of, set_theme_choice
from desktop_agent.ui.shell.main_window import MainWindow
from desktop_agent.ui.shell.status_bar import McpServerView

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
LS = {"command": "ls -la"}


@pytest.fixture
def english() -> Iterator[None]:
    """The test starts in English and leaves the app in English, light."""
    apply_appearance("en", "system")
    yield
    apply_appearance("en", "system")


def fill(window: MainWindow) -> None:
    """One of everything the chat column shows, and a starting server."""
    chat = window.chat
    chat.add_user("List my files")
    chat.add_assistant_text("Here is how:\n\n```\nls -la\n```\n\nDone.")
    chat.end_bubble()
    chat.add_card(ToolCardWidget(ToolCardState(
        "done", "run_command", CardPhase.DONE, LS, result="a\nb"), chat.texts))
    chat.add_card(ToolCardWidget(ToolCardState(
        "always", "run_command", CardPhase.DONE, {"command": "date"}, result="Mon",
        auto_approved=True, auto_by="always_allow"), chat.texts))
    chat.add_card(ToolCardWidget(ToolCardState(
        "trusted", "list_folder", CardPhase.DONE, {"path": "~"}, result="x", server="files",
        auto_approved=True, auto_by="read_only_setting", annotations=ToolAnnotations(read_only=True)), chat.texts))
    chat.add_card(VisualCardWidget(Card("Weather", "Sunny", image_path="/nonexistent/sun.png"), chat.texts))
    chat.add_card(FormWidget("f1", [{"id": "name", "question": "Your name?", "required": False}], None, chat.texts))
    chat.add_system(ENGLISH.tr("sys_interrupted"))
    chat.add_widget(KeyedButton(chat.texts, "conv_show_earlier"), "center")  # a restored conversation's
    chat.add_system(ENGLISH.tr("earlier_hidden", count=3), key="earlier_hidden", count=3)
    chat.add_card(ToolCardWidget(ToolCardState(
        "pending", "run_command", CardPhase.APPROVAL, {"command": "curl -o /tmp/page https://example.com"},
        task_id="t1", annotations=ToolAnnotations(destructive=True, open_world=True)), chat.texts))
    chat.offer_actions(True)
    window.status.set_servers([McpServerView("time", "starting")])


def cards(window: MainWindow) -> dict[str, ToolCardWidget]:
    return {w.state.tool_call_id: w for w in window.chat.items() if isinstance(w, ToolCardWidget)}


def chrome(window: MainWindow) -> dict[str, str]:
    """The app's words on the chat column and the status bar."""
    items = window.chat.items()
    user, reply = (w for w in items if isinstance(w, MessageBubble))
    assert user.action_row is not None and reply.action_row is not None
    code = reply.blocks[1]
    assert isinstance(code, CodeBlock)
    by_id = cards(window)
    pending, done = by_id["pending"], by_id["done"]
    visual = next(w for w in items if isinstance(w, VisualCardWidget))
    form = next(w for w in items if isinstance(w, FormWidget))
    lines = [w.text() for w in items if isinstance(w, SystemMessage)]
    earlier = next(w for w in items if isinstance(w, KeyedButton))
    assert visual.image is not None and form.questions[0].line is not None
    return {
        "pending title": pending.title.text(),
        "risk": pending.risk.text(),
        "approve": pending.approve_button.text(),
        "reject": pending.reject_button.text(),
        "always": pending.always.text(),
        "confirm": pending.confirm_text.text(),
        "done title": done.title.text(),
        "details": done.toggle.text(),
        "always note": by_id["always"].auto_note.text(),
        "trusted note": by_id["trusted"].auto_note.text(),
        "server": by_id["trusted"].server.text(),
        "copy": user.action_row.copy_button.text(),
        "copy tip": reply.action_row.copy_button.toolTip(),
        "edit": user.action_row.edit_button.text(),
        "regenerate": reply.action_row.regenerate_button.text(),
        "code copy": code.copy_button.text(),
        "code plain": code.language_label.text(),
        "image missing": visual.image.text(),
        "form title": form.heading.text(),
        "form question": form.questions[0].label.text(),
        "form placeholder": form.questions[0].line.placeholderText(),
        "form submit": form.submit_button.text(),
        "form cancel": form.cancel_button.text(),
        "system lines": " | ".join(lines),
        "show earlier": earlier.text(),
        "mcp": window.status.servers[0].text(),
        "mcp tip": window.status.servers[0].toolTip(),
    }


def expected(lang: Language) -> dict[str, str]:
    def t(key: str, **fields: object) -> str:
        return text_in(lang, key, **fields)

    return {
        "pending title": t("card_approval", name="run_command"),
        "risk": t("card_risk_changes") + " · " + t("card_risk_open_world"),  # the command's own risk
        "approve": t("card_approve_key", shortcut="Alt+A"),
        "reject": t("card_reject_key", shortcut="Alt+R"),
        "always": t("card_always_prefix", prefix="curl"),
        "confirm": t("card_confirm_always_text"),
        "done title": t("card_done", name="run_command"),
        "details": t("details_show"),
        "always note": t("auto_approved"),
        "trusted note": t("card_read_only_allowed"),
        "server": t("card_from_server", server="files"),
        "copy": t("msg_copy"),
        "copy tip": t("msg_copy_tip"),
        "edit": t("msg_edit"),
        "regenerate": t("msg_regenerate"),
        "code copy": t("code_copy"),
        "code plain": t("code_plain"),
        "image missing": t("card_image_missing"),
        "form title": t("form_title"),
        "form question": "Your name? " + t("form_optional"),
        "form placeholder": t("form_text_placeholder"),
        "form submit": t("form_submit"),
        "form cancel": t("form_cancel"),
        "system lines": t("sys_interrupted") + " | " + t("earlier_hidden", count=3),
        "show earlier": t("conv_show_earlier"),
        "mcp": '<span style="color:#d29922">●</span> ' + t("status_mcp", name="time", state=t("mcp_state_starting")),
        "mcp tip": t("mcp_tip_starting"),
    }


def switch(window: MainWindow, lang: Language) -> None:
    """What Settings → Appearance does on a change (appearance_changed)."""
    window.retranslate(apply_appearance(lang, "system"))


def test_a_language_switch_reaches_every_card_action_and_the_status_bar(
    shown_window: MainWindow, english: None, qtbot: QtBot
) -> None:
    window = shown_window
    fill(window)
    assert chrome(window) == expected("en")
    switch(window, "zh")
    assert chrome(window) == expected("zh")
    window.resize(860, 1280)  # the whole column in one picture
    QApplication.processEvents()  # the resize laid out before the picture
    window.chat.scroll_to_bottom()
    ARTIFACTS.mkdir(exist_ok=True)
    assert window.grab().save(str(ARTIFACTS / "live_switch_zh.png"))
    switch(window, "en")
    assert chrome(window) == expected("en")


def test_what_the_user_and_the_model_wrote_stays_as_written(shown_window: MainWindow, english: None) -> None:
    window = shown_window
    fill(window)
    switch(window, "zh")
    user, reply = (w for w in window.chat.items() if isinstance(w, MessageBubble))
    assert (user.text(), reply.text()) == ("List my files", "Here is how:\n\n```\nls -la\n```\n\nDone.")
    done = cards(window)["done"]
    assert (done.badge.text(), done.state.result) == ("command: ls -la", "a\nb")


def test_a_finished_auto_approved_card_says_who_approved_it_and_a_clicked_one_does_not(
    qtbot: QtBot, english: None
) -> None:
    clicked = ToolCardWidget(ToolCardState("c1", "run_command", CardPhase.DONE, LS, result="ok"), ENGLISH)
    trusted = ToolCardWidget(ToolCardState("c2", "list_folder", CardPhase.EXECUTING, {"path": "~"},
                                           auto_approved=True, auto_by="read_only_setting"), ENGLISH)
    for card in (clicked, trusted):
        qtbot.add_widget(card)
        card.show()
    assert (trusted.badge.text(), trusted.auto_note.isVisibleTo(trusted)) == (
        ENGLISH.tr("card_read_only_allowed"), False)  # while it runs, the badge says it
    trusted.show_state(ToolCardState("c2", "list_folder", CardPhase.DONE, {"path": "~"}, result="x",
                                     auto_approved=True, auto_by="read_only_setting"))
    assert (trusted.badge.text(), trusted.auto_note.text(), trusted.auto_note.isVisibleTo(trusted)) == (
        "path: ~", ENGLISH.tr("card_read_only_allowed"), True)
    assert (clicked.auto_note.text(), clicked.auto_note.isVisibleTo(clicked)) == ("", False)


def test_a_card_waiting_for_a_second_yes_switches_language_too(qtbot: QtBot, english: None) -> None:
    card = ToolCardWidget(ToolCardState("c1", "delete_files", CardPhase.APPROVAL, {"path": "/tmp/x"}, task_id="t1",
                                        annotations=ToolAnnotations(destructive=True)), ENGLISH)
    qtbot.add_widget(card)
    card.always.setChecked(True)
    card.approve_button.click()  # a destructive tool asks once more
    card.retranslate(CHINESE)
    assert (card.confirm_always.text(), card.confirm_once.text(), card.confirm_back.text()) == (
        text_in("zh", "card_confirm_always"), text_in("zh", "card_confirm_once"), text_in("zh", "card_confirm_back"))
    assert card.confirm_row.isVisibleTo(card) and not card.approval_row.isVisibleTo(card)


# ------------------------------------------------------------------ theme


@pytest.fixture
def system_theme(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bool]]:
    """The theme follows the system; the list says whether the system is dark."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    palette = QPalette(app.palette())
    set_theme_choice("system")
    dark = [False]
    monkeypatch.setattr(theme, "system_is_dark", lambda _app: dark[0])
    yield dark
    set_theme_choice("system")
    app.setPalette(palette)


def colours(window: MainWindow) -> str:
    sheet = window.styleSheet()
    assert (DARK.window in sheet) != (LIGHT.window in sheet)
    return "dark" if DARK.window in sheet else "light"


def test_the_theme_follows_a_theme_change_event(shown_window: MainWindow, system_theme: list[bool]) -> None:
    assert colours(shown_window) == "light"
    system_theme[0] = True
    QApplication.sendEvent(shown_window, QEvent(QEvent.Type.ThemeChange))
    assert colours(shown_window) == "dark"


def test_the_theme_follows_the_colour_scheme_signal(shown_window: MainWindow, system_theme: list[bool]) -> None:
    hints = QGuiApplication.styleHints()
    system_theme[0] = True
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert colours(shown_window) == "dark"
    system_theme[0] = False
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert colours(shown_window) == "light"


def test_a_chosen_theme_ignores_the_systems(shown_window: MainWindow, system_theme: list[bool]) -> None:
    set_theme_choice("light")
    system_theme[0] = True
    QGuiApplication.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert colours(shown_window) == "light"


def test_the_theme_follows_a_dark_system_palette(shown_window: MainWindow, english: None) -> None:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    before = QPalette(app.palette())
    set_theme_choice("system")
    try:
        app.setPalette(palette_of(DARK))  # what the platform does when the system goes dark
        assert settled(shown_window, "dark") == "dark"
    finally:
        app.setPalette(before)
    assert settled(shown_window, "light") == "light"


def settled(window: MainWindow, wanted: str) -> str:
    """The window's colours once the posted palette events are delivered (bounded)."""
    for _ in range(100):
        QApplication.processEvents()
        if colours(window) == wanted:
            break
    return colours(window)
