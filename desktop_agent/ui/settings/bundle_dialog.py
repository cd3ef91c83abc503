"""What an MCP bundle is, before it is installed: its name, version, author,
description and tools, and a form for the settings it asks for (a sensitive
one masked: it goes to the keyring, not the servers file).

Signals:
    values_ready(object)   Install with every required setting given: the
                           values by key (str, float, bool or a tuple of
                           paths), for :func:`desktop_agent.mcp_engine.bundles.install`.

It installs nothing itself (the Tools page does, then reloads the servers);
opened with ``open()`` (no nested event loop under qasync)."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.mcp_engine.bundle_manifest import ConfigValue, UserConfigOption
from desktop_agent.mcp_engine.bundles import Bundle, missing_values
from desktop_agent.texts import Texts
from desktop_agent.ui.common.dialog_parts import error_line
from desktop_agent.ui.common.theme import apply_theme

Field = QLineEdit | QDoubleSpinBox | QCheckBox


class BundleDialog(QDialog):
    values_ready = Signal(object)

    def __init__(self, bundle: Bundle, texts: Texts, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bundle = bundle
        self.texts = texts
        m = bundle.manifest
        self.setWindowTitle(texts.tr("bundle_title", name=m.display_name))
        self.setMinimumWidth(460)
        self.heading = QLabel(
            f"<b>{escape(m.display_name)}</b> {escape(texts.tr('bundle_version', version=m.version))}", self
        )
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.author = QLabel(texts.tr("bundle_author", author=m.author) if m.author else "", self)
        self.author.setObjectName("cardMuted")
        self.author.setVisible(bool(m.author))
        self.description = QLabel(m.description, self)
        self.description.setWordWrap(True)
        self.description.setTextFormat(Qt.TextFormat.PlainText)
        tools = ", ".join(t.name for t in m.tools) or texts.tr("bundle_tools_unknown")
        self.tools = QLabel(texts.tr("bundle_tools", tools=tools), self)
        self.tools.setWordWrap(True)
        self.tools.setTextFormat(Qt.TextFormat.PlainText)
        self.fields: dict[str, Field] = {}
        """Each setting's input, by key, in the manifest's order."""
        form = QFormLayout()
        for option in m.user_config:
            label = option.title + ("" if option.required else " " + texts.tr("form_optional"))
            form.addRow(label, self._field(option))
        self.settings_label = QLabel(texts.tr("bundle_settings"), self)
        self.settings_label.setVisible(bool(m.user_config))
        self.note = QLabel(texts.tr("bundle_note"), self)
        self.note.setObjectName("cardMuted")
        self.note.setWordWrap(True)
        self.error = error_line(self)
        buttons = QDialogButtonBox(self)
        self.install_button = buttons.addButton(texts.tr("bundle_install"), QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(texts.tr("form_cancel"), QDialogButtonBox.ButtonRole.RejectRole)
        buttons.accepted.connect(self._on_install)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (self.heading, self.author, self.description, self.tools, self.settings_label):
            layout.addWidget(widget)
        layout.addLayout(form)
        layout.addWidget(self.note)
        layout.addWidget(self.error)
        layout.addWidget(buttons)
        apply_theme(self)

    def _field(self, option: UserConfigOption) -> QWidget:
        field: Field
        if option.type == "boolean":
            field = QCheckBox(self)
            field.setChecked(option.default is True)
        elif option.type == "number":
            field = QDoubleSpinBox(self)
            field.setDecimals(2)
            field.setRange(option.minimum if option.minimum is not None else -1e12,
                           option.maximum if option.maximum is not None else 1e12)
            if isinstance(option.default, float):
                field.setValue(option.default)
        else:
            field = QLineEdit(self)
            default = option.default
            field.setText(", ".join(default) if isinstance(default, tuple) else "" if default is None else str(default))
            if option.sensitive:
                field.setEchoMode(QLineEdit.EchoMode.Password)
        field.setToolTip(option.description)
        self.fields[option.key] = field
        if option.type not in ("directory", "file"):
            return field
        row = QWidget(self)
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        line.addWidget(field, 1)
        browse = QPushButton(self.texts.tr("settings_browse"), row)
        browse.clicked.connect(lambda: self._browse(option))
        line.addWidget(browse)
        return row

    def _browse(self, option: UserConfigOption) -> None:
        field = self.fields[option.key]
        assert isinstance(field, QLineEdit)
        dialog = QFileDialog(self, option.title, field.text())
        dialog.setFileMode(QFileDialog.FileMode.Directory if option.type == "directory" else QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(field.setText)
        dialog.open()

    def values(self) -> dict[str, ConfigValue]:
        """What the form holds now; an empty text is left out (its default applies)."""
        out: dict[str, ConfigValue] = {}
        options = {o.key: o for o in self.bundle.manifest.user_config}
        for key, field in self.fields.items():
            if isinstance(field, QCheckBox):
                out[key] = field.isChecked()
            elif isinstance(field, QDoubleSpinBox):
                out[key] = field.value()
            elif field.text().strip():
                text = field.text().strip()
                out[key] = tuple(p.strip() for p in text.split(",") if p.strip()) if options[key].multiple else text
            else:
                out[key] = ""
        return out

    def _on_install(self) -> None:
        values = self.values()
        missing = missing_values(self.bundle.manifest, values)
        if missing:
            self.error.setText(self.texts.tr("form_required", question=missing[0].title))
            self.error.show()
            self.fields[missing[0].key].setFocus()
            return
        self.error.hide()
        self.values_ready.emit(values)
        self.accept()
