"""The Settings dialog's Model page: a provider preset fills the
address; "Fetch models" asks the endpoint for its models (a searchable
combo); "Test connection" sends one tiny request and says, in one line,
how long it took and what came back, or what went wrong. Both run on the
event loop (:mod:`desktop_agent.llm.endpoint_check`), never blocking it.
The API key: typed here, kept by the window in the system keyring (or,
without one, a private file); where, :func:`key_note_text` says in words."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QCompleter,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop_agent.llm.endpoint_check import (
    PRESETS,
    CheckResult,
    address_problem,
    check_connection,
    list_models,
    preset_for,
)
from desktop_agent.storage.limits import MAX_TOKENS_LIMIT, REQUEST_TIMEOUT_LIMIT_S
from desktop_agent.storage.secrets import KeyStorage
from desktop_agent.storage.settings import Settings, SettingsError
from desktop_agent.texts import Texts
from desktop_agent.ui.common.retranslate import TextBindings, item_text


class ModelCombo(QComboBox):
    """An editable combo whose list filters as you type (any part of a name)."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        completer = QCompleter(self.model(), self)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setCompleter(completer)
        self._completer = completer
        self.setCurrentText(text)

    def text(self) -> str:
        return self.currentText()

    def setText(self, text: str) -> None:  # QLineEdit's name, kept for callers
        self.setCurrentText(text)

    def set_models(self, names: tuple[str, ...]) -> None:
        current = self.currentText()
        self.clear()
        self.addItems(list(names))
        self.setCurrentText(current)

    def matching(self, fragment: str) -> list[str]:
        """The listed models the filter shows for ``fragment``."""
        completer = self._completer
        completer.setCompletionPrefix(fragment)
        found: list[str] = []
        for row in range(completer.completionCount()):
            completer.setCurrentRow(row)
            found.append(completer.currentCompletion())
        return found


def key_note_text(texts: Texts, storage: KeyStorage) -> str:
    """Where the key is kept, translated (the storage layer knows no language)."""
    if storage.where == "keyring":
        return texts.tr("key_storage_keyring")
    return texts.tr("key_storage_file", path=str(storage.path))


def preset_text(key: str, label: str) -> Callable[[Texts], str]:
    """A preset's name: a proper name as is, translated where Chinese has
    its own (通义千问, 智谱)."""

    def text(texts: Texts) -> str:
        try:
            return texts.tr(f"model_preset_{key}")
        except KeyError:
            return label

    return text


def failure_text(texts: Texts, result: CheckResult) -> str:
    """A failed check in one translated line."""
    return texts.tr(f"model_fail_{result.failure or 'other'}", detail=result.detail)


