"""One MCP server's entry, edited (the Settings dialog's Tools page, issue
13): a name, then either a command to run (stdio: command, arguments,
environment, working folder) or a remote address (SSE or streamable HTTP).

Signals:
    entry_ready(str, object)   OK with valid values: the name and the entry (a dict
                        for ``mcpServers``; keys the form does not show, such
                        as ``timeout_s``, kept from the entry edited)

Like the Settings dialog it writes nothing itself; it is opened with
``open()`` (no nested event loop under qasync)."""

from __future__ import annotations

import re
import shlex
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.mcp_engine.config import parse_mcp_config
from desktop_agent.mcp_engine.config_errors import McpConfigError
from desktop_agent.texts import Texts
from desktop_agent.ui.common.dialog_parts import error_line, ok_cancel
from desktop_agent.ui.common.retranslate import TextBindings, item_text
from desktop_agent.ui.common.theme import apply_theme
from desktop_agent.ui.settings.mcp_wording import problem_text

_NAME_RE = re.compile(r"^[A-Za-z0-9_.\-]{1,64}$")
_FORM_KEYS = ("type", "transport", "command", "args", "env", "cwd", "url")


def _transport_of(entry: dict[str, Any]) -> str:
    kind = str(entry.get("type") or entry.get("transport") or "")
    if kind in ("sse", "http"):
        return kind
    if kind.replace("_", "-") == "streamable-http" or kind == "streamablehttp":
        return "http"
    if not kind and entry.get("url") and not entry.get("command"):
        return "sse" if str(entry["url"]).rstrip("/").endswith("/sse") else "http"
    return "stdio"


def _join(args: list[Any]) -> str:
    """Arguments as one line, quoted only where splitting needs it."""
    return " ".join(a if a and not re.search(r"[\s'\"\\]", a) else shlex.quote(a) for a in map(str, args))


class McpServerEditor(QDialog):
    entry_ready = Signal(str, object)

    def __init__(
        self,
        name: str = "",
        entry: dict[str, Any] | None = None,
        *,
        taken: frozenset[str] = frozenset(),
        texts: Texts,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.texts = TextBindings(texts)
        self._original = dict(entry or {})
        self._taken = taken - {name}
        self.texts.bind(self.setWindowTitle, "mcp_edit_title" if name else "mcp_add_title")
        self.setMinimumWidth(480)

        self.name = QLineEdit(name, self)
        self.transport = QComboBox(self)
        for kind in ("stdio", "sse", "http"):
            self.transport.addItem("", kind)
        for index, key in enumerate(("mcp_kind_stdio", "mcp_kind_sse", "mcp_kind_http")):
            self.texts.bind(item_text(self.transport, index), key)
        self.transport.setCurrentIndex(self.transport.findData(_transport_of(self._original)))
        self.command = QLineEdit(str(self._original.get("command") or ""), self)
        self.command.setPlaceholderText("npx")
        args = self._original.get("args") or []
        self.args = QLineEdit(_join(args) if isinstance(args, list) else "", self)
        self.args.setCursorPosition(0)
        self.args.setPlaceholderText("-y @modelcontextprotocol/server-filesystem ~/Documents")
        env = self._original.get("env") or {}
        self.env = QPlainTextEdit("\n".join(f"{k}={v}" for k, v in env.items()) if isinstance(env, dict) else "", self)
        self.env.setPlaceholderText("API_TOKEN=…")
        self.env.setFixedHeight(64)
        self.cwd = QLineEdit(str(self._original.get("cwd") or ""), self)
        self.url = QLineEdit(str(self._original.get("url") or ""), self)
        self.url.setPlaceholderText("https://example.com/mcp")


        self.error = error_line(self)
        self.buttons = ok_cancel(self, self._on_ok)
        # One form, rows shown by kind: the labels stay in one column.
        self._form = form = QFormLayout()
        form.addRow(self.texts.label("mcp_name", self), self.name)
        form.addRow(self.texts.label("mcp_kind", self), self.transport)
        form.addRow(self.texts.label("mcp_command", self), self.command)
        form.addRow(self.texts.label("mcp_args", self), self.args)
        form.addRow(self.texts.label("mcp_env", self), self.env)
        form.addRow(self.texts.label("mcp_cwd", self), self.cwd)
        form.addRow(self.texts.label("mcp_url", self), self.url)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        self.transport.currentIndexChanged.connect(lambda _i: self._show_fields())
        self._show_fields()
        if parent is None:
            apply_theme(self)

    def kind(self) -> str:
        return str(self.transport.currentData())

    def _show_fields(self) -> None:
        local = self.kind() == "stdio"
        for field in (self.command, self.args, self.env, self.cwd):
            self._form.setRowVisible(field, local)
        self._form.setRowVisible(self.url, not local)

    def result_entry(self) -> tuple[str, dict[str, Any]]:
        """The name and entry as entered; raises ValueError with a
        translated line when something is missing or wrong."""
        name = self.name.text().strip()
        if not _NAME_RE.match(name):
            raise ValueError(self.texts.tr("mcp_bad_name"))
        if name in self._taken:
            raise ValueError(self.texts.tr("mcp_name_taken", name=name))
        entry = {k: v for k, v in self._original.items() if k not in _FORM_KEYS}
        if self.kind() == "stdio":
            if not self.command.text().strip():
                raise ValueError(self.texts.tr("mcp_need_command"))
            entry["command"] = self.command.text().strip()
            try:
                args = shlex.split(self.args.text())
            except ValueError:
                raise ValueError(self.texts.tr("mcp_bad_args")) from None
            if args:
                entry["args"] = args
            env: dict[str, str] = {}
            for line in self.env.toPlainText().splitlines():
                if not line.strip():
                    continue
                key, sep, value = line.partition("=")
                if not sep or not key.strip():
                    raise ValueError(self.texts.tr("mcp_bad_env", line=line.strip()))
                env[key.strip()] = value.strip()
            if env:
                entry["env"] = env
            if self.cwd.text().strip():
                entry["cwd"] = self.cwd.text().strip()
        else:
            url = self.url.text().strip()
            if not url.startswith(("http://", "https://")):
                raise ValueError(self.texts.tr("model_address_scheme"))
            entry["type"] = self.kind()
            entry["url"] = url
        try:
            parse_mcp_config({"mcpServers": {name: entry}})
        except McpConfigError as exc:  # said in the window's words, without the name just typed
            raise ValueError(problem_text(self.texts.texts, exc)) from None
        return name, entry

    def _on_ok(self) -> None:
        try:
            name, entry = self.result_entry()
        except ValueError as exc:
            self.error.setText(str(exc))
            self.error.show()
            return
        self.entry_ready.emit(name, entry)
        self.accept()
