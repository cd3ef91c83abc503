"""Qt's own words follow the app's language (every visible string is
translated): standard buttons and a text field's context menu."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QLineEdit, QPlainTextEdit
from pytestqt.qtbot import QtBot

from desktop_agent.ui.common import theme
from desktop_agent.ui.common.appearance import apply_appearance
from desktop_agent.ui.common.qt_translations import apply_qt_language


@pytest.fixture(autouse=True)
def english_after(qapp: QApplication) -> Iterator[None]:
    yield
    apply_qt_language("en")
    theme.set_theme_choice("system")


def menu_texts(widget: QLineEdit | QPlainTextEdit) -> list[str]:
    menu = widget.createStandardContextMenu()
    try:
        return [a.text().split("\t")[0] for a in menu.actions() if not a.isSeparator()]
    finally:
        menu.deleteLater()


def cancel_text(qtbot: QtBot) -> str:
    box = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    qtbot.addWidget(box)
    button = box.button(QDialogButtonBox.StandardButton.Cancel)
    assert button is not None
    return button.text()


def test_chinese_turns_qt_s_buttons_and_context_menus_chinese_and_english_turns_them_back(qtbot: QtBot) -> None:
    edit, plain = QLineEdit(), QPlainTextEdit()
    qtbot.addWidget(edit)
    qtbot.addWidget(plain)
    assert apply_qt_language("en")
    assert cancel_text(qtbot) == "Cancel" and "&Paste" in menu_texts(edit)

    apply_appearance("zh", "system")  # what Settings → Appearance does
    assert cancel_text(qtbot) == "取消"
    assert {"粘贴(&P)", "全选"} <= set(menu_texts(edit))
    assert {"复制(&C)", "全选"} <= set(menu_texts(plain))

    apply_appearance("en", "system")
    assert cancel_text(qtbot) == "Cancel" and "Select All" in menu_texts(plain)
