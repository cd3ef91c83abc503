"""The Settings dialog, in tabs. General: endpoint, model, API key, speech,
MCP file, always-allowed tools (review and revoke), step limit, approval
timeout. Skills: every skill found, with a checkbox (``enabled_skills``).
More pages join with :meth:`SettingsDialog.add_page` (the window adds
Hooks).

Signals:
    saved(SettingsEdit)   OK was clicked and the values are valid

The dialog never writes anything itself: the window saves the
:class:`Settings` and hands the key to the secrets store, so this stays a
form that is easy to test. It is opened with ``open()`` (window-modal, no
nested event loop under qasync).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.core.approval import BUILTIN, split_allow_key
from desktop_agent.storage.settings import TTS_ENGINES, Settings, SettingsError
from desktop_agent.ui.i18n import tr
from desktop_agent.ui.skills_page import SkillsPage
from desktop_agent.ui.stt_settings import SttSettingsBox
from desktop_agent.ui.theme import apply_theme

if TYPE_CHECKING:
    from desktop_agent.skills_engine.scan import SkillInfo

VOICE_SUGGESTIONS = (
    "",
    "zh-CN-XiaoxiaoNeural",
    "zh-CN-YunxiNeural",
    "en-US-AriaNeural",
    "en-US-GuyNeural",
    "en-GB-SoniaNeural",
)


@dataclass(frozen=True, slots=True)
class SettingsEdit:
    """What the user asked for: the new settings and the key change."""

    settings: Settings
    api_key: str | None = None
    """A new key to store; None leaves the stored key as it is."""
    forget_api_key: bool = False


def allow_entry_text(key: str) -> str:
    """An always-allow entry as the list shows it: the tool and where it
    comes from (``get_current_time — from time``)."""
    server, tool = split_allow_key(key)
    if server is None:
        return tr("allow_unknown", tool=tool)
    if server == BUILTIN:
        return tr("allow_builtin", tool=tool)
    return tr("allow_server", tool=tool, server=server)


class SettingsDialog(QDialog):
    saved = Signal(object)

    def __init__(
        self,
        settings: Settings,
        *,
        has_api_key: bool = False,
        key_note: str = "",
        skills: Sequence[SkillInfo] = (),
        skills_folder: str = "",
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(tr("settings_title"))
        self.setMinimumWidth(560)
        self._settings = settings

        self.base_url = QLineEdit(settings.base_url, self)
        self.base_url.setPlaceholderText(tr("settings_endpoint_hint"))
        self.model = QLineEdit(settings.model, self)
        self.api_key = QLineEdit(self)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        if has_api_key:
            self.api_key.setPlaceholderText(tr("settings_api_key_set"))
        self.forget_key = QCheckBox(tr("settings_api_key_clear"), self)
        self.forget_key.setVisible(has_api_key)
        self.key_note = QLabel(key_note, self)
        self.key_note.setObjectName("cardMuted")
        self.key_note.setWordWrap(True)

        self.tts_engine = QComboBox(self)
        self.tts_engine.addItems(list(TTS_ENGINES))
        self.tts_engine.setCurrentText(settings.tts_engine)
        self.voice = QComboBox(self)
        self.voice.setEditable(True)
        self.voice.addItems(list(VOICE_SUGGESTIONS))
        self.voice.setCurrentText(settings.voice)
        voice_edit = self.voice.lineEdit()
        if voice_edit is not None:
            voice_edit.setPlaceholderText(tr("settings_voice_hint"))
        self.speak_all = QCheckBox(tr("settings_speak_all"), self)
        self.speak_all.setChecked(settings.speak_every_reply)
        self.stt = SttSettingsBox(settings, self)
        self.send_at_once = QCheckBox(tr("voice_send_at_once"), self)
        self.send_at_once.setChecked(settings.voice_send_at_once)
        self.barge_in = QCheckBox(tr("settings_barge_in"), self)
        self.barge_in.setChecked(settings.barge_in)
        self.barge_in.setToolTip(tr("barge_in"))
        self.barge_in_ms = QSpinBox(self)
        self.barge_in_ms.setRange(30, 5000)
        self.barge_in_ms.setSingleStep(50)
        self.barge_in_ms.setSuffix(" ms")
        self.barge_in_ms.setValue(settings.barge_in_ms)
        self.barge_in_ms.setToolTip(tr("barge_in"))
        barge_row = QHBoxLayout()
        barge_row.addWidget(self.barge_in, 1)
        barge_row.addWidget(self.barge_in_ms)
        self.barge_in_note = QLabel(tr("barge_in"), self)
        self.barge_in_note.setWordWrap(True)
        self.barge_in_note.setObjectName("cardMuted")

        self.mcp_file = QLineEdit(settings.mcp_config_path, self)
        browse = QPushButton(tr("settings_browse"), self)
        browse.clicked.connect(self._browse)
        mcp_row = QHBoxLayout()
        mcp_row.addWidget(self.mcp_file, 1)
        mcp_row.addWidget(browse)

        self.allowed = QListWidget(self)
        self.allowed.setMaximumHeight(110)
        self.revoke = QPushButton(tr("settings_revoke"), self)
        self.revoke.clicked.connect(self._revoke_selected)
        self.allowed.currentRowChanged.connect(lambda _row: self._sync_revoke())
        allowed_row = QHBoxLayout()
        allowed_row.addWidget(self.allowed, 1)
        allowed_row.addWidget(self.revoke)
        self._fill_allowed(settings.always_allow)

        self.max_steps = QSpinBox(self)
        self.max_steps.setRange(1, 100)
        self.max_steps.setValue(settings.max_steps)
        self.approval_timeout = QSpinBox(self)
        self.approval_timeout.setRange(5, 24 * 3600)
        self.approval_timeout.setSuffix(" s")
        self.approval_timeout.setValue(round(settings.approval_timeout_s))

        form = QFormLayout()
        form.addRow(tr("settings_endpoint"), self.base_url)
        form.addRow(tr("settings_model"), self.model)
        form.addRow(tr("settings_api_key"), self.api_key)
        form.addRow("", self.forget_key)
        form.addRow("", self.key_note)
        form.addRow(tr("settings_tts"), self.tts_engine)
        form.addRow(tr("settings_voice"), self.voice)
        form.addRow("", self.speak_all)
        form.addRow(tr("settings_stt"), self.stt)
        form.addRow(tr("settings_speech_input"), self.send_at_once)
        form.addRow("", barge_row)
        form.addRow("", self.barge_in_note)
        form.addRow(tr("settings_mcp_file"), mcp_row)
        form.addRow(tr("settings_always_allow"), allowed_row)
        form.addRow(tr("settings_max_steps"), self.max_steps)
        form.addRow(tr("settings_approval_timeout"), self.approval_timeout)

        self.note = QLabel(tr("settings_restart_note"), self)
        self.note.setObjectName("cardMuted")
        self.note.setWordWrap(True)
        self.error = QLabel(self)
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #cf222e;")
        self.error.hide()
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.buttons.accepted.connect(self._on_ok)
        self.buttons.rejected.connect(self.reject)
        general = QWidget(self)
        general_layout = QVBoxLayout(general)
        general_layout.addLayout(form)
        general_layout.addStretch(1)
        self.skills_page = SkillsPage(skills, settings.enabled_skills, user_folder=skills_folder, parent=self)
        self.tabs = QTabWidget(self)
        self.tabs.setDocumentMode(True)  # no pane of its own: the pages sit on the window's colour
        self.tabs.addTab(general, tr("settings_tab_general"))
        self.tabs.addTab(self.skills_page, tr("settings_tab_skills"))
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.note)
        layout.addWidget(self.error)
        layout.addWidget(self.buttons)
        if parent is None:
            apply_theme(self)  # with a parent window it inherits the window's

    def add_page(self, title: str, widget: QWidget) -> None:
        """Another tab after General and Skills (the window adds Hooks)."""
        self.tabs.addTab(widget, title)

    # -------------------------------------------------------- always-allow

    def _fill_allowed(self, names: tuple[str, ...]) -> None:
        self.allowed.clear()
        self.allowed.addItems([allow_entry_text(name) for name in names])
        if not names:
            self.allowed.addItem(tr("settings_none_allowed"))
            self.allowed.item(0).setFlags(Qt.ItemFlag.NoItemFlags)
        self._allowed_names = list(names)
        self._sync_revoke()

    def _sync_revoke(self) -> None:
        self.revoke.setEnabled(bool(self._allowed_names) and self.allowed.currentRow() >= 0)

    def _revoke_selected(self) -> None:
        row = self.allowed.currentRow()
        if 0 <= row < len(self._allowed_names):
            names = [n for i, n in enumerate(self._allowed_names) if i != row]
            self._fill_allowed(tuple(names))

    def allowed_tools(self) -> tuple[str, ...]:
        return tuple(self._allowed_names)

    # --------------------------------------------------------------- result

    def _browse(self) -> None:
        dialog = QFileDialog(self, tr("settings_mcp_file"), self.mcp_file.text() or "", "JSON (*.json)")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self.mcp_file.setText)
        dialog.open()

    def edit(self) -> SettingsEdit:
        """The values as entered; raises SettingsError when one is invalid."""
        settings = replace(
            self._settings,
            base_url=self.base_url.text().strip(),
            model=self.model.text().strip(),
            tts_engine=self.tts_engine.currentText(),
            voice=self.voice.currentText().strip(),
            speak_every_reply=self.speak_all.isChecked(),
            voice_send_at_once=self.send_at_once.isChecked(),
            barge_in=self.barge_in.isChecked(),
            barge_in_ms=self.barge_in_ms.value(),
            mcp_config_path=self.mcp_file.text().strip(),
            always_allow=self.allowed_tools(),
            max_steps=self.max_steps.value(),
            approval_timeout_s=float(self.approval_timeout.value()),
            enabled_skills=self.skills_page.enabled_skills(),
        )
        settings = self.stt.apply_to(settings).validate()
        if settings.base_url and not settings.base_url.startswith(("http://", "https://")):
            raise SettingsError(f"settings: the endpoint must start with http:// or https://, got {settings.base_url!r}")
        key = self.api_key.text().strip()
        return SettingsEdit(settings, key or None, self.forget_key.isChecked() and not key)

    def _on_ok(self) -> None:
        try:
            result = self.edit()
        except SettingsError as exc:
            self.error.setText(str(exc))
            self.error.show()
            return
        self.saved.emit(result)
        self.accept()
