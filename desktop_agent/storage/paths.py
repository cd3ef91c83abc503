"""Where user data lives (contracts §11): one folder, overridable with
``DESKTOP_AGENT_HOME`` (every test sets it to a temp dir)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import platformdirs

APP_NAME = "desktop-agent"


def data_dir() -> Path:
    """The folder, created 0700 when it is new: it holds conversations and
    maybe the API key. An existing folder keeps the mode it has (the user
    may have set it; a read-only one is used read-only)."""
    override = os.environ.get("DESKTOP_AGENT_HOME")
    path = Path(override) if override else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    if not path.is_dir():
        try:
            path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
        except OSError:
            pass  # what cannot be made is said by whatever needs it there
    return path


PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600


def make_private(path: Path, mode: int) -> None:
    """Narrow a file this app has just created to ``mode`` when group or
    others have any access (POSIX; a no-op where modes mean nothing). Never
    for a file that was there before: its mode is the user's."""
    if sys.platform == "win32":
        return
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(mode)
    except OSError:
        pass


SETTINGS_FILE = "settings.json"


def settings_path() -> Path:
    return data_dir() / SETTINGS_FILE


def default_mcp_config_path() -> Path:
    return data_dir() / "mcp_servers.json"


def bundled_dir(name: str) -> Path:
    """A folder shipped with the app (``skills``, ``hooks``): beside the
    package in a checkout, or inside a PyInstaller bundle
    (``sys._MEIPASS``)."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle is not None:
        return Path(bundle) / name
    return Path(__file__).resolve().parents[2] / name

