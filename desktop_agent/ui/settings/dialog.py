"""The Settings dialog: a page list on the left, one page at a
time on the right — Model, Voice, Tools, Skills, (Hooks, added by the
window), Appearance. Each page is its own module and turns its widgets
into settings (``apply_to``); this shell gathers them into one
:class:`SettingsEdit`.

Signals:
    saved(SettingsEdit)      OK was clicked and the values are valid
    appearance_changed(Texts) the language or theme was switched (live, before
                             OK; Cancel switches back and says so again): the
                             chosen language's texts, for the window to take

The dialog saves no settings itself: the window saves the :class:`Settings`
and hands the key to the secrets store, so this stays a form that is easy
to test. (The Tools page's server edits are the exception: they are saved
to the servers file and applied at once, see :mod:`settings_tools`.) It is
opened with ``open()`` (window-modal, no nested event loop under qasync).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.storage.secrets import KeyStorage
from desktop_agent.storage.settings import Settings, SettingsError
from desktop_agent.texts import Texts
from desktop_agent.ui.common.appearance import apply_appearance
from desktop_agent.ui.common.dialog_parts import error_line, ok_cancel
from desktop_agent.ui.common.theme import apply_theme
from desktop_agent.ui.settings.appearance_page import AppearancePage
from desktop_agent.ui.settings.audit_page import AuditPage
from desktop_agent.ui.settings.dialog_size import fit_to_room
from desktop_agent.ui.settings.mcp_wording import allow_entry_text
from desktop_agent.ui.settings.model_page import ModelPage
from desktop_agent.ui.settings.skills_page import SkillsPage
from desktop_agent.ui.settings.tools_page import McpControl, ToolsPage
from desktop_agent.ui.settings.voice_page import VOICE_SUGGESTIONS, VoicePage, VoicePreview

if TYPE_CHECKING:
    from desktop_agent.skills_engine.scan import SkillInfo
    from desktop_agent.voice.downloads import ModelDownloads

__all__ = ["VOICE_SUGGESTIONS", "McpControl", "SettingsDialog", "SettingsEdit", "allow_entry_text"]


@dataclass(frozen=True, slots=True)
class SettingsEdit:
    """What the user asked for: the new settings and the key change."""

    settings: Settings
    api_key: str | None = None
    """A new key to store; None leaves the stored key as it is."""
    forget_api_key: bool = False


class SettingsDialog(QDialog):
    saved = Signal(object)
    appearance_changed = Signal(object)

    def __init__(
        self,
        settings: Settings,
        *,
        has_api_key: bool = False,
        key_note: str | KeyStorage = "",
        skills: Sequence[SkillInfo] = (),
        skills_folder: str = "",
        stored_key: Callable[[], str | None] = lambda: None,
        mcp: McpControl | None = None,
        preview_voice: VoicePreview | None = None,
        model_downloads: ModelDownloads | None = None,
        texts: Texts,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.texts = texts
        """The language the dialog speaks: the window's, then the one chosen on Appearance."""
        fit_to_room(self, parent)
        self._settings = settings
        self._titles: list[str] = []
        """Each page's title key (a title given by :meth:`add_page` as is)."""

        self.model_page = ModelPage(
            settings, has_api_key=has_api_key, key_note=key_note, stored_key=stored_key, texts=texts, parent=self
        )
        self.voice_page = VoicePage(settings, preview=preview_voice, downloads=model_downloads, texts=texts, parent=self)
        self.tools_page = ToolsPage(settings, control=mcp, texts=texts, parent=self)
        self.skills_page = SkillsPage(
            skills, settings.enabled_skills, texts=texts, user_folder=skills_folder, parent=self
        )
        self.appearance_page = AppearancePage(settings, texts, parent=self)
        self.audit_page = AuditPage(texts=texts, parent=self)

        self.pages = QListWidget(self)
        self.pages.setObjectName("settingsPages")
        self.pages.setFixedWidth(170)
        self.pages.setSpacing(3)
        self.stack = QStackedWidget(self)
        self.pages.currentRowChanged.connect(self.stack.setCurrentIndex)
        for key, page in (
            ("settings_page_model", self.model_page),
            ("settings_page_voice", self.voice_page),
            ("settings_page_tools", self.tools_page),
            ("audit_title", self.audit_page),
            ("settings_tab_skills", self.skills_page),
            ("settings_page_appearance", self.appearance_page),
        ):
            self._add(key, page, len(self._titles))
        self.pages.setCurrentRow(0)

        self.note = QLabel(self)
        self.note.setObjectName("cardMuted")
        self.note.setWordWrap(True)
        self.error = error_line(self)
        self.buttons = ok_cancel(self, self._on_ok)
        body = QHBoxLayout()
        body.addWidget(self.pages)
        body.addWidget(self.stack, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(body, 1)
        layout.addWidget(self.note)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)

        self.appearance_page.language_chosen.connect(lambda: self._switch_appearance())
        self.appearance_page.theme_chosen.connect(lambda: self._switch_appearance())
        self.retranslate(texts)
        if parent is None:
            apply_theme(self)  # with a parent window it inherits the window's

        # The widgets tests and the window reach by name, as before the pages.
        m, v, t = self.model_page, self.voice_page, self.tools_page
        self.base_url, self.model, self.api_key = m.base_url, m.model, m.api_key
        self.forget_key, self.key_note = m.forget_key, m.key_note
        self.tts_engine, self.voice, self.speak_all, self.stt = v.tts_engine, v.voice, v.speak_all, v.stt
        self.voice_send, self.barge_in, self.barge_in_ms = v.voice_send, v.barge_in, v.barge_in_ms
        self.barge_in_note = v.barge_in_note
        self.mcp_file, self.allowed, self.revoke = t.mcp_file, t.allowed, t.revoke
        self.max_steps, self.approval_timeout = t.max_steps, t.approval_timeout

    # ---------------------------------------------------------------- pages

    def _add(self, title_key: str, page: QWidget, row: int) -> None:
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setObjectName("settingsPage")
        scroll.viewport().setObjectName("settingsViewport")
        scroll.setWidget(page)
        page.setAutoFillBackground(False)  # setWidget turned it on: the theme's colour shows through
        self._titles.insert(row, title_key)
        self.stack.insertWidget(row, scroll)
        self.pages.insertItem(row, self._title(title_key))

    def _title(self, key: str) -> str:
        try:
            return self.texts.tr(key)
        except KeyError:
            return key  # a title given as text (add_page)

    def add_page(self, title: str, widget: QWidget) -> None:
        """Another page, before Appearance (the window adds Hooks).
        ``title``: a text key (it follows a language switch) or plain text."""
        self._add(title, widget, self.stack.indexOf(self._scroll_of(self.appearance_page)))

    def _scroll_of(self, page: QWidget) -> QWidget:
        for i in range(self.stack.count()):
            scroll = self.stack.widget(i)
            if isinstance(scroll, QScrollArea) and scroll.widget() is page:
                return scroll
        raise LookupError("not a page of this dialog")

    def page_titles(self) -> list[str]:
        return [self.pages.item(i).text() for i in range(self.pages.count())]

    def page(self, index: int) -> QWidget:
        scroll = self.stack.widget(index)
        assert isinstance(scroll, QScrollArea)
        page = scroll.widget()
        assert page is not None
        return page

    def show_page(self, page: QWidget) -> None:
        self.pages.setCurrentRow(self.stack.indexOf(self._scroll_of(page)))

    def current_page(self) -> QWidget:
        return self.page(self.stack.currentIndex())

    # ----------------------------------------------------------- appearance

    def retranslate(self, texts: Texts) -> None:
        """Every text again in ``texts``' language (the language switch)."""
        self.texts = texts
        self.setWindowTitle(texts.tr("settings_title"))
        for row, key in enumerate(self._titles):
            self.pages.item(row).setText(self._title(key))
        self.note.setText(texts.tr("settings_apply_note"))
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        ok.setText(texts.tr("settings_ok"))
        cancel.setText(texts.tr("settings_cancel"))
        for index in range(self.stack.count()):
            retranslate = getattr(self.page(index), "retranslate", None)  # a page added without one keeps its texts
            if callable(retranslate):
                retranslate(texts)

    def _switch_appearance(self) -> None:
        page = self.appearance_page
        texts = apply_appearance(page.language_choice(), page.theme_choice())
        self.retranslate(texts)
        if self.parentWidget() is None:
            apply_theme(self)
        self.appearance_changed.emit(texts)

    def reject(self) -> None:
        page = self.appearance_page
        if (page.language_choice(), page.theme_choice()) != (self._settings.language, self._settings.theme):
            texts = apply_appearance(self._settings.language, self._settings.theme)
            if self.parentWidget() is None:
                apply_theme(self)
            self.appearance_changed.emit(texts)
        super().reject()

    # --------------------------------------------------------------- result

    def allowed_tools(self) -> tuple[str, ...]:
        return self.tools_page.allowed_tools()

    def edit(self) -> SettingsEdit:
        """The values as entered; raises SettingsError (translated) when one is invalid."""
        settings = self.model_page.apply_to(self._settings)
        settings = self.voice_page.apply_to(settings)
        settings = self.tools_page.apply_to(settings)
        settings = self.appearance_page.apply_to(settings)
        settings = replace(settings, enabled_skills=self.skills_page.enabled_skills()).validate()
        key, forget = self.model_page.api_key_edit()
        return SettingsEdit(settings, key, forget)

    def _on_ok(self) -> None:
        try:
            result = self.edit()
        except SettingsError as exc:
            self.error.setText(str(exc))
            self.error.show()
            return
        self.saved.emit(result)
        self.accept()