class ModelPage(QWidget):
    def __init__(
        self,
        settings: Settings,
        *,
        has_api_key: bool,
        key_note: str | KeyStorage,
        stored_key: Callable[[], str | None] = lambda: None,
        texts: Texts,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.texts = TextBindings(texts)
        self._stored_key = stored_key
        self._tasks: set[asyncio.Task[None]] = set()

        self.preset = QComboBox(self)
        self.preset.addItem("", "custom")
        self.texts.bind(item_text(self.preset, 0), "model_preset_custom")
        self._preset_texts = [preset_text(p.key, p.label) for p in PRESETS]
        for preset, text in zip(PRESETS, self._preset_texts, strict=True):
            self.preset.addItem(text(texts), preset.key)
        self.base_url = QLineEdit(settings.base_url, self)
        self.texts.bind(self.base_url.setPlaceholderText, "settings_endpoint_hint")
        self.address_note = QLabel(self)
        self.address_note.setObjectName("cardMuted")
        self.address_note.setWordWrap(True)
        self.model = ModelCombo(settings.model, self)
        self.fetch = QPushButton(self)
        self.texts.bind(self.fetch.setText, "model_fetch")
        self.fetch.clicked.connect(self.fetch_models)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(self.fetch)

        self.api_key = QLineEdit(self)
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        if has_api_key:
            self.texts.bind(self.api_key.setPlaceholderText, "settings_api_key_set")
        self.forget_key = QCheckBox(self)
        self.texts.bind(self.forget_key.setText, "settings_api_key_clear")
        self.forget_key.setVisible(has_api_key)
        self._key_storage = key_note if isinstance(key_note, KeyStorage) else None
        self.key_note = QLabel(key_note if isinstance(key_note, str) else key_note_text(texts, key_note), self)
        self.key_note.setObjectName("cardMuted")
        self.key_note.setWordWrap(True)

        self.test = QPushButton(self)
        self.texts.bind(self.test.setText, "model_test")
        self.test.clicked.connect(self.test_connection)
        self.result = QLabel(self)
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test)
        test_row.addWidget(self.result, 1)

        form = QFormLayout()
        form.addRow(self.texts.label("model_provider", self), self.preset)
        form.addRow(self.texts.label("settings_endpoint", self), self.base_url)
        form.addRow("", self.address_note)
        form.addRow(self.texts.label("settings_api_key", self), self.api_key)
        form.addRow("", self.forget_key)
        form.addRow("", self.key_note)
        form.addRow(self.texts.label("settings_model", self), model_row)
        form.addRow("", test_row)
        self._add_limits(form, settings)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addStretch(1)

        self.preset.activated.connect(self._on_preset)
        self.base_url.textChanged.connect(lambda _t: self._sync_preset())
        self._sync_preset()

    def _add_limits(self, form: QFormLayout, settings: Settings) -> None:
        """The reply limit and the request timeout (contracts §2a): what keeps
        a looping or stalled model from running on."""
        self.max_tokens = QSpinBox(self)
        self.max_tokens.setRange(1, MAX_TOKENS_LIMIT)
        self.max_tokens.setValue(settings.max_tokens)
        self.texts.bind(self.max_tokens.setSuffix, "model_max_tokens_suffix")
        self.texts.bind(self.max_tokens.setToolTip, "model_max_tokens_tip")
        self.request_timeout = QSpinBox(self)
        self.request_timeout.setRange(1, int(REQUEST_TIMEOUT_LIMIT_S))
        self.texts.bind(self.request_timeout.setSuffix, "model_seconds_suffix")
        self._timeout_s = settings.request_timeout_s
        self.request_timeout.setValue(max(1, round(self._timeout_s)))
        self.texts.bind(self.request_timeout.setToolTip, "model_request_timeout_tip")
        form.addRow(self.texts.label("model_max_tokens", self), self.max_tokens)
        form.addRow(self.texts.label("model_request_timeout", self), self.request_timeout)

    def _request_timeout_s(self) -> float:
        """The field's seconds; a fraction from the file stays while the field is untouched."""
        shown = self.request_timeout.value()
        return self._timeout_s if shown == max(1, round(self._timeout_s)) else float(shown)

    def retranslate(self, texts: Texts) -> None:
        self.texts.retranslate(texts)
        for index, text in enumerate(self._preset_texts, start=1):  # 0: "Custom", bound above
            self.preset.setItemText(index, text(texts))
        if self._key_storage is not None:
            self.key_note.setText(key_note_text(texts, self._key_storage))
        self._sync_preset()

    # ------------------------------------------------------------ address

    def _on_preset(self, index: int) -> None:
        """The provider's address, and its default model in place of an
        empty one or one meant for another provider (another preset's
        default, or any name when the provider changes): a model name is
        rarely served by two providers. Choosing the provider already set
        keeps the model typed."""
        key = self.preset.itemData(index)
        preset = next((p for p in PRESETS if p.key == key), None)
        if preset is None:
            return
        before = preset_for(self.base_url.text())
        model = self.model.text().strip()
        defaults = {p.model for p in PRESETS}
        self.base_url.setText(preset.base_url)
        if preset.model and (not model or model in defaults or before is not preset):
            self.model.setText(preset.model)

    def _sync_preset(self) -> None:
        preset = preset_for(self.base_url.text())
        self.preset.setCurrentIndex(max(0, self.preset.findData(preset.key if preset else "custom")))
        problem = self.address_problem()
        self.address_note.setText(problem or "")
        self.address_note.setVisible(problem is not None)

    def address_problem(self) -> str | None:
        """Why the address cannot be used, translated; None when it can
        (or is empty: the offline demo model)."""
        url = self.base_url.text().strip()
        problem = address_problem(url) if url else None
        return self.texts.tr(f"model_address_{problem}") if problem else None

    def _key(self) -> str | None:
        typed = self.api_key.text().strip()
        if typed:
            return typed
        return None if self.forget_key.isChecked() else self._stored_key()

    # ------------------------------------------------------------- checks

    def _run(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def busy(self) -> bool:
        return bool(self._tasks)

    def _ready(self) -> str | None:
        """The address to check, or None with the reason said once: a bad
        address is already explained under the field, so here only a pointer."""
        url = self.base_url.text().strip()
        if self.address_problem() is not None:
            self.result.setText(self.texts.tr("model_fix_address"))
            return None
        if not url:
            self.result.setText(self.texts.tr("model_address_empty"))
            return None
        return url

    def fetch_models(self) -> None:
        url = self._ready()
        if url is None:
            return
        self.fetch.setEnabled(False)
        self.result.setText(self.texts.tr("model_fetching"))
        self._run(self._fetch(url, self._key()))

    async def _fetch(self, url: str, key: str | None) -> None:
        try:
            result = await list_models(url, key)
        finally:
            self.fetch.setEnabled(True)
        if result.ok:
            self.model.set_models(result.models)
            count = len(result.models)
            self.result.setText(self.texts.tr("model_fetched", count=count))
            model = self.model.text().strip()
            if result.models and (not model or (model in {p.model for p in PRESETS} and model not in result.models)):
                self.model.setText(result.models[0])  # empty, or a preset's guess this server does not have
        else:
            self.result.setText(failure_text(self.texts.texts, result))

    def test_connection(self) -> None:
        url = self._ready()
        if url is None:
            return
        self.test.setEnabled(False)
        self.result.setText(self.texts.tr("model_testing"))
        self._run(self._test(url, self._key(), self.model.text().strip()))

    async def _test(self, url: str, key: str | None, model: str) -> None:
        try:
            result = await check_connection(url, key, model)
        finally:
            self.test.setEnabled(True)
        if result.ok:
            self.result.setText(self.texts.tr("model_test_ok", ms=result.latency_ms, answer=result.answer or "…"))
        else:
            self.result.setText(failure_text(self.texts.texts, result))

    # -------------------------------------------------------------- result

    def apply_to(self, settings: Settings) -> Settings:
        """Raises :class:`SettingsError` (translated, one line) for a bad address."""
        problem = self.address_problem()
        if problem:
            raise SettingsError(problem)
        return replace(
            settings, base_url=self.base_url.text().strip(), model=self.model.text().strip(),
            max_tokens=self.max_tokens.value(), request_timeout_s=self._request_timeout_s(),
        )

    def api_key_edit(self) -> tuple[str | None, bool]:
        key = self.api_key.text().strip()
        return key or None, self.forget_key.isChecked() and not key

