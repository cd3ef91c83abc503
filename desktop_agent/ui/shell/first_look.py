"""The saved language and theme, applied before the window is first shown.

The settings proper are read with the services, which come seconds after
the window is on screen (``app.py`` shows it first, on purpose); applied
then, a user who chose dark and Chinese saw a light English window for
those seconds. So the two values are read here straight from
``settings.json``: one small file, plain ``json``, no validation library
(the window must not wait for one). Anything this does not understand
reads as ``system`` and is left to the full load, which says what was wrong.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from desktop_agent.storage.user_files import UserFileError, read_user_bytes
from desktop_agent.texts import Texts
from desktop_agent.ui.common.appearance import apply_appearance

log = logging.getLogger(__name__)

LOOK_FILE_LIMIT = 1 << 20
"""Bytes, as the settings' own limit: a bigger file is left to the full load."""


@dataclass(frozen=True, slots=True)
class SavedLook:
    language: str = "system"
    """``system``, ``en`` or ``zh``."""
    theme: str = "system"
    """``system``, ``light`` or ``dark``."""


def read_saved_look(path: Path) -> SavedLook:
    """The language and theme saved in the settings file at ``path``;
    ``system`` for each that is missing or not one of its choices."""
    try:
        data = json.loads(read_user_bytes(path, limit=LOOK_FILE_LIMIT).decode("utf-8-sig"))
    except (UserFileError, ValueError, RecursionError) as exc:  # ValueError: bad JSON or UTF-8
        log.debug("no saved language or theme in %s: %s", path, exc)
        return SavedLook()
    if not isinstance(data, dict):
        return SavedLook()
    language, theme = data.get("language"), data.get("theme")
    return SavedLook(
        language if language in ("en", "zh") else "system",
        theme if theme in ("light", "dark") else "system",
    )


def apply_saved_look(path: Path) -> Texts:
    """Apply the saved theme and Qt's own words, and return the saved
    language's texts for the window to be built with."""
    look = read_saved_look(path)
    return apply_appearance(look.language, look.theme)
