"""The window's Settings: the dialog (⚙, Ctrl+, or the welcome's Connect),
asked for before the window is attached and opened once it is, and a Save
reaching everything it changes: the turn logic (kept, written and applied to
the services), speech input, the language and theme, and the MCP servers
when another servers file was chosen. It names what it needs of the window
in :class:`SettingsWindow`, so it does not import the window."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from desktop_agent.ui.settings.glue import apply_settings_appearance, reload_if_moved

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktop_agent.texts import Texts
    from desktop_agent.ui.chat.turn_logic import TurnLogic
    from desktop_agent.ui.chat.turn_view import TurnView
    from desktop_agent.ui.settings.dialog import SettingsDialog, SettingsEdit
    from desktop_agent.ui.shell.window_deps import WindowDeps
    from desktop_agent.ui.voice.glue import VoiceGlue


class SettingsWindow(Protocol):
    """What Settings needs of the window (``MainWindow`` is one)."""

    @property
    def texts(self) -> Texts: ...

    @property
    def deps(self) -> WindowDeps | None: ...

    @property
    def controller(self) -> TurnLogic[TurnView] | None: ...

    @property
    def voice(self) -> VoiceGlue | None: ...

    def retranslate(self, texts: Texts) -> None: ...


class WindowSettings:
    def __init__(self, window: SettingsWindow, parent: QWidget) -> None:
        self._window = window
        self._parent = parent
        """The dialog's parent (the window itself)."""
        self._wanted = False
        self.dialog: SettingsDialog | None = None
        """The Settings dialog opened last."""

    def open(self) -> SettingsDialog | None:
        """Open the dialog; before the window is attached, remember to open
        it once it is (a moment, never the MCP servers) and return None."""
        from desktop_agent.ui.settings.dialog import SettingsDialog
        from desktop_agent.ui.settings.hooks_page import HooksPage

        window = self._window
        deps, controller = window.deps, window.controller
        if deps is None or controller is None:
            self._wanted = True
            return None
        feature = deps.settings_feature
        if feature is not None:
            feature.on_opened()
        dialog = SettingsDialog(
            controller.settings, has_api_key=controller.has_api_key(), key_note=deps.key.note(),
            skills=deps.skills, skills_folder=deps.skills_folder, parent=self._parent,
            stored_key=deps.key.api_key, mcp=deps.mcp.control() if deps.mcp is not None else None,
            preview_voice=feature.preview_voice if feature is not None else None,
            model_downloads=deps.voice.model_downloads, texts=window.texts,
        )
        dialog.appearance_changed.connect(window.retranslate)
        self.dialog = dialog
        hooks = HooksPage(
            deps.hooks.infos(controller.settings.hooks_enabled), texts=dialog.texts, folder=deps.hooks_folder
        )
        dialog.add_page("hooks_tab", hooks)  # a key: the title follows a language switch
        # The Hooks page's switches join the dialog's edit: one save, one settings path.
        dialog.saved.connect(lambda edit: self.apply(replace(edit, settings=hooks.apply_to(edit.settings))))
        dialog.open()
        return dialog

    def open_if_asked(self) -> None:
        """The window is attached: open the dialog asked for before."""
        if self._wanted:
            self._wanted = False
            self.open()

    def apply(self, edit: SettingsEdit) -> None:
        """A Save (or a test's edit): everything the settings change."""
        window = self._window
        controller, deps = window.controller, window.deps
        before = controller.settings if controller is not None else None
        if controller is not None:
            controller.apply_edit(edit.settings, api_key=edit.api_key, forget_api_key=edit.forget_api_key)
        if window.voice is not None:
            window.voice.apply(edit.settings)
        apply_settings_appearance(window.texts, window.retranslate, before, edit.settings)
        reload_if_moved(deps.mcp if deps is not None else None, before, edit.settings)
