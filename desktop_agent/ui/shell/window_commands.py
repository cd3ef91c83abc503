"""The input's ``/`` and ``@`` lists in the window, and the app's own ``/``
commands run there: ``/new`` starts a new conversation, ``/settings``
opens Settings, ``/help`` says the commands in one system line. A command
runs when picked from the ``/`` list or sent as the whole message; it never
reaches the model.

The lists read the skills enabled now (the window's settings) and the MCP
catalogue through the window's MCP feature, which follows the engine a
reload replaces.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtWidgets import QWidget

from desktop_agent.ui.chat.mention_source import NoMentions
from desktop_agent.ui.chat.picker import Picker
from desktop_agent.ui.chat.picker_choices import enabled_skills
from desktop_agent.ui.chat.slash_commands import app_command

if TYPE_CHECKING:
    from desktop_agent.storage.settings import Settings
    from desktop_agent.texts import Texts
    from desktop_agent.ui.chat.chat_view import ChatView
    from desktop_agent.ui.chat.input_box import InputBox
    from desktop_agent.ui.shell.window_deps import WindowDeps
    from desktop_agent.ui.shell.window_keys import WindowKeys


class CommandsWindow(Protocol):
    """What the commands need of the window (the main window is one)."""

    texts: Texts
    input: InputBox
    chat: ChatView
    keys: WindowKeys

    @property
    def settings(self) -> Settings: ...

    def centralWidget(self) -> QWidget | None: ...

    def new_conversation(self) -> bool: ...

    def open_settings(self) -> object: ...


class WindowCommands:
    def __init__(self, window: CommandsWindow, deps: WindowDeps) -> None:
        self._window = window
        mentions = deps.mcp.mentions if deps.mcp is not None else None
        self.picker = Picker(
            window.input, lambda: window.texts, source=mentions if mentions is not None else NoMentions(),
            skills=lambda: enabled_skills(deps.skills, window.settings.enabled_skills),
            parent=window.centralWidget() or window.input.window(),
        )
        self.picker.command.connect(self.run)

    def run_typed(self, text: str) -> bool:
        """``text`` (what Enter would send) is an app command: run it, and
        empty the box when it ran. False: not a command, send it."""
        command = app_command(text)
        if command is None:
            return False
        if self.run(command.name):
            self._window.input.clear()
        return True

    def run(self, name: str) -> bool:
        """Run the app command ``name``; False when it cannot run now (a new
        conversation while a turn runs: the busy line says why)."""
        window = self._window
        if name == "new":
            if not window.new_conversation():
                window.keys.say_busy()
                return False
        elif name == "settings":
            window.open_settings()
        elif name == "help":
            window.chat.add_system(window.texts.tr("cmd_help_text"), key="cmd_help_text")
        else:
            return False
        return True
