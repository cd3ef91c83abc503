"""The app's own ``/`` commands: what each is called and says in the ``/``
list, and recognising one sent as the whole message. The window runs them
(``MainWindow.run_command``): a command is never sent to the model.

An app command wins over a skill of the same name (the skill is still
loaded by the model through ``get_skill``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AppCommand:
    name: str
    """Typed as ``/name``."""
    text_key: str
    """Its one-line description in the UI texts."""


APP_COMMANDS = (
    AppCommand("new", "cmd_new"),
    AppCommand("settings", "cmd_settings"),
    AppCommand("help", "cmd_help"),
)


def app_command(text: str) -> AppCommand | None:
    """The command ``text`` is (``/new`` alone, spaces around allowed), else None."""
    word = text.strip()
    if not word.startswith("/"):
        return None
    return next((c for c in APP_COMMANDS if c.name == word[1:]), None)
