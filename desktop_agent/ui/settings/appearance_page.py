"""The Settings dialog's Appearance page: the language (the
system's, English, 中文) and the theme (the system's, light, dark).

Signals:
    language_chosen()      the language combo changed (read it with ``language_choice``)
    theme_chosen()         the theme combo changed (read it with ``theme_choice``)

The dialog applies both at once (texts and colours change while it is
open); OK saves them, Cancel puts the old ones back."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from desktop_agent.storage.settings import LANGUAGES, THEMES, Settings
from desktop_agent.texts import Texts
from desktop_agent.ui.common.retranslate import TextBindings, item_text

LANGUAGE_NAMES = {"en": "English", "zh": "中文"}
"""Each language in its own words, whatever the current one."""


class AppearancePage(QWidget):
    language_chosen = Signal()
    theme_chosen = Signal()

    def __init__(self, settings: Settings, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.texts = TextBindings(texts)
        self.language = QComboBox(self)
        for choice in LANGUAGES:
            self.language.addItem(LANGUAGE_NAMES.get(choice, ""), choice)
        self.texts.bind(item_text(self.language, 0), "appearance_system_language")
        self.language.setCurrentIndex(max(0, self.language.findData(settings.language)))
        self.theme = QComboBox(self)
        for index, choice in enumerate(THEMES):
            self.theme.addItem("", choice)
            self.texts.bind(item_text(self.theme, index), f"appearance_theme_{choice}")
        self.theme.setCurrentIndex(max(0, self.theme.findData(settings.theme)))
        self.note = QLabel(self)
        self.note.setObjectName("cardMuted")
        self.note.setWordWrap(True)
        self.texts.bind(self.note.setText, "appearance_note")

        form = QFormLayout()
        form.addRow(self.texts.label("appearance_language", self), self.language)
        form.addRow(self.texts.label("appearance_theme", self), self.theme)
        form.addRow("", self.note)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addStretch(1)
        self.language.activated.connect(lambda _i: self.language_chosen.emit())
        self.theme.activated.connect(lambda _i: self.theme_chosen.emit())

    def language_choice(self) -> str:
        return str(self.language.currentData())

    def theme_choice(self) -> str:
        return str(self.theme.currentData())

    def choose_language(self, choice: str) -> None:
        """Pick ``choice`` as a user would (tests, the screenshot script)."""
        self.language.setCurrentIndex(self.language.findData(choice))
        self.language_chosen.emit()

    def choose_theme(self, choice: str) -> None:
        self.theme.setCurrentIndex(self.theme.findData(choice))
        self.theme_chosen.emit()

    def retranslate(self, texts: Texts) -> None:
        self.texts.retranslate(texts)

    def apply_to(self, settings: Settings) -> Settings:
        return replace(settings, language=self.language_choice(), theme=self.theme_choice())
