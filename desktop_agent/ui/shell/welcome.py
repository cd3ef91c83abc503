"""The welcome an empty conversation shows (also at the first run): what the
app is; on the demo model, that it is an offline demo and how to connect a
real one (Connect a model opens Settings); and example prompts that send
themselves when clicked: the demo's scripted ones on the demo model, and
once a real model is connected, everyday ones that use what is there
(which tools it has, the built-in command tool, plain writing and
explaining).

The chat view decides when it shows (:meth:`ChatView.set_welcome`); the
window connects its signals.

Signals:
    prompt_chosen(text: str)   an example prompt was clicked: send ``text``
    connect_requested()        Connect a model was clicked: open Settings
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop_agent.core.plain_text import plain
from desktop_agent.texts import Texts

PROMPT_KEYS = ("welcome_prompt_tour", "welcome_prompt_time", "welcome_prompt_date", "welcome_prompt_ask")
"""The demo model's example prompts: each button sends its own words (the
demo model has a scripted answer for each)."""
MODEL_PROMPT_KEYS = ("welcome_prompt_tools", "welcome_prompt_files", "welcome_prompt_explain", "welcome_prompt_write")
"""A real model's example prompts: the tools it has here (the MCP servers
configured and the built-in ones, which the model lists), a command run
with approval, and two that need no tool. As many as the demo's: the
buttons are the same, their words change."""
MAX_WIDTH = 620


def _wrapped(text: str, name: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setObjectName(name)
    label.setWordWrap(True)
    label.setAlignment(Qt.AlignmentFlag.AlignHCenter)
    return label


class WelcomePanel(QFrame):
    prompt_chosen = Signal(str)
    connect_requested = Signal()

    def __init__(self, *, is_demo: bool, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._texts = texts
        self.setObjectName("welcome")
        self.setMaximumWidth(MAX_WIDTH)
        self.title = _wrapped(self._texts.tr("welcome_title"), "welcomeTitle", self)
        self.body = _wrapped(self._texts.tr("welcome_body"), "welcomeText", self)
        self.demo = _wrapped(self._texts.tr("welcome_demo"), "welcomeText", self)
        self.connect_button = QPushButton(self._texts.tr("welcome_connect"), self)
        self.connect_button.setObjectName("welcomeConnect")
        self.connect_button.setToolTip(self._texts.tr("welcome_connect_tip"))
        self.connect_button.setCursor(Qt.CursorShape.PointingHandCursor)
        self.connect_button.clicked.connect(self.connect_requested)
        self.try_label = _wrapped(self._texts.tr("welcome_try"), "welcomeMuted", self)
        self.prompts: list[QPushButton] = []
        """The example prompts, in order."""
        self._keys = PROMPT_KEYS if is_demo else MODEL_PROMPT_KEYS
        grid = QVBoxLayout()
        grid.setSpacing(8)
        for first in range(0, len(PROMPT_KEYS), 2):
            row = QHBoxLayout()
            row.setSpacing(8)
            for index in range(first, min(first + 2, len(PROMPT_KEYS))):
                button = QPushButton(self)
                button.setObjectName("welcomePrompt")
                button.setCursor(Qt.CursorShape.PointingHandCursor)
                button.clicked.connect(lambda _checked=False, i=index: self.prompt_chosen.emit(self.prompt_texts()[i]))
                row.addWidget(button, 1)
                self.prompts.append(button)
            grid.addLayout(row)
        connect_row = QHBoxLayout()
        connect_row.addStretch(1)
        connect_row.addWidget(self.connect_button)
        connect_row.addStretch(1)
        box = QVBoxLayout(self)
        box.setContentsMargins(28, 24, 28, 24)
        box.setSpacing(10)
        box.addWidget(self.title)
        box.addWidget(self.body)
        box.addWidget(self.demo)
        box.addLayout(connect_row)
        box.addSpacing(6)
        box.addWidget(self.try_label)
        box.addLayout(grid)
        self.set_demo(is_demo)

    def retranslate(self, texts: Texts) -> None:
        """Its words again, in ``texts``' language (a language switch)."""
        self._texts = texts
        for label, key in ((self.title, "welcome_title"), (self.body, "welcome_body"),
                           (self.demo, "welcome_demo"), (self.try_label, "welcome_try")):
            label.setText(self._texts.tr(key))
        self.connect_button.setText(self._texts.tr("welcome_connect"))
        self.connect_button.setToolTip(self._texts.tr("welcome_connect_tip"))
        self._show_prompts()

    def _show_prompts(self) -> None:
        for button, text in zip(self.prompts, self.prompt_texts(), strict=True):
            button.setText(plain(text))  # "Run date" on the button, "Run `date`" sent

    def set_demo(self, is_demo: bool) -> None:
        """The demo model's line and Connect button only while it is the
        model, and the example prompts that suit the model connected."""
        self.demo.setVisible(is_demo)
        self.connect_button.setVisible(is_demo)
        self._keys = PROMPT_KEYS if is_demo else MODEL_PROMPT_KEYS
        self._show_prompts()

    def prompt_texts(self) -> list[str]:
        """What each example prompt sends (Markdown; its button shows it plain)."""
        return [self._texts.tr(key) for key in self._keys]
